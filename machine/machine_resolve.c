/*
 * machine_resolve: an address of a thread (or of the kernel) to its map, dso and symbol, as
 * perf 6.1's thread__find_map and machine__resolve do, the kernel's symbols loaded when its
 * map is first hit (or, not waiting, when a worker has them ready). Reads the model only.
 */
#include "machine/machine.h"

#include <string.h>

/*
 * perf loads the kernel's symbols when an address first lands in its map (map__load), then
 * stretches the map from the first symbol's start to the last one's end (map__fixup_start,
 * map__fixup_end): beyond _etext, over the kernel's data.
 */
static void load_kernel_symbols(struct machine *m, struct map *map)
{
	/* or started ahead (at open, or at the kernel's MMAP) with the same relocation */
	const struct kernel_map_bounds *bounds =
		dso__load_kernel(map->dso, &m->symsrc, m->kernel_ref_reloc);

	if (bounds && bounds->valid) {
		map->start = bounds->start;
		map->end = bounds->end;
		maps__changed(m->kmaps);
	}
}

/*
 * wait: load the kernel's symbols (and so fix its map's bounds) when its map is first hit;
 * else, while a worker still loads them, note it in m->kernel_pending and go on.
 */
static struct map *find_map(struct machine *m, struct thread *t, u8 cpumode, u64 ip,
			    struct addr_location *al, bool wait)
{
	struct maps *maps;

	al->addr = ip;
	al->cpumode = cpumode;
	al->map = NULL;
	if (cpumode == PERF_RECORD_MISC_KERNEL) {
		al->level = 'k';
		maps = m->kmaps;
	} else if (cpumode == PERF_RECORD_MISC_USER) {
		al->level = '.';
		maps = t->maps;
	} else if (cpumode == PERF_RECORD_MISC_GUEST_KERNEL) {
		al->level = 'g';
		return NULL;
	} else if (cpumode == PERF_RECORD_MISC_GUEST_USER) {
		al->level = 'u';
		return NULL;
	} else {
		al->level = 'H';
		return NULL;
	}
	al->map = maps ? maps__find(maps, ip) : NULL;
	if (!al->map)
		return NULL;
	dso__name_short(al->map->dso, &m->strings);
	al->addr = map__map_ip(al->map, ip);
	if (al->map == m->kernel_map && !al->map->dso->symbols_loaded) {
		if (wait || dso__symbols_ready(al->map->dso))
			load_kernel_symbols(m, al->map);
		else
			m->kernel_pending = true;
	}
	return al->map;
}

void machine__resolve_symbol(struct machine *m, struct addr_location *al)
{
	if (al->map && !al->dso)
		al->dso = al->map->dso;
	if (al->dso) {
		al->symtab = dso__symtab(al->dso, &m->symsrc);
		al->sym = dso__find_symbol(al->dso, &m->symsrc, al->addr);
	}
}

void machine__find_map(struct machine *m, struct thread *t, u8 cpumode, u64 ip,
		       struct addr_location *al)
{
	memset(al, 0, sizeof(*al));
	al->thread = t;
	find_map(m, t, cpumode, ip, al, true);
}

void machine__find_symbol(struct machine *m, struct thread *t, u8 cpumode, u64 ip,
			  struct addr_location *al)
{
	memset(al, 0, sizeof(*al));
	al->thread = t;
	find_map(m, t, cpumode, ip, al, true);
	machine__resolve_symbol(m, al);
}

static void resolve_map(struct machine *m, struct thread *t, u8 cpumode, u64 ip,
			struct addr_location *al, bool wait)
{
	u8 addr_cpumode;

	memset(al, 0, sizeof(*al));
	al->thread = t;
	if (!find_map(m, t, cpumode, ip, al, wait)) {
		addr_cpumode = ip >= m->kernel_start ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
		if ((cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_USER) &&
		    addr_cpumode != cpumode)
			find_map(m, t, addr_cpumode, ip, al, wait);
	}
}

void machine__resolve_map(struct machine *m, struct thread *t, u8 cpumode, u64 ip,
			  struct addr_location *al)
{
	resolve_map(m, t, cpumode, ip, al, true);
}

bool machine__resolve_map_nowait(struct machine *m, struct thread *t, u8 cpumode, u64 ip,
				 struct addr_location *al)
{
	if (m->kernel_pending) {
		if (cpumode == PERF_RECORD_MISC_KERNEL) {
			/* below the kernel, the answer may come from the thread's maps as they are now */
			if (ip >= m->kernel_start)
				return false;
			machine__kernel_wait(m);
		} else if (cpumode == PERF_RECORD_MISC_USER) {
			memset(al, 0, sizeof(*al));
			al->thread = t;
			if (find_map(m, t, cpumode, ip, al, false))
				return true;
			return ip < m->kernel_start;	/* else it is looked for in the kernel's maps */
		}
	}
	resolve_map(m, t, cpumode, ip, al, false);
	return true;
}

void machine__resolve_kernel_map(struct machine *m, u64 ip, struct addr_location *al)
{
	memset(al, 0, sizeof(*al));
	find_map(m, NULL, PERF_RECORD_MISC_KERNEL, ip, al, true);
}

bool machine__kernel_ready(struct machine *m)
{
	if (m->kernel_pending && dso__symbols_ready(m->kernel_map->dso))
		machine__kernel_wait(m);
	return !m->kernel_pending;
}

void machine__kernel_wait(struct machine *m)
{
	if (!m->kernel_pending)
		return;
	if (!m->kernel_map->dso->symbols_loaded)
		load_kernel_symbols(m, m->kernel_map);
	m->kernel_pending = false;
}

void machine__resolve(struct machine *m, struct thread *t, u8 cpumode, u64 ip,
		      struct addr_location *al)
{
	machine__resolve_map(m, t, cpumode, ip, al);
	machine__resolve_symbol(m, al);
}
