/*
 * symbol_filter: the --dsos and --symbols (-S) lists of perf report and perf script, applied
 * to a resolved sample as perf 6.1's machine__resolve applies them (its al->filtered bits for
 * the dso and the symbol). symbol__init moves the --symbols entries that read whole as hex
 * numbers to a list of addresses: a sample at one of them (or up to --addr-range bytes after
 * it, perf script's) is kept whatever its symbol. Small lists, linear lookups.
 */
#ifndef ANALYZER_SYMBOL_FILTER_H
#define ANALYZER_SYMBOL_FILTER_H

#include <stdbool.h>

#include "analyzer/cli/name_list.h"
#include "machine/machine.h"

struct symbol_filter {
	struct name_list dsos, symbols;	/* symbols: the names, without the addresses */
	bool by_symbol;		/* --symbols was given (its names may all be addresses) */
	u64 *addrs;
	size_t nr_addrs;
	u64 addr_range;		/* --addr-range: 0, the addresses only */
};

/* The lists of the options' strings (NULL: not given). */
void symbol_filter__init(struct symbol_filter *f, const char *dsos, const char *symbols,
			 u64 addr_range);
/* Whether a filter is given at all. */
static inline bool symbol_filter__active(const struct symbol_filter *f)
{
	return f->dsos.nr || f->by_symbol;
}
/*
 * Whether the sample at ip, al its location (map, dso and symbol resolved), is left out: a
 * dso not in dsos (by its short or long name; no map is left out too), a symbol not in
 * symbols (by name, or its start mapped as "0x..."), unless ip is at one of the addresses.
 */
bool symbol_filter__skips(const struct symbol_filter *f, const struct addr_location *al, u64 ip);
void symbol_filter__exit(struct symbol_filter *f);

#endif
