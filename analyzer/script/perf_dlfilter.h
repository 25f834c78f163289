/*
 * perf_dlfilter.h: the binary interface of `script --dlfilter` shared objects, the one perf
 * 6.1 defines (perf-dlfilter(1)), so that a filter built against perf's header loads into
 * analyze unchanged and one built against this header loads into perf. Layouts, names and
 * the order of every member are the ABI: never reorder, only append (the size members tell a
 * filter which members its caller has).
 */
#ifndef ANALYZE_PERF_DLFILTER_H
#define ANALYZE_PERF_DLFILTER_H

#include <linux/perf_event.h>
#include <linux/types.h>

/* perf_dlfilter_sample has machine_pid and vcpu (added after the first version) */
#define PERF_DLFILTER_HAS_MACHINE_PID

/* perf_dlfilter_sample.flags: the kind of a branch decoded from an AUX-area trace */
enum {
	PERF_DLFILTER_FLAG_BRANCH = 1ULL << 0,
	PERF_DLFILTER_FLAG_CALL = 1ULL << 1,
	PERF_DLFILTER_FLAG_RETURN = 1ULL << 2,
	PERF_DLFILTER_FLAG_CONDITIONAL = 1ULL << 3,
	PERF_DLFILTER_FLAG_SYSCALLRET = 1ULL << 4,
	PERF_DLFILTER_FLAG_ASYNC = 1ULL << 5,
	PERF_DLFILTER_FLAG_INTERRUPT = 1ULL << 6,
	PERF_DLFILTER_FLAG_TX_ABORT = 1ULL << 7,
	PERF_DLFILTER_FLAG_TRACE_BEGIN = 1ULL << 8,
	PERF_DLFILTER_FLAG_TRACE_END = 1ULL << 9,
	PERF_DLFILTER_FLAG_IN_TX = 1ULL << 10,
	PERF_DLFILTER_FLAG_VMENTRY = 1ULL << 11,
	PERF_DLFILTER_FLAG_VMEXIT = 1ULL << 12,
};

/* One sample, its fields as the record has them (perf_event.h's PERF_SAMPLE_* say what) */
struct perf_dlfilter_sample {
	__u32 size;		/* sizeof this structure as the caller knows it */
	__u16 ins_lat;		/* WEIGHT_STRUCT's second part */
	__u16 p_stage_cyc;	/* WEIGHT_STRUCT's third part */
	__u64 ip;
	__s32 pid;
	__s32 tid;
	__u64 time;
	__u64 addr;
	__u64 id;
	__u64 stream_id;
	__u64 period;
	__u64 weight;
	__u64 transaction;
	__u64 insn_cnt;		/* instructions and cycles, for IPC */
	__u64 cyc_cnt;
	__s32 cpu;
	__u32 flags;		/* PERF_DLFILTER_FLAG_* */
	__u64 data_src;
	__u64 phys_addr;
	__u64 data_page_size;
	__u64 code_page_size;
	__u64 cgroup;
	__u8 cpumode;		/* the record's misc & PERF_RECORD_MISC_CPUMODE_MASK */
	__u8 addr_correlates_sym;	/* addr is a code or data address: resolve_addr() */
	__u16 misc;		/* the record header's misc */
	__u32 raw_size;
	const void *raw_data;
	__u64 brstack_nr;
	const struct perf_branch_entry *brstack;
	__u64 raw_callchain_nr;
	const __u64 *raw_callchain;
	const char *event;	/* the event's name */
	__s32 machine_pid;	/* 0: the host */
	__s32 vcpu;		/* -1: none */
};

/* An address resolved in the sample's address space */
struct perf_dlfilter_al {
	__u32 size;		/* sizeof this structure as the caller knows it */
	__u32 symoff;		/* addr's offset in sym */
	const char *sym;
	__u64 addr;		/* in the dso's address space */
	__u64 sym_start;
	__u64 sym_end;
	const char *dso;	/* its long name */
	__u8 sym_binding;	/* elf.h's STB_* */
	__u8 is_64_bit;		/* of the dso, when there is one */
	__u8 is_kernel_ip;
	__u32 buildid_size;
	__u8 *buildid;
	/* resolve_ip() only: */
	__u8 filtered;		/* the sample is left out (--comms, --pid, --tid) */
	const char *comm;
};

/*
 * What the filter can ask while it is called, ctx being its argument of that name. Most
 * answer only in filter_event and filter_event_early; args also in start and stop.
 */
struct perf_dlfilter_fns {
	const struct perf_dlfilter_al *(*resolve_ip)(void *ctx);
	/* NULL unless the sample's addr_correlates_sym */
	const struct perf_dlfilter_al *(*resolve_addr)(void *ctx);
	/* the --dlarg values, in order */
	char **(*args)(void *ctx, int *dlargc);
	/* al->size set by the caller; 0, or -1 when the address has no thread to be in */
	__s32 (*resolve_address)(void *ctx, __u64 address, struct perf_dlfilter_al *al);
	/* the sample's instruction bytes, *length of them; NULL and 0 when there are none */
	const __u8 *(*insn)(void *ctx, __u32 *length);
	/* the ip's source file and line; NULL and 0 when unknown */
	const char *(*srcline)(void *ctx, __u32 *line_number);
	struct perf_event_attr *(*attr)(void *ctx);
	/* the code at ip, up to len bytes into buf: their number, or -1 */
	__s32 (*object_code)(void *ctx, __u64 ip, void *buf, __u32 len);
	void *(*reserved[120])(void *);	/* later functions: the structure keeps its size */
};

/*
 * The functions a filter may define (each optional):
 * start: before the first sample; *data is passed to the others. 0, or a negative error.
 * stop: after the last one. 0, or a negative error.
 * filter_event: a sample after perf's own filters (time, cpu, comm, pid, tid): 0 keeps it,
 *	1 leaves it out, a negative error ends the run.
 * filter_event_early: the same, before those filters.
 * filter_description: a line saying what the filter does (--list-dlfilters), and optionally
 *	a longer text.
 */
int start(void **data, void *ctx);
int stop(void *data, void *ctx);
int filter_event(void *data, const struct perf_dlfilter_sample *sample, void *ctx);
int filter_event_early(void *data, const struct perf_dlfilter_sample *sample, void *ctx);
const char *filter_description(const char **long_description);

#endif
