/*
 * intel_pt: Intel PT traces decoded through libipt's instruction decoder, as perf 6.1's
 * util/intel-pt.c presents them: each queue (a cpu or thread of the recording) is decoded
 * into perf's "states" (a taken branch, an instruction period reached, an error), each
 * timestamped with the last TSC, and turned into "branches" and "instructions" samples.
 * A queue is decoded up to the time of the next record (perf's intel_pt_process_queues:
 * the state that passes it is kept and synthesized on the next run). Code bytes come from
 * the dso files through itrace__read_code. The only knowledge of PT packets is libipt's.
 */
#include "analyzer/itrace/intel_pt_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/xalloc.h"
#include "machine/machine.h"

/* intel-pt.h (perf 6.1): the priv[] words of AUXTRACE_INFO */
enum { PT_PMU_TYPE, PT_TIME_SHIFT, PT_TIME_MULT, PT_TIME_ZERO, PT_CAP_USER_TIME_ZERO,
       PT_TSC_BIT, PT_NORETCOMP_BIT, PT_HAVE_SCHED_SWITCH, PT_SNAPSHOT_MODE, PT_PER_CPU_MMAPS,
       PT_MTC_BIT, PT_MTC_FREQ_BITS, PT_TSC_CTC_N, PT_TSC_CTC_D, PT_CYC_BIT,
       PT_MAX_NONTURBO_RATIO, PT_FILTER_STR_LEN, PT_PRIV_MAX };

#define SAMPLE_MASK                                                                           \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |            \
	 PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |     \
	 PERF_SAMPLE_IDENTIFIER)

/* perf's util/event.h: PERF_SYNTH_INTEL_* (the synthesized events' attr configs) */
enum { SYNTH_PTWRITE = 0, SYNTH_CBR = 5, SYNTH_PSB = 6 };

/* an instruction that ended, waiting for the walk's timestamp (see pt_queue.walk) */
struct walked_insn {
	struct pt_insn insn;
	u64 next_ip, time, tot_insn_cnt;
	bool have_next_ip;
	u32 extra;
};

/* perf's intel_pt_timeless_decoding: no TSC in the trace, or a traced event without time */
static bool timeless_decoding(struct itrace *it, const struct intel_pt *pt)
{
	const struct perf_session *s = it->session;
	bool timeless = true;

	if (!pt->tsc_bit || !pt->cap_user_time_zero)
		return true;
	for (size_t i = 0; i < s->nr_evsels; i++) {
		const struct perf_event_attr *attr = &s->evsels[i].attr;

		if (!(attr->sample_type & PERF_SAMPLE_TIME))
			return true;
		if (attr->type == it->pmu_type) {
			if (!(attr->config & pt->tsc_bit))
				return true;
			timeless = false;
		}
	}
	return timeless;
}

enum { PERIOD_TYPE_INSTRUCTIONS, PERIOD_TYPE_TICKS, PERIOD_TYPE_NANOSECS };	/* itrace_opts */

/* perf's intel_pt_ns_to_ticks: nanoseconds as TSC ticks, with the AUXTRACE_INFO fields */
static u64 ns_to_ticks(const struct itrace *it, u64 ns)
{
	return ((ns / it->time_mult) << it->time_shift) +
	       ((ns % it->time_mult) << it->time_shift) / it->time_mult;
}

/* perf's intel_pt_synth_events: branches, then instructions */
static void synth_events(struct itrace *it, struct intel_pt *pt)
{
	const struct evsel *aux = itrace__aux_evsel(it);
	u64 type;

	if (!aux)
		return;
	type = (aux->attr.sample_type & SAMPLE_MASK) | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
	       PERF_SAMPLE_PERIOD;
	if (pt->timeless)
		type &= ~(u64)PERF_SAMPLE_TIME;
	else
		type |= PERF_SAMPLE_TIME;
	if (!pt->per_cpu_mmaps)
		type &= ~(u64)PERF_SAMPLE_CPU;
	if (it->opts.branches)
		pt->branches = itrace__add_evsel(it, aux, PERF_TYPE_HARDWARE,
						 PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 1,
						 type | PERF_SAMPLE_ADDR, NULL);
	if (pt->callchain)	/* every synthesized event after the branches */
		type |= PERF_SAMPLE_CALLCHAIN;
	if (it->opts.instructions) {
		u64 period = it->opts.period;

		if (it->opts.period_type == PERIOD_TYPE_NANOSECS)
			period = ns_to_ticks(it, period);
		pt->instructions = itrace__add_evsel(it, aux, PERF_TYPE_HARDWARE,
						     PERF_COUNT_HW_INSTRUCTIONS, period, type,
						     NULL);
		/* intel_pt_alloc_queue: no period (or none in ticks) is every instruction */
		if (it->opts.period_type != PERIOD_TYPE_INSTRUCTIONS && period)
			pt->period_ticks = 1ull << (63 - __builtin_clzll(period));
	}
	pt->insn_period = it->opts.period && it->opts.period_type == PERIOD_TYPE_INSTRUCTIONS
				  ? it->opts.period
				  : 1;
	if (it->opts.transactions)
		itrace__add_evsel(it, aux, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 1, type,
				  "transactions");
	type |= PERF_SAMPLE_RAW;
	if (it->opts.ptwrites)
		itrace__add_evsel(it, aux, PERF_TYPE_SYNTH, SYNTH_PTWRITE, 1, type, "ptwrite");
	if (it->opts.pwr_events) {
		pt->cbr = itrace__add_evsel(it, aux, PERF_TYPE_SYNTH, SYNTH_CBR, 1, type, "cbr");
		pt->psb = itrace__add_evsel(it, aux, PERF_TYPE_SYNTH, SYNTH_PSB, 1, type, "psb");
	}
}

int intel_pt__init(struct itrace *it, const struct perf_event_header *info, u64 offset)
{
	u64 priv[PT_PRIV_MAX] = { 0 };
	struct intel_pt *pt;
	int have;

	/* intel_pt_process_auxtrace_info: at least up to the per-cpu word */
	it->ops = &intel_pt_ops;
	have = itrace__read_info(it, info, offset, "Intel PT", PT_PER_CPU_MMAPS, priv, PT_PRIV_MAX);
	if (have < 0)
		return -1;
	it->snapshot_mode = priv[PT_SNAPSHOT_MODE];
	pt = xcalloc(1, sizeof(*pt));
	it->pt = pt;
	pt->cap_user_time_zero = priv[PT_CAP_USER_TIME_ZERO] == 1;
	pt->tsc_bit = priv[PT_TSC_BIT];
	pt->noretcomp_bit = priv[PT_NORETCOMP_BIT];
	pt->per_cpu_mmaps = priv[PT_PER_CPU_MMAPS];
	if (have > PT_CYC_BIT) {
		pt->mtc_bit = priv[PT_MTC_BIT];
		pt->mtc_freq_bits = priv[PT_MTC_FREQ_BITS];
		pt->cyc_bit = priv[PT_CYC_BIT];
	}
	pt->timeless = timeless_decoding(it, pt);
	if (have > PT_MAX_NONTURBO_RATIO)
		pt->max_non_turbo_ratio = (u32)priv[PT_MAX_NONTURBO_RATIO];
	{
		/* intel_pt_process_auxtrace_info: TSC ticks a second, the ratio's frequency */
		u64 t = 1000000000ull, tsc_freq = ((t / it->time_mult) << it->time_shift) +
					      ((t % it->time_mult) << it->time_shift) / it->time_mult;

		if (!pt->max_non_turbo_ratio)
			pt->max_non_turbo_ratio = (u32)((tsc_freq + 50000000) / 100000000);
		pt->cbr2khz = pt->max_non_turbo_ratio ? tsc_freq / pt->max_non_turbo_ratio / 1000 : 0;
	}
	if (it->dont_decode)
		return 0;
	if (it->opts.calls)
		pt->branches_filter |= IP_FLAG_CALL | IP_FLAG_ASYNC | IP_FLAG_TRACE_END;
	if (it->opts.returns)
		pt->branches_filter |= IP_FLAG_RETURN | IP_FLAG_TRACE_BEGIN;
	/* intel_pt_process_auxtrace_info: perf report's default is instructions with call
	 * chains, no branches */
	pt->callchain = it->opts.callchain;	/* --itrace=g */
	pt->callchain_sz = it->opts.callchain_sz;
	if (!it->opts.set && it->opts.default_report) {
		it->opts.branches = false;
		pt->callchain = true;
		pt->callchain_sz = ITRACE_DEFAULT_CALLCHAIN_SZ;
	}
	pt->use_thread_stack = pt->callchain || it->opts.thread_stack;
	synth_events(it, pt);
	return 0;
}

/* ---- decoding ---- */

/* libipt's image callback: code bytes through the thread's maps */
/*
 * libipt's image callback: code bytes through the thread's maps. The map's file becomes a
 * section of the queue's image (added after the decoder's call), which libipt then reads
 * itself, until the model changes.
 */
int intel_pt_read_memory(u8 *buffer, size_t size, const struct pt_asid *asid, u64 ip, void *data)
{
	struct pt_queue *ptq = data;
	const struct itrace_code_cache *cc = &ptq->it->code_cache;
	ssize_t n = itrace__read_code(ptq->it, ptq->q->btsq_tid, ip, buffer, size);

	if (n <= 0)
		return -pte_nomap;
	if (cc->path && cc->start >= cc->delta && cc->delta + cc->size > cc->start) {
		ptq->section_pending = true;
		ptq->section_start = cc->start;
		ptq->section_size = MIN(cc->end, cc->delta + cc->size) - cc->start;
		ptq->section_offset = cc->start - cc->delta;
		ptq->section_path = cc->path;
	}
	return (int)n;
}

/* the section intel_pt_read_memory found, into the image; none left from before a model
 * change */
static void update_image(struct pt_queue *ptq)
{
	if (ptq->image_generation != ptq->it->code_generation) {
		if (ptq->image_sections)
			pt_image_remove_by_asid(ptq->image, NULL);
		ptq->image_sections = 0;
		ptq->image_generation = ptq->it->code_generation;
		ptq->section_pending = false;
	}
	if (!ptq->section_pending)
		return;
	ptq->section_pending = false;
	if (pt_image_add_file(ptq->image, ptq->section_path, ptq->section_offset,
			      ptq->section_size, NULL, ptq->section_start) >= 0)
		ptq->image_sections++;
}

/* intel-pt-pkt-decoder: a PSB packet's bytes */
static const u8 psb[16] = { 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82 };

void intel_pt_free_decoder(struct pt_queue *ptq)
{
	if (!ptq->dec)
		return;
	pt_insn_free_decoder(ptq->dec);
	ptq->dec = NULL;
	free(ptq->joined);
	ptq->joined = NULL;
	itrace__drop_buffer(ptq->it, &ptq->q->buffers[ptq->buffer - 1]);
}

/*
 * perf 6.1 reads a queue's buffers as one stream (intel_pt_get_trace: each buffer after the
 * first is "consecutive" outside snapshot mode) where a libipt decoder has one buffer, which
 * it reads from its first PSB on. So what the next buffers hold before their first PSB is
 * joined to b's bytes, in a copy the decoder reads on into as perf does (the next decoder
 * starts at that PSB). NULL when there is nothing to join (the next buffer starts with a
 * PSB, as gen-auxtrace's large traces do, or b has none: it decodes nothing).
 */
static u8 *join_next(struct pt_queue *ptq, const struct itrace_buffer *b, size_t *size)
{
	const struct itrace_queue *q = ptq->q;
	const u8 *base = ptq->it->session->base;
	size_t total = b->size, i;
	u8 *joined;

	if (ptq->it->snapshot_mode || !memmem(base + b->data_offset, b->size, psb, sizeof(psb)))
		return NULL;
	for (i = ptq->buffer; i < q->nr; i++) {	/* how much: up to the next PSB */
		const u8 *data = base + q->buffers[i].data_offset;
		const u8 *p = memmem(data, q->buffers[i].size, psb, sizeof(psb));

		total += p ? (size_t)(p - data) : q->buffers[i].size;
		if (p)
			break;
	}
	if (total == b->size)
		return NULL;
	joined = xmalloc(total);
	memcpy(joined, base + b->data_offset, b->size);
	*size = b->size;
	for (i = ptq->buffer; *size < total; i++) {
		const u8 *data = base + q->buffers[i].data_offset;
		size_t len = MIN(q->buffers[i].size, total - *size);

		memcpy(joined + *size, data, len);
		*size += len;
	}
	return joined;
}

/* the next buffer of the queue in a decoder of its own; false at the end */
bool intel_pt_next_buffer(struct pt_queue *ptq)
{
	struct itrace_queue *q = ptq->q;
	struct pt_config config;

	intel_pt_free_decoder(ptq);
	while (ptq->buffer < q->nr) {
		const struct itrace_buffer *b = &q->buffers[ptq->buffer++];
		size_t size = b->size;

		if (!b->size)
			continue;
		pt_config_init(&config);
		ptq->joined = join_next(ptq, b, &size);
		config.begin = ptq->joined ? ptq->joined
					   : (u8 *)ptq->it->session->base + b->data_offset;
		config.end = config.begin + size;
		ptq->dec = pt_insn_alloc_decoder(&config);
		if (!ptq->dec) {
			free(ptq->joined);
			ptq->joined = NULL;
			continue;
		}
		pt_insn_set_image(ptq->dec, ptq->image);
		ptq->synced = false;
		ptq->scan_pos = 0;
		ptq->next_psb = ~0ull;
		ptq->psb_pending = false;
		ptq->psb_done = false;
		return true;
	}
	ptq->end = true;
	return false;
}

static int error_code(int err)
{
	switch (-err) {
	case pte_bad_opc:
	case pte_bad_packet:
	case pte_bad_context:
		return PT_ERR_BADPKT;
	case pte_nomap:
	case pte_bad_insn:
		return PT_ERR_NOINSN;
	case pte_eos:
		return PT_ERR_NODATA;
	case pte_nomem:
		return PT_ERR_NOMEM;
	case pte_internal:
		return PT_ERR_INTERN;
	default:
		return PT_ERR_MISMAT;
	}
}

static void update_time(struct pt_queue *ptq)
{
	u64 tsc;
	u32 lost_mtc, lost_cyc;

	if (pt_insn_time(ptq->dec, &tsc, &lost_mtc, &lost_cyc) >= 0 && tsc)
		ptq->tsc = tsc;
}

/* a state at the end of the fifo, with the last instruction walked (perf's state.insn) */
static struct pt_state *new_state(struct pt_queue *ptq, int type, u64 from, u64 to, u32 flags)
{
	struct pt_state *st;

	if (!ptq->fifo_cnt)
		ptq->fifo_head = 0;
	ARRAY_GROW(ptq->fifo, ptq->fifo_alloc, ptq->fifo_head + ptq->fifo_cnt + 1);
	st = &ptq->fifo[ptq->fifo_head + ptq->fifo_cnt++];
	*st = (struct pt_state){ type, from, to, ptq->tsc, ptq->tot_insn_cnt, flags, 0 };
	if (ptq->walked) {	/* (none before the first instruction) */
		st->insn_len = ptq->insn.size;
		memcpy(st->insn, ptq->insn.raw, MIN(sizeof(st->insn), (size_t)ptq->insn.size));
	}
	return st;
}

/*
 * perf's intel_pt_next_period: how many instructions (counting from the one about to be
 * walked) until the tick period is reached, each instruction taken for a tick past the last
 * timestamp.
 */
static u64 next_period(struct pt_queue *ptq)
{
	u64 ticks = ptq->it->pt->period_ticks, mask = ~(ticks - 1);
	u64 timestamp = ptq->period_time + ptq->period_insn_time, masked = timestamp & mask;

	if (ptq->continuous) {
		if (masked > ptq->last_masked)
			return 1;
	} else {
		timestamp++;
		masked = timestamp & mask;
		if (masked > ptq->last_masked) {
			ptq->last_masked = masked;
			ptq->continuous = true;
		}
	}
	if (masked < ptq->last_masked)
		return ticks;
	return ticks - (timestamp - masked);
}

/* perf's intel_pt_sample_insn for a tick period */
static void sample_tick_insn(struct pt_queue *ptq)
{
	u64 ticks = ptq->it->pt->period_ticks;
	u64 masked = (ptq->period_time + ptq->period_insn_time) & ~(ticks - 1);

	if (masked > ptq->last_masked)
		ptq->last_masked = masked;
	else
		ptq->last_masked += ticks;
}

/* tracing stopped or the decoder lost its place: perf's continuous_period = false */
static void period_break(struct pt_queue *ptq)
{
	ptq->continuous = false;
	ptq->seg_open = false;
}

/* perf's intel_pt_insn_type: libipt's class says it for near branches, the bytes for the
 * rest (far calls are also syscalls and interrupts) */
static int insn_flags(const struct pt_insn *in)
{
	switch (in->iclass) {
	case ptic_other:
		return 0;
	case ptic_call:
		return IP_FLAG_BRANCH | IP_FLAG_CALL;
	case ptic_return:
		return IP_FLAG_BRANCH | IP_FLAG_RETURN;
	case ptic_jump:
		return IP_FLAG_BRANCH;
	case ptic_cond_jump:
		return IP_FLAG_BRANCH | IP_FLAG_CONDITIONAL;
	default:
		return MAX(itrace__insn_flags(in->raw, in->size), 0);
	}
}

/*
 * An instruction ended: a taken branch or a period reached makes a state, timed when the
 * instruction was decoded. With a tick period, time is the timestamp perf's decoder had
 * when it walked the instruction (see pt_queue.walk).
 */
static void insn_states(struct pt_queue *ptq, const struct walked_insn *w, u64 time)
{
	const struct pt_insn *in = &w->insn;
	struct intel_pt *pt = ptq->it->pt;
	struct pt_state *st = NULL;
	int flags;
	bool taken, period = false;

	if (pt->period_ticks) {
		/* perf's walk_insn: a walk ends at a branch or at the period */
		if (time != ptq->period_time) {	/* a timestamp came before this walk */
			ptq->period_time = time;
			ptq->period_insn_time = 0;
		}
		if (!ptq->seg_open) {
			ptq->seg_open = true;
			ptq->seg_max = next_period(ptq);
			ptq->seg_cnt = 0;
		}
		ptq->period_insn_time++;
		period = ++ptq->seg_cnt >= ptq->seg_max;
		if (period)
			sample_tick_insn(ptq);
		if (period || in->iclass != ptic_other)
			ptq->seg_open = false;
	} else if (pt->instructions && ++ptq->period_insn_cnt >= pt->insn_period) {
		ptq->period_insn_cnt = 0;
		period = true;
	}
	taken = in->iclass != ptic_other && in->iclass != ptic_error &&
		(!w->have_next_ip || w->next_ip != in->ip + in->size || in->iclass == ptic_call ||
		 in->iclass == ptic_return);
	if (!taken && !w->extra && !period)
		return;	/* most instructions: nothing to sample */
	flags = insn_flags(in);
	if (taken || w->extra)
		st = new_state(ptq, STATE_BRANCH, in->ip, w->have_next_ip ? w->next_ip : 0,
			       (u32)flags | w->extra);
	if (period) {
		if (st)
			st->type |= STATE_INSTRUCTION;
		else
			st = new_state(ptq, STATE_INSTRUCTION, in->ip, 0, (u32)flags);
	}
	if (!st)
		return;
	st->timestamp = w->time;
	st->tot_insn_cnt = w->tot_insn_cnt;
	st->insn_len = in->size;
	memcpy(st->insn, in->raw, MIN(sizeof(st->insn), (size_t)in->size));
}

/* the instructions waiting for their walk's timestamp: time is it */
static void flush_walk(struct pt_queue *ptq, u64 time)
{
	for (size_t i = 0; i < ptq->walk_cnt; i++)
		insn_states(ptq, &ptq->walk[i], time);
	ptq->walk_cnt = 0;
}

/* whether libipt asked the trace where the instruction goes (perf's walk ends there) */
static bool insn_queries(const struct pt_insn *in)
{
	size_t i = 0;

	switch (in->iclass) {
	case ptic_other:
		return false;
	case ptic_call:
	case ptic_jump:	/* direct ones follow their displacement */
		while (i < in->size && ((in->raw[i] & 0xf0) == 0x40 || in->raw[i] == 0x66 ||
					in->raw[i] == 0x67 || in->raw[i] == 0xf2 ||
					in->raw[i] == 0xf3 || in->raw[i] == 0x2e ||
					in->raw[i] == 0x3e || in->raw[i] == 0x26 ||
					in->raw[i] == 0x36 || in->raw[i] == 0x64 || in->raw[i] == 0x65))
			i++;
		return i < in->size && in->raw[i] == 0xff;
	default:
		return true;
	}
}

/*
 * The last instruction ends (the next one is at next_ip, or an event ended the trace, with
 * extra its flags): it counts, and makes its states now, or with a tick period once its
 * walk's timestamp is known.
 */
static void end_insn(struct pt_queue *ptq, u64 next_ip, bool have_next_ip, u32 extra)
{
	struct walked_insn w, *p = &w;

	if (!ptq->have_insn)
		return;
	ptq->have_insn = false;
	ptq->tot_insn_cnt++;
	if (!ptq->it->pt->period_ticks) {
		const struct pt_insn *in = &ptq->insn;

		/* most instructions: no state, whatever the next ip */
		if (in->iclass == ptic_other && !extra && !ptq->it->pt->instructions)
			return;
		w.insn = *in;	/* (only the walked fields are read) */
	} else {
		ARRAY_GROW(ptq->walk, ptq->walk_alloc, ptq->walk_cnt + 1);
		p = &ptq->walk[ptq->walk_cnt++];
		p->insn = ptq->insn;
	}
	p->next_ip = next_ip;
	p->have_next_ip = have_next_ip;
	p->extra = extra;
	p->time = ptq->insn_time;
	p->tot_insn_cnt = ptq->tot_insn_cnt;
	if (!ptq->it->pt->period_ticks)
		insn_states(ptq, p, 0);
	else if (extra || insn_queries(&ptq->insn))
		flush_walk(ptq, ptq->insn_time);
}

/* a walk cut short (an event, an error, the buffer's end): its instructions take the time
 * of the last one decoded (what libipt read for the event is perf's next walk's) */
static void flush_now(struct pt_queue *ptq)
{
	if (ptq->walk_cnt)
		flush_walk(ptq, ptq->insn_time);
}

static void handle_event(struct pt_queue *ptq, const struct pt_event *ev)
{
	flush_now(ptq);
	switch (ev->type) {
	case ptev_enabled:	/* perf: a branch from 0 to where tracing begins */
		if (!ev->variant.enabled.resumed) {
			update_time(ptq);
			new_state(ptq, STATE_BRANCH, 0, ev->variant.enabled.ip,
				  IP_FLAG_BRANCH | IP_FLAG_TRACE_BEGIN);
		}
		break;
	case ptev_disabled:
	case ptev_async_disabled:
		if (ptq->have_insn)
			end_insn(ptq, ev->variant.disabled.ip, !ev->ip_suppressed,
				 IP_FLAG_BRANCH | IP_FLAG_TRACE_END);
		period_break(ptq);
		break;
	case ptev_cbr:	/* perf: a cbr sample when the ratio changes */
		if (ev->variant.cbr.ratio != ptq->cbr) {
			ptq->cbr = ev->variant.cbr.ratio;
			update_time(ptq);
			new_state(ptq, STATE_CBR, 0, 0, 0)->cbr = ptq->cbr;
		}
		break;
	case ptev_overflow:
		end_insn(ptq, 0, false, 0);
		flush_now(ptq);
		period_break(ptq);
		new_state(ptq, 0, 0, 0, 0)->err = PT_ERR_OVR;
		break;
	default:
		break;
	}
}

static void report_psb(struct pt_queue *ptq)
{
	flush_now(ptq);
	ptq->psb_pending = false;
	new_state(ptq, STATE_PSB, 0, 0, 0)->psb_offset = ptq->psb_offset;
}

/*
 * The PSBs the decoder passed (libipt reports no event for them): perf's psb events, which
 * perf reports at the PSBEND, with the TSC of the PSB+. libipt reads ahead: a PSB found
 * after a sync is reported once the decoder's time has moved on to its TSC (or the buffer
 * ends, or another PSB comes).
 */
void intel_pt_check_psb_slow(struct pt_queue *ptq, bool at_sync)
{
	const struct itrace_buffer *b = &ptq->q->buffers[ptq->buffer - 1];
	const u8 *data = ptq->it->session->base + b->data_offset, *p;
	u64 offset;

	if (ptq->psb_pending) {
		update_time(ptq);
		if (ptq->tsc != ptq->psb_tsc)
			report_psb(ptq);
	}
	/* the buffer's next PSB, looked for once: passed when the decoder's offset is past it */
	if (ptq->next_psb == ~0ull) {
		p = ptq->scan_pos < b->size
			    ? memmem(data + ptq->scan_pos, b->size - ptq->scan_pos, psb, sizeof(psb))
			    : NULL;
		ptq->next_psb = p ? (u64)(p - data) : b->size;
		ptq->psb_done = !p;
	}
	if (ptq->next_psb >= b->size || pt_insn_get_offset(ptq->dec, &offset) < 0 ||
	    offset <= ptq->next_psb)
		return;
	update_time(ptq);
	if (ptq->psb_pending)
		report_psb(ptq);
	ptq->psb_pending = true;
	ptq->psb_offset = ptq->next_psb;
	ptq->psb_tsc = ptq->tsc;
	ptq->scan_pos = ptq->next_psb + sizeof(psb);
	ptq->next_psb = ~0ull;
	if (at_sync)	/* its PSB+ was read */
		report_psb(ptq);
}

static void end_buffer(struct pt_queue *ptq)
{
	if (ptq->dec)
		check_psb(ptq, false);
	if (ptq->psb_pending)
		report_psb(ptq);
	end_insn(ptq, 0, false, 0);
	flush_now(ptq);
	period_break(ptq);
	intel_pt_free_decoder(ptq);
}

/*
 * One step of the decoder: the states it made in ptq->fifo, or the end of the queue's trace
 * (ptq->end). Errors are states too.
 */
void intel_pt_decode_step(struct pt_queue *ptq)
{
	struct pt_event ev;
	struct pt_insn insn;
	int status;

	while (!ptq->fifo_cnt && !ptq->end) {
		update_image(ptq);
		if (!ptq->dec && !intel_pt_next_buffer(ptq))
			return;
		if (!ptq->synced) {
			status = pt_insn_sync_forward(ptq->dec);
			if (status < 0) {
				end_buffer(ptq);	/* no (more) PSB: the buffer ends */
				continue;
			}
			ptq->synced = true;
			check_psb(ptq, true);
		} else {
			status = ptq->status;
		}
		while (status >= 0 && (status & pts_event_pending) && !ptq->fifo_cnt) {
			status = pt_insn_event(ptq->dec, &ev, sizeof(ev));
			if (status < 0)
				break;
			/* a PSB+ comes before the TIP.PGE that enables tracing, after the rest */
			if (ev.type == ptev_enabled)
				check_psb(ptq, false);
			handle_event(ptq, &ev);
			if (ev.type != ptev_enabled)
				check_psb(ptq, false);
		}
		ptq->status = status;
		if (ptq->fifo_cnt)
			return;
		if (status >= 0 && (status & pts_eos)) {
			end_buffer(ptq);
			continue;
		}
		if (status >= 0)
			status = pt_insn_next(ptq->dec, &insn, sizeof(insn));
		ptq->status = status;
		if (status < 0) {
			if (status == -pte_eos) {
				end_buffer(ptq);
				continue;
			}
			update_time(ptq);
			end_insn(ptq, 0, false, 0);
			flush_now(ptq);
			period_break(ptq);
			new_state(ptq, 0, insn.ip, 0, 0)->err = error_code(status);
			ptq->synced = false;
			return;
		}
		end_insn(ptq, insn.ip, true, 0);
		/*
		 * libipt reads packets (which move its time and offset) only to follow a branch
		 * or to fetch an event, which the status then shows: after any other
		 * instruction both are as they were.
		 */
		if (insn.iclass != ptic_other || (status & pts_event_pending)) {
			check_psb(ptq, false);
			update_time(ptq);
		}
		ptq->insn = insn;
		ptq->insn_time = ptq->tsc;
		ptq->have_insn = ptq->walked = true;
	}
}

