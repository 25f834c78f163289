/*
 * intel_bts: Intel BTS traces decoded natively, as perf 6.1's util/intel-bts.c does it. A
 * BTS buffer is an array of 24-byte records {from, to, misc}; each becomes a "branches"
 * sample whose kind (call, return, jcc...) comes from the instruction at `from`, read from
 * the dso file of the thread's map there. perf's quirks are kept: its loop never takes the
 * last record of a buffer, and `s` skips one event more than asked.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/itrace/itrace_internal.h"
#include "lib/error.h"
#include "lib/xalloc.h"
#include "machine/machine.h"
#include "readers/decode/evsel_name.h"

/* intel-bts.h: the priv[] words of AUXTRACE_INFO */
enum { BTS_PMU_TYPE, BTS_TIME_SHIFT, BTS_TIME_MULT, BTS_TIME_ZERO, BTS_CAP_USER_TIME_ZERO,
       BTS_SNAPSHOT_MODE, BTS_PRIV_MAX };

#define BTS_RECORD 24
#define BTS_ERR_NOINSN 5	/* intel-bts.c: INTEL_BTS_ERR_NOINSN */
#define INSN_BUF 16		/* INTEL_PT_INSN_BUF_SZ */
#define MAX_TIMESTAMP (~0ull)
/* perf's PERF_SAMPLE_MASK: the sample fields a synthesized event may keep */
#define SAMPLE_MASK                                                                           \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |            \
	 PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |     \
	 PERF_SAMPLE_IDENTIFIER)

/* perf's intel_bts_synth_events: "branches", from the first event of the BTS PMU with ids */
static void synth_evsel(struct itrace *it)
{
	const struct evsel *bts = itrace__aux_evsel(it);
	u64 type;

	if (!bts || !it->opts.branches)
		return;
	type = (bts->attr.sample_type & SAMPLE_MASK) | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
	       PERF_SAMPLE_PERIOD | PERF_SAMPLE_ADDR;
	type &= ~(u64)(PERF_SAMPLE_TIME | PERF_SAMPLE_CPU);
	itrace__add_evsel(it, bts, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 1, type,
			  NULL);
}

static const struct itrace_ops bts_ops;

int intel_bts__init(struct itrace *it, const struct perf_event_header *info, u64 offset)
{
	u64 priv[BTS_PRIV_MAX] = { 0 };

	/* intel_bts_process_auxtrace_info: up to the snapshot word, which may be missing */
	it->ops = &bts_ops;
	if (itrace__read_info(it, info, offset, "Intel BTS", BTS_SNAPSHOT_MODE, priv,
			      BTS_PRIV_MAX) < 0)
		return -1;
	it->snapshot_mode = priv[BTS_SNAPSHOT_MODE];
	if (it->dont_decode)
		return 0;
	if (it->opts.calls)
		it->branches_filter |= IP_FLAG_CALL | IP_FLAG_ASYNC | IP_FLAG_TRACE_END;
	if (it->opts.returns)
		it->branches_filter |= IP_FLAG_RETURN | IP_FLAG_TRACE_BEGIN;
	synth_evsel(it);
	return 0;
}

/* ---- instructions ---- */

/* perf's intel_bts_get_next_insn: the flags of the instruction at ip, or -1 */
static int insn_flags(struct itrace *it, s32 tid, u64 ip)
{
	u8 buf[INSN_BUF];
	ssize_t n = itrace__read_code(it, tid, ip, buf, sizeof(buf));

	return n > 0 ? itrace__insn_flags(buf, (size_t)n) : -1;
}

static void synth_error(struct itrace *it, const struct itrace_queue *q, u64 ip)
{
	itrace__error(it, BTS_ERR_NOINSN, q->btsq_cpu, q->pid, q->btsq_tid, ip, 0,
		      "Failed to get instruction");
}

/* intel_bts_get_branch_type */
static u32 branch_type(struct itrace *it, struct itrace_queue *q, u64 from, u64 to)
{
	int flags;

	if (!from)
		return to ? IP_FLAG_BRANCH | IP_FLAG_TRACE_BEGIN : 0;
	if (!to)
		return IP_FLAG_BRANCH | IP_FLAG_TRACE_END;
	flags = insn_flags(it, q->btsq_tid, from);
	if (flags < 0) {
		if (it->opts.errors)
			synth_error(it, q, from);
		return 0;
	}
	/* an async branch into the kernel */
	if (!itrace__kernel_ip(it, from) && itrace__kernel_ip(it, to) &&
	    (u32)flags != (IP_FLAG_BRANCH | IP_FLAG_CALL | IP_FLAG_SYSCALLRET))
		flags = IP_FLAG_BRANCH | IP_FLAG_CALL | IP_FLAG_ASYNC | IP_FLAG_INTERRUPT;
	return (u32)flags;
}

static int synth_sample(struct itrace *it, const struct itrace_queue *q, u64 from, u64 to,
			u32 flags, u32 depth)
{
	struct perf_event_header header = { PERF_RECORD_SAMPLE, 0, sizeof(header) };
	struct event_ctx ctx;
	u8 insn[INSN_BUF];

	/* intel_bts_synth_branch_sample: "num_events++ <= initial_skip" skips one more */
	if (it->opts.initial_skip && it->num_events++ <= it->opts.initial_skip)
		return 0;
	header.misc = itrace__kernel_ip(it, from) ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
	memset(&ctx, 0, sizeof(ctx));
	ctx.event = &header;
	ctx.evsel = &it->evsels[0];
	ctx.file_offset = it->info_offset;
	ctx.sample.ip = from;
	ctx.sample.addr = to;
	ctx.sample.pid = (u32)q->pid;
	ctx.sample.tid = (u32)q->btsq_tid;
	ctx.sample.cpu = (u32)q->btsq_cpu;
	ctx.sample.period = 1;
	ctx.sample.misc = header.misc;
	ctx.sample.flags = flags;
	ctx.sample.call_depth = depth;
	if (it->opts.insn_bytes && from) {	/* perf script reads it (script_fetch_insn) */
		ctx.sample.insn_len = (u8)itrace__read_insn(it, q->btsq_tid, from, insn, sizeof(insn));
		ctx.sample.insn = insn;
	}
	return it->consumer->sample(it->consumer, &ctx);
}

/* the length of the call at ip, for the return address the thread stack keeps */
static u8 call_len(struct itrace *it, const struct itrace_queue *q, u64 ip, u32 flags)
{
	u8 buf[INSN_BUF];

	return flags & IP_FLAG_CALL ? (u8)itrace__read_insn(it, q->btsq_tid, ip, buf, sizeof(buf))
				    : 0;
}

/* intel_bts_find_overlap: a snapshot buffer repeats the end of the one before it */
static u64 overlap_start(const u8 *a, u64 len_a, const u8 *b, u64 len_b)
{
	for (u64 offs = len_a > len_b ? len_a - len_b : 0; offs < len_a; offs += BTS_RECORD)
		if (!memcmp(a + offs, b, len_a - offs))
			return len_a - offs;
	return 0;
}

/* intel_bts_process_buffer */
static int process_buffer(struct itrace *it, struct itrace_queue *q, size_t idx)
{
	const struct itrace_buffer *b = &q->buffers[idx];
	const u8 *data = it->session->base + b->data_offset;
	u64 sz = b->size;
	u32 depth = 0;
	int ret = 0;

	if (it->snapshot_mode && idx) {
		const struct itrace_buffer *a = &q->buffers[idx - 1];
		u64 skip = overlap_start(it->session->base + a->data_offset, a->size, data, sz);

		data += skip;
		sz -= skip;
	}
	if (!it->nr_evsels)
		return 0;
	/* perf's loop: "sz > bsz", so the last record of a buffer is never taken */
	for (; sz > BTS_RECORD; data += BTS_RECORD, sz -= BTS_RECORD) {
		u64 rec[3];
		u32 flags;

		memcpy(rec, data, sizeof(rec));	/* little-endian, as the hardware wrote it */
		if (!rec[0] && !rec[1])
			continue;
		flags = branch_type(it, q, rec[0], rec[1]);
		if (it->opts.thread_stack)	/* (perf: the last instruction read's length) */
			depth = itrace_stack__event(&q->stack, flags, rec[0], rec[1],
						    call_len(it, q, rec[0], flags), b->nr + 1);
		if (it->branches_filter && !(it->branches_filter & flags))
			continue;
		ret = synth_sample(it, q, rec[0], rec[1], flags, depth);
		if (ret) {
			it->stopped = true;
			return -1;
		}
	}
	itrace__drop_buffer(it, b);
	return 0;
}

/* intel_bts_process_queue: decode its next buffer; 1 when it has no more */
static int process_queue(struct itrace *it, u32 nr, u64 *ts)
{
	struct itrace_queue *q = &it->queues[nr];
	int ret;

	if (q->done)
		return 1;
	if (q->pid == -1) {
		struct thread *t = machine__find_thread(it->machine, q->btsq_tid);

		if (t) {
			q->pid = t->pid;
			thread__put(t);
		}
	}
	if (!q->has_buffer) {
		if (q->next >= q->nr) {
			q->done = true;
			return 1;
		}
		q->has_buffer = true;
	}
	ret = process_buffer(it, q, q->next);
	if (ret)
		return ret;
	q->next++;
	if (q->next < q->nr) {
		*ts = q->buffers[q->next].reference;
	} else {
		q->has_buffer = false;
		q->done = true;
	}
	return 0;
}

/* intel_bts_setup_queues: a queue with buffers gets its decoder and a place on the heap */
static void update_queues(struct itrace *it)
{
	if (!it->new_data)
		return;
	it->new_data = false;
	for (u32 i = 0; i < it->nr_queues; i++) {
		struct itrace_queue *q = &it->queues[i];

		if (!q->nr)
			continue;
		if (!q->decoder) {
			q->decoder = true;
			q->btsq_cpu = q->cpu;
			q->btsq_tid = q->tid;
		}
		if (!q->on_heap && !q->has_buffer && q->next < q->nr) {
			q->has_buffer = true;
			itrace__heap_add(it, i, q->buffers[q->next].reference);
			q->on_heap = true;
		}
	}
}

static int process_queues(struct itrace *it, u64 timestamp)
{
	while (it->heap_cnt && it->heap[0].ordinal <= timestamp) {
		u32 nr = it->heap[0].queue_nr;
		u64 ts = 0;
		int ret;

		itrace__heap_pop(it);
		ret = process_queue(it, nr, &ts);
		ret = itrace__heap_return(it, nr, ts, ret);
		if (ret)
			return ret;
	}
	return 0;
}

/* intel_bts_process_tid_exit: the first queue of the thread is decoded to its end */
static int process_tid_exit(struct itrace *it, s32 tid)
{
	for (u32 i = 0; i < it->nr_queues; i++) {
		struct itrace_queue *q = &it->queues[i];
		u64 ts;
		int ret;

		if (!q->decoder || q->btsq_tid != tid)
			continue;
		while (!(ret = process_queue(it, i, &ts)))
			;
		return ret < 0 ? ret : 0;
	}
	return 0;
}

static int bts_process_event(struct itrace *it, const struct perf_event_header *event,
			     u64 timestamp)
{
	int ret;

	update_queues(it);
	ret = process_queues(it, timestamp);
	if (!ret && event->type == PERF_RECORD_EXIT && event->size >= sizeof(struct perf_record_fork))
		ret = process_tid_exit(it, (s32)((const struct perf_record_fork *)event)->tid);
	return it->stopped ? 1 : ret;
}

static int bts_flush(struct itrace *it)
{
	int ret;

	update_queues(it);
	ret = process_queues(it, MAX_TIMESTAMP);
	return it->stopped ? 0 : ret;
}

static const struct itrace_ops bts_ops = { bts_process_event, bts_flush, NULL };
