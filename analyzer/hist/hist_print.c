/*
 * perf 6.1's stdio output of the histogram (ui/stdio/hist.c): column widths, the header
 * lines, each entry's line and call graph, made on two threads for large reports. Reads the
 * entries in the order hist_order.c gives; changes no count and no order.
 */
#include "analyzer/hist/hist_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"

static const char *const headers[FIELD_NR] = {
	[SORT_PID] = "    Pid:Command",
	[SORT_COMM] = "Command",
	[SORT_DSO] = "Shared Object",
	[SORT_SYM] = "Symbol",
	[SORT_PARENT] = "Parent symbol",
	[SORT_CPU] = "CPU",
	[SORT_SOCKET] = "Socket",
	[SORT_SYM_SIZE] = "Symbol size",
	[SORT_DSO_SIZE] = "DSO size",
	[SORT_IPC_NULL] = "IPC   [IPC Coverage]",
	[SORT_SRCLINE] = "Source:Line",
	[SORT_SRCFILE] = "Source File",
	[SORT_ADDR] = "Address",
	[SORT_LOCAL_WEIGHT] = "Local Weight",
	[SORT_WEIGHT] = "Weight",
	[SORT_TRANSACTION] = "Transaction                ",
	[SORT_CODE_PAGE_SIZE] = "Code Page Size",
	[SORT_LOCAL_INS_LAT] = "Local INSTR Latency",
	[SORT_INS_LAT] = "INSTR Latency",
	[SORT_LOCAL_P_STAGE_CYC] = "Local Pipeline Stage Cycle",
	[SORT_P_STAGE_CYC] = "Pipeline Stage Cycle",
	[SORT_DSO_FROM] = "Source Shared Object",
	[SORT_DSO_TO] = "Target Shared Object",
	[SORT_SYM_FROM] = "Source Symbol",
	[SORT_SYM_TO] = "Target Symbol",
	[SORT_MISPREDICT] = "Branch Mispredicted",
	[SORT_ABORT] = "Transaction abort",
	[SORT_IN_TX] = "Branch in transaction",
	[SORT_CYCLES] = "Basic Block Cycles",
	[SORT_ADDR_FROM] = "Source Address",
	[SORT_ADDR_TO] = "Target Address",
	[SORT_SYM_DADDR] = "Data Symbol",
	[SORT_DSO_DADDR] = "Data Object",
	[SORT_LOCKED] = "Locked",
	[SORT_TLB] = "TLB access",
	[SORT_MEM] = "Memory access",
	[SORT_SNOOP] = "Snoop",
	[SORT_SYM_IADDR] = "Code Symbol",
	[SORT_PHYS_DADDR] = "Data Physical Address",
	[SORT_DATA_PAGE_SIZE] = "Data Page Size",
	[SORT_BLOCKED] = "Blocked",
	[HPP_OVERHEAD] = "Overhead",
	[HPP_OVERHEAD_CHILDREN] = "Children",
	[HPP_SAMPLE] = "Samples",
	[HPP_PERIOD] = "Period",
};

/* ---- widths and printing ---- */

/*
 * Whether an entry is shown: not filtered, of --socket-filter's socket (its first sample's),
 * and with --symbol-filter a symbol whose name has the string (perf's
 * hists__filter_entry_by_socket and _by_symbol, applied to the entries, after the run).
 */
static bool entry_shown(const struct hists_print_opts *opts, const struct hist_entry *he)
{
	if (he->filtered || (opts->socket_filter && he->socket != opts->socket))
		return false;
	return !opts->symbol_filter ||
	       (he->sym && strstr(symbol__name(he->symtab, he->sym), opts->symbol_filter));
}

static void calc_widths(const struct hists *hists, const u32 *order, size_t nr,
			const struct hists_print_opts *opts, struct widths *w)
{
	int comm = 0, thread = 0, dso = 0, sym = 0, parent = 0, line = 0, file = 0;
	int branch[FIELD_NR] = { 0 };	/* branch or memory mode's widths */
	bool *line_known = hists->srclines ? src_known(hists, SORT_SRCLINE) : NULL;
	bool *file_known = hists->srclines ? src_known(hists, SORT_SRCFILE) : NULL;
	/* the extra shares its room with what entries of the children view keep (hist.h) */
	bool transaction = false, has_transaction = sort_list__has(hists->sort, SORT_TRANSACTION);

	for (size_t i = 0; i < nr; i++) {
		const struct hist_entry *he = &hists->entries[order[i]];
		int len;

		if (!entry_shown(opts, he))
			continue;
		if (he->sym) {
			sym = MAX(sym, (int)strlen(symbol__name(he->symtab, he->sym)) + 4);
		} else {
			sym = MAX(sym, 16 + 4 + 2);
			/* perf's hists__set_unres_dso_col_len: not with --dsos or -t */
			if (dso < 16 && !opts->has_dso_filter && !opts->field_sep)
				dso = 16;
		}
		len = (int)strlen(thread__comm_str(he->thread));
		if (len > comm) {
			comm = len;
			thread = len + 8;
		}
		if (he->dso)
			dso = MAX(dso, (int)strlen(he->dso->short_name));
		if (he->parent)
			parent = MAX(parent, (int)strlen(he->parent));
		if (hists->srclines && (!line_known || line_known[order[i]]))
			line = MAX(line, (int)strlen(he->extra->line));
		if (hists->srclines && (!file_known || file_known[order[i]]))
			file = MAX(file, (int)strlen(he->extra->file));
		transaction |= has_transaction && entry_extra(he)->transaction;
		if (hists->sort->branch)
			hist_branch__widths(he, !opts->has_dso_filter && !opts->field_sep, branch);
		else if (hists->sort->mem)
			hist_mem__widths(he, !opts->has_dso_filter && !opts->field_sep, branch);
	}
	free(line_known);
	free(file_known);
	for (int k = 0; k < FIELD_NR; k++)
		w->col[k] = MAX((int)strlen(headers[k]), branch[k]);
	w->col[HPP_SAMPLE] = w->col[HPP_PERIOD] = 12;	/* perf's hpp widths */
	w->col[SORT_COMM] = MAX(w->col[SORT_COMM], comm);
	w->col[SORT_PID] = MAX(w->col[SORT_PID], thread);
	w->col[SORT_DSO] = MAX(w->col[SORT_DSO], dso);
	w->col[SORT_SYM] = MAX(w->col[SORT_SYM], sym);
	w->col[SORT_PARENT] = MAX(w->col[SORT_PARENT], parent);
	w->col[SORT_SRCLINE] = MAX(w->col[SORT_SRCLINE], line);
	w->col[SORT_SRCFILE] = MAX(w->col[SORT_SRCFILE], file);
	w->col[SORT_ADDR] = MAX(w->col[SORT_ADDR], 16 + 2);	/* perf's BITS_PER_LONG / 4 + 2 */
	/* perf's hists__calc_col_len */
	w->col[SORT_LOCAL_WEIGHT] = MAX(w->col[SORT_LOCAL_WEIGHT], 12);
	w->col[SORT_WEIGHT] = MAX(w->col[SORT_WEIGHT], 12);
	w->col[SORT_LOCAL_INS_LAT] = MAX(w->col[SORT_LOCAL_INS_LAT], 13);
	w->col[SORT_INS_LAT] = MAX(w->col[SORT_INS_LAT], 13);
	w->col[SORT_LOCAL_P_STAGE_CYC] = MAX(w->col[SORT_LOCAL_P_STAGE_CYC], 13);
	w->col[SORT_P_STAGE_CYC] = MAX(w->col[SORT_P_STAGE_CYC], 13);
	if (transaction)	/* hist_entry__transaction_len */
		w->col[SORT_TRANSACTION] = MAX(w->col[SORT_TRANSACTION], 32);
}

struct line {
	char *buf;
	size_t size, len;
};

static __attribute__((format(printf, 2, 3))) int line_printf(struct line *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (l->len + 1 >= l->size)
		return 0;
	va_start(ap, fmt);
	n = vsnprintf(l->buf + l->len, l->size - l->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return 0;
	if ((size_t)n >= l->size - l->len)
		n = (int)(l->size - l->len - 1);
	l->len += n;
	return n;
}

/*
 * line_printf(l, "%-*.*s", width, prec, s) without printf (prec < 0: the whole string):
 * most of a report's text is such fields.
 */
static int line_str(struct line *l, const char *s, int width, int prec)
{
	size_t len = prec < 0 ? strlen(s) : strnlen(s, (size_t)prec);
	size_t pad = width > 0 && (size_t)width > len ? (size_t)width - len : 0;
	size_t room, n;

	if (l->len + 1 >= l->size)
		return 0;
	room = l->size - l->len - 1;
	n = MIN(len, room);
	memcpy(l->buf + l->len, s, n);
	l->len += n;
	room -= n;
	memset(l->buf + l->len, ' ', MIN(pad, room));
	l->len += MIN(pad, room);
	l->buf[l->len] = '\0';
	return (int)(n + MIN(pad, room));
}

/*
 * printf's "%-#.16llx" of v without printf (a report of unresolved addresses prints one a
 * line): 16 digits at least, "0x" before them unless v is 0.
 */
static int line_hex16(struct line *l, u64 v)
{
	char buf[2 + 16 + 1], *p = buf + sizeof(buf) - 1;
	bool prefix = v != 0;

	*p = '\0';
	for (int i = 0; i < 16; i++, v >>= 4)
		*--p = "0123456789abcdef"[v & 15];
	if (prefix) {
		*--p = 'x';
		*--p = '0';
	}
	return line_str(l, p, 0, -1);
}

/*
 * "   %6.2f%%" of percent without printf (most of a report's numbers). v * 100 is off the
 * exact product by far less than 1e-6, so the rounding only needs printf's exact answer when
 * the product is that close to a half, or out of the range of the fast path.
 */
int hists__format_percent(char *buf, size_t size, double percent)
{
	double x = percent * 100.0, whole = floor(x);
	char tmp[32], *p = tmp + sizeof(tmp);
	u64 n;
	int digits = 0, len;

	if (!(percent >= 0 && percent < 1e6) || fabs(x - whole - 0.5) < 1e-6)
		return snprintf(buf, size, "   %*.2f%%", 6, percent);
	n = (u64)whole + (x - whole > 0.5);
	*--p = '%';
	do {
		*--p = (char)('0' + n % 10);
		n /= 10;
		if (++digits == 2)
			*--p = '.';
	} while (n || digits < 3);
	while (tmp + sizeof(tmp) - p < 6 + 1)
		*--p = ' ';
	p -= 3;
	memset(p, ' ', 3);
	len = (int)(tmp + sizeof(tmp) - p);
	if (size) {
		size_t n_copy = MIN((size_t)len, size - 1);

		memcpy(buf, p, n_copy);
		buf[n_copy] = '\0';
	}
	return len;
}

/* perf's get_page_size_name (unit_number__scnprintf): "N/A" for none */
static const char *page_size_name(u64 size, char *buf, size_t len)
{
	static const char unit[] = "BKMG";
	int i = 0;

	if (!size)
		return "N/A";
	while (size / 1024 > 1 && i < 3) {
		size /= 1024;
		i++;
	}
	snprintf(buf, len, "%llu%c", (unsigned long long)size, unit[i]);
	return buf;
}

/* perf's hist_entry__transaction_snprintf: the flags set (perf_event.h PERF_TXN_*), ":ABORT" */
static const char *transaction_flags(u64 t, char *buf)
{
	static const struct {
		u64 flag;
		const char *name;
	} bits[] = { { 1 << 0, "EL " },	   { 1 << 1, "TX " },	  { 1 << 2, "SYNC " },
		     { 1 << 3, "ASYNC " }, { 1 << 4, "RETRY " }, { 1 << 5, "CON " },
		     { 1 << 6, "CAP-WRITE " }, { 1 << 7, "CAP-READ " } };
	char *p = buf;

	*p = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(bits); i++)
		if (t & bits[i].flag)
			p = stpcpy(p, bits[i].name);
	if (t && !(t & ((1 << 2) | (1 << 3))))	/* neither SYNC nor ASYNC */
		p = stpcpy(p, "NEITHER ");
	if (t >> 32)	/* PERF_TXN_ABORT_MASK, PERF_TXN_ABORT_SHIFT */
		sprintf(p, ":%llx", (unsigned long long)(t >> 32));
	return buf;
}

static int print_key(struct line *l, const struct hists *hists, enum sort_key key,
		     const struct hist_entry *he, int width)
{
	switch (key) {
	case SORT_PID: {
		int w = MAX(7, width) - 8;

		return line_printf(l, "%7d:%-*.*s", he->thread->tid, w, w, thread__comm_str(he->thread));
	}
	case SORT_COMM:
		return line_str(l, comm__str(he->comm), width, width);
	case SORT_DSO:
		return line_str(l, he->dso ? dso_name(he) : "[unknown]", width, width);
	case SORT_SYM: {
		char level[] = { '[', he->level, ']', ' ', '\0' };
		int n = line_str(l, level, 0, -1);

		if (he->sym && he->dso && he->sym->object) {
			/*
			 * perf's ip - map->unmap_ip(sym->start), in the map of the latest sample
			 * that reached the entry: a callchain entry's raw ip (of its first sample,
			 * whose map may be another process's), a sample's map-relative address:
			 * numbers that wrap
			 */
			const struct object_map *om = object_map(hists, (u32)(he - hists->entries));
			u64 off = he->ip - (he->sym->start + (om ? om->base : 0));

			n += line_str(l, symbol__name(he->symtab, he->sym), 0, -1);
			n += line_printf(l, "+0x%llx", (unsigned long long)off);
		} else if (he->sym && he->dso) {
			n += line_str(l, symbol__name(he->symtab, he->sym), 0, width - n);
			if (he->symtab->inlined)	/* past the column, as perf */
				n += line_str(l, " (inlined)", 0, -1);
		} else {
			n += line_hex16(l, he->ip);
		}
		return n;
	}
	case SORT_PARENT:
		return line_printf(l, "%-*.*s", width, width, he->parent ? he->parent : "[other]");
	case SORT_CPU:
		return line_printf(l, "%*.*d", width, width, he->cpu);
	case SORT_SOCKET:
		return line_printf(l, "%*.*d", width, width - 3, he->socket);
	case SORT_SYM_SIZE:
		if (he->sym)
			return line_printf(l, "%*d", width, (int)sym_size(he));
		return line_printf(l, "%*s", width, "unknown");
	case SORT_DSO_SIZE:
		if (he->dso)
			return line_printf(l, "%*d", width, (int)map_size(he));
		return line_printf(l, "%*s", width, "unknown");
	case SORT_IPC_NULL: {
		char tmp[64];

		snprintf(tmp, sizeof(tmp), "%-5s %2s", "-", "-");
		return line_printf(l, "%-*s", width, tmp);
	}
	case SORT_SRCLINE:	/* perf's "%-.*s": not padded */
		return line_str(l, he->extra->line, 0, width);
	case SORT_SRCFILE:
		return line_str(l, he->extra->file, 0, width);
	case SORT_ADDR:
		return line_printf(l, "%-#*llx", width, (unsigned long long)entry_addr(he));
	case SORT_LOCAL_WEIGHT:
		return line_printf(l, "%-*llu", width, (unsigned long long)entry_extra(he)->weight);
	case SORT_WEIGHT:
		return line_printf(l, "%-*llu", width,
				   (unsigned long long)(entry_extra(he)->weight * he->nr_events));
	case SORT_LOCAL_INS_LAT:
		return line_printf(l, "%-*u", width, entry_extra(he)->ins_lat);
	case SORT_INS_LAT:
		return line_printf(l, "%-*u", width, entry_extra(he)->ins_lat * he->nr_events);
	case SORT_LOCAL_P_STAGE_CYC:
		return line_printf(l, "%-*u", width, entry_extra(he)->p_stage_cyc);
	case SORT_P_STAGE_CYC:
		return line_printf(l, "%-*u", width, entry_extra(he)->p_stage_cyc * he->nr_events);
	case SORT_CODE_PAGE_SIZE: {
		char size[32];

		return line_printf(l, "%-*s", width, page_size_name(entry_extra(he)->code_page_size,
								    size, sizeof(size)));
	}
	case SORT_TRANSACTION: {
		char flags[128];

		return line_printf(l, "%-*s", width,
				   transaction_flags(entry_extra(he)->transaction, flags));
	}
	case SORT_DSO_FROM ... SORT_BLOCKED: {
		char buf[1024];

		if (key <= SORT_ADDR_TO)
			hist_branch__snprintf(buf, sizeof(buf), key, he, width);
		else
			hist_mem__snprintf(buf, sizeof(buf), key, he, width);
		return line_str(l, buf, 0, -1);
	}
	default:
		return 0;
	}
}

/*
 * perf's hist_entry_callchain__fprintf: percentages of the total period, whatever
 * --percentage says; total (hists__total_period's as perf's output resort has it, before
 * --symbol-filter) sets the threshold.
 */
static void print_callchain(const struct hists *hists, const struct hists_print_opts *opts,
			    const struct hist_entry *he, u64 total, struct cc_scratch *scratch,
			    FILE *fp)
{
	const struct hists_callchain *cc = opts->callchain;
	struct cc_print p = {
		.param = cc->param, .machine = cc->machine, .total = hists->total_period,
		.parent = hists->cumulate ? he->period_acc : he->period,
		/* perf's min_callchain_hits: u64 of the double product */
		.min_hit = (u64)((double)total * (cc->param->min_percent / 100)),
		.skip_first = cc->skip_first, .lines = cc->lines,
	};

	struct cc_contrib *c;
	u64 sum = 0;

	for (u32 i = 0; i < he->contrib_nr; i++)
		sum += hists->counts[hists->contribs[he->contrib_first + i].pair].period;
	if (callchains__prints_nothing(&p, sum))
		return;
	c = cc_scratch__contribs(scratch, he->contrib_nr);
	for (u32 i = 0; i < he->contrib_nr; i++) {
		const struct entry_contrib *ec = &hists->contribs[he->contrib_first + i];
		const struct chain_count *pair = &hists->counts[ec->pair];

		c[i] = (struct cc_contrib){ .chain = pair->chain, .offset = ec->offset,
					    .count = pair->count, .period = pair->period };
	}
	callchains__fprintf(cc->chains, &p, c, he->contrib_nr, scratch, fp);
}

/*
 * The entries' lines and call graphs, in output order. With call graphs, a large report's
 * text is made on two threads, in chunks of entries, each into memory, and written in order
 * by the calling thread: nothing it reads changes while it prints (every frame's symbol was
 * looked up while the children entries were made).
 */

/* A percent column: "%*.2f%%" in perf's width less its blank and sign, with -t in 1. */
static int print_percent(struct line *l, double percent, const char *sep)
{
	char pct[64];

	if (sep)
		return line_printf(l, " %.2f%%", percent);
	hists__format_percent(pct, sizeof(pct), percent);
	return line_str(l, pct + 2, 0, -1);	/* less the separator it starts with */
}

/* A column that is not a sort key (perf's hpp__fmt): its value, unpadded */
static int print_hpp(const struct render *r, int id, const struct hist_entry *he,
		     struct line *l)
{
	const char *sep = r->opts->field_sep;
	u64 total = r->total;

	switch (id) {
	case HPP_OVERHEAD_CHILDREN:
		if (!r->hists->cumulate)	/* perf's __hpp__fmt_acc, separator or not */
			return line_printf(l, " %*s", r->w->col[id] - 1, "N/A");
		return print_percent(l, total ? 100.0 * he->period_acc / total : 0, sep);
	case HPP_OVERHEAD:
		return print_percent(l, total ? 100.0 * he->period / total : 0, sep);
	default:
		return line_printf(l, " %*llu", sep ? 1 : r->w->col[id] - 1,
				   (unsigned long long)(id == HPP_SAMPLE ? he->nr_events
									: he->period));
	}
}

/*
 * An entry's columns: each after perf's separator ("  ", or -t's before all but the first),
 * padded to its width unless last. With -t, the separator's first character in a key's text
 * becomes '.' (perf's repsep_snprintf).
 */
static void print_columns(const struct render *r, const struct hist_entry *he, struct line *l)
{
	const struct field_list *cols = r->columns;
	const char *sep = r->opts->field_sep;
	bool first = true;

	for (int k = 0; k < cols->nr; k++) {
		int id = cols->ids[k], cw = r->w->col[id], n;
		size_t start;

		if (id < SORT_NR_KEYS && sort_list__elided(r->hists->sort, id))
			continue;
		if (!sep || !first)
			line_str(l, sep ? sep : "  ", 0, -1);
		first = false;
		start = l->len;
		if (id >= SORT_NR_KEYS) {
			n = print_hpp(r, id, he, l);
		} else {
			n = print_key(l, r->hists, id, he, cw);
			for (size_t i = start; sep && i < l->len; i++)
				if (l->buf[i] == *sep)
					l->buf[i] = '.';
		}
		if (k != r->last && n < cw)
			line_str(l, " ", cw - n, -1);
	}
}

/* Entries [from, to) of the order into fp; scratch: this thread's (NULL without graphs). */
void render_entries(const struct render *r, size_t from, size_t to,
			   struct cc_scratch *scratch, FILE *fp)
{
	const struct hists *hists = r->hists;
	const struct hists_print_opts *opts = r->opts;
	struct line l = { .size = r->line_size };

	l.buf = xmalloc(l.size);
	for (size_t i = from; i < to; i++) {
		const struct hist_entry *he = &hists->entries[r->order[i]];
		u64 total = r->total;
		double percent = total ? 100.0 * he->period / total : 0;
		double acc = total ? 100.0 * he->period_acc / total : 0;

		if (!entry_shown(opts, he))
			continue;
		/* perf's hist_entry__get_percent_limit */
		if ((float)(hists->cumulate ? acc : percent) < (float)opts->percent_limit)
			continue;
		l.len = 0;
		l.buf[0] = '\0';
		print_columns(r, he, &l);
		l.buf[l.len] = '\n';
		fwrite(l.buf, 1, l.len + 1, fp);
		if (r->graphs)
			print_callchain(hists, opts, he, r->min_total, scratch, fp);
	}
	free(l.buf);
}

void hists__kept(const struct hists *hists, const struct hists_print_opts *opts,
		 struct hists_kept *k)
{
	/* a collapse moves periods between entries, none out of the filtered ones or into */
	*k = (struct hists_kept){ 0 };
	for (size_t i = 0; i < hists->nr; i++) {
		const struct hist_entry *he = &hists->entries[i];

		if (he->merged || he->filtered)
			continue;
		k->nr_samples += he->nr_events;
		k->period += he->period;
		if (entry_shown(opts, he))
			k->shown_period += he->period;
	}
}

/* A column's header: perf's hpp headers right-aligned, the keys' left-aligned. */
static const char *header_of(const struct hists *hists, const struct hists_print_opts *opts,
			     int id)
{
	/* perf_hpp__init renames the overhead column of the children view, unless -F is strict */
	if (id == HPP_OVERHEAD && hists->cumulate && !(opts->fields && opts->fields->strict))
		return "Self";
	return headers[id];
}

/* perf's header lines: names, then (without -t) dots and a "#" line */
static void print_headers(const struct hists *hists, const struct hists_print_opts *opts,
			  const struct field_list *cols, const struct widths *w, FILE *fp)
{
	const char *sep = opts->field_sep;
	bool first = true;

	fputs("# ", fp);
	for (int i = 0; i < cols->nr; i++) {
		int id = cols->ids[i];
		/* perf pads each header in a buffer of 1024 bytes */
		int cw = MIN(w->col[id], 1023);

		if (id < SORT_NR_KEYS && sort_list__elided(hists->sort, id))
			continue;
		if (!first)
			fputs(sep ? sep : "  ", fp);
		first = false;
		if (id >= SORT_NR_KEYS)
			fprintf(fp, "%*s", cw, header_of(hists, opts, id));
		else
			fprintf(fp, "%-*.*s", cw, cw, headers[id]);
	}
	fputc('\n', fp);
	if (sep)
		return;
	fputs("# ", fp);
	first = true;
	for (int i = 0; i < cols->nr; i++) {
		int id = cols->ids[i];

		if (id < SORT_NR_KEYS && sort_list__elided(hists->sort, id))
			continue;
		if (!first)
			fputs("  ", fp);
		first = false;
		for (int k = 0; k < w->col[id]; k++)
			fputc('.', fp);
	}
	fprintf(fp, "\n#\n");
}

/* Whether order is perf's default one: [Children,] Self or Overhead, then the sort keys. */
static bool default_order(const struct hists *hists, const struct field_list *order)
{
	int at = 0;

	if (hists->cumulate && (order->nr <= at || order->ids[at++] != HPP_OVERHEAD_CHILDREN))
		return false;
	if (order->nr <= at || order->ids[at++] != HPP_OVERHEAD)
		return false;
	if (order->nr != at + hists->sort->nr)
		return false;
	for (int i = 0; i < hists->sort->nr; i++)
		if (order->ids[at + i] != (int)hists->sort->keys[i])
			return false;
	return true;
}

void hists__fprintf(struct hists *hists, const struct hists_print_opts *opts, FILE *fp)
{
	struct field_setup setup = { .cumulate = hists->cumulate,
				     .show_nr_samples = opts->show_nr_samples,
				     .show_total_period = opts->show_total_period };
	struct field_list cols, by;
	struct cc_scratch *scratch;
	u32 *order;
	int last = -1, line_width = -2;
	struct widths w;
	struct render r;

	bool graphs = opts->callchain && opts->callchain->use_callchain && hists->has_callchain;
	struct hists_kept kept = { .period = hists->total_period,
				   .shown_period = hists->total_period };
	size_t nr;

	if (opts->percent_relative)
		hists__kept(hists, opts, &kept);
	field_list__layout(opts->fields, hists->sort, &setup, &cols, &by);
	hists__collapse(hists);
	/*
	 * Printing looks nothing up: the index's memory (a MB at 128k entries) goes before the
	 * order's and the trees' is taken, which would otherwise raise the peak. An add after
	 * this builds the index again (index_grow).
	 */
	free(hists->index.slots);
	hists->index = (struct entry_index){ 0 };
	release_free();
	order = xcalloc_populated(hists->nr, sizeof(*order));
	nr = output_order(hists, opts, default_order(hists, &by) ? NULL : &by, order);
	release_free();	/* what ordering took, before printing takes its own */

	calc_widths(hists, order, nr, opts, &w);

	/*
	 * perf's line buffer: the sum of the shown widths, separators (two bytes each, whatever
	 * -t's), 3 + 1 bytes, and room for colour codes (perf_hpp__color_overhead: 8 columns of
	 * 24 + 4 bytes), which is what a column printed past its width (" (inlined)") may take.
	 */
	for (int i = 0; i < cols.nr; i++) {
		if (cols.ids[i] < SORT_NR_KEYS && sort_list__elided(hists->sort, cols.ids[i]))
			continue;
		line_width += 2 + w.col[cols.ids[i]];
		last = i;
	}
	line_width = MAX(line_width, 0);
	if (opts->show_header)
		print_headers(hists, opts, &cols, &w, fp);

	r = (struct render){ .hists = hists, .opts = opts, .order = order, .nr = nr, .w = &w,
			     .columns = &cols, .last = last, .total = kept.shown_period,
			     .min_total = kept.period,
			     .line_size = (size_t)line_width + 3 + 1 + 8 * (24 + 4),
			     .graphs = graphs };
	scratch = graphs ? cc_scratch__new() : NULL;
	render_run(&r, scratch, fp);
	cc_scratch__delete(scratch);
	free(order);
}
