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
#include "analyzer/report/report_parallel.h"

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

#define CHUNK_BYTES (1u << 20)	/* the least a worker takes at once */

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

void give_up(struct par *p, const char *why)
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

void add_bound(struct par *p, u64 pos)
{
	ARRAY_GROW(p->bounds, p->alloc_bounds, p->nr_bounds + 1);
	p->bounds[p->nr_bounds++] = pos;
}

/* Chunks of at least CHUNK_BYTES of whole rounds. */
static void make_chunks(struct par *p)
{
	p->chunks = xreallocarray(NULL, p->nr_bounds, sizeof(*p->chunks));
	p->nr_chunks = 0;
	p->chunks[p->nr_chunks++] = 0;
	for (size_t i = 1; i < p->nr_bounds; i++)
		if (i == p->nr_bounds - 1 ||
		    p->bounds[i] - p->bounds[p->chunks[p->nr_chunks - 1]] >=
			    (p->test_bytes ? p->test_bytes : CHUNK_BYTES))
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

struct partial *claim(struct par *p)
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

/* An earlier sample than the one that made entry x: the entry is that sample's. */
static void take_first(struct hist_entry *x, const struct hist_entry *proto)
{
	x->thread = proto->thread;
	x->comm = proto->comm;
	x->sym = proto->sym;
	x->symtab = proto->symtab;
	x->ip = proto->ip;
	x->cpu = proto->cpu;
	x->socket = proto->socket;
	x->level = proto->level;
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
			keys->v[e].first = key;
			take_first(&hists->entries[e], &proto);
		}
		if (model_key_less(keys->v[e].last, key)) {
			keys->v[e].last = key;
			keys->v[e].last_map = proto.map;
			keys->v[e].last_dso = proto.dso;
		}
	}
}

/* A round's least and largest times, as the chunk that holds it saw them; reset for the next. */
static void round_times(struct par *p, size_t round, u64 *rmin, u64 *rmax)
{
	p->round_min[round] = *rmin;
	p->round_max[round] = *rmax;
	*rmin = UINT64_MAX;
	*rmax = 0;
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
	/* the round's times kept here: workers writing next to each other would share lines */
	u64 rmin = UINT64_MAX, rmax = 0;

	for (u64 pos = from; pos < to && !w->fallback;) {
		struct perf_event_header *ev = window_record(p->fd, &w->win, pos, to);
		struct evsel *evsel;
		u64 ts = 0;

		if (!ev) {
			w->fallback = true;
			break;
		}
		while (pos >= p->bounds[round + 1]) {
			round_times(p, round, &rmin, &rmax);
			round++;
		}
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
			rmin = MIN(rmin, ts);
			rmax = MAX(rmax, ts);
		}
		pos += ev->size;
	}
	round_times(p, round, &rmin, &rmax);
	add_batch(w, batch, nr);
	busy__stage(BUSY_PARALLEL_CPU, busy__thread_ns() - t0);
	progress_add(to - from);
	__atomic_store_n(&w->busy, 0, __ATOMIC_RELEASE);
}

/*
 * The fold, in two steps. First, on every worker, the entries of all partials are merged
 * shard by shard (an entry's shard from its hash: equal entries meet in one), each keeping
 * the first and last samples of what it merged. Then the shards' entries, distinct by now,
 * go into the report's histogram in the order of their first samples, which is the order
 * perf made them in.
 */
struct shard {
	struct hists hists;	/* the entries' references are the history's */
	struct entry_keys keys;
};

struct fold_job {
	struct par *p;
	size_t ev, nr_shards;
	struct shard *shards;
	/* by partial, by shard: the partial's entries that go to that shard */
	u32 **bucket;
	size_t *nr_bucket;
};

/* Partial pt's histogram of event ev emptied, its memory freed. */
static void partial_release(struct partial *pt, size_t ev)
{
	/* their references are the history's */
	for (size_t e = 0; e < pt->hists[ev].nr; e++) {
		pt->hists[ev].entries[e].thread = NULL;
		pt->hists[ev].entries[e].map = NULL;
	}
	hists__exit(&pt->hists[ev]);
	hists__init(&pt->hists[ev], pt->hists[ev].sort);
	free(pt->keys[ev].v);
	pt->keys[ev] = (struct entry_keys){ 0 };
}

/* Which shard an entry goes to: the high bits of its hash (the index takes the low ones). */
static size_t shard_of(u32 hash, size_t nr_shards)
{
	return (size_t)(((u64)hash * nr_shards) >> 32);
}

/* Entry he of a partial, with its keys k, into shard sh. */
static void shard_add(struct shard *sh, struct hist_entry *he, const struct entry_key *k)
{
	struct entry_key *x;
	bool created;
	u32 i = hists__merge(&sh->hists, he, 0, &created);

	if (created) {
		ARRAY_GROW(sh->keys.v, sh->keys.alloc, sh->hists.nr);
		sh->keys.v[i] = *k;
		return;
	}
	x = &sh->keys.v[i];
	if (model_key_less(k->first, x->first)) {
		x->first = k->first;
		take_first(&sh->hists.entries[i], he);
	}
	if (model_key_less(x->last, k->last)) {
		x->last = k->last;
		x->last_map = k->last_map;
		x->last_dso = k->last_dso;
	}
}

/* Partial w's entries sorted into their shards' buckets. */
static void fold_bucket(size_t w, void *arg)
{
	struct fold_job *job = arg;
	const struct hists *h = &job->p->partials[w].hists[job->ev];
	size_t *nr = job->nr_bucket + w * job->nr_shards;
	u32 **bucket = job->bucket + w * job->nr_shards;

	for (size_t s = 0; s < job->nr_shards; s++)
		bucket[s] = xreallocarray(NULL, h->nr ? h->nr : 1, sizeof(**bucket));
	for (size_t e = 0; e < h->nr; e++) {
		size_t s = shard_of(h->entries[e].hash, job->nr_shards);

		bucket[s][nr[s]++] = (u32)e;
	}
}

static void fold_shard(size_t s, void *arg)
{
	struct fold_job *job = arg;
	struct shard *sh = &job->shards[s];
	size_t most = 0;

	/* as many entries as the partials bring at most: no copies as it grows */
	for (size_t w = 0; w < job->p->nr_partials; w++)
		most += job->nr_bucket[w * job->nr_shards + s];
	hists__reserve(&sh->hists, most, true);
	ARRAY_GROW(sh->keys.v, sh->keys.alloc, most);

	for (size_t w = 0; w < job->p->nr_partials; w++) {
		struct partial *pt = &job->p->partials[w];
		const u32 *bucket = job->bucket[w * job->nr_shards + s];

		for (size_t i = 0; i < job->nr_bucket[w * job->nr_shards + s]; i++)
			shard_add(sh, &pt->hists[job->ev].entries[bucket[i]],
				  &pt->keys[job->ev].v[bucket[i]]);
	}
}

/* A shard's entry, for the second step. */
struct fold_item {
	struct model_key first;
	u32 shard, entry;
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
	struct fold_job job = { .p = p, .ev = ev, .nr_shards = p->nr_partials * 4 };
	struct fold_item *items;
	size_t nr = 0;

	job.shards = xcalloc(job.nr_shards, sizeof(*job.shards));
	for (size_t s = 0; s < job.nr_shards; s++)
		hists__init(&job.shards[s].hists, into->sort);
	for (size_t w = 0; w < p->nr_partials; w++) {
		const struct hists *h = &p->partials[w].hists[ev];

		into->nr_samples += h->nr_samples;
		into->nr_sample_events += h->nr_sample_events;
		into->nr_non_filtered_samples += h->nr_non_filtered_samples;
		into->total_period += h->total_period;
	}
	job.bucket = xcalloc(p->nr_partials * job.nr_shards, sizeof(*job.bucket));
	job.nr_bucket = xcalloc(p->nr_partials * job.nr_shards, sizeof(*job.nr_bucket));
	workqueue__parallel_for(p->rep->wq, 0, p->nr_partials, 1, fold_bucket, &job);
	workqueue__parallel_for(p->rep->wq, 0, job.nr_shards, 1, fold_shard, &job);
	for (size_t b = 0; b < p->nr_partials * job.nr_shards; b++)
		free(job.bucket[b]);
	free(job.bucket);
	free(job.nr_bucket);
	/* the partials' memory freed first: what comes next reuses it rather than fault in more */
	for (size_t w = 0; w < p->nr_partials; w++)
		partial_release(&p->partials[w], ev);
	for (size_t s = 0; s < job.nr_shards; s++)
		nr += job.shards[s].hists.nr;
	items = xreallocarray(NULL, nr ? nr : 1, sizeof(*items));
	nr = 0;
	for (size_t s = 0; s < job.nr_shards; s++)
		for (size_t e = 0; e < job.shards[s].hists.nr; e++)
			items[nr++] = (struct fold_item){ job.shards[s].keys.v[e].first, (u32)s,
							  (u32)e };
	qsort(items, nr, sizeof(*items), fold_cmp);
	hists__reserve(into, nr, false);
	/* the shards' entries are distinct: appended, not looked up (the report's is empty) */
	for (size_t i = 0; i < nr; i++) {
		struct shard *sh = &job.shards[items[i].shard];
		struct hist_entry *he = &sh->hists.entries[items[i].entry];
		const struct entry_key *k = &sh->keys.v[items[i].entry];

		/* perf's entry keeps the map of its latest sample */
		he->map = k->last_map;
		he->dso = k->last_dso;
		hists__append(into, he, i + 1);
		/* the entry's references, of what the history holds */
		thread__get(he->thread);
		map__get(he->map);
	}
	hists__merge_done(into);
	for (size_t s = 0; s < job.nr_shards; s++) {
		for (size_t e = 0; e < job.shards[s].hists.nr; e++) {
			job.shards[s].hists.entries[e].thread = NULL;
			job.shards[s].hists.entries[e].map = NULL;
		}
		hists__exit(&job.shards[s].hists);
		free(job.shards[s].keys.v);
	}
	free(job.shards);
	free(items);
}

static void partials_exit(struct par *p)
{
	for (size_t w = 0; w < p->nr_partials; w++) {
		struct partial *pt = &p->partials[w];

		for (size_t ev = 0; pt->hists && ev < p->rep->session.nr_evsels; ev++)
			partial_release(pt, ev);
		free(pt->hists);
		free(pt->keys);
		free(pt->win.buf);
		free(pt->syms);
	}
	free(p->partials);
	p->partials = NULL;
	p->nr_partials = 0;
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

/* One partial per thread that may run pass 1 or 2's work at once. */
static void partials_init(struct par *p)
{
	p->nr_partials = (size_t)(p->rep->wq ? workqueue__nr_threads(p->rep->wq) : 0) + 1;
	p->partials = xaligned_alloc(64, p->nr_partials * sizeof(*p->partials));
	memset(p->partials, 0, p->nr_partials * sizeof(*p->partials));
}

/* Pass 2 and the fold: 0, or 1 to give the run up. */
static int resolve_samples(struct par *p)
{
	struct report *rep = p->rep;
	size_t nr_ev = rep->session.nr_evsels;
	struct model_key hit = MODEL_KEY_MAX, stretch = MODEL_KEY_MAX;
	u64 first_sample = UINT64_MAX, t0;
	bool fallback = false;

	p->round_min = xreallocarray(NULL, p->nr_bounds, sizeof(*p->round_min));
	p->round_max = xcalloc(p->nr_bounds, sizeof(*p->round_max));
	for (size_t r = 0; r < p->nr_bounds; r++)
		p->round_min[r] = UINT64_MAX;
	for (size_t w = 0; w < p->nr_partials; w++) {
		struct partial *pt = &p->partials[w];

		pt->fallback = false;
		pt->why = NULL;
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
	/* out of order first: what else a worker met may follow from it */
	if (!in_order(p))
		give_up(p, "records out of order");
	for (size_t w = 0; w < p->nr_partials; w++) {
		if (p->partials[w].fallback)
			give_up(p, p->partials[w].why ? p->partials[w].why : "a record it cannot read");
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
	fallback = p->fallback;
	if (!fallback) {
		t0 = clock_ns(CLOCK_MONOTONIC);
		for (size_t ev = 0; ev < nr_ev; ev++)
			fold(p, ev);
		busy__stage(BUSY_FOLD, clock_ns(CLOCK_MONOTONIC) - t0);
		/* the kernel's map as perf leaves it once a sample loaded its symbols */
		if (model_key_less(hit, MODEL_KEY_MAX) && (p->kstart != p->kernel_map->start ||
							   p->kend != p->kernel_map->end)) {
			p->kernel_map->start = p->kstart;
			p->kernel_map->end = p->kend;
			maps__changed(rep->machine.kmaps);
		}
	}
	return fallback;
}

/* What the run leaves besides the histograms. */
static void par_exit(struct par *p)
{
	partials_exit(p);
	scan_exit(p);
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
	struct par p = { .rep = rep, .fd = -1 };
	int ret;

	if (!parallel_eligible(rep)) {
		busy__path("streaming");
		return 1;
	}
	/* for the tests: small pieces and chunks, to cut small files in many */
	if (getenv("ANALYZE_PARALLEL_BYTES"))
		p.test_bytes = MAX(strtoull(getenv("ANALYZE_PARALLEL_BYTES"), NULL, 0), 1ull);
	p.data_start = s->header.data.offset;
	p.data_end = s->header.data.offset + s->header.data.size;
	p.fd = open(s->data_path, O_RDONLY | O_CLOEXEC);
	if (p.fd < 0 || !s->header.data.size || p.data_end > s->size || p.data_end < p.data_start)
		give_up(&p, "a file it cannot read whole");
	partials_init(&p);
	ret = p.fallback || !scan(&p);
	if (!ret) {
		if (!rep->sockets_read) {
			header__cpu_sockets(s, &rep->sockets, &rep->nr_cpus);
			rep->sockets_read = true;
		}
		name_threads(&p.history, &rep->machine);
		history__set_entry_comms(&p.history, entry_comm, rep);
		history__for_each_span(&p.history, short_name, &rep->machine);
		prepare_kernel(&p);
		make_chunks(&p);
		ret = p.fallback || resolve_samples(&p);
	}
	if (p.fd >= 0)
		close(p.fd);
	busy_path(ret ? p.why : NULL);
	par_exit(&p);
	return ret ? 2 : 0;
}
