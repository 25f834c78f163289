/*
 * itrace_internal: what itrace.c (queues, heap, code bytes) and the decoders
 * (intel_bts.c; intel_pt.c and intel_pt_samples.c) share. Internal to analyzer/itrace/.
 */
#ifndef ANALYZER_ITRACE_INTERNAL_H
#define ANALYZER_ITRACE_INTERNAL_H

#include <sys/types.h>

#include "analyzer/itrace/itrace.h"

#define MAX_QUEUES 65536u	/* AUXTRACE idx: one per cpu or thread */

/* perf event.h: perf_record_auxtrace */
struct itrace_auxtrace {
	struct perf_event_header header;
	u64 size, offset, reference;
	u32 idx, tid, cpu, reserved;
};

void itrace_auxtrace_swap(struct itrace_auxtrace *record);

/* perf's thread stack of a queue's thread: the return addresses of the calls open */
struct itrace_stack {
	struct {
		u64 ret_addr;
		bool trace_end;	/* the call was made as tracing ended */
	} *entries;
	size_t cnt, alloc;
	u64 trace_nr;	/* the buffer the trace continues from (a new one flushes) */
};

/* thread_stack__event: a branch; the depth after it */
u32 itrace_stack__event(struct itrace_stack *ts, u32 flags, u64 from, u64 to, u8 insn_len,
			u64 trace_nr);
void itrace_stack__exit(struct itrace_stack *ts);

/* One AUXTRACE record's trace bytes: where they lie in the file, never copied. */
struct itrace_buffer {
	u64 data_offset, size, reference;
	u64 nr;			/* perf's buffer_nr: arrival order over all queues */
	s32 tid, cpu;
};

/* perf's auxtrace_queue with intel_bts_queue's state */
struct itrace_queue {
	struct itrace_buffer *buffers;
	size_t nr, alloc;
	size_t next;		/* the buffer to decode next */
	bool set;
	s32 tid, cpu;		/* of its buffers */
	/* the decoder's (intel_bts_queue, intel_pt_queue): made when the queue is first set up */
	bool decoder, on_heap, done, has_buffer;
	s32 pid, btsq_tid, btsq_cpu;
	struct pt_queue *pt;	/* Intel PT's decoder state (intel_pt.c) */
	struct itrace_stack stack;	/* with --itrace's thread stack */
};

/* perf's auxtrace_heap: queues by the reference of their next buffer (BTS) or the
 * timestamp their decoder reached (PT) */
struct itrace_heap_item {
	u32 queue_nr;
	u64 ordinal;
};

struct itrace;

/* What a decoder does as the records come (intel_bts.c, intel_pt.c). */
struct itrace_ops {
	/* before a kernel record with that timestamp (TSC; 0 if none) */
	int (*process_event)(struct itrace *it, const struct perf_event_header *event, u64 tsc);
	int (*flush)(struct itrace *it);
	void (*exit)(struct itrace *it);
};

/* The dso mapping the last code read came from (itrace__read_code). */
struct itrace_code_cache {
	s32 tid;
	u64 start, end;	/* the map's range, empty when nothing is cached */
	u64 delta;	/* file offset = ip - delta */
	const u8 *data;
	size_t size;
	const char *path;	/* the file's */
};

struct itrace {
	struct perf_session *session;
	struct machine *machine;
	struct itrace_consumer *consumer;
	struct itrace_opts opts;
	bool dont_decode;
	u64 info_offset;
	struct itrace_queue *queues;
	size_t nr_queues;
	u64 next_buffer_nr;
	bool new_data, data_queued;
	struct itrace_heap_item *heap;
	size_t heap_cnt, heap_alloc;
	const struct itrace_ops *ops;
	/* the synthesized events ("branches"; PT's "instructions" too), in perf's order */
	struct evsel evsels[ITRACE_MAX_EVSELS];
	size_t nr_evsels;
	/* common to the decoders */
	u32 pmu_type;
	u64 time_shift, time_mult, time_zero;
	bool snapshot_mode;
	u32 branches_filter;
	u64 num_events;
	bool stopped;	/* the consumer asked to stop */
	struct itrace_code *code;	/* mapped dso files, for the instructions */
	struct itrace_code_cache code_cache;
	u64 code_generation;	/* counts the model's changes (itrace__code_changed) */
	struct intel_pt *pt;	/* Intel PT's (intel_pt.c) */
	size_t capstone;	/* a capstone handle (csh), once an instruction's length was needed */
};

int intel_bts__init(struct itrace *it, const struct perf_event_header *info, u64 offset);
int intel_pt__init(struct itrace *it, const struct perf_event_header *info, u64 offset);

/* ---- shared by the decoders (itrace.c) ---- */

/* perf's tsc.c: perf_time_to_tsc and tsc_to_perf_time, with the AUXTRACE_INFO fields */
u64 itrace__time_to_tsc(const struct itrace *it, u64 ns);
u64 itrace__tsc_to_time(const struct itrace *it, u64 tsc);
/*
 * An AUXTRACE_INFO record's priv words (at least min of them; up to max into priv) and the
 * ones BTS and PT share, first in both layouts: PMU type, time shift, multiplier and zero
 * (a zero multiplier is an error: perf 6.1 divides by it). The words it has, or -1.
 */
int itrace__read_info(struct itrace *it, const struct perf_event_header *info, u64 offset,
		      const char *what, size_t min, u64 *priv, size_t max);
/* perf's auxtrace_heap */
void itrace__heap_add(struct itrace *it, u32 queue_nr, u64 ordinal);
void itrace__heap_pop(struct itrace *it);
/* a queue's turn ended with ret (0: more to come, 1: its trace ended, < 0: an error): it goes
 * back on the heap at ordinal unless it ended; ret, 0 when it ended */
int itrace__heap_return(struct itrace *it, u32 queue_nr, u64 ordinal, int ret);
bool itrace__kernel_ip(const struct itrace *it, u64 ip);
/* A buffer decoded: its pages leave memory (they are read again from the file if needed),
 * so that memory does not grow with the trace. */
void itrace__drop_buffer(struct itrace *it, const struct itrace_buffer *b);
/* perf's intel_pt_insn_type: the IP_FLAG_* of the x86 instruction at buf, -1 if cut short */
int itrace__insn_flags(const u8 *buf, size_t len);
/*
 * Up to size bytes of code at ip in thread tid's maps (the dso file, mapped once); the
 * number read, or -1 when no readable file backs ip. Cached until the model changes:
 * itrace__code_changed() then.
 */
ssize_t itrace__read_code(struct itrace *it, s32 tid, u64 ip, u8 *buf, size_t size);
void itrace__code_changed(struct itrace *it);
/* perf's script_fetch_insn: the bytes of the instruction at ip (capstone finds its length);
 * the length, 0 when not readable */
int itrace__read_insn(struct itrace *it, s32 tid, u64 ip, u8 *buf, size_t size);
/* the AUX PMU's first evsel with ids (perf's: the one the synthesized events copy) */
const struct evsel *itrace__aux_evsel(const struct itrace *it);
/* a synthesized event with the AUX event's exclusions: its attr, name (NULL: the attr's)
 * and layout set */
struct evsel *itrace__add_evsel(struct itrace *it, const struct evsel *aux, u32 type,
				u64 config, u64 period, u64 sample_type, const char *name);
void itrace__error(struct itrace *it, u32 code, s32 cpu, s32 pid, s32 tid, u64 ip, u64 time,
		   const char *msg);

#endif
