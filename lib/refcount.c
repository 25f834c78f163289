/* Reference counting with an optional checker; see refcount.h. */
#include "lib/refcount.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#ifdef REFCHECK
#include "lib/xalloc.h"

static struct refcount **live;
static size_t nr_live, alloc_live;
static bool registered;

static void refcheck_report(void)
{
	size_t leaked = 0;

	for (size_t i = 0; i < nr_live; i++) {
		if (live[i]) {
			if (leaked < 20)
				fprintf(stderr, "refcheck: %s %p still has %u reference(s) at exit\n",
					live[i]->kind, (void *)live[i], live[i]->count);
			leaked++;
		}
	}
	free(live);
	if (leaked) {
		fprintf(stderr, "refcheck: %zu object(s) leaked\n", leaked);
		_exit(99);
	}
}

static void refcheck_fail(struct refcount *ref, const char *what)
{
	fprintf(stderr, "refcheck: %s on %s %p whose count is %u\n", what, ref->kind, (void *)ref,
		ref->count);
	abort();
}

void refcount_init(struct refcount *ref, const char *kind)
{
	if (!registered) {
		atexit(refcheck_report);
		registered = true;
	}
	ref->count = 1;
	ref->kind = kind;
	ARRAY_GROW(live, alloc_live, nr_live + 1);
	ref->live_index = nr_live;
	live[nr_live++] = ref;
}

void refcount_get(struct refcount *ref)
{
	if (ref->count == 0)
		refcheck_fail(ref, "get after last put");
	ref->count++;
}

bool refcount_put(struct refcount *ref)
{
	if (ref->count == 0 || live[ref->live_index] != ref)
		refcheck_fail(ref, "put after last put");
	if (--ref->count)
		return false;
	live[ref->live_index] = NULL;
	return true;
}

size_t refcount_live(void)
{
	size_t n = 0;

	for (size_t i = 0; i < nr_live; i++)
		n += live[i] != NULL;
	return n;
}
#else
void refcount_init(struct refcount *ref, const char *kind)
{
	ref->count = 1;
}

void refcount_get(struct refcount *ref)
{
	ref->count++;
}

bool refcount_put(struct refcount *ref)
{
	return --ref->count == 0;
}

size_t refcount_live(void)
{
	return 0;
}
#endif
