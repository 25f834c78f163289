/*
 * After the run: every entry's callchains (hists__resolve_callchains), in steps: the chains'
 * inlines, the pairs' own threads, the cumulation and the replay driven pair by pair, then
 * each entry's contributions. Owns the order of the steps; the work is hist.c's and
 * hist_replay.c's.
 */
#include "analyzer/hist/hist_internal.h"

#include <stdlib.h>

#include "lib/xalloc.h"

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

/* What the steps of hists__resolve_callchains share. */
struct resolve {
	struct hists *hists;
	const struct hists_callchain *cc;
	u32 *made;		/* every pair's entries, pair after pair (see cumulate_pair) */
	size_t nr_made;
	u32 *made_at;		/* for the replay: where each pair's are in made */
	char *levels;		/* for the replay: made's levels */
	size_t nr;		/* the entries' contributions */
	struct cumulate *c;
	bool replaying;
	struct replay_feed feed;
	struct replay r;
};

/* perf's append_inlines, for every chain before any of its symbols is looked at */
static void resolve_inlines(struct hists *hists, const struct hists_callchain *cc)
{
	if (cc->inlines)
		for (size_t i = 0; i < hists->nr_pairs; i++)
			hists->pairs[i].chain = callchains__inline(cc->chains, cc->machine, cc->inlines,
								   hists->pairs[i].chain, cc->order);
}

/* entries may change threads now: the pairs and wrapping samples hold their own */
static void resolve_own_threads(struct hists *hists)
{
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
}

/* The replay's arrays and feed, and the replay started (see replay_start). */
static void resolve_replay_start(struct resolve *res)
{
	struct hists *hists = res->hists;
	const struct hists_callchain *cc = res->cc;
	/* at most an entry a frame more */
	size_t nr_max = hists->nr + res->nr_made - hists->nr_pairs;

	res->levels = xmalloc_populated(res->nr_made);
	res->made_at = xmalloc_populated(hists->nr_pairs * sizeof(*res->made_at));
	for (size_t i = 0, m = 0; i < hists->nr_pairs; i++) {
		res->made_at[i] = (u32)m;
		m += 1 + callchains__len(cc->chains, hists->pairs[i].chain);
	}
	res->feed.nr_run = hists->nr;
	res->feed.fed = xcalloc_populated(hists->nr, sizeof(*res->feed.fed));
	res->c->feed = &res->feed;
	replay_start(&res->r, hists, cc, &res->feed, res->made, res->levels, res->made_at, nr_max);
}

/* Room for every pair's entries, the cumulation's state, and the replay if it runs. */
static void resolve_start(struct resolve *res)
{
	struct hists *hists = res->hists;
	const struct hists_callchain *cc = res->cc;

	/* every pair's entries: its own, and in the children view its frames' */
	for (size_t i = 0; i < hists->nr_pairs; i++)
		res->nr_made += 1 + (hists->cumulate ? callchains__len(cc->chains, hists->pairs[i].chain)
						     : 0);
	res->made = xmalloc_populated(res->nr_made * sizeof(*res->made));
	res->c = xzalloc(sizeof(*res->c));
	res->c->hists = hists;
	res->c->cc = cc;
	/*
	 * Not with a symbol key and no dso key: unresolved addresses of every dso then compare
	 * by address alone, and the lookups of other entries can fail as well (README).
	 */
	res->replaying = hists->cumulate && hists->nr_wraps && !hists->wraps_off &&
			 !lookups_can_fail(hists->sort);
	if (res->replaying)
		resolve_replay_start(res);
}

/*
 * Each pair in turn: its entries made (the children view's by the cumulation), counted,
 * and the pair made a count; the replay fed what came before the pair's first sample.
 */
static void resolve_pairs(struct resolve *res)
{
	struct hists *hists = res->hists;
	const struct hists_callchain *cc = res->cc;
	struct cumulate *c = res->c;
	struct replay_feed *feed = &res->feed;
	u32 *made = res->made;
	char *levels = res->levels;
	bool replaying = res->replaying;
	size_t nr = 0;
	uintptr_t released = 0;

	for (size_t i = 0, m = 0; i < hists->nr_pairs; i++) {
		const struct chain_pair *p = &hists->pairs[i];
		u32 len = callchains__len(cc->chains, p->chain);

		if (replaying) {	/* what came before this pair's first sample, to the replay */
			feed_run(feed, hists, p->first);
			if (i % 64 == 0)
				feed_publish(feed, p->first);
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
	res->nr = nr;
}

/* where each entry's callchains go (the replay's collapse moves them; its own have none) */
static u32 *contrib_starts(struct hists *hists)
{
	u32 *next = xmalloc_populated((hists->nr ? hists->nr : 1) * sizeof(*next));

	for (size_t e = 0, first = 0; e < hists->nr; e++) {
		hists->entries[e].contrib_first = (u32)first;
		next[e] = (u32)first;
		first += hists->entries[e].contrib_nr;
	}
	return next;
}

/* The replay fed the rest and done (see replay_finish); what only it read goes. */
static void resolve_replay_finish(struct resolve *res)
{
	feed_run(&res->feed, res->hists, UINT64_MAX);
	feed_publish(&res->feed, UINT64_MAX);
	replay_finish(&res->r);
	free(res->feed.log);
	free(res->feed.fed);
	free(res->made_at);
}

/* by entry, each entry's in the order they came; next: contrib_starts' */
static void contribs_fill(struct resolve *res, u32 *next)
{
	struct hists *hists = res->hists;
	const struct hists_callchain *cc = res->cc;
	const u32 *made = res->made;
	size_t nr = res->nr;

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
}

void hists__resolve_callchains(struct hists *hists, const struct hists_callchain *cc)
{
	struct resolve res = { .hists = hists, .cc = cc };
	u32 *next;

	hists__collapse(hists);
	free(hists->pair_index.slots);
	hists->pair_index = (struct entry_index){ 0 };
	if (!cc || !hists->nr_pairs)
		return;
	resolve_inlines(hists, cc);
	resolve_own_threads(hists);
	resolve_start(&res);
	resolve_pairs(&res);
	free(res.c);
	next = contrib_starts(hists);
	if (res.replaying)
		resolve_replay_finish(&res);
	pairs_to_counts(hists);
	free(res.levels);
	/* the wrapping samples were kept for that alone: they go before the callchains come */
	free(hists->wraps);
	hists->wraps = NULL;
	hists->nr_wraps = hists->wraps_alloc = 0;
	release_free();
	contribs_fill(&res, next);
	free(next);
	free(res.made);
}
