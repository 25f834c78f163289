/*
 * Memory mode's columns (perf 6.1's memory sort entries): their widths and text, from the
 * entries' struct hist_mem. The keys' comparisons are hist_keys_internal.h's; this prints only.
 */
#include "analyzer/hist/hist_internal.h"

#include <stdio.h>
#include <string.h>

#include "readers/decode/data_src.h"

#define UNRESOLVED_WIDTH 16	/* perf's unresolved_col_width */

/* perf's hists__calc_col_len for an entry's mem_info */
void hist_mem__widths(const struct hist_entry *he, bool unres_dso, int *col)
{
	const struct hist_mem *m = he->mem;
	static const struct {
		enum sort_key key;
		int width;
	} fixed[] = {
		{ SORT_PHYS_DADDR, UNRESOLVED_WIDTH + 4 + 2 },
		{ SORT_DATA_PAGE_SIZE, UNRESOLVED_WIDTH + 4 + 2 },
		{ SORT_LOCKED, 6 },
		{ SORT_TLB, 22 },
		{ SORT_SNOOP, 12 },
		{ SORT_MEM, 21 + 3 },
		{ SORT_BLOCKED, 10 },
	};
	int width;

	/* a symbol's name is followed by room for an address */
	width = m->daddr_sym ? (int)strlen(symbol__name(m->daddr_symtab, m->daddr_sym)) + 4 +
				       UNRESOLVED_WIDTH + 2
			     : UNRESOLVED_WIDTH + 4 + 2;
	col[SORT_SYM_DADDR] = MAX(col[SORT_SYM_DADDR], width);
	width = m->iaddr_sym ? (int)strlen(symbol__name(m->iaddr_symtab, m->iaddr_sym)) + 4 +
				       UNRESOLVED_WIDTH + 2
			     : UNRESOLVED_WIDTH + 4 + 2;
	col[SORT_SYM_IADDR] = MAX(col[SORT_SYM_IADDR], width);
	if (m->daddr_dso)
		col[SORT_DSO_DADDR] = MAX(col[SORT_DSO_DADDR], (int)strlen(m->daddr_dso->short_name));
	else if (unres_dso)
		col[SORT_DSO_DADDR] = MAX(col[SORT_DSO_DADDR], UNRESOLVED_WIDTH);
	for (size_t i = 0; i < ARRAY_SIZE(fixed); i++)
		col[fixed[i].key] = MAX(col[fixed[i].key], fixed[i].width);
}

int hist_mem__snprintf(char *buf, size_t size, enum sort_key key, const struct hist_entry *he,
		       int width)
{
	const struct hist_mem *m = he->mem;
	char out[64];
	int n;

	switch (key) {
	case SORT_SYM_DADDR:	/* the raw address, the sample's level */
		return hist_end_snprintf(buf, size, m->daddr_sym, m->daddr_symtab, m->daddr_dso,
					 m->daddr, m->daddr_base, he->level, width, false);
	case SORT_SYM_IADDR:
		return hist_end_snprintf(buf, size, m->iaddr_sym, m->iaddr_symtab, m->iaddr_dso,
					 m->iaddr, m->iaddr_base, he->level, width, false);
	case SORT_DSO_DADDR:
		return snprintf(buf, size, "%-*.*s", width, width,
				m->daddr_dso ? m->daddr_dso->short_name : "[unknown]");
	case SORT_LOCKED:	/* perf's out[10], "%.*s" */
		return snprintf(buf, size, "%.*s", width, data_src__lock(m->data_src));
	case SORT_BLOCKED:	/* out[16] */
		data_src__blk(out, 16, m->data_src);
		return snprintf(buf, size, "%.*s", width, out);
	case SORT_TLB:
		data_src__tlb(out, sizeof(out), m->data_src);
		return snprintf(buf, size, "%-*s", width, out);
	case SORT_SNOOP:
		data_src__snoop(out, sizeof(out), m->data_src);
		return snprintf(buf, size, "%-*s", width, out);
	case SORT_MEM:
		data_src__lvl(out, sizeof(out), m->data_src);
		return snprintf(buf, size, "%-*s", width, out);
	case SORT_PHYS_DADDR:	/* padded, then cut, to the width */
		n = snprintf(buf, size, "[%c] %-#.16llx", he->level,
			     (unsigned long long)m->phys_addr);
		n += snprintf(buf + n, size - n, "%-*s", MAX(width - n, 0), "");
		if (n > width && (size_t)width < size)
			buf[width] = '\0';
		return width;
	case SORT_DATA_PAGE_SIZE:
		page_size__name(out, sizeof(out), m->data_page_size);
		return snprintf(buf, size, "%-*s", width, out);
	default:
		return 0;
	}
}
