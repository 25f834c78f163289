/*
 * intel_pt_internal: what intel_pt.c (the libipt decoder: a queue's trace into states) and
 * intel_pt_samples.c (the queues in time order, their states made samples) share. Not for
 * use outside analyzer/itrace/.
 */
#ifndef ANALYZER_INTEL_PT_INTERNAL_H
#define ANALYZER_INTEL_PT_INTERNAL_H

#include <intel-pt.h>

#include "analyzer/itrace/itrace_internal.h"

/* intel-pt-decoder.h: perf's error codes and intel_pt_error_message()'s texts */
enum { PT_ERR_NOMEM = 1, PT_ERR_INTERN, PT_ERR_BADPKT, PT_ERR_NODATA, PT_ERR_NOINSN,
       PT_ERR_MISMAT, PT_ERR_OVR, PT_ERR_LOST, PT_ERR_UNK, PT_ERR_NELOOP };

enum { STATE_BRANCH = 1, STATE_INSTRUCTION = 2, STATE_PSB = 4, STATE_CBR = 8 };

/* perf's intel_pt_state: what the decoder stopped at */
struct pt_state {
	int type;	/* STATE_* */
	u64 from_ip, to_ip;
	u64 timestamp;	/* TSC */
	u64 tot_insn_cnt;
	u32 flags;	/* IP_FLAG_*: the branch's kind, trace begin/end */
	int err;	/* PT_ERR_*: an error instead */
	u8 insn_len;	/* perf's state.insn: the last instruction walked */
	u8 insn[15];
	u64 psb_offset;	/* STATE_PSB: where in the buffer */
	u32 cbr;	/* STATE_CBR: the new core:bus ratio */
};

struct pt_queue {
	struct itrace *it;
	struct itrace_queue *q;
	struct pt_insn_decoder *dec;
	struct pt_image *image;
	u8 *joined;	/* the buffer with what the next ones hold before a PSB (join_next) */
	size_t buffer;	/* the buffer dec decodes (q->buffers[buffer - 1]); 0: none yet */
	bool synced, end;
	int status;	/* libipt's status after the last call */
	/* the last instruction, until the next one says whether it branched */
	bool have_insn, walked;
	struct pt_insn insn;
	u64 insn_time;
	u64 tot_insn_cnt, period_insn_cnt, last_insn_cnt;
	u32 depth;	/* the thread stack's after the last state */
	/* the image's file sections (read_memory, update_image) */
	u64 image_generation;
	size_t image_sections;
	bool section_pending;
	u64 section_start, section_size, section_offset;
	const char *section_path;
	u64 scan_pos;	/* where the buffer's next PSB is looked for (check_psb), */
	u64 next_psb;	/* where it is (~0: not looked for yet; the size: none) */
	bool psb_pending;	/* and one found, not reported yet */
	bool psb_done;		/* no PSB after next_psb */
	u64 psb_offset, psb_tsc;
	u32 cbr;	/* the last core:bus ratio */
	u64 tsc;	/* the last timestamp the trace gave */
	u64 timestamp;	/* perf's ptq->timestamp */
	struct pt_state state;	/* perf's have_sample: a state to synthesize first */
	bool have_sample;
	/* the states one decoding step made, oldest first */
	struct pt_state *fifo;
	size_t fifo_head, fifo_cnt, fifo_alloc;
	u64 chain[1 + ITRACE_MAX_CALLCHAIN_SZ + 1];	/* nr, then thread_stack__sample's */
	/* the samples' record and context: zeroed once, the fields a sample has set for each */
	struct perf_event_header header;
	struct event_ctx ctx;
	/*
	 * Tick periods: perf's decoder has read the packets up to the one the next branch
	 * needs before it walks the instructions to it, so their period is reckoned with the
	 * timestamp libipt gives only once that branch is decoded. The instructions since the
	 * last such branch wait here (a walk).
	 */
	struct walked_insn *walk;
	size_t walk_cnt, walk_alloc;
	u64 period_time;	/* perf's decoder->timestamp (TSC), */
	u64 period_insn_time;	/* its timestamp_insn_cnt, */
	u64 last_masked;	/* last_masked_timestamp */
	bool continuous;	/* continuous_period */
	bool seg_open;		/* within one of perf's walk_insn calls, */
	u64 seg_max, seg_cnt;	/* its max_insn_cnt and the instructions it walked */
};

struct intel_pt {
	u64 tsc_bit, noretcomp_bit, mtc_bit, mtc_freq_bits, cyc_bit;
	bool cap_user_time_zero, per_cpu_mmaps, timeless;
	struct evsel *branches, *instructions, *cbr, *psb;
	u64 cbr2khz;	/* a CBR's kHz (intel_pt_process_auxtrace_info) */
	u32 max_non_turbo_ratio;
	u64 insn_period;	/* instructions a sample */
	/* a period in TSC ticks (i<N>ns, i<N>t), perf's INTEL_PT_PERIOD_TICKS: the power of two
	 * at or below it (intel_pt_setup_period); 0 when the period counts instructions */
	u64 period_ticks;
	u32 branches_filter;
	u64 num_events;
	bool callchain;		/* synthesized samples but branches carry the thread stack ... */
	u32 callchain_sz;	/* ... this many frames of it at most */
	bool use_thread_stack;
};

/* intel_pt.c: the next buffer of the queue in a decoder of its own (false at the end), the
 * decoder freed, libipt's image callback, and one decoding step (states in ptq->fifo) */
bool intel_pt_next_buffer(struct pt_queue *ptq);
void intel_pt_free_decoder(struct pt_queue *ptq);
int intel_pt_read_memory(u8 *buffer, size_t size, const struct pt_asid *asid, u64 ip,
			 void *data);
void intel_pt_decode_step(struct pt_queue *ptq);
/* the PSBs the decoder passed, as states (check_psb: most calls have none to look for) */
void intel_pt_check_psb_slow(struct pt_queue *ptq, bool at_sync);

static inline void check_psb(struct pt_queue *ptq, bool at_sync)
{
	if (!ptq->psb_done || ptq->psb_pending)
		intel_pt_check_psb_slow(ptq, at_sync);
}

/* intel_pt_samples.c: the decoder's operations (process_event, flush, exit) */
extern const struct itrace_ops intel_pt_ops;

#endif
