/*
 * dump_consumer: the raw dump's event consumer: user records printed as they are read, kernel
 * records at their delivery in time order, a sample's thread and dso lines when it is kept,
 * PERF_SAMPLE_READ samples taken apart per counter; every record then goes to the next consumer.
 */
#include "analyzer/output/dump_internal.h"

#include <inttypes.h>
#include <stdlib.h>

#include "machine/machine.h"
#include "readers/decode/evsel_name.h"

#define PIPE_OFFSET_BASE PERF_PIPE_HEADER_SIZE	/* perf counts pipe offsets after its header */

/* perf's evlist__print_tstamp: cpu and time as the combined sample_type has them. */
static void fprintf_tstamp(struct dump *d, const struct perf_event_header *event,
			   const struct perf_sample *s)
{
	struct perf_session *ses = d->session;
	u64 type = 0;

	/* an empty evlist (a pipe before its first ATTR) reads as no sample_id_all */
	if (event->type != PERF_RECORD_SAMPLE &&
	    (!ses->nr_evsels || !ses->evsels[0].attr.sample_id_all)) {
		fputs("-1 -1 ", d->fp);
		return;
	}
	for (size_t i = 0; i < ses->nr_evsels; i++)
		type |= ses->evsels[i].attr.sample_type;
	if (type & PERF_SAMPLE_CPU)
		fprintf(d->fp, "%u ", s->cpu);
	if (type & PERF_SAMPLE_TIME)
		fprintf(d->fp, "%" PRIu64 " ", s->time);
}

/* session.c dump_event: where the record comes from, its bytes, then its decoded line. */
static void dump_event(struct dump *d, const struct perf_event_header *event, u64 offset,
		       const struct perf_sample *s, const char *path)
{
	if (d->session->is_pipe)
		offset -= PIPE_OFFSET_BASE;
	fprintf(d->fp, "\n%#" PRIx64 "@%s [%#x]: event: %u\n", offset, path, event->size,
		event->type);
	dump_fprintf_hex(d->fp, event);
	fprintf_tstamp(d, event, s);
	fprintf(d->fp, "%#" PRIx64 " [%#x]: PERF_RECORD_%s", offset, event->size,
		perf_event__name(event->type));
}

/* intel-bts.c's intel_bts_print_info: AUXTRACE_INFO's words, as far as the record has them */
static void fprintf_bts_info(FILE *fp, const struct perf_event_header *event)
{
	static const char *const names[] = { "PMU Type", "Time Shift", "Time Muliplier",
					     "Time Zero", "Cap Time Zero", "Snapshot mode" };
	const u8 *b = body(event, 8);
	size_t n = b ? (event->size - sizeof(*event) - 8) / 8 : 0;

	for (size_t i = 0; i < n && i < ARRAY_SIZE(names); i++) {
		u64 v = get_u64(b + 8 + 8 * i);

		if (i == 1 || i == 2 || i == 3)
			fprintf(fp, "  %-18s %" PRIu64 "\n", names[i], v);
		else
			fprintf(fp, "  %-18s %" PRId64 "\n", names[i], (s64)v);
	}
}

/* intel_bts_dump: the trace bytes that follow an AUXTRACE record, 24 a line */
static void fprintf_bts_data(FILE *fp, const u8 *buf, u64 len)
{
	u64 pos = 0;

	fprintf(fp, ".\n. ... Intel BTS data: size %" PRIu64 " bytes\n", len);
	while (len) {
		u64 sz = MIN(len, (u64)24), i;

		fprintf(fp, ".  %08" PRIx64 ": ", pos);
		for (i = 0; i < sz; i++)
			fprintf(fp, " %02x", buf[i]);
		for (; i < 24; i++)
			fputs("   ", fp);
		if (sz == 24) {
			u64 r[3];

			memcpy(r, buf, sizeof(r));
			fprintf(fp, " %" PRIx64 " -> %" PRIx64 " %s\n", r[0], r[1],
				r[2] & 0x10 ? "pred" : "miss");
		} else {
			fputs(" Bad record!\n", fp);
		}
		pos += sz;
		buf += sz;
		len -= sz;
	}
}

/* The AUX-area records' own dump, as the decoder of an Intel BTS trace prints it. */
static void dump_aux(struct dump *d, const struct perf_event_header *event, u64 file_offset)
{
	const u8 *b;

	if (event->type == PERF_RECORD_AUXTRACE_INFO && (b = body(event, 4))) {
		d->aux_type = get_u32(b);
		if (d->aux_type == 2 && event->size >= sizeof(*event) + 8 + 5 * 8)
			fprintf_bts_info(d->fp, event);
		else if (d->aux_type == 2)
			d->aux_type = 0;	/* perf refuses it */
	} else if (event->type == PERF_RECORD_AUXTRACE && d->aux_type == 2 && d->session->base &&
		   !d->session->is_dir && (b = body(event, 8))) {
		u64 size = get_u64(b), at = file_offset + event->size;

		/* the reader checked that the bytes lie in the data */
		if (at <= d->session->size && size <= d->session->size - at)
			fprintf_bts_data(d->fp, d->session->base + at, size);
	}
}

static void dump_raw(struct event_consumer *consumer, const struct perf_event_header *event,
		     const char *path, u64 file_offset)
{
	struct dump *d = container_of(consumer, struct dump, consumer);
	struct perf_sample zero = { 0 };

	if (event->type < PERF_RECORD_USER_TYPE_START) {
		/* printed at delivery; a directory's data.N files need their name then */
		if (d->session->is_dir && strcmp(path, d->session->data_path))
			hashmap_insert(&d->paths, (u64)(uintptr_t)event, (void *)path);
		return;
	}
	/* perf inflates COMPRESSED records without showing them */
	if (event->type == PERF_RECORD_COMPRESSED)
		return;
	dump_event(d, event, file_offset, &zero, path);
	if (d->maps_handled && event->type == PERF_RECORD_THREAD_MAP)
		dump_fprintf_thread_map(d->fp, event);
	else if (d->maps_handled && event->type == PERF_RECORD_CPU_MAP)
		dump_fprintf_cpu_map(d->fp, event);
	else
		dump_fprintf_details(d->fp, event);
	dump_aux(d, event, file_offset);
}

/* machine__resolve's dump lines: the sample's thread and the dso its ip falls in. */
static void fprintf_sample_location(struct dump *d, const struct perf_sample *s)
{
	u8 cpumode = s->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	struct thread *t = machine__findnew_thread(d->machine, (s32)s->pid, (s32)s->tid);
	struct addr_location al;

	fprintf(d->fp, " ... thread: %s:%d\n", thread__comm_str(t), t->tid);
	machine__resolve(d->machine, t, cpumode, s->ip, &al);
	if (al.map)
		fprintf(d->fp, " ...... dso: %s\n", al.map->dso->long_name);
	else if (cpumode != PERF_RECORD_MISC_KERNEL && cpumode != PERF_RECORD_MISC_USER)
		fputs(" ...... dso: [hypervisor]\n", d->fp);
	else
		fputs(" ...... dso: <not found>\n", d->fp);
	thread__put(t);
}

/* machine__process_fork_event drops a thread at ptid whose pid is not ppid, and says so. */
static void fprintf_fork_parent(struct dump *d, const struct perf_event_header *event)
{
	const struct perf_record_fork *ev = (const void *)event;
	struct thread *parent;

	if (event->size < sizeof(*ev))
		return;
	parent = machine__findnew_thread(d->machine, (s32)ev->ppid, (s32)ev->ptid);
	if (parent->pid != (s32)ev->ppid)
		fprintf(d->fp, "removing erroneous parent thread %d/%d\n", parent->pid, parent->tid);
	thread__put(parent);
}

static void dump_kernel_event(struct dump *d, struct event_ctx *ctx)
{
	const struct perf_event_header *event = ctx->event;
	const char *path = d->session->is_pipe ? "pipe" : d->session->data_path;

	if (d->session->is_dir) {
		const char *p = hashmap_remove(&d->paths, (u64)(uintptr_t)event);

		if (p)
			path = p;
	}
	dump_event(d, event, ctx->file_offset, &ctx->sample, path);
	switch (event->type) {
	case PERF_RECORD_SAMPLE:
		if (!ctx->evsel)
			return;
		dump_fprintf_sample(d->fp, event, &ctx->sample, &ctx->evsel->attr);
		return;	/* the location lines come with each sample delivered */
	case PERF_RECORD_READ: {
		const u8 *b = (const u8 *)(event + 1);
		u64 fmt = ctx->evsel ? ctx->evsel->attr.read_format : 0;

		/* perf reads its fixed perf_record_read layout, whatever read_format holds */
		if (event->size < sizeof(*event) + 16)
			return;
		fprintf(d->fp, ": %d %d %s %" PRIu64 "\n", (s32)get_u32(b), (s32)get_u32(b + 4),
			evsel__name(ctx->evsel),
			get_u64(b + 8));
		if ((fmt & PERF_FORMAT_TOTAL_TIME_ENABLED) && event->size >= sizeof(*event) + 24)
			fprintf(d->fp, "... time enabled : %" PRIu64 "\n", get_u64(b + 16));
		if ((fmt & PERF_FORMAT_TOTAL_TIME_RUNNING) && event->size >= sizeof(*event) + 32)
			fprintf(d->fp, "... time running : %" PRIu64 "\n", get_u64(b + 24));
		if ((fmt & PERF_FORMAT_ID) && event->size >= sizeof(*event) + 40)
			fprintf(d->fp, "... id           : %" PRIu64 "\n", get_u64(b + 32));
		return;
	}
	case PERF_RECORD_LOST:
		if (!d->lost_handled)	/* else the consumer's line follows on this one */
			dump_fprintf_details(d->fp, event);
		return;
	case PERF_RECORD_LOST_SAMPLES:
		if (event->size >= sizeof(*event) + 8)
			fprintf(d->fp, ": id:%" PRIu64 ": lost samples :%" PRIu64 "\n",
				ctx->sample.id, get_u64((const u8 *)(event + 1)));
		return;
	case PERF_RECORD_FORK:
		dump_fprintf_details(d->fp, event);
		fprintf_fork_parent(d, event);
		return;
	default:
		dump_fprintf_details(d->fp, event);
		return;
	}
}

/*
 * session.c deliver_sample_value: a PERF_SAMPLE_READ sample is one sample per counter value,
 * of the counter's own event, with the value's growth since that counter's last sample as
 * its period; counters that did not grow, or whose id no event has, give none.
 */
static int deliver_read_value(struct dump *d, struct event_ctx *ctx, u64 id, u64 value,
			      bool kept)
{
	struct event_ctx one = *ctx;
	u64 *prev;

	one.evsel = perf_session__evsel_by_id(d->session, id);
	if (!one.evsel)
		return 0;
	prev = hashmap_find(&d->read_values, id);
	if (!prev) {
		prev = calloc(1, sizeof(*prev));
		if (!prev)
			return -1;
		hashmap_insert(&d->read_values, id, prev);
	}
	one.sample.id = id;
	one.sample.period = value - *prev;
	*prev = value;
	if (!one.sample.period)
		return 0;
	if (kept)
		fprintf_sample_location(d, &one.sample);
	return d->next->deliver(d->next, &one);
}

static int deliver_read_sample(struct dump *d, struct event_ctx *ctx, bool kept)
{
	u64 fmt = ctx->evsel->attr.read_format;
	const u64 *r = ctx->sample.read;
	size_t k = 0, nr = 1;
	int ret = 0;

	if (fmt & PERF_FORMAT_GROUP)
		nr = r[k++];
	k += !!(fmt & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(fmt & PERF_FORMAT_TOTAL_TIME_RUNNING);
	for (size_t i = 0; i < nr && !ret; i++) {
		u64 value = r[k++], id = fmt & PERF_FORMAT_ID ? r[k++] : 0;

		k += !!(fmt & PERF_FORMAT_LOST);
		ret = deliver_read_value(d, ctx, id, value, kept);
	}
	return ret;
}

static int dump_deliver(struct event_consumer *consumer, struct event_ctx *ctx)
{
	struct dump *d = container_of(consumer, struct dump, consumer);
	const struct perf_event_header *event = ctx->event;
	bool kept;

	if (event->type >= PERF_RECORD_USER_TYPE_START)
		return d->next->deliver(d->next, ctx);
	dump_kernel_event(d, ctx);
	if (event->type != PERF_RECORD_SAMPLE)
		return d->next->deliver(d->next, ctx);
	kept = !d->keeps_sample || d->keeps_sample(d->next, ctx);
	/* a read sample's values are taken apart (their deltas kept) whether it is kept or not */
	if (ctx->evsel && (ctx->evsel->attr.sample_type & PERF_SAMPLE_READ) && ctx->sample.read)
		return deliver_read_sample(d, ctx, kept);
	if (kept)
		fprintf_sample_location(d, &ctx->sample);
	return d->next->deliver(d->next, ctx);
}

void dump__init(struct dump *d, struct perf_session *session, struct machine *machine,
		struct event_consumer *next, FILE *fp)
{
	memset(d, 0, sizeof(*d));
	d->consumer.deliver = dump_deliver;
	d->consumer.raw = dump_raw;
	d->next = next;
	d->session = session;
	d->machine = machine;
	d->fp = fp;
	hashmap_init(&d->paths);
	hashmap_init(&d->read_values);
}

void dump__exit(struct dump *d)
{
	u64 key;
	void *value;

	for (size_t i = 0; hashmap_next(&d->read_values, &i, &key, &value);)
		free(value);
	hashmap_exit(&d->read_values);
	hashmap_exit(&d->paths);
}
