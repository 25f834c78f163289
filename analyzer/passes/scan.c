/*
 * scan: pass 1 (passes.h). The data cut into pieces at any byte, each walked
 * on a worker from the first place in it where records plausibly start until past its end,
 * noting its side-band records (copied), round ends and counts. Records start where the
 * walk of the piece before ended; a piece whose walk began elsewhere has usually fallen in
 * step within a few records (it keeps where its first records began, to check): what it
 * noted before that is dropped. A piece that did not is walked again, from the right place.
 * Then the side band, in delivery order, builds the model and its history.
 */
#include "analyzer/passes/passes.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/busy.h"
#include "lib/clock.h"
#include "lib/progress.h"
#include "lib/xalloc.h"

#define WINDOW_BYTES (256u << 10)	/* read at once: a few syscalls a MB, little memory */

/* Whether the window holds [pos, pos + size). */
static bool in_window(const struct window *win, u64 pos, u64 size)
{
	return pos >= win->pos && pos + size <= win->pos + win->len;
}

/* The window read from pos on: want bytes. */
static bool window_fill(int fd, struct window *win, u64 pos, u64 want)
{
	ssize_t got;

	if (want > win->alloc) {
		free(win->buf);
		win->buf = xaligned_alloc(64, want);
		win->alloc = want;
	}
	got = pread(fd, win->buf, want, (off_t)pos);
	win->pos = pos;
	win->len = got > 0 ? (u64)got : 0;
	return win->len == want;
}

/* Read by pread: no page faults, and no pages to drop after. */
struct perf_event_header *window_record(int fd, struct window *win, u64 pos, u64 to)
{
	struct perf_event_header *ev;

	/* records are 8-aligned in perf's files: one that is not is left to the streaming way */
	if (to - pos < sizeof(*ev) || (pos & 7))
		return NULL;
	if (!in_window(win, pos, sizeof(*ev)) &&
	    !window_fill(fd, win, pos, MIN(to - pos, (u64)WINDOW_BYTES)))
		return NULL;
	ev = (void *)(win->buf + (pos - win->pos));
	if (ev->size < sizeof(*ev) || ev->size > to - pos)
		return NULL;
	if (in_window(win, pos, ev->size))
		return ev;
	if (!window_fill(fd, win, pos, MIN(to - pos, MAX((u64)WINDOW_BYTES, ev->size))))
		return NULL;
	return (void *)win->buf;
}

#define PIECE_MIN (4u << 20)	/* the least a piece is (but with ANALYZE_PARALLEL_BYTES) */
#define MAX_PIECES 65536
#define SYNC_HEADS 256		/* record starts a piece keeps, to fall in step with */
#define PLAUSIBLE_RUN 16	/* headers in a row that must look right for a walk to start */
#define PLAUSIBLE_SPAN 4096	/* how far into a piece a start is looked for */

struct side_record {
	u64 pos;	/* in the file */
	size_t at;	/* in its piece's copies */
};

/*
 * The earliest sample of a pid and tid in a piece: the streaming path makes a sample's
 * thread if it has none, or tells it its process (machine__findnew_thread), so the replay
 * does that just before that sample's key.
 */
struct tid_first {
	struct model_key key;
	s32 pid, tid;
};

#define TID_SLOTS 256	/* the tids met last, by hash: samples come in runs of a few */

struct piece {
	u64 from, to;	/* the piece; its walk starts at start, ends at end (>= to) */
	u64 start, end;
	u64 heads[SYNC_HEADS];	/* where its first records start */
	u8 head_types[SYNC_HEADS];
	bool head_bad[SYNC_HEADS];	/* a record the parallel run cannot take */
	size_t nr_heads;
	struct side_record *side;
	size_t nr_side, alloc_side;
	u8 *copies;	/* the side-band records, copied */
	size_t copies_len, copies_alloc;
	u64 *rounds;	/* where each FINISHED_ROUND ends */
	size_t nr_rounds, alloc_rounds;
	u64 counts[PERF_RECORD_HEADER_MAX], nr_unknown;
	struct tid_first *tids;
	size_t nr_tids, alloc_tids;
	struct hashmap tid_index;	/* tid -> 1 + its index in tids */
	u32 tid_slots[TID_SLOTS];	/* 1 + an index in tids, or 0 */
	bool late_bad;	/* a record it cannot take after its first SYNC_HEADS */
	bool lost;	/* its walk stopped on a record the file does not hold */
	const char *why;
};

/* Why the parallel run cannot take a record of this type (the streaming path can), or NULL. */
static const char *untakeable(u32 type)
{
	switch (type) {
	case PERF_RECORD_AUX:
	case PERF_RECORD_ITRACE_START:
	case PERF_RECORD_AUXTRACE_INFO:
	case PERF_RECORD_AUXTRACE:
		return "an AUX-area trace";
	case PERF_RECORD_COMPRESSED:
		return "compressed records";
	case PERF_RECORD_HEADER_ATTR:
	case PERF_RECORD_HEADER_EVENT_TYPE:
	case PERF_RECORD_HEADER_TRACING_DATA:
	case PERF_RECORD_HEADER_BUILD_ID:
	case PERF_RECORD_HEADER_FEATURE:
		return "a pipe's records in a file";
	default:
		return NULL;
	}
}

static bool plausible(u32 type, u32 size)
{
	return passes__known_type(type) && size >= sizeof(struct perf_event_header) && !(size & 7);
}

/* The first place from `from` on where PLAUSIBLE_RUN headers in a row look right. */
static u64 plausible_start(struct passes *p, struct window *win, u64 from, u64 end)
{
	for (u64 c = ALIGN_UP(from, 8); c < from + PLAUSIBLE_SPAN && c < end; c += 8) {
		u64 pos = c;
		int n = 0;

		while (n < PLAUSIBLE_RUN && pos < end) {
			struct perf_event_header *ev = window_record(p->fd, win, pos, end);

			if (!ev || !plausible(ev->type, ev->size))
				break;
			pos += ev->size;
			n++;
		}
		if (n == PLAUSIBLE_RUN || pos == end)
			return c;
	}
	return from;
}

static u64 pid_tid(s32 pid, s32 tid)
{
	return (u64)(u32)pid << 32 | (u32)tid;
}

/* The sample ev at pos: its pid and tid's earliest so far in the piece? */
static void note_sample(struct passes *p, struct piece *pc, const struct perf_event_header *ev,
			u64 pos)
{
	struct evsel *evsel = perf_session__evsel_of(p->session, ev);
	const u64 *words = (const u64 *)(ev + 1);
	size_t nr_words = (ev->size - sizeof(*ev)) / sizeof(u64);
	struct model_key key;
	s32 pid, tid;
	u32 *slot;
	uintptr_t i;

	if (!evsel || evsel->layout.tid_word < 0 || (size_t)evsel->layout.tid_word >= nr_words)
		return;	/* pass 2 says what is wrong with it */
	pid = (s32)(u32)words[evsel->layout.tid_word];
	tid = (s32)(words[evsel->layout.tid_word] >> 32);
	key = (struct model_key){ sample_layout_time(&evsel->layout, ev), pos };
	slot = &pc->tid_slots[(u32)tid * 0x9e3779b1u >> 24];
	if (*slot && pc->tids[*slot - 1].tid == tid && pc->tids[*slot - 1].pid == pid) {
		i = *slot;
	} else {
		i = (uintptr_t)hashmap_find(&pc->tid_index, pid_tid(pid, tid));
		if (!i) {
			ARRAY_GROW(pc->tids, pc->alloc_tids, pc->nr_tids + 1);
			pc->tids[pc->nr_tids++] = (struct tid_first){ key, pid, tid };
			i = pc->nr_tids;
			hashmap_insert(&pc->tid_index, pid_tid(pid, tid), (void *)i);
		}
		*slot = (u32)i;
	}
	if (model_key_less(key, pc->tids[i - 1].key))
		pc->tids[i - 1] = (struct tid_first){ key, pid, tid };
}

/* A side-band record kept, with its place. */
static void side_copy(struct piece *pc, const struct perf_event_header *ev, u64 pos)
{
	ARRAY_GROW(pc->side, pc->alloc_side, pc->nr_side + 1);
	ARRAY_GROW(pc->copies, pc->copies_alloc, pc->copies_len + ev->size);
	pc->side[pc->nr_side++] = (struct side_record){ pos, pc->copies_len };
	memcpy(pc->copies + pc->copies_len, ev, ev->size);
	pc->copies_len += ev->size;
}

/* One piece walked from its start to past its end. */
static void walk_piece(struct passes *p, struct window *win, struct piece *pc)
{
	u64 pos = pc->start, end = p->data_end;

	while (pos < pc->to) {
		struct perf_event_header *ev = window_record(p->fd, win, pos, end);
		const char *why;
		size_t h = pc->nr_heads;

		if (!ev) {
			pc->lost = true;
			if (!pc->why)
				pc->why = "a record it cannot read";
			break;
		}
		if (h < SYNC_HEADS) {
			pc->heads[h] = pos;
			pc->head_types[h] = ev->type < 256 ? (u8)ev->type : 0;
			pc->head_bad[h] = false;
			pc->nr_heads++;
		}
		if (!passes__known_type(ev->type)) {
			pc->nr_unknown++;
			pos += ev->size;
			continue;
		}
		pc->counts[0]++;
		pc->counts[ev->type]++;
		if ((why = untakeable(ev->type))) {
			if (h < SYNC_HEADS)
				pc->head_bad[h] = true;
			else
				pc->late_bad = true;
			if (!pc->why)
				pc->why = why;
		} else if (ev->type == PERF_RECORD_SAMPLE) {
			note_sample(p, pc, ev, pos);
		} else if (ev->type == PERF_RECORD_FINISHED_ROUND) {
			ARRAY_GROW(pc->rounds, pc->alloc_rounds, pc->nr_rounds + 1);
			pc->rounds[pc->nr_rounds++] = pos + ev->size;
		} else if (ev->type != PERF_RECORD_SAMPLE && ev->type < PERF_RECORD_KERNEL_MAX) {
			side_copy(pc, ev, pos);
		}
		pos += ev->size;
	}
	pc->end = pos;
	progress_add(pc->to - pc->from);
}

/*
 * A directory's file i walked whole (its zstd stream runs across its records: one worker
 * reads it from its start), its records' places perf's reading order (dir_files.h).
 */
static void walk_file(struct passes *p, struct piece *pc, struct dir_file *f)
{
	struct reader_record rec;
	u64 pos;
	int ret;

	dir_file__trim_cut_tail(f, false);
	dir_file__start(f, false);
	f->rd.uncounted = true;
	while ((ret = dir_file__next(f, &rec, &pos)) > 0) {
		struct perf_event_header *ev = rec.event;
		const char *why;

		if (!passes__known_type(ev->type)) {
			pc->nr_unknown++;
			continue;
		}
		pc->counts[0]++;
		pc->counts[ev->type]++;
		if (pos == DIR_POS_NONE)
			continue;	/* COMPRESSED: counted, never delivered (what it inflates is) */
		if ((why = untakeable(ev->type))) {
			pc->why = why;
			break;
		} else if (ev->type == PERF_RECORD_SAMPLE) {
			note_sample(p, pc, ev, pos);
		} else if (ev->type == PERF_RECORD_FINISHED_ROUND) {
			/* perf's directory reader assumes none: dir.c reads such files its own way */
			pc->why = "rounds in a directory's files";
			break;
		} else if (ev->type < PERF_RECORD_KERNEL_MAX) {
			side_copy(pc, ev, pos);
		}
	}
	if (ret < 0 && !pc->why)
		pc->why = "a record it cannot read";
	reader__exit(&f->rd);	/* its zstd stream's memory, until pass 2 */
	progress_add(f->size);
}

static void scan_file(size_t i, void *arg)
{
	struct passes *p = arg;
	u64 t0 = busy__thread_ns();

	walk_file(p, &p->pieces[i], &p->files[i]);
	busy__stage(BUSY_PARALLEL_CPU, busy__thread_ns() - t0);
}

static void scan_piece(size_t i, void *arg)
{
	struct passes *p = arg;
	struct pass_worker *w = passes__claim(p);
	struct piece *pc = &p->pieces[i];
	u64 t0 = busy__thread_ns();

	pc->start = i ? plausible_start(p, &w->win, pc->from, p->data_end) : pc->from;
	walk_piece(p, &w->win, pc);
	busy__stage(BUSY_PARALLEL_CPU, busy__thread_ns() - t0);
	passes__release(w);
}

/* Piece pc's results emptied, to walk it again. */
static void piece_clear(struct piece *pc)
{
	pc->nr_heads = pc->nr_side = pc->copies_len = pc->nr_rounds = 0;
	memset(pc->counts, 0, sizeof(pc->counts));
	pc->nr_unknown = 0;
	pc->late_bad = pc->lost = false;
	pc->why = NULL;
	pc->nr_tids = 0;
	hashmap_exit(&pc->tid_index);
	hashmap_init(&pc->tid_index);
	memset(pc->tid_slots, 0, sizeof(pc->tid_slots));
}

/*
 * Whether the walk took something before at for a tid's earliest sample (a walk begun
 * elsewhere falls in step after a few records that may be none): the piece is walked
 * again then.
 */
static bool noted_before(const struct piece *pc, u64 at)
{
	for (size_t i = 0; i < pc->nr_tids; i++)
		if (pc->tids[i].key.pos < at)
			return true;
	return false;
}

/*
 * Piece pc, whose records start at `at`, in step from there: what it noted of the records
 * before dropped (or it is walked again). False when a record it must give up on is among
 * its own.
 */
static bool piece_settle(struct passes *p, struct piece *pc, u64 at)
{
	size_t j = 0, k;

	while (j < pc->nr_heads && pc->heads[j] != at)
		j++;
	if (pc->start != at && (j == pc->nr_heads || pc->lost || noted_before(pc, at))) {
		struct pass_worker *w = passes__claim(p);

		piece_clear(pc);
		pc->start = at;
		walk_piece(p, &w->win, pc);
		passes__release(w);
		j = 0;
	}
	for (size_t h = 0; h < j; h++) {	/* the records before it fell in step */
		u8 type = pc->head_types[h];

		if (passes__known_type(type)) {
			pc->counts[0]--;
			pc->counts[type]--;
		} else {
			pc->nr_unknown--;
		}
	}
	for (size_t h = j; h < pc->nr_heads; h++)
		if (pc->head_bad[h])
			return false;
	if (pc->late_bad || pc->lost)
		return false;
	for (k = 0; k < pc->nr_side && pc->side[k].pos < at; k++)
		;
	if (k) {
		memmove(pc->side, pc->side + k, (pc->nr_side - k) * sizeof(*pc->side));
		pc->nr_side -= k;
	}
	for (k = 0; k < pc->nr_rounds && pc->rounds[k] <= at; k++)
		;
	if (k) {
		memmove(pc->rounds, pc->rounds + k, (pc->nr_rounds - k) * sizeof(*pc->rounds));
		pc->nr_rounds -= k;
	}
	return true;
}

/* A side-band record to replay, by its key; or (ev NULL) the first sample of a tid. */
struct replay_item {
	struct model_key key;
	const struct perf_event_header *ev;
	struct evsel *evsel;
	s32 pid, tid;
};

/* Each pid and tid's first sample in the file: the pieces' merged. */
static struct tid_first *first_samples(struct passes *p, size_t *nr)
{
	struct hashmap index;
	struct tid_first *v = NULL;
	size_t alloc = 0;

	*nr = 0;
	hashmap_init(&index);
	for (size_t i = 0; i < p->nr_pieces; i++) {
		for (size_t k = 0; k < p->pieces[i].nr_tids; k++) {
			const struct tid_first *t = &p->pieces[i].tids[k];
			uintptr_t at = (uintptr_t)hashmap_find(&index, pid_tid(t->pid, t->tid));

			if (!at) {
				ARRAY_GROW(v, alloc, *nr + 1);
				v[(*nr)++] = *t;
				hashmap_insert(&index, pid_tid(t->pid, t->tid), (void *)(uintptr_t)*nr);
			} else if (model_key_less(t->key, v[at - 1].key)) {
				v[at - 1] = *t;
			}
		}
	}
	hashmap_exit(&index);
	return v;
}

/*
 * What the streaming path's machine__findnew_thread does at a pid and tid's first sample:
 * make the thread if it has none, or tell it its process.
 */
static void sample_thread(struct passes *p, s32 pid, s32 tid)
{
	struct thread *t = machine__find_thread(p->machine, tid);

	if (!t || (t->pid == -1 && pid != -1)) {
		thread__put(t);
		t = machine__findnew_thread(p->machine, pid, tid);
	}
	thread__put(t);
}

static int replay_cmp(const void *a, const void *b)
{
	const struct replay_item *x = a, *y = b;

	if (model_key_less(x->key, y->key))
		return -1;
	return model_key_less(y->key, x->key) ? 1 : 0;
}

/*
 * The side-band records, in delivery order (by key, as the streaming path delivers them
 * when no record comes out of order: checked after pass 2), into the model. False to give
 * up.
 */
static bool replay_side_band(struct passes *p)
{
	struct perf_session *s = p->session;
	struct replay_item *items;
	size_t nr = 0, nr_tids;
	struct tid_first *tids = first_samples(p, &nr_tids);
	bool ok = true;

	for (size_t i = 0; i < p->nr_pieces; i++)
		nr += p->pieces[i].nr_side;
	items = xreallocarray(NULL, nr + nr_tids ? nr + nr_tids : 1, sizeof(*items));
	nr = 0;
	/* just before the sample (no record starts at an odd place): the sample sees it */
	for (size_t i = 0; i < nr_tids; i++)
		if (!sample_time_untimed(tids[i].key.time))
			items[nr++] = (struct replay_item){
				.key = { tids[i].key.time, tids[i].key.pos - 1 },
				.pid = tids[i].pid, .tid = tids[i].tid };
	free(tids);
	for (size_t i = 0; i < p->nr_pieces && ok; i++) {
		struct piece *pc = &p->pieces[i];

		for (size_t k = 0; k < pc->nr_side; k++) {
			const struct perf_event_header *ev = (void *)(pc->copies + pc->side[k].at);
			struct evsel *evsel = perf_session__evsel_of(s, ev);
			u64 ts;

			if (!evsel) {
				ok = false;
				break;
			}
			ts = sample_layout_time(&evsel->layout, ev);
			if (sample_time_untimed(ts)) {
				/*
				 * delivered as read, before every timed record pending then; but
				 * the lost counts (perf record writes LOST_SAMPLES untimed at the
				 * end) only add up, in any order
				 */
				ts = 0;
				if (ev->type != PERF_RECORD_LOST && ev->type != PERF_RECORD_LOST_SAMPLES)
					p->last_untimed_pos = MAX(p->last_untimed_pos, pc->side[k].pos);
			}
			items[nr++] = (struct replay_item){ { ts, pc->side[k].pos }, ev, evsel };
		}
	}
	qsort(items, nr, sizeof(*items), replay_cmp);
	for (size_t i = 0; i < nr && ok; i++) {
		struct event_ctx ctx = { .event = items[i].ev, .evsel = items[i].evsel,
					 .file_offset = items[i].key.pos };

		p->history.now = items[i].key;
		if (!items[i].ev) {
			sample_thread(p, items[i].pid, items[i].tid);
			continue;
		}
		if (sample_parse(&items[i].evsel->attr, items[i].ev, &ctx.sample)) {
			ok = false;
			break;
		}
		p->history.now = items[i].key;
		ok = !p->side_band->deliver(p->side_band, &ctx);
	}
	free(items);
	if (!ok)
		passes__give_up(p, "a side-band record it cannot read");
	return ok;
}

bool passes__scan(struct passes *p)
{
	struct perf_session *s = p->session;
	u64 data = p->data_end - p->data_start, at = p->data_start, t0;
	size_t nr_threads = p->nr_workers;

	u64 piece = p->test_bytes ? p->test_bytes : MAX((u64)PIECE_MIN, data / (nr_threads * 4));

	p->nr_pieces = (size_t)MAX((u64)1, MIN(data / piece, (u64)MAX_PIECES));
	p->pieces = xcalloc(p->nr_pieces, sizeof(*p->pieces));
	for (size_t i = 0; i < p->nr_pieces; i++) {
		p->pieces[i].from = p->data_start + data * i / p->nr_pieces;
		p->pieces[i].to = p->data_start + data * (i + 1) / p->nr_pieces;
		hashmap_init(&p->pieces[i].tid_index);
	}
	t0 = clock_ns(CLOCK_MONOTONIC);
	progress_phase("reading", data);
	workqueue__parallel_for(p->wq, 0, p->nr_pieces, 1, scan_piece, p);
	busy__stage(BUSY_PARALLEL_WALL, clock_ns(CLOCK_MONOTONIC) - t0);
	passes__add_bound(p, p->data_start);
	for (size_t i = 0; i < p->nr_pieces; i++) {
		struct piece *pc = &p->pieces[i];

		if (!piece_settle(p, pc, at)) {
			passes__give_up(p, pc->why ? pc->why : "a record it cannot read");
			return false;
		}
		for (size_t t = 0; t < PERF_RECORD_HEADER_MAX; t++)
			s->stats.nr_events[t] += pc->counts[t];
		s->stats.nr_unknown_events += pc->nr_unknown;
		for (size_t k = 0; k < pc->nr_rounds; k++)
			passes__add_bound(p, pc->rounds[k]);
		at = pc->end;
	}
	if (at != p->data_end) {
		passes__give_up(p, "a record it cannot read");
		return false;
	}
	if (p->bounds[p->nr_bounds - 1] != p->data_end)
		passes__add_bound(p, p->data_end);
	history__init(&p->history, p->machine);
	replay_side_band(p);
	history__finish(&p->history, p->machine);
	return !p->fallback;
}

/*
 * Pass 1 over a directory: a file a piece, each walked whole by one worker. Its chunks for
 * pass 2 are its files: the bounds are where each begins in the directory's sum of sizes.
 */
bool passes__scan_dir(struct passes *p)
{
	struct perf_session *s = p->session;
	u64 t0, total = 0;

	p->nr_pieces = p->nr_files;
	p->pieces = xcalloc(p->nr_pieces, sizeof(*p->pieces));
	for (size_t i = 0; i < p->nr_pieces; i++) {
		hashmap_init(&p->pieces[i].tid_index);
		total += p->files[i].size;
	}
	t0 = clock_ns(CLOCK_MONOTONIC);
	progress_phase("reading", total);
	workqueue__parallel_for(p->wq, 0, p->nr_pieces, 1, scan_file, p);
	busy__stage(BUSY_PARALLEL_WALL, clock_ns(CLOCK_MONOTONIC) - t0);
	total = 0;
	passes__add_bound(p, 0);
	for (size_t i = 0; i < p->nr_pieces; i++) {
		struct piece *pc = &p->pieces[i];

		if (pc->why) {
			passes__give_up(p, pc->why);
			return false;
		}
		dir_file__warn_cut(s, &p->files[i]);
		for (size_t t = 0; t < PERF_RECORD_HEADER_MAX; t++)
			s->stats.nr_events[t] += pc->counts[t];
		s->stats.nr_unknown_events += pc->nr_unknown;
		total += p->files[i].size;
		passes__add_bound(p, total);
	}
	history__init(&p->history, p->machine);
	replay_side_band(p);
	history__finish(&p->history, p->machine);
	/* untimed records come first in a directory, all of them (dir.c): their keys say so */
	p->last_untimed_pos = 0;
	return !p->fallback;
}

void passes__scan_exit(struct passes *p)
{
	for (size_t i = 0; i < p->nr_pieces; i++) {
		free(p->pieces[i].side);
		free(p->pieces[i].copies);
		free(p->pieces[i].rounds);
		free(p->pieces[i].tids);
		hashmap_exit(&p->pieces[i].tid_index);
	}
	free(p->pieces);
	p->pieces = NULL;
	p->nr_pieces = 0;
}
