/*
 * symcache: the persistent symbol index. A dso's final symbol table (perf's fixups done,
 * names as printed, PLT and data symbols) is written once to a file of the cache directory,
 * and later runs map that file and search it as it is: no per-symbol work but a check.
 *
 * An index is found by its key (what the loader knows before it looks at any file: the dso's
 * name and build-id, the search settings) and used only when every file the first load looked
 * at (build-id cache entries, debug files, the dso itself, kallsyms) is still what it was
 * (device, inode, size, mtime), and for the running kernel's kallsyms when its build-id, boot
 * id and /proc/modules are. Files are written whole to a temporary name and renamed, and
 * carry a checksum; anything else (truncated, corrupt, foreign, another version) is ignored
 * and rebuilt. Thread safe: tables load on several workers.
 */
#ifndef SYMTAB_SYMCACHE_H
#define SYMTAB_SYMCACHE_H

#include <stdio.h>

#include "lib/compiler.h"

struct symtab;
struct kernel_map_bounds;
struct symcache;

#define SYMCACHE_DEFAULT_MAX (1ull << 30)

/*
 * The cache at dir (NULL: $XDG_CACHE_HOME/analyze, else ~/.cache/analyze), at most
 * max_bytes of indexes (0: SYMCACHE_DEFAULT_MAX). Nothing is touched until a table is
 * looked up. Never NULL.
 */
struct symcache *symcache__new(const char *dir, u64 max_bytes);
void symcache__delete(struct symcache *c);
const char *symcache__dir(const struct symcache *c);
u64 symcache__max_bytes(const struct symcache *c);

/*
 * The cache the environment asks for: ANALYZE_SYMBOL_CACHE (a directory, or "off" for none),
 * ANALYZE_SYMBOL_CACHE_MAX (bytes, with a K, M or G suffix), ANALYZE_SYMBOL_CACHE_LOG (a file
 * to append a line to for every hit, miss, write and rejected index). dir, when not NULL,
 * overrides ANALYZE_SYMBOL_CACHE; disabled means no cache: NULL.
 */
struct symcache *symcache__from_env(const char *dir, bool disabled);

/* What a table's first load looked at, and the key it is found by. */
struct symcache_key {
	u8 *bytes;
	size_t len, alloc;
	/* the probes: files whose state decided the table */
	u8 *probes;
	size_t probes_len, probes_alloc;
};

void symcache_key__init(struct symcache_key *k, const char *kind);
void symcache_key__exit(struct symcache_key *k);
void symcache_key__add(struct symcache_key *k, const void *data, size_t len);
void symcache_key__add_str(struct symcache_key *k, const char *s);
void symcache_key__add_u64(struct symcache_key *k, u64 v);

/*
 * Probes. While a key is recording on this thread (symcache_record), every file symtab_ asks
 * about is noted with its state; symcache_probe_kernel notes the running kernel instead of
 * /proc/kallsyms itself (reading that costs tens of milliseconds).
 */
void symcache_record(struct symcache_key *k);	/* NULL: stop */
void symcache_probe_file(const char *path);
void symcache_probe_kernel(void);

/*
 * The table for key, mapped into st (and the kernel's map bounds into bounds, which may be
 * NULL): 0, or -1 when there is no usable index (st untouched).
 */
int symcache__load(struct symcache *c, const struct symcache_key *key, struct symtab *st,
		   struct kernel_map_bounds *bounds);
/* Write st (loaded while key recorded its probes) as key's index; failures only warn, once. */
void symcache__store(struct symcache *c, const struct symcache_key *key, const struct symtab *st,
		     const struct kernel_map_bounds *bounds);

/* Set an index image's checksum to its bytes' (for the fuzzer: to get past the checksum). */
void symcache_seal_image(void *image, size_t size);
/* Map an index file's bytes: 0 with st filled, or -1 with why (for the fuzzer and the tests). */
int symcache_map_image(const void *image, size_t size, struct symtab *st,
		       struct kernel_map_bounds *bounds, const char **why);

/* The cache's files: count and bytes (0 when it has none); clear removes them all. */
int symcache__usage(const struct symcache *c, u64 *files, u64 *bytes);
int symcache__clear(const struct symcache *c);

#endif
