/*
 * symtab_elf_syms: a user dso's ELF symbols as perf 6.1 takes them (dso__load_sym,
 * dso__synthesize_plt_symbols), read with pread through small windows rather than libelf's
 * mapping of whole sections: libLLVM's .dynsym and .dynstr are 4 MB that would otherwise be
 * resident beside the table built from them. The inserts keep the symbol table's order (the
 * tree's shape, hence perf's answers, depends on it); the names follow in one pass over the
 * string table, in its order. Every read is bounded by its section, every section by the file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/xalloc.h"
#include "symtab/demangle.h"
#include "symtab/symtab_elf.h"
#include "symtab/symtab_elf_internal.h"

#define WINDOW (64u << 10)

/* ---- a section of the file, read through one window that moves (and grows for a string) ---- */

struct sec_reader {
	int fd;
	u64 off, size;	/* the section's bytes in the file */
	u8 *win;
	u64 win_lo;	/* the section offset of win[0] */
	size_t win_len, win_alloc;
};

/* false if the section's bytes are not all in the file (where libelf's elf_getdata fails) */
static bool sec_open(struct sec_reader *r, const struct symsrc *ss, const GElf_Shdr *shdr)
{
	struct stat sb;

	memset(r, 0, sizeof(*r));
	r->fd = ss->fd;
	if (shdr->sh_type == SHT_NOBITS)
		return true;	/* nothing in the file: no bytes to read */
	if (fstat(ss->fd, &sb) || shdr->sh_offset > (u64)sb.st_size ||
	    shdr->sh_size > (u64)sb.st_size - shdr->sh_offset)
		return false;
	r->off = shdr->sh_offset;
	r->size = shdr->sh_size;
	return true;
}

static void sec_close(struct sec_reader *r)
{
	free(r->win);
	r->win = NULL;
}

/* the window moved to pos: at least want bytes (if the section has them), WINDOW usually */
static bool sec_fill(struct sec_reader *r, u64 pos, size_t want)
{
	size_t len = (size_t)MIN((u64)MAX(want, (size_t)WINDOW), r->size - pos), got = 0;

	ARRAY_GROW(r->win, r->win_alloc, len);
	r->win_len = 0;
	while (got < len) {
		ssize_t n = pread(r->fd, r->win + got, len - got, (off_t)(r->off + pos + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		got += (size_t)n;
	}
	r->win_lo = pos;
	r->win_len = len;
	return true;
}

/* bytes [pos, pos + len) of the section, or NULL past its end or on a read error */
static const u8 *sec_bytes(struct sec_reader *r, u64 pos, size_t len)
{
	if (pos > r->size || len > r->size - pos)
		return NULL;
	if ((pos < r->win_lo || pos + len > r->win_lo + r->win_len) && !sec_fill(r, pos, len))
		return NULL;
	return r->win + (pos - r->win_lo);
}

/* the string at pos, or NULL if no NUL ends it inside the section (perf then has no name) */
static const char *sec_string(struct sec_reader *r, u64 pos)
{
	size_t want = 0;

	if (pos >= r->size)
		return NULL;
	for (;;) {
		if (pos >= r->win_lo && pos < r->win_lo + r->win_len) {
			const u8 *s = r->win + (pos - r->win_lo);
			size_t avail = r->win_len - (size_t)(pos - r->win_lo);

			if (memchr(s, '\0', avail))
				return (const char *)s;
			if (r->win_lo + r->win_len == r->size)
				return NULL;
			want = 2 * avail;
		}
		if (!sec_fill(r, pos, want))
			return NULL;
	}
}

/* One past the section's last NUL: a name starting at or after it has no end. */
static u64 sec_terminated_end(struct sec_reader *r)
{
	u64 hi = r->size;
	const u8 *p;

	if (!hi || !(p = sec_bytes(r, hi - 1, 1)))
		return 0;
	if (!*p)
		return hi;
	while (hi) {
		u64 lo = hi > WINDOW ? hi - WINDOW : 0;
		const u8 *z;

		if (!(p = sec_bytes(r, lo, (size_t)(hi - lo))))
			return 0;
		z = memrchr(p, '\0', (size_t)(hi - lo));
		if (z)
			return lo + (u64)(z - p) + 1;
		hi = lo;
	}
	return 0;
}

/* ---- symbol entries, translated by libelf from the file's class and byte order ---- */

struct sym_reader {
	struct sec_reader sec;
	Elf *elf;
	u64 nr;		/* the entries gelf_getsym would give: whole ones of the type's size */
	size_t fsize;	/* an entry's size in the file */
	u8 encoding;	/* ELFDATA2LSB or ELFDATA2MSB */
};

static bool sym_open(struct sym_reader *r, const struct symsrc *ss, const GElf_Shdr *shdr)
{
	if (!sec_open(&r->sec, ss, shdr))
		return false;
	r->elf = ss->elf;
	r->encoding = ss->ehdr.e_ident[EI_DATA];
	r->fsize = gelf_fsize(ss->elf, ELF_T_SYM, 1, EV_CURRENT);
	/* libelf gives a compressed section's header, not symbols: none to read */
	r->nr = !r->fsize || shdr->sh_flags & SHF_COMPRESSED ? 0 : r->sec.size / r->fsize;
	return true;
}

static bool sym_get(struct sym_reader *r, u64 idx, GElf_Sym *s)
{
	union {
		Elf32_Sym s32;
		Elf64_Sym s64;
	} u;
	Elf_Data src = { .d_type = ELF_T_SYM, .d_size = r->fsize, .d_version = EV_CURRENT };
	Elf_Data dst = { .d_buf = &u, .d_type = ELF_T_SYM, .d_size = sizeof(u),
			 .d_version = EV_CURRENT };

	if (idx >= r->nr || !(src.d_buf = (void *)sec_bytes(&r->sec, idx * r->fsize, r->fsize)) ||
	    !gelf_xlatetom(r->elf, &dst, &src, r->encoding))
		return false;
	if (r->fsize == sizeof(Elf64_Sym)) {
		*s = u.s64;	/* GElf_Sym is Elf64_Sym */
	} else {
		s->st_name = u.s32.st_name;
		s->st_value = u.s32.st_value;
		s->st_size = u.s32.st_size;
		s->st_info = u.s32.st_info;
		s->st_other = u.s32.st_other;
		s->st_shndx = u.s32.st_shndx;
	}
	return true;
}

/* ---- names given to nodes after the inserts, in string table order ---- */

#define NAME_PLT (1u << 31)	/* or'ed into a node: a PLT entry's "NAME@plt" */

struct name_req {
	u32 key;	/* the name's string table offset (a .dynsym index while PLT names wait) */
	u32 node;
};

struct name_reqs {
	struct name_req *v;
	size_t nr, alloc;
};

static void name_req_push(struct name_reqs *q, u32 key, u32 node)
{
	ARRAY_GROW(q->v, q->alloc, q->nr + 1);
	q->v[q->nr++] = (struct name_req){ .key = key, .node = node };
}

static int cmp_name_req(const void *a, const void *b)
{
	u32 x = ((const struct name_req *)a)->key, y = ((const struct name_req *)b)->key;

	return x < y ? -1 : x > y;
}

/* the pool offset of the name at off of strs, demangled; "NAME@plt" for a PLT entry */
static u32 pool_name(struct sym_builder *b, struct sec_reader *strs, u32 off, bool plt)
{
	const char *name = sec_string(strs, off);
	char *dem, buf[1024];
	u32 ret;

	if (!name)
		name = "";
	dem = symbol_demangle(name);
	if (dem)
		name = dem;
	if (plt) {
		/* perf formats into a 1024-byte buffer */
		snprintf(buf, sizeof(buf), "%s@plt", name);
		name = buf;
	}
	ret = symtab_pool_add(b->st, name, strlen(name));
	free(dem);
	return ret;
}

/* One pass over strs: each node its name; names shared in the string table shared in the pool. */
static void name_nodes(struct sym_builder *b, struct sec_reader *strs, struct name_reqs *q)
{
	u32 prev_key = 0, prev_kind = UINT32_MAX, prev_name = 0;

	if (q->nr)	/* v is NULL then, which qsort may not be given */
		qsort(q->v, q->nr, sizeof(*q->v), cmp_name_req);
	for (size_t i = 0; i < q->nr; i++) {
		u32 kind = q->v[i].node & NAME_PLT, n = q->v[i].node & ~NAME_PLT;

		if (q->v[i].key != prev_key || kind != prev_kind) {
			prev_key = q->v[i].key;
			prev_kind = kind;
			prev_name = pool_name(b, strs, prev_key, kind);
		}
		b->v[n].name = prev_name;
	}
	free(q->v);
	q->v = NULL;
	q->nr = q->alloc = 0;
}

/* ---- perf's filters ---- */

static const char *data_str(const Elf_Data *d, u64 off)
{
	const char *s;

	if (!d || !d->d_buf || off >= d->d_size)
		return NULL;
	s = (const char *)d->d_buf + off;
	return memchr(s, '\0', d->d_size - off) ? s : NULL;
}

/* Which ELF symbols perf keeps (elf_sym__is_function/_is_object/_is_label). */
static bool sym_is_label(const GElf_Sym *sym)
{
	int vis = GELF_ST_VISIBILITY(sym->st_other);

	return GELF_ST_TYPE(sym->st_info) == STT_NOTYPE && sym->st_name &&
	       sym->st_shndx != SHN_UNDEF && sym->st_shndx != SHN_ABS && vis != STV_HIDDEN &&
	       vis != STV_INTERNAL;
}

static bool sym_is_kept(const GElf_Sym *sym)
{
	int type = GELF_ST_TYPE(sym->st_info);

	return (type == STT_FUNC || type == STT_GNU_IFUNC || type == STT_OBJECT) && sym->st_name &&
	       sym->st_shndx != SHN_UNDEF;
}

/* perf's is_arm_mapping_symbol, on the name at off (one that ends inside the section) */
static bool is_arm_mapping_symbol(const GElf_Ehdr *ehdr, const struct sec_reader *strs, u64 off)
{
	u8 s[3];

	if (ehdr->e_machine != EM_ARM && ehdr->e_machine != EM_AARCH64)
		return false;
	/* a few bytes where they are: a window would read 64 KB for each symbol */
	if (strs->size - off < 3 ||
	    pread(strs->fd, s, 3, (off_t)(strs->off + off)) != 3)
		return false;
	return s[0] == '$' && s[1] && strchr("adtx", s[1]) && (s[2] == '\0' || s[2] == '.');
}

/* perf's elf_read_program_header: the PT_LOAD holding vaddr. */
static bool load_segment_of(Elf *elf, u64 vaddr, GElf_Phdr *phdr)
{
	size_t n;

	if (elf_getphdrnum(elf, &n))
		return false;
	for (size_t i = 0; i < n; i++) {
		u64 sz;

		if (!gelf_getphdr(elf, (int)i, phdr))
			return false;
		if (phdr->p_type != PT_LOAD)
			continue;
		sz = MAX(phdr->p_memsz, phdr->p_filesz);
		if (sz && vaddr >= phdr->p_vaddr && vaddr < phdr->p_vaddr + sz)
			return true;
	}
	return false;
}

/* perf keeps sym (of section index sym->st_shndx, in syms_ss's file): st_value adjusted */
static bool sym_place(GElf_Sym *sym, bool is_label, struct symsrc *syms_ss,
		      struct symsrc *runtime_ss, Elf_Data *secstrs_sym, Elf_Data *secstrs_run)
{
	Elf_Scn *sec = elf_getscn(syms_ss->elf, sym->st_shndx);
	Elf_Data *secstrs = secstrs_sym;
	GElf_Shdr sshdr;
	GElf_Phdr phdr;
	const char *secname;

	/* SHN_ABS and other special indices have no section: skipped (perf 6.1 keeps loading
	 * past libc's ABS version symbols such as GLIBC_2.2.5) */
	if (!sec || !gelf_getshdr(sec, &sshdr) || !(sshdr.sh_flags & SHF_ALLOC))
		return false;
	/* A debug file's NOBITS headers have no valid offsets: use the runtime image. */
	if (sshdr.sh_type == SHT_NOBITS) {
		sec = elf_getscn(runtime_ss->elf, sym->st_shndx);
		if (!sec || !gelf_getshdr(sec, &sshdr))
			return false;
		secstrs = secstrs_run;
	}
	if (is_label) {
		secname = data_str(secstrs, sshdr.sh_name);
		if (!secname || !strstr(secname, "text"))
			return false;
	}
	/* User dsos are always adjusted into map__map_ip()'s space. */
	if (!load_segment_of(runtime_ss->elf, sym->st_value, &phdr))
		return false;
	sym->st_value -= phdr.p_vaddr - phdr.p_offset;
	return true;
}

static Elf_Data *shstrtab(struct symsrc *ss)
{
	return elf_getdata(elf_getscn(ss->elf, ss->ehdr.e_shstrndx), NULL);
}

int symtab_elf_load_syms(struct sym_builder *b, struct symsrc *syms_ss, struct symsrc *runtime_ss)
{
	GElf_Shdr shdr = syms_ss->symshdr, strshdr;
	Elf_Scn *sec = syms_ss->symtab ? syms_ss->symtab : syms_ss->dynsym;
	Elf_Data *secstrs_run, *secstrs_sym;
	struct sym_reader syms;
	struct sec_reader strs;
	struct name_reqs q = { 0 };
	u64 nr_syms, named_end;
	int nr = 0;

	if (!syms_ss->symtab)
		shdr = syms_ss->dynshdr;
	if (!sec || !gelf_getshdr(elf_getscn(syms_ss->elf, shdr.sh_link), &strshdr) ||
	    !(secstrs_run = shstrtab(runtime_ss)) || !(secstrs_sym = shstrtab(syms_ss)) ||
	    !shdr.sh_entsize)
		return -1;
	if (!sym_open(&syms, syms_ss, &shdr))
		return -1;
	if (!sec_open(&strs, syms_ss, &strshdr)) {
		sec_close(&syms.sec);
		return -1;
	}
	nr_syms = shdr.sh_size / shdr.sh_entsize;
	/* demangled C++ names run about twice their mangled length */
	builder_reserve(b, nr_syms + 64, 2 * strs.size + 4096);
	named_end = sec_terminated_end(&strs);
	for (u64 idx = 0; idx < nr_syms; idx++) {
		GElf_Sym sym;
		bool is_label;

		if (!sym_get(&syms, idx, &sym))
			break;
		if (sym.st_name >= named_end)
			continue;	/* no name in the table: perf skips it */
		is_label = sym_is_label(&sym);
		if (!is_label && !sym_is_kept(&sym))
			continue;
		if (!sym_place(&sym, is_label, syms_ss, runtime_ss, secstrs_sym, secstrs_run) ||
		    is_arm_mapping_symbol(&syms_ss->ehdr, &strs, sym.st_name))
			continue;
		name_req_push(&q,
			      sym.st_name,
			      builder_add(b, sym.st_value, sym.st_size,
					  (u8)(GELF_ST_BIND(sym.st_info) |
					       (GELF_ST_TYPE(sym.st_info) == STT_OBJECT ? SYM_OBJECT
											: 0)),
					  "", 0));
		nr++;
	}
	sec_close(&syms.sec);
	name_nodes(b, &strs, &q);
	sec_close(&strs);
	if (nr > 0) {
		builder_fixup_end(b, false);
		builder_fixup_duplicate(b);
	}
	return nr;
}

/*
 * perf 6.1's dso__synthesize_plt_symbols: one "NAME@plt" per .rela.plt/.rel.plt entry, laid
 * out after a header of sh_entsize bytes in .plt, sh_entsize bytes each, at .plt's file
 * offset; no fixups are applied to them.
 */
int symtab_elf_synthesize_plt(struct sym_builder *b, struct symsrc *ss)
{
	Elf *elf = ss->elf;
	GElf_Shdr shdr_rel, shdr_plt, shdr_str;
	Elf_Scn *scn_rel;
	Elf_Data *reldata;
	struct sym_reader syms = { 0 };
	struct sec_reader strs = { 0 };
	struct name_reqs q = { 0 };
	u64 plt_offset, entry_size, header_size, nr_rel;
	int nr = 0;

	if (!ss->dynsym)
		return 0;
	scn_rel = symtab_elf_section_by_name(elf, &ss->ehdr, &shdr_rel, ".rela.plt", NULL);
	if (!scn_rel) {
		scn_rel = symtab_elf_section_by_name(elf, &ss->ehdr, &shdr_rel, ".rel.plt", NULL);
		if (!scn_rel)
			return 0;
	}
	if (shdr_rel.sh_link != ss->dynsym_idx ||
	    !symtab_elf_section_by_name(elf, &ss->ehdr, &shdr_plt, ".plt", NULL) ||
	    !(reldata = elf_getdata(scn_rel, NULL)) ||
	    !gelf_getshdr(elf_getscn(elf, ss->dynshdr.sh_link), &shdr_str) ||
	    !shdr_str.sh_size || !shdr_rel.sh_entsize)
		return 0;
	if (!sym_open(&syms, ss, &ss->dynshdr) || !sec_open(&strs, ss, &shdr_str))
		goto out;
	nr_rel = shdr_rel.sh_size / shdr_rel.sh_entsize;
	switch (ss->ehdr.e_machine) {
	case EM_ARM:
		header_size = 20;
		entry_size = 12;
		break;
	case EM_AARCH64:
		header_size = 32;
		entry_size = 16;
		break;
	case EM_SPARC:
		header_size = 48;
		entry_size = 12;
		break;
	case EM_SPARCV9:
		header_size = 128;
		entry_size = 32;
		break;
	default:
		header_size = entry_size = shdr_plt.sh_entsize;
		break;
	}
	plt_offset = shdr_plt.sh_offset + header_size;
	for (u64 i = 0; i < nr_rel; i++) {
		GElf_Rela rela;
		GElf_Rel rel;
		u64 info;

		if (shdr_rel.sh_type == SHT_RELA) {
			if (!gelf_getrela(reldata, (int)i, &rela))
				break;
			info = rela.r_info;
		} else if (shdr_rel.sh_type == SHT_REL) {
			if (!gelf_getrel(reldata, (int)i, &rel))
				break;
			info = rel.r_info;
		} else {
			break;
		}
		if (GELF_R_SYM(info) >= syms.nr)
			break;	/* where perf's gelf_getsym fails */
		name_req_push(&q, (u32)GELF_R_SYM(info),
			      builder_add(b, plt_offset, entry_size, SYM_BIND_GLOBAL, "", 0) |
				      NAME_PLT);
		plt_offset += entry_size;
		nr++;
	}
	/* the entries' symbols in .dynsym's order, then their names in .dynstr's */
	if (q.nr)
		qsort(q.v, q.nr, sizeof(*q.v), cmp_name_req);
	for (size_t i = 0; i < q.nr; i++) {
		GElf_Sym sym;

		q.v[i].key = sym_get(&syms, q.v[i].key, &sym) ? (u32)sym.st_name : UINT32_MAX;
	}
	name_nodes(b, &strs, &q);
out:
	free(q.v);
	sec_close(&syms.sec);
	sec_close(&strs);
	return nr;
}
