/*
 * inline: perf 6.1's append_inlines with libdw in place of its addr2line process. perf asks
 * addr2line only about files with a .debug_line section, at the pc's address in the file
 * (map__rip_2objdump: the offset plus .text's sh_addr - sh_offset), and takes its records
 * when the first names a function; the file is the one symbols came from (its
 * symsrc_filename: here the build-id cache's copy when it has a .symtab), else the dso's path.
 */
#include "machine/inline.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/containers/hashmap.h"
#include "lib/xalloc.h"
#include "machine/dso.h"
#include "symtab/demangle.h"
#include "symtab/symtab.h"
#include "symtab/symtab_elf.h"

#define PATH_BUF 4096
#define MAX_DEPTH 64	/* functions nested at one pc we look at */

struct inline_dso {
	int fd;
	Elf *elf;
	Dwarf *dwarf;	/* NULL: no .debug_line, perf asks nothing */
	u64 text_offset;	/* .text's sh_addr - sh_offset */
	struct hashmap nodes;	/* addr -> struct inline_node (cached answers) */
	struct hashmap lines;	/* addr -> srcline, or no_line (perf's dso->srclines) */
	bool full_path;		/* its inlines' (see inlines__set_full_path) */
};

struct inline_node {
	size_t nr;
	const char **names;	/* NULL entries: the frame's own symbol */
	const char **lines;	/* each record's "FILE:LINE", or NULL */
};

static char no_line[1];	/* a cached "no answer" */

struct inlines {
	const struct symsrc_config *cfg;
	bool full_path;	/* srclines' files with their directories */
	struct hashmap dsos;	/* struct dso * -> struct inline_dso */
};

static pthread_once_t elf_once = PTHREAD_ONCE_INIT;

static void elf_init_once(void)
{
	elf_version(EV_CURRENT);
}

struct inlines *inlines__new(const struct symsrc_config *cfg)
{
	struct inlines *in = xzalloc(sizeof(*in));

	in->cfg = cfg;
	hashmap_init(&in->dsos);
	return in;
}

void inlines__set_full_path(struct inlines *in, bool full)
{
	in->full_path = full;
}

static void node_free(struct inline_node *node)
{
	for (size_t i = 0; i < node->nr; i++) {
		free((char *)node->names[i]);
		free((char *)node->lines[i]);
	}
	free(node->names);
	free(node->lines);
	free(node);
}

void inlines__delete(struct inlines *in)
{
	u64 key;
	void *val;

	if (!in)
		return;
	for (size_t i = 0; hashmap_next(&in->dsos, &i, &key, &val);) {
		struct inline_dso *id = val;
		void *node;

		for (size_t j = 0; hashmap_next(&id->nodes, &j, &key, &node);)
			node_free(node);
		hashmap_exit(&id->nodes);
		for (size_t j = 0; hashmap_next(&id->lines, &j, &key, &node);)
			if (node != no_line)
				free(node);
		hashmap_exit(&id->lines);
		if (id->dwarf)
			dwarf_end(id->dwarf);
		if (id->elf)
			elf_end(id->elf);
		if (id->fd >= 0)
			close(id->fd);
		free(id);
	}
	hashmap_exit(&in->dsos);
	free(in);
}

/* path as an ELF file, or NULL */
static Elf *open_elf(const char *path, int *fd)
{
	struct stat sb;
	Elf *elf;

	if (stat(path, &sb) || !S_ISREG(sb.st_mode))
		return NULL;
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return NULL;
	elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF)
		return elf;
	if (elf)
		elf_end(elf);
	close(*fd);
	return NULL;
}

/*
 * The files perf's dso__load tries for a user dso's symbols, in its order (but the
 * debuglink): the build-id cache's copy and its debuginfo, the debug directory's, the path.
 */
static int candidate(const struct symsrc_config *cfg, const struct dso *dso, const u8 *bid,
		     size_t bid_size, int i, char *buf, size_t size)
{
	const char *debug_dir = symsrc_debug_dir(cfg);
	char hex[2 * sizeof(dso->build_id) + 1];

	for (size_t j = 0; j < bid_size && j < sizeof(dso->build_id); j++)
		sprintf(hex + 2 * j, "%02x", bid[j]);
	switch (i) {
	case 0:
	case 1:
		if (!bid_size || !cfg->buildid_dir)
			return -1;
		snprintf(buf, size, "%s/.build-id/%.2s/%s/%s", cfg->buildid_dir, hex, hex + 2,
			 i ? "debug" : "elf");
		return 0;
	case 2:
		snprintf(buf, size, "%s%s.debug", debug_dir, dso->long_name);
		return 0;
	case 3:
		snprintf(buf, size, "%s%s", debug_dir, dso->long_name);
		return 0;
	case 4:
		if (!bid_size)
			return -1;
		snprintf(buf, size, "%s/.build-id/%.2s/%s.debug", debug_dir, hex, hex + 2);
		return 0;
	case 5:
		if (cfg->symfs && cfg->symfs[0])
			snprintf(buf, size, "%s/%s", cfg->symfs, dso->long_name);
		else
			snprintf(buf, size, "%s", dso->long_name);
		return 0;
	}
	return -1;
}

/*
 * The file perf's dso__name() gives addr2line (its symsrc_filename: the first file with a
 * .symtab, else the dso's path), and .text's offset in the first file with a .dynsym (perf's
 * runtime image).
 */
static void inline_dso_open(struct inlines *in, struct inline_dso *id, const struct dso *dso)
{
	char path[PATH_BUF];
	GElf_Shdr shdr;
	bool have_text = false;
	u8 bid[sizeof(dso->build_id)];
	size_t bid_size = MIN(dso->build_id_size, sizeof(bid));

	if (dso->kind != DSO_KIND_USER || dso->long_name[0] == '[' ||
	    !strncmp(dso->long_name, "/tmp/perf-", 10))
		return;
	memcpy(bid, dso->build_id, bid_size);
	if (!bid_size && symtab_is_regular_file(dso->long_name)) {
		/* perf reads a build-id the recording did not give from the file (dso__load) */
		int n;

		symtab_join_symfs(path, sizeof(path), in->cfg->symfs, dso->long_name);
		n = symtab__filename_build_id(path, bid);
		bid_size = n > 0 ? MIN((size_t)n, sizeof(bid)) : 0;
	}
	for (int i = 0; i < 6 && (!id->elf || !have_text); i++) {
		int fd;
		Elf *elf;
		bool keep = false;

		if (candidate(in->cfg, dso, bid, bid_size, i, path, sizeof(path)) ||
		    !(elf = open_elf(path, &fd)))
			continue;
		if (!have_text && symtab_elf_section_by_name(elf, NULL, &shdr, ".dynsym", NULL)) {
			have_text = true;
			if (symtab_elf_section_by_name(elf, NULL, &shdr, ".text", NULL))
				id->text_offset = shdr.sh_addr - shdr.sh_offset;
		}
		if (!id->elf && symtab_elf_section_by_name(elf, NULL, &shdr, ".symtab", NULL)) {
			id->elf = elf;
			id->fd = fd;
			keep = true;
		}
		if (!keep) {
			elf_end(elf);
			close(fd);
		}
	}
	/*
	 * perf then takes the dso's path: here its build-id cache copy when there is one, the
	 * same bytes, so that a host's other build of the path does not answer
	 */
	for (int i = 0; i < 6 && !id->elf; i += 5) {
		if (!candidate(in->cfg, dso, bid, bid_size, i, path, sizeof(path)))
			id->elf = open_elf(path, &id->fd);
	}
	if (!id->elf)
		return;
	if (!symtab_elf_section_by_name(id->elf, NULL, &shdr, ".debug_line", NULL))
		return;
	id->dwarf = dwarf_begin_elf(id->elf, DWARF_C_READ, NULL);
}

/* BFD's name of a function: its linkage name (demangled by perf), else its name. */
static const char *die_name(Dwarf_Die *die, bool *linkage)
{
	Dwarf_Attribute attr;
	const char *name;

	name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
	*linkage = name != NULL;
	return name ? name : dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
}

/* BFD's non_mangled(): languages whose DW_AT_name is the linkage name. */
static bool non_mangled(int lang)
{
	switch (lang) {
	case DW_LANG_C89:
	case DW_LANG_C:
	case DW_LANG_Ada83:
	case DW_LANG_Cobol74:
	case DW_LANG_Cobol85:
	case DW_LANG_Fortran77:
	case DW_LANG_Pascal83:
	case DW_LANG_C99:
	case DW_LANG_Ada95:
	case DW_LANG_PLI:
	case DW_LANG_UPC:
	case DW_LANG_C11:
	case DW_LANG_Mips_Assembler:
		return true;
	}
	return false;
}

/*
 * BFD's elf_find_function over elf's symbol table section symsec (".symtab" or ".dynsym"):
 * the function symbol that best covers vaddr in its section (better_fit: the closest start,
 * then functions over others, typed over untyped, the smaller; the first of equals), its
 * name, and the file BFD names for it: the last STT_FILE symbol before it, when the
 * function is local or no symbol came between that file symbol and the first one.
 */
static bool elf_find_function(Elf *elf, const char *symsec, u64 vaddr, GElf_Sym *out,
			      const char **name, const char **file)
{
	enum { NOTHING_SEEN, SYMBOL_SEEN, FILE_AFTER_SYMBOL_SEEN } state = NOTHING_SEEN;
	GElf_Shdr shdr;
	Elf_Scn *scn = symtab_elf_section_by_name(elf, NULL, &shdr, symsec, NULL);
	Elf_Data *data;
	GElf_Sym best = { 0 };
	const char *last_file = NULL;
	bool have = false;
	size_t nr, shndx = 0;
	Elf_Scn *sec = NULL;

	*name = *file = NULL;
	if (!scn || !shdr.sh_entsize || !(data = elf_getdata(scn, NULL)))
		return false;
	/* the section holding vaddr */
	while ((sec = elf_nextscn(elf, sec)) != NULL) {
		GElf_Shdr sh;

		if (gelf_getshdr(sec, &sh) && (sh.sh_flags & SHF_ALLOC) && vaddr >= sh.sh_addr &&
		    vaddr < sh.sh_addr + sh.sh_size) {
			shndx = elf_ndxscn(sec);
			break;
		}
	}
	nr = shdr.sh_size / shdr.sh_entsize;
	for (size_t i = 1; i < nr; i++) {
		GElf_Sym sym;
		int type;
		u64 size, best_size = best.st_size ? best.st_size : 1;
		bool better;

		if (!gelf_getsym(data, (int)i, &sym))
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if (type == STT_FILE) {
			last_file = elf_strptr(elf, shdr.sh_link, sym.st_name);
			if (state == SYMBOL_SEEN)
				state = FILE_AFTER_SYMBOL_SEEN;
			continue;
		}
		if (state == NOTHING_SEEN)
			state = SYMBOL_SEEN;
		if ((type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE) ||
		    sym.st_shndx != shndx || sym.st_value > vaddr)
			continue;
		size = sym.st_size ? sym.st_size : 1;
		if (!have || sym.st_value > best.st_value) {
			better = true;
		} else if (sym.st_value < best.st_value) {
			better = false;
		} else if (best.st_value + best_size <= vaddr) {
			better = size > best_size;
		} else if (sym.st_value + size <= vaddr) {
			better = false;
		} else {
			int bt = GELF_ST_TYPE(best.st_info);
			bool bf = bt == STT_FUNC || bt == STT_GNU_IFUNC, sf = type != STT_NOTYPE;

			better = bf != sf ? sf : size < best_size;
		}
		if (better) {
			best = sym;
			*name = elf_strptr(elf, shdr.sh_link, sym.st_name);
			*file = last_file && (GELF_ST_BIND(sym.st_info) == STB_LOCAL ||
					      state != FILE_AFTER_SYMBOL_SEEN) ? last_file : NULL;
			have = true;
		}
	}
	*out = best;
	return have;
}

/*
 * BFD's name for the innermost function when its DWARF gives no linkage name: the ELF
 * symbol that best covers vaddr (elf_find_function), when it starts where the function does.
 */
static const char *symbol_at(struct inline_dso *id, u64 vaddr, u64 low_pc)
{
	GElf_Sym best;
	const char *name, *file;

	if (!elf_find_function(id->elf, ".symtab", vaddr, &best, &name, &file))
		return NULL;
	return best.st_value == low_pc ? name : NULL;
}

static u64 die_size(Dwarf_Die *die)
{
	Dwarf_Addr low, high;

	if (dwarf_lowpc(die, &low) || dwarf_highpc(die, &high) || high < low)
		return UINT64_MAX;
	return high - low;
}

/*
 * The functions (subprograms, inlined instances) whose ranges hold vaddr, outermost first;
 * of functions side by side over vaddr (an assembler's aliases), BFD takes the smallest, the
 * last of equals.
 */
static size_t dies_at(Dwarf_Die *parent, u64 vaddr, Dwarf_Die *out, size_t max, size_t depth)
{
	Dwarf_Die child, best;
	bool have = false;
	u64 best_size = 0;

	if (!max || depth > 64 || dwarf_child(parent, &child))
		return 0;
	do {
		int tag = dwarf_tag(&child);
		u64 size;

		if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
			continue;
		if (dwarf_haspc(&child, vaddr) <= 0)
			continue;
		size = die_size(&child);
		if (!have || size <= best_size) {
			best = child;
			best_size = size;
			have = true;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	if (have) {
		out[0] = best;
		return 1 + dies_at(&best, vaddr, out + 1, max - 1, depth + 1);
	}
	/* functions inside blocks, namespaces, classes */
	if (dwarf_child(parent, &child))
		return 0;
	do {
		int tag = dwarf_tag(&child);
		size_t n;

		if (tag == DW_TAG_lexical_block && dwarf_haspc(&child, vaddr) <= 0)
			continue;
		if (tag != DW_TAG_lexical_block && tag != DW_TAG_namespace &&
		    tag != DW_TAG_class_type && tag != DW_TAG_structure_type)
			continue;
		n = dies_at(&child, vaddr, out, max, depth + 1);
		if (n)
			return n;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

/*
 * "FILE:LINE" as perf makes it of addr2line's answer (srcline_from_fileline): FILE without
 * its directories, or with --full-source-path (full) as BFD names it, a relative one after
 * its unit's DW_AT_comp_dir (cudie; NULL: none); or NULL
 */
static char *file_line(const char *file, int line, bool full, Dwarf_Die *cudie)
{
	const char *base, *dir = NULL;
	Dwarf_Attribute attr;
	char *out;

	if (!file)
		return NULL;
	base = full ? NULL : strrchr(file, '/');
	if (full && cudie && *file != '/')
		dir = dwarf_formstring(dwarf_attr(cudie, DW_AT_comp_dir, &attr));
	if (asprintf(&out, "%s%s%s:%u", dir ? dir : "", dir ? "/" : "", base ? base + 1 : file,
		     (unsigned)line) < 0)
		return NULL;
	return out;
}

/* The name of file number file of cudie's line table ("<unknown>" for none), or NULL */
static const char *file_name(Dwarf_Files *files, size_t nfiles, size_t file)
{
	return file < nfiles ? dwarf_filesrc(files, file, NULL, NULL) : NULL;
}

/*
 * Whether the row at index i of lines still has the file register's initial value: file 1,
 * and no row before it in its sequence has another. BFD (binutils 2.40, perf's addr2line)
 * starts a DWARF 5 sequence on file 0, the CU's own file, not 1 (assemblers set the register
 * only when a row's file differs from it).
 */
static bool initial_file(Dwarf_Lines *lines, size_t i)
{
	while (i-- > 0) {
		Dwarf_Line *row = dwarf_onesrcline(lines, i);
		Dwarf_Files *files;
		size_t file;
		bool end;

		if (!row || dwarf_lineendsequence(row, &end) || end)
			return true;
		if (dwarf_line_file(row, &files, &file) || file != 1)
			return false;
	}
	return true;
}

/* addr2line's line for vaddr in the line table of cudie, or NULL */
static char *pc_line(Dwarf_Die *cudie, u64 vaddr, bool full)
{
	Dwarf_Line *line = dwarf_getsrc_die(cudie, vaddr);
	Dwarf_Lines *lines;
	Dwarf_Files *files;
	Dwarf_Die die;
	Dwarf_Half version = 0;
	size_t file, nfiles, nlines;
	int lineno = 0;

	if (!line || dwarf_line_file(line, &files, &file) ||
	    dwarf_getsrcfiles(cudie, &files, &nfiles))
		return NULL;
	if (dwarf_lineno(line, &lineno))
		lineno = 0;
	if (file == 1 && dwarf_cu_die(cudie->cu, &die, &version, NULL, NULL, NULL, NULL, NULL) &&
	    version >= 5 && !dwarf_getsrclines(cudie, &lines, &nlines)) {
		for (size_t i = 0; i < nlines; i++) {
			if (dwarf_onesrcline(lines, i) == line) {
				file = initial_file(lines, i) ? 0 : 1;
				break;
			}
		}
	}
	return file_line(file_name(files, nfiles, file), lineno, full, cudie);
}

/* where the inlined instance die was inlined (BFD's find_inliner_info), or NULL */
static char *call_site(Dwarf_Die *cudie, Dwarf_Die *die, bool full)
{
	Dwarf_Attribute attr;
	Dwarf_Files *files;
	Dwarf_Word file, line = 0;
	size_t nfiles;

	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &attr), &file) ||
	    dwarf_getsrcfiles(cudie, &files, &nfiles))
		return NULL;
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &attr), &line))
		line = 0;
	return file_line(file_name(files, nfiles, file), (int)line, full, cudie);
}

/* addr2line -i's records for vaddr: the innermost function first, out to the subprogram. */
static struct inline_node *parse_inlines(struct inline_dso *id, u64 vaddr, const char *sym_name)
{
	struct inline_node *node = xzalloc(sizeof(*node));
	Dwarf_Die cudie, dies[MAX_DEPTH];
	size_t n;

	if (!dwarf_addrdie(id->dwarf, vaddr, &cudie))
		return node;
	n = dies_at(&cudie, vaddr, dies, MAX_DEPTH, 0);
	for (size_t i = n; i-- > 0;) {
		bool linkage;
		const char *name = die_name(&dies[i], &linkage);
		char *demangled = NULL;
		Dwarf_Addr low;

		/*
		 * BFD names the innermost function after the ELF symbol that covers the pc
		 * when its name may not be the linkage name (C++ without one)
		 */
		if (i == n - 1 && name && !linkage && !non_mangled(dwarf_srclang(&cudie)) &&
		    !dwarf_lowpc(&dies[i], &low)) {
			const char *sym = symbol_at(id, vaddr, low);

			name = sym ? sym : name;
		}
		if (name && !strncmp(name, "_Z", 2))
			demangled = symbol_demangle(name);	/* perf's dso__demangle_sym */
		if (demangled)
			name = demangled;
		if (!name && !node->nr)
			break;	/* no function name for the pc: addr2line's "??", nothing added */
		name = name ? name : "??";
		node->names = xreallocarray(node->names, node->nr + 1, sizeof(*node->names));
		node->lines = xreallocarray(node->lines, node->nr + 1, sizeof(*node->lines));
		node->lines[node->nr] = i == n - 1 ? pc_line(&cudie, vaddr, id->full_path)
						   : call_site(&cudie, &dies[i + 1], id->full_path);
		node->names[node->nr++] = strcmp(name, sym_name) ? xstrdup(name) : NULL;
		free(demangled);
	}
	return node;
}

/* dso's file and DWARF, opened on the first question about it */
static struct inline_dso *inline_dso_get(struct inlines *in, struct dso *dso)
{
	struct inline_dso *id = hashmap_find(&in->dsos, (u64)(uintptr_t)dso);

	if (!id) {
		id = xzalloc(sizeof(*id));
		id->fd = -1;
		id->full_path = in->full_path;
		hashmap_init(&id->nodes);
		hashmap_init(&id->lines);
		hashmap_insert(&in->dsos, (u64)(uintptr_t)dso, id);
		pthread_once(&elf_once, elf_init_once);
		inline_dso_open(in, id, dso);
	}
	return id;
}

size_t inlines__find(struct inlines *in, struct dso *dso, u64 addr, const char *sym_name,
		     const char *const **names, const char *const **lines)
{
	struct inline_dso *id = inline_dso_get(in, dso);
	struct inline_node *node;

	if (!id->dwarf)
		return 0;
	node = hashmap_find(&id->nodes, addr);
	if (!node) {
		node = parse_inlines(id, addr + id->text_offset, sym_name);
		hashmap_insert(&id->nodes, addr, node);
	}
	*names = (const char *const *)node->names;
	if (lines)
		*lines = (const char *const *)node->lines;
	return node->nr;
}

/*
 * addr2line's answer for vaddr: the DWARF line table's row, else (BFD's elf_find_function)
 * the function symbol covering it with no line, "FILE:?" (FILE its STT_FILE symbol's name or
 * "??"), which perf reads as line 0; else "??:0", which perf takes for no answer.
 */
bool inlines__srcline(struct inlines *in, struct dso *dso, u64 addr, char *buf, size_t size)
{
	struct inline_dso *id = inline_dso_get(in, dso);
	u64 vaddr = addr + id->text_offset;
	Dwarf_Die cudie;
	GElf_Shdr shdr;
	GElf_Sym sym;
	const char *file, *name;
	char *line = hashmap_find(&id->lines, addr);

	if (!id->elf)
		return false;
	if (line)	/* asked before */
		goto out;
	if (id->dwarf && dwarf_addrdie(id->dwarf, vaddr, &cudie))
		line = pc_line(&cudie, vaddr, id->full_path);
	if (!line && elf_find_function(id->elf,
				       symtab_elf_section_by_name(id->elf, NULL, &shdr, ".symtab",
								  NULL) ? ".symtab" : ".dynsym",
				       vaddr, &sym, &name, &file))
		line = file_line(file ? file : "??", 0, id->full_path, NULL);
	hashmap_insert(&id->lines, addr, line ? line : no_line);
out:
	if (line == no_line || !line)
		return false;
	snprintf(buf, size, "%s", line);
	return true;
}
