/* xxhash with its implementation inlined (header-only mode): hashing is on per-event paths. */
#ifndef LIB_XXHASH_INLINE_H
#define LIB_XXHASH_INLINE_H

#define XXH_INLINE_ALL
#include <xxhash.h>

#endif
