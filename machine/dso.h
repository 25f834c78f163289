/*
 * dso: one shared object (or the kernel, or [vdso]) and the set of all of them.
 * A dso has a long name (the path as recorded), a short name (its basename, as perf shows it),
 * an optional build-id, and a symbol table loaded lazily on the first lookup.
 * dsos: every dso in arrival order and a hash index by long name (O(1) find or add).
 * Refcounted; single writer.
 */
#ifndef MACHINE_DSO_H
#define MACHINE_DSO_H

#include <pthread.h>

#include "lib/compiler.h"
#include "lib/containers/ptrtable.h"
#include "lib/refcount.h"
#include "lib/workqueue.h"
#include "symtab/symtab.h"

/*
 * Loads symbol tables ahead on the workqueue: the dsos a recording says it hit are loaded in
 * parallel while records are read; the first lookup waits for its table if it is not ready.
 * The lock guards the load state of every dso queued on it.
 */
struct dso_loader {
	struct workqueue *wq;	/* NULL: everything loads lazily on the caller's thread */
	const struct symsrc_config *cfg;
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

struct dso_symbols;

/*
 * What every dso needs, 88 bytes (DESIGN.md's budget: 160; test_machine.c checks it). What
 * loading its symbols needs and finds (the table, the queued work, the kernel's relocation and
 * bounds) is allocated on the first request or load ahead: most dsos of a big recording are
 * never hit.
 */
struct dso {
	struct refcount ref;
	u8 kind;		/* enum dso_kind */
	u8 build_id_size;
	bool symbols_loaded;	/* set by the one thread that looks symbols up at a time */
	u32 nr_inos;		/* of inos, below */
	u32 seq;		/* creation order (report's callchains order dsos as perf's
				 * allocator happens to: by creation) */
	u8 build_id[20];
	const char *long_name;	/* in the machine's string arena, once: dsos' index keeps it unique */
	/*
	 * Interned, made when a sample first resolves to the dso (machine.c's find_map, on the
	 * reading thread): most dsos of a big recording never get one. NULL until then.
	 */
	const char *short_name;
	/*
	 * The inodes this path was mapped from (MMAP2's id), in the order first seen; perf keeps
	 * one dso per (path, id) and shows its inode in `report --tasks --mmaps`.
	 */
	union {
		u64 ino;	/* nr_inos <= 1: the one inode, inline */
		u64 *inos;	/* more: an array */
	};
	struct dso_symbols *syms;	/* NULL until symbols are asked for or queued (dso.c) */
};

/*
 * Every dso, in one index by long name, so that finding or adding one is O(1) however the
 * names arrive (a name is stored only when its dso is new). The index holds a reference.
 */
struct dsos {
	struct ptrtable by_name;
	u32 nr_made;	/* dsos made so far: the next one's seq */
};

struct symsrc_config;
struct strpool;

void dsos__init(struct dsos *dsos);
void dsos__exit(struct dsos *dsos);
/* Find or create by long name; returns a new reference. */
struct dso *dsos__findnew(struct dsos *dsos, struct strpool *pool, const char *long_name);

struct dso *dso__get(struct dso *dso);
/* perf's dso__set_basename: the basename, interned; JIT maps show as "[JIT] tid N". */
const char *dso__short_name_of(struct strpool *pool, const char *long_name);
/* Give dso its short name if it has none yet (see struct dso). */
static inline void dso__name_short(struct dso *dso, struct strpool *pool)
{
	if (!dso->short_name)
		dso->short_name = dso__short_name_of(pool, dso->long_name);
}
/* The index (from 1) of a mapping's inode in dso->inos, added if new. */
u32 dso__ino_index(struct dso *dso, u64 ino);
/* A path mapped from more files than this is not a real recording: the rest share the last. */
#define DSO_MAX_INOS 1024
/*
 * The inode of index (dso__ino_index); index 0, a mapping recorded without an id, shows the
 * first inode recorded for the path, as perf's lookup by name alone finds that dso.
 */
u64 dso__ino(const struct dso *dso, u32 index);
void dso__put(struct dso *dso);
void dso_loader__init(struct dso_loader *loader, struct workqueue *wq,
		      const struct symsrc_config *cfg);
void dso_loader__exit(struct dso_loader *loader);
/*
 * Start loading dso's symbols on the loader's workqueue (the kernel: relocated to ref_reloc).
 * The workqueue must drain before the dsos go (machine__exit).
 */
void dso__load_ahead(struct dso *dso, struct dso_loader *loader, u64 kernel_ref_reloc);
/*
 * The kernel's symbols ([kernel.kallsyms]), relocated to ref_reloc unless a load was queued
 * ahead (that one's relocation stands; this waits for it): the map bounds they give.
 */
const struct kernel_map_bounds *dso__load_kernel(struct dso *dso, const struct symsrc_config *cfg,
						 u64 ref_reloc);
/* Whether dso's symbols were asked for or queued: from then on its build-id is read. */
static inline bool dso__symbols_requested(struct dso *dso)
{
	return __atomic_load_n(&dso->syms, __ATOMIC_ACQUIRE) != NULL;
}
/* Whether dso's symbols can be had without waiting for another thread. */
bool dso__symbols_ready(struct dso *dso);
/* Load symbols on first use (or wait for the load started ahead); the (possibly empty) table. */
const struct symtab *dso__symtab(struct dso *dso, const struct symsrc_config *cfg);
/* The symbol at addr (symtab__find), through a cache of the last ones found. */
const struct symbol *dso__find_symbol(struct dso *dso, const struct symsrc_config *cfg,
				      u64 addr);

#endif
