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
#include "readers/reader.h"
#include "readers/swap.h"

#define READER_MAX_SIZE (2u * 1024 * 1024)	/* perf's round-robin quantum (session.c) */
#define BLOCK_RECORDS 1024			/* records per block of the first pass */

struct walk {
	struct perf_session *session;
	struct event_consumer *consumer;
	struct ordered_queue queue;
	int error;	/* -1 once error_get() holds a parse error */
};

static int deliver_one(struct walk *w, struct perf_event_header *event, u64 file_offset,
		       struct evsel *evsel)
{
	struct event_ctx ctx = { .event = event, .file_offset = file_offset };
	struct perf_session *s = w->session;

	if (event->type < PERF_RECORD_USER_TYPE_START) {
		ctx.evsel = evsel ? evsel : perf_session__evsel_of(s, event);
		if (!ctx.evsel) {
			error_set("%s: offset %#llx: %s record carries an id that matches no event",
				  s->path, (unsigned long long)file_offset,
				  perf_event__name(event->type));
			w->error = -1;
			return -1;
		}
		if (sample_parse(&ctx.evsel->attr, event, &ctx.sample)) {
			error_set("%s: offset %#llx: %s record of %u bytes is too short for its sample_type %#llx",
				  s->path, (unsigned long long)file_offset,
				  perf_event__name(event->type), event->size,
				  (unsigned long long)ctx.evsel->attr.sample_type);
			w->error = -1;
			return -1;
		}
	}
	return w->consumer->deliver(w->consumer, &ctx);
}

static int deliver_queued(void *data, struct ordered_entry *e)
{
	int ret = deliver_one(data, e->event, e->file_offset, e->evsel);

	chunk__put(e->owner);
	return ret;
}

static bool known_type(u32 type)
{
	return type && type < PERF_RECORD_HEADER_MAX &&
	       (type < PERF_RECORD_KERNEL_MAX || type >= PERF_RECORD_USER_TYPE_START);
}

/* Swap a record's body to native order; its header already is (the reader did it). */
static int swap_record(struct perf_session *s, struct perf_event_header *event, u64 offset)
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
		error_set("%s: offset %#llx: malformed %s record of %u bytes", s->path,
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
static int take_record(struct walk *w, struct reader_record *rec, const char *path)
{
	struct perf_session *s = w->session;
	struct perf_event_header *event = rec->event;

	if (!known_type(event->type)) {
		s->stats.nr_unknown_events++;
		return 0;
	}
	if (s->swap && swap_record(s, event, rec->file_offset))
		return -1;
	s->stats.nr_events[0]++;
	s->stats.nr_events[event->type]++;
	if (w->consumer->raw)
		w->consumer->raw(w->consumer, event, path, rec->file_offset);
	return 1;
}

/* The timestamp ordering uses: 0 or ~0 means "deliver now", as perf does. */
static u64 record_time(struct perf_session *s, const struct perf_event_header *event,
		       struct evsel **evsel)
{
	*evsel = NULL;
	if (event->type >= PERF_RECORD_USER_TYPE_START || !s->nr_evsels)
		return 0;
	*evsel = perf_session__evsel_of(s, event);
	if (!*evsel)
		return 0;	/* reported when delivered */
	return sample_time(&(*evsel)->attr, event);
}

static bool untimed(u64 ts)
{
	return ts == 0 || ts == (u64)-1;
}

/*
 * Keep the resident set bounded by the ordering window, not the file: pages before the
 * oldest record still queued are dropped (the mapping is private, so this only discards our
 * copies; nothing reads them again).
 */
static void release_pages(struct perf_session *s, const struct ordered_queue *q, u64 cur,
			  u64 *released)
{
	u64 keep = cur, page = (u64)sysconf(_SC_PAGESIZE);

	for (size_t i = q->head; i < q->nr; i++)
		keep = MIN(keep, q->entries[i].file_offset);
	keep &= ~(page - 1);
	if (keep <= *released || keep - *released < (8u << 20))
		return;
	madvise(s->base + *released, keep - *released, MADV_DONTNEED);
	*released = keep;
}

/* Pipe mode: the tracing data follows its record, outside header.size. */
static int skip_tracing_data(struct walk *w, struct reader *rd, struct reader_record *rec)
{
	u32 size;

	if (rec->event->size < sizeof(*rec->event) + sizeof(u32))
		return 0;
	memcpy(&size, rec->event + 1, sizeof(size));
	if (rd->swap)
		size = __builtin_bswap32(size);
	if (reader__skip(rd, ALIGN_UP((u64)size, 8))) {
		w->error = -1;
		return -1;
	}
	return 0;
}

/* One input read start to end: a file's data section or a pipe (perf's reader__process_events). */
static int walk_single(struct walk *w, struct reader *rd)
{
	struct perf_session *s = w->session;
	u64 page = (u64)sysconf(_SC_PAGESIZE);
	u64 released = s->base ? ALIGN_UP(s->header.data.offset, page) : 0;
	struct reader_record rec;
	int ret;

	if (s->base && s->header.data.size > released - s->header.data.offset)
		madvise(s->base + released, s->header.data.size - (released - s->header.data.offset),
			MADV_SEQUENTIAL);
	while ((ret = reader__next(rd, &rec)) > 0) {
		struct perf_event_header *event = rec.event;
		struct evsel *evsel;
		u64 ts;

		ret = take_record(w, &rec, s->is_pipe ? "pipe" : s->data_path);
		if (ret < 0)
			break;
		if (ret == 0)
			continue;
		switch (event->type) {
		case PERF_RECORD_FINISHED_ROUND:
			ret = ordered_queue_flush_round(&w->queue);
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
			ret = skip_tracing_data(w, rd, &rec);
			break;
		default:
			ret = 0;
			break;
		}
		if (ret)
			break;
		ts = record_time(s, event, &evsel);
		if (event->type >= PERF_RECORD_USER_TYPE_START || untimed(ts)) {
			ret = deliver_one(w, event, rec.file_offset, evsel);
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

/* ---- data directories ---- */

struct dir_reader {
	struct reader rd;
	const char *path;
	u8 *map;		/* data.N mapping (the main file uses the session's) */
	size_t map_size;
	u64 offset, size;	/* data region */
	/* first pass */
	u64 *block_min;		/* suffix minima: no record at or after block b is earlier */
	size_t nr_blocks;
	bool has_rounds;
	int error;
	/* merge */
	u64 seq, turn, turn_bytes;
	bool done;
};

static void dir_reader__start(struct dir_reader *d, bool swap)
{
	reader__exit(&d->rd);
	reader__init_map(&d->rd, d->path, d->map, d->offset, d->size, swap);
}

/* First pass over one file: the smallest timestamp of each block of records. */
static void scan_times(struct perf_session *s, struct dir_reader *d)
{
	struct reader_record rec;
	size_t alloc = 0;
	u64 n = 0, min = UINT64_MAX;
	int ret;

	dir_reader__start(d, false);
	while ((ret = reader__next(&d->rd, &rec)) > 0) {
		struct evsel *evsel;
		u64 ts;

		if (rec.event->type == PERF_RECORD_COMPRESSED || !known_type(rec.event->type))
			continue;
		if (rec.event->type == PERF_RECORD_FINISHED_ROUND)
			d->has_rounds = true;
		ts = record_time(s, rec.event, &evsel);
		if (untimed(ts))
			ts = 0;
		min = MIN(min, ts);
		if (++n % BLOCK_RECORDS == 0) {
			ARRAY_GROW(d->block_min, alloc, d->nr_blocks + 1);
			d->block_min[d->nr_blocks++] = min;
			min = UINT64_MAX;
		}
	}
	if (ret < 0)
		d->error = -1;
	ARRAY_GROW(d->block_min, alloc, d->nr_blocks + 1);
	d->block_min[d->nr_blocks++] = min;
	for (size_t b = d->nr_blocks - 1; b-- > 0;)
		d->block_min[b] = MIN(d->block_min[b], d->block_min[b + 1]);
}

struct scan_job {
	struct perf_session *s;
	struct dir_reader *readers;
	char errors[8][512];
};

static void scan_one(size_t i, void *arg)
{
	struct scan_job *job = arg;

	scan_times(job->s, &job->readers[i]);
	if (job->readers[i].error && i < ARRAY_SIZE(job->errors))
		snprintf(job->errors[i], sizeof(job->errors[i]), "%s", error_get());
}

/* A record read but not yet delivered, keyed as perf would order it. */
struct merge_entry {
	u64 ts;		/* 0 for untimed records: perf delivers those as they are read */
	u64 turn;	/* perf's round-robin turn in which the record was read */
	u64 seq;	/* position in its file */
	u32 reader;
	u64 file_offset;
	struct perf_event_header *event;
	struct chunk *chunk;
	struct evsel *evsel;
};

static bool key_less(u64 ts, u64 turn, u32 reader, u64 seq, const struct merge_entry *b)
{
	if (ts != b->ts)
		return ts < b->ts;
	if (turn != b->turn)
		return turn < b->turn;
	if (reader != b->reader)
		return reader < b->reader;
	return seq < b->seq;
}

static bool entry_less(const struct merge_entry *a, const struct merge_entry *b)
{
	return key_less(a->ts, a->turn, a->reader, a->seq, b);
}

struct heap {
	struct merge_entry *e;
	size_t nr, alloc;
};

static void heap_push(struct heap *h, const struct merge_entry *x)
{
	size_t i;

	ARRAY_GROW(h->e, h->alloc, h->nr + 1);
	i = h->nr++;
	while (i && entry_less(x, &h->e[(i - 1) / 2])) {
		h->e[i] = h->e[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->e[i] = *x;
}

static struct merge_entry heap_pop(struct heap *h)
{
	struct merge_entry top = h->e[0], last = h->e[--h->nr];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= h->nr)
			break;
		if (c + 1 < h->nr && entry_less(&h->e[c + 1], &h->e[c]))
			c++;
		if (!entry_less(&h->e[c], &last))
			break;
		h->e[i] = h->e[c];
		i = c;
	}
	if (h->nr)
		h->e[i] = last;
	return top;
}

/* Smallest timestamp any unread record of d can have. */
static u64 frontier(const struct dir_reader *d)
{
	size_t b;

	if (d->done)
		return UINT64_MAX;
	b = d->seq / BLOCK_RECORDS;
	return b < d->nr_blocks ? d->block_min[b] : UINT64_MAX;
}

/*
 * perf reads 2 MB of a file's records per turn (counting the bytes in the file: a COMPRESSED
 * record, not what it inflates to) and ends a turn only after the records inflated from the
 * last COMPRESSED record. Returns true when the turn ends after rec.
 */
static bool end_turn(struct dir_reader *d, const struct reader_record *rec)
{
	if (!rec->inflated)
		d->turn_bytes += rec->event->size;
	if (d->turn_bytes < READER_MAX_SIZE || reader__pending_inflated(&d->rd))
		return false;
	d->turn_bytes = 0;
	d->turn++;
	return true;
}

/* Read one record of reader r into the heap, accounting perf's round-robin turns. */
static int merge_read(struct walk *w, struct dir_reader *readers, u32 r, struct heap *h)
{
	struct dir_reader *d = &readers[r];
	struct reader_record rec;
	struct merge_entry e;
	int ret = reader__next(&d->rd, &rec);

	if (ret <= 0) {
		d->done = true;
		return ret;
	}
	e = (struct merge_entry){ .turn = d->turn, .seq = d->seq, .reader = r,
				  .file_offset = rec.file_offset, .event = rec.event };
	end_turn(d, &rec);
	if (rec.event->type != PERF_RECORD_COMPRESSED && known_type(rec.event->type))
		d->seq++;
	ret = take_record(w, &rec, d->path);
	if (ret <= 0)
		goto next_turn;
	e.ts = record_time(w->session, rec.event, &e.evsel);
	if (untimed(e.ts))
		e.ts = 0;
	e.chunk = rec.chunk;
	chunk__get(e.chunk);
	heap_push(h, &e);
	ret = 0;
next_turn:
	return ret < 0 ? -1 : 0;
}

static int walk_dir_merge(struct walk *w, struct dir_reader *readers, u32 nr)
{
	struct heap h = { 0 };
	int ret = 0;

	for (;;) {
		u64 fmin = UINT64_MAX;
		u32 next = nr;
		bool safe;

		for (u32 r = 0; r < nr; r++) {
			u64 f = frontier(&readers[r]);

			if (f < fmin || next == nr) {
				if (!readers[r].done && (f < fmin || next == nr)) {
					fmin = f;
					next = r;
				}
			}
		}
		safe = false;
		if (h.nr) {
			const struct merge_entry *top = &h.e[0];

			safe = top->ts < fmin || next == nr;
			if (!safe && top->ts == fmin) {
				safe = true;
				for (u32 r = 0; r < nr && safe; r++) {
					const struct dir_reader *d = &readers[r];

					if (frontier(d) == top->ts &&
					    !key_less(top->ts, top->turn, top->reader, top->seq,
						      &(struct merge_entry){ .ts = top->ts, .turn = d->turn,
									     .reader = r, .seq = d->seq }))
						safe = false;
				}
			}
		}
		if (safe) {
			struct merge_entry e = heap_pop(&h);

			ret = deliver_one(w, e.event, e.file_offset, e.evsel);
			chunk__put(e.chunk);
			if (ret)
				break;
			continue;
		}
		if (next == nr)
			break;
		ret = merge_read(w, readers, next, &h);
		if (ret)
			break;
	}
	while (h.nr)
		chunk__put(heap_pop(&h).chunk);
	free(h.e);
	return ret;
}

/* perf's own reading order (for -D): round-robin 2 MB turns into the ordered queue. */
static int walk_dir_round_robin(struct walk *w, struct dir_reader *readers, u32 nr)
{
	u32 active = nr, i = 0;
	int ret = 0;

	while (active) {
		struct dir_reader *d = &readers[i];
		struct reader_record rec;
		struct evsel *evsel;
		bool switch_reader;
		u64 ts;

		if (d->done) {
			i = (i + 1) % nr;
			continue;
		}
		ret = reader__next(&d->rd, &rec);
		if (ret < 0)
			break;
		if (ret == 0) {
			d->done = true;
			active--;
			continue;
		}
		switch_reader = end_turn(d, &rec);
		ret = take_record(w, &rec, d->path);
		if (ret < 0)
			break;
		if (ret > 0) {
			ret = 0;
			if (rec.event->type == PERF_RECORD_FINISHED_ROUND)
				ret = ordered_queue_flush_round(&w->queue);
			ts = record_time(w->session, rec.event, &evsel);
			if (!ret && (rec.event->type >= PERF_RECORD_USER_TYPE_START || untimed(ts))) {
				ret = deliver_one(w, rec.event, rec.file_offset, evsel);
			} else if (!ret) {
				chunk__get(rec.chunk);
				ordered_queue_push(&w->queue, ts, rec.event, rec.file_offset);
				w->queue.entries[w->queue.nr - 1].owner = rec.chunk;
				w->queue.entries[w->queue.nr - 1].evsel = evsel;
			}
			if (ret)
				break;
		}
		if (switch_reader)
			i = (i + 1) % nr;
	}
	return ret < 0 ? -1 : ret;
}

static int walk_dir(struct walk *w)
{
	struct perf_session *s = w->session;
	u32 nr = 1;
	struct dir_reader *readers = xcalloc(s->nr_dir_files + 1, sizeof(*readers));
	int ret = -1;

	readers[0] = (struct dir_reader){ .path = s->data_path, .map = s->base,
					  .offset = s->header.data.offset,
					  .size = s->header.data.size };
	for (size_t i = 0; i < s->nr_dir_files; i++) {
		struct dir_reader *d = &readers[nr];
		int fd;

		if (!s->dir_files[i].size)
			continue;
		d->path = s->dir_files[i].path;
		fd = open(d->path, O_RDONLY);
		if (fd < 0) {
			error_set("%s: %s", d->path, strerror(errno));
			goto out;
		}
		d->map_size = s->dir_files[i].size;
		d->map = mmap(NULL, d->map_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
		close(fd);
		if (d->map == MAP_FAILED) {
			d->map = NULL;
			error_set("%s: cannot map the file: %s", d->path, strerror(errno));
			goto out;
		}
		d->size = d->map_size;
		nr++;
	}
	if (w->consumer->raw) {
		for (u32 r = 0; r < nr; r++)
			dir_reader__start(&readers[r], s->swap);
		ret = walk_dir_round_robin(w, readers, nr);
	} else {
		struct scan_job job = { .s = s, .readers = readers };
		bool rounds = false;

		for (u32 r = 0; r < nr; r++)
			scan_one(r, &job);
		for (u32 r = 0; r < nr; r++) {
			if (readers[r].error) {
				error_set("%s", r < ARRAY_SIZE(job.errors) ? job.errors[r]
								   : "a data file is damaged");
				goto out;
			}
			rounds |= readers[r].has_rounds;
			dir_reader__start(&readers[r], s->swap);
		}
		/* files with FINISHED_ROUND are not what perf's directory reader assumes */
		ret = rounds ? walk_dir_round_robin(w, readers, nr) : walk_dir_merge(w, readers, nr);
	}
out:
	for (u32 r = 0; r < nr; r++) {
		reader__exit(&readers[r].rd);
		free(readers[r].block_min);
		if (r && readers[r].map)
			munmap(readers[r].map, readers[r].map_size);
	}
	free(readers);
	if (ret < 0 && !w->error)
		w->error = -1;
	return ret;
}

int perf_session__process(struct perf_session *s, struct event_consumer *consumer)
{
	struct walk w = { .session = s, .consumer = consumer };
	struct reader rd = { 0 };
	int ret;

	ordered_queue_init(&w.queue, deliver_queued, &w);
	if (s->is_dir) {
		ret = walk_dir(&w);
	} else {
		if (s->is_pipe)
			reader__init_fd(&rd, s->path, s->pipe_fd, PERF_PIPE_HEADER_SIZE, s->swap);
		else
			reader__init_map(&rd, s->data_path, s->base, s->header.data.offset,
					 s->header.data.size, s->swap);
		ret = walk_single(&w, &rd);
	}
	if (!ret)
		ret = ordered_queue_flush_all(&w.queue);
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
	ev->nr_ids = (len - sz) / sizeof(u64);
	ev->ids_owned = xmalloc(ev->nr_ids * sizeof(u64) + 1);
	memcpy(ev->ids_owned, body + sz, ev->nr_ids * sizeof(u64));
	ev->ids = ev->ids_owned;
	ev->idx = (int)s->nr_evsels;
	for (size_t k = 0; k < ev->nr_ids; k++) {
		if (ev->ids[k] < SMALL_IDS)
			s->small_ids[ev->ids[k]] = ev;
		else
			hashmap_insert(&s->id_map, ev->ids[k], ev);
	}
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
