/*
 * What entries keep for the keys struct hist_entry has no room for (struct hist_extra):
 * the samples' values, and the srcline and srcfile keys' texts, as perf 6.1 makes them of
 * addr2line's answers, found once an entry after the run (never a sample), and the entries
 * they make equal merged. Line lookups are machine/inline's; this owns the tuples and texts.
 */
#include "analyzer/hist/hist_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/containers/strpool.h"
#include "lib/xalloc.h"
#include "machine/inline.h"

/* The hist_extras of a report. Written by one thread at a time; the tuples never move. */
struct hist_extras {
	struct strpool pool;
	struct hashmap tuples;	/* content hash -> struct extra_node (a chain) */
};

struct extra_node {
	struct hist_extra x;	/* first: a node is its tuple */
	struct extra_node *next;	/* of the same hash */
};

struct hist_extras *hist_extras__new(void)
{
	struct hist_extras *t = xzalloc(sizeof(*t));

	strpool_init(&t->pool);
	hashmap_init(&t->tuples);
	return t;
}

void hist_extras__delete(struct hist_extras *t)
{
	u64 key;
	void *v;

	if (!t)
		return;
	for (size_t i = 0; hashmap_next(&t->tuples, &i, &key, &v);) {
		for (struct extra_node *n = v, *next; n; n = next) {
			next = n->next;
			free(n);
		}
	}
	hashmap_exit(&t->tuples);
	strpool_exit(&t->pool);
	free(t);
}

static bool extra_equal(const struct hist_extra *a, const struct hist_extra *b)
{
	return a->line == b->line && a->file == b->file && a->weight == b->weight &&
	       a->transaction == b->transaction && a->code_page_size == b->code_page_size &&
	       a->ins_lat == b->ins_lat && a->p_stage_cyc == b->p_stage_cyc;
}

const struct hist_extra *hist_extras__intern(struct hist_extras *t, const struct hist_extra *x)
{
	u64 v[7] = { (u64)(uintptr_t)x->line, (u64)(uintptr_t)x->file, x->weight, x->transaction,
		     x->code_page_size, x->ins_lat, x->p_stage_cyc };
	u64 h = XXH3_64bits(v, sizeof(v));
	struct extra_node *first = hashmap_find(&t->tuples, h), *n;

	for (n = first; n; n = n->next)
		if (extra_equal(&n->x, x))
			return &n->x;
	n = xmalloc(sizeof(*n));
	n->x = *x;
	n->next = first;
	hashmap_insert(&t->tuples, h, n);
	return &n->x;
}

bool sort_list__has_src(const struct sort_list *list)
{
	return sort_list__has(list, SORT_SRCLINE) || sort_list__has(list, SORT_SRCFILE);
}

bool sort_list__has_values(const struct sort_list *list)
{
	for (int i = 0; i < list->nr; i++)
		if (list->keys[i] >= SORT_LOCAL_WEIGHT && list->keys[i] <= SORT_P_STAGE_CYC)
			return true;
	return false;
}

bool sort_list__has_extra(const struct sort_list *list)
{
	return sort_list__has_src(list) || sort_list__has_values(list);
}

/* he's tuple with its source texts: line, and file the first file_len bytes of it */
static const struct hist_extra *src_intern(struct hist_extras *t, const struct hist_entry *he,
					   const char *line, size_t file_len)
{
	struct hist_extra x = he->extra ? *he->extra : (struct hist_extra){ 0 };

	x.line = strpool_intern(&t->pool, line);
	x.file = strpool_intern_len(&t->pool, line, file_len);
	return hist_extras__intern(t, &x);
}

/*
 * perf's map__srcline (get_srcline, show_sym and show_addr) and hist_entry__get_srcfile for
 * he: addr2line's "FILE:LINE" ("??:0" too, whose file is none), else the symbol and the
 * decimal offset in it, else the dso and address; srcfile the text before the answer's first
 * ':'. Without a map: "??:0" and no file.
 */
static const struct hist_extra *entry_src(struct hist_extras *t, struct inlines *inlines,
					 const struct hist_entry *he)
{
	char buf[4096];
	const char *colon;

	if (!he->dso)
		return src_intern(t, he, "??:0", 0);
	if (inlines__srcline(inlines, he->dso, he->ip, buf, sizeof(buf))) {
		colon = strchr(buf, ':');
		if (!strcmp(buf, "??:0") || !colon || colon == buf)
			return src_intern(t, he, buf, 0);
		return src_intern(t, he, buf, (size_t)(colon - buf));
	}
	if (he->sym)
		snprintf(buf, sizeof(buf), "%s+%llu", symbol__name(he->symtab, he->sym),
			 (unsigned long long)(he->ip - he->sym->start));
	else
		snprintf(buf, sizeof(buf), "%s[%llx]", he->dso->short_name,
			 (unsigned long long)he->ip);
	return src_intern(t, he, buf, 0);
}

void hists__resolve_srclines(struct hists *hists, struct inlines *inlines,
			     struct hist_extras *extras)
{
	const struct hist_extra *prev_in = NULL, *prev_out = NULL;

	if (hists->srclines || !sort_list__has_src(hists->sort))
		return;
	hists->srclines = true;
	/* entries of one address come in runs (a hot loop's): the last answer is reused */
	for (size_t i = 0; i < hists->nr; i++) {
		struct hist_entry *he = &hists->entries[i];
		const struct hist_entry *prev = i ? &hists->entries[i - 1] : NULL;
		const struct hist_extra *in = he->extra;

		if (prev && prev->dso == he->dso && prev->ip == he->ip && prev->sym == he->sym &&
		    prev_in == in)
			he->extra = prev_out;
		else
			he->extra = entry_src(extras, inlines, he);
		prev_in = in;
		prev_out = he->extra;
	}
	hists__collapse(hists);
}

/*
 * Whether perf 6.1 has found an entry's text of key when it sizes the columns, by entry
 * (NULL: every entry's). perf finds a text when a comparison first needs it, sizes the
 * column by the texts found then and cuts the others to that width. Its comparisons reach
 * the key between entries equal in the keys before it: the key first, every entry (taken so;
 * a lone first entry is not); else an entry another sample came to (every key compared), or
 * one equal to another entry in the keys before it.
 */
bool *src_known(const struct hists *hists, enum sort_key key)
{
	struct sort_list before = { .sym_by_dso = hists->sort->sym_by_dso };
	struct hashmap seen;
	bool *known;
	int p = 0;

	while (p < hists->sort->nr && hists->sort->keys[p] != key)
		p++;
	if (p == 0 || p == hists->sort->nr)
		return NULL;
	memcpy(before.keys, hists->sort->keys, (size_t)p * sizeof(*before.keys));
	before.nr = p;
	known = xcalloc(hists->nr ? hists->nr : 1, sizeof(*known));
	hashmap_init(&seen);
	/* by hash of the keys before: 1 + the entry that had it, or -1 once two had it */
	for (size_t i = 0; i < hists->nr; i++) {
		const struct hist_entry *he = &hists->entries[i];
		u64 h = entry_hash(&before, he);
		uintptr_t first;

		if (he->merged || he->filtered)
			continue;
		known[i] = he->nr_events >= 2;
		first = (uintptr_t)hashmap_find(&seen, h);
		if (!first) {
			hashmap_insert(&seen, h, (void *)(i + 1));
		} else if (first != (uintptr_t)-1) {
			known[first - 1] = known[i] = true;
			hashmap_insert(&seen, h, (void *)(uintptr_t)-1);
		} else {
			known[i] = true;
		}
	}
	hashmap_exit(&seen);
	return known;
}
