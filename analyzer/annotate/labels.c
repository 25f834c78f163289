/*
 * labels: objdump's names for addresses (see labels.h), from the ELF file through libelf.
 * Reads one file; knows nothing of perf's symbol tables, which name things differently.
 */
#include "analyzer/annotate/labels.h"

#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"

/* what compare_symbols orders symbols of one address by (bfd's BSF_* flags, simplified) */
struct raw_label {
	struct label l;
	u64 size;
	size_t bare_len;	/* of the name without its version (what bfd compares) */
	size_t index;		/* in the order read: glibc's qsort keeps it among equals */
	bool function, object, local, global;
	bool synthetic;
};

struct builder {
	struct raw_label *v;
	size_t nr, alloc;
	struct reloc_label *relocs;
	size_t nr_relocs, relocs_alloc;
	char *pool;
	size_t pool_len, pool_alloc;
};

static size_t pool_add(struct builder *b, const char *s, const char *suffix_sep,
		       const char *suffix)
{
	size_t len = strlen(s), off = b->pool_len;
	size_t sep_len = suffix ? strlen(suffix_sep) : 0, suf_len = suffix ? strlen(suffix) : 0;

	ARRAY_GROW(b->pool, b->pool_alloc, b->pool_len + len + sep_len + suf_len + 1);
	memcpy(b->pool + off, s, len);
	if (suffix) {
		memcpy(b->pool + off + len, suffix_sep, sep_len);
		memcpy(b->pool + off + len + sep_len, suffix, suf_len);
	}
	b->pool[off + len + sep_len + suf_len] = '\0';
	b->pool_len += len + sep_len + suf_len + 1;
	return off;
}

static struct raw_label *add(struct builder *b)
{
	ARRAY_GROW(b->v, b->alloc, b->nr + 1);
	memset(&b->v[b->nr], 0, sizeof(b->v[0]));
	b->v[b->nr].index = b->nr;
	return &b->v[b->nr++];
}

static Elf_Scn *section_of_type(Elf *elf, u32 type, GElf_Shdr *shdr)
{
	for (Elf_Scn *s = NULL; (s = elf_nextscn(elf, s));)
		if (gelf_getshdr(s, shdr) && shdr->sh_type == type)
			return s;
	return NULL;
}

/* The dynamic symbols' version sections (bfd's elf_dynversym, verdef, verref). */
struct versions {
	Elf_Data *versym, *verdef, *verneed;
	size_t verdef_str, verneed_str;
};

static void versions_init(struct versions *v, Elf *elf)
{
	GElf_Shdr sh;
	Elf_Scn *s;

	memset(v, 0, sizeof(*v));
	if ((s = section_of_type(elf, SHT_GNU_versym, &sh)))
		v->versym = elf_getdata(s, NULL);
	if ((s = section_of_type(elf, SHT_GNU_verdef, &sh))) {
		v->verdef = elf_getdata(s, NULL);
		v->verdef_str = sh.sh_link;
	}
	if ((s = section_of_type(elf, SHT_GNU_verneed, &sh))) {
		v->verneed = elf_getdata(s, NULL);
		v->verneed_str = sh.sh_link;
	}
}

static const char *verdef_name(Elf *elf, const struct versions *v, unsigned int vernum)
{
	for (size_t off = 0;;) {
		GElf_Verdef vd;
		GElf_Verdaux vda;

		if (!v->verdef || !gelf_getverdef(v->verdef, (int)off, &vd))
			return NULL;
		if (vd.vd_ndx == vernum && gelf_getverdaux(v->verdef, (int)(off + vd.vd_aux), &vda))
			return elf_strptr(elf, v->verdef_str, vda.vda_name);
		if (!vd.vd_next)
			return NULL;
		off += vd.vd_next;
	}
}

static const char *verneed_name(Elf *elf, const struct versions *v, unsigned int vernum)
{
	for (size_t off = 0;;) {
		GElf_Verneed vn;

		if (!v->verneed || !gelf_getverneed(v->verneed, (int)off, &vn))
			return NULL;
		for (size_t aoff = off + vn.vn_aux, i = 0; i < vn.vn_cnt; i++) {
			GElf_Vernaux va;

			if (!gelf_getvernaux(v->verneed, (int)aoff, &va))
				break;
			if (va.vna_other == vernum)
				return elf_strptr(elf, v->verneed_str, va.vna_name);
			aoff += va.vna_next;
		}
		if (!vn.vn_next)
			return NULL;
		off += vn.vn_next;
	}
}

/*
 * The version objdump prints after dynamic symbol ndx (_bfd_elf_get_symbol_version_string
 * and objdump_print_symname: "@@VER" for a default version, "@VER" for a hidden or
 * undefined one, "Base" for the base version), or NULL.
 */
static const char *dyn_version(Elf *elf, const struct versions *v, size_t ndx, bool undef,
			       bool *hidden)
{
	GElf_Versym vs;
	unsigned int vernum;
	const char *name;

	if (!v->versym || (!v->verdef && !v->verneed) || !gelf_getversym(v->versym, (int)ndx, &vs))
		return NULL;
	*hidden = (vs & 0x8000) || undef;
	vernum = vs & 0x7fff;
	if (vernum == 0)
		return NULL;
	name = verdef_name(elf, v, vernum);
	if (vernum == 1 && (!name || !undef))
		return "Base";
	if (!name && !(name = verneed_name(elf, v, vernum)) && vernum == 1)
		return "Base";
	return name && *name ? name : NULL;
}

/* The symbols of a SHT_SYMTAB or SHT_DYNSYM section (remove_useless_symbols' choice). */
static void read_symbols(struct builder *b, Elf *elf, Elf_Scn *scn, const GElf_Shdr *shdr,
			 bool dynamic)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = shdr->sh_entsize ? shdr->sh_size / shdr->sh_entsize : 0;
	struct versions v;

	versions_init(&v, elf);
	for (size_t i = 1; data && i < n; i++) {
		GElf_Sym sym;
		const char *name, *ver = NULL;
		struct raw_label *r;
		int type;
		bool hidden = false;

		if (!gelf_getsym(data, (int)i, &sym))
			break;
		type = GELF_ST_TYPE(sym.st_info);
		name = elf_strptr(elf, shdr->sh_link, sym.st_name);
		if (!name || !*name || type == STT_SECTION || type == STT_FILE ||
		    sym.st_shndx == SHN_UNDEF || sym.st_shndx == SHN_COMMON)
			continue;
		if (dynamic)
			ver = dyn_version(elf, &v, i, false, &hidden);
		r = add(b);
		r->l.addr = sym.st_value;
		r->l.name = (const char *)(uintptr_t)pool_add(b, name, hidden ? "@" : "@@", ver);
		r->bare_len = strlen(name);
		r->l.section = sym.st_shndx < SHN_LORESERVE ? sym.st_shndx : 0;
		r->size = sym.st_size;
		r->function = type == STT_FUNC || type == STT_GNU_IFUNC;
		r->object = type == STT_OBJECT || type == STT_TLS;
		r->local = GELF_ST_BIND(sym.st_info) == STB_LOCAL;
		r->global = GELF_ST_BIND(sym.st_info) == STB_GLOBAL;
	}
}

static int reloc_cmp(const void *pa, const void *pb)
{
	const struct reloc_label *a = pa, *b = pb;

	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/*
 * The dynamic relocations that name a symbol (.rela.dyn, .rela.plt), by address: objdump
 * names a GOT slot by its symbol, and bfd a PLT entry by the slot's.
 */
static void read_relocs(struct builder *b, Elf *elf)
{
	struct versions v;

	versions_init(&v, elf);
	for (Elf_Scn *s = NULL; (s = elf_nextscn(elf, s));) {
		GElf_Shdr sh, dsh;
		Elf_Data *d, *syms;
		Elf_Scn *dyn;

		if (!gelf_getshdr(s, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize)
			continue;
		d = elf_getdata(s, NULL);
		dyn = elf_getscn(elf, sh.sh_link);
		if (!d || !dyn || !gelf_getshdr(dyn, &dsh) || dsh.sh_type != SHT_DYNSYM ||
		    !(syms = elf_getdata(dyn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			struct reloc_label *r;
			const char *name, *ver;
			GElf_Rela rela;
			GElf_Sym sym;
			bool hidden = false;

			if (!gelf_getrela(d, (int)i, &rela))
				continue;
			/* no symbol: bfd's absolute section symbol, which names nothing */
			memset(&sym, 0, sizeof(sym));
			sym.st_shndx = SHN_ABS;
			name = "*ABS*";
			if (GELF_R_SYM(rela.r_info)) {
				if (!gelf_getsym(syms, (int)GELF_R_SYM(rela.r_info), &sym))
					continue;
				name = elf_strptr(elf, dsh.sh_link, sym.st_name);
			}
			if (!name || !*name)
				continue;
			ver = GELF_R_SYM(rela.r_info) ?
				      dyn_version(elf, &v, GELF_R_SYM(rela.r_info),
						  sym.st_shndx == SHN_UNDEF, &hidden) : NULL;
			ARRAY_GROW(b->relocs, b->relocs_alloc, b->nr_relocs + 1);
			r = &b->relocs[b->nr_relocs++];
			r->addr = rela.r_offset;
			r->addend = rela.r_addend;
			r->value = sym.st_value;
			r->abs = sym.st_shndx == SHN_ABS;
			r->undef = sym.st_shndx == SHN_UNDEF;
			r->plain = pool_add(b, name, NULL, NULL);
			r->name = ver ? pool_add(b, name, hidden ? "@" : "@@", ver) : r->plain;
		}
	}
	if (b->nr_relocs)
		qsort(b->relocs, b->nr_relocs, sizeof(*b->relocs), reloc_cmp);
}

static const struct reloc_label *find_reloc(const struct reloc_label *v, size_t nr, u64 addr)
{
	struct reloc_label key = { .addr = addr };

	return nr ? bsearch(&key, v, nr, sizeof(*v), reloc_cmp) : NULL;
}

/*
 * bfd's synthetic `name@plt` symbols (elf_x86_64_get_synthetic_symtab): every entry of
 * .plt, .plt.sec and .plt.got whose `jmp *disp(%rip)` goes through a GOT slot with a
 * relocation naming a symbol.
 */
static void read_plt(struct builder *b, Elf *elf)
{
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return;
	for (Elf_Scn *s = NULL; (s = elf_nextscn(elf, s));) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;
		u64 step;

		if (!gelf_getshdr(s, &sh) || sh.sh_type != SHT_PROGBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || (strcmp(name, ".plt") && strcmp(name, ".plt.sec") &&
			      strcmp(name, ".plt.got")))
			continue;
		d = elf_getdata(s, NULL);
		step = !strcmp(name, ".plt.got") && sh.sh_entsize == 8 ? 8 : 16;
		for (u64 off = 0; d && off + step <= d->d_size; off += step) {
			const u8 *e = (const u8 *)d->d_buf + off;
			const struct reloc_label *rel;
			struct raw_label *r;
			char *target, addend[40];
			s32 disp;
			u64 i = 0, got;

			if (e[0] == 0xf3 && e[1] == 0x0f && e[2] == 0x1e && e[3] == 0xfa)
				i = 4;	/* endbr64 */
			if (e[i] == 0xf2)
				i++;	/* bnd */
			if (i + 6 > step || e[i] != 0xff || e[i + 1] != 0x25)
				continue;
			memcpy(&disp, e + i + 2, 4);
			got = sh.sh_addr + off + i + 6 + (u64)(s64)disp;
			rel = find_reloc(b->relocs, b->nr_relocs, got);
			if (!rel)
				continue;
			/* bfd: the symbol's name, "+0x" and a nonzero addend, "@plt" */
			if (rel->addend)
				snprintf(addend, sizeof(addend), "+0x%llx@plt",
					 (unsigned long long)rel->addend);
			target = xstrdup(b->pool + rel->plain);	/* the pool moves as it grows */
			r = add(b);
			r->l.addr = sh.sh_addr + off;
			r->l.name = (const char *)(uintptr_t)pool_add(b, target, "",
								     rel->addend ? addend : "@plt");
			r->bare_len = strlen(b->pool + (uintptr_t)r->l.name);
			r->synthetic = true;
			free(target);
			r->l.section = (u32)elf_ndxscn(s);
			r->global = true;
		}
	}
}

static bool file_symbol(const char *n)
{
	size_t len = strlen(n);

	return len > 2 && n[len - 2] == '.' && (n[len - 1] == 'o' || n[len - 1] == 'a');
}

static const char *pool;	/* for the comparison (qsort has no context) */

/* objdump.c compare_symbols */
static int compare(const void *pa, const void *pb)
{
	const struct raw_label *a = pa, *b = pb;
	const char *an = pool + (uintptr_t)a->l.name, *bn = pool + (uintptr_t)b->l.name;
	bool af, bf;
	int c;

	if (a->l.addr != b->l.addr)
		return a->l.addr < b->l.addr ? -1 : 1;
	af = strstr(an, "gnu_compiled") || strstr(an, "gcc2_compiled");
	bf = strstr(bn, "gnu_compiled") || strstr(bn, "gcc2_compiled");
	if (af != bf)
		return af ? 1 : -1;
	af = file_symbol(an);
	bf = file_symbol(bn);
	if (af != bf)
		return af ? 1 : -1;
	if (a->function != b->function)
		return a->function ? -1 : 1;
	if (a->object != b->object)
		return a->object ? -1 : 1;
	if (a->local != b->local)
		return a->local ? 1 : -1;
	if (a->global != b->global)
		return a->global ? -1 : 1;
	if (a->size != b->size)
		return a->size > b->size ? -1 : 1;
	if ((an[0] == '.') != (bn[0] == '.'))
		return an[0] == '.' ? 1 : -1;
	c = memcmp(an, bn, a->bare_len < b->bare_len ? a->bare_len : b->bare_len);
	if (c)
		return c;
	if (a->bare_len != b->bare_len)
		return a->bare_len < b->bare_len ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

int labels__load(struct labels *l, Elf *elf)
{
	struct builder b = { 0 };
	GElf_Shdr sh;
	Elf_Scn *scn;

	memset(l, 0, sizeof(*l));
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		return -1;
	scn = section_of_type(elf, SHT_SYMTAB, &sh);
	if (scn)
		read_symbols(&b, elf, scn, &sh, false);
	if (!b.nr && (scn = section_of_type(elf, SHT_DYNSYM, &sh)))
		read_symbols(&b, elf, scn, &sh, true);
	read_relocs(&b, elf);
	read_plt(&b, elf);

	pool = b.pool;
	if (b.nr)
		qsort(b.v, b.nr, sizeof(*b.v), compare);
	l->v = xmalloc((b.nr ? b.nr : 1) * sizeof(*l->v));
	for (size_t i = 0; i < b.nr; i++) {
		l->v[i] = b.v[i].l;
		l->v[i].synthetic = b.v[i].synthetic;
		l->v[i].name = b.pool + (uintptr_t)b.v[i].l.name;
	}
	l->nr = b.nr;
	l->pool = b.pool;
	l->relocs = b.relocs;
	l->nr_relocs = b.nr_relocs;
	free(b.v);
	return 0;
}

void labels__exit(struct labels *l)
{
	free(l->v);
	free(l->relocs);
	free(l->pool);
	memset(l, 0, sizeof(*l));
}

const struct label *labels__find(const struct labels *l, u64 addr, u32 sec)
{
	size_t lo = 0, hi = l->nr, i;

	if (!l->nr)
		return NULL;
	if (l->v[0].addr > addr)	/* objdump names it by the first symbol, less an offset */
		return &l->v[0];
	while (lo + 1 < hi) {
		size_t mid = (lo + hi) / 2;

		if (l->v[mid].addr > addr)
			hi = mid;
		else
			lo = mid;
	}
	i = lo;
	while (i > 0 && l->v[i - 1].addr == l->v[i].addr)
		i--;
	/* of equal addresses, one in the section asked for */
	for (size_t j = i; sec && j < l->nr && l->v[j].addr == l->v[i].addr; j++)
		if (l->v[j].section == sec)
			return &l->v[j];
	return &l->v[i];
}

void labels__format(const struct labels *l, u64 addr, u32 sec, char *buf, size_t size)
{
	const struct label *lb = labels__find(l, addr, sec);
	const struct reloc_label *r;

	/*
	 * find_symbol_for_address: not at a symbol (nor a synthetic one's range), an address
	 * with a dynamic relocation of a symbol (not an absolute one) is named by that symbol,
	 * with the offset from its value unless it is undefined
	 */
	if (lb && lb->addr != addr && !lb->synthetic &&
	    (r = find_reloc(l->relocs, l->nr_relocs, addr)) && !r->abs) {
		if (r->undef || r->value == addr)
			snprintf(buf, size, "%s", l->pool + r->name);
		else if (r->value > addr)
			snprintf(buf, size, "%s-0x%llx", l->pool + r->name,
				 (unsigned long long)(r->value - addr));
		else
			snprintf(buf, size, "%s+0x%llx", l->pool + r->name,
				 (unsigned long long)(addr - r->value));
	} else if (!lb)
		snprintf(buf, size, "%s", "");
	else if (lb->addr == addr)
		snprintf(buf, size, "%s", lb->name);
	else if (lb->addr > addr)
		snprintf(buf, size, "%s-0x%llx", lb->name, (unsigned long long)(lb->addr - addr));
	else
		snprintf(buf, size, "%s+0x%llx", lb->name, (unsigned long long)(addr - lb->addr));
}

void labels__format_in(const struct labels *l, u64 addr, u32 sec, const char *sec_name,
		       u64 sec_addr, char *buf, size_t size)
{
	const struct label *before = NULL, *after = NULL;

	/* require_sec: the last label of the section at or before addr, else its first after */
	for (size_t i = 0; i < l->nr; i++) {
		if (l->v[i].section != sec)
			continue;
		if (l->v[i].addr <= addr) {
			if (!before || l->v[i].addr > before->addr)
				before = &l->v[i];
		} else if (!after) {
			after = &l->v[i];
		}
	}
	if (before && before->addr == addr)
		snprintf(buf, size, "%s", before->name);
	else if (before)
		snprintf(buf, size, "%s+0x%llx", before->name, (unsigned long long)(addr - before->addr));
	else if (after)
		snprintf(buf, size, "%s-0x%llx", after->name, (unsigned long long)(after->addr - addr));
	else if (addr > sec_addr)	/* no symbol: the section's name */
		snprintf(buf, size, "%s+0x%llx", sec_name, (unsigned long long)(addr - sec_addr));
	else
		snprintf(buf, size, "%s", sec_name);
}

const char *labels__at(const struct labels *l, u64 addr, u32 sec)
{
	const struct label *lb = labels__find(l, addr, sec);

	return lb && lb->addr == addr ? lb->name : NULL;
}
