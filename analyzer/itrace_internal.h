/*
 * itrace_internal: what itrace.c (options, queues) and the decoders (intel_bts.c) share.
 * Internal to analyzer/.
 */
#ifndef ANALYZER_ITRACE_INTERNAL_H
#define ANALYZER_ITRACE_INTERNAL_H

#include "analyzer/itrace.h"

#define MAX_QUEUES 65536u	/* AUXTRACE idx: one per cpu or thread */

/* perf event.h: perf_record_auxtrace */
struct itrace_auxtrace {
	struct perf_event_header header;
	u64 size, offset, reference;
	u32 idx, tid, cpu, reserved;
};

void itrace_auxtrace_swap(struct itrace_auxtrace *record);

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
	/* the decoder's (intel_bts_queue): made when the queue is first set up */
	bool decoder, on_heap, done, has_buffer;
	s32 pid, btsq_tid, btsq_cpu;
};

/* perf's auxtrace_heap: queues by the reference of their next buffer */
struct itrace_heap_item {
	u32 queue_nr;
	u64 ordinal;
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
	/* the synthesized "branches" event */
	struct evsel evsel;
	bool has_evsel;
	/* Intel BTS */
	u32 pmu_type;
	u64 time_shift, time_mult, time_zero;
	bool snapshot_mode;
	u32 branches_filter;
	u64 num_events;
	bool stopped;	/* the consumer asked to stop */
	struct itrace_code *code;	/* open dso files, for the instructions at branch sources */
};

int intel_bts__init(struct itrace *itrace, const struct perf_event_header *info, u64 offset);
void intel_bts__exit(struct itrace *itrace);

#endif
