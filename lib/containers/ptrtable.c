/* Hash set of object pointers; see ptrtable.h. */
#include "lib/containers/ptrtable.h"

#include <stdio.h>
#include <stdlib.h>

#include "lib/xalloc.h"

void ptrtable_init(struct ptrtable *t, u64 (*hash)(const void *obj))
{
	*t = (struct ptrtable){ .hash = hash };
}

void ptrtable_exit(struct ptrtable *t)
{
	free(t->slots);
	ptrtable_init(t, t->hash);
}

static void place(struct ptrtable *t, void *obj)
{
	u64 hash = t->hash(obj);
	size_t i = ptrtable_home(t, hash);

	if ((uintptr_t)obj >> PTRTABLE_TAG_SHIFT) {
		fprintf(stderr, "analyze: ptrtable: pointer %p uses its top bits\n", obj);
		abort();
	}
	while (t->slots[i])
		i = (i + 1) & (t->cap - 1);
	t->slots[i] = (void *)((uintptr_t)obj | ptrtable_tag(hash));
}

void ptrtable_insert(struct ptrtable *t, void *obj)
{
	if ((t->count + 1) * 4 > t->cap * 3) {
		void **old = t->slots;
		size_t old_cap = t->cap;

		t->cap = old_cap ? old_cap * 2 : 64;
		t->slots = xcalloc_populated(t->cap, sizeof(*t->slots));
		for (size_t i = 0; i < old_cap; i++)
			if (old[i])	/* untagged, placed (and tagged) again */
				place(t, (void *)((uintptr_t)old[i] &
						  (((uintptr_t)1 << PTRTABLE_TAG_SHIFT) - 1)));
		free(old);
	}
	place(t, obj);
	t->count++;
}

bool ptrtable_remove(struct ptrtable *t, const void *obj)
{
	size_t mask = t->cap - 1, i, j;

	if (!t->count)
		return false;
	for (i = ptrtable_home(t, t->hash(obj)); ptrtable_at(t, i) != obj; i = (i + 1) & mask)
		if (!t->slots[i])
			return false;
	/* shift back every later object of the run whose home is not between the hole and it */
	for (j = (i + 1) & mask; t->slots[j]; j = (j + 1) & mask) {
		size_t home = ptrtable_home(t, t->hash(ptrtable_at(t, j)));

		if (((j - home) & mask) >= ((j - i) & mask)) {
			t->slots[i] = t->slots[j];
			i = j;
		}
	}
	t->slots[i] = NULL;
	t->count--;
	return true;
}
