/*
 * Sample decoding: field order follows the PERF_SAMPLE_* bits (perf_event.h), trailer order
 * TID TIME ID STREAM_ID CPU IDENTIFIER. Every read is bounded by the record's size.
 */
#include "readers/decode/sample.h"

#include <string.h>

int sample_id_pos(u64 type)
{
	int idx = 0;

	if (type & PERF_SAMPLE_IDENTIFIER)
		return 0;
	if (!(type & PERF_SAMPLE_ID))
		return -1;
	if (type & PERF_SAMPLE_IP)
		idx++;
	if (type & PERF_SAMPLE_TID)
		idx++;
	if (type & PERF_SAMPLE_TIME)
		idx++;
	if (type & PERF_SAMPLE_ADDR)
		idx++;
	return idx;
}

int sample_is_pos(u64 type)
{
	int idx = 1;

	if (type & PERF_SAMPLE_IDENTIFIER)
		return 1;
	if (!(type & PERF_SAMPLE_ID))
		return -1;
	if (type & PERF_SAMPLE_CPU)
		idx++;
	if (type & PERF_SAMPLE_STREAM_ID)
		idx++;
	return idx;
}

size_t sample_id_trailer_size(u64 type)
{
	size_t n = 0;

	n += !!(type & PERF_SAMPLE_TID);
	n += !!(type & PERF_SAMPLE_TIME);
	n += !!(type & PERF_SAMPLE_ID);
	n += !!(type & PERF_SAMPLE_STREAM_ID);
	n += !!(type & PERF_SAMPLE_CPU);
	n += !!(type & PERF_SAMPLE_IDENTIFIER);
	return n * sizeof(u64);
}

static void sample_reset(struct perf_sample *s, const struct perf_event_header *event)
{
	size_t size = sizeof(*s);

	/*
	 * Hide the size from the compiler: inlined, a clear of this size becomes `rep stos`,
	 * which costs more than the rest of the decoding; libc's memset uses vector stores.
	 */
	__asm__("" : "+r"(size));
	memset(s, 0, size);
	s->pid = s->tid = s->cpu = (u32)-1;
	s->time = s->id = s->stream_id = (u64)-1;
	s->misc = event->misc;
}

static int parse_id_trailer(u64 type, const struct perf_event_header *event,
			    struct perf_sample *s)
{
	size_t n = sample_id_trailer_size(type) / sizeof(u64);
	size_t words = (event->size - sizeof(*event)) / sizeof(u64);
	const u64 *p;

	if (event->size < sizeof(*event) || words < n)
		return -1;
	/* the last whole words, as perf counts them (a size that is not a multiple of 8 ends in
	 * bytes that belong to no field) */
	p = (const u64 *)(event + 1) + words - n;
	if (type & PERF_SAMPLE_TID) {
		s->pid = (u32)*p;
		s->tid = (u32)(*p >> 32);
		p++;
	}
	if (type & PERF_SAMPLE_TIME)
		s->time = *p++;
	if (type & PERF_SAMPLE_ID)
		s->id = *p++;
	if (type & PERF_SAMPLE_STREAM_ID)
		s->stream_id = *p++;
	if (type & PERF_SAMPLE_CPU)
		s->cpu = (u32)*p++;
	if (type & PERF_SAMPLE_IDENTIFIER)
		s->id = *p++;
	return 0;
}

/* Bounded cursor over the record's u64 words. */
struct cursor {
	const u64 *p, *end;
};

static bool take(struct cursor *c, u64 n, const u64 **out)
{
	if (n > (u64)(c->end - c->p))
		return false;
	*out = c->p;
	c->p += n;
	return true;
}

static bool take1(struct cursor *c, u64 *v)
{
	const u64 *p;

	if (!take(c, 1, &p))
		return false;
	*v = *p;
	return true;
}

static bool take_bytes(struct cursor *c, u64 bytes, const u64 **out)
{
	if (bytes > (u64)(c->end - c->p) * sizeof(u64))
		return false;
	return take(c, (bytes + 7) / 8, out);
}

static bool parse_read(const struct perf_event_attr *attr, struct cursor *c, const u64 **out)
{
	u64 fmt = attr->read_format, per_value = 1, nr = 1, head = 0;

	per_value += !!(fmt & PERF_FORMAT_ID);
	per_value += !!(fmt & PERF_FORMAT_LOST);
	head += !!(fmt & PERF_FORMAT_TOTAL_TIME_ENABLED);
	head += !!(fmt & PERF_FORMAT_TOTAL_TIME_RUNNING);
	*out = c->p;
	if (fmt & PERF_FORMAT_GROUP) {
		const u64 *p;

		if (!take1(c, &nr) || !take(c, head, &p))
			return false;
		if (nr > (u64)(c->end - c->p) / per_value)
			return false;
		return take(c, nr * per_value, &p);
	}
	return take(c, head + per_value, &(const u64 *){ NULL });
}

static bool parse_regs(struct cursor *c, u64 mask, u64 *abi, const u64 **regs)
{
	if (!take1(c, abi))
		return false;
	if (!*abi)
		return true;
	return take(c, __builtin_popcountll(mask), regs);
}

static int parse_sample_body(const struct perf_event_attr *attr,
			     const struct perf_event_header *event, struct perf_sample *s)
{
	u64 type = attr->sample_type, v;
	struct cursor c = {
		.p = (const u64 *)(event + 1),
		.end = (const u64 *)((const u8 *)event + (event->size & ~7u)),
	};
	const u64 *p;

#define TAKE(field)                      \
	do {                             \
		if (!take1(&c, &(field))) \
			return -1;       \
	} while (0)

	if (type & PERF_SAMPLE_IDENTIFIER)
		TAKE(s->id);
	if (type & PERF_SAMPLE_IP)
		TAKE(s->ip);
	if (type & PERF_SAMPLE_TID) {
		TAKE(v);
		s->pid = (u32)v;
		s->tid = (u32)(v >> 32);
	}
	if (type & PERF_SAMPLE_TIME)
		TAKE(s->time);
	if (type & PERF_SAMPLE_ADDR)
		TAKE(s->addr);
	if (type & PERF_SAMPLE_ID)
		TAKE(s->id);
	if (type & PERF_SAMPLE_STREAM_ID)
		TAKE(s->stream_id);
	if (type & PERF_SAMPLE_CPU) {
		TAKE(v);
		s->cpu = (u32)v;
	}
	if (type & PERF_SAMPLE_PERIOD)
		TAKE(s->period);
	if (type & PERF_SAMPLE_READ) {
		if (!parse_read(attr, &c, &s->read))
			return -1;
	}
	if (type & PERF_SAMPLE_CALLCHAIN) {
		TAKE(v);
		s->callchain = c.p - 1;
		if (!take(&c, v, &p))
			return -1;
	}
	if (type & PERF_SAMPLE_RAW) {
		/* u32 size, then the bytes; size + 4 is a multiple of 8 */
		const u8 *b = (const u8 *)c.p;

		if (c.p >= c.end)
			return -1;
		memcpy(&s->raw_size, b, sizeof(u32));
		if ((u64)s->raw_size + 4 > (u64)(c.end - c.p) * 8)
			return -1;
		s->raw_data = b + 4;
		c.p += ((u64)s->raw_size + 4 + 7) / 8;
	}
	if (type & PERF_SAMPLE_BRANCH_STACK) {
		u64 words;

		TAKE(v);
		s->branch_stack = c.p - 1;
		words = attr->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX ? 1 : 0;
		if (v > (u64)(c.end - c.p) / 3 || !take(&c, words + v * 3, &p))
			return -1;
	}
	if (type & PERF_SAMPLE_REGS_USER) {
		s->user_regs.mask = attr->sample_regs_user;
		if (!parse_regs(&c, attr->sample_regs_user, &s->user_regs.abi, &s->user_regs.regs))
			return -1;
	}
	if (type & PERF_SAMPLE_STACK_USER) {
		TAKE(s->user_stack.size);
		if (!take_bytes(&c, s->user_stack.size, &p))
			return -1;
		s->user_stack.data = p;
		if (s->user_stack.size) {
			TAKE(s->user_stack.dyn_size);
			/* perf's evsel__parse_sample: "user stack dump failure", -EFAULT */
			if (s->user_stack.dyn_size > s->user_stack.size)
				return SAMPLE_BAD_STACK;
		}
	}
	if (type & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		TAKE(s->weight);
	if (type & PERF_SAMPLE_DATA_SRC)
		TAKE(s->data_src);
	if (type & PERF_SAMPLE_TRANSACTION)
		TAKE(s->transaction);
	if (type & PERF_SAMPLE_REGS_INTR) {
		s->intr_regs.mask = attr->sample_regs_intr;
		if (!parse_regs(&c, attr->sample_regs_intr, &s->intr_regs.abi, &s->intr_regs.regs))
			return -1;
	}
	if (type & PERF_SAMPLE_PHYS_ADDR)
		TAKE(s->phys_addr);
	if (type & PERF_SAMPLE_CGROUP)
		TAKE(s->cgroup);
	if (type & PERF_SAMPLE_DATA_PAGE_SIZE)
		TAKE(s->data_page_size);
	if (type & PERF_SAMPLE_CODE_PAGE_SIZE)
		TAKE(s->code_page_size);
	if (type & PERF_SAMPLE_AUX) {
		TAKE(s->aux.size);
		if (!take_bytes(&c, s->aux.size, &p))
			return -1;
		s->aux.data = p;
	}
#undef TAKE
	return 0;
}

u64 sample_time(const struct perf_event_attr *attr, const struct perf_event_header *event)
{
	struct sample_layout l;

	sample_layout_init(&l, attr);
	return sample_layout_time(&l, event);
}

int sample_parse(const struct perf_event_attr *attr, const struct perf_event_header *event,
		 struct perf_sample *sample)
{
	sample_reset(sample, event);
	sample->period = attr->sample_period;	/* perf's default when PERIOD is not sampled */
	if (event->type != PERF_RECORD_SAMPLE) {
		if (!attr->sample_id_all)
			return 0;
		return parse_id_trailer(attr->sample_type, event, sample);
	}
	return parse_sample_body(attr, event, sample);
}

/* Sample fields whose size depends on the record or on more of the attr than sample_type. */
#define SAMPLE_VARIABLE                                                                       \
	(PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK | \
	 PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_AUX)

void sample_layout_init(struct sample_layout *l, const struct perf_event_attr *attr)
{
	u64 type = attr->sample_type;
	/* one u64 a field it knows (up to WEIGHT_STRUCT, which shares WEIGHT's) */
	u64 known = type & ((u64)PERF_SAMPLE_WEIGHT_STRUCT - 1);

	l->time_word = -1;
	l->trailer_time_word = -1;
	l->trailer_words = 0;
	if (type & PERF_SAMPLE_TIME)
		l->time_word = (s8)(!!(type & PERF_SAMPLE_IDENTIFIER) + !!(type & PERF_SAMPLE_IP) +
				    !!(type & PERF_SAMPLE_TID));
	if (attr->sample_id_all) {
		l->trailer_words = (u8)(sample_id_trailer_size(type) / sizeof(u64));
		if (type & PERF_SAMPLE_TIME)
			l->trailer_time_word = (s8)!!(type & PERF_SAMPLE_TID);
	}
	/* the fields before PERIOD are one u64 each: IDENTIFIER IP TID TIME ADDR ID STREAM_ID
	 * CPU */
	l->ip_word = type & PERF_SAMPLE_IP ? (s8)!!(type & PERF_SAMPLE_IDENTIFIER) : -1;
	l->tid_word = type & PERF_SAMPLE_TID ?
			      (s8)__builtin_popcountll(type & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP)) :
			      -1;
	l->cpu_word = type & PERF_SAMPLE_CPU ?
			      (s8)__builtin_popcountll(type & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
							       PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
							       PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
							       PERF_SAMPLE_STREAM_ID)) :
			      -1;
	l->period_word = type & PERF_SAMPLE_PERIOD ?
				 (s8)__builtin_popcountll(type & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
								  PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
								  PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
								  PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU)) :
				 -1;
	l->fixed_words = FIXED_VARIABLE;
	if (!(type & SAMPLE_VARIABLE))
		l->fixed_words = (u8)(__builtin_popcountll(known) +
				      ((type & PERF_SAMPLE_WEIGHT_STRUCT) && !(type & PERF_SAMPLE_WEIGHT)));
}

int sample_check_variable(const struct perf_event_attr *attr, const struct perf_event_header *event)
{
	struct perf_sample scratch;	/* every field the parse reads back, it wrote first */

	return parse_sample_body(attr, event, &scratch);
}

int sample_check(const struct perf_event_attr *attr, const struct perf_event_header *event)
{
	struct sample_layout l;

	sample_layout_init(&l, attr);
	return sample_layout_check(&l, attr, event);
}
