/*
 * sample: decoding of PERF_RECORD_SAMPLE bodies and of the sample_id_all trailer of other
 * records, for every sample_type bit (perf_event.h: PERF_SAMPLE_*). Decodes in place: pointers
 * point into the record. Never reads past the record: a short record is an error.
 */
#ifndef READERS_SAMPLE_H
#define READERS_SAMPLE_H

#include <string.h>

#include "lib/compiler.h"
#include "readers/format.h"

struct perf_sample {
	u64 ip;
	u32 pid, tid;
	u64 time;
	u64 addr;
	u64 id;
	u64 stream_id;
	u32 cpu;
	u64 period;
	u64 weight;
	u64 data_src;
	u64 transaction;
	u64 phys_addr;
	u64 cgroup;
	u64 data_page_size, code_page_size;
	u16 misc;	/* the record header's misc: cpumode and flags */
	u32 flags;	/* samples decoded from AUX traces: the branch kind (itrace.h IP_FLAG_*) */
	u8 insn_len;	/* and the instruction's bytes (Intel PT), insn_len of them */
	const u8 *insn;
	u32 call_depth;	/* and the calls open in the thread then (perf's thread stack) */
	const char *synth;	/* a synthesized event's (psb, cbr): its data as perf prints it */
	const u64 *callchain;	/* callchain[0] is nr */
	u32 raw_size;
	const void *raw_data;
	const u64 *branch_stack;	/* nr, [hw_idx,] entries */
	const u64 *read;
	struct {
		u64 abi, mask;
		const u64 *regs;
	} user_regs, intr_regs;
	struct {
		u64 size, dyn_size;
		const void *data;
	} user_stack;
	struct {
		u64 size;
		const void *data;
	} aux;
};

/* Positions of the event id, needed to map a record to its attr (perf's id_pos/is_pos). */
int sample_id_pos(u64 sample_type);	/* u64 index from the start of a sample, or -1 */
int sample_is_pos(u64 sample_type);	/* u64 index from the end of a trailer, or -1 */

/* Size in bytes of the sample_id_all trailer for this sample_type. */
size_t sample_id_trailer_size(u64 sample_type);

/*
 * What the reading loop needs of every record, worked out once per attr: where its time is,
 * and the size a record must have when the size does not depend on its contents.
 */
struct sample_layout {
	s8 time_word;		/* TIME's u64 index in a sample, or -1 */
	s8 trailer_time_word;	/* TIME's index in the sample_id_all trailer, or -1 */
	u8 trailer_words;	/* the trailer's size in u64s (0 without sample_id_all) */
	u8 fixed_words;		/* a sample's size in u64s, or FIXED_VARIABLE: it depends */
	/* the indexes of IP, TID, CPU and PERIOD in a sample, or -1 (sample_parse_basic) */
	s8 ip_word, tid_word, cpu_word, period_word;
};
#define FIXED_VARIABLE 0xff

void sample_layout_init(struct sample_layout *layout, const struct perf_event_attr *attr);

/*
 * A sample of a fixed layout: its ip, pid, tid, time, cpu, period and misc into sample
 * (nothing else of it), as sample_parse would set them; false when the layout is not
 * fixed or the record too short, for sample_parse to say.
 */
static inline bool sample_parse_basic(const struct sample_layout *l,
				      const struct perf_event_attr *attr,
				      const struct perf_event_header *event,
				      struct perf_sample *sample)
{
	const u64 *w = (const u64 *)(event + 1);
	u64 tid;

	if (l->fixed_words == FIXED_VARIABLE || event->type != PERF_RECORD_SAMPLE ||
	    (event->size & ~7u) < sizeof(*event) + (size_t)l->fixed_words * sizeof(u64))
		return false;
	sample->misc = event->misc;
	sample->ip = l->ip_word >= 0 ? w[l->ip_word] : 0;
	tid = l->tid_word >= 0 ? w[l->tid_word] : (u64)-1;
	sample->pid = (u32)tid;
	sample->tid = (u32)(tid >> 32);
	sample->time = l->time_word >= 0 ? w[l->time_word] : (u64)-1;
	sample->cpu = l->cpu_word >= 0 ? (u32)w[l->cpu_word] : (u32)-1;
	sample->period = l->period_word >= 0 ? w[l->period_word] : attr->sample_period;
	return true;
}

/*
 * Just the timestamp of a record (what ordering needs), or -1 when it has none.
 * Does not validate the rest of the record: sample_parse does that at delivery.
 */
static inline u64 sample_layout_time(const struct sample_layout *l,
				     const struct perf_event_header *event)
{
	size_t words = (event->size - sizeof(*event)) / sizeof(u64), idx;
	u64 t;

	if (event->type == PERF_RECORD_SAMPLE) {
		if (l->time_word < 0)
			return (u64)-1;
		idx = (size_t)l->time_word;
	} else {
		if (l->trailer_time_word < 0 || l->trailer_words > words)
			return (u64)-1;
		idx = words - l->trailer_words + (size_t)l->trailer_time_word;
	}
	if (idx >= words)
		return (u64)-1;
	memcpy(&t, (const u8 *)(event + 1) + idx * sizeof(u64), sizeof(t));
	return t;
}
u64 sample_time(const struct perf_event_attr *attr, const struct perf_event_header *event);
/* A timestamp that orders nothing: 0 (synthesized records) or all ones (no time sampled). */
static inline bool sample_time_untimed(u64 time)
{
	return time == 0 || time == (u64)-1;
}

/*
 * Decode a record with the attr it belongs to. For non-sample records the trailer is decoded
 * when attr->sample_id_all is set; fields not present are -1 as perf leaves them.
 * Returns 0, -1 when the record is too short for what its attr says it holds, or
 * SAMPLE_BAD_STACK when its user stack dump claims more bytes (dyn_size) than it holds.
 */
#define SAMPLE_BAD_STACK (-2)
int sample_parse(const struct perf_event_attr *attr, const struct perf_event_header *event,
		 struct perf_sample *sample);
/* sample_parse's answer without the decoding, for records nobody reads: 0 or -1. */
int sample_check(const struct perf_event_attr *attr, const struct perf_event_header *event);
/* The same, for a sample whose size depends on its contents (sample_layout_check's slow path). */
int sample_check_variable(const struct perf_event_attr *attr,
			  const struct perf_event_header *event);
/* sample_check with the attr's layout at hand. */
static inline int sample_layout_check(const struct sample_layout *l,
				      const struct perf_event_attr *attr,
				      const struct perf_event_header *event)
{
	if (event->type != PERF_RECORD_SAMPLE)
		return event->size >= sizeof(*event) + l->trailer_words * sizeof(u64) ? 0 : -1;
	if (l->fixed_words == FIXED_VARIABLE)
		return sample_check_variable(attr, event);
	return ((event->size & ~7u) - sizeof(*event)) / sizeof(u64) >= l->fixed_words ? 0 : -1;
}

#endif
