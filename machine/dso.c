/* dsos: every dso, indexed by long name; see dso.h. */
#include "machine/dso.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/strpool.h"
#include "lib/xalloc.h"

void dsos__init(struct dsos *dsos)
{
	memset(dsos, 0, sizeof(*dsos));
	hashmap_init(&dsos->by_name);
}

void dsos__exit(struct dsos *dsos)
{
	for (size_t i = 0; i < dsos->nr; i++)
		dso__put(dsos->arr[i]);
	free(dsos->arr);
	hashmap_exit(&dsos->by_name);
	memset(dsos, 0, sizeof(*dsos));
}

/* perf's dso__set_basename: the basename, except JIT maps, shown as "[JIT] tid N". */
static const char *short_name_of(struct strpool *pool, const char *long_name)
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
	const char *name = strpool_intern(pool, long_name);
	struct dso *dso = hashmap_find(&dsos->by_name, (u64)(uintptr_t)name);

	if (dso)
		return dso__get(dso);
	dso = xzalloc(sizeof(*dso));
	refcount_init(&dso->ref, "dso");
	dso->long_name = name;
	dso->short_name = short_name_of(pool, long_name);
	if (strcmp(long_name, "[vdso]") == 0)
		dso->kind = DSO_KIND_VDSO;
	else if (long_name[0] == '[' && strncmp(long_name, "[kernel.kallsyms]", 17) == 0)
		dso->kind = DSO_KIND_KERNEL;
	else
		dso->kind = DSO_KIND_USER;
	symtab__init(&dso->symtab);
	ARRAY_GROW(dsos->arr, dsos->alloc, dsos->nr + 1);
	dsos->arr[dsos->nr++] = dso;
	hashmap_insert(&dsos->by_name, (u64)(uintptr_t)name, dso);
	return dso__get(dso);
}

struct dso *dso__get(struct dso *dso)
{
	if (dso)
		refcount_get(&dso->ref);
	return dso;
}

/* a path mapped from this many files is not a real recording: the rest share the last */
#define DSO_MAX_INOS 1024

u32 dso__ino_index(struct dso *dso, u64 ino)
{
	for (u32 i = 0; i < dso->nr_inos; i++)
		if (dso->inos[i] == ino)
			return i + 1;
	if (dso->nr_inos == DSO_MAX_INOS)
		return dso->nr_inos;
	dso->inos = xreallocarray(dso->inos, dso->nr_inos + 1, sizeof(*dso->inos));
	dso->inos[dso->nr_inos++] = ino;
	return dso->nr_inos;
}

u64 dso__ino(const struct dso *dso, u32 index)
{
	if (index == 0)
		return dso->nr_inos ? dso->inos[0] : 0;
	return index <= dso->nr_inos ? dso->inos[index - 1] : 0;
}

void dso__put(struct dso *dso)
{
	if (dso && refcount_put(&dso->ref)) {
		symtab__exit(&dso->symtab);
		free(dso->inos);
		free(dso);
	}
}

/*
 * perf reads a [vdso] it finds in no build-id cache from its own process's vdso (copied to a
 * temporary file), checked against the recorded build-id when there is one.
 */
static void load_own_vdso(struct dso *dso, const struct symsrc_config *cfg)
{
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
		symtab__load_dso(&dso->symtab, &own, DSO_KIND_USER, path,
				 dso->build_id_size ? dso->build_id : NULL, dso->build_id_size);
	}
	close(fd);
	unlink(path);
}

static void dso__load(struct dso *dso, const struct symsrc_config *cfg, u64 kernel_ref_reloc)
{
	const u8 *bid = dso->build_id_size ? dso->build_id : NULL;

	if (dso->kind == DSO_KIND_KERNEL && !strcmp(dso->long_name, "[kernel.kallsyms]")) {
		symtab__load_kernel(&dso->symtab, cfg, bid, dso->build_id_size, kernel_ref_reloc,
				    &dso->kernel_bounds);
		return;
	}
	if (symtab__load_dso(&dso->symtab, cfg, dso->kind, dso->long_name, bid,
			     dso->build_id_size) < 0 && dso->kind == DSO_KIND_VDSO)
		load_own_vdso(dso, cfg);
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
static void claim_and_load(struct dso *dso)
{
	struct dso_loader *l = dso->loader;
	bool mine;

	pthread_mutex_lock(&l->lock);
	mine = dso->load_state == DSO_LOAD_QUEUED;
	if (mine)
		dso->load_state = DSO_LOAD_LOADING;
	pthread_mutex_unlock(&l->lock);
	if (mine)
		dso__load(dso, l->cfg, dso->kernel_ref_reloc);
	pthread_mutex_lock(&l->lock);
	if (mine) {
		dso->load_state = DSO_LOAD_DONE;
		pthread_cond_broadcast(&l->cond);
	}
	while (dso->load_state != DSO_LOAD_DONE) {
		/* a worker loads it: help with other work meanwhile */
		pthread_mutex_unlock(&l->lock);
		if (workqueue__help(l->wq)) {
			pthread_mutex_lock(&l->lock);
			continue;
		}
		pthread_mutex_lock(&l->lock);
		if (dso->load_state != DSO_LOAD_DONE)
			pthread_cond_wait(&l->cond, &l->lock);
	}
	pthread_mutex_unlock(&l->lock);
}

static void load_work(struct work *work)
{
	claim_and_load(container_of(work, struct dso, load_work));
}

void dso__load_ahead(struct dso *dso, struct dso_loader *l, u64 kernel_ref_reloc)
{
	if (!l || !l->wq || dso->symbols_loaded || dso->load_state != DSO_LOAD_NONE)
		return;
	dso->loader = l;
	dso->kernel_ref_reloc = kernel_ref_reloc;
	dso->load_state = DSO_LOAD_QUEUED;	/* no worker has it yet: no lock needed */
	dso->load_work.func = load_work;
	/*
	 * No reference taken: refcounts belong to the thread that reads records, and the dsos
	 * list keeps every dso until the machine goes, after the workqueue has drained.
	 */
	workqueue__queue(l->wq, &dso->load_work);
}

const struct symtab *dso__symtab(struct dso *dso, const struct symsrc_config *cfg)
{
	if (dso->symbols_loaded)
		return &dso->symtab;
	if (dso->loader) {	/* queued ahead */
		claim_and_load(dso);
	} else {
		dso__load(dso, cfg, 0);
	}
	dso->symbols_loaded = true;
	return &dso->symtab;
}

const struct symbol *dso__find_symbol(struct dso *dso, const struct symsrc_config *cfg, u64 addr)
{
	const struct symtab *st = dso__symtab(dso, cfg);
	const struct symbol *sym;
	u64 lo, hi;

	if (dso->span_sym && addr >= dso->span_lo && addr < dso->span_hi)
		return dso->span_sym;
	sym = symtab__find_span(st, addr, &lo, &hi);
	if (sym) {
		dso->span_lo = lo;
		dso->span_hi = hi;
		dso->span_sym = sym;
	}
	return sym;
}
