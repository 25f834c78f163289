/*
 * report_parallel: the flat report of a file, its samples resolved and counted on every
 * worker at once. First the side-band records alone, in delivery order, build the model
 * and its history (machine/history.h), the samples set aside and the FINISHED_ROUND
 * boundaries noted; then the stretches of the file between those boundaries go to the
 * workers, each sample resolved against the model as it was at its key (time, then place
 * in the file: perf's delivery order when no record comes out of order) into the worker's
 * own histograms; these are folded together in the order of their entries' first samples,
 * which rebuilds perf's. Whatever this cannot answer as the streaming path would (a thread
 * a sample would create, a record out of order, an error) sends the run back to it.
 */
#include "analyzer/report/report_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "analyzer/output/header.h"
#include "lib/busy.h"
#include "lib/clock.h"
#include "lib/error.h"
#include "lib/progress.h"
#include "lib/xalloc.h"
#include "machine/history.h"

#define CHUNK_BYTES (1u << 20)	/* the least a worker takes at once */

#define SYM_SLOTS 2048
#define BATCH 16

struct sym_slot {
	const struct symtab *st;
	u64 lo, hi;
	const struct symbol *sym;
};

/* A worker's histograms and what folding them needs of their entries; a line of its own. */
struct partial {
	_Alignas(64) struct hists *hists;	/* one per event */
	struct entry_keys *keys;	/* per event: by entry */
	struct span_cache cache;
	struct model_key kernel_hit;	/* the first sample in the kernel's map as recorded */
	struct model_key kernel_stretch;	/* the first only in its stretch (see below) */
	u64 first_sample_pos;	/* the earliest sample in the file */
	/* the window of the file read (pread: no page faults, no mapping to unmap) */
	u8 *buf;
	u64 buf_pos, buf_len, buf_alloc;
	struct sym_slot *syms;	/* symbols found, and the spans of addresses they cover */
	bool fallback;
	const char *why;	/* it did */
	int busy;
};

struct entry_key {
	struct model_key first, last;
	struct map *last_map;
	struct dso *last_dso;
};

struct entry_keys {
	struct entry_key *v;
	size_t alloc;
};

struct par {
	struct report *rep;
	struct event_consumer consumer;
	struct history history;
	u64 *bounds;	/* record boundaries: the data's start, each round's end, its end */
	size_t nr_bounds, alloc_bounds;
	struct model_key last;	/* of the last side-band record */
	u64 last_untimed_pos;	/* the last side-band record without a time, or 0 */
	bool fallback;
	const char *why;	/* the first reason to give up */
	/* the kernel's map stretched over its symbols once they load (perf's map__load) */
	struct map *kernel_map;
	u64 kstart, kend;
	const struct map_span **kspans;	/* the kernel map's spans in the kernel's maps */
	size_t nr_kspans;
	/* by round (records between two boundaries): the smallest and largest time */
	u64 *round_min, *round_max;
	size_t nr_partials;
	struct partial *partials;
	size_t *chunks;	/* chunk i: bounds[chunks[i]] to bounds[chunks[i + 1]] */
	size_t nr_chunks;
	int fd;		/* the data file, read again by the workers */
};

static bool parallel_eligible(const struct report *rep)
{
	const struct perf_session *s = &rep->session;

	if (s->is_pipe || s->is_dir || s->swap || !s->base || !s->nr_evsels)
		return false;
	if (perf_session__has_feat(s, HEADER_AUXTRACE) || perf_session__has_feat(s, HEADER_COMPRESSED))
		return false;
	if (rep->chains || rep->unwinder || rep->need_parent || rep->exclude_other)
		return false;
	if (rep->comms.nr || rep->dsos.nr || rep->symbols.nr || rep->pids.nr || rep->tids.nr)
		return false;
	return !lookups_can_fail(&rep->sort);
}

static void give_up(struct par *p, const char *why)
{
	if (!p->fallback)
		p->why = why;
	p->fallback = true;
}

/* For the benchmarks (ANALYZE_BUSY): which way the run went, and why. */
static void busy_path(const char *why)
{
	char note[128];

	if (!why) {
		busy__path("parallel");
		return;
	}
	snprintf(note, sizeof(note), "streaming, the parallel run given up: %s", why);
	busy__path(note);
}

static void add_bound(struct par *p, u64 pos)
{
	ARRAY_GROW(p->bounds, p->alloc_bounds, p->nr_bounds + 1);
	p->bounds[p->nr_bounds++] = pos;
}

/* Pass 1: every record but the samples, in delivery order. */
static int side_band(struct event_consumer *consumer, struct event_ctx *ctx)
{
	struct par *p = container_of(consumer, struct par, consumer);
	const struct perf_event_header *ev = ctx->event;

	switch (ev->type) {
	case PERF_RECORD_FINISHED_ROUND:
		add_bound(p, ctx->file_offset + ev->size);
		return 0;
	case PERF_RECORD_AUXTRACE_INFO:
	case PERF_RECORD_AUXTRACE:
	case PERF_RECORD_AUX:
	case PERF_RECORD_ITRACE_START:
		give_up(p, "an AUX-area trace");
		return 1;
	default:
		break;
	}
	if (ev->type < PERF_RECORD_USER_TYPE_START) {
		struct model_key key = { ctx->sample.time, ctx->file_offset };

		if (sample_time_untimed(ctx->sample.time)) {
			key.time = 0;
			p->last_untimed_pos = ctx->file_offset;
		}
		if (model_key_less(key, p->last)) {
			/* not in key order: the keys do not tell the order */
			give_up(p, "records out of order");
			return 1;
		}
		p->last = key;
		p->history.now = key;
	}
	return report_deliver(&p->rep->consumer, ctx);
}

/* Chunks of at least CHUNK_BYTES of whole rounds. */
static void make_chunks(struct par *p)
{
	p->chunks = xreallocarray(NULL, p->nr_bounds, sizeof(*p->chunks));
	p->nr_chunks = 0;
	p->chunks[p->nr_chunks++] = 0;
	for (size_t i = 1; i < p->nr_bounds; i++)
		if (i == p->nr_bounds - 1 ||
		    p->bounds[i] - p->bounds[p->chunks[p->nr_chunks - 1]] >= CHUNK_BYTES)
			p->chunks[p->nr_chunks++] = i;
	p->nr_chunks--;
}

static const void *entry_comm(void *data, const struct thread_version *v)
{
	struct report *rep = data;

	/* as process_sample: a name set is final; the placeholder is the thread's own */
	return v->comm_set ? final_comm(rep, comm__str(v->comm)) : &v->thread->comm0;
}

/*
 * The placeholders of threads that never had a name (thread__with_comm's): made now, as
 * samples would have made them.
 */
static void name_threads(struct history *h, struct machine *m)
{
	for (size_t i = 0; i < h->nr_versions; i++) {
		struct thread *t = h->versions[i].thread;

		if (t && !t->comm) {
			char name[16];

			snprintf(name, sizeof(name), ":%d", t->tid);
			t->comm0.str = strpool_intern(&m->strings, name);
			t->comm = &t->comm0;
		}
	}
}

static void short_name(void *data, const struct maps_history *mh, const struct map_span *span)
{
	struct machine *m = data;

	(void)mh;
	dso__name_short(span->map->dso, &m->strings);
}

struct kernel_check {
	struct par *p;
	size_t alloc;
	bool overlaps;
};

static void kernel_overlap(void *data, const struct maps_history *mh, const struct map_span *span)
{
	struct kernel_check *c = data;
	struct par *p = c->p;

	if (mh->maps != p->rep->machine.kmaps)
		return;
	if (span->map == p->kernel_map) {
		ARRAY_GROW(p->kspans, c->alloc, p->nr_kspans + 1);
		p->kspans[p->nr_kspans++] = span;
	} else if (span->start < p->kend && span->end > p->kstart) {
		c->overlaps = true;
	}
}

/*
 * The kernel's symbols, loaded now rather than at the first sample in its map: its map's
 * bounds then, stretched over them. Samples only in the stretch are checked afterwards to
 * come after the first in the map as recorded (see finish).
 */
static void prepare_kernel(struct par *p)
{
	struct machine *m = &p->rep->machine;
	const struct kernel_map_bounds *b;
	struct kernel_check c = { p, 0, false };

	p->kernel_map = m->kernel_map;
	if (!p->kernel_map)
		return;
	p->kstart = p->kernel_map->start;
	p->kend = p->kernel_map->end;
	b = dso__load_kernel(p->kernel_map->dso, &m->symsrc, m->kernel_ref_reloc);
	if (b && b->valid) {
		p->kstart = b->start;
		p->kend = b->end;
	}
	history__for_each_span(&p->history, kernel_overlap, &c);
	if (c.overlaps)
		give_up(p, "the kernel's map over others");
}

static struct partial *claim(struct par *p)
{
	for (;;)
		for (size_t i = 0; i < p->nr_partials; i++)
			if (!__atomic_exchange_n(&p->partials[i].busy, 1, __ATOMIC_ACQUIRE))
				return &p->partials[i];
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
static const struct map_span *find_span(struct par *p, struct partial *w,
					const struct thread_version *v, u8 cpumode, u64 ip,
					struct model_key key, char *level)
{
	struct machine *m = &p->rep->machine;
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
	span = history__find_map(&p->history, maps, ip, key, &w->cache);
	if (maps != m->kmaps || !p->kernel_map)
		return span;
	if (span && span->map == p->kernel_map) {
		key_min(&w->kernel_hit, key);
		return span;
	}
	if (!span && ip >= p->kstart && ip < p->kend) {
		/* only in the stretch: the kernel's map, if a sample before it had loaded it */
		const struct map_span *k = NULL;

		for (size_t i = 0; !k && i < p->nr_kspans; i++)
			if (model_key_less(p->kspans[i]->from, key) &&
			    model_key_less(key, p->kspans[i]->to))
				k = p->kspans[i];
		if (k)
			key_min(&w->kernel_stretch, key);
		return k;
	}
	return span;
}

/* A sample resolved, waiting in its batch to be added (see add_batch). */
struct pending {
	struct hist_entry he;
	struct model_key key;
	u32 hists;
};

/* The symbol of addr in st, through w's cache of the spans found. */
static const struct symbol *find_symbol(struct partial *w, const struct symtab *st, u64 addr)
{
	struct sym_slot *slot = &w->syms[(((uintptr_t)st >> 6) ^ (addr >> 4)) % SYM_SLOTS];

	if (slot->st == st && addr >= slot->lo && addr < slot->hi)
		return slot->sym;
	slot->sym = symtab__find_span(st, addr, &slot->lo, &slot->hi);
	slot->st = slot->sym ? st : NULL;
	return slot->sym;
}

/* One sample resolved into out; false to give the run up. */
static bool resolve_sample(struct par *p, struct partial *w, struct perf_event_header *ev,
			   u64 pos, u64 *ts, struct pending *out)
{
	struct report *rep = p->rep;
	struct perf_session *s = &rep->session;
	struct evsel *evsel = perf_session__evsel_of(s, ev);
	struct hist_entry *he = &out->he;
	struct perf_sample sample;
	const struct thread_version *v;
	const struct map_span *span;
	struct model_key key;
	u8 cpumode;
	char level;

	if (!evsel || sample_parse(&evsel->attr, ev, &sample) || sample_time_untimed(sample.time)) {
		w->why = "a sample it cannot read";
		return false;
	}
	*ts = sample.time;
	key = (struct model_key){ sample.time, pos };
	v = history__thread_at(&p->history, (s32)sample.tid, key);
	/* a thread the sample would make, or tell its process: the model would change */
	if (!v || (v->pid == -1 && (s32)sample.pid != -1)) {
		w->why = "a sample that changes the model";
		return false;
	}
	cpumode = sample.misc & PERF_RECORD_MISC_CPUMODE_MASK;
	span = find_span(p, w, v, cpumode, sample.ip, key, &level);
	if (!span && (cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_USER)) {
		u8 at = sample.ip >= rep->machine.kernel_start ? PERF_RECORD_MISC_KERNEL
							       : PERF_RECORD_MISC_USER;

		if (at != cpumode)
			span = find_span(p, w, v, at, sample.ip, key, &level);
	}
	hist_entry__clear(he);
	he->thread = v->thread;
	he->comm = v->entry_comm;	/* entry_comm's */
	he->ip = sample.ip;
	if (span) {
		he->map = span->map;
		he->dso = span->map->dso;
		he->ip = map__map_ip(span->map, sample.ip);
		he->symtab = dso__symtab(he->dso, &rep->machine.symsrc);
		if (he->symtab)
			he->sym = find_symbol(w, he->symtab, he->ip);
	}
	he->cpu = (s32)sample.cpu;
	he->socket = he->cpu >= 0 && he->cpu < rep->nr_cpus ? rep->sockets[he->cpu] : -1;
	he->level = (u8)level;
	he->period = sample.period;
	out->key = key;
	out->hists = (u32)evsel->idx;
	return true;
}

/*
 * A batch of resolved samples into w's histograms: their index slots, then their entries
 * fetched for all of them first (each a likely cache miss at thousands of entries), then
 * added. The order they are added in within a worker changes nothing: each entry keeps the
 * keys of its first and last samples, and the fold goes by those.
 */
static void add_batch(struct partial *w, struct pending *batch, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		struct hists *h = &w->hists[batch[i].hists];

		batch[i].he.hash = (u32)hists__hash(h, &batch[i].he);
		hists__prefetch(h, batch[i].he.hash, CC_NO_CHAIN, false, 0);
	}
	for (size_t i = 0; i < nr; i++)
		hists__prefetch(&w->hists[batch[i].hists], batch[i].he.hash, CC_NO_CHAIN, false, 1);
	for (size_t i = 0; i < nr; i++) {
		struct hist_entry proto = batch[i].he;
		struct model_key key = batch[i].key;
		struct hists *hists = &w->hists[batch[i].hists];
		struct entry_keys *keys = &w->keys[batch[i].hists];
		size_t nr_before = hists->nr, e;

		hists__add(hists, &batch[i].he, CC_NO_CHAIN, map__base(proto.map));
		e = hists->last - 1;
		if (hists->nr > nr_before) {
			ARRAY_GROW(keys->v, keys->alloc, hists->nr);
			keys->v[e] = (struct entry_key){ key, key, proto.map, proto.dso };
			continue;
		}
		if (model_key_less(key, keys->v[e].first)) {
			/* an earlier sample than the one that made it: the entry is that sample's */
			struct hist_entry *x = &hists->entries[e];

			keys->v[e].first = key;
			x->thread = proto.thread;
			x->comm = proto.comm;
			x->sym = proto.sym;
			x->symtab = proto.symtab;
			x->ip = proto.ip;
			x->cpu = proto.cpu;
			x->socket = proto.socket;
			x->level = proto.level;
		}
		if (model_key_less(keys->v[e].last, key)) {
			keys->v[e].last = key;
			keys->v[e].last_map = proto.map;
			keys->v[e].last_dso = proto.dso;
		}
	}
}

#define WINDOW_BYTES (4u << 20)

/* Whether w's window holds [pos, pos + size). */
static bool in_window(const struct partial *w, u64 pos, u64 size)
{
	return pos >= w->buf_pos && pos + size <= w->buf_pos + w->buf_len;
}

/* w's window read from pos on: want bytes, or to the end of the chunk. */
static bool window_fill(struct par *p, struct partial *w, u64 pos, u64 want)
{
	ssize_t got;

	if (want > w->buf_alloc) {
		free(w->buf);
		w->buf = xaligned_alloc(64, want);
		w->buf_alloc = want;
	}
	got = pread(p->fd, w->buf, want, (off_t)pos);
	w->buf_pos = pos;
	w->buf_len = got > 0 ? (u64)got : 0;
	return w->buf_len == want;
}

/*
 * The record at pos, whole, in w's window (read as needed, by pread: no page faults and no
 * pages to drop after); NULL if the file does not give it (then the run is given up: the
 * streaming path says why).
 */
static struct perf_event_header *window_record(struct par *p, struct partial *w, u64 pos, u64 to)
{
	struct perf_event_header *ev;

	if (!in_window(w, pos, sizeof(*ev)) &&
	    !window_fill(p, w, pos, MIN(to - pos, (u64)WINDOW_BYTES)))
		return NULL;
	if (to - pos < sizeof(*ev))
		return NULL;
	ev = (void *)(w->buf + (pos - w->buf_pos));
	if (ev->size < sizeof(*ev) || ev->size > to - pos)
		return NULL;
	if (in_window(w, pos, ev->size))
		return ev;
	if (!window_fill(p, w, pos, MIN(to - pos, MAX((u64)WINDOW_BYTES, ev->size))))
		return NULL;
	return (void *)w->buf;
}

/* Pass 2, chunk i: its samples into a partial. */
static void resolve_chunk(size_t i, void *arg)
{
	struct par *p = arg;
	struct perf_session *s = &p->rep->session;
	struct partial *w = claim(p);
	u64 from = p->bounds[p->chunks[i]], to = p->bounds[p->chunks[i + 1]];
	u64 t0 = busy__thread_ns();
	size_t round = p->chunks[i];

	struct pending batch[BATCH];
	size_t nr = 0;

	for (u64 pos = from; pos < to && !w->fallback;) {
		struct perf_event_header *ev = window_record(p, w, pos, to);
		struct evsel *evsel;
		u64 ts = 0;

		if (!ev) {
			w->fallback = true;
			break;
		}
		while (pos >= p->bounds[round + 1])
			round++;
		if (ev->type == PERF_RECORD_SAMPLE) {
			w->first_sample_pos = MIN(w->first_sample_pos, pos);
			if (!resolve_sample(p, w, ev, pos, &ts, &batch[nr]))
				w->fallback = true;
			else if (++nr == BATCH)
				add_batch(w, batch, nr), nr = 0;
		} else if (ev->type && ev->type < PERF_RECORD_KERNEL_MAX) {
			ts = (evsel = perf_session__evsel_of(s, ev)) ?
				     sample_layout_time(&evsel->layout, ev) : 0;
		}
		if (!sample_time_untimed(ts)) {
			p->round_min[round] = MIN(p->round_min[round], ts);
			p->round_max[round] = MAX(p->round_max[round], ts);
		}
		pos += ev->size;
	}
	add_batch(w, batch, nr);
	busy__stage(BUSY_PARALLEL_CPU, busy__thread_ns() - t0);
	progress_add(to - from);
	__atomic_store_n(&w->busy, 0, __ATOMIC_RELEASE);
}

/* An entry of a partial and its keys, for the fold. */
struct fold_item {
	struct model_key first;
	u32 partial, entry;
};

static int fold_cmp(const void *a, const void *b)
{
	const struct fold_item *x = a, *y = b;

	if (model_key_less(x->first, y->first))
		return -1;
	return model_key_less(y->first, x->first) ? 1 : 0;
}

/* The partials of event ev folded into the report's histogram, first samples first. */
static void fold(struct par *p, size_t ev)
{
	struct hists *into = &p->rep->hists[ev];
	struct fold_item *items;
	struct model_key *last = NULL;
	size_t nr = 0, alloc_last = 0;

	for (size_t w = 0; w < p->nr_partials; w++)
		nr += p->partials[w].hists[ev].nr;
	items = xreallocarray(NULL, nr ? nr : 1, sizeof(*items));
	nr = 0;
	for (size_t w = 0; w < p->nr_partials; w++) {
		struct hists *h = &p->partials[w].hists[ev];

		for (size_t e = 0; e < h->nr; e++)
			items[nr++] = (struct fold_item){ p->partials[w].keys[ev].v[e].first,
							  (u32)w, (u32)e };
		into->nr_samples += h->nr_samples;
		into->nr_sample_events += h->nr_sample_events;
		into->nr_non_filtered_samples += h->nr_non_filtered_samples;
		into->total_period += h->total_period;
	}
	qsort(items, nr, sizeof(*items), fold_cmp);
	for (size_t i = 0; i < nr; i++) {
		struct partial *w = &p->partials[items[i].partial];
		struct hist_entry *he = &w->hists[ev].entries[items[i].entry];
		const struct entry_key *k = &w->keys[ev].v[items[i].entry];
		bool created;
		u32 e;

		he->thread = thread__get(he->thread);
		he->map = map__get(k->last_map);
		he->dso = k->last_dso;
		e = hists__merge(into, he, i + 1, &created);
		ARRAY_GROW(last, alloc_last, into->nr);
		if (created) {
			last[e] = k->last;
			continue;
		}
		thread__put(he->thread);
		if (model_key_less(last[e], k->last)) {
			/* perf's entry keeps the map of its latest sample */
			map__put(into->entries[e].map);
			into->entries[e].map = he->map;
			into->entries[e].dso = he->dso;
			last[e] = k->last;
		} else {
			map__put(he->map);
		}
		he->map = NULL;
	}
	hists__merge_done(into);
	free(last);
	free(items);
}

static void partials_exit(struct par *p)
{
	for (size_t w = 0; w < p->nr_partials; w++) {
		struct partial *pt = &p->partials[w];

		for (size_t ev = 0; ev < p->rep->session.nr_evsels; ev++) {
			/* their references are the history's */
			for (size_t e = 0; e < pt->hists[ev].nr; e++) {
				pt->hists[ev].entries[e].thread = NULL;
				pt->hists[ev].entries[e].map = NULL;
			}
			hists__exit(&pt->hists[ev]);
			free(pt->keys[ev].v);
		}
		free(pt->hists);
		free(pt->keys);
		free(pt->buf);
		free(pt->syms);
	}
	free(p->partials);
}

/*
 * Whether delivery order is key order: perf delivers, at each FINISHED_ROUND, what is
 * older than the largest time seen before the round before; a record older than something
 * delivered before it came would be out of key order (counted as unordered). A record of
 * round j is safe when no older one than it was seen before round j - 1 ended.
 */
static bool in_order(const struct par *p)
{
	u64 seen = 0;	/* the largest time of rounds 0..j - 2 */

	for (size_t j = 2; j < p->nr_bounds - 1; j++) {
		seen = MAX(seen, p->round_max[j - 2]);
		if (p->round_min[j] < seen)
			return false;
	}
	return true;
}

/* Pass 2 and the fold: 0, or 1 to give the run up. */
static int resolve_samples(struct par *p)
{
	struct report *rep = p->rep;
	size_t nr_ev = rep->session.nr_evsels;
	struct model_key hit = MODEL_KEY_MAX, stretch = MODEL_KEY_MAX;
	u64 first_sample = UINT64_MAX, t0;
	bool fallback = false;

	p->nr_partials = (size_t)(rep->wq ? workqueue__nr_threads(rep->wq) : 0) + 1;
	p->partials = xaligned_alloc(64, p->nr_partials * sizeof(*p->partials));
	memset(p->partials, 0, p->nr_partials * sizeof(*p->partials));
	p->round_min = xreallocarray(NULL, p->nr_bounds, sizeof(*p->round_min));
	p->round_max = xcalloc(p->nr_bounds, sizeof(*p->round_max));
	for (size_t r = 0; r < p->nr_bounds; r++)
		p->round_min[r] = UINT64_MAX;
	for (size_t w = 0; w < p->nr_partials; w++) {
		struct partial *pt = &p->partials[w];

		pt->hists = xcalloc(nr_ev, sizeof(*pt->hists));
		pt->keys = xcalloc(nr_ev, sizeof(*pt->keys));
		for (size_t ev = 0; ev < nr_ev; ev++) {
			hists__init(&pt->hists[ev], &rep->sort);
			pt->hists[ev].has_callchain = rep->hists[ev].has_callchain;
		}
		pt->kernel_hit = pt->kernel_stretch = MODEL_KEY_MAX;
		pt->syms = xcalloc(SYM_SLOTS, sizeof(*pt->syms));
		pt->first_sample_pos = UINT64_MAX;
	}
	progress_phase("resolving samples", p->bounds[p->nr_bounds - 1] - p->bounds[0]);
	t0 = clock_ns(CLOCK_MONOTONIC);
	workqueue__parallel_for(rep->wq, 0, p->nr_chunks, 1, resolve_chunk, p);
	busy__stage(BUSY_PARALLEL_WALL, clock_ns(CLOCK_MONOTONIC) - t0);
	for (size_t w = 0; w < p->nr_partials; w++) {
		if (p->partials[w].fallback)
			give_up(p, p->partials[w].why ? p->partials[w].why : "a record it cannot read");
		fallback |= p->partials[w].fallback;
		key_min(&hit, p->partials[w].kernel_hit);
		key_min(&stretch, p->partials[w].kernel_stretch);
		first_sample = MIN(first_sample, p->partials[w].first_sample_pos);
	}
	/* a sample only in the stretch before any loaded the kernel's symbols; an untimed
	 * record after a sample: the streaming path tells those apart */
	if (model_key_less(stretch, hit))
		give_up(p, "a sample in the kernel's map before it is loaded");
	if (p->last_untimed_pos && p->last_untimed_pos > first_sample)
		give_up(p, "an untimed record after a sample");
	if (!in_order(p))
		give_up(p, "records out of order");
	fallback |= p->fallback;
	if (!fallback) {
		for (size_t ev = 0; ev < nr_ev; ev++)
			fold(p, ev);
		/* the kernel's map as perf leaves it once a sample loaded its symbols */
		if (model_key_less(hit, MODEL_KEY_MAX) && (p->kstart != p->kernel_map->start ||
							   p->kend != p->kernel_map->end)) {
			p->kernel_map->start = p->kstart;
			p->kernel_map->end = p->kend;
			maps__changed(rep->machine.kmaps);
		}
	}
	partials_exit(p);
	return fallback;
}

/* What the run leaves besides the histograms. */
static void par_exit(struct par *p)
{
	history__exit(&p->history);
	free(p->bounds);
	free(p->chunks);
	free(p->kspans);
	free(p->round_min);
	free(p->round_max);
}

int report__run_parallel(struct report *rep)
{
	struct perf_session *s = &rep->session;
	struct par p = { .rep = rep };
	int ret;

	if (!parallel_eligible(rep)) {
		busy__path("streaming");
		return 1;
	}
	p.consumer.deliver = side_band;
	p.consumer.ignores = 1ull << PERF_RECORD_SAMPLE;
	add_bound(&p, s->header.data.offset);
	history__init(&p.history, &rep->machine);
	/* the file's pages mapped ahead on a thread of their own: the walk only reads */
	s->prefault = rep->wq != NULL;
	ret = perf_session__process(s, &p.consumer);
	s->prefault = false;
	history__finish(&p.history, &rep->machine);
	add_bound(&p, MIN(s->header.data.offset + s->header.data.size, s->size));
	if (ret || p.fallback) {
		busy_path(ret && !p.fallback ? "an error" : p.why);
		par_exit(&p);
		return 2;
	}
	if (!rep->sockets_read) {
		header__cpu_sockets(s, &rep->sockets, &rep->nr_cpus);
		rep->sockets_read = true;
	}
	name_threads(&p.history, &rep->machine);
	history__set_entry_comms(&p.history, entry_comm, rep);
	history__for_each_span(&p.history, short_name, &rep->machine);
	prepare_kernel(&p);
	make_chunks(&p);
	p.fd = open(s->data_path, O_RDONLY | O_CLOEXEC);
	if (p.fd < 0)
		give_up(&p, "the file does not open again");
	ret = p.fallback || resolve_samples(&p);
	if (p.fd >= 0)
		close(p.fd);
	if (!ret)
		s->stats.nr_unordered_events = 0;
	busy_path(ret ? p.why : NULL);
	par_exit(&p);
	return ret ? 2 : 0;
}
