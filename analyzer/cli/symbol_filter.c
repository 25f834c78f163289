/*
 * symbol_filter: perf's --dsos and --symbols tests (machine__resolve, symbol__init's
 * setup_addrlist) on a resolved sample.
 */
#include "analyzer/cli/symbol_filter.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/xalloc.h"
#include "machine/map.h"
#include "symtab/symtab.h"

void symbol_filter__init(struct symbol_filter *f, const char *dsos, const char *symbols,
			 u64 addr_range)
{
	size_t kept = 0;

	*f = (struct symbol_filter){ .by_symbol = symbols != NULL, .addr_range = addr_range };
	name_list__parse(&f->dsos, dsos);
	name_list__parse(&f->symbols, symbols);
	/* setup_addrlist: an entry strtoul reads whole in base 16 is an address */
	for (size_t i = 0; i < f->symbols.nr; i++) {
		char *name = f->symbols.names[i], *end;
		unsigned long v;

		errno = 0;
		v = strtoul(name, &end, 16);
		if (errno || end == name || *end) {
			f->symbols.names[kept++] = name;
			continue;
		}
		f->addrs = xreallocarray(f->addrs, f->nr_addrs + 1, sizeof(*f->addrs));
		f->addrs[f->nr_addrs++] = v;
		free(name);
	}
	f->symbols.nr = kept;
}

static bool dso_skipped(const struct name_list *dsos, const struct dso *dso)
{
	if (!dsos->nr)
		return false;
	if (!dso)
		return true;
	return !name_list__has(dsos, dso->short_name) &&
	       !(dso->short_name != dso->long_name && name_list__has(dsos, dso->long_name));
}

bool symbol_filter__skips(const struct symbol_filter *f, const struct addr_location *al, u64 ip)
{
	char addr[32];

	if (dso_skipped(&f->dsos, al->dso))
		return true;
	if (!f->by_symbol)
		return false;
	if (al->sym) {
		if (name_list__has(&f->symbols, symbol__name(al->symtab, al->sym)))
			return false;
		/* the symbol's start as mapped (map__unmap_ip) */
		snprintf(addr, sizeof(addr), "0x%llx",
			 (unsigned long long)(al->sym->start + map__base(al->map)));
		if (name_list__has(&f->symbols, addr))
			return false;
	}
	if (!al->map)
		return true;
	for (size_t i = 0; i < f->nr_addrs; i++)
		if (ip >= f->addrs[i] && (ip == f->addrs[i] || ip - f->addrs[i] < f->addr_range))
			return false;
	return true;
}

void symbol_filter__exit(struct symbol_filter *f)
{
	name_list__free(&f->dsos);
	name_list__free(&f->symbols);
	free(f->addrs);
}
