/*
 * refcount: reference counts for the machine model's objects (threads, maps, dsos).
 * Every get has one put; the object is freed by the put that drops the count to zero.
 * The checking build (-DREFCHECK, `make refcheck`) aborts on a get or put of an object whose
 * count already reached zero (a use after the last put, a double put) and, at exit, reports
 * every object still referenced, with its kind, and fails the process.
 * Not thread safe: the model has one writer.
 */
#ifndef LIB_REFCOUNT_H
#define LIB_REFCOUNT_H

#include "lib/compiler.h"

struct refcount {
	u32 count;
#ifdef REFCHECK
	u32 live_index;	/* slot in the checker's table of live objects */
	const char *kind;
#endif
};

void refcount_init(struct refcount *ref, const char *kind);
void refcount_get(struct refcount *ref);
/* Returns true when the count dropped to zero and the caller must free the object. */
bool refcount_put(struct refcount *ref);
static inline u32 refcount_read(const struct refcount *ref)
{
	return ref->count;
}
/* Number of objects still referenced (always 0 outside the checking build). */
size_t refcount_live(void);

#endif
