/*
 * symtab: the symbol table of one dso, loaded the way perf 6.1 loads it for `perf report`
 * (symbol.c dso__load, symbol-elf.c dso__load_sym, dso__synthesize_plt_symbols,
 * __dso__load_kallsyms), and looked up with perf's symbols__find semantics.
 * Owns file lookup (build-id cache, debug dirs, symfs) and symbol fixups; knows nothing of
 * threads or maps beyond the kernel map facts documented below. Not thread safe per table;
 * distinct tables may be loaded concurrently.
 *
 * Address spaces (what symtab__find takes):
 *  - user dsos and [vdso]: perf's map__map_ip(), i.e. ip - map_start + map_pgoff (a file
 *    offset): ELF symbols are moved by (p_vaddr - p_offset) of the PT_LOAD holding them.
 *  - the kernel ([kernel.kallsyms]): absolute addresses (the kernel map's map_ip is the
 *    identity), moved into the recorded kernel's space when the kallsyms file's _text differs
 *    from the recorded one (the `[kernel.kallsyms]_text` MMAP's pgoff, perf's ref_reloc_sym).
 */
#ifndef SYMTAB_SYMTAB_H
#define SYMTAB_SYMTAB_H

#include "lib/compiler.h"

/* 16 bytes; the name lives in the table's pool. */
struct symbol {
	u64 start;	/* in the dso's symbol address space (see above) */
	u32 size;	/* end = start + size after perf's fixups; UINT32_MAX if larger (rare:
			   kallsyms gaps, broken ELF); symtab__find still uses the exact end */
	u32 name : 31;	/* offset into symtab->names */
	u32 object : 1;	/* a data symbol (perf's STT_OBJECT): report shows NAME+0xOFFSET */
};

/*
 * Lookup index, built only when symbols overlap (or have sizes that do not fit): the address
 * space cut into ranges, each naming the symbol perf's rb-tree walk (symbols__find) returns
 * there, so overlapping symbols resolve exactly as perf resolves them.
 */
struct symtab_range {
	u64 start;	/* the range runs to the next range's start */
	u32 sym;	/* index into syms, or UINT32_MAX for no symbol */
};

struct symtab_big_end {
	u32 sym;
	u64 end;
};

struct symtab {
	struct symbol *syms;	/* sorted by start (ties in perf's order), fixups applied,
				   duplicates removed as perf removes them */
	size_t nr;
	char *names;		/* one string pool; offset 0 is "" */
	size_t names_len, names_alloc;
	struct symtab_range *ranges;	/* NULL when the plain binary search is exact */
	size_t nr_ranges;
	struct symtab_big_end *big_ends;	/* exact ends of saturated sizes, by sym index */
	size_t nr_big_ends;
	void *map;		/* an index of the symbol cache these point into (symcache.h),
				   or NULL: the arrays are the table's own */
	size_t map_size;
	struct symtab_pending *pending;	/* the index to write for it (symtab__save), or NULL */
	bool inlined;		/* the fakes perf's new_inline_sym makes for the functions inlined
				   at callchain frames (each a function's start and size, another
				   name): shown "NAME (inlined)", told apart by name */
};

void symtab__init(struct symtab *st);
void symtab__exit(struct symtab *st);
/*
 * Write the index a load through the symbol cache left to write (nothing if none): called
 * once the table is published, so that the threads waiting for it need not wait for the
 * write too. Only reads the table.
 */
void symtab__save(struct symtab *st);
/* Append a symbol to a table that is not searched (symtab__find needs them sorted): its index. */
size_t symtab__append(struct symtab *st, u64 start, u32 size, const char *name);
/* perf's symbols__find: the symbol with start <= addr < end, or start == addr for a symbol
 * of size 0; NULL if none. O(log n). */
const struct symbol *symtab__find(const struct symtab *st, u64 addr);
/* The same, also giving [*span_lo, *span_hi): every address there finds the same symbol,
 * or none as addr does (callers cache it: samples come in runs in the same function, and
 * those of a dso without symbols in runs of the same addresses); it may be empty. */
const struct symbol *symtab__find_span(const struct symtab *st, u64 addr, u64 *span_lo,
				       u64 *span_hi);
static inline const char *symbol__name(const struct symtab *st, const struct symbol *s)
{
	/* bounded: a mapped index's body is not read in full before use (symcache.c) */
	return likely(s->name < st->names_len) ? st->names + s->name : "";
}
/* The exact end (first address after the symbol), also when size is saturated. */
u64 symtab__symbol_end(const struct symtab *st, const struct symbol *s);

enum dso_kind { DSO_KIND_USER, DSO_KIND_KERNEL, DSO_KIND_VDSO };

struct symsrc_config {
	const char *buildid_dir;	/* perf's --buildid-dir / $PERF_BUILDID_DIR / ~/.debug */
	const char *symfs;		/* --symfs, "" (or NULL) if none */
	const char *kallsyms;		/* --kallsyms FILE, or NULL */
	const char *debug_dir;		/* system debuginfo root; NULL for /usr/lib/debug (the
					   tests point it elsewhere with $ANALYZE_DEBUG_DIR) */
	struct symcache *cache;		/* the persistent symbol index, or NULL for none */
};

static inline const char *symsrc_debug_dir(const struct symsrc_config *cfg)
{
	return cfg->debug_dir ? cfg->debug_dir : "/usr/lib/debug";
}

/*
 * Load the symbols of one dso as perf 6.1 does for `perf report` (see symtab.c for the rules).
 * long_name is the recorded path ("[vdso]", "[kernel.kallsyms]" or a file path; a name
 * starting with "/tmp/perf-" is read as a JIT map). build_id may be NULL (size 0): then the
 * build-id is read from the file at symfs + long_name, as perf does. For the kernel this is
 * symtab__load_kernel() with no ref_reloc_sym and the map bounds discarded.
 * Returns 0 with st filled (possibly empty), or -1 if no symbol source was found (st empty).
 * Never crashes on broken input (truncated or non-ELF files, bad kallsyms lines).
 */
int symtab__load_dso(struct symtab *st, const struct symsrc_config *cfg, enum dso_kind kind,
		     const char *long_name, const u8 *build_id, size_t build_id_size);

/*
 * The file whose bytes are a user dso's code (perf's dso__data_fd, for AUX-trace decoding):
 * its build-id cache entry, else symfs + long_name, whose build-id perf does not check
 * there either. 0 with the path in buf, or -1.
 */
int symtab__dso_file(const struct symsrc_config *cfg, const char *long_name, const u8 *build_id,
		     size_t build_id_size, char *buf, size_t size);
/*
 * The file perf annotate disassembles (annotate.c dso__disassemble_filename): the build-id
 * cache entry under symfs, else symfs + long_name. 0 with the path in buf, or -1.
 */
int symtab__disassemble_file(const struct symsrc_config *cfg, const char *long_name,
			     const u8 *build_id, size_t build_id_size, char *buf, size_t size);

/* The kernel map after loading, as perf's map__fixup_start()/map__fixup_end() leave it. */
struct kernel_map_bounds {
	bool valid;	/* false: leave the map as the MMAP record made it */
	u64 start;	/* first symbol's start */
	u64 end;	/* last symbol's end (after symbols__fixup_end: the last kallsyms symbol
			   gets roundup(start, 4096) + 4096) */
};

/*
 * The kernel: --kallsyms FILE if given, else (no --symfs) the build-id cache's kallsyms,
 * or /proc/kallsyms when the build-id matches the running kernel (or none was recorded).
 * ref_reloc_addr is the pgoff of the `[kernel.kallsyms]_text` MMAP record (0 if unknown);
 * when nonzero, symbols move by the difference between the file's `_text` and it, and a file
 * without `_text` fails (perf's kallsyms__delta). bounds (may be NULL) receives the map fixup.
 */
int symtab__load_kernel(struct symtab *st, const struct symsrc_config *cfg, const u8 *build_id,
			size_t build_id_size, u64 ref_reloc_addr, struct kernel_map_bounds *bounds);

/* Load from one kallsyms text file only (no file search): for tools and tests. */
int symtab__load_kallsyms_file(struct symtab *st, const char *path, u64 ref_reloc_addr,
			       struct kernel_map_bounds *bounds);

/*
 * The GNU build-id note of an ELF file (or of an ELF image in memory, such as the [vdso]) into
 * bf (20 bytes, zero-padded): its size, or -1 when there is none.
 */
int symtab__filename_build_id(const char *path, u8 *bf);
int symtab__memory_build_id(const void *image, size_t size, u8 *bf);

/*
 * Whether path is a regular file. Directories found missing are remembered for the run: a
 * file below one is missing without a stat (thousands of dsos of another machine's paths).
 * Thread safe.
 */
bool symtab_is_regular_file(const char *path);
/* buf = symfs + path (perf's __symbol__join_symfs). */
void symtab_join_symfs(char *buf, size_t size, const char *symfs, const char *path);

#endif
