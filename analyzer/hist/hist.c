/*
 * Histogram entries, their ordering and stdio printing, after perf 6.1's hist.c, sort.c and
 * ui/stdio/hist.c (facts: comparator directions, column widths, padding, truncation).
 */
#include "analyzer/hist/hist_internal.h"

#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "lib/xxhash_inline.h"

#include "lib/rbtree.h"
#include "lib/xalloc.h"

void hists__init(struct hists *hists, const struct sort_list *sort)
{
	memset(hists, 0, sizeof(*hists));
	hists->sort = sort;
}

void hists__exit(struct hists *hists)
{
	for (size_t i = 0; i < hists->nr; i++) {
		thread__put(hists->entries[i].thread);
		map__put(hists->entries[i].map);
	}
	for (size_t i = 0; hists->pairs && i < hists->nr_pairs; i++)
		if (hists->pairs[i].owns_thread)
			thread__put(hists->pairs[i].thread);
	for (size_t i = 0; i < hists->nr_wrap_threads; i++)
		if (hists->wrap_threads[i].owns)
			thread__put(hists->wrap_threads[i].thread);
	free(hists->wrap_threads);
	hashmap_exit(&hists->wrap_thread_ids);
	free(hists->wraps);
	free(hists->in_order);
	rbtree__exit(&hists->entries_in);
	free(hists->entries);
	free(hists->merged_into);
	hashmap_exit(&hists->object_maps);
	free(hists->omaps);
	free(hists->index.slots);
	free(hists->pairs);
	free(hists->counts);
	free(hists->pair_index.slots);
	free(hists->contribs);
}

/* Entry e is folded into entry into. */
static void merge_into(struct hists *hists, u32 e, u32 into)
{
	ARRAY_GROW(hists->merged_into, hists->merged_into_alloc, hists->nr);
	hists->entries[e].merged = true;
	hists->merged_into[e] = into;
}

/* The map entry e (of a data symbol) names its symbol by, if it has one yet. */
const struct object_map *object_map(const struct hists *hists, u32 e)
{
	uintptr_t i = (uintptr_t)hashmap_find(&hists->object_maps, e);

	return i ? &hists->omaps[i - 1] : NULL;
}

/*
 * Entry e's map is base's, if e is of a data symbol (the others need none) and the sample
 * numbered last is no earlier than its map's.
 */
static void object_map_set(struct hists *hists, u32 e, u64 base, u64 last)
{
	uintptr_t i;

	if (!hists->entries[e].sym || !hists->entries[e].sym->object)
		return;
	i = (uintptr_t)hashmap_find(&hists->object_maps, e);

	if (!i) {
		ARRAY_GROW(hists->omaps, hists->omaps_alloc, hists->nr_omaps + 1);
		hists->omaps[hists->nr_omaps++] = (struct object_map){ .base = base, .last = last };
		hashmap_insert(&hists->object_maps, e, (void *)(uintptr_t)hists->nr_omaps);
	} else if (last >= hists->omaps[i - 1].last) {
		hists->omaps[i - 1] = (struct object_map){ .base = base, .last = last };
	}
}

/* An entry of an address without a map: see struct replay. */
static bool entry_wraps(const struct hist_entry *he)
{
	return !he->merged && !he->dso && !he->sym;
}

/*
 * The entry index: open addressing over entry numbers (+1, 0 is empty), probed by the bits
 * of the entries' key hashes, which are good hashes already. Grows at half full.
 */
static void index_grow(struct entry_index *x, const struct hist_entry *entries, size_t nr)
{
	size_t cap = x->cap ? x->cap * 2 : 1024;

	while (cap < 2 * (nr + 1))	/* an index let go of (hists__fprintf) comes back whole */
		cap *= 2;

	free(x->slots);
	x->slots = xcalloc_populated(cap, sizeof(*x->slots));
	x->cap = cap;
	for (size_t i = 0; i < nr; i++) {
		size_t j = entries[i].hash & (cap - 1);

		if (entries[i].merged)
			continue;
		while (x->slots[j])
			j = (j + 1) & (cap - 1);
		x->slots[j] = (u32)(i + 1);
	}
}

/* The entry equal to proto (with hash), or NULL; *slot is where it would go. */
static struct hist_entry *index_find(const struct entry_index *x, struct hist_entry *entries,
				     const struct sort_list *sort, const struct hist_entry *proto,
				     u64 hash, size_t *slot)
{
	size_t j = hash & (x->cap - 1);

	for (; x->slots[j]; j = (j + 1) & (x->cap - 1)) {
		struct hist_entry *he = &entries[x->slots[j] - 1];

		if (he->hash == hash && entry_equal(sort, he, proto)) {
			*slot = j;
			return he;
		}
	}
	*slot = j;
	return NULL;
}

static void entry_merge(struct hist_entry *he, struct hist_entry *proto)
{
	he->period += proto->period;
	he->period_acc += proto->period_acc;
	he->nr_events++;
	/* perf refreshes the map of an entry whose mapping was replaced (references swap) */
	if (he->map != proto->map) {
		struct map *old = he->map;

		he->map = proto->map;
		he->dso = proto->dso;
		proto->map = old;
	}
}

/*
 * The pairs index: open addressing over pair numbers (+1), as the entry index. A sample's
 * chain is counted once per entry, chain and filter state. A pair is hashed by its entry's
 * hash rather than its number, which a sample's own hash foretells: hists__prefetch fetches
 * its slot and pair ahead.
 */
static u64 pair_hash(u64 entry_hash, u32 chain, bool filtered)
{
	u64 key[2] = { entry_hash, (u64)chain << 1 | filtered };

	return XXH3_64bits(key, sizeof(key));
}

static u32 pair_add(struct hists *hists, u32 entry, u32 chain, struct hist_entry *proto)
{
	bool filtered = proto->filtered;
	u64 period = proto->period;
	struct entry_index *x = &hists->pair_index;
	u64 hash = pair_hash(hists->entries[entry].hash, chain, filtered);
	struct chain_pair *p;
	size_t j;

	if (2 * (hists->nr_pairs + 1) > x->cap) {
		size_t cap = x->cap ? x->cap * 2 : 1024;

		free(x->slots);
		x->slots = xcalloc_populated(cap, sizeof(*x->slots));
		x->cap = cap;
		for (size_t i = 0; i < hists->nr_pairs; i++) {
			p = &hists->pairs[i];
			j = pair_hash(hists->entries[p->entry].hash, p->chain, p->filtered) &
			    (cap - 1);
			while (x->slots[j])
				j = (j + 1) & (cap - 1);
			x->slots[j] = (u32)(i + 1);
		}
	}
	for (j = hash & (x->cap - 1); x->slots[j]; j = (j + 1) & (x->cap - 1)) {
		p = &hists->pairs[x->slots[j] - 1];
		if (p->entry == entry && p->chain == chain && p->filtered == filtered) {
			p->period += period;
			p->count++;
			p->last = hists->nr_samples;
			return x->slots[j] - 1;
		}
	}
	ARRAY_GROW(hists->pairs, hists->pairs_alloc, hists->nr_pairs + 1);
	p = &hists->pairs[hists->nr_pairs];
	*p = (struct chain_pair){ .entry = entry, .chain = chain, .count = 1, .filtered = filtered,
				  .period = period, .first = hists->nr_samples,
				  .last = hists->nr_samples, .level = proto->level,
				  .thread = hists->entries[entry].thread, .comm = proto->comm };
	/* the sample's thread: the entry's (borrowed), or the reference the sample holds */
	if (proto->thread && proto->thread != p->thread) {
		p->thread = proto->thread;
		p->owns_thread = true;
		proto->thread = NULL;
	}
	x->slots[j] = (u32)++hists->nr_pairs;
	return (u32)hists->nr_pairs - 1;
}

static int find_dir(void *arg, u32 item, u32 node);
static size_t replay_collapse(struct hists *hists, struct rbtree *t, u32 *order, size_t nr,
			      rbtree_dir_fn dir, void *ctx);

/*
 * With a symbol key and no dso key (--sort sym, sym,pid...), perf's comparison of entries is
 * not transitive: two unresolved addresses compare by address alone, one of them with a
 * resolved symbol by dso first. perf's lookups in its first tree (entries_in) then sometimes
 * end at a leaf though an equal entry is in the tree, and make a second one (one line of the
 * output becomes two, which ones depending on the tree's shape). Outside the children view
 * (whose entries come from the run's chains afterwards: not emulated, the README says so),
 * the entries are then found as perf finds them: through the same tree, built by the same
 * inserts (lib/rbtree), instead of the hash index.
 */
static bool lookups_can_fail(const struct sort_list *sort)
{
	return sort->sym_by_dso &&
	       (sort_list__has(sort, SORT_SYM) || sort_list__has(sort, SORT_IPC_NULL));
}

/*
 * The entry equal to proto, or a new one made of it (taking its references, with nothing
 * counted yet: *created): its index.
 */
static size_t entry_findnew(struct hists *hists, struct hist_entry *proto, bool *created)
{
	struct hist_entry *he;
	size_t slot = 0;
	u64 hash = proto->hash ? proto->hash : entry_hash(hists->sort, proto);

	if (hists->tree_mode) {
		u32 found;

		/* perf's lookup: proto, in the next entry's place, walked down from the root */
		ARRAY_GROW(hists->entries, hists->alloc, hists->nr + 1);
		hists->entries[hists->nr] = *proto;
		rbtree__reserve(&hists->entries_in, hists->nr + 1);
		found = rbtree__insert(&hists->entries_in, (u32)hists->nr, find_dir, hists);
		*created = found == RBTREE_NONE;
		if (!*created)
			return found;
	} else {
		if (2 * (hists->nr + 1) > hists->index.cap)
			index_grow(&hists->index, hists->entries, hists->nr);
		he = index_find(&hists->index, hists->entries, hists->sort, proto, hash, &slot);
		*created = !he;
		if (he)
			return (size_t)(he - hists->entries);
		ARRAY_GROW(hists->entries, hists->alloc, hists->nr + 1);
	}
	he = &hists->entries[hists->nr];
	*he = *proto;
	he->hash = hash;
	he->nr_events = 0;
	he->period = 0;
	he->period_acc = 0;
	he->first = UINT64_MAX;
	he->first_pos = 0;
	proto->thread = NULL;	/* the entry took both references */
	proto->map = NULL;
	if (!hists->tree_mode)
		hists->index.slots[slot] = (u32)(hists->nr + 1);
	return hists->nr++;
}

/*
 * The index of a wrapping sample's thread: each kept once, with the sample's own reference if
 * nothing took it, else borrowed (its entry or pair holds one until the run is over).
 */
static u32 wrap_thread(struct hists *hists, struct thread *thread, struct hist_entry *proto)
{
	void *v = hashmap_find(&hists->wrap_thread_ids, (u64)(uintptr_t)thread);
	struct hist_wrap_thread *t;

	if (v)
		return (u32)((uintptr_t)v - 1);
	ARRAY_GROW(hists->wrap_threads, hists->wrap_threads_alloc, hists->nr_wrap_threads + 1);
	t = &hists->wrap_threads[hists->nr_wrap_threads++];
	t->thread = thread;
	t->owns = thread && proto->thread == thread;
	if (t->owns)
		proto->thread = NULL;
	hashmap_insert(&hists->wrap_thread_ids, (u64)(uintptr_t)thread,
		       (void *)(uintptr_t)hists->nr_wrap_threads);
	return (u32)hists->nr_wrap_threads - 1;
}

void hists__add(struct hists *hists, struct hist_entry *proto, u32 chain, u64 map_base)
{
	struct thread *thread = proto->thread;
	u64 sample_period = proto->period;
	/* in the children view, entries of addresses without a map: see struct replay */
	bool wraps = hists->cumulate && (entry_wraps(proto) ||
					 (chain != CC_NO_CHAIN && proto->unmapped_chain));
	u32 pair = UINT32_MAX;
	size_t i;

	if (!hists->nr_samples && lookups_can_fail(hists->sort) && !hists->cumulate) {
		hists->tree_mode = true;
		rbtree__init(&hists->entries_in, 0);
	}
	hists->nr_samples++;
	hists->nr_sample_events++;
	hists->total_period += proto->period;
	if (!proto->filtered)
		hists->nr_non_filtered_samples++;
	if (hists->cumulate)
		proto->period_acc = proto->period;
	/*
	 * consecutive samples often land in the same entry (not through perf's tree: equal keys
	 * need not take the same path down it)
	 */
	if (hists->last && !hists->tree_mode &&
	    (!proto->hash || hists->entries[hists->last - 1].hash == proto->hash) &&
	    entry_equal(hists->sort, &hists->entries[hists->last - 1], proto)) {
		i = hists->last - 1;
		entry_merge(&hists->entries[i], proto);
	} else {
		u64 period = proto->period, period_acc = proto->period_acc;
		bool created;

		i = entry_findnew(hists, proto, &created);
		if (created) {
			hists->entries[i].period = period;
			hists->entries[i].period_acc = period_acc;
			hists->entries[i].nr_events = 1;
			hists->entries[i].first = hists->nr_samples;
		} else {
			entry_merge(&hists->entries[i], proto);
		}
		hists->last = i + 1;
	}
	object_map_set(hists, (u32)i, map_base, hists->nr_samples);	/* the sample's map now */
	if (chain != CC_NO_CHAIN)
		pair = pair_add(hists, (u32)i, chain, proto);
	if (wraps && (hists->nr_samples > UINT32_MAX || sample_period > UINT32_MAX ||
		      hists->nr_pairs >= 1u << 31 || hists->nr >= 1u << 31)) {
		hists->wraps_off = true;
		free(hists->wraps);
		hists->wraps = NULL;
		hists->nr_wraps = hists->wraps_alloc = 0;
	}
	if (wraps && !hists->wraps_off) {
		ARRAY_GROW(hists->wraps, hists->wraps_alloc, hists->nr_wraps + 1);
		hists->wraps[hists->nr_wraps++] = (struct hist_wrap_sample){
			.sample = (u32)hists->nr_samples, .period = (u32)sample_period,
			.ref = pair != UINT32_MAX ? pair : (u32)i, .chainless = pair == UINT32_MAX,
			.thread = wrap_thread(hists, thread, proto) };
	}
}

u64 hists__hash(const struct hists *hists, const struct hist_entry *proto)
{
	return entry_hash(hists->sort, proto);
}

void hists__prefetch(const struct hists *hists, u64 hash, u32 chain, bool filtered, int stage)
{
	const struct hist_entry *he;
	size_t j;
	u32 slot;

	/* the sample's chain's pair: its slot, then the pair */
	if (chain != CC_NO_CHAIN && hists->pair_index.cap) {
		j = pair_hash(hash, chain, filtered) & (hists->pair_index.cap - 1);
		if (stage == 0) {
			__builtin_prefetch(&hists->pair_index.slots[j]);
		} else {
			slot = hists->pair_index.slots[j];
			if (slot && slot <= hists->nr_pairs)
				__builtin_prefetch(&hists->pairs[slot - 1]);
		}
	}
	if (!hists->index.cap)
		return;
	j = hash & (hists->index.cap - 1);
	if (stage == 0) {
		__builtin_prefetch(&hists->index.slots[j]);
		return;
	}
	slot = hists->index.slots[j];
	if (!slot || slot > hists->nr)
		return;
	/* the first probe's entry: its hash and keys, then the counts hists__add writes */
	he = &hists->entries[slot - 1];
	for (uintptr_t line = (uintptr_t)he & ~(uintptr_t)63; line < (uintptr_t)(he + 1); line += 64)
		__builtin_prefetch((const void *)line);
}

/*
 * perf's final collapse (hists__collapse_resort): comms renamed after their entries were made
 * (the first COMM of a thread overrides its ":tid" placeholder) can make two entries equal;
 * they are merged, the earlier one absorbing the later.
 */
void hists__collapse(struct hists *hists)
{
	struct entry_index x = { 0 };

	if (hists->collapsed)
		return;
	hists->collapsed = true;
	if (hists->tree_mode) {	/* perf's first tree as built, and its collapse */
		hists->in_order = xmalloc_populated((hists->nr ? hists->nr : 1) * sizeof(*hists->in_order));
		hists->nr_in_order = rbtree__walk(&hists->entries_in, hists->in_order);
		if (sort_list__has(hists->sort, SORT_COMM))
			hists->nr_in_order = replay_collapse(hists, &hists->entries_in,
							     hists->in_order, hists->nr_in_order,
							     find_dir, hists);
		return;
	}
	if (!sort_list__has(hists->sort, SORT_COMM))
		return;
	/* the index by the old hashes goes first: not both at once (a MB at 128k entries) */
	free(hists->index.slots);
	hists->index = (struct entry_index){ 0 };
	for (size_t i = 0; i < hists->nr; i++)
		hists->entries[i].hash = entry_hash(hists->sort, &hists->entries[i]);
	for (size_t i = 0; i < hists->nr; i++) {
		struct hist_entry *he = &hists->entries[i], *first;
		size_t slot;

		if (2 * (i + 1) > x.cap)
			index_grow(&x, hists->entries, i);
		first = index_find(&x, hists->entries, hists->sort, he, he->hash, &slot);
		if (first) {
			first->period += he->period;
			first->period_acc += he->period_acc;
			first->nr_events += he->nr_events;
			merge_into(hists, (u32)i, (u32)(first - hists->entries));
		} else {
			x.slots[slot] = (u32)(i + 1);
		}
	}
	/* the index of what is left, by the hashes of the final comms */
	hists->index = x;
	hists->last = 0;
}

/* The entry e ends up in. */
static u32 final_entry(const struct hists *hists, u32 e)
{
	while (hists->entries[e].merged)
		e = hists->merged_into[e];
	return e;
}

#define NO_ENTRY UINT32_MAX

/*
 * The whole pages of [lo, hi), memory read for the last time, given back as an array is
 * read through (its memory reads as zero after). *from: where the last call stopped.
 */
static void release_read(uintptr_t lo, uintptr_t hi, uintptr_t *from)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);

	lo = (MAX(lo, *from) + page - 1) & ~(page - 1);
	hi &= ~(page - 1);
	if (hi > lo && !madvise((void *)lo, hi - lo, MADV_DONTNEED))
		*from = hi;
}

/*
 * The heap's free pages given back, when much was freed and what comes is large: arrays from
 * 2 MB on a large input are mappings of their own (main.c), which take fresh pages while
 * the heap keeps the freed ones resident (the busy recording's report: 5 MB of 40 before
 * its output order).
 */
void release_free(void)
{
	malloc_trim(0);
}

/*
 * What the cumulation hands the replay (struct replay), which runs on another thread
 * meanwhile: the entries the replay inserts into perf's first tree (all but the wrapping
 * ones), in the order perf inserted them (by_first), each once its first sample and place in
 * it are final. The pairs are cumulated in the order of their first samples, and an entry's
 * first sample is that of the first pair to reach it: once the pairs first seen before
 * sample s are cumulated, so is every entry first reached before s. The run's entries, made
 * in the order of their first samples, go at their turn, unless a pair reached them earlier.
 */
struct replay_feed {
	u32 *log;		/* the entries, in insert order */
	size_t nr, alloc;	/* logged; room (all of it before the replay starts on its
				   thread: the log does not move while it reads it) */
	bool *fed;		/* by entry of the run: logged at the pair that reached it first */
	size_t nr_run, next_run;
	_Atomic size_t published;	/* what of the log the replay may read */
	_Atomic u64 frontier;	/* each entry first reached before this sample is logged */
};

static void feed_log(struct replay_feed *f, const struct hists *hists, u32 e)
{
	if (entry_wraps(&hists->entries[e]))
		return;
	ARRAY_GROW(f->log, f->alloc, f->nr + 1);
	f->log[f->nr++] = e;
}

/* The run's entries first reached at sample upto or before (and by no pair earlier). */
static void feed_run(struct replay_feed *f, const struct hists *hists, u64 upto)
{
	for (; f->next_run < f->nr_run; f->next_run++) {
		const struct hist_entry *he = &hists->entries[f->next_run];

		if (he->merged || f->fed[f->next_run])
			continue;
		if (he->first > upto)
			return;
		feed_log(f, hists, (u32)f->next_run);
	}
}

/* Everything first reached before sample frontier is logged: the replay may go that far. */
static void feed_publish(struct replay_feed *f, u64 frontier)
{
	atomic_store_explicit(&f->published, f->nr, memory_order_release);
	atomic_store_explicit(&f->frontier, frontier, memory_order_release);
}

/*
 * perf's entry keeps the thread, comm and filter state of the first sample that reached it
 * (a frame's entry is filtered as the sample is, by the sample's dso and symbol: perf's
 * fill_callchain_info keeps al->filtered): if the pair's first sample came before the entry's
 * first, the entry takes them (and a frame's level). pos: where in the sample
 * (perf adds a sample's own entry, then its frames' in chain order), which orders the
 * entries as perf first inserted them.
 */
static void claim(struct hists *hists, struct replay_feed *feed, u32 e, const struct chain_pair *p,
		  u32 pos, u64 ip, char level)
{
	struct hist_entry *he = &hists->entries[e];

	if (p->first > he->first || (p->first == he->first && pos >= he->first_pos))
		return;
	he->first_pos = pos;
	if (pos) {	/* made by a frame: perf's entry has the frame's address and level */
		he->ip = ip;
		he->level = level;
	}
	if (p->first == he->first)
		return;
	he->first = p->first;
	if (feed) {	/* the first pair to reach it: its first sample is final */
		if (e < feed->nr_run)
			feed->fed[e] = true;
		feed_log(feed, hists, e);
	}
	if (he->thread != p->thread) {
		thread__put(he->thread);
		he->thread = thread__get(p->thread);
	}
	he->comm = p->comm;
	he->filtered = p->filtered;
}

/*
 * The frames' entries (protos) are made some frames ahead of their lookups, and each one's
 * index slot, then the entry in it, fetched meanwhile: the lookups of a million chains' frames
 * are cache misses, which then overlap. A ring of the protos made and not yet looked up.
 */
#define CUMULATE_AHEAD 8	/* protos made ahead; the slot's entry is fetched half way */
#define CUMULATE_RING 16	/* > CUMULATE_AHEAD, a power of 2 */

/* A walk over every frame of every pair's chain, in pair order. */
struct frame_walk {
	size_t pair;
	u32 frame;	/* the next one's, in the pair's chain */
};

/* The next frame: its pair and id (w->frame is then 1 for a pair's first); false past all. */
static bool frame_walk_next(const struct hists *hists, const struct callchains *chains,
			    struct frame_walk *w, const struct chain_pair **pair, u32 *id)
{
	for (; w->pair < hists->nr_pairs; w->pair++, w->frame = 0) {
		const struct chain_pair *p = &hists->pairs[w->pair];

		if (w->frame < callchains__len(chains, p->chain)) {
			*pair = p;
			*id = callchains__frame_ids(chains, p->chain)[w->frame++];
			return true;
		}
	}
	return false;
}

struct cumulate {
	struct hists *hists;
	const struct hists_callchain *cc;
	struct replay_feed *feed;	/* or NULL: no replay */
	struct frame_walk make;	/* the next proto's frame */
	char level;		/* carried along a pair's frames */
	size_t made, taken;	/* protos made, looked up */
	struct frame_walk fetch;	/* further ahead: the next frame and symbol to fetch */
	size_t fetched;
	struct hist_entry ring[CUMULATE_RING];
};

/* The frame and symbol of the frame CUMULATE_AHEAD frames after the next proto's, fetched. */
static void cumulate_fetch(struct cumulate *c)
{
	const struct chain_pair *p;
	u32 id;

	while (c->fetched < c->made + CUMULATE_AHEAD &&
	       frame_walk_next(c->hists, c->cc->chains, &c->fetch, &p, &id)) {
		if (c->fetch.frame == 1)	/* the pair's own entry: cumulate_make reads it */
			__builtin_prefetch(&c->hists->entries[p->entry].parent);
		callchains__prefetch_sym(c->cc->chains, id);
		c->fetched++;
	}
}

/*
 * The next frame's proto (an entry of the pair's thread, comm, cpu and parent): false when
 * every frame has one.
 */
static bool cumulate_make(struct cumulate *c)
{
	struct hists *hists = c->hists;
	const struct hists_callchain *cc = c->cc;
	const struct chain_pair *p;
	const struct hist_entry *self;
	const struct cc_frame *f;
	struct hist_entry *proto;
	u32 id;

	cumulate_fetch(c);
	if (!frame_walk_next(hists, cc->chains, &c->make, &p, &id))
		return false;
	if (c->make.frame == 1)
		c->level = p->level;
	self = &hists->entries[p->entry];
	f = callchains__frame(cc->chains, id);
	proto = &c->ring[c->made++ % CUMULATE_RING];
	hist_entry__clear(proto);
	proto->thread = p->thread;
	proto->comm = p->comm;
	proto->dso = f->dso;
	proto->parent = self->parent;
	proto->ip = f->ip;
	proto->cpu = self->cpu;
	proto->socket = self->socket;
	proto->filtered = p->filtered;
	proto->map_size = f->map_size;
	proto->sym = callchains__sym(cc->chains, cc->machine, id, &proto->symtab);
	/* perf's fill_callchain_info keeps the level of a frame without a map */
	if (f->level)
		c->level = f->level;
	proto->level = c->level;
	proto->hash = entry_hash(hists->sort, proto);
	hists__prefetch(hists, proto->hash, CC_NO_CHAIN, false, 0);
	return true;
}

/* The proto of the next frame in pair order, made ahead; the ones to come fetched. */
static struct hist_entry *cumulate_take(struct cumulate *c)
{
	size_t half = c->taken + CUMULATE_AHEAD / 2;

	while (c->made < c->taken + 1 + CUMULATE_AHEAD && cumulate_make(c))
		;
	if (half < c->made)
		hists__prefetch(c->hists, c->ring[half % CUMULATE_RING].hash, CC_NO_CHAIN, false, 1);
	return &c->ring[c->taken++ % CUMULATE_RING];
}

/*
 * perf's iter_add_next_cumulative_entry for each frame of a pair's chain: an entry per
 * frame (of the sample's thread, comm, cpu and parent), unless one of the entries made for
 * this chain already is equal to it (recursion), with the chain from that frame on.
 * made[0] is the entry the pair is in, made[1 + i] the entry of frame i, or NO_ENTRY, and
 * levels[1 + i] (levels not NULL) the level of frame i's entry (perf's fill_callchain_info
 * keeps the one before for a frame without a map). The pairs are taken in order, and c's
 * protos with them.
 */
static void cumulate_pair(struct cumulate *c, const struct chain_pair *p, u32 *made,
			  char *levels)
{
	struct hists *hists = c->hists;
	const struct hists_callchain *cc = c->cc;
	u32 len = callchains__len(cc->chains, p->chain);
	const u32 *ids = callchains__frame_ids(cc->chains, p->chain);

	made[0] = final_entry(hists, p->entry);
	claim(hists, c->feed, made[0], p, 0, 0, 0);
	for (u32 i = 0; i < len; i++) {
		const struct cc_frame *f = callchains__frame(cc->chains, ids[i]);
		struct hist_entry proto = *cumulate_take(c);
		bool dup = false, created;
		size_t x;

		made[1 + i] = NO_ENTRY;
		if (levels)
			levels[1 + i] = proto.level;
		/* equal entries have equal hashes (the index goes by that) */
		for (size_t k = 0; k <= i && !dup; k++)
			dup = made[k] != NO_ENTRY && hists->entries[made[k]].hash == proto.hash &&
			      entry_equal(hists->sort, &hists->entries[made[k]], &proto);
		if (dup)
			continue;
		thread__get(proto.thread);
		x = entry_findnew(hists, &proto, &created);
		if (!created)
			thread__put(proto.thread);
		claim(hists, c->feed, (u32)x, p, 1 + i, f->ip, proto.level);
		/* a wrapping entry's counts are the replay's (on its thread) */
		if (!c->feed || !entry_wraps(&hists->entries[x]))
			hists->entries[x].period_acc += p->period;
		object_map_set(hists, (u32)x, f->ip - f->addr, p->last);	/* perf's takes the latest */
		made[1 + i] = (u32)x;
	}
}

/*
 * perf finds a sample's entries in its first tree (entries_in) by hist_entry__cmp, which
 * compares two addresses without a map by their difference as a signed number: around the
 * address space's halfway point (garbage frames of a frame-pointer chain) that order is not
 * transitive, so once rotations have moved such an entry, a later lookup of it can end at a
 * leaf and make a second entry with the same keys, with that sample's thread and level; the
 * collapse then merges them in the tree's order, the one walked first absorbing the other
 * (and keeping its own thread, level and callchain depth). Every other key is found where
 * it is: its comparisons with the unmapped ones are decided by comm or dso, consistently.
 *
 * So the samples that reached an entry without a map are kept (hists->wraps), and perf's
 * tree is rebuilt (struct replay): the other entries inserted when their first sample came,
 * those samples' lookups made in turn, each one found or inserted as perf's would be; then
 * the collapse. The entries without a map get their periods and depths again, from the
 * lookups that found them. hists->in_order is what perf's output tree is fed, in order.
 */

static int find_dir(void *arg, u32 item, u32 node)
{
	const struct hists *hists = arg;

	return entries_cmp(hists->sort, &hists->entries[node], &hists->entries[item], NULL);
}

/*
 * What the replay's comparisons read of an entry, 16 bytes: its comm's and dso's names as
 * ranks (see struct name_ranks) and its symbol's start, or its address without one. A
 * lookup compares with a node at every level of the tree; the node's entry, symbol, comm and
 * dso are four cache lines, its key (kept in the tree's node, by its links) none more. Made
 * when the keys are comm, dso and symbol only, and no symbol is inlined (those compare by
 * name).
 */
struct replay_key {
	u32 comm;
	u32 dso : 31;
	u32 has_sym : 1;
	u64 at;
};

/*
 * The replay runs on a thread of its own while the cumulation makes the entries (keyed:
 * what it reads of them is then final, see struct replay_feed), else after it. It counts the
 * wrapping entries (the cumulation leaves them alone) and makes its own entries (extra) until
 * replay_finish puts them after the cumulation's.
 */
struct replay {
	struct hists *hists;
	const struct hists_callchain *cc;
	const struct chain_count *counts;	/* the pairs', made as the cumulation goes */
	const u32 *made, *made_at;	/* see replay_start */
	const char *levels;
	struct replay_feed *feed;
	u64 frontier;		/* the feed's, as last read */
	size_t nr_log;		/* the feed's log readable then */
	size_t next_insert;	/* in the log */
	bool keyed;	/* the tree's nodes hold the entries' keys; else the entries compared */
	bool plain;	/* keyed, and the keys perf's default: comm, dso, symbol */
	struct name_set comms, dsos;	/* keyed: every name an entry can have, ranked */
	struct rbtree tree;
	u32 version;	/* inserts so far: a lookup's answer holds until the next one */
	bool *placed;	/* by wrapping entry: in the tree already */
	u32 *seen;	/* by wrapping entry: 1 + the version its last lookup found it at (the
			   tree's items are u32, and a version counts inserts) */
	u32 *found;	/* what that lookup found */
	size_t placed_alloc, seen_alloc, found_alloc;
	struct hist_entry *extra;	/* the entries the lookups made: ids extra_base + i */
	size_t nr_extra, extra_alloc;
	u32 extra_base;	/* above every entry the cumulation makes */
	pthread_t thread;
	bool threaded;
	u32 *order;	/* the tree's items in order, when done */
	size_t nr_order;
};

static struct hist_entry *replay_entry(const struct replay *r, u32 id)
{
	return id >= r->extra_base ? &r->extra[id - r->extra_base] : &r->hists->entries[id];
}

static struct replay_key *replay_key(const struct replay *r, u32 e)
{
	return rbtree__payload(&r->tree, e);
}

/* key_cmp for the keys replay_keyed allows, from the entries' keys */
static s64 replay_key_cmp(const struct replay *r, enum sort_key key, u32 left, u32 right)
{
	const struct replay_key *l = replay_key(r, left), *k = replay_key(r, right);
	s64 ret;

	switch (key) {
	case SORT_COMM:
		return (s64)k->comm - l->comm;
	case SORT_DSO:
		return rank_cmp(l->dso, k->dso);
	default:	/* SORT_SYM, SORT_IPC_NULL: sym_cmp */
		if (!l->has_sym && !k->has_sym)
			return (s64)(k->at - l->at);
		ret = r->hists->sort->sym_by_dso ? rank_cmp(l->dso, k->dso) : 0;
		if (ret)
			return ret;
		if (!l->has_sym || !k->has_sym)
			return !l->has_sym ? -1 : 1;
		if (l->at != k->at)
			return (s64)(k->at - l->at);
		/* the same start: the same symbol, or told apart by their ends */
		return key_cmp(r->hists->sort, key, replay_entry(r, left), replay_entry(r, right),
			       NULL);
	}
}

/* a key's comm and dso as one number, in rank_cmp's order (no dso: after every other) */
static u64 replay_group(const struct replay_key *k)
{
	return (u64)k->comm << 32 | (k->dso ? k->dso : 1u << 31);
}

/*
 * replay_dir for perf's default keys, the comparisons of a lookup and of the collapse, most
 * of the replay's time: its comm and dso in one comparison, then replay_key_cmp's symbol.
 */
static int replay_dir_plain(const struct replay *r, u32 item, u32 node)
{
	const struct replay_key *l = replay_key(r, node), *k = replay_key(r, item);
	u64 lg = replay_group(l), kg = replay_group(k);
	s64 d;

	if (lg != kg)
		return kg > lg ? 1 : -1;
	if (!l->has_sym && !k->has_sym) {
		d = (s64)(k->at - l->at);
		return d ? (d < 0 ? -1 : 1) : 0;
	}
	if (!l->has_sym || !k->has_sym)
		return !l->has_sym ? -1 : 1;
	if (l->at != k->at)
		return (s64)(k->at - l->at) < 0 ? -1 : 1;
	d = key_cmp(r->hists->sort, SORT_SYM, replay_entry(r, node), replay_entry(r, item), NULL);
	return d ? (d < 0 ? -1 : 1) : 0;
}

/* find_dir, from the keys */
static int replay_dir(void *arg, u32 item, u32 node)
{
	const struct replay *r = arg;
	const struct sort_list *sort = r->hists->sort;

	if (r->plain)
		return replay_dir_plain(r, item, node);
	if (!r->keyed)
		return entries_cmp(sort, replay_entry(r, node), replay_entry(r, item), NULL);
	for (int i = 0; i < sort->nr; i++) {
		s64 d = replay_key_cmp(r, sort->keys[i], node, item);

		if (d)
			return d < 0 ? -1 : 1;
	}
	return 0;
}

/*
 * Whether the sort keys allow the keys of struct replay_key, before the cumulation: no entry
 * of the run has an inlined symbol, and no frame is one's (callchains__inline).
 */
static bool replay_keyed(const struct hists *hists, const struct callchains *chains)
{
	for (int i = 0; i < hists->sort->nr; i++)
		if (hists->sort->keys[i] != SORT_COMM && hists->sort->keys[i] != SORT_DSO &&
		    hists->sort->keys[i] != SORT_SYM && hists->sort->keys[i] != SORT_IPC_NULL)
			return false;
	for (size_t e = 0; e < hists->nr; e++)
		if (hists->entries[e].sym && hists->entries[e].symtab->inlined)
			return false;
	for (u32 id = 0, nr = callchains__nr_frames(chains); id < nr; id++)
		if (callchains__frame(chains, id)->inl)
			return false;
	return true;
}

/*
 * The replay's empty tree, with the entries' keys when it may: then every comm and dso name
 * an entry can have (the run's entries', the pairs', the frames') ranked.
 */
static void replay_tree(struct replay *r)
{
	const struct hists *hists = r->hists;
	const struct callchains *chains = r->cc->chains;

	r->keyed = replay_keyed(hists, chains);
	if (!r->keyed) {
		rbtree__init(&r->tree, hists->nr);
		return;
	}
	rbtree__init_payload(&r->tree, hists->nr, sizeof(struct replay_key));
	r->plain = hists->sort->nr == 3 && hists->sort->keys[0] == SORT_COMM &&
		   hists->sort->keys[1] == SORT_DSO && hists->sort->keys[2] == SORT_SYM &&
		   !hists->sort->sym_by_dso;
	name_set_init(&r->comms);
	name_set_init(&r->dsos);
	for (size_t e = 0; e < hists->nr; e++) {
		name_set_add(&r->comms, comm_name(&hists->entries[e]));
		name_set_add(&r->dsos, dso_name(&hists->entries[e]));
	}
	for (size_t i = 0; i < hists->nr_pairs; i++)
		name_set_add(&r->comms, comm__str(hists->pairs[i].comm));
	for (u32 id = 0, nr = callchains__nr_frames(chains); id < nr; id++) {
		const struct dso *dso = callchains__frame(chains, id)->dso;

		name_set_add(&r->dsos, dso ? dso->short_name : NULL);
	}
	name_set_rank(&r->comms);
	name_set_rank(&r->dsos);
}

/* Item id (an entry, final) into the tree: RBTREE_NONE, or the node equal to it. */
static u32 replay_insert(struct replay *r, u32 id)
{
	rbtree__reserve(&r->tree, (size_t)id + 1);
	if (r->keyed) {
		const struct hist_entry *he = replay_entry(r, id);

		*replay_key(r, id) = (struct replay_key){
			.comm = name_set_rank_of(&r->comms, comm_name(he)),
			.dso = name_set_rank_of(&r->dsos, dso_name(he)) & 0x7fffffff,
			.has_sym = !!he->sym, .at = he->sym ? he->sym->start : he->ip };
	}
	return rbtree__insert(&r->tree, id, replay_dir, r);
}

/* Until the cumulation has made every entry first reached before sample (and its pairs'). */
static void replay_wait(struct replay *r, u64 sample)
{
	while (r->frontier <= sample) {
		u64 f = atomic_load_explicit(&r->feed->frontier, memory_order_acquire);

		if (f <= sample) {
			sched_yield();
			continue;
		}
		r->frontier = f;
		r->nr_log = atomic_load_explicit(&r->feed->published, memory_order_acquire);
	}
}

/* The other entries whose first sample came before (first, pos) go in. */
static void replay_inserts_upto(struct replay *r, u64 first, u32 pos)
{
	for (; r->next_insert < r->nr_log; r->next_insert++) {
		u32 e = r->feed->log[r->next_insert];
		const struct hist_entry *he = &r->hists->entries[e];

		if (he->first > first || (he->first == first && he->first_pos >= pos))
			return;
		replay_insert(r, e);
		r->version++;
	}
}

/*
 * A new entry like the wrapping entry e, made by sample w if its lookup at pos fails (its
 * thread's reference is taken by replay_finish).
 */
static void replay_extra(struct replay *r, const struct hist_wrap_sample *w, u32 e, u32 pos,
			 char level, bool filtered)
{
	const struct hist_entry *like = &r->hists->entries[e];
	struct hist_entry *he;

	ARRAY_GROW(r->extra, r->extra_alloc, r->nr_extra + 1);
	he = &r->extra[r->nr_extra];
	hist_entry__clear(he);	/* what the cumulation writes of e is not read */
	he->thread = r->hists->wrap_threads[w->thread].thread;
	he->comm = like->comm;
	he->dso = like->dso;
	he->sym = like->sym;
	he->symtab = like->symtab;
	he->parent = like->parent;
	he->ip = like->ip;
	he->map_size = like->map_size;
	he->cpu = like->cpu;
	he->socket = like->socket;
	he->hash = like->hash;
	he->level = level;
	he->filtered = filtered;
	he->first = w->sample;
	he->first_pos = pos;
}

/* One lookup of the wrapping entry e by sample w at pos: found, or a new entry inserted. */
static void replay_lookup(struct replay *r, const struct hist_wrap_sample *w, u32 e, u32 pos,
			  char level, bool filtered, u32 depth)
{
	struct hist_entry *he;
	u32 item = e, node;

	replay_inserts_upto(r, w->sample, pos);
	if (e >= r->found_alloc) {
		ARRAY_GROW_ZEROED(r->placed, r->placed_alloc, (size_t)e + 1);
		ARRAY_GROW_ZEROED(r->seen, r->seen_alloc, (size_t)e + 1);
		ARRAY_GROW(r->found, r->found_alloc, (size_t)e + 1);
	}
	if (r->seen[e] == r->version + 1) {	/* the tree is as it was then */
		node = r->found[e];
		goto count;
	}
	/*
	 * Placed at its first lookup, which is at the first sample and place that reached it:
	 * where its entry has them already, and its level.
	 */
	if (r->placed[e]) {	/* a new entry like e, made by this sample, if not found */
		item = r->extra_base + (u32)r->nr_extra;
		replay_extra(r, w, e, pos, level, filtered);
	}
	node = replay_insert(r, item);
	if (node == RBTREE_NONE) {
		node = item;
		if (item == e)
			r->placed[e] = true;
		else
			r->nr_extra++;
		r->version++;
	} else {
		r->seen[e] = r->version + 1;
		r->found[e] = node;
	}
count:
	he = replay_entry(r, node);
	if (!pos) {
		he->period += w->period;
		he->nr_events++;
	}
	he->period_acc += w->period;
	he->max_depth = MAX(he->max_depth, depth);
}

/* Every wrapping sample's lookups, in the order they came; then the tree in order. */
static void replay_run(struct replay *r)
{
	const struct hists *hists = r->hists;
	const u32 *made = r->made, *made_at = r->made_at;
	uintptr_t released = 0;

	for (size_t i = 0; i < hists->nr_wraps; i++) {
		const struct hist_wrap_sample *w = &hists->wraps[i];
		const struct chain_count *p;
		size_t m;
		u32 self, len;
		char level;
		bool filtered;

		replay_wait(r, w->sample);
		p = w->chainless ? NULL : &r->counts[w->ref];
		m = p ? made_at[w->ref] : 0;
		self = p ? made[m] : final_entry(hists, w->ref);
		level = p ? p->level : hists->entries[self].level;
		filtered = p ? p->filtered : hists->entries[self].filtered;
		len = p ? callchains__len(r->cc->chains, p->chain) : 0;
		/* the pairs of the samples to come, then their entries (a hint) */
		if (i + 16 < hists->nr_wraps && !w[16].chainless) {
			__builtin_prefetch(&r->counts[w[16].ref]);
			__builtin_prefetch(&made_at[w[16].ref]);
		}
		if (i + 8 < hists->nr_wraps && !w[8].chainless)
			__builtin_prefetch(&made[made_at[w[8].ref]]);

		if (entry_wraps(&hists->entries[self]))
			replay_lookup(r, w, self, 0, level, filtered, len);
		for (u32 k = 0; k < len; k++) {
			u32 e = made[m + 1 + k];

			if (e != NO_ENTRY && entry_wraps(&hists->entries[e]))
				replay_lookup(r, w, e, 1 + k, r->levels[m + 1 + k], filtered, len - k);
		}
		if (i % 4096 == 4095)	/* the samples are read once */
			release_read((uintptr_t)hists->wraps, (uintptr_t)&hists->wraps[i + 1],
				     &released);
	}
	replay_wait(r, UINT64_MAX - 1);
	replay_inserts_upto(r, UINT64_MAX, UINT32_MAX);
	r->order = xmalloc_populated((r->version ? r->version : 1) * sizeof(*r->order));	/* inserts */
	r->nr_order = rbtree__walk(&r->tree, r->order);
}

static void *replay_thread(void *arg)
{
	replay_run(arg);
	return NULL;
}

/*
 * perf's collapse: the entries in the first tree's order, each merged into one found equal.
 * order becomes what is left, in the collapsed tree's order: how many.
 */
static size_t replay_collapse(struct hists *hists, struct rbtree *t, u32 *order, size_t nr,
			      rbtree_dir_fn dir, void *ctx)
{
	t->root = RBTREE_NONE;
	for (size_t i = 0; i < nr; i++) {
		u32 found = rbtree__insert(t, order[i], dir, ctx);
		struct hist_entry *he = &hists->entries[order[i]], *into;

		if (found == RBTREE_NONE)
			continue;
		into = &hists->entries[found];
		into->period += he->period;
		into->period_acc += he->period_acc;
		into->nr_events += he->nr_events;
		if (!into->contrib_nr) {	/* the call graph goes with the entry (one has it) */
			into->contrib_first = he->contrib_first;
			into->contrib_nr = he->contrib_nr;
		}
		merge_into(hists, order[i], found);
	}
	return rbtree__walk(t, order);
}

/*
 * Whether the entries can have room for nr_max up front (the replay reads them on its own
 * thread while the cumulation adds to them, so they may not move): the memory is only
 * reserved, but an allocation beyond half the machine's may fail.
 */
static bool replay_room(size_t nr_max)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);

	return nr_max < UINT32_MAX / 2 && pages > 0 && page > 0 &&
	       nr_max <= (u64)pages * (u64)page / 2 / sizeof(struct hist_entry);
}

/*
 * Before the cumulation: the replay of perf's first tree set up, and started on its own
 * thread when keyed (else replay_finish runs it). made and levels: each pair's entries and
 * their levels, as cumulate_pair will make them; made_at: where each pair's are; nr_max: how
 * many entries there can be.
 */
static void replay_start(struct replay *r, struct hists *hists, const struct hists_callchain *cc,
			 struct replay_feed *feed, const u32 *made, const char *levels,
			 const u32 *made_at, size_t nr_max)
{
	*r = (struct replay){ .hists = hists, .cc = cc, .made = made, .levels = levels,
			      .made_at = made_at, .feed = feed,
			      .counts = (const struct chain_count *)hists->pairs };
	/* the wrapping entries of the run are counted again */
	for (size_t e = 0; e < hists->nr; e++) {
		struct hist_entry *he = &hists->entries[e];

		if (entry_wraps(he)) {
			he->period = he->period_acc = he->nr_events = 0;
			he->max_depth = 0;
		}
	}
	replay_tree(r);
	if (!r->keyed || cc->one_thread || !replay_room(nr_max))
		return;
	ARRAY_GROW(hists->entries, hists->alloc, nr_max);
	ARRAY_GROW(feed->log, feed->alloc, nr_max);
	r->extra_base = (u32)nr_max;
	r->threaded = !pthread_create(&r->thread, NULL, replay_thread, r);
}

/*
 * After the cumulation: the replay done (here when not on its thread), its entries after
 * the cumulation's, and perf's collapse: hists->in_order.
 */
static void replay_finish(struct replay *r)
{
	struct hists *hists = r->hists;
	size_t nr = hists->nr;

	if (r->threaded) {
		pthread_join(r->thread, NULL);
	} else {
		r->extra_base = (u32)nr;
		replay_run(r);
	}
	ARRAY_GROW(hists->entries, hists->alloc, nr + r->nr_extra);
	rbtree__reserve(&r->tree, nr + r->nr_extra);
	for (size_t i = 0; i < r->nr_extra; i++) {
		hists->entries[nr + i] = r->extra[i];
		thread__get(hists->entries[nr + i].thread);
		if (r->keyed)
			*replay_key(r, (u32)(nr + i)) = *replay_key(r, r->extra_base + (u32)i);
	}
	for (size_t i = 0; i < r->nr_order; i++)
		if (r->order[i] >= r->extra_base)
			r->order[i] = (u32)nr + (r->order[i] - r->extra_base);
	hists->nr += r->nr_extra;
	r->extra_base = UINT32_MAX;
	/* perf collapses only then */
	if (sort_list__has(hists->sort, SORT_COMM))
		r->nr_order = replay_collapse(hists, &r->tree, r->order, r->nr_order, replay_dir, r);
	hists->in_order = r->order;
	hists->nr_in_order = r->nr_order;
	rbtree__exit(&r->tree);
	if (r->keyed) {
		name_set_exit(&r->comms);
		name_set_exit(&r->dsos);
	}
	free(r->extra);
	free(r->placed);
	free(r->seen);
	free(r->found);
}

/*
 * Pair i's entries made, what is left to read of it is its chain_count (24 of its 56 bytes):
 * the counts take the pairs' place, in place, as the pairs are done (a count never reaches
 * past the pair it is made of), and the thread is put.
 */
static void pair_to_count(struct hists *hists, size_t i)
{
	struct chain_count *counts = (struct chain_count *)hists->pairs;
	struct chain_pair p = hists->pairs[i];

	if (p.owns_thread)
		thread__put(p.thread);
	counts[i] = (struct chain_count){ .entry = p.entry, .chain = p.chain, .count = p.count,
					  .filtered = p.filtered, .level = p.level,
					  .period = p.period };
}

/*
 * The first done pairs made counts: the pages between the counts and the pairs left go (the
 * entries the cumulation makes meanwhile take more).
 */
static void pairs_release(struct hists *hists, size_t done, uintptr_t *from)
{
	uintptr_t base = (uintptr_t)hists->pairs;

	release_read(base + done * sizeof(struct chain_count),
		     base + done * sizeof(struct chain_pair), from);
}

/* Every pair a count: the rest of the memory goes. */
static void pairs_to_counts(struct hists *hists)
{
	struct chain_count *counts = (struct chain_count *)hists->pairs;

	hists->pairs = NULL;
	hists->pairs_alloc = 0;
	hists->counts = xreallocarray(counts, hists->nr_pairs, sizeof(*counts));
}

void hists__resolve_callchains(struct hists *hists, const struct hists_callchain *cc)
{
	u32 *made = NULL, *made_at = NULL, *next;
	char *levels = NULL;	/* for the replay: made's levels */
	size_t nr_made = 0, nr = 0;
	struct cumulate *c;
	struct replay_feed feed = { 0 };
	struct replay r;
	bool replaying;
	uintptr_t released = 0;

	hists__collapse(hists);
	free(hists->pair_index.slots);
	hists->pair_index = (struct entry_index){ 0 };
	if (!cc || !hists->nr_pairs)
		return;
	/* perf's append_inlines, for every chain before any of its symbols is looked at */
	if (cc->inlines)
		for (size_t i = 0; i < hists->nr_pairs; i++)
			hists->pairs[i].chain = callchains__inline(cc->chains, cc->machine, cc->inlines,
								   hists->pairs[i].chain, cc->order);
	/* entries may change threads now: the pairs and wrapping samples hold their own */
	for (size_t i = 0; i < hists->nr_pairs; i++) {
		if (!hists->pairs[i].owns_thread)
			thread__get(hists->pairs[i].thread);
		hists->pairs[i].owns_thread = true;
	}
	for (size_t i = 0; i < hists->nr_wrap_threads; i++) {
		if (!hists->wrap_threads[i].owns)
			thread__get(hists->wrap_threads[i].thread);
		hists->wrap_threads[i].owns = true;
	}
	/* every pair's entries: its own, and in the children view its frames' */
	for (size_t i = 0; i < hists->nr_pairs; i++)
		nr_made += 1 + (hists->cumulate ? callchains__len(cc->chains, hists->pairs[i].chain) : 0);
	made = xmalloc_populated(nr_made * sizeof(*made));
	c = xzalloc(sizeof(*c));
	c->hists = hists;
	c->cc = cc;
	/*
	 * Not with a symbol key and no dso key: unresolved addresses of every dso then compare
	 * by address alone, and the lookups of other entries can fail as well (README).
	 */
	replaying = hists->cumulate && hists->nr_wraps && !hists->wraps_off &&
		    !lookups_can_fail(hists->sort);
	if (replaying) {
		/* at most an entry a frame more */
		size_t nr_max = hists->nr + nr_made - hists->nr_pairs;

		levels = xmalloc_populated(nr_made);
		made_at = xmalloc_populated(hists->nr_pairs * sizeof(*made_at));
		for (size_t i = 0, m = 0; i < hists->nr_pairs; i++) {
			made_at[i] = (u32)m;
			m += 1 + callchains__len(cc->chains, hists->pairs[i].chain);
		}
		feed.nr_run = hists->nr;
		feed.fed = xcalloc_populated(hists->nr, sizeof(*feed.fed));
		c->feed = &feed;
		replay_start(&r, hists, cc, &feed, made, levels, made_at, nr_max);
	}
	for (size_t i = 0, m = 0; i < hists->nr_pairs; i++) {
		const struct chain_pair *p = &hists->pairs[i];
		u32 len = callchains__len(cc->chains, p->chain);

		if (replaying) {	/* what came before this pair's first sample, to the replay */
			feed_run(&feed, hists, p->first);
			if (i % 64 == 0)
				feed_publish(&feed, p->first);
		}
		if (hists->cumulate) {
			cumulate_pair(c, p, made + m, levels ? levels + m : NULL);
		} else {
			made[m] = final_entry(hists, p->entry);
			len = 0;
		}
		for (u32 k = 0; k <= len; k++) {
			struct hist_entry *he;

			if (made[m + k] == NO_ENTRY)
				continue;
			he = &hists->entries[made[m + k]];
			he->contrib_nr++;
			if (!replaying || !entry_wraps(he))	/* else the replay's */
				he->max_depth = MAX(he->max_depth,
						    callchains__len(cc->chains, p->chain) -
							    (k ? k - 1 : 0));
			nr++;
		}
		m += 1 + len;
		pair_to_count(hists, i);
		if (i % 1024 == 1023)
			pairs_release(hists, i + 1, &released);
	}
	free(c);
	/* where each entry's callchains go (the replay's collapse moves them; its own have none) */
	next = xmalloc_populated((hists->nr ? hists->nr : 1) * sizeof(*next));
	for (size_t e = 0, first = 0; e < hists->nr; e++) {
		hists->entries[e].contrib_first = (u32)first;
		next[e] = (u32)first;
		first += hists->entries[e].contrib_nr;
	}
	if (replaying) {
		feed_run(&feed, hists, UINT64_MAX);
		feed_publish(&feed, UINT64_MAX);
		replay_finish(&r);
		free(feed.log);
		free(feed.fed);
		free(made_at);
	}
	pairs_to_counts(hists);
	free(levels);
	/* the wrapping samples were kept for that alone: they go before the callchains come */
	free(hists->wraps);
	hists->wraps = NULL;
	hists->nr_wraps = hists->wraps_alloc = 0;
	release_free();
	/* by entry, each entry's in the order they came */
	hists->contribs = xmalloc_populated((nr ? nr : 1) * sizeof(*hists->contribs));
	hists->nr_contribs = nr;
	for (size_t i = 0, m = 0; i < hists->nr_pairs; i++) {
		u32 len = hists->cumulate ? callchains__len(cc->chains, hists->counts[i].chain) : 0;

		for (u32 k = 0; k <= len; k++)
			if (made[m + k] != NO_ENTRY)
				hists->contribs[next[made[m + k]]++] =
					(struct entry_contrib){ .pair = (u32)i, .offset = k ? k - 1 : 0 };
		m += 1 + len;
	}
	free(next);
	free(made);
}
