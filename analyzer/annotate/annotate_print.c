/*
 * annotate_print: a symbol's lines as perf annotate --stdio prints them from objdump's
 * output (see annotate.h). perf runs `objdump -l -d -S --start-address --stop-address` and
 * reads its lines: the file name line dropped, `/FILE:LINE` lines consumed (they set the
 * number of the lines after them), every other line kept with a running number, an
 * instruction's with its percentage. Here the same lines are made without objdump.
 */
#include "analyzer/annotate/annotate.h"

#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer/annotate/disasm.h"
#include "analyzer/annotate/labels.h"
#include "analyzer/annotate/srcline.h"
#include "lib/xalloc.h"
#include "machine/dso.h"
#include "machine/inline.h"

struct ann_section {
	u64 addr, size, offset;
	u32 index;
	const char *name;
};

struct ann_phdr {
	u64 vaddr, offset, filesz;
};

struct ann_file {
	const u8 *map;
	size_t size;
	Elf *elf;	/* over map */
	struct labels labels;
	struct srcline *src;
	struct ann_section *secs;
	size_t nr_secs;
	struct ann_phdr *phdrs;
	size_t nr_phdrs;
	char *names;	/* the section names */
};

struct ann_file *ann_file__open(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct ann_file *f;
	struct stat st;
	size_t shstrndx, nr = 0, names_len = 0;
	Elf *elf;
	GElf_Ehdr eh;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !st.st_size) {
		close(fd);
		return NULL;
	}
	f = xcalloc(1, sizeof(*f));
	f->size = (size_t)st.st_size;
	f->map = mmap(NULL, f->size, PROT_READ, MAP_PRIVATE, fd, 0);
	elf_version(EV_CURRENT);
	elf = f->map != MAP_FAILED ? elf_memory((char *)f->map, f->size) : NULL;
	close(fd);
	if (!elf || !gelf_getehdr(elf, &eh) || elf_getshdrstrndx(elf, &shstrndx)) {
		if (elf)
			elf_end(elf);
		if (f->map != MAP_FAILED)
			munmap((void *)f->map, f->size);
		free(f);
		return NULL;
	}
	for (Elf_Scn *s = NULL; (s = elf_nextscn(elf, s));) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(s, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || sh.sh_offset + sh.sh_size > f->size)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		f->secs = xrealloc(f->secs, (nr + 1) * sizeof(*f->secs));
		f->secs[nr].addr = sh.sh_addr;
		f->secs[nr].size = sh.sh_size;
		f->secs[nr].offset = sh.sh_offset;
		f->secs[nr].index = (u32)elf_ndxscn(s);
		f->secs[nr].name = (const char *)(uintptr_t)names_len;
		f->names = xrealloc(f->names, names_len + strlen(name ? name : "") + 1);
		strcpy(f->names + names_len, name ? name : "");
		names_len += strlen(name ? name : "") + 1;
		nr++;
	}
	for (size_t i = 0; i < nr; i++)
		f->secs[i].name = f->names + (uintptr_t)f->secs[i].name;
	f->nr_secs = nr;
	for (size_t i = 0; i < eh.e_phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		f->phdrs = xrealloc(f->phdrs, (f->nr_phdrs + 1) * sizeof(*f->phdrs));
		f->phdrs[f->nr_phdrs++] = (struct ann_phdr){ ph.p_vaddr, ph.p_offset, ph.p_filesz };
	}
	/* the one Elf over the one mapping: labels and source lines read it too */
	f->elf = elf;
	labels__load(&f->labels, elf);
	f->src = srcline__new(elf);
	return f;
}

void ann_file__close(struct ann_file *f)
{
	if (!f)
		return;
	labels__exit(&f->labels);
	srcline__delete(f->src);
	elf_end(f->elf);
	munmap((void *)f->map, f->size);
	free(f->secs);
	free(f->phdrs);
	free(f->names);
	free(f);
}

/* perf's map__rip_2objdump for a dso's symbol address (a file offset): its address in the
 * file's PT_LOAD (what objdump prints) */
static u64 objdump_addr(const struct ann_file *f, u64 off)
{
	for (size_t i = 0; i < f->nr_phdrs; i++)
		if (off >= f->phdrs[i].offset && off < f->phdrs[i].offset + f->phdrs[i].filesz)
			return off - f->phdrs[i].offset + f->phdrs[i].vaddr;
	return off;
}

static const struct ann_section *section_at(const struct ann_file *f, u64 addr)
{
	for (size_t i = 0; i < f->nr_secs; i++)
		if (addr >= f->secs[i].addr && addr < f->secs[i].addr + f->secs[i].size)
			return &f->secs[i];
	return NULL;
}

/* One line of objdump's output as perf keeps it. */
struct ann_line {
	s64 offset;	/* from the symbol's start, -1 for a line that is no instruction */
	int line_nr;
	char *text;	/* an instruction's after its address, as perf cuts it */
	u64 period, nr;	/* an instruction's samples (to the next instruction) */
	double percent;
	char *path;	/* -l: its srcline, when its percent is over 0.5 */
};

struct ann_lines {
	struct ann_line *v;
	size_t nr, alloc;
	int lineno;	/* perf's running number */
};

static void add_line(struct ann_lines *l, s64 offset, const char *text)
{
	ARRAY_GROW(l->v, l->alloc, l->nr + 1);
	l->v[l->nr].offset = offset;
	l->v[l->nr].line_nr = l->lineno++;
	l->v[l->nr].text = xstrdup(text);
	l->v[l->nr].period = l->v[l->nr].nr = 0;
	l->v[l->nr].percent = 0;
	l->v[l->nr].path = NULL;
	l->nr++;
}

/* objdump -l's lines before the instruction at addr (a FILE:LINE one sets the number) */
static void source_lines(struct ann_lines *l, struct ann_file *f, u64 addr)
{
	const char *func, *file;
	unsigned int line, disc;
	char buf[4096];

	if (!f->src)
		return;
	srcline__at(f->src, addr, &func, &file, &line, &disc);
	if (func) {
		snprintf(buf, sizeof(buf), "%s:", func);
		add_line(l, -1, buf);
	}
	if (!line)
		return;
	if (file[0] == '/') {	/* perf's "^/[^:]+:([0-9]+)": consumed, numbers what follows */
		l->lineno = (int)line;
		return;
	}
	if (disc)
		snprintf(buf, sizeof(buf), "%s:%u (discriminator %u)", file, line, disc);
	else
		snprintf(buf, sizeof(buf), "%s:%u", file, line);
	add_line(l, -1, buf);
}

/* The bytes objdump shows on a line (--asm-raw: its x86 insn_width) */
#define RAW_PER_LINE 7

/*
 * An instruction line as perf keeps it: objdump's "ADDR:\tBYTES\tTEXT" trimmed, its tabs
 * expanded (8 columns from the address), what follows "ADDR:". raw: the bytes, n of them
 * (at most RAW_PER_LINE; text NULL for a line of the bytes that did not fit), else none.
 */
static void insn_line(struct ann_lines *l, s64 offset, u64 addr, const u8 *raw, size_t n,
		      const char *text)
{
	char buf[1200];
	int col = snprintf(buf, sizeof(buf), "%llx:", (unsigned long long)addr), len = 0;

	len += snprintf(buf + len, sizeof(buf) - (size_t)len, "%*s", 8 - col % 8, "");
	col += 8 - col % 8;
	if (raw) {
		for (size_t i = 0; i < n; i++)
			len += snprintf(buf + len, sizeof(buf) - (size_t)len, "%02x ", raw[i]);
		for (size_t i = n; text && i < RAW_PER_LINE; i++)
			len += snprintf(buf + len, sizeof(buf) - (size_t)len, "   ");
		col += RAW_PER_LINE * 3;
		if (text)
			len += snprintf(buf + len, sizeof(buf) - (size_t)len, "%*s", 8 - col % 8, "");
	}
	if (text)
		snprintf(buf + len, sizeof(buf) - (size_t)len, "%s", text);
	for (len = (int)strlen(buf); len > 0 && buf[len - 1] == ' '; len--)
		buf[len - 1] = '\0';	/* perf's strim */
	add_line(l, offset, buf);
}

static void objdump_lines(struct ann_lines *l, struct ann_file *f, struct disasm *d,
			  const struct ann_section *sec, u64 start, u64 end, bool raw)
{
	const u8 *code = f->map + sec->offset;
	char text[1024], label[960];
	const char *name;

	add_line(l, -1, "");
	add_line(l, -1, "");	/* after the file name line perf drops */
	add_line(l, -1, "");
	snprintf(text, sizeof(text), "Disassembly of section %s:", sec->name);
	add_line(l, -1, text);
	if (f->src)
		srcline__reset(f->src);
	for (u64 addr = start; addr < end;) {
		size_t n;

		if (addr == start || (name = labels__at(&f->labels, addr, sec->index))) {
			labels__format_in(&f->labels, addr, sec->index, sec->name, sec->addr, label,
					  sizeof(label));
			add_line(l, -1, "");
			snprintf(text, sizeof(text), "%016llx <%s>:", (unsigned long long)addr,
				 label);
			add_line(l, -1, text);
		}
		source_lines(l, f, addr);
		n = disasm__insn(d, code + (addr - sec->addr), sec->addr + sec->size - addr, addr,
				 &f->labels, sec->index, text, sizeof(text));
		if (!raw) {
			insn_line(l, (s64)(addr - start), addr, NULL, 0, text);
		} else {	/* the bytes past the first line's on lines of their own */
			const u8 *bytes = code + (addr - sec->addr);

			insn_line(l, (s64)(addr - start), addr, bytes,
				  n < RAW_PER_LINE ? n : RAW_PER_LINE, text);
			for (size_t k = RAW_PER_LINE; k < n; k += RAW_PER_LINE)
				insn_line(l, (s64)(addr + k - start), addr + k, bytes + k,
					  n - k < RAW_PER_LINE ? n - k : RAW_PER_LINE, NULL);
		}
		addr += n;
	}
}

static const char *const percent_names[] = { "local period", "global period", "local hits",
					     "global hits" };

int ann_percent__parse(const char *str)
{
	const char *dash = strchr(str, '-');
	size_t len = dash ? (size_t)(dash - str) : 0;
	int scope = -1, kind = -1;

	if (!dash)
		return -1;
	for (int i = 0; i < 2; i++) {
		const char *w = i ? dash + 1 : str;
		size_t n = i ? strlen(dash + 1) : len;

		if (n == 5 && !strncmp(w, "local", 5) && scope < 0)
			scope = 0;
		else if (n == 6 && !strncmp(w, "global", 6) && scope < 0)
			scope = 1;
		else if (n == 6 && !strncmp(w, "period", 6) && kind < 0)
			kind = 0;
		else if (n == 4 && !strncmp(w, "hits", 4) && kind < 0)
			kind = 2;
		else
			return -1;
	}
	return scope < 0 || kind < 0 ? -1 : scope + kind;
}

/* perf's calc_percent and annotation_data__percent */
static double percent(const struct ann_hist *h, const struct ann_print_opts *opts, u64 period,
		      u64 nr)
{
	u64 total;

	switch (opts->percent_type) {
	case PERCENT_GLOBAL_PERIOD:
		total = opts->event_period;
		return total ? 100.0 * (double)period / (double)total : 0.0;
	case PERCENT_LOCAL_HITS:
		total = h->total_nr;
		return total ? 100.0 * (double)nr / (double)total : 0.0;
	case PERCENT_GLOBAL_HITS:	/* perf 6.1's annotate leaves the hists' count of samples
					   not filtered (what it divides by) at 0: it prints 0.00 */
		return 0.0;
	default:
		total = h->total_period;
		return total ? 100.0 * (double)period / (double)total : 0.0;
	}
}

/* perf's annotation__calc_percent: each instruction's samples, to the next instruction */
static void line_stats(struct ann_lines *l, const struct ann_hist *h,
		       const struct ann_print_opts *opts)
{
	for (size_t i = 0; i < l->nr; i++) {
		struct ann_line *al = &l->v[i];
		u64 end = h->size;

		if (al->offset < 0)
			continue;
		for (size_t j = i + 1; j < l->nr; j++)
			if (l->v[j].offset >= 0) {
				end = (u64)l->v[j].offset;
				break;
			}
		for (u64 o = (u64)al->offset; o < end && o < h->size; o++) {
			al->period += h->period[o];
			al->nr += h->nr[o];
		}
		al->percent = percent(h, opts, al->period, al->nr);
	}
}

struct summary_line {
	const char *path;
	double sum;
};

/* print_summary's order: the sum, largest first; of equal sums the path, last first */
static int summary_cmp(const void *pa, const void *pb)
{
	const struct summary_line *a = pa, *b = pb;

	if (a->sum != b->sum)
		return a->sum > b->sum ? -1 : 1;
	return strcmp(b->path, a->path);
}

/*
 * -l: each instruction over 0.5 % gets its srcline (perf's get_srcline: FILE:LINE, else
 * DSO[ADDR]), and the percentages of each srcline are summed and printed, largest first
 * (symbol__calc_lines, print_summary).
 */
static void line_summary(FILE *out, struct ann_lines *l, u64 start, u64 vstart,
			 const struct ann_print_opts *opts)
{
	struct summary_line *sum = NULL;
	size_t nr = 0, alloc = 0;
	char buf[4096];

	for (size_t i = 0; i < l->nr; i++) {
		struct ann_line *al = &l->v[i];
		size_t k;

		if (al->offset < 0 || al->percent <= 0.5)
			continue;
		if (!inlines__srcline(opts->inlines, opts->dso, start + (u64)al->offset, buf,
				      sizeof(buf)))
			snprintf(buf, sizeof(buf), "%s[%llx]", opts->dso->short_name,
				 (unsigned long long)(vstart + (u64)al->offset));
		al->path = xstrdup(buf);
		for (k = 0; k < nr && strcmp(sum[k].path, al->path); k++)
			;
		if (k == nr) {
			ARRAY_GROW(sum, alloc, nr + 1);
			sum[nr].path = al->path;
			sum[nr++].sum = 0;
		}
		sum[k].sum += al->percent;
	}
	if (nr)
		qsort(sum, nr, sizeof(*sum), summary_cmp);
	fprintf(out, "\nSorted summary for file %s\n", opts->dso->long_name);
	fprintf(out, "----------------------------------------------\n\n");
	if (!nr)
		fprintf(out, " Nothing higher than %1.1f%%\n", 0.5);
	for (size_t k = 0; k < nr; k++)
		fprintf(out, " %7.2f %s\n", sum[k].sum, sum[k].path);
	free(sum);
}

static void print_lines(FILE *out, const struct ann_lines *l, u64 start,
			struct ann_print_opts *opts)
{
	int width = opts->show_total_period ? 12 : 8;
	char bf[32];
	int addr_width = 0;

	for (size_t i = l->nr; i-- > 0;)
		if (l->v[i].offset >= 0) {
			addr_width = snprintf(bf, sizeof(bf), "%llx",
					      (unsigned long long)(start + (u64)l->v[i].offset));
			break;
		}
	for (size_t i = 0; i < l->nr; i++) {
		const struct ann_line *al = &l->v[i];

		if (al->offset < 0) {
			if (!*al->text)
				fprintf(out, " %*s:\n", width, " ");
			else
				fprintf(out, " %*s: %-*d %s\n", width, " ", addr_width, al->line_nr,
					al->text);
			continue;
		}
		if (opts->show_total_period)
			fprintf(out, " %11llu", (unsigned long long)al->period);
		else if (opts->show_nr_samples)
			fprintf(out, " %7llu", (unsigned long long)al->nr);
		else
			fprintf(out, " %7.2f", al->percent);
		fprintf(out, " :   %*llx:%s", addr_width,
			(unsigned long long)(start + (u64)al->offset), al->text);
		/* a srcline once for a run of the same (perf keeps the last across symbols) */
		if (al->path && (!opts->prev_path || strcmp(opts->prev_path, al->path))) {
			fprintf(out, " // %s", al->path);
			free(opts->prev_path);
			opts->prev_path = xstrdup(al->path);
		}
		fputc('\n', out);
	}
}

int ann_print(FILE *out, struct ann_file *f, struct disasm *d, u64 start, const struct ann_hist *h,
	      const char *dso_name, const char *event, struct ann_print_opts *opts)
{
	u64 vstart = objdump_addr(f, start);
	const struct ann_section *sec = section_at(f, vstart);
	struct ann_lines l = { 0 };
	int len;

	if (!sec)
		return -1;
	objdump_lines(&l, f, d, sec, vstart,
		      vstart + h->size < sec->addr + sec->size ? vstart + h->size
							       : sec->addr + sec->size,
		      opts->asm_raw);
	line_stats(&l, h, opts);
	if (opts->print_line)
		line_summary(out, &l, start, vstart, opts);
	len = fprintf(out, " %-*.*s|\tSource code & Disassembly of %s for %s (%llu samples, "
		      "percent: %s)\n", opts->show_total_period ? 12 : 8,
		      opts->show_total_period ? 12 : 8,
		      opts->show_total_period ? "Period" :
		      opts->show_nr_samples ? "Samples" : "Percent", dso_name, event,
		      (unsigned long long)h->total_nr, percent_names[opts->percent_type]);
	for (int i = 0; i < len + 4; i++)	/* perf: its printf's count, and "----" */
		fputc('-', out);
	fputc('\n', out);
	print_lines(out, &l, vstart, opts);
	for (size_t i = 0; i < l.nr; i++) {
		free(l.v[i].text);
		free(l.v[i].path);
	}
	free(l.v);
	return 0;
}
