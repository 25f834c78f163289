/*
 * intel_pt_samples: perf's intel-pt.c around its decoder: the queues set up and decoded in
 * time order (up to each record's timestamp, or by thread when the trace has no time), and
 * the decoder's states made "branches", "instructions" and power samples, or errors.
 */
#include "analyzer/itrace/intel_pt_internal.h"

#include <stdio.h>
#include <stdlib.h>

#include "lib/xalloc.h"
#include "machine/machine.h"

/* intel_pt_error_message()'s texts, by PT_ERR_* */
static const char *const error_messages[] = {
	[PT_ERR_NOMEM] = "Memory allocation failed",
	[PT_ERR_INTERN] = "Internal error",
	[PT_ERR_BADPKT] = "Bad packet",
	[PT_ERR_NODATA] = "No more data",
	[PT_ERR_NOINSN] = "Failed to get instruction",
	[PT_ERR_MISMAT] = "Trace doesn't match instruction",
	[PT_ERR_OVR] = "Overflow packet",
	[PT_ERR_LOST] = "Lost trace data",
	[PT_ERR_UNK] = "Unknown error!",
	[PT_ERR_NELOOP] = "Never-ending loop",
};

#define MAX_TIMESTAMP (~0ull)

/* ---- samples ---- */

/* perf's callchain_context */
static u64 chain_context(const struct itrace *it, u64 ip)
{
	return itrace__kernel_ip(it, ip) ? PERF_CONTEXT_KERNEL : PERF_CONTEXT_USER;
}

/*
 * perf's thread_stack__sample (with callchain_sz + 1 entries): the context, ip, then the
 * return addresses of the calls open, innermost first, a context entry where it changes.
 */
static void sample_chain(struct pt_queue *ptq, u64 ip)
{
	const struct itrace_stack *ts = &ptq->q->stack;
	u64 *ips = ptq->chain + 1, context = chain_context(ptq->it, ip), last = context;
	size_t sz = ptq->it->pt->callchain_sz + 1, i, j;

	ips[0] = context;
	ips[1] = ip;
	for (i = 2, j = 1; i < sz && j <= ts->cnt; i++, j++) {
		ip = ts->entries[ts->cnt - j].ret_addr;
		context = chain_context(ptq->it, ip);
		if (context != last) {
			if (i >= sz - 1)
				break;
			ips[i++] = context;
			last = context;
		}
		ips[i] = ip;
	}
	ptq->chain[0] = i;
}

static int deliver(struct pt_queue *ptq, struct evsel *evsel, const struct pt_state *st,
		   u64 period, const char *synth)
{
	struct itrace *it = ptq->it;
	struct perf_sample *sample = &ptq->ctx.sample;

	ptq->header = (struct perf_event_header){ PERF_RECORD_SAMPLE, 0, sizeof(ptq->header) };
	ptq->header.misc = itrace__kernel_ip(it, st->from_ip) ? PERF_RECORD_MISC_KERNEL
							      : PERF_RECORD_MISC_USER;
	ptq->ctx.event = &ptq->header;
	ptq->ctx.evsel = evsel;
	ptq->ctx.file_offset = it->info_offset;
	sample->ip = st->from_ip;
	sample->addr = st->to_ip;
	sample->pid = (u32)ptq->q->pid;
	sample->tid = (u32)ptq->q->btsq_tid;
	sample->cpu = (u32)ptq->q->btsq_cpu;
	sample->time = it->pt->timeless ? 0 : itrace__tsc_to_time(it, ptq->timestamp);
	sample->period = period;
	sample->misc = ptq->header.misc;
	sample->flags = st->flags;
	sample->insn = st->insn;
	sample->insn_len = st->insn_len;
	sample->call_depth = ptq->depth;
	sample->synth = synth;
	sample->callchain = NULL;
	if (it->pt->callchain && evsel != it->pt->branches) {
		sample_chain(ptq, st->from_ip);
		sample->callchain = ptq->chain;
	}
	if (it->consumer->sample(it->consumer, &ptq->ctx)) {
		it->stopped = true;
		return -1;
	}
	return 0;
}

/* intel_pt_synth_psb_sample, intel_pt_synth_cbr_sample: their data as perf script prints
 * it (perf_sample__fprintf_synth_psb, _cbr) */
static int synth_pwr(struct pt_queue *ptq, const struct pt_state *st)
{
	struct intel_pt *pt = ptq->it->pt;
	char text[48];

	if (st->type & STATE_PSB) {
		if (!pt->psb)
			return 0;
		snprintf(text, sizeof(text), " psb offs: %#llx", (unsigned long long)st->psb_offset);
		return deliver(ptq, pt->psb, st, 1, text);
	}
	if (!pt->cbr)
		return 0;
	{
		u32 hz = (u32)(st->cbr * pt->cbr2khz * 1000);
		int n = snprintf(text, sizeof(text), " cbr: %2u freq: %4u MHz ", st->cbr,
				 (hz + 500000) / 1000000);

		if (pt->max_non_turbo_ratio && n > 0)
			snprintf(text + n, sizeof(text) - (size_t)n, "(%3u%%) ",
				 (5 + (1000 * st->cbr) / pt->max_non_turbo_ratio) / 10);
	}
	return deliver(ptq, pt->cbr, st, 1, text);
}

/* perf's intel_pt_sample */
static int synth_samples(struct pt_queue *ptq)
{
	struct itrace *it = ptq->it;
	struct intel_pt *pt = it->pt;
	const struct pt_state *st = &ptq->state;

	if (!ptq->have_sample)
		return 0;
	ptq->have_sample = false;
	if (st->type & (STATE_PSB | STATE_CBR))
		return synth_pwr(ptq, st);
	if (pt->instructions && (st->type & STATE_INSTRUCTION)) {
		u64 period = st->tot_insn_cnt - ptq->last_insn_cnt;

		ptq->last_insn_cnt = st->tot_insn_cnt;
		if (deliver(ptq, pt->instructions, st, period, NULL))
			return -1;
	}
	/* the thread stack moves after the instruction sample's chain, before the branch's */
	if (pt->use_thread_stack && (st->type & STATE_BRANCH))	/* (its trace number: the
								   queue's first buffer's) */
		ptq->depth = itrace_stack__event(&ptq->q->stack, st->flags, st->from_ip, st->to_ip,
						 st->insn_len, ptq->q->buffers[0].nr + 1);
	if (pt->branches && (st->type & STATE_BRANCH)) {
		if (pt->branches_filter && !(pt->branches_filter & st->flags))
			return 0;
		/* intel_pt_synth_branch_sample */
		if (it->opts.initial_skip && pt->num_events++ < it->opts.initial_skip)
			return 0;
		return deliver(ptq, pt->branches, st, 1, NULL);
	}
	return 0;
}

static int synth_error(struct pt_queue *ptq, const struct pt_state *st)
{
	if (!ptq->it->opts.errors)
		return 0;
	itrace__error(ptq->it, (u32)st->err, ptq->q->btsq_cpu, ptq->q->pid, ptq->q->btsq_tid,
		      st->from_ip, itrace__tsc_to_time(ptq->it, st->timestamp),
		      error_messages[st->err]);
	return 0;
}

/* perf's intel_pt_decode: the next state that is not an error; false at the end */
static bool next_state(struct pt_queue *ptq, struct pt_state *st)
{
	for (;;) {
		intel_pt_decode_step(ptq);
		if (!ptq->fifo_cnt)
			return false;
		*st = ptq->fifo[ptq->fifo_head];
		ptq->fifo_head++;
		ptq->fifo_cnt--;
		if (!st->err)
			return true;
		synth_error(ptq, st);
	}
}

/* perf's intel_pt_run_decoder: 1 when the queue's trace ended */
static int run_decoder(struct pt_queue *ptq, u64 *timestamp)
{
	struct pt_state st;

	for (;;) {
		if (synth_samples(ptq))
			return -1;
		if (!next_state(ptq, &st))
			return 1;
		ptq->state = st;
		ptq->have_sample = true;
		if (st.timestamp > ptq->timestamp)
			ptq->timestamp = st.timestamp;
		if (!ptq->it->pt->timeless && ptq->timestamp >= *timestamp) {
			*timestamp = ptq->timestamp;
			return 0;
		}
	}
}

static struct pt_queue *queue_decoder(struct itrace *it, u32 nr)
{
	struct itrace_queue *q = &it->queues[nr];
	struct pt_queue *ptq = q->pt;

	if (ptq)
		return ptq;
	ptq = q->pt = xcalloc(1, sizeof(*ptq));
	ptq->it = it;
	ptq->q = q;
	ptq->image = pt_image_alloc(NULL);
	pt_image_set_callback(ptq->image, intel_pt_read_memory, ptq);
	return ptq;
}

/* the first buffer with a PSB, synced, and its TSC; false if none */
static bool first_timestamp(struct pt_queue *ptq)
{
	ptq->end = false;
	while (!ptq->end) {
		if (!ptq->dec && !intel_pt_next_buffer(ptq))
			return false;
		ptq->status = pt_insn_sync_forward(ptq->dec);
		if (ptq->status >= 0) {
			ptq->synced = true;
			check_psb(ptq, true);
			if (ptq->tsc)
				return true;
			continue;	/* (decoded as it comes) */
		}
		intel_pt_free_decoder(ptq);
	}
	return false;
}

/* perf's intel_pt_set_pid_tid_cpu: the queue's pid once its thread is known */
static void set_pid(struct itrace *it, struct itrace_queue *q)
{
	struct thread *t;

	if (q->pid != -1 || !(t = machine__find_thread(it->machine, q->btsq_tid)))
		return;
	q->pid = t->pid;
	thread__put(t);
}

/* perf's intel_pt_setup_queue: a queue with buffers decodes up to its first timestamp and
 * waits on the heap */
static void setup_queues(struct itrace *it)
{
	if (!it->new_data)
		return;
	it->new_data = false;
	for (u32 i = 0; i < it->nr_queues; i++) {
		struct itrace_queue *q = &it->queues[i];
		struct pt_queue *ptq;

		if (!q->nr)
			continue;
		ptq = queue_decoder(it, i);
		if (!q->decoder) {
			q->decoder = true;
			q->btsq_cpu = q->cpu;
			q->btsq_tid = q->tid;
		}
		if (it->pt->timeless || q->on_heap)
			continue;
		/* the decoder's first timestamp: the TSC of its first PSB+ (no code walked) */
		if (!first_timestamp(ptq))
			continue;
		ptq->timestamp = ptq->tsc;
		itrace__heap_add(it, i, ptq->timestamp);
		q->on_heap = true;
	}
}

/* perf's intel_pt_process_queues: queues whose time is before the timestamp decode up to it */
static int process_queues(struct itrace *it, u64 timestamp)
{
	while (it->heap_cnt && it->heap[0].ordinal < timestamp) {
		u32 nr = it->heap[0].queue_nr;
		struct pt_queue *ptq = it->queues[nr].pt;
		u64 ts;
		int ret;

		itrace__heap_pop(it);
		if (it->heap_cnt) {
			ts = it->heap[0].ordinal + 1;
			if (ts > timestamp)
				ts = timestamp;
		} else {
			ts = timestamp;
		}
		set_pid(it, &it->queues[nr]);
		ret = run_decoder(ptq, &ts);
		ret = itrace__heap_return(it, nr, ts, ret);
		if (ret)
			return ret;
	}
	return 0;
}

/* perf's intel_pt_process_timeless_queues: at a thread's EXIT (tid) or the end (-1) */
static int process_timeless(struct itrace *it, s32 tid)
{
	for (u32 i = 0; i < it->nr_queues; i++) {
		struct itrace_queue *q = &it->queues[i];
		u64 ts = 0;

		if (!q->pt || (tid != -1 && q->btsq_tid != tid))
			continue;
		set_pid(it, q);
		if (run_decoder(q->pt, &ts) < 0)
			return -1;
	}
	return 0;
}

static int pt_process_event(struct itrace *it, const struct perf_event_header *event, u64 tsc)
{
	int ret = 0;

	if (tsc || it->pt->timeless)
		setup_queues(it);
	if (it->pt->timeless) {
		if (event->type == PERF_RECORD_EXIT &&
		    event->size >= sizeof(struct perf_record_fork))
			ret = process_timeless(it,
					       (s32)((const struct perf_record_fork *)event)->tid);
	} else if (tsc) {
		ret = process_queues(it, tsc);
	}
	return it->stopped ? 1 : ret;
}

static int pt_flush(struct itrace *it)
{
	int ret;

	setup_queues(it);
	ret = it->pt->timeless ? process_timeless(it, -1) : process_queues(it, MAX_TIMESTAMP);
	return it->stopped ? 0 : ret;
}

static void pt_exit(struct itrace *it)
{
	for (size_t i = 0; i < it->nr_queues; i++) {
		struct pt_queue *ptq = it->queues[i].pt;

		if (!ptq)
			continue;
		intel_pt_free_decoder(ptq);
		pt_image_free(ptq->image);
		free(ptq->fifo);
		free(ptq->walk);
		free(ptq);
	}
	free(it->pt);
}

const struct itrace_ops intel_pt_ops = { pt_process_event, pt_flush, pt_exit };
