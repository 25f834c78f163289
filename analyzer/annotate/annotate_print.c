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
	elf_end(elf);
	labels__load(&f->labels, path);
	f->src = srcline__new(path);
	return f;
}

void ann_file__close(struct ann_file *f)
{
	if (!f)
		return;
	munmap((void *)f->map, f->size);
	labels__exit(&f->labels);
	srcline__delete(f->src);
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

/* The instruction's text as perf keeps it: objdump's "ADDR:\tTEXT" trimmed, tabs expanded
 * (to 8 columns from the address), what follows "ADDR:" */
static void insn_line(struct ann_lines *l, s64 offset, u64 addr, const char *text)
{
	char buf[1100];
	int n = snprintf(buf, sizeof(buf), "%llx:", (unsigned long long)addr);

	snprintf(buf, sizeof(buf), "%*s%s", 8 - n % 8, "", text);
	add_line(l, offset, buf);
}

static void objdump_lines(struct ann_lines *l, struct ann_file *f, struct disasm *d,
			  const struct ann_section *sec, u64 start, u64 end)
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
			labels__format(&f->labels, addr, sec->index, label, sizeof(label));
			add_line(l, -1, "");
			snprintf(text, sizeof(text), "%016llx <%s>:", (unsigned long long)addr,
				 label);
			add_line(l, -1, text);
		}
		source_lines(l, f, addr);
		n = disasm__insn(d, code + (addr - sec->addr), sec->addr + sec->size - addr, addr,
				 &f->labels, sec->index, text, sizeof(text));
		insn_line(l, (s64)(addr - start), addr, text);
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

static void print_lines(FILE *out, const struct ann_lines *l, u64 start, const struct ann_hist *h,
			const struct ann_print_opts *opts)
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
		u64 period = 0, nr = 0, end = h->size;

		if (al->offset < 0) {
			if (!*al->text)
				fprintf(out, " %*s:\n", width, " ");
			else
				fprintf(out, " %*s: %-*d %s\n", width, " ", addr_width, al->line_nr,
					al->text);
			continue;
		}
		/* perf's calc_percent: the samples up to the next instruction */
		for (size_t j = i + 1; j < l->nr; j++)
			if (l->v[j].offset >= 0) {
				end = (u64)l->v[j].offset;
				break;
			}
		for (u64 o = (u64)al->offset; o < end && o < h->size; o++) {
			period += h->period[o];
			nr += h->nr[o];
		}
		if (opts->show_total_period)
			fprintf(out, " %11llu", (unsigned long long)period);
		else if (opts->show_nr_samples)
			fprintf(out, " %7llu", (unsigned long long)nr);
		else
			fprintf(out, " %7.2f", percent(h, opts, period, nr));
		fprintf(out, " :   %*llx:%s\n", addr_width,
			(unsigned long long)(start + (u64)al->offset), al->text);
	}
}

int ann_print(FILE *out, struct ann_file *f, struct disasm *d, u64 start, const struct ann_hist *h,
	      const char *dso_name, const char *event, const struct ann_print_opts *opts)
{
	u64 vstart = objdump_addr(f, start);
	const struct ann_section *sec = section_at(f, vstart);
	struct ann_lines l = { 0 };
	int len;

	if (!sec)
		return -1;
	objdump_lines(&l, f, d, sec, vstart,
		      vstart + h->size < sec->addr + sec->size ? vstart + h->size
							       : sec->addr + sec->size);
	len = fprintf(out, " %-*.*s|\tSource code & Disassembly of %s for %s (%llu samples, "
		      "percent: %s)\n", opts->show_total_period ? 12 : 8,
		      opts->show_total_period ? 12 : 8,
		      opts->show_total_period ? "Period" :
		      opts->show_nr_samples ? "Samples" : "Percent", dso_name, event,
		      (unsigned long long)h->total_nr, percent_names[opts->percent_type]);
	for (int i = 0; i < len + 4; i++)	/* perf: its printf's count, and "----" */
		fputc('-', out);
	fputc('\n', out);
	print_lines(out, &l, vstart, h, opts);
	for (size_t i = 0; i < l.nr; i++)
		free(l.v[i].text);
	free(l.v);
	return 0;
}
