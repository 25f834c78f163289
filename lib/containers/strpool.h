/*
 * strpool: string interning. Each distinct string is stored once in an arena and returned as a
 * stable `const char *`, so interned strings compare by pointer. O(1) expected intern.
 * Not thread safe.
 */
#ifndef LIB_STRPOOL_H
#define LIB_STRPOOL_H

#include "lib/compiler.h"

struct strpool {
	struct strpool_chunk *chunks;
	const char **table;	/* open addressing on xxhash of the string */
	size_t cap, count;
};

void strpool_init(struct strpool *pool);
void strpool_exit(struct strpool *pool);
const char *strpool_intern(struct strpool *pool, const char *s);
const char *strpool_intern_len(struct strpool *pool, const char *s, size_t len);
/*
 * A copy of s in the arena, not indexed: for strings another index already keeps unique
 * (dso long names, by the dsos' table). It is not the interned pointer of the same text.
 */
const char *strpool_store(struct strpool *pool, const char *s);

#endif
