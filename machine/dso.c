/* dsos: every dso, indexed by long name, and loading a dso's symbols; see dso.h. */
#include "machine/dso.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/containers/slab.h"
#include "lib/containers/strpool.h"
#include "lib/containers/xxhash_inline.h"
#include "lib/xalloc.h"

/*
 * A load queued ahead is claimed by whoever gets to it first: its work item, or a lookup
 * that cannot wait for a worker (that worker may be the one waiting).
 */
enum { DSO_LOAD_NONE, DSO_LOAD_QUEUED, DSO_LOAD_LOADING, DSO_LOAD_DONE };

/*
 * A dso's symbol loading state, allocated when its symbols are first asked for or queued
 * ahead, and published once as dso->syms (dso_syms_publish). The kernel's
 * ([kernel.kallsyms]) is a struct kernel_symbols.
 */
struct symbol_span {
	u64 lo, hi;
	const struct symbol *sym;
};

#define SPAN_CACHE 256	/* spans, a power of two */
#define SPAN_CACHE_AFTER 64
#define SPAN_SLOT(addr) (((addr) >> 4) & (SPAN_CACHE - 1))

struct dso_symbols {
	struct symtab symtab;
	struct dso *dso;		/* not a reference: the dso owns this */
	struct dso_loader *loader;	/* queued ahead on it, else NULL */
	struct work load_work;
	u8 load_state;			/* DSO_LOAD_*, under the loader's lock */
	bool kernel;			/* [kernel.kallsyms]: a struct kernel_symbols */
	/* the last lookup: every address in [lo, hi) finds sym */
	struct symbol_span last;
	/*
	 * Then earlier ones, by address bits, once the dso has had SPAN_CACHE_AFTER lookups
	 * that missed both: samples come back to a few hundred hot addresses of a dso, and a
	 * search of a large table (the kernel's) costs a cache miss a step.
	 */
	struct symbol_span *spans;
	u32 misses;
};

struct kernel_symbols {
	struct dso_symbols syms;
	u64 ref_reloc;				/* the queued load's relocation */
	struct kernel_map_bounds bounds;	/* what loading found */
};

static struct kernel_symbols *kernel_symbols(struct dso_symbols *syms)
{
	return container_of(syms, struct kernel_symbols, syms);
}

static struct dso_symbols *dso_symbols__new(struct dso *dso)
{
	struct dso_symbols *syms;

	if (dso->kind == DSO_KIND_KERNEL && !strcmp(dso->long_name, "[kernel.kallsyms]")) {
		struct kernel_symbols *k = xzalloc(sizeof(*k));

		syms = &k->syms;
		syms->kernel = true;
	} else {
		syms = xzalloc(sizeof(*syms));
	}
	symtab__init(&syms->symtab);
	syms->dso = dso;
	return syms;
}

/* What a lookup finds in a dso no symbol source filled: shared by all such dsos. */
static struct dso_symbols no_symbols;

static void dso_symbols__delete(struct dso_symbols *syms)
{
	if (syms == &no_symbols)
		return;
	symtab__exit(&syms->symtab);
	free(syms->spans);
	free(syms->kernel ? (void *)kernel_symbols(syms) : syms);
}

/*
 * Make syms dso->syms unless another thread did first: the thread that reads records may
 * queue a load ahead while a lookup loads on demand. Returns dso->syms, whichever won.
 */
static struct dso_symbols *dso_syms_publish(struct dso *dso, struct dso_symbols *syms)
{
	struct dso_symbols *first = NULL;

	if (__atomic_compare_exchange_n(&dso->syms, &first, syms, false, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE))
		return syms;
	dso_symbols__delete(syms);
	return first;
}

/* A fleet has tens of thousands: a slab, not a malloc each (single writer). */
static struct slab dso_slab = SLAB_INIT(struct dso);

static u64 name_hash(const char *name)
{
	return XXH3_64bits(name, strlen(name));
}

static u64 dso_hash(const void *obj)
{
	return name_hash(((const struct dso *)obj)->long_name);
}

static bool dso_has_name(const void *obj, const void *name)
{
	return strcmp(((const struct dso *)obj)->long_name, name) == 0;
}

void dsos__init(struct dsos *dsos)
{
	memset(dsos, 0, sizeof(*dsos));
	ptrtable_init(&dsos->by_name, dso_hash);
}

void dsos__exit(struct dsos *dsos)
{
	for (size_t i = 0; i < dsos->by_name.cap; i++)
		dso__put(ptrtable_at(&dsos->by_name, i));	/* NULL (empty) is a no-op */
	ptrtable_exit(&dsos->by_name);
	memset(dsos, 0, sizeof(*dsos));
}

const char *dso__short_name_of(struct strpool *pool, const char *long_name)
{
	const char *slash = strrchr(long_name, '/');
	char jit[48];
	int tid;

	if (sscanf(long_name, "/tmp/perf-%d.map", &tid) == 1) {
		snprintf(jit, sizeof(jit), "[JIT] tid %d", tid);
		return strpool_intern(pool, jit);
	}
	return strpool_intern(pool, slash && long_name[0] != '[' ? slash + 1 : long_name);
}

struct dso *dsos__findnew(struct dsos *dsos, struct strpool *pool, const char *long_name)
{
	struct dso *dso = ptrtable_find(&dsos->by_name, name_hash(long_name), dso_has_name,
					long_name);

	if (dso)
		return dso__get(dso);
	dso = slab_zalloc(&dso_slab);
	refcount_init(&dso->ref, "dso");
	dso->seq = dsos->nr_made++;
	dso->long_name = strpool_store(pool, long_name);	/* unique by by_name */
	if (strcmp(long_name, "[vdso]") == 0)
		dso->kind = DSO_KIND_VDSO;
	else if (long_name[0] == '[' && strncmp(long_name, "[kernel.kallsyms]", 17) == 0)
		dso->kind = DSO_KIND_KERNEL;
	else
		dso->kind = DSO_KIND_USER;
	ptrtable_insert(&dsos->by_name, dso);
	return dso__get(dso);
}

struct dso *dso__get(struct dso *dso)
{
	if (dso)
		refcount_get(&dso->ref);
	return dso;
}

u32 dso__ino_index(struct dso *dso, u64 ino)
{
	u64 *inos = dso->nr_inos > 1 ? dso->inos : &dso->ino;

	for (u32 i = 0; i < dso->nr_inos; i++)
		if (inos[i] == ino)
			return i + 1;
	if (dso->nr_inos == DSO_MAX_INOS)
		return dso->nr_inos;
	if (dso->nr_inos == 0) {
		dso->ino = ino;
	} else {
		if (dso->nr_inos == 1) {	/* from inline to an array */
			inos = xmalloc(2 * sizeof(*inos));
			inos[0] = dso->ino;
		} else {
			inos = xreallocarray(inos, dso->nr_inos + 1, sizeof(*inos));
		}
		inos[dso->nr_inos] = ino;
		dso->inos = inos;
	}
	return ++dso->nr_inos;
}

u64 dso__ino(const struct dso *dso, u32 index)
{
	const u64 *inos = dso->nr_inos > 1 ? dso->inos : &dso->ino;

	if (index == 0)
		return dso->nr_inos ? inos[0] : 0;
	return index <= dso->nr_inos ? inos[index - 1] : 0;
}

void dso__put(struct dso *dso)
{
	if (dso && refcount_put(&dso->ref)) {
		if (dso->syms)
			dso_symbols__delete(dso->syms);
		if (dso->nr_inos > 1)
			free(dso->inos);
		slab_free(&dso_slab, dso);
	}
}

/*
 * perf reads a [vdso] it finds in no build-id cache from its own process's vdso (copied to a
 * temporary file), checked against the recorded build-id when there is one.
 */
static void load_own_vdso(struct dso_symbols *syms, const struct symsrc_config *cfg)
{
	const struct dso *dso = syms->dso;
	char path[] = "/tmp/analyze-vdso.so-XXXXXX";
	unsigned long start = 0, end = 0;
	char line[256];
	FILE *maps = fopen("/proc/self/maps", "r");
	int fd;

	if (!maps)
		return;
	while (fgets(line, sizeof(line), maps))
		if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &start, &end) == 2)
			break;
	fclose(maps);
	if (!start || end <= start || end - start > (64u << 20))
		return;
	fd = mkstemp(path);
	if (fd < 0)
		return;
	if (write(fd, (const void *)start, end - start) == (ssize_t)(end - start)) {
		struct symsrc_config own = *cfg;

		own.symfs = "";
		own.cache = NULL;	/* a temporary file: its index would never be found again */
		symtab__load_dso(&syms->symtab, &own, DSO_KIND_USER, path,
				 dso->build_id_size ? dso->build_id : NULL, dso->build_id_size);
	}
	close(fd);
	unlink(path);
}

/* ref_reloc: the kernel's (symtab__load_kernel); other dsos ignore it. */
static void dso__load(struct dso_symbols *syms, const struct symsrc_config *cfg, u64 ref_reloc)
{
	const struct dso *dso = syms->dso;
	const u8 *bid = dso->build_id_size ? dso->build_id : NULL;

	if (syms->kernel) {
		symtab__load_kernel(&syms->symtab, cfg, bid, dso->build_id_size, ref_reloc,
				    &kernel_symbols(syms)->bounds);
		return;
	}
	if (symtab__load_dso(&syms->symtab, cfg, dso->kind, dso->long_name, bid,
			     dso->build_id_size) < 0 && dso->kind == DSO_KIND_VDSO)
		load_own_vdso(syms, cfg);
}

void dso_loader__init(struct dso_loader *l, struct workqueue *wq, const struct symsrc_config *cfg)
{
	l->wq = wq;
	l->cfg = cfg;
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->cond, NULL);
}

void dso_loader__exit(struct dso_loader *l)
{
	pthread_mutex_destroy(&l->lock);
	pthread_cond_destroy(&l->cond);
}

/* Load a queued dso unless another thread claimed it first; then wait until it is loaded. */
static void claim_and_load(struct dso_symbols *syms)
{
	struct dso_loader *l = syms->loader;
	bool mine;

	pthread_mutex_lock(&l->lock);
	mine = syms->load_state == DSO_LOAD_QUEUED;
	if (mine)
		syms->load_state = DSO_LOAD_LOADING;
	pthread_mutex_unlock(&l->lock);
	if (mine)
		dso__load(syms, l->cfg, syms->kernel ? kernel_symbols(syms)->ref_reloc : 0);
	pthread_mutex_lock(&l->lock);
	if (mine) {
		syms->load_state = DSO_LOAD_DONE;
		pthread_cond_broadcast(&l->cond);
		pthread_mutex_unlock(&l->lock);
		/* the index after the table: the lookups waiting for it go on meanwhile */
		symtab__save(&syms->symtab);
		pthread_mutex_lock(&l->lock);
	}
	while (syms->load_state != DSO_LOAD_DONE) {
		/* a worker loads it: help with other work meanwhile */
		pthread_mutex_unlock(&l->lock);
		if (workqueue__help(l->wq)) {
			pthread_mutex_lock(&l->lock);
			continue;
		}
		pthread_mutex_lock(&l->lock);
		if (syms->load_state != DSO_LOAD_DONE)
			pthread_cond_wait(&l->cond, &l->lock);
	}
	pthread_mutex_unlock(&l->lock);
}

static void load_work(struct work *work)
{
	claim_and_load(container_of(work, struct dso_symbols, load_work));
}

void dso__load_ahead(struct dso *dso, struct dso_loader *l, u64 kernel_ref_reloc)
{
	struct dso_symbols *syms;

	/* asked for or queued already */
	if (!l || !l->wq || __atomic_load_n(&dso->syms, __ATOMIC_ACQUIRE))
		return;
	syms = dso_symbols__new(dso);
	syms->loader = l;
	syms->load_state = DSO_LOAD_QUEUED;	/* no worker has it yet: no lock needed */
	syms->load_work.func = load_work;
	if (syms->kernel)
		kernel_symbols(syms)->ref_reloc = kernel_ref_reloc;
	if (dso_syms_publish(dso, syms) != syms)
		return;	/* a lookup got there first: it loads them */
	/*
	 * No reference taken: refcounts belong to the thread that reads records, and the dsos
	 * list keeps every dso until the machine goes, after the workqueue has drained.
	 */
	workqueue__queue(l->wq, &syms->load_work);
}

/*
 * On the thread that looks symbols up: load them, or claim the load queued ahead, or wait for
 * it. A table loaded here empty is not kept: dsos without symbols cost nothing more.
 */
static struct dso_symbols *dso__load_now(struct dso *dso, const struct symsrc_config *cfg,
					 u64 ref_reloc)
{
	struct dso_symbols *syms = __atomic_load_n(&dso->syms, __ATOMIC_ACQUIRE);

	if (!syms) {
		struct dso_symbols *mine = dso_symbols__new(dso);

		dso__load(mine, cfg, ref_reloc);
		if (!mine->kernel && !mine->symtab.nr) {
			dso_symbols__delete(mine);
			mine = &no_symbols;
		}
		syms = dso_syms_publish(dso, mine);
		if (syms == mine)
			symtab__save(&syms->symtab);
	}
	if (syms->loader)	/* queued ahead */
		claim_and_load(syms);
	/* workers may load at once (report's parallel run): the table is published first */
	__atomic_store_n(&dso->symbols_loaded, true, __ATOMIC_RELEASE);
	return syms;
}

const struct kernel_map_bounds *dso__load_kernel(struct dso *dso, const struct symsrc_config *cfg,
						 u64 ref_reloc)
{
	struct dso_symbols *syms;

	if (dso->symbols_loaded)
		syms = __atomic_load_n(&dso->syms, __ATOMIC_RELAXED);
	else
		syms = dso__load_now(dso, cfg, ref_reloc);
	return syms->kernel ? &kernel_symbols(syms)->bounds : NULL;
}

bool dso__symbols_ready(struct dso *dso)
{
	struct dso_symbols *syms = __atomic_load_n(&dso->syms, __ATOMIC_ACQUIRE);
	bool done;

	if (!syms || !syms->loader)
		return true;	/* loaded on demand, by the thread that asks */
	pthread_mutex_lock(&syms->loader->lock);
	done = syms->load_state == DSO_LOAD_DONE;
	pthread_mutex_unlock(&syms->loader->lock);
	return done;
}

const struct symtab *dso__symtab(struct dso *dso, const struct symsrc_config *cfg)
{
	/* once loaded, dso->syms stays */
	if (__atomic_load_n(&dso->symbols_loaded, __ATOMIC_ACQUIRE))
		return &__atomic_load_n(&dso->syms, __ATOMIC_RELAXED)->symtab;
	return &dso__load_now(dso, cfg, 0)->symtab;
}

const struct symbol *dso__find_symbol(struct dso *dso, const struct symsrc_config *cfg, u64 addr)
{
	struct dso_symbols *syms = container_of(dso__symtab(dso, cfg), struct dso_symbols, symtab);
	struct symbol_span *slot = syms->spans ? &syms->spans[SPAN_SLOT(addr)] : NULL;
	const struct symbol *sym;
	u64 lo, hi;

	if (syms->last.sym && addr >= syms->last.lo && addr < syms->last.hi)
		return syms->last.sym;
	if (slot && slot->sym && addr >= slot->lo && addr < slot->hi) {
		syms->last = *slot;
		return slot->sym;
	}
	sym = symtab__find_span(&syms->symtab, addr, &lo, &hi);
	if (!sym)
		return NULL;
	syms->last = (struct symbol_span){ lo, hi, sym };
	if (slot)
		*slot = syms->last;
	else if (++syms->misses == SPAN_CACHE_AFTER)
		syms->spans = xcalloc(SPAN_CACHE, sizeof(*syms->spans));
	return sym;
}
