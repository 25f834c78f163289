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
