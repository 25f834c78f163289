/*
 * process: the walk over a session's records in the order perf 6.1 delivers them.
 *  - a file or a pipe: one reader; records with a timestamp wait in perf's ordered queue
 *    and leave it at FINISHED_ROUND flushes; the rest are delivered as they are read.
 *  - a --threads directory: perf reads its files round-robin, 2 MB of records at a time, and,
 *    as such files carry no FINISHED_ROUND, delivers the untimed records as read and all
 *    others sorted by time at the end (ties in reading order). We give the same order with
 *    bounded memory: a first pass (in parallel, one file per worker) notes the smallest
 *    timestamp of every block of records, and the merge then delivers a record as soon as no
 *    unread record anywhere can come before it. With a raw-record hook (-D) the files are
 *    read in perf's own round-robin order instead, so the dump lines come out as perf's do.
 */
#include "readers/session.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/xalloc.h"
#include "readers/order.h"
#include "readers/prefault.h"
#include "readers/reader.h"
#include "readers/decode/swap.h"
#include "readers/walk.h"



/*
 * Fill ctx for a kernel record: its evsel and its parsed sample fields (check_only: the
 * sample is left unset, the record only checked). 0, or -1 (error).
 */
static int walk__parse(struct walk *w, struct event_ctx *ctx, struct evsel *evsel,
		       bool check_only)
{
	struct perf_session *s = w->session;
	const struct perf_event_header *event = ctx->event;
	const char *path = w->path ? w->path : s->path;
	int ret;

	ctx->evsel = evsel ? evsel : perf_session__evsel_of(s, event);
	if (!ctx->evsel) {
		error_set("%s: offset %#llx: %s record carries an id that matches no event",
			  path, (unsigned long long)ctx->file_offset,
			  perf_event__name(event->type));
		w->error = -1;
		return -1;
	}
	ret = check_only ? sample_layout_check(&ctx->evsel->layout, &ctx->evsel->attr, event)
			 : sample_parse(&ctx->evsel->attr, event, &ctx->sample);
	if (ret == SAMPLE_BAD_STACK) {
		/* perf: "user stack dump failure", then "Can't parse sample, err = -14" */
		error_set("%s: offset %#llx: sample's user stack dump claims more bytes than it holds",
			  path, (unsigned long long)ctx->file_offset);
		w->error = -1;
		return -1;
	}
	if (ret) {
		error_set("%s: offset %#llx: %s record of %u bytes is too short for its sample_type %#llx",
			  path, (unsigned long long)ctx->file_offset,
			  perf_event__name(event->type), event->size,
			  (unsigned long long)ctx->evsel->attr.sample_type);
		w->error = -1;
		return -1;
	}
	return 0;
}

int walk__deliver(struct walk *w, struct perf_event_header *event, u64 file_offset,
		       struct evsel *evsel)
{
	struct event_ctx ctx;

	/* the sample is filled below (sample_parse clears it first): no need to clear it twice */
	ctx.event = event;
	ctx.file_offset = file_offset;
	ctx.evsel = NULL;
	if (event->type >= PERF_RECORD_USER_TYPE_START)
		memset(&ctx.sample, 0, sizeof(ctx.sample));
	else if (walk__parse(w, &ctx, evsel, false))
		return -1;
	return w->consumer->deliver(w->consumer, &ctx);
}

int walk__check(struct walk *w, struct perf_event_header *event, u64 file_offset,
		struct evsel *evsel)
{
	struct event_ctx ctx;	/* its sample stays unset: not cleared either */

	ctx.event = event;
	ctx.file_offset = file_offset;
	return walk__parse(w, &ctx, evsel, true);
}

int walk__deliver_queued(void *data, struct ordered_entry *e)
{
	struct walk *w = data;
	int ret = walk__deliver(w, e->event, e->file_offset, e->evsel);

	w->queue.prefetch_stages = MIN(w->consumer->prefetch_stages, ORDERED_PREFETCH_STAGES);
	chunk__put(e->owner);
	return ret;
}

static void walk__prefetch_queued(void *data, const struct ordered_entry *e, int stage)
{
	struct walk *w = data;

	w->consumer->prefetch(w->consumer, e->event, e->evsel, stage);
}

bool walk__known_type(u32 type)
{
	return type && type < PERF_RECORD_HEADER_MAX &&
	       (type < PERF_RECORD_KERNEL_MAX || type >= PERF_RECORD_USER_TYPE_START);
}

/* Swap a record's body to native order; its header already is (the reader did it). */
static int swap_record(struct perf_session *s, struct perf_event_header *event, u64 offset,
		       const char *path)
{
	const struct perf_event_attr *attr = NULL;

	if (event->type < PERF_RECORD_USER_TYPE_START && s->nr_evsels) {
		/* find the attr from the id while the body is still foreign-endian */
		u64 *words = (u64 *)(event + 1);
		size_t nr_words = (event->size - sizeof(*event)) / sizeof(u64);
		struct evsel *ev = &s->evsels[0];
		u64 id;

		if (s->nr_evsels == 1) {
			ev = &s->evsels[0];
		} else if (event->type == PERF_RECORD_SAMPLE && s->id_pos >= 0 &&
			   (size_t)s->id_pos < nr_words) {
			id = __builtin_bswap64(words[s->id_pos]);
			ev = id ? perf_session__evsel_by_id(s, id) : ev;
		} else if (event->type != PERF_RECORD_SAMPLE && s->evsels[0].attr.sample_id_all &&
			   s->is_pos >= 0 && (size_t)s->is_pos <= nr_words) {
			id = __builtin_bswap64(words[nr_words - s->is_pos]);
			ev = id ? perf_session__evsel_by_id(s, id) : ev;
		}
		attr = ev ? &ev->attr : NULL;
	}
	if (swap_event_body(event, attr, true)) {
		error_set("%s: offset %#llx: malformed %s record of %u bytes", path,
			  (unsigned long long)offset, perf_event__name(event->type), event->size);
		return -1;
	}
	return 0;
}

/*
 * What every record goes through as it is read: unknown types are skipped and counted, the
 * body is swapped, the record counted and shown to the raw hook. Returns 1 to go on with it,
 * 0 to skip it, -1 on error.
 */
int walk__take_record(struct walk *w, struct reader_record *rec, const char *path)
{
	struct perf_session *s = w->session;
	struct perf_event_header *event = rec->event;

	if (!walk__known_type(event->type)) {
		s->stats.nr_unknown_events++;
		return 0;
	}
	if (s->swap && swap_record(s, event, rec->file_offset, path))
		return -1;
	s->stats.nr_events[0]++;
	s->stats.nr_events[event->type]++;
	if (w->consumer->raw)
		w->consumer->raw(w->consumer, event, path, rec->file_offset);
	return 1;
}

/* The timestamp ordering uses: 0 or ~0 means "deliver now", as perf does. */
u64 walk__record_time(struct perf_session *s, const struct perf_event_header *event,
		       struct evsel **evsel)
{
	*evsel = NULL;
	if (event->type >= PERF_RECORD_USER_TYPE_START || !s->nr_evsels)
		return 0;
	*evsel = perf_session__evsel_of(s, event);
	if (!*evsel)
		return 0;	/* reported when delivered */
	return sample_layout_time(&(*evsel)->layout, event);
}


/*
 * Keep the resident set bounded by the ordering window, not the file: pages before the
 * oldest record still queued are dropped (the mapping is private, so this only discards our
 * copies; nothing reads them again).
 */
#define SMALL_FILE (64ull << 20)

static void release_pages(struct perf_session *s, const struct ordered_queue *q, u64 cur,
			  u64 *released)
{
	/* a small file's blocks are small too: its few splits cost less than its peak RSS */
	const u64 huge = s->size < SMALL_FILE ? 256u << 10 : 2u << 20;
	u64 keep = cur;

	for (size_t i = q->head; i < q->nr; i++)
		keep = MIN(keep, q->entries[i].file_offset);
	/*
	 * Up to a 2 MB boundary of the address space: the kernel maps a file's large folios
	 * with 2 MB entries, and dropping part of one splits it first (expensive, and a TLB
	 * flush on every CPU the process ran on). Under SMALL_FILE, 256 KB.
	 */
	keep = ((uintptr_t)s->base + keep) / huge * huge - (uintptr_t)s->base;
	if (keep <= *released || keep - *released < huge)
		return;
	madvise(s->base + *released, keep - *released, MADV_DONTNEED);
	*released = keep;
}

static void release_all(struct perf_session *s)
{
	u64 page = (u64)sysconf(_SC_PAGESIZE), start = ALIGN_UP(s->header.data.offset, page);
	u64 end = MIN(s->header.data.offset + s->header.data.size, s->size);

	if (end > start)
		madvise(s->base + start, end - start, MADV_DONTNEED);
}

/*
 * Pipe mode: the tracing data follows its record, outside header.size, padded to 8 bytes. It
 * is kept for the consumers (perf_session__tracing_data); the last one counts, as in perf.
 */
static int read_tracing_data(struct walk *w, struct reader *rd, struct reader_record *rec)
{
	struct perf_session *s = w->session;
	u64 padded;
	u32 size;

	if (rec->event->size < sizeof(*rec->event) + sizeof(u32))
		return 0;
	memcpy(&size, rec->event + 1, sizeof(size));
	if (rd->swap)
		size = __builtin_bswap32(size);
	padded = ALIGN_UP((u64)size, 8);
	free(s->tracing_data);
	s->tracing_data = NULL;
	s->tracing_data_size = 0;
	s->tracing_data_offset = rd->pos;
	/* grown as the bytes come: the size is the input's word, not a bound */
	for (u64 have = 0, alloc = 0; have < padded;) {
		u64 step = MIN(padded - have, (u64)1 << 20);

		if (have + step > alloc) {
			alloc = MIN(padded, MAX(alloc * 2, have + step));
			s->tracing_data = xrealloc(s->tracing_data, alloc + 1);
		}
		if (reader__read(rd, s->tracing_data + have, step)) {
			free(s->tracing_data);
			s->tracing_data = NULL;
			w->error = -1;
			return -1;
		}
		have += step;
	}
	s->tracing_data_size = size;
	perf_session__name_tracepoints(s);
	return 0;
}

/*
 * The fast path for runs of records the consumer ignores (tasks: the mmaps and samples), read
 * straight from the mapping: each gets what walk__take_record, walk__record_time and
 * walk__check give it (the counts, the check, the time noted for the round flushes) without
 * their calls and their second lookup of the attr. Stops, leaving rd->pos there, at the first
 * record the full path must take: one not ignored, unknown, malformed, or out of line.
 * The queue's time bounds stay in locals while the loop runs; the pages behind it are
 * released every 2 MB
 * (between two rounds a run can span the whole file: tasks reads nothing else).
 */
/*
 * One attr whose samples have a fixed size: each record's check and time are a size and an
 * offset, worked out once (sample_layout_check's and sample_layout_time's answers, for every
 * record that passes the size check: a sample's time word is one of its fixed words, a
 * trailer's within the trailer). min_size[1], time_at[1]: samples'; [0]: other records'
 * (time_at[0] counted back from the end of the record's last whole u64); -1: untimed.
 */
struct skip_plan {
	bool simple;
	u32 min_size[2];
	s32 time_at[2];
};

static struct skip_plan skip_plan(const struct perf_session *s)
{
	const struct sample_layout *l = &s->evsels[0].layout;
	struct skip_plan p = { .simple = s->nr_evsels == 1 && l->fixed_words != FIXED_VARIABLE };

	p.min_size[1] = sizeof(struct perf_event_header) + l->fixed_words * sizeof(u64);
	p.time_at[1] = l->time_word < 0 ? -1 : (s32)(8 + l->time_word * 8);
	p.min_size[0] = sizeof(struct perf_event_header) + l->trailer_words * sizeof(u64);
	p.time_at[0] = l->trailer_time_word < 0 ? -1
					       : (s32)((l->trailer_words - l->trailer_time_word) * 8);
	return p;
}

static void skip_ignored(struct walk *w, struct reader *rd, u64 *released)
{
	struct perf_session *s = w->session;
	struct ordered_queue *q = &w->queue;
	const u64 ignores = w->consumer->ignores, end = rd->end, last_flush = q->last_flush;
	const bool queue_empty = q->nr == q->head;
	const struct skip_plan plan = skip_plan(s);
	u64 pos = rd->pos, max_ts = q->max_timestamp, nr_unordered = 0, nr = 0;
	const u8 *map = rd->map;

	for (;;) {
		/* pause at each 2 MB of the mapping to release what is behind */
		u64 pause = s->base ? ALIGN_UP((uintptr_t)map + pos + 1, 2u << 20) - (uintptr_t)map
				    : end;

		while (pos < pause && end - pos >= sizeof(struct perf_event_header)) {
			const struct perf_event_header *h;
			u64 ts = 0;

			h = (const void *)(map + pos);
			if ((pos & 7) || h->type == 0 || h->type >= PERF_RECORD_KERNEL_MAX ||
			    !(ignores >> h->type & 1) || h->size < sizeof(*h) || h->size > end - pos)
				goto out;
			/* the loop waits on each record's trailer: ask for the lines 2 KB on early */
			__builtin_prefetch((const u8 *)h + 2048);
			__builtin_prefetch((const u8 *)h + 2048 + 64);
			if (plan.simple) {
				bool sample = h->type == PERF_RECORD_SAMPLE;
				s32 at = plan.time_at[sample];

				if (h->size < plan.min_size[sample])
					goto out;
				if (at >= 0) {
					if (!sample)
						at = (s32)((h->size & ~7u) - (u32)at);
					memcpy(&ts, (const u8 *)h + at, sizeof(ts));
				}
			} else {
				struct evsel *evsel = perf_session__evsel_of(s, h);

				if (!evsel || sample_layout_check(&evsel->layout, &evsel->attr, h))
					goto out;
				ts = sample_layout_time(&evsel->layout, h);
			}
			if (!sample_time_untimed(ts)) {	/* ordered_queue_note's */
				nr_unordered += ts < last_flush;
				if (queue_empty || ts >= max_ts)
					max_ts = ts;
			}
			s->stats.nr_events[h->type]++;
			nr++;
			pos += h->size;
		}
		if (pos < pause)
			break;
		prefault__advance(w->prefault, pos);
		release_pages(s, q, pos, released);
		rd->pos = pos;
		reader__publish(rd, false);
	}
out:
	q->max_timestamp = max_ts;
	q->nr_unordered += nr_unordered;
	s->stats.nr_events[0] += nr;
	rd->pos = pos;
}

/* One input read start to end: a file's data section or a pipe (perf's reader__process_events). */
static int walk_single(struct walk *w, struct reader *rd)
{
	struct perf_session *s = w->session;
	u64 page = (u64)sysconf(_SC_PAGESIZE);
	u64 released = s->base ? ALIGN_UP(s->header.data.offset, page) : 0;
	struct reader_record rec;
	bool fast = !rd->stream && !rd->swap && !w->consumer->raw && w->consumer->ignores &&
		    s->nr_evsels;
	int ret;

	if (s->base && s->header.data.size > released - s->header.data.offset)
		madvise(s->base + released, s->header.data.size - (released - s->header.data.offset),
			MADV_SEQUENTIAL);

	for (;;) {
		struct perf_event_header *event;
		struct evsel *evsel;
		u64 ts;

		if (fast && !reader__pending_inflated(rd))
			skip_ignored(w, rd, &released);
		ret = reader__next(rd, &rec);
		if (ret <= 0)
			break;
		event = rec.event;
		ret = walk__take_record(w, &rec, s->is_pipe ? "pipe" : s->data_path);
		if (ret < 0)
			break;
		if (ret == 0)
			continue;
		switch (event->type) {
		case PERF_RECORD_FINISHED_ROUND:
			ret = ordered_queue_flush_round(&w->queue);
			prefault__advance(w->prefault, rec.file_offset);
			if (s->base)
				release_pages(s, &w->queue, rec.file_offset, &released);
			break;
		case PERF_RECORD_HEADER_ATTR:
			ret = s->is_pipe ? perf_session__add_attr(s, event, rec.file_offset) : 0;
			break;
		case PERF_RECORD_HEADER_FEATURE:
			ret = s->is_pipe ? perf_session__add_feature(s, event, rec.file_offset) : 0;
			break;
		case PERF_RECORD_HEADER_TRACING_DATA:
			ret = read_tracing_data(w, rd, &rec);
			break;
		default:
			ret = 0;
			break;
		}
		if (ret)
			break;
		ts = walk__record_time(s, event, &evsel);
		if (walk__ignores(w, event)) {
			ret = walk__check(w, event, rec.file_offset, evsel);
			if (!sample_time_untimed(ts))
				ordered_queue_note(&w->queue, ts);
		} else if (event->type >= PERF_RECORD_USER_TYPE_START || sample_time_untimed(ts) ||
			   w->consumer->unordered) {
			ret = walk__deliver(w, event, rec.file_offset, evsel);
		} else {
			chunk__get(rec.chunk);
			ordered_queue_push(&w->queue, ts, event, rec.file_offset);
			w->queue.entries[w->queue.nr - 1].owner = rec.chunk;
			w->queue.entries[w->queue.nr - 1].evsel = evsel;
		}
		if (ret)
			break;
	}
	if (ret < 0 && !w->error)
		w->error = -1;
	return ret;
}

int perf_session__process(struct perf_session *s, struct event_consumer *consumer)
{
	struct walk w = { .session = s, .consumer = consumer };
	struct reader rd = { 0 };
	int ret;

	ordered_queue_init(&w.queue, walk__deliver_queued, &w);
	if (consumer->prefetch) {
		w.queue.prefetch = walk__prefetch_queued;
		w.queue.prefetch_stages = MIN(consumer->prefetch_stages, ORDERED_PREFETCH_STAGES);
	}
	if (s->is_dir) {
		ret = walk_dir(&w);
	} else {
		if (s->is_pipe)
			reader__init_fd(&rd, s->path, s->pipe_fd, PERF_PIPE_HEADER_SIZE, s->swap);
		else
			reader__init_map(&rd, s->data_path, s->base, s->header.data.offset,
					 s->header.data.size, s->swap);
		if (s->prefault && s->base)
			w.prefault = prefault__start(s->base, s->header.data.offset,
						     MIN(s->header.data.offset + s->header.data.size,
							 s->size));
		ret = walk_single(&w, &rd);
		prefault__stop(w.prefault);
	}
	if (!ret)
		ret = ordered_queue_flush_all(&w.queue);
	/*
	 * Every record delivered: the rest of the data section's pages go too, as release_pages
	 * drops them along the way (output that follows would otherwise count them in the peak).
	 * Not for a byte-swapped file, whose pages hold what was swapped in place.
	 */
	if (!s->is_dir && s->base && !s->swap)
		release_all(s);
	s->stats.nr_unordered_events = w.queue.nr_unordered;
	for (size_t i = w.queue.head; i < w.queue.nr; i++)
		chunk__put(w.queue.entries[i].owner);
	ordered_queue_exit(&w.queue);
	reader__exit(&rd);
	if (w.error)
		return -1;
	return ret < 0 ? -1 : ret;
}

/* ---- pipe mode: the session described by records ---- */

int perf_session__add_attr(struct perf_session *s, const struct perf_event_header *event,
			   u64 offset)
{
	const u8 *body = (const u8 *)(event + 1);
	size_t len = event->size - sizeof(*event);
	struct evsel *ev;
	u32 sz;

	if (len < PERF_ATTR_SIZE_VER0)
		goto bad;
	memcpy(&sz, body + offsetof(struct perf_event_attr, size), sizeof(sz));
	if (sz == 0)
		sz = PERF_ATTR_SIZE_VER0;
	if (sz < PERF_ATTR_SIZE_VER0 || sz > len || (len - sz) % sizeof(u64))
		goto bad;
	if (s->nr_evsels == MAX_PIPE_EVSELS) {
		error_set("%s: offset %#llx: more than %d event attributes", s->path,
			  (unsigned long long)offset, MAX_PIPE_EVSELS);
		return -1;
	}
	ev = &s->evsels[s->nr_evsels];
	memcpy(&ev->attr, body, MIN((size_t)sz, sizeof(ev->attr)));
	ev->attr.size = sz;
	sample_layout_init(&ev->layout, &ev->attr);
	ev->nr_ids = (len - sz) / sizeof(u64);
	ev->ids_owned = xmalloc(ev->nr_ids * sizeof(u64) + 1);
	memcpy(ev->ids_owned, body + sz, ev->nr_ids * sizeof(u64));
	ev->ids = ev->ids_owned;
	ev->idx = (int)s->nr_evsels;
	for (size_t k = 0; k < ev->nr_ids; k++)
		perf_session__register_id(s, ev->ids[k], ev);
	if (!s->nr_evsels) {
		s->id_pos = sample_id_pos(ev->attr.sample_type);
		s->is_pos = sample_is_pos(ev->attr.sample_type);
	}
	s->nr_evsels++;
	return 0;
bad:
	error_set("%s: offset %#llx: malformed HEADER_ATTR record of %u bytes", s->path,
		  (unsigned long long)offset, event->size);
	return -1;
}

int perf_session__add_feature(struct perf_session *s, const struct perf_event_header *event,
			      u64 offset)
{
	u64 feat;
	size_t len;

	if (event->size < sizeof(*event) + sizeof(u64)) {
		error_set("%s: offset %#llx: malformed FEATURE record", s->path,
			  (unsigned long long)offset);
		return -1;
	}
	memcpy(&feat, event + 1, sizeof(feat));
	if (feat == 0 || feat >= HEADER_FEAT_BITS)
		return 0;	/* perf ignores features it does not know */
	len = event->size - sizeof(*event) - sizeof(u64);
	free(s->feat_copy[feat]);
	s->feat_copy[feat] = xmalloc(len + 1);
	memcpy(s->feat_copy[feat], (const u8 *)(event + 1) + sizeof(u64), len);
	s->feat[feat] = (struct perf_file_section){ .offset = 0, .size = len };
	s->header.adds_features[feat / 64] |= 1ULL << (feat % 64);
	if (feat == HEADER_EVENT_DESC)
		perf_session__read_event_names(s);
	return 0;
}

u64 perf_session__kernel_text(struct perf_session *s)
{
	struct reader rd;
	struct reader_record rec;
	u64 pgoff = 0;

	if (!s->base || s->swap)
		return 0;
	reader__init_map(&rd, s->data_path, s->base, s->header.data.offset, s->header.data.size,
			 false);
	for (int n = 0; n < 256 && reader__next(&rd, &rec) > 0; n++) {
		const struct perf_event_header *ev = rec.event;
		u8 cpumode = ev->misc & PERF_RECORD_MISC_CPUMODE_MASK;
		const char *name;
		u64 off;

		if (cpumode != PERF_RECORD_MISC_KERNEL)
			continue;
		if (ev->type == PERF_RECORD_MMAP && ev->size > sizeof(struct perf_record_mmap)) {
			name = ((const struct perf_record_mmap *)ev)->filename;
			off = ((const struct perf_record_mmap *)ev)->pgoff;
		} else if (ev->type == PERF_RECORD_MMAP2 &&
			   ev->size > sizeof(struct perf_record_mmap2)) {
			name = ((const struct perf_record_mmap2 *)ev)->filename;
			off = ((const struct perf_record_mmap2 *)ev)->pgoff;
		} else {
			continue;
		}
		/* the name need not end inside the record: compare only what is there */
		if ((const char *)ev + ev->size - name >= 17 &&
		    !memcmp(name, "[kernel.kallsyms]", 17)) {
			pgoff = off;
			break;
		}
	}
	reader__exit(&rd);
	return pgoff;
}
