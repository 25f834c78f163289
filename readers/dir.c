/*
 * dir: a perf record --threads directory, in perf 6.1's delivery order with bounded memory.
 *
 * perf reads the files round-robin, 2 MB of records per turn, into one ordered queue; the
 * files carry no FINISHED_ROUND, so untimed records are delivered as they are read and every
 * other record at the end, sorted by time, ties in reading order. The same order comes out of
 * a merge: a first pass (one file per worker) notes the smallest timestamp of each block of
 * records; then each file is read again in batches, on the workqueue, ahead of the merge,
 * which delivers a record as soon as no unread record anywhere can come before it (its key:
 * time, then perf's turn, file and position). With a raw-record hook (-D) the files are read
 * in perf's own round-robin order through the ordered queue instead, so dump lines come out
 * where perf prints them.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/workqueue.h"
#include "lib/xalloc.h"
#include "readers/dir_files.h"
#include "readers/walk.h"

#define BLOCK_RECORDS 64			/* records per block of the first pass */
#define BATCH_RECORDS 4096			/* records a worker reads ahead per batch */
#define AHEAD_BATCHES 2				/* batches read ahead per file */

/* A record read but not yet delivered, keyed as perf would order it. */
struct merge_entry {
	u64 ts;		/* 0 for untimed records: perf delivers those as they are read */
	u64 turn;	/* perf's round-robin turn in which the record was read */
	u64 seq;	/* position in its file */
	u32 reader;
	u64 file_offset;
	struct perf_event_header *event;
	struct evsel *evsel;
};

/*
 * A batch of one file's records, sorted by their key by the worker that read them: a run
 * of the merge. Batches are recycled through their reader's free list.
 */
struct batch {
	struct merge_entry *e, *tmp;
	size_t nr, alloc, pos;
	struct chunk **chunks;	/* one reference to each buffer its records lie in */
	size_t nr_chunks, alloc_chunks;
	u64 end_seq, end_turn;	/* where the file's next batch starts */
	u64 nr_unknown;	/* skipped records of unknown types */
	u64 nr_compressed;	/* COMPRESSED records read (counted, never delivered) */
	bool last;	/* nothing follows in the file */
	bool error;
	char msg[256];	/* error_get() of the worker (it is thread-local) */
	struct batch *next;	/* free list */
};

struct merge;

struct dir_reader {
	struct dir_file f;	/* first: walk_dir's readers are an array of them */
	/* first pass */
	u64 *block_min;		/* suffix minima: no record at or after block b is earlier */
	size_t nr_blocks;
	bool has_rounds;
	bool error;
	char msg[256];
	/* merging (the consumer's side) */
	/* guarded by merge->lock: */
	struct batch *ready, **ready_tail;	/* read ahead, not yet merged, in file order */
	u32 nr_ready;
	bool reading;		/* a thread is reading batches ahead */
	bool read_all;		/* the file's last batch has been read */
	bool work_queued;	/* work is on the workqueue: it reads ahead when it runs */
	struct batch *free;
	struct work work;
	struct merge *merge;
	u64 next_seq, next_turn;	/* where the first record not yet merged starts */
	bool done;		/* every batch has been taken into the merge */
};

struct merge {
	struct walk *w;
	struct workqueue *wq;	/* NULL: one thread does everything (-j1) */
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

static bool counted(const struct perf_event_header *event)
{
	return event->type != PERF_RECORD_COMPRESSED && walk__known_type(event->type);
}

/* First pass over one file: the smallest timestamp of each block of records. */
static void scan_times(struct perf_session *s, struct dir_reader *d)
{
	struct reader_record rec;
	size_t alloc = 0;
	u64 n = 0, min = UINT64_MAX;
	int ret;

	dir_file__start(&d->f, false);
	d->f.rd.uncounted = true;	/* the reading pass counts the bytes */
	while ((ret = reader__next(&d->f.rd, &rec)) > 0) {
		struct evsel *evsel;
		u64 ts;

		if (!counted(rec.event))
			continue;
		if (rec.event->type == PERF_RECORD_FINISHED_ROUND)
			d->has_rounds = true;
		ts = walk__record_time(s, rec.event, &evsel);
		if (sample_time_untimed(ts))
			ts = 0;
		min = MIN(min, ts);
		if (++n % BLOCK_RECORDS == 0) {
			ARRAY_GROW(d->block_min, alloc, d->nr_blocks + 1);
			d->block_min[d->nr_blocks++] = min;
			min = UINT64_MAX;
		}
	}
	if (ret < 0) {
		d->error = true;
		snprintf(d->msg, sizeof(d->msg), "%s", error_get());
	}
	ARRAY_GROW(d->block_min, alloc, d->nr_blocks + 1);
	d->block_min[d->nr_blocks++] = min;
	for (size_t b = d->nr_blocks - 1; b-- > 0;)
		d->block_min[b] = MIN(d->block_min[b], d->block_min[b + 1]);
}

struct scan_job {
	struct perf_session *s;
	struct dir_reader *readers;
};

static void scan_one(size_t i, void *arg)
{
	struct scan_job *job = arg;

	dir_file__trim_cut_tail(&job->readers[i].f, job->s->swap);
	scan_times(job->s, &job->readers[i]);
}

/* The merge's order among the records of one file: time, then position. */
static bool file_order_less(const struct merge_entry *a, const struct merge_entry *b)
{
	return a->ts < b->ts || (a->ts == b->ts && a->seq < b->seq);
}

/*
 * Sort a batch by time (stable: it was read in file order). A file's records are runs of
 * rising timestamps (one per ring buffer drained into it), so a natural merge sort does
 * O(n log runs) work, and nothing when the batch is in order already.
 */
static void sort_batch(struct batch *b)
{
	size_t n = b->nr, width;
	struct merge_entry *src = b->e, *dst;

	for (width = 1; width < n && !file_order_less(&src[width], &src[width - 1]); width++)
		;
	if (width >= n)
		return;
	b->tmp = xreallocarray(b->tmp, b->alloc, sizeof(*b->tmp));
	dst = b->tmp;
	for (;;) {
		size_t i = 0, runs = 0;

		while (i < n) {
			size_t mid = i + 1, end, a, c, k = i;

			while (mid < n && !file_order_less(&src[mid], &src[mid - 1]))
				mid++;
			end = mid < n ? mid + 1 : n;
			while (end < n && !file_order_less(&src[end], &src[end - 1]))
				end++;
			for (a = i, c = mid; a < mid && c < end;)
				dst[k++] = file_order_less(&src[c], &src[a]) ? src[c++] : src[a++];
			while (a < mid)
				dst[k++] = src[a++];
			while (c < end)
				dst[k++] = src[c++];
			i = end;
			runs++;
		}
		b->e = dst;
		b->tmp = src;
		if (runs == 1)
			return;
		dst = src;
		src = b->e;
	}
}

/* Read the next batch of records of d (on a worker, or inline with -j1). */
static void produce(struct dir_reader *d, struct batch *b, struct perf_session *s)
{
	struct reader_record rec;
	int ret = 1;

	b->nr = b->pos = 0;
	b->nr_unknown = b->nr_compressed = 0;
	while (b->nr < BATCH_RECORDS && (ret = reader__next(&d->f.rd, &rec)) > 0) {
		struct merge_entry *e;
		u64 turn = d->f.turn;

		dir_file__end_turn(&d->f, &rec);
		if (rec.event->type == PERF_RECORD_COMPRESSED) {
			b->nr_compressed++;	/* counted, never delivered: perf inflates it */
			continue;
		}
		if (!walk__known_type(rec.event->type)) {
			b->nr_unknown++;
			continue;
		}
		ARRAY_GROW(b->e, b->alloc, b->nr + 1);
		e = &b->e[b->nr++];
		*e = (struct merge_entry){ .turn = turn, .seq = d->f.seq++, .reader = d->f.index,
					   .file_offset = rec.file_offset, .event = rec.event };
		e->ts = walk__record_time(s, rec.event, &e->evsel);
		if (sample_time_untimed(e->ts))
			e->ts = 0;
		/* records come in runs from one buffer: a reference per buffer, not per record */
		if (rec.chunk && (!b->nr_chunks || b->chunks[b->nr_chunks - 1] != rec.chunk)) {
			ARRAY_GROW(b->chunks, b->alloc_chunks, b->nr_chunks + 1);
			b->chunks[b->nr_chunks++] = rec.chunk;
			chunk__get(rec.chunk);
		}
	}
	b->end_seq = d->f.seq;
	b->end_turn = d->f.turn;
	b->last = ret <= 0;
	b->error = ret < 0;
	if (b->error)
		snprintf(b->msg, sizeof(b->msg), "%s", error_get());
	sort_batch(b);
}

/* Put what is left of a run and give its batch back to its reader. */
static void release_run(struct merge *m, struct dir_reader *d, struct batch *b)
{
	for (size_t i = 0; i < b->nr_chunks; i++)
		chunk__put(b->chunks[i]);
	b->nr_chunks = 0;
	b->pos = b->nr;
	pthread_mutex_lock(&m->lock);
	b->next = d->free;
	d->free = b;
	pthread_mutex_unlock(&m->lock);
}

/*
 * Read up to `want` batches of d ahead, unless another thread is at it (called with m->lock
 * held: workers and the merging thread, which would rather read than wait, race for it).
 */
static void read_ahead(struct merge *m, struct dir_reader *d, u32 want)
{
	if (d->reading)
		return;
	d->reading = true;
	while (!d->read_all && d->nr_ready < want) {
		struct batch *b = d->free;

		if (b)
			d->free = b->next;
		pthread_mutex_unlock(&m->lock);
		if (!b)
			b = xcalloc(1, sizeof(*b));
		produce(d, b, m->w->session);
		pthread_mutex_lock(&m->lock);
		b->next = NULL;
		*d->ready_tail = b;
		d->ready_tail = &b->next;
		d->nr_ready++;
		d->read_all = b->last;
		pthread_cond_broadcast(&m->cond);
	}
	d->reading = false;
}

static void read_ahead_work(struct work *work)
{
	struct dir_reader *d = container_of(work, struct dir_reader, work);
	struct merge *m = d->merge;

	pthread_mutex_lock(&m->lock);
	d->work_queued = false;
	read_ahead(m, d, AHEAD_BATCHES);
	pthread_mutex_unlock(&m->lock);
}

/* Have a worker read d ahead (m->lock held). */
static void queue_read_ahead(struct merge *m, struct dir_reader *d)
{
	if (!m->wq || d->read_all || d->reading || d->work_queued || d->nr_ready >= AHEAD_BATCHES)
		return;
	d->work_queued = true;	/* one queued item at a time: it reads all that is wanted */
	workqueue__queue(m->wq, &d->work);
}

/*
 * Take d's next batch into the merge: read ahead by a worker, or read here when none has
 * started it; while a worker reads it, help with other work. NULL when it holds no
 * record, or on error (m->w->error set).
 */
static struct batch *open_batch(struct merge *m, struct dir_reader *d)
{
	struct perf_session *s = m->w->session;
	struct batch *b;

	pthread_mutex_lock(&m->lock);
	while (!d->ready) {
		if (!d->reading) {
			read_ahead(m, d, 1);
			continue;
		}
		pthread_mutex_unlock(&m->lock);
		if (!m->wq || !workqueue__help(m->wq)) {
			pthread_mutex_lock(&m->lock);
			if (!d->ready && d->reading)
				pthread_cond_wait(&m->cond, &m->lock);
			continue;
		}
		pthread_mutex_lock(&m->lock);
	}
	b = d->ready;
	d->ready = b->next;
	if (!d->ready)
		d->ready_tail = &d->ready;
	d->nr_ready--;
	queue_read_ahead(m, d);
	pthread_mutex_unlock(&m->lock);
	s->stats.nr_unknown_events += b->nr_unknown;
	s->stats.nr_events[0] += b->nr_compressed;
	s->stats.nr_events[PERF_RECORD_COMPRESSED] += b->nr_compressed;
	d->next_seq = b->end_seq;
	d->next_turn = b->end_turn;
	d->done = b->last;
	if (b->error) {
		error_set("%s", b->msg);
		m->w->error = -1;
		d->done = true;
	}
	if (b->nr && !b->error)
		return b;
	release_run(m, d, b);
	return NULL;
}

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

static bool run_less(const struct batch *a, const struct batch *b)
{
	const struct merge_entry *x = &a->e[a->pos];

	return key_less(x->ts, x->turn, x->reader, x->seq, &b->e[b->pos]);
}

/* The open runs, a min-heap by their first record not yet delivered. */
struct heap {
	struct batch **run;
	size_t nr, alloc;
};

static void heap_sift_down(struct heap *h, size_t i)
{
	struct batch *x = h->run[i];

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= h->nr)
			break;
		if (c + 1 < h->nr && run_less(h->run[c + 1], h->run[c]))
			c++;
		if (!run_less(h->run[c], x))
			break;
		h->run[i] = h->run[c];
		i = c;
	}
	h->run[i] = x;
}

static void heap_push(struct heap *h, struct batch *b)
{
	size_t i;

	ARRAY_GROW(h->run, h->alloc, h->nr + 1);
	i = h->nr++;
	while (i && run_less(b, h->run[(i - 1) / 2])) {
		h->run[i] = h->run[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->run[i] = b;
}

/* Smallest timestamp any record of d not yet in the merge can have. */
static u64 frontier(const struct dir_reader *d)
{
	size_t b;

	if (d->done)
		return UINT64_MAX;
	b = d->next_seq / BLOCK_RECORDS;
	return b < d->nr_blocks ? d->block_min[b] : UINT64_MAX;
}

/* x has the smallest timestamp of the unread records, fmin: can one of them precede it? */
static bool tie_is_safe(const struct merge_entry *x, const struct dir_reader *readers, u32 nr)
{
	for (u32 r = 0; r < nr; r++) {
		const struct dir_reader *d = &readers[r];

		if (frontier(d) == x->ts &&
		    !key_less(x->ts, x->turn, x->reader, x->seq,
			      &(struct merge_entry){ .ts = x->ts, .turn = d->next_turn, .reader = r,
						     .seq = d->next_seq }))
			return false;
	}
	return true;
}


static int merge(struct merge *m, struct dir_reader *readers, u32 nr)
{
	struct walk *w = m->w;
	struct perf_session *s = w->session;
	struct heap h = { 0 };
	u64 fmin = 0;
	u32 next = nr;
	int ret = 0;

	for (u32 r = 0; r < nr; r++) {
		readers[r].merge = m;
		readers[r].ready_tail = &readers[r].ready;
		readers[r].work.func = read_ahead_work;
		pthread_mutex_lock(&m->lock);
		queue_read_ahead(m, &readers[r]);
		pthread_mutex_unlock(&m->lock);
	}
	for (bool opened = true;;) {
		if (opened) {
			/* the reader whose unread records may come first */
			fmin = UINT64_MAX;
			next = nr;
			for (u32 r = 0; r < nr; r++) {
				u64 f = frontier(&readers[r]);

				if (!readers[r].done && (next == nr || f < fmin)) {
					fmin = f;
					next = r;
				}
			}
			opened = false;
		}
		if (h.nr) {
			struct batch *top = h.run[0];
			struct merge_entry *x = &top->e[top->pos];

			if (next == nr || x->ts < fmin ||
			    (x->ts == fmin && tie_is_safe(x, readers, nr))) {
				s->stats.nr_events[0]++;
				s->stats.nr_events[x->event->type]++;
				w->path = readers[x->reader].f.path;
				ret = walk__deliver(w, x->event, x->file_offset, x->evsel);
				if (++top->pos == top->nr) {
					release_run(m, &readers[top->e[0].reader], top);
					h.run[0] = h.run[--h.nr];
				}
				if (h.nr > 1)
					heap_sift_down(&h, 0);
				if (ret)
					break;
				continue;
			}
		}
		if (next == nr)
			break;
		{
			struct batch *b = open_batch(m, &readers[next]);

			if (w->error) {
				ret = -1;
				break;
			}
			if (b)
				heap_push(&h, b);
			opened = true;
		}
	}
	while (h.nr) {
		struct batch *b = h.run[--h.nr];

		release_run(m, &readers[b->e[0].reader], b);
	}
	free(h.run);
	return ret;
}


/* perf's own reading order (for -D): round-robin 2 MB turns into the ordered queue. */
static int walk_round_robin(struct walk *w, struct dir_reader *readers, u32 nr)
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
		ret = reader__next(&d->f.rd, &rec);
		if (ret < 0)
			break;
		if (ret == 0) {
			d->done = true;
			active--;
			continue;
		}
		switch_reader = dir_file__end_turn(&d->f, &rec);
		ret = walk__take_record(w, &rec, d->f.path);
		if (ret < 0)
			break;
		if (ret > 0 && rec.event->type != PERF_RECORD_COMPRESSED) {
			ret = 0;
			w->path = NULL;	/* the queue holds records of every file */
			if (rec.event->type == PERF_RECORD_FINISHED_ROUND)
				ret = ordered_queue_flush_round(&w->queue);
			ts = walk__record_time(w->session, rec.event, &evsel);
			if (!ret && (rec.event->type >= PERF_RECORD_USER_TYPE_START ||
				     sample_time_untimed(ts))) {
				w->path = d->f.path;
				ret = walk__deliver(w, rec.event, rec.file_offset, evsel);
			} else if (!ret) {
				chunk__get(rec.chunk);
				ordered_queue_push(&w->queue, ts, rec.event, rec.file_offset);
				w->queue.entries[w->queue.nr - 1].owner = rec.chunk;
				w->queue.entries[w->queue.nr - 1].evsel = evsel;
			}
			if (ret)
				break;
		}
		ret = 0;
		if (switch_reader)
			i = (i + 1) % nr;
	}
	/* deliver what waits before the files are unmapped */
	w->path = NULL;
	if (ret >= 0)
		ret = ordered_queue_flush_all(&w->queue);
	return ret < 0 ? -1 : ret;
}

int walk_dir(struct walk *w)
{
	struct perf_session *s = w->session;
	struct dir_reader *readers = xcalloc(s->nr_dir_files + 1, sizeof(*readers));
	struct merge m = { .w = w, .wq = s->wq };
	u32 nr = 1;
	int ret = -1;

	pthread_mutex_init(&m.lock, NULL);
	pthread_cond_init(&m.cond, NULL);
	readers[0].f = (struct dir_file){ .path = s->data_path, .map = s->base,
					  .offset = s->header.data.offset,
					  .size = s->header.data.size };
	for (size_t i = 0; i < s->nr_dir_files; i++) {
		if (!s->dir_files[i].size)
			continue;	/* perf makes no reader for an empty file */
		readers[nr].f.index = nr;
		if (dir_file__map(&readers[nr].f, &s->dir_files[i]))
			goto out;
		nr++;
	}
	if (w->consumer->raw) {
		for (u32 r = 0; r < nr; r++) {
			dir_file__trim_cut_tail(&readers[r].f, s->swap);
			dir_file__start(&readers[r].f, s->swap);
		}
		for (u32 r = 0; r < nr; r++)
			dir_file__warn_cut(s, &readers[r].f);
		ret = walk_round_robin(w, readers, nr);
	} else {
		struct scan_job job = { .s = s, .readers = readers };
		bool rounds = false;

		if (m.wq)
			workqueue__parallel_for(m.wq, 0, nr, 1, scan_one, &job);
		else
			for (u32 r = 0; r < nr; r++)
				scan_one(r, &job);
		for (u32 r = 0; r < nr; r++)
			dir_file__warn_cut(s, &readers[r].f);
		for (u32 r = 0; r < nr; r++) {
			if (readers[r].error) {
				error_set("%s", readers[r].msg);
				goto out;
			}
			rounds |= readers[r].has_rounds;
			dir_file__start(&readers[r].f, s->swap);
		}
		/* files with FINISHED_ROUND are not what perf's directory reader assumes */
		ret = rounds ? walk_round_robin(w, readers, nr) : merge(&m, readers, nr);
	}
out:
	/* batches still being read refer to the readers */
	if (m.wq)
		workqueue__flush(m.wq);
	for (u32 r = 0; r < nr; r++) {
		struct dir_reader *d = &readers[r];

		while (d->ready) {
			struct batch *b = d->ready;

			d->ready = b->next;
			release_run(&m, d, b);
		}
		while (d->free) {
			struct batch *b = d->free;

			d->free = b->next;
			free(b->e);
			free(b->tmp);
			free(b->chunks);
			free(b);
		}
		dir_file__close(&d->f);
		free(d->block_min);
	}
	free(readers);
	pthread_mutex_destroy(&m.lock);
	pthread_cond_destroy(&m.cond);
	if (ret < 0 && !w->error)
		w->error = -1;
	return ret;
}
