/*
 * Branch mode's columns (perf 6.1's bstack sort entries): their widths and text. The keys'
 * comparisons are hist_keys_internal.h's; this prints only.
 */
#include "analyzer/hist/hist_internal.h"

#include <stdio.h>
#include <string.h>

#define UNRESOLVED_WIDTH 16	/* perf's unresolved_col_width: BITS_PER_LONG / 4 */

/*
 * perf's hists__calc_col_len for an entry's branch_info: a resolved end widens its symbol
 * and dso columns, an unresolved one its symbol and address columns (and its dso column to
 * 16, when unres_dso: perf's hists__set_unres_dso_col_len).
 */
void hist_branch__widths(const struct hist_entry *he, bool unres_dso, int *col)
{
	const struct hist_branch *b = he->branch;
	const struct {
		const struct symbol *sym;
		const struct symtab *symtab;
		const struct dso *dso;
		enum sort_key sym_key, dso_key, addr_key;
	} ends[] = {
		{ b->from_sym, b->from_symtab, b->from_dso, SORT_SYM_FROM, SORT_DSO_FROM,
		  SORT_ADDR_FROM },
		{ b->to_sym, b->to_symtab, b->to_dso, SORT_SYM_TO, SORT_DSO_TO, SORT_ADDR_TO },
	};

	for (size_t i = 0; i < ARRAY_SIZE(ends); i++) {
		if (ends[i].sym) {
			col[ends[i].sym_key] = MAX(col[ends[i].sym_key],
						   (int)strlen(symbol__name(ends[i].symtab,
									    ends[i].sym)) + 4);
			col[ends[i].dso_key] = MAX(col[ends[i].dso_key],
						   (int)strlen(ends[i].dso->short_name));
		} else {
			col[ends[i].sym_key] = MAX(col[ends[i].sym_key], UNRESOLVED_WIDTH + 4 + 2);
			col[ends[i].addr_key] = MAX(col[ends[i].addr_key], UNRESOLVED_WIDTH + 4 + 2);
			if (unres_dso)
				col[ends[i].dso_key] = MAX(col[ends[i].dso_key], UNRESOLVED_WIDTH);
		}
	}
}

/*
 * perf's _hist_entry__sym_snprintf (addr_key: _hist_entry__addr_snprintf, which adds the
 * offset in the symbol): "[level] name", or the address. A data object's offset is from its
 * start unmapped (base: the map's map__base when addr is a raw address, else 0; analyze's
 * symbols are map-relative, the kernel's absolute).
 */
int hist_end_snprintf(char *buf, size_t size, const struct symbol *sym,
		      const struct symtab *symtab, const struct dso *dso, u64 addr, u64 base,
		      char level, int width, bool addr_key)
{
	int n = snprintf(buf, size, "[%c] ", level);

	if (sym && dso) {
		const char *name = symbol__name(symtab, sym);

		if (sym->object)
			return n + snprintf(buf + n, size - n, "%s+0x%llx", name,
					    (unsigned long long)(addr - base - sym->start));
		n += snprintf(buf + n, size - n, "%.*s", MAX(width - n, 0), name);
		if (addr_key && addr != sym->start)
			n += snprintf(buf + n, size - n, "+0x%llx",
				      (unsigned long long)(addr - sym->start));
		else if (!addr_key && symtab->inlined)
			n += snprintf(buf + n, size - n, " (inlined)");
		return n;
	}
	return n + snprintf(buf + n, size - n, "%#.16llx", (unsigned long long)addr);
}

/*
 * perf's mispredict column keeps its last answer (a static in hist_entry__mispredict_snprintf):
 * a branch neither predicted nor mispredicted shows the entry's before.
 */
static const char *mispredict_out = "N/A";

void hists__branch_run_start(void)
{
	mispredict_out = "N/A";
}

int hist_branch__snprintf(char *buf, size_t size, enum sort_key key, const struct hist_entry *he,
			  int width)
{
	const struct hist_branch *b = he->branch;
	const struct dso *dso;

	switch (key) {
	case SORT_DSO_FROM:
	case SORT_DSO_TO:
		dso = key == SORT_DSO_FROM ? b->from_dso : b->to_dso;
		return snprintf(buf, size, "%-*.*s", width, width, dso ? dso->short_name : "[unknown]");
	case SORT_SYM_FROM:
		return hist_end_snprintf(buf, size, b->from_sym, b->from_symtab, b->from_dso,
					 b->from_addr, 0, b->from_level, width, false);
	case SORT_SYM_TO:
		return hist_end_snprintf(buf, size, b->to_sym, b->to_symtab, b->to_dso, b->to_addr, 0,
					 b->to_level, width, false);
	case SORT_ADDR_FROM:	/* the sample's level, as perf's */
		return hist_end_snprintf(buf, size, b->from_sym, b->from_symtab, b->from_dso,
					 b->from_addr, 0, he->level, width, true);
	case SORT_ADDR_TO:
		return hist_end_snprintf(buf, size, b->to_sym, b->to_symtab, b->to_dso, b->to_addr, 0,
					 he->level, width, true);
	case SORT_MISPREDICT:
		if (BRANCH_PREDICTED(b->flags))
			mispredict_out = "N";
		else if (BRANCH_MISPRED(b->flags))
			mispredict_out = "Y";
		return snprintf(buf, size, "%-*.*s", width, width, mispredict_out);
	case SORT_IN_TX:
		return snprintf(buf, size, "%-*s", width, BRANCH_IN_TX(b->flags) ? "T" : ".");
	case SORT_ABORT:
		return snprintf(buf, size, "%-*s", width, BRANCH_ABORT(b->flags) ? "A" : ".");
	case SORT_CYCLES:	/* "%-*hd": a short */
		if (!BRANCH_CYCLES(b->flags))
			return snprintf(buf, size, "%-*s", width, "-");
		return snprintf(buf, size, "%-*d", width, (int)(short)BRANCH_CYCLES(b->flags));
	default:
		return 0;
	}
}
