/*
 * ptrtable: a hash set of object pointers, keyed by something inside the objects (a tid, a
 * name). Open addressing with linear probing, at most 3/4 full, removal by shifting back (no
 * tombstones): 8 bytes a slot, for the model's big indexes. The owner gives the hash of an
 * object (used to move objects when the table grows or shifts) and, to find one, the hash of
 * the key and a match function. O(1) expected. Not thread safe.
 *
 * A slot keeps 16 bits of its object's hash in the pointer's unused top bits (user-space
 * pointers are below 2^48), so a probe reads an object only when those bits match: at a
 * million threads every object read is a cache miss, and a run of probes cost one each.
 * Read a slot with ptrtable_at().
 */
#ifndef LIB_PTRTABLE_H
#define LIB_PTRTABLE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/compiler.h"

struct ptrtable {
	void **slots;	/* NULL: empty; else tagged (ptrtable_at) */
	size_t cap;	/* power of two, or 0 */
	size_t count;
	u64 (*hash)(const void *obj);
};

void ptrtable_init(struct ptrtable *t, u64 (*hash)(const void *obj));
void ptrtable_exit(struct ptrtable *t);
/* Insert obj; nothing matching it may be in the table. */
void ptrtable_insert(struct ptrtable *t, void *obj);
/* Remove obj itself (not an equal one): whether it was there. */
bool ptrtable_remove(struct ptrtable *t, const void *obj);

#define PTRTABLE_TAG_SHIFT 48

/* The tag of a hash: its low bits (the home slot comes from the high ones). */
static inline uintptr_t ptrtable_tag(u64 hash)
{
	return (uintptr_t)(hash & 0xffff) << PTRTABLE_TAG_SHIFT;
}

/* The object in slot i, or NULL. */
static inline void *ptrtable_at(const struct ptrtable *t, size_t i)
{
	return (void *)((uintptr_t)t->slots[i] & (((uintptr_t)1 << PTRTABLE_TAG_SHIFT) - 1));
}

static inline size_t ptrtable_home(const struct ptrtable *t, u64 hash)
{
	return (size_t)(hash >> 32) & (t->cap - 1);
}

/* The object whose key has this hash and that match(obj, key) accepts, or NULL. Inline, so
 * that a constant match function is too. */
static inline void *ptrtable_find(const struct ptrtable *t, u64 hash,
				  bool (*match)(const void *obj, const void *key), const void *key)
{
	if (!t->count)
		return NULL;
	uintptr_t tag = ptrtable_tag(hash), mask = ~(uintptr_t)0 << PTRTABLE_TAG_SHIFT;

	for (size_t i = ptrtable_home(t, hash);; i = (i + 1) & (t->cap - 1)) {
		uintptr_t slot = (uintptr_t)t->slots[i];

		if (!slot)
			return NULL;
		if ((slot & mask) == tag && match(ptrtable_at(t, i), key))
			return ptrtable_at(t, i);
	}
}

/*
 * Prefetch for a find of this hash, in steps a while apart: stage 0 the home slot; stage 1
 * (the slot in cache by then) the object it holds if its tag matches. Changes nothing.
 */
static inline void ptrtable_prefetch(const struct ptrtable *t, u64 hash, int stage)
{
	uintptr_t slot, mask = ~(uintptr_t)0 << PTRTABLE_TAG_SHIFT;
	size_t i;

	if (!t->cap)
		return;
	i = ptrtable_home(t, hash);
	if (stage == 0) {
		__builtin_prefetch(&t->slots[i]);
		return;
	}
	slot = (uintptr_t)t->slots[i];
	if (slot && (slot & mask) == ptrtable_tag(hash))
		__builtin_prefetch(ptrtable_at(t, i));
}

#endif
