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

#include "lib/hashmap.h"
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
};

struct inline_node {
	size_t nr;
	const char **names;	/* NULL entries: the frame's own symbol */
};

struct inlines {
	const struct symsrc_config *cfg;
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

static void node_free(struct inline_node *node)
{
	for (size_t i = 0; i < node->nr; i++)
		free((char *)node->names[i]);
	free(node->names);
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
static int candidate(const struct symsrc_config *cfg, const struct dso *dso, int i, char *buf,
		     size_t size)
{
	const char *debug_dir = symsrc_debug_dir(cfg);
	char hex[2 * sizeof(dso->build_id) + 1];

	for (size_t j = 0; j < dso->build_id_size && j < sizeof(dso->build_id); j++)
		sprintf(hex + 2 * j, "%02x", dso->build_id[j]);
	switch (i) {
	case 0:
	case 1:
		if (!dso->build_id_size || !cfg->buildid_dir)
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
		if (!dso->build_id_size)
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

	if (dso->kind != DSO_KIND_USER || dso->long_name[0] == '[' ||
	    !strncmp(dso->long_name, "/tmp/perf-", 10))
		return;
	for (int i = 0; i < 6 && (!id->elf || !have_text); i++) {
		int fd;
		Elf *elf;
		bool keep = false;

		if (candidate(in->cfg, dso, i, path, sizeof(path)) || !(elf = open_elf(path, &fd)))
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
	if (!id->elf && !(id->elf = open_elf(dso->long_name, &id->fd)))
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
 * BFD's name for the innermost function when its DWARF gives no linkage name: the ELF
 * symbol that best covers vaddr (elf_find_function's better_fit: the closest start, then
 * functions over others, typed over untyped, the smaller; the first of equals), when it
 * starts where the function does.
 */
static const char *symbol_at(struct inline_dso *id, u64 vaddr, u64 low_pc)
{
	GElf_Shdr shdr;
	Elf_Scn *scn = symtab_elf_section_by_name(id->elf, NULL, &shdr, ".symtab", NULL);
	Elf_Data *data;
	GElf_Sym best = { 0 };
	const char *name = NULL;
	bool have = false;
	size_t nr, shndx = 0;
	Elf_Scn *sec = NULL;

	if (!scn || !shdr.sh_entsize || !(data = elf_getdata(scn, NULL)))
		return NULL;
	/* the section holding vaddr */
	while ((sec = elf_nextscn(id->elf, sec)) != NULL) {
		GElf_Shdr s;

		if (gelf_getshdr(sec, &s) && (s.sh_flags & SHF_ALLOC) && vaddr >= s.sh_addr &&
		    vaddr < s.sh_addr + s.sh_size) {
			shndx = elf_ndxscn(sec);
			break;
		}
	}
	nr = shdr.sh_size / shdr.sh_entsize;
	for (size_t i = 0; i < nr; i++) {
		GElf_Sym sym;
		int type;
		u64 size;
		bool better;

		if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx != shndx)
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE)
			continue;
		size = sym.st_size ? sym.st_size : 1;
		if (sym.st_value > vaddr)
			continue;
		if (!have || sym.st_value > best.st_value) {
			better = true;
		} else if (sym.st_value < best.st_value) {
			better = false;
		} else if (best.st_value + (best.st_size ? best.st_size : 1) <= vaddr) {
			better = size > (best.st_size ? best.st_size : 1);
		} else if (sym.st_value + size <= vaddr) {
			better = false;
		} else {
			int bt = GELF_ST_TYPE(best.st_info);
			bool bf = bt == STT_FUNC || bt == STT_GNU_IFUNC, sf = type != STT_NOTYPE;

			if (bf != sf)
				better = sf;
			else
				better = size < (best.st_size ? best.st_size : 1);
		}
		if (better) {
			best = sym;
			name = elf_strptr(id->elf, shdr.sh_link, sym.st_name);
			have = true;
		}
	}
	return have && best.st_value == low_pc ? name : NULL;
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
		node->names[node->nr++] = strcmp(name, sym_name) ? xstrdup(name) : NULL;
		free(demangled);
	}
	return node;
}

size_t inlines__find(struct inlines *in, struct dso *dso, u64 addr, const char *sym_name,
		     const char *const **names)
{
	struct inline_dso *id = hashmap_find(&in->dsos, (u64)(uintptr_t)dso);
	struct inline_node *node;

	if (!id) {
		id = xzalloc(sizeof(*id));
		id->fd = -1;
		hashmap_init(&id->nodes);
		hashmap_insert(&in->dsos, (u64)(uintptr_t)dso, id);
		pthread_once(&elf_once, elf_init_once);
		inline_dso_open(in, id, dso);
	}
	if (!id->dwarf)
		return 0;
	node = hashmap_find(&id->nodes, addr);
	if (!node) {
		node = parse_inlines(id, addr + id->text_offset, sym_name);
		hashmap_insert(&id->nodes, addr, node);
	}
	*names = (const char *const *)node->names;
	return node->nr;
}
