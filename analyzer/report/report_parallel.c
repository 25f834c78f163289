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
#include "analyzer/passes/passes.h"
#include "analyzer/report/report_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/output/header.h"
#include "lib/busy.h"
#include "lib/clock.h"
#include "lib/error.h"
#include "lib/progress.h"
#include "lib/xalloc.h"

#define BATCH 16
#define CHUNK_BYTES (1u << 20)	/* the least a worker takes at once */

/*
 * A worker's histograms and what folding them needs of their entries (one per pass
 * worker, by its index); a line of its own.
 */
struct partial {
	_Alignas(64) struct hists *hists;	/* one per event */
	struct entry_keys *keys;	/* per event: by entry */
};

/* An entry's first and last samples, and the map of its last (perf's entry keeps it). */
struct entry_key {
	struct model_key first, last;
	struct map *last_map;
	struct dso *last_dso;
};

struct entry_keys {
	struct entry_key *v;
	size_t alloc;
};

/* One parallel run. */
struct par {
	struct report *rep;
	struct passes ps;
	struct partial *partials;	/* by pass worker */
	size_t nr_partials;
};

static bool parallel_eligible(const struct report *rep)
{
	if (!passes__eligible(&rep->session, true))
		return false;
	if (rep->chains || rep->unwinder || rep->need_parent || rep->exclude_other ||
	    rep->hide_unresolved || rep->sample_values || rep->sort.branch || rep->sort.mem)
		return false;
	if (rep->comms.nr || rep->dsos.nr || rep->symbols.nr || rep->pids.nr || rep->tids.nr ||
	    rep->time.nr || rep->cpus.cpus || rep->evswitch.on || rep->evswitch.off)
		return false;
	return !lookups_can_fail(&rep->sort);
}

static const void *entry_comm(void *data, const struct thread_version *v)
{
	struct report *rep = data;

	/* as process_sample: a name set is final; the placeholder is the thread's own */
	return v->comm_set ? final_comm(rep, comm__str(v->comm)) : &v->thread->comm0;
}

/* A sample resolved, waiting in its batch to be added (see add_batch). */
struct pending {
	struct hist_entry he;
	struct model_key key;
	u32 hists;
};

/* One resolved sample into out, an entry to add. */
static void resolve_sample(struct par *p, struct pass_worker *w, const struct pass_sample *ps,
			   struct pending *out)
{
	struct report *rep = p->rep;
	struct hist_entry *he = &out->he;

	hist_entry__clear(he);
	he->thread = ps->v->thread;
	he->comm = ps->v->entry_comm;	/* entry_comm's */
	he->ip = ps->sample.ip;
	if (ps->span) {
		he->map = ps->span->map;
		he->dso = ps->span->map->dso;
		he->ip = map__map_ip(ps->span->map, ps->sample.ip);
		he->symtab = dso__symtab(he->dso, &rep->machine.symsrc);
		if (he->symtab)
			he->sym = passes__find_symbol(w, he->symtab, he->ip);
	}
	he->cpu = (s32)ps->sample.cpu;
	he->socket = he->cpu >= 0 && he->cpu < rep->nr_cpus ? rep->sockets[he->cpu] : -1;
	he->level = (u8)ps->level;
	he->period = ps->sample.period;
	out->key = ps->key;
	out->hists = (u32)ps->evsel->idx;
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

/* Pass 2's work for one chunk: its samples resolved, in batches, into a partial. */
struct chunk_run {
	struct par *p;
	struct partial *pt;
	struct pending batch[BATCH];
	size_t nr;
};

static void chunk_sample(void *arg, struct pass_worker *w, const struct pass_sample *ps)
{
	struct chunk_run *run = arg;

	resolve_sample(run->p, w, ps, &run->batch[run->nr]);
	if (++run->nr == BATCH) {
		add_batch(run->pt, run->batch, run->nr);
		run->nr = 0;
	}
}

/* Pass 2, chunk i: its samples into the partial of the worker that runs it. */
static void resolve_chunk(size_t i, void *arg)
{
	struct par *p = arg;
	struct pass_worker *w = passes__claim(&p->ps);
	struct chunk_run run = { .p = p, .pt = &p->partials[w->index] };

	passes__walk_chunk(&p->ps, w, i, chunk_sample, &run);
	add_batch(run.pt, run.batch, run.nr);
	progress_add(p->ps.bounds[p->ps.chunks[i + 1]] - p->ps.bounds[p->ps.chunks[i]]);
	passes__release(w);
}

/*
 * The fold, in two steps. First, on every worker, the entries of all partials are merged
 * shard by shard (an entry's shard from its hash: equal entries meet in one), each keeping
 * the first and last samples of what it merged. Then the shards' entries, distinct by now,
 * go into the report's histogram in the order of their first samples, which is the order
 * perf made them in.
 */
struct shard {
	_Alignas(64) struct hists hists;	/* the entries' references are the history's */
	struct entry_keys keys;
	u32 *order;	/* its entries by their first samples */
};

struct fold_job {
	struct par *p;
	size_t ev, nr_shards;
	struct shard *shards;
	/* by partial, by shard: the partial's entries that go to that shard */
	u32 **bucket;
	size_t *nr_bucket;
	/* the last step: every entry in the order of first samples, and where they go */
	struct fold_item *items;
	size_t nr_items;
	struct hist_entry *into;
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

/* Two entries of a shard by their first samples (distinct keys). */
static int by_first_key(const void *a, const void *b, void *arg)
{
	const struct entry_keys *k = arg;
	struct model_key x = k->v[*(const u32 *)a].first, y = k->v[*(const u32 *)b].first;

	return model_key_less(x, y) ? -1 : model_key_less(y, x) ? 1 : 0;
}

static void fold_shard(size_t s, void *arg)
{
	struct fold_job *job = arg;
	struct shard *sh = &job->shards[s];
	size_t most = 0;

	/* as many entries as the partials bring at most: no copies as it grows */
	for (size_t w = 0; w < job->p->nr_partials; w++)
		most += job->nr_bucket[w * job->nr_shards + s];
	hists__reserve(&sh->hists, most);
	ARRAY_GROW(sh->keys.v, sh->keys.alloc, most);

	for (size_t w = 0; w < job->p->nr_partials; w++) {
		struct partial *pt = &job->p->partials[w];
		const u32 *bucket = job->bucket[w * job->nr_shards + s];

		for (size_t i = 0; i < job->nr_bucket[w * job->nr_shards + s]; i++)
			shard_add(sh, &pt->hists[job->ev].entries[bucket[i]],
				  &pt->keys[job->ev].v[bucket[i]]);
	}
	sh->order = xreallocarray(NULL, sh->hists.nr ? sh->hists.nr : 1, sizeof(*sh->order));
	for (u32 e = 0; e < sh->hists.nr; e++)
		sh->order[e] = e;
	qsort_r(sh->order, sh->hists.nr, sizeof(*sh->order), by_first_key, &sh->keys);
}

/* A shard's entry, for the second step. */
struct fold_item {
	u32 shard, entry;
};

/*
 * The shards' orders merged into one: the entries by their first samples (a few shards:
 * the least head of them found by looking at each).
 */
static void merge_orders(struct fold_job *job)
{
	size_t *at = xcalloc(job->nr_shards, sizeof(*at));

	for (size_t i = 0; i < job->nr_items; i++) {
		size_t best = SIZE_MAX;
		struct model_key key = MODEL_KEY_MAX;

		for (size_t s = 0; s < job->nr_shards; s++) {
			struct shard *sh = &job->shards[s];

			if (at[s] < sh->hists.nr &&
			    (best == SIZE_MAX ||
			     model_key_less(sh->keys.v[sh->order[at[s]]].first, key))) {
				best = s;
				key = sh->keys.v[sh->order[at[s]]].first;
			}
		}
		job->items[i] = (struct fold_item){ (u32)best, job->shards[best].order[at[best]++] };
	}
	free(at);
}

#define APPEND_BLOCK 1024	/* entries a worker copies at once */

/* Block b of the entries copied to their places in the report's histogram. */
static void fold_place(size_t b, void *arg)
{
	struct fold_job *job = arg;
	size_t end = MIN(job->nr_items, (b + 1) * APPEND_BLOCK);

	for (size_t i = b * APPEND_BLOCK; i < end; i++) {
		struct shard *sh = &job->shards[job->items[i].shard];
		struct hist_entry *he = &job->into[i];
		const struct entry_key *k = &sh->keys.v[job->items[i].entry];

		*he = sh->hists.entries[job->items[i].entry];
		/* perf's entry keeps the map of its latest sample */
		he->map = k->last_map;
		he->dso = k->last_dso;
		he->first = i + 1;
	}
}

/* The partials of event ev folded into the report's histogram, first samples first. */
static void fold(struct par *p, size_t ev)
{
	struct hists *into = &p->rep->hists[ev];
	struct fold_job job = { .p = p, .ev = ev, .nr_shards = p->nr_partials * 4 };

	job.shards = xaligned_alloc(64, job.nr_shards * sizeof(*job.shards));
	memset(job.shards, 0, job.nr_shards * sizeof(*job.shards));
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
		job.nr_items += job.shards[s].hists.nr;
	job.items = xreallocarray(NULL, job.nr_items ? job.nr_items : 1, sizeof(*job.items));
	merge_orders(&job);
	/* the shards' entries are distinct: placed, not looked up (the report's is empty) */
	job.into = hists__append_n(into, job.nr_items);
	workqueue__parallel_for(p->rep->wq, 0, (job.nr_items + APPEND_BLOCK - 1) / APPEND_BLOCK, 1,
				fold_place, &job);
	/* the entries' references, of what the history holds: here, counts are one thread's */
	for (size_t i = 0; i < job.nr_items; i++) {
		thread__get(job.into[i].thread);
		map__get(job.into[i].map);
	}
	hists__merge_done(into);
	for (size_t s = 0; s < job.nr_shards; s++) {
		for (size_t e = 0; e < job.shards[s].hists.nr; e++) {
			job.shards[s].hists.entries[e].thread = NULL;
			job.shards[s].hists.entries[e].map = NULL;
		}
		hists__exit(&job.shards[s].hists);
		free(job.shards[s].keys.v);
		free(job.shards[s].order);
	}
	free(job.shards);
	free(job.items);
}

static void partials_exit(struct par *p)
{
	for (size_t w = 0; w < p->nr_partials; w++) {
		struct partial *pt = &p->partials[w];

		for (size_t ev = 0; pt->hists && ev < p->rep->session.nr_evsels; ev++)
			partial_release(pt, ev);
		free(pt->hists);
		free(pt->keys);
	}
	free(p->partials);
	p->partials = NULL;
	p->nr_partials = 0;
}

/* One partial per pass worker, its histograms empty. */
static void partials_init(struct par *p)
{
	struct report *rep = p->rep;
	size_t nr_ev = rep->session.nr_evsels;

	p->nr_partials = p->ps.nr_workers;
	p->partials = xaligned_alloc(64, p->nr_partials * sizeof(*p->partials));
	memset(p->partials, 0, p->nr_partials * sizeof(*p->partials));
	for (size_t w = 0; w < p->nr_partials; w++) {
		struct partial *pt = &p->partials[w];

		pt->hists = xcalloc(nr_ev, sizeof(*pt->hists));
		pt->keys = xcalloc(nr_ev, sizeof(*pt->keys));
		for (size_t ev = 0; ev < nr_ev; ev++) {
			hists__init(&pt->hists[ev], &rep->sort);
			pt->hists[ev].has_callchain = rep->hists[ev].has_callchain;
		}
	}
}

/* Pass 2 and the fold: true when done. */
static bool resolve_samples(struct par *p)
{
	struct passes *ps = &p->ps;
	u64 t0;

	partials_init(p);
	progress_phase("resolving samples", ps->bounds[ps->nr_bounds - 1] - ps->bounds[0]);
	t0 = clock_ns(CLOCK_MONOTONIC);
	workqueue__parallel_for(p->rep->wq, 0, ps->nr_chunks, 1, resolve_chunk, p);
	busy__stage(BUSY_PARALLEL_WALL, clock_ns(CLOCK_MONOTONIC) - t0);
	if (!passes__check(ps))
		return false;
	t0 = clock_ns(CLOCK_MONOTONIC);
	for (size_t ev = 0; ev < p->rep->session.nr_evsels; ev++)
		fold(p, ev);
	busy__stage(BUSY_FOLD, clock_ns(CLOCK_MONOTONIC) - t0);
	passes__finish(ps);
	return true;
}

int report__run_parallel(struct report *rep)
{
	struct par p = { .rep = rep };
	bool done = false;

	if (!parallel_eligible(rep)) {
		busy__path("streaming");
		return 1;
	}
	if (passes__start(&p.ps, &rep->session, &rep->machine, &rep->consumer, rep->wq,
			  CHUNK_BYTES)) {
		if (!rep->sockets_read) {
			header__cpu_sockets(&rep->session, &rep->sockets, &rep->nr_cpus);
			rep->sockets_read = true;
		}
		history__set_entry_comms(&p.ps.history, entry_comm, rep);
		done = resolve_samples(&p);
	}
	passes__busy_path(&p.ps, done);
	partials_exit(&p);
	passes__exit(&p.ps);
	return done ? 0 : 2;
}
