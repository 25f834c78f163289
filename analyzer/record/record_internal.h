/*
 * record_internal: what the pieces of `analyze record` share. record.c owns the command line,
 * the workload and the main loop; record_events.c the events and their fds; record_stream.c
 * their ring buffers and the streams that drain them; record_synth.c the records synthesized
 * from /proc; record_header.c the header features, build-ids and the build-id cache. Not for
 * use outside analyzer/record/.
 */
#ifndef ANALYZER_RECORD_INTERNAL_H
#define ANALYZER_RECORD_INTERNAL_H

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#include "lib/compiler.h"
#include "lib/containers/strpool.h"
#include "readers/format.h"

struct perf_writer;
struct ZSTD_CCtx_s;
struct hit_dso;
struct workqueue;

struct rec_event {
	struct perf_event_attr attr;
	char *name;		/* as perf names it in EVENT_DESC */
	char *tp_system;	/* tracepoints: tracefs system and event */
	char *tp_name;
	u64 *ids;		/* one per open fd, in opening order */
	size_t nr_ids;
};

/* One ring buffer: the first event of a CPU (and task) owns it, the others are redirected. */
struct rec_buffer {
	u8 *base;		/* the perf_event_mmap_page, then the data pages */
	size_t data_size;	/* a power of two */
	int fd;
};

/* A mapping seen in the recording (synthesized or from the kernel), for the build-id pass. */
struct rec_map {
	u32 pid;
	u64 start, end;
	const char *path;	/* interned in the recording's strpool */
};

/* A user-space sample's page, for the build-id pass. */
struct rec_hit {
	u32 pid;
	u64 ip;
};

/*
 * Where one thread's buffers go: the perf.data file (writer) or data.N of a data directory
 * (fd), through a zstd stream when compressing. Each stream is touched by one thread only.
 */
struct rec_stream {
	struct recording *rec;
	struct perf_writer *writer;	/* the single file, or NULL */
	int fd;				/* data.N, or -1 */
	u8 *out;			/* data.N's write buffer */
	size_t out_len;
	struct ZSTD_CCtx_s *zstd;
	u8 *zbuf;			/* one COMPRESSED record being built */
	u8 *tmp;			/* a record that straddles the ring's end */
	size_t tmp_alloc;
	struct rec_buffer *buffers;
	size_t nr_buffers;
	cpu_set_t affinity;		/* --threads: where the thread runs */
	pthread_t thread;
	bool started;
	u64 bytes_in, bytes_out;	/* before and after compression */
	u64 samples, lost, wakeups;
	u64 first_time, last_time;
	bool kernel_hit;
	struct rec_map *maps;
	size_t nr_maps, alloc_maps;
	struct rec_hit *hits;
	size_t nr_hits, alloc_hits;
	int error;			/* -errno of a failed write */
};

/* A --threads mask: the CPUs whose buffers a stream drains, and where the stream runs. */
struct rec_mask {
	cpu_set_t maps, affinity;
};

struct recording {
	/* options */
	const char *output;
	const char *buildid_dir;
	bool system_wide, no_inherit, threads, have_cpu_list;
	bool pipe;			/* -o -: a pipe-mode stream on stdout */
	const char *threads_spec;
	const char *cpu_list;		/* -C */
	int zstd_level;			/* 0: no compression */
	unsigned mmap_pages;
	u64 freq, period;
	int callchain;			/* 0, CALLCHAIN_FP, CALLCHAIN_DWARF */
	u32 stack_size;
	int argc;			/* the workload */
	const char **argv;		/* NULL-terminated, allocated */
	int cmdline_argc;
	const char **cmdline_argv;
	pid_t target_pid, target_tid;

	/* the events and what they are opened on */
	struct rec_event *events;
	size_t nr_events;
	int *cpus;
	size_t nr_cpus;
	struct rec_mask *masks;		/* --threads: one a stream */
	size_t nr_masks;
	pid_t *tids;			/* -1 alone: every task (-a, -C) */
	size_t nr_tids;
	int *fds;			/* [cpu][tid][event], -1 where not open */
	size_t nr_fds;
	int *open_errno;		/* a CPU's failed open: its errno, */
	size_t *open_failed;		/* and the event's index */
	struct workqueue *wq;		/* opens, enables, disables, closes per CPU in parallel */
	size_t page_size;

	struct rec_stream *streams;	/* streams[0] is the file or data.0 */
	size_t nr_streams;
	struct perf_writer *writer;	/* the perf.data file or the directory's `data` */
	struct strpool paths;
	pthread_mutex_t paths_lock;	/* guards paths: streams intern mmap paths */
	struct hit_dso *hit_dsos;	/* the build-ids written, for the cache */
	size_t nr_hit_dsos;
	volatile int done;		/* set by the main thread when the streams must stop */
	int stop;			/* --threads: an eventfd, readable once the streams must stop */
	sigset_t unblocked;		/* the signal mask to wait with (SIGINT, SIGTERM, SIGCHLD open) */
};

enum { CALLCHAIN_FP = 1, CALLCHAIN_DWARF = 2 };

/* record_events.c */
int record__parse_event(struct recording *rec, const char *name);
int record__default_event(struct recording *rec);
int record__open_events(struct recording *rec);
int record__set_ids(struct recording *rec);
int record__enable(struct recording *rec, bool enable);
size_t record__id_hdr_size(const struct recording *rec);
void record__close_events(struct recording *rec);

/*
 * record_masks.c. record__check_cpu_list: -1 where a CPU list is malformed (perf's usage
 * error). record__set_cpus: rec->cpus, the online CPUs or -C's. record__set_masks: with
 * --threads, rec->masks from the spec, and rec->cpus cut to the CPUs a mask drains. Both
 * 0, or -errno (perf's exit status for it) after perf's messages.
 */
int record__check_cpu_list(const char *list);
int record__set_cpus(struct recording *rec);
int record__set_masks(struct recording *rec);

/* record_stream.c */
int record__start_streams(struct recording *rec);
int record__run_threads(struct recording *rec);
void record__stop_streams(struct recording *rec);
int record__drain(struct rec_stream *s);
int record__stream_write(struct rec_stream *s, const void *bytes, size_t size);
int record__finish_streams(struct recording *rec);
void record__close(struct recording *rec);
void record__note_map(struct rec_stream *s, u32 pid, u64 start, u64 len, const char *path);

/* record_synth.c */
int record__synthesize(struct recording *rec);

/* record_header.c */
int record__write_features(struct recording *rec);
int record__cache_build_ids(struct recording *rec);

#endif
