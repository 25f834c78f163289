/*
 * The srcline and srcfile keys: each entry's source line and file, as perf 6.1 makes them of
 * addr2line's answers, found once an entry after the run (never a sample), interned, and the
 * entries they make equal merged. Line lookups are machine/inline's; this owns the texts.
 */
#include "analyzer/hist/hist_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/containers/strpool.h"
#include "lib/xalloc.h"
#include "machine/inline.h"

/* The src_texts of a histogram: one a distinct line text and kind (answer or not). */
struct src_table {
	struct strpool pool;
	struct hashmap texts;	/* interned line << 1 | answered -> struct src_text */
};

bool sort_list__has_src(const struct sort_list *list)
{
	return sort_list__has(list, SORT_SRCLINE) || sort_list__has(list, SORT_SRCFILE);
}

static const struct src_text *src_intern(struct src_table *t, const char *line, size_t file_len,
					 bool answered)
{
	const char *text = strpool_intern(&t->pool, line);
	u64 key = (u64)(uintptr_t)text << 1 | answered;
	struct src_text *src = hashmap_find(&t->texts, key);

	if (!src) {
		src = xmalloc(sizeof(*src));
		src->line = text;
		src->file = strpool_intern_len(&t->pool, line, file_len);
		hashmap_insert(&t->texts, key, src);
	}
	return src;
}

/*
 * perf's map__srcline (get_srcline, show_sym and show_addr) and hist_entry__get_srcfile for
 * he: addr2line's "FILE:LINE" ("??:0" too, whose file is none), else the symbol and the
 * decimal offset in it, else the dso and address; srcfile the text before the answer's first
 * ':'. Without a map: "??:0" and no file.
 */
static const struct src_text *entry_src(struct src_table *t, struct inlines *inlines,
					const struct hist_entry *he)
{
	char buf[4096];
	const char *colon;

	if (!he->dso)
		return src_intern(t, "??:0", 0, false);
	if (inlines__srcline(inlines, he->dso, he->ip, buf, sizeof(buf))) {
		colon = strchr(buf, ':');
		if (!strcmp(buf, "??:0") || !colon || colon == buf)
			return src_intern(t, buf, 0, true);
		return src_intern(t, buf, (size_t)(colon - buf), true);
	}
	if (he->sym)
		snprintf(buf, sizeof(buf), "%s+%llu", symbol__name(he->symtab, he->sym),
			 (unsigned long long)(he->ip - he->sym->start));
	else
		snprintf(buf, sizeof(buf), "%s[%llx]", he->dso->short_name,
			 (unsigned long long)he->ip);
	return src_intern(t, buf, 0, false);
}

void hists__resolve_srclines(struct hists *hists, struct inlines *inlines)
{
	struct src_table *t;

	if (hists->srcs || !sort_list__has_src(hists->sort))
		return;
	t = xzalloc(sizeof(*t));
	strpool_init(&t->pool);
	hashmap_init(&t->texts);
	hists->srcs = t;
	/* entries of one address come in runs (a hot loop's): the last answer is reused */
	for (size_t i = 0; i < hists->nr; i++) {
		struct hist_entry *he = &hists->entries[i];
		const struct hist_entry *prev = i ? &hists->entries[i - 1] : NULL;

		if (prev && prev->dso == he->dso && prev->ip == he->ip && prev->sym == he->sym)
			he->src = prev->src;
		else
			he->src = entry_src(t, inlines, he);
	}
	hists__collapse(hists);
}

void src_table__delete(struct src_table *t)
{
	u64 key;
	void *src;

	if (!t)
		return;
	for (size_t i = 0; hashmap_next(&t->texts, &i, &key, &src);)
		free(src);
	hashmap_exit(&t->texts);
	strpool_exit(&t->pool);
	free(t);
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
