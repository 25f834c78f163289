/* The model's past, logged as it is built and asked about afterwards; see history.h. */
#include "machine/history.h"

#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"

static struct maps_history *maps_history(struct history *h, struct maps *maps)
{
	uintptr_t i = (uintptr_t)hashmap_find(&h->by_maps, (u64)(uintptr_t)maps);
	struct maps_history *mh;

	if (i)
		return &h->mh[i - 1];
	ARRAY_GROW(h->mh, h->alloc_mh, h->nr_mh + 1);
	mh = &h->mh[h->nr_mh++];
	memset(mh, 0, sizeof(*mh));
	mh->maps = maps__get(maps);
	hashmap_init(&mh->open);
	hashmap_insert(&h->by_maps, (u64)(uintptr_t)maps, (void *)(uintptr_t)h->nr_mh);
	return mh;
}

static void span_add(void *data, struct maps *maps, struct map *map)
{
	struct history *h = data;
	struct maps_history *mh = maps_history(h, maps);

	ARRAY_GROW(mh->spans, mh->alloc, mh->nr + 1);
	mh->spans[mh->nr++] = (struct map_span){ .start = map->start, .end = map->end,
						 .map = map__get(map), .from = h->now,
						 .to = MODEL_KEY_MAX };
	hashmap_insert(&mh->open, (u64)(uintptr_t)map, (void *)(uintptr_t)mh->nr);
}

static void span_remove(void *data, struct maps *maps, struct map *map)
{
	struct history *h = data;
	struct maps_history *mh = maps_history(h, maps);
	uintptr_t i = (uintptr_t)hashmap_remove(&mh->open, (u64)(uintptr_t)map);

	if (i)
		mh->spans[i - 1].to = h->now;
}

static const struct maps_observer observer = { span_add, span_remove, NULL };
static struct maps_observer observing;

static int seed_thread(struct thread *t, void *data)
{
	history__thread(data, t);
	return 0;
}

void history__init(struct history *h, struct machine *m)
{
	memset(h, 0, sizeof(*h));
	hashmap_init(&h->by_tid);
	hashmap_init(&h->by_maps);
	observing = observer;
	observing.data = h;
	maps_observer = &observing;
	m->history = h;
	machine__for_each_thread(m, seed_thread, h);
	/* the kernel's maps are logged from their first map on */
}

void history__thread(struct history *h, struct thread *t)
{
	ARRAY_GROW(h->versions, h->alloc_versions, h->nr_versions + 1);
	h->versions[h->nr_versions++] = (struct thread_version){
		.key = h->now, .thread = thread__get(t), .maps = maps__get(t->maps),
		.comm = t->comm, .tid = t->tid, .pid = t->pid, .comm_set = t->comm_set };
}

void history__thread_gone(struct history *h, s32 tid)
{
	ARRAY_GROW(h->versions, h->alloc_versions, h->nr_versions + 1);
	h->versions[h->nr_versions++] = (struct thread_version){ .key = h->now, .tid = tid };
}

/* A version and where it was logged: sorted by tid, then in the order logged (key order). */
struct ranked_version {
	struct thread_version v;
	size_t i;
};

static int version_cmp(const void *a, const void *b)
{
	const struct ranked_version *x = a, *y = b;

	if (x->v.tid != y->v.tid)
		return x->v.tid < y->v.tid ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static int span_cmp(const void *a, const void *b)
{
	const struct map_span *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (model_key_less(x->from, y->from))
		return -1;
	return model_key_less(y->from, x->from) ? 1 : 0;
}

void history__finish(struct history *h, struct machine *m)
{
	struct ranked_version *tmp = xreallocarray(NULL, h->nr_versions ? h->nr_versions : 1,
						   sizeof(*tmp));

	maps_observer = NULL;
	m->history = NULL;
	for (size_t i = 0; i < h->nr_versions; i++)
		tmp[i] = (struct ranked_version){ h->versions[i], i };
	qsort(tmp, h->nr_versions, sizeof(*tmp), version_cmp);
	for (size_t i = 0; i < h->nr_versions; i++)
		h->versions[i] = tmp[i].v;
	free(tmp);
	for (size_t i = 0; i < h->nr_versions; i++)
		if (!i || h->versions[i].tid != h->versions[i - 1].tid)
			hashmap_insert(&h->by_tid, (u64)(u32)h->versions[i].tid,
				       (void *)(uintptr_t)(i + 1));
	for (size_t i = 0; i < h->nr_mh; i++) {
		struct maps_history *mh = &h->mh[i];

		hashmap_exit(&mh->open);
		qsort(mh->spans, mh->nr, sizeof(*mh->spans), span_cmp);
		mh->max_end = xreallocarray(NULL, mh->nr ? mh->nr : 1, sizeof(*mh->max_end));
		for (size_t j = 0; j < mh->nr; j++)
			mh->max_end[j] = MAX(mh->spans[j].end, j ? mh->max_end[j - 1] : 0);
	}
	h->finished = true;
}

void history__exit(struct history *h)
{
	if (maps_observer == &observing)
		maps_observer = NULL;
	for (size_t i = 0; i < h->nr_versions; i++) {
		thread__put(h->versions[i].thread);
		maps__put(h->versions[i].maps);
	}
	free(h->versions);
	for (size_t i = 0; i < h->nr_mh; i++) {
		struct maps_history *mh = &h->mh[i];

		for (size_t j = 0; j < mh->nr; j++)
			map__put(mh->spans[j].map);
		if (!h->finished)
			hashmap_exit(&mh->open);
		free(mh->spans);
		free(mh->max_end);
		maps__put(mh->maps);
	}
	free(h->mh);
	hashmap_exit(&h->by_tid);
	hashmap_exit(&h->by_maps);
	memset(h, 0, sizeof(*h));
}

const struct thread_version *history__thread_at(const struct history *h, s32 tid,
						struct model_key key)
{
	uintptr_t first = (uintptr_t)hashmap_find(&h->by_tid, (u64)(u32)tid);
	size_t lo, hi;

	if (!first)
		return NULL;
	/* the last version of tid logged before key */
	lo = first - 1;
	hi = lo;
	while (hi < h->nr_versions && h->versions[hi].tid == tid)
		hi++;
	if (!model_key_less(h->versions[lo].key, key))
		return NULL;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (model_key_less(h->versions[mid].key, key))
			lo = mid;
		else
			hi = mid;
	}
	return h->versions[lo].thread ? &h->versions[lo] : NULL;
}

const struct thread_version *history__thread_at_cached(const struct history *h, s32 tid,
						       struct model_key key,
						       struct version_cache *c)
{
	const struct thread_version *v;
	size_t i;

	if (c->v && c->tid == tid && model_key_less(c->v->key, key) && !model_key_less(c->to, key))
		return c->v;
	v = history__thread_at(h, tid, key);
	if (!v)
		return NULL;
	/* what it holds for: up to the key of the tid's next version, that one included */
	i = (size_t)(v - h->versions);
	*c = (struct version_cache){ .v = v, .tid = tid, .to = MODEL_KEY_MAX };
	if (i + 1 < h->nr_versions && h->versions[i + 1].tid == tid)
		c->to = h->versions[i + 1].key;
	return v;
}

static bool span_holds(const struct map_span *s, u64 ip, struct model_key key)
{
	return ip >= s->start && ip < s->end && model_key_less(s->from, key) &&
	       model_key_less(key, s->to);
}

const struct map_span *history__find_map(const struct history *h, struct maps *maps, u64 ip,
					 struct model_key key, struct span_cache *cache)
{
	const struct maps_history *mh;
	uintptr_t i;
	size_t lo = 0, hi;

	if (cache->mh && cache->mh->maps == maps && span_holds(cache->span, ip, key))
		return cache->span;
	i = (uintptr_t)hashmap_find(&h->by_maps, (u64)(uintptr_t)maps);
	if (!i)
		return NULL;
	mh = &h->mh[i - 1];
	/* the spans starting at or below ip, walked down while one may still reach over ip */
	hi = mh->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (mh->spans[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t j = lo; j-- > 0 && mh->max_end[j] > ip;) {
		if (span_holds(&mh->spans[j], ip, key)) {
			cache->mh = mh;
			cache->span = &mh->spans[j];
			return cache->span;
		}
	}
	return NULL;
}

void history__set_entry_comms(struct history *h,
			      const void *(*fn)(void *data, const struct thread_version *v),
			      void *data)
{
	for (size_t i = 0; i < h->nr_versions; i++)
		if (h->versions[i].thread)
			h->versions[i].entry_comm = fn(data, &h->versions[i]);
}

void history__for_each_span(const struct history *h,
			    void (*fn)(void *data, const struct maps_history *mh,
				       const struct map_span *span),
			    void *data)
{
	for (size_t i = 0; i < h->nr_mh; i++)
		for (size_t j = 0; j < h->mh[i].nr; j++)
			fn(data, &h->mh[i], &h->mh[i].spans[j]);
}
