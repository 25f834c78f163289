/*
 * symcache internals, shared by its files: symcache.c (the format, loading and storing),
 * symcache_probe.c (keys and probes) and symcache_dir.c (the directory's upkeep).
 */
#ifndef SYMTAB_SYMCACHE_INTERNAL_H
#define SYMTAB_SYMCACHE_INTERNAL_H

#include <pthread.h>

#include "symtab/symcache.h"

#define SYMCACHE_SUFFIX ".sym"	/* an index: 32 hex digits of its key's hash, then this */

struct symcache {
	char *dir;
	char *log;		/* ANALYZE_SYMBOL_CACHE_LOG, or NULL */
	u64 max_bytes;
	bool warned;		/* a write failed: said once, and no more writes this run
				   (atomic) */
	pthread_mutex_t lock;	/* guards what follows */
	bool sized;		/* total is known */
	u64 total;		/* bytes of indexes in dir, as far as this run knows */
};

/* A line of ANALYZE_SYMBOL_CACHE_LOG; the one warning a run gives about the directory. */
void cache_log(const struct symcache *c, const char *what, const char *path, const char *why);
void cache_warn(struct symcache *c, const char *what, int err);

/* Whether every probe of an index (its probes section) still holds; why not in *why. */
bool symcache_probes_hold(const u8 *probes, size_t len, const char **why);

/* mkdir -p, 0700: 0 or -1 */
int symcache_make_dirs(const char *path);
/* After a write of bytes to path: keep the directory under its cap. */
void symcache_account(struct symcache *c, u64 bytes, const char *path);

#endif
