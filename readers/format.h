/*
 * format: the perf.data on-disk layout (header, sections, user record types, feature bits).
 * Kernel record and sample layouts come from <linux/perf_event.h>. Facts from perf's
 * tools/perf/util/header.h, tools/lib/perf/include/perf/event.h and perf.data-file-format.txt.
 */
#ifndef READERS_FORMAT_H
#define READERS_FORMAT_H

#include <linux/perf_event.h>

#include "lib/compiler.h"

#define PERF_MAGIC2 0x32454c4946524550ULL	/* "PERFILE2" little-endian */
#define PERF_MAGIC2_SWAPPED 0x50455246494c4532ULL
#define PERF_PIPE_HEADER_SIZE 16
#define HEADER_FEAT_BITS 256

struct perf_file_section {
	u64 offset;
	u64 size;
};

struct perf_file_header {
	u64 magic;
	u64 size;
	u64 attr_size;
	struct perf_file_section attrs;
	struct perf_file_section data;
	struct perf_file_section event_types;
	u64 adds_features[HEADER_FEAT_BITS / 64];
};

/* Each entry of the attrs section: the attr (attr_size - 16 bytes) then its ids section. */

/* perf's user record types (tools/lib/perf/include/perf/event.h). */
enum perf_user_event_type {
	PERF_RECORD_USER_TYPE_START = 64,
	PERF_RECORD_HEADER_ATTR = 64,
	PERF_RECORD_HEADER_EVENT_TYPE = 65,
	PERF_RECORD_HEADER_TRACING_DATA = 66,
	PERF_RECORD_HEADER_BUILD_ID = 67,
	PERF_RECORD_FINISHED_ROUND = 68,
	PERF_RECORD_ID_INDEX = 69,
	PERF_RECORD_AUXTRACE_INFO = 70,
	PERF_RECORD_AUXTRACE = 71,
	PERF_RECORD_AUXTRACE_ERROR = 72,
	PERF_RECORD_THREAD_MAP = 73,
	PERF_RECORD_CPU_MAP = 74,
	PERF_RECORD_STAT_CONFIG = 75,
	PERF_RECORD_STAT = 76,
	PERF_RECORD_STAT_ROUND = 77,
	PERF_RECORD_EVENT_UPDATE = 78,
	PERF_RECORD_TIME_CONV = 79,
	PERF_RECORD_HEADER_FEATURE = 80,
	PERF_RECORD_COMPRESSED = 81,
	PERF_RECORD_FINISHED_INIT = 82,
	PERF_RECORD_HEADER_MAX
};

/* Kernel types newer than some uapi headers. */
#ifndef PERF_RECORD_AUX_OUTPUT_HW_ID
#define PERF_RECORD_AUX_OUTPUT_HW_ID 21
#endif
#define PERF_RECORD_KERNEL_MAX 22

/* perf's own misc bit on BUILD_ID records: the size field is valid (perf event.h). */
#define PERF_RECORD_MISC_BUILD_ID_SIZE (1 << 15)

enum {
	HEADER_RESERVED = 0,
	HEADER_TRACING_DATA = 1,
	HEADER_BUILD_ID,
	HEADER_HOSTNAME,
	HEADER_OSRELEASE,
	HEADER_VERSION,
	HEADER_ARCH,
	HEADER_NRCPUS,
	HEADER_CPUDESC,
	HEADER_CPUID,
	HEADER_TOTAL_MEM,
	HEADER_CMDLINE,
	HEADER_EVENT_DESC,
	HEADER_CPU_TOPOLOGY,
	HEADER_NUMA_TOPOLOGY,
	HEADER_BRANCH_STACK,
	HEADER_PMU_MAPPINGS,
	HEADER_GROUP_DESC,
	HEADER_AUXTRACE,
	HEADER_STAT,
	HEADER_CACHE,
	HEADER_SAMPLE_TIME,
	HEADER_MEM_TOPOLOGY,
	HEADER_CLOCKID,
	HEADER_DIR_FORMAT,
	HEADER_BPF_PROG_INFO,
	HEADER_BPF_BTF,
	HEADER_COMPRESSED,
	HEADER_CPU_PMU_CAPS,
	HEADER_CLOCK_DATA,
	HEADER_HYBRID_TOPOLOGY,
	HEADER_PMU_CAPS,
	HEADER_LAST_FEATURE,
};

/* Record layouts we read (kernel ones as perf's event.h spells them, without the trailer). */
struct perf_record_mmap {
	struct perf_event_header header;
	u32 pid, tid;
	u64 start, len, pgoff;
	char filename[];
};

struct perf_record_mmap2 {
	struct perf_event_header header;
	u32 pid, tid;
	u64 start, len, pgoff;
	union {
		struct {
			u32 maj, min;
			u64 ino, ino_generation;
		};
		struct {
			u8 build_id_size;
			u8 reserved_1;
			u16 reserved_2;
			u8 build_id[20];
		};
	};
	u32 prot, flags;
	char filename[];
};

struct perf_record_comm {
	struct perf_event_header header;
	u32 pid, tid;
	char comm[];
};

struct perf_record_fork {
	struct perf_event_header header;
	u32 pid, ppid;
	u32 tid, ptid;
	u64 time;
};

struct perf_record_lost {
	struct perf_event_header header;
	u64 id, lost;
};

struct perf_record_lost_samples {
	struct perf_event_header header;
	u64 lost;
};

struct perf_record_ksymbol {
	struct perf_event_header header;
	u64 addr;
	u32 len;
	u16 ksym_type, flags;
	char name[];
};

struct perf_record_header_build_id {
	struct perf_event_header header;
	s32 pid;
	union {
		u8 build_id[24];
		struct {
			u8 data[20];
			u8 size;
			u8 reserved1__;
			u16 reserved2__;
		};
	};
	char filename[];
};

#endif
