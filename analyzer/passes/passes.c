/*
 * passes: what comes after pass 1 (scan.c): the model made ready for the workers, the
 * chunks, a sample resolved against the model at its key, and the checks that tell whether
 * the run answered as the streaming path would.
 */
#include "analyzer/passes/passes.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/busy.h"
#include "lib/xalloc.h"
#include "readers/decode/evsel_name.h"


bool passes__eligible(const struct perf_session *s, bool dirs)
{
	if (s->is_pipe || s->swap || !s->base || !s->nr_evsels ||
	    perf_session__has_feat(s, HEADER_AUXTRACE))
		return false;
	/* a directory's files are read whole, a worker each: their zstd streams with them */
	if (s->is_dir)
		return dirs;
	return !perf_session__has_feat(s, HEADER_COMPRESSED);
}

void passes__give_up(struct passes *ps, const char *why)
{
	if (!ps->fallback)
		ps->why = why;
	ps->fallback = true;
}

void passes__busy_path(const struct passes *ps, bool done)
{
	char note[128];

	if (done) {
		busy__path("parallel");
		return;
	}
	snprintf(note, sizeof(note), "streaming, the parallel run given up: %s",
		 ps->why ? ps->why : "a record it cannot read");
	busy__path(note);
}

void passes__add_bound(struct passes *ps, u64 pos)
{
	ARRAY_GROW(ps->bounds, ps->alloc_bounds, ps->nr_bounds + 1);
	ps->bounds[ps->nr_bounds++] = pos;
}

struct pass_worker *passes__claim(struct passes *ps)
{
	/* the thread's last one first: what it holds (window, caches) is in its core's caches */
	static __thread size_t last;

	if (last < ps->nr_workers && !__atomic_exchange_n(&ps->workers[last].busy, 1, __ATOMIC_ACQUIRE))
		return &ps->workers[last];
	for (;;)
		for (size_t i = 0; i < ps->nr_workers; i++)
			if (!__atomic_exchange_n(&ps->workers[i].busy, 1, __ATOMIC_ACQUIRE)) {
				last = i;
				return &ps->workers[i];
			}
}

void passes__release(struct pass_worker *w)
{
	__atomic_store_n(&w->busy, 0, __ATOMIC_RELEASE);
}

/* Chunks of at least CHUNK_BYTES of whole rounds. */
static void make_chunks(struct passes *ps)
{
	ps->chunks = xreallocarray(NULL, ps->nr_bounds, sizeof(*ps->chunks));
	ps->nr_chunks = 0;
	ps->chunks[ps->nr_chunks++] = 0;
	for (size_t i = 1; i < ps->nr_bounds; i++)
		if (i == ps->nr_bounds - 1 || ps->files ||	/* a directory's: a file a chunk */
		    ps->bounds[i] - ps->bounds[ps->chunks[ps->nr_chunks - 1]] >=
			    (ps->test_bytes ? ps->test_bytes : ps->chunk_bytes))
			ps->chunks[ps->nr_chunks++] = i;
	ps->nr_chunks--;
	ps->round_min = xreallocarray(NULL, ps->nr_bounds, sizeof(*ps->round_min));
	ps->round_max = xcalloc(ps->nr_bounds, sizeof(*ps->round_max));
	for (size_t r = 0; r < ps->nr_bounds; r++)
		ps->round_min[r] = UINT64_MAX;
}

/*
 * The placeholders of threads that never had a name (thread__with_comm's): made now, as
 * samples would have made them.
 */
static void name_threads(struct history *h, struct machine *m)
{
	for (size_t i = 0; i < h->nr_versions; i++)
		thread__with_comm(m, h->versions[i].thread);
}

static void short_name(void *data, const struct maps_history *mh, const struct map_span *span)
{
	struct machine *m = data;

	(void)mh;
	dso__name_short(span->map->dso, &m->strings);
}

struct kernel_check {
	struct passes *ps;
	size_t alloc;
	bool overlaps;
};

static void kernel_overlap(void *data, const struct maps_history *mh, const struct map_span *span)
{
	struct kernel_check *c = data;
	struct passes *ps = c->ps;

	if (mh->maps != ps->machine->kmaps)
		return;
	if (span->map == ps->kernel_map) {
		ARRAY_GROW(ps->kspans, c->alloc, ps->nr_kspans + 1);
		ps->kspans[ps->nr_kspans++] = span;
	} else if (span->start < ps->kend && span->end > ps->kstart) {
		c->overlaps = true;
	}
}

/*
 * The kernel's symbols, loaded now rather than at the first sample in its map: its map's
 * bounds then, stretched over them. Samples only in the stretch are checked afterwards to
 * come after the first in the map as recorded (passes__finish).
 */
static void prepare_kernel(struct passes *ps)
{
	struct machine *m = ps->machine;
	const struct kernel_map_bounds *b;
	struct kernel_check c = { ps, 0, false };

	ps->kernel_map = m->kernel_map;
	if (!ps->kernel_map)
		return;
	ps->kstart = ps->kernel_map->start;
	ps->kend = ps->kernel_map->end;
	b = dso__load_kernel(ps->kernel_map->dso, &m->symsrc, m->kernel_ref_reloc);
	if (b && b->valid) {
		ps->kstart = b->start;
		ps->kend = b->end;
	}
	history__for_each_span(&ps->history, kernel_overlap, &c);
	if (c.overlaps)
		passes__give_up(ps, "the kernel's map over others");
}

bool passes__start(struct passes *ps, struct perf_session *s, struct machine *m,
		   struct event_consumer *side_band, struct workqueue *wq, u64 chunk_bytes)
{
	*ps = (struct passes){ .session = s, .machine = m, .side_band = side_band, .wq = wq,
			       .fd = -1, .chunk_bytes = chunk_bytes };
	/* for the tests: small pieces and chunks, to cut small files in many */
	if (getenv("ANALYZE_PARALLEL_BYTES"))
		ps->test_bytes = MAX(strtoull(getenv("ANALYZE_PARALLEL_BYTES"), NULL, 0), 1ull);
	ps->nr_workers = (size_t)(wq ? workqueue__nr_threads(wq) : 0) + 1;
	ps->workers = xaligned_alloc(64, ps->nr_workers * sizeof(*ps->workers));
	memset(ps->workers, 0, ps->nr_workers * sizeof(*ps->workers));
	for (size_t i = 0; i < ps->nr_workers; i++) {
		struct pass_worker *w = &ps->workers[i];

		w->index = i;
		w->kernel_hit = w->kernel_stretch = MODEL_KEY_MAX;
		w->syms = xcalloc(SYM_SLOTS, sizeof(*w->syms));
		w->first_sample_pos = UINT64_MAX;
	}
	/* the events' names made now: evsel__name makes one on first use, and workers print */
	for (size_t i = 0; i < s->nr_evsels; i++)
		evsel__name(&s->evsels[i]);
	if (s->is_dir) {
		if (dir_files__open(s, &ps->files, &ps->nr_files)) {
			passes__give_up(ps, "a file it cannot read whole");
			return false;
		}
		if (!passes__scan_dir(ps))
			return false;
	} else {
		ps->data_start = s->header.data.offset;
		ps->data_end = s->header.data.offset + s->header.data.size;
		ps->fd = open(s->data_path, O_RDONLY | O_CLOEXEC);
		if (ps->fd < 0 || !s->header.data.size || ps->data_end > s->size ||
		    ps->data_end < ps->data_start) {
			passes__give_up(ps, "a file it cannot read whole");
			return false;
		}
		if (!passes__scan(ps))
			return false;
	}
	name_threads(&ps->history, m);
	history__for_each_span(&ps->history, short_name, m);
	prepare_kernel(ps);
	make_chunks(ps);
	return !ps->fallback;
}

static void key_min(struct model_key *at, struct model_key key)
{
	if (model_key_less(key, *at))
		*at = key;
}

/*
 * The map of ip as find_map (machine_resolve.c) finds it at key, or NULL; level as it sets
 * it.
 */
static const struct map_span *find_span(struct passes *ps, struct pass_worker *w,
					const struct thread_version *v, u8 cpumode, u64 ip,
					struct model_key key, char *level)
{
	struct machine *m = ps->machine;
	struct maps *maps;
	const struct map_span *span;

	switch (cpumode) {
	case PERF_RECORD_MISC_KERNEL:
		*level = 'k';
		maps = m->kmaps;
		break;
	case PERF_RECORD_MISC_USER:
		*level = '.';
		maps = v->maps;
		break;
	case PERF_RECORD_MISC_GUEST_KERNEL:
		*level = 'g';
		return NULL;
	case PERF_RECORD_MISC_GUEST_USER:
		*level = 'u';
		return NULL;
	default:
		*level = 'H';
		return NULL;
	}
	if (!maps)
		return NULL;
	span = history__find_map(&ps->history, maps, ip, key, &w->cache);
	if (maps != m->kmaps || !ps->kernel_map)
		return span;
	if (span && span->map == ps->kernel_map) {
		key_min(&w->kernel_hit, key);
		return span;
	}
	if (!span && ip >= ps->kstart && ip < ps->kend) {
		/* only in the stretch: the kernel's map, if a sample before it had loaded it */
		const struct map_span *k = NULL;

		for (size_t i = 0; !k && i < ps->nr_kspans; i++)
			if (model_key_less(ps->kspans[i]->from, key) &&
			    model_key_less(key, ps->kspans[i]->to))
				k = ps->kspans[i];
		if (k)
			key_min(&w->kernel_stretch, key);
		return k;
	}
	return span;
}

bool passes__resolve(struct passes *ps, struct pass_worker *w, struct perf_event_header *ev,
		     u64 pos, struct pass_sample *out)
{
	struct perf_sample *sample = &out->sample;
	u8 cpumode;

	out->evsel = perf_session__evsel_of(ps->session, ev);
	if (!out->evsel ||
	    (!sample_parse_basic(&out->evsel->layout, &out->evsel->attr, ev, sample) &&
	     sample_parse(&out->evsel->attr, ev, sample)) ||
	    sample_time_untimed(sample->time)) {
		w->why = "a sample it cannot read";
		return false;
	}
	out->key = (struct model_key){ sample->time, pos };
	out->v = history__thread_at_cached(&ps->history, (s32)sample->tid, out->key, &w->versions);
	/* a thread the sample would make, or tell its process: the model would change */
	if (!out->v || (out->v->pid == -1 && (s32)sample->pid != -1)) {
		w->why = "a sample that changes the model";
		return false;
	}
	cpumode = sample->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	out->span = find_span(ps, w, out->v, cpumode, sample->ip, out->key, &out->level);
	if (!out->span && (cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_USER)) {
		u8 at = sample->ip >= ps->machine->kernel_start ? PERF_RECORD_MISC_KERNEL
								 : PERF_RECORD_MISC_USER;

		if (at != cpumode)
			out->span = find_span(ps, w, out->v, at, sample->ip, out->key, &out->level);
	}
	return true;
}

const struct symbol *passes__find_symbol(struct pass_worker *w, const struct symtab *st,
					 u64 addr)
{
	struct sym_slot *slot = &w->syms[(((uintptr_t)st >> 6) ^ (addr >> 4)) % SYM_SLOTS];

	if (slot->st == st && addr >= slot->lo && addr < slot->hi)
		return slot->sym;
	/* where there is none too: a dso without symbols has its samples in runs as well */
	slot->sym = symtab__find_span(st, addr, &slot->lo, &slot->hi);
	slot->st = st;
	return slot->sym;
}

/* A round's least and largest times, as the chunk that holds it saw them; reset for the next. */
static void round_times(struct passes *ps, size_t round, u64 *rmin, u64 *rmax)
{
	ps->round_min[round] = *rmin;
	ps->round_max[round] = *rmax;
	*rmin = UINT64_MAX;
	*rmax = 0;
}

/* Pass 2 over a directory's file i, read whole (the same walk as pass 1's, scan.c). */
static void walk_file(struct passes *ps, struct pass_worker *w, size_t i,
		      void (*sample)(void *arg, struct pass_worker *w, const struct pass_sample *ps),
		      void *arg)
{
	struct dir_file *f = &ps->files[i];
	struct reader_record rec;
	struct pass_sample one;
	u64 pos;
	int ret;

	dir_file__start(f, false);
	f->rd.uncounted = true;
	while ((ret = dir_file__next(f, &rec, &pos)) > 0) {
		if (rec.event->type != PERF_RECORD_SAMPLE)
			continue;
		if (!passes__resolve(ps, w, rec.event, pos, &one)) {
			ret = -1;
			break;
		}
		sample(arg, w, &one);
	}
	if (ret < 0)
		w->fallback = true;
	reader__exit(&f->rd);
}

void passes__walk_chunk(struct passes *ps, struct pass_worker *w, size_t i,
			void (*sample)(void *arg, struct pass_worker *w,
				       const struct pass_sample *ps),
			void *arg)
{
	struct pass_sample one;

	if (ps->files) {
		u64 t0 = busy__thread_ns();

		walk_file(ps, w, i, sample, arg);
		busy__stage(BUSY_PARALLEL_CPU, busy__thread_ns() - t0);
		return;
	}

	u64 from = ps->bounds[ps->chunks[i]], to = ps->bounds[ps->chunks[i + 1]];
	u64 t0 = busy__thread_ns();
	size_t round = ps->chunks[i];
	/* the round's times kept here: workers writing next to each other would share lines */
	u64 rmin = UINT64_MAX, rmax = 0;

	for (u64 pos = from; pos < to && !w->fallback;) {
		struct perf_event_header *ev = window_record(ps->fd, &w->win, pos, to);
		struct evsel *evsel;
		u64 ts = 0;

		if (!ev) {
			w->fallback = true;
			break;
		}
		while (pos >= ps->bounds[round + 1]) {
			round_times(ps, round, &rmin, &rmax);
			round++;
		}
		if (ev->type == PERF_RECORD_SAMPLE) {
			w->first_sample_pos = MIN(w->first_sample_pos, pos);
			if (!passes__resolve(ps, w, ev, pos, &one)) {
				w->fallback = true;
				break;
			}
			sample(arg, w, &one);
			ts = one.sample.time;
		} else if (ev->type && ev->type < PERF_RECORD_KERNEL_MAX) {
			ts = (evsel = perf_session__evsel_of(ps->session, ev)) ?
				     sample_layout_time(&evsel->layout, ev) : 0;
		}
		if (!sample_time_untimed(ts)) {
			rmin = MIN(rmin, ts);
			rmax = MAX(rmax, ts);
		}
		pos += ev->size;
	}
	round_times(ps, round, &rmin, &rmax);
	busy__stage(BUSY_PARALLEL_CPU, busy__thread_ns() - t0);
}

/*
 * Whether delivery order is key order: perf delivers, at each FINISHED_ROUND, what is
 * older than the largest time seen before the round before; a record older than something
 * delivered before it came would be out of key order (counted as unordered). A record of
 * round j is safe when no older one than it was seen before round j - 1 ended.
 */
static bool in_order(const struct passes *ps)
{
	u64 seen = 0;	/* the largest time of rounds 0..j - 2 */

	if (ps->files)
		return true;	/* a directory's records are delivered sorted, all of them */
	for (size_t j = 2; j < ps->nr_bounds - 1; j++) {
		seen = MAX(seen, ps->round_max[j - 2]);
		if (ps->round_min[j] < seen)
			return false;
	}
	return true;
}

bool passes__check(struct passes *ps)
{
	struct model_key hit = MODEL_KEY_MAX, stretch = MODEL_KEY_MAX;
	u64 first_sample = UINT64_MAX;

	/* out of order first: what else a worker met may follow from it */
	if (!in_order(ps))
		passes__give_up(ps, "records out of order");
	for (size_t w = 0; w < ps->nr_workers; w++) {
		if (ps->workers[w].fallback)
			passes__give_up(ps, ps->workers[w].why ? ps->workers[w].why
							       : "a record it cannot read");
		key_min(&hit, ps->workers[w].kernel_hit);
		key_min(&stretch, ps->workers[w].kernel_stretch);
		first_sample = MIN(first_sample, ps->workers[w].first_sample_pos);
	}
	/* a sample only in the stretch before any loaded the kernel's symbols; an untimed
	 * record after a sample: the streaming path tells those apart */
	if (model_key_less(stretch, hit))
		passes__give_up(ps, "a sample in the kernel's map before it is loaded");
	if (ps->last_untimed_pos && ps->last_untimed_pos > first_sample)
		passes__give_up(ps, "an untimed record after a sample");
	ps->kernel_hit = hit;
	return !ps->fallback;
}

void passes__finish(struct passes *ps)
{
	/* the kernel's map as perf leaves it once a sample loaded its symbols */
	if (model_key_less(ps->kernel_hit, MODEL_KEY_MAX) &&
	    (ps->kstart != ps->kernel_map->start || ps->kend != ps->kernel_map->end)) {
		ps->kernel_map->start = ps->kstart;
		ps->kernel_map->end = ps->kend;
		maps__changed(ps->machine->kmaps);
	}
}

void passes__exit(struct passes *ps)
{
	for (size_t i = 0; i < ps->nr_workers; i++) {
		free(ps->workers[i].win.buf);
		free(ps->workers[i].syms);
	}
	free(ps->workers);
	passes__scan_exit(ps);
	history__exit(&ps->history);
	dir_files__close(ps->session, ps->files);
	if (ps->fd >= 0)
		close(ps->fd);
	free(ps->bounds);
	free(ps->chunks);
	free(ps->kspans);
	free(ps->round_min);
	free(ps->round_max);
	*ps = (struct passes){ .fd = -1 };
}
