/*
 * itrace: the --itrace options, branch flags as perf prints them, and the AUX-trace queues
 * (perf's auxtrace.c: one queue per AUXTRACE idx, its buffers in arrival order, decoded in
 * the order of their references) feeding the Intel BTS decoder (intel_bts.c).
 */
#include "analyzer/itrace.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/itrace_internal.h"
#include "lib/error.h"
#include "lib/xalloc.h"

/* perf auxtrace.h: PERF_ITRACE_DEFAULT_PERIOD(_TYPE), the callchain and branch sizes */
#define DEFAULT_PERIOD 100000
#define PERIOD_NANOSECS 2
#define MAX_CALLCHAIN_SZ 1024
#define MAX_LAST_BRANCH_SZ 1024

void itrace_opts__set_default(struct itrace_opts *o, bool no_sample)
{
	bool set = o->set, dont_decode = o->dont_decode;

	memset(o, 0, sizeof(*o));
	o->set = set;
	o->dont_decode = dont_decode;
	o->branches = o->transactions = o->errors = true;
	if (no_sample) {
		o->period_type = 0;
		o->period = 1;
		o->calls = true;
	} else {
		o->instructions = true;
		o->period_type = PERIOD_NANOSECS;
		o->period = DEFAULT_PERIOD;
	}
}

static const char *skip_separators(const char *p)
{
	while (*p == ' ' || *p == ',')
		p++;
	return p;
}

/* e and d take +x/-x flag letters: a-z, as perf's get_flag */
static int skip_flags(const char **p)
{
	while (**p == '+' || **p == '-' || **p == ' ') {
		if (**p == ' ') {
			(*p)++;
			continue;
		}
		(*p)++;
		if (**p < 'a' || **p > 'z')
			return -1;
		(*p)++;
	}
	return 0;
}

/* "i" then an optional period: N then i, t, ns, us or ms (perf's itrace_parse_synth_opts) */
static int parse_period(struct itrace_opts *o, const char **pp, bool *type_set, bool *set)
{
	const char *p = skip_separators(*pp);
	char *end;

	if (!isdigit((unsigned char)*p)) {
		*pp = p;
		return 0;
	}
	o->period = strtoull(p, &end, 10);
	*set = true;
	p = skip_separators(end);
	switch (*p++) {
	case 'i':
		o->period_type = 0;
		break;
	case 't':
		o->period_type = 1;
		break;
	case 'm':
		o->period *= 1000;
		/* fall through */
	case 'u':
		o->period *= 1000;
		/* fall through */
	case 'n':
		if (*p++ != 's')
			return -1;
		o->period_type = PERIOD_NANOSECS;
		break;
	case '\0':
		*pp = p - 1;
		return 1;	/* the end of the string */
	default:
		return -1;
	}
	*type_set = true;
	*pp = p;
	return 0;
}

/* a g/G/l/L size: 1..max */
static int parse_size(const char **pp, unsigned long max)
{
	const char *p = skip_separators(*pp);
	char *end;
	unsigned long v;

	*pp = p;
	if (!isdigit((unsigned char)*p))
		return 0;
	v = strtoul(p, &end, 10);
	*pp = end;
	return v && v <= max ? 0 : -1;
}

int itrace_opts__parse(struct itrace_opts *o, const char *str)
{
	bool type_set = false, period_set = false;
	const char *p;
	char *end;
	int ret;

	o->set = true;
	if (!str) {
		itrace_opts__set_default(o, true);
		return 0;
	}
	for (p = str; *p;) {
		switch (*p++) {
		case 'i':
			o->instructions = true;
			ret = parse_period(o, &p, &type_set, &period_set);
			if (ret < 0)
				return -1;
			if (ret > 0)
				goto out;
			break;
		case 'b':
			o->branches = true;
			break;
		case 'x':
			o->transactions = true;
			break;
		case 'e':
			o->errors = true;
			if (skip_flags(&p))
				return -1;
			break;
		case 'd':
			if (skip_flags(&p))
				return -1;
			break;
		case 'c':
			o->branches = o->calls = true;
			break;
		case 'r':
			o->branches = o->returns = true;
			break;
		case 'g':
		case 'G':
			if (parse_size(&p, MAX_CALLCHAIN_SZ))
				return -1;
			break;
		case 'l':
		case 'L':
			if (parse_size(&p, MAX_LAST_BRANCH_SZ))
				return -1;
			break;
		case 's':
			o->initial_skip = strtoul(p, &end, 10);
			if (end == p)
				return -1;
			p = end;
			break;
		case 'w': case 'p': case 'o': case 'f': case 'm': case 't': case 'a': case 'M':
		case 'q': case 'A': case 'Z': case ' ': case ',':
			break;	/* events BTS never has (PT's), or modifiers */
		default:
			return -1;
		}
	}
out:
	if (o->instructions) {
		if (!type_set)
			o->period_type = PERIOD_NANOSECS;
		if (!period_set)
			o->period = DEFAULT_PERIOD;
	}
	return 0;
}

/* perf's sample_flags[] (util/trace-event... event.c): the names of the common kinds */
static const struct {
	u32 flags;
	const char *name;
} flag_names[] = {
	{ IP_FLAG_BRANCH | IP_FLAG_CALL, "call" },
	{ IP_FLAG_BRANCH | IP_FLAG_RETURN, "return" },
	{ IP_FLAG_BRANCH | IP_FLAG_CONDITIONAL, "jcc" },
	{ IP_FLAG_BRANCH, "jmp" },
	{ IP_FLAG_BRANCH | IP_FLAG_CALL | IP_FLAG_INTERRUPT, "int" },
	{ IP_FLAG_BRANCH | IP_FLAG_RETURN | IP_FLAG_INTERRUPT, "iret" },
	{ IP_FLAG_BRANCH | IP_FLAG_CALL | IP_FLAG_SYSCALLRET, "syscall" },
	{ IP_FLAG_BRANCH | IP_FLAG_RETURN | IP_FLAG_SYSCALLRET, "sysret" },
	{ IP_FLAG_BRANCH | IP_FLAG_ASYNC, "async" },
	{ IP_FLAG_BRANCH | IP_FLAG_CALL | IP_FLAG_ASYNC | IP_FLAG_INTERRUPT, "hw int" },
	{ IP_FLAG_BRANCH | IP_FLAG_TX_ABORT, "tx abrt" },
	{ IP_FLAG_BRANCH | IP_FLAG_TRACE_BEGIN, "tr strt" },
	{ IP_FLAG_BRANCH | IP_FLAG_TRACE_END, "tr end" },
	{ IP_FLAG_BRANCH | IP_FLAG_CALL | IP_FLAG_VMENTRY, "vmentry" },
	{ IP_FLAG_BRANCH | IP_FLAG_CALL | IP_FLAG_VMEXIT, "vmexit" },
};

#define ADDITIONAL_STATE (IP_FLAG_IN_TX | IP_FLAG_INTR_DISABLE | IP_FLAG_INTR_TOGGLE)

void itrace_flags__format(u32 flags, char *buf, size_t size)
{
	static const char chars[] = "bcrosyiABExghDt";	/* PERF_IP_FLAG_CHARS */
	char xs[16] = "";
	size_t pos = 0, i;

	if (flags & ADDITIONAL_STATE)
		snprintf(xs, sizeof(xs), "(%s%s%s)", flags & IP_FLAG_IN_TX ? "x" : "",
			 flags & IP_FLAG_INTR_DISABLE ? "D" : "",
			 flags & IP_FLAG_INTR_TOGGLE ? "t" : "");
	for (i = 0; i < ARRAY_SIZE(flag_names); i++) {
		if (flag_names[i].flags == (flags & ~ADDITIONAL_STATE)) {
			snprintf(buf, size, "%-15s%6s", flag_names[i].name, xs);
			return;
		}
	}
	if (!size)
		return;
	if ((flags & IP_FLAG_TRACE_BEGIN) && pos + 1 < size)
		buf[pos++] = 'B';
	if ((flags & IP_FLAG_TRACE_END) && pos + 1 < size)
		buf[pos++] = 'E';
	for (i = 0; i < 32 && pos + 1 < size; i++, flags >>= 1) {
		if (!(flags & 1))
			continue;
		if (i < sizeof(chars) - 1) {
			if (chars[i] != ' ')
				buf[pos++] = chars[i];
		} else {
			buf[pos++] = '?';
		}
	}
	buf[pos] = '\0';
}

/* ---- queues ---- */

/* perf's auxtrace_queues__queue_buffer: the buffer joins queue idx, whose cpu and tid it
 * must share */
static int queue_buffer(struct itrace *it, u32 idx, const struct itrace_buffer *b, u64 offset)
{
	struct itrace_queue *q;

	if (idx >= MAX_QUEUES) {
		error_set("%s: offset %#llx: AUXTRACE record's queue %u is beyond %u", it->session->path,
			  (unsigned long long)offset, idx, MAX_QUEUES);
		return -1;
	}
	if (idx >= it->nr_queues) {
		size_t alloc = it->nr_queues;

		ARRAY_GROW(it->queues, alloc, idx + 1);
		memset(it->queues + it->nr_queues, 0, (idx + 1 - it->nr_queues) * sizeof(*q));
		it->nr_queues = idx + 1;
	}
	q = &it->queues[idx];
	if (!q->set) {
		q->set = true;
		q->tid = b->tid;
		q->cpu = b->cpu;
		q->pid = -1;
		q->btsq_tid = -1;
		q->btsq_cpu = -1;
	} else if (b->cpu != q->cpu || b->tid != q->tid) {
		error_set("%s: offset %#llx: auxtrace queue conflict: cpu %d, tid %d vs cpu %d, tid %d",
			  it->session->path, (unsigned long long)offset, q->cpu, q->tid, b->cpu,
			  b->tid);
		return -1;
	}
	ARRAY_GROW(q->buffers, q->alloc, q->nr + 1);
	q->buffers[q->nr] = *b;
	q->buffers[q->nr].nr = it->next_buffer_nr++;
	q->nr++;
	it->new_data = true;
	return 0;
}

/* An AUXTRACE record at `offset` (perf event.h: perf_record_auxtrace); its data follows it. */
static int add_event(struct itrace *it, const struct perf_event_header *event, u64 offset)
{
	struct itrace_auxtrace rec;
	struct itrace_buffer b;

	if (event->size < sizeof(rec)) {
		error_set("%s: offset %#llx: AUXTRACE record of %u bytes is too short",
			  it->session->path, (unsigned long long)offset, event->size);
		return -1;
	}
	memcpy(&rec, event, sizeof(rec));
	b = (struct itrace_buffer){
		.data_offset = offset + event->size,
		.size = rec.size,
		.reference = rec.reference,
		.tid = (s32)rec.tid,
		.cpu = (s32)rec.cpu,
	};
	if (b.data_offset > it->session->size || b.size > it->session->size - b.data_offset) {
		error_set("%s: offset %#llx: AUXTRACE record's %llu bytes of trace extend past the end of the file",
			  it->session->path, (unsigned long long)offset, (unsigned long long)b.size);
		return -1;
	}
	return queue_buffer(it, rec.idx, &b, offset);
}

int itrace__add_buffer(struct itrace *it, const struct perf_event_header *event, u64 offset)
{
	if (it->data_queued || it->dont_decode)
		return 0;	/* queued from the index already (perf: data_queued) */
	return add_event(it, event, offset);
}

/*
 * The AUXTRACE feature (auxtrace.c's auxtrace_index__process): u64 nr, then nr {file_offset,
 * size} entries, each the offset and header.size of an AUXTRACE record. perf queues every
 * buffer from it up front and then ignores the records as they come.
 */
static int queue_index(struct itrace *it)
{
	struct perf_session *s = it->session;
	size_t size;
	const u8 *sec = perf_session__feat(s, HEADER_AUXTRACE, &size);
	u64 nr;

	if (!sec || s->is_pipe || s->is_dir || !s->base)
		return 0;
	if (size < sizeof(u64))
		goto bad;
	memcpy(&nr, sec, sizeof(nr));	/* (feature sections are native once opened) */
	if (nr > (size - sizeof(u64)) / (2 * sizeof(u64)))
		goto bad;
	for (u64 i = 0; i < nr; i++) {
		u64 ent[2];
		struct perf_event_header h;
		bool swapped;

		memcpy(ent, sec + sizeof(u64) + i * sizeof(ent), sizeof(ent));
		if (ent[0] < s->header.data.offset || ent[0] > s->size ||
		    s->size - ent[0] < sizeof(struct itrace_auxtrace)) {
			error_set("%s: offset %#llx: AUXTRACE index entry %llu points to %#llx, outside the data",
				  s->path, (unsigned long long)s->feat[HEADER_AUXTRACE].offset,
				  (unsigned long long)i, (unsigned long long)ent[0]);
			return -1;
		}
		/* an opposite-endian file is converted in place as it is read: maybe not yet */
		memcpy(&h, s->base + ent[0], sizeof(h));
		swapped = s->swap && h.type != PERF_RECORD_AUXTRACE;
		if (swapped) {
			h.type = __builtin_bswap32(h.type);
			h.size = __builtin_bswap16(h.size);
		}
		if (h.type != PERF_RECORD_AUXTRACE)
			continue;	/* perf skips entries that are not AUXTRACE records */
		if (h.size < sizeof(struct itrace_auxtrace) || h.size != ent[1]) {
			error_set("%s: offset %#llx: AUXTRACE record does not match its index entry (size %u, index %llu)",
				  s->path, (unsigned long long)ent[0], h.size,
				  (unsigned long long)ent[1]);
			return -1;
		}
		{
			u8 copy[sizeof(struct itrace_auxtrace)];

			memcpy(copy, s->base + ent[0], sizeof(copy));
			if (swapped)
				itrace_auxtrace_swap((struct itrace_auxtrace *)copy);
			if (add_event(it, (const struct perf_event_header *)copy, ent[0]))
				return -1;
		}
	}
	it->data_queued = it->new_data;
	return 0;
bad:
	error_set("%s: offset %#llx: AUXTRACE feature section of %zu bytes is malformed", s->path,
		  (unsigned long long)s->feat[HEADER_AUXTRACE].offset, size);
	return -1;
}

void itrace_auxtrace_swap(struct itrace_auxtrace *r)
{
	r->header.type = __builtin_bswap32(r->header.type);
	r->header.misc = __builtin_bswap16(r->header.misc);
	r->header.size = __builtin_bswap16(r->header.size);
	r->size = __builtin_bswap64(r->size);
	r->offset = __builtin_bswap64(r->offset);
	r->reference = __builtin_bswap64(r->reference);
	r->idx = __builtin_bswap32(r->idx);
	r->tid = __builtin_bswap32(r->tid);
	r->cpu = __builtin_bswap32(r->cpu);
}

/* perf auxtrace.h: enum auxtrace_type */
#define AUXTRACE_INTEL_PT 1
#define AUXTRACE_INTEL_BTS 2

struct itrace *itrace__new(struct perf_session *s, struct machine *machine,
			   const struct itrace_opts *opts, struct itrace_consumer *consumer,
			   const struct perf_event_header *info, u64 offset)
{
	struct itrace *it;
	u32 type;

	if (info->size < sizeof(*info) + 8) {
		error_set("%s: offset %#llx: AUXTRACE_INFO record of %u bytes is too short", s->path,
			  (unsigned long long)offset, info->size);
		return NULL;
	}
	memcpy(&type, info + 1, sizeof(type));
	if (type != AUXTRACE_INTEL_BTS) {
		/* perf 6.1: "Error: AUX area tracing type %u is not supported" (PT: not yet ours) */
		error_set("%s: offset %#llx: AUXTRACE_INFO of AUX area tracing type %u, which analyze does not decode%s",
			  s->path, (unsigned long long)offset, type,
			  type == AUXTRACE_INTEL_PT ? " yet (Intel PT)" : "");
		return NULL;
	}
	it = xcalloc(1, sizeof(*it));
	it->session = s;
	it->machine = machine;
	it->consumer = consumer;
	it->info_offset = offset;
	it->opts = *opts;	/* the command's default when --itrace was not given */
	it->dont_decode = opts->dont_decode;
	if (intel_bts__init(it, info, offset) || queue_index(it)) {
		itrace__delete(it);
		return NULL;
	}
	return it;
}

void itrace__delete(struct itrace *it)
{
	if (!it)
		return;
	intel_bts__exit(it);
	for (size_t i = 0; i < it->nr_queues; i++)
		free(it->queues[i].buffers);
	free(it->queues);
	free(it);
}

struct evsel *itrace__evsel(struct itrace *it)
{
	return it && it->has_evsel ? &it->evsel : NULL;
}
