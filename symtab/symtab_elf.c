/*
 * symtab_elf: user dsos and [vdso] as perf 6.1's dso__load() loads them: the candidate files
 * in perf's binary_type_symtab order (all under --symfs, all build-id checked), .symtab from
 * the first image that has one and .dynsym/program headers from the first that has .dynsym
 * (symtab_elf_syms.c reads the symbols), and /tmp/perf-PID.map files. Reads files only
 * through libelf or bounded reads; never writes.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/xalloc.h"
#include "symtab/symcache.h"
#include "symtab/symtab_elf.h"
#include "symtab/symtab_elf_internal.h"

#define BUILD_ID_MAX 20
#define PATH_BUF 4096

struct dso_id {
	const char *long_name;
	u8 bid[BUILD_ID_MAX];
	size_t bid_size;	/* 0: no build-id */
	bool vdso;
};

static pthread_once_t elf_once = PTHREAD_ONCE_INIT;

static void elf_init_once(void)
{
	elf_version(EV_CURRENT);
}

Elf_Scn *symtab_elf_section_by_name(Elf *elf, const GElf_Ehdr *ehdr, GElf_Shdr *shp,
				    const char *name, size_t *idx)
{
	GElf_Ehdr own;
	Elf_Scn *sec = NULL;
	size_t cnt = 1;

	if (!ehdr) {
		if (!gelf_getehdr(elf, &own))
			return NULL;
		ehdr = &own;
	}
	if (!elf_rawdata(elf_getscn(elf, ehdr->e_shstrndx), NULL))
		return NULL;
	while ((sec = elf_nextscn(elf, sec)) != NULL) {
		const char *str;

		if (!gelf_getshdr(sec, shp))
			return NULL;
		str = elf_strptr(elf, ehdr->e_shstrndx, shp->sh_name);
		if (str && !strcmp(name, str)) {
			if (idx)
				*idx = cnt;
			return sec;
		}
		cnt++;
	}
	return NULL;
}

/* perf's elf_read_build_id: the GNU note in .note.gnu.build-id, .notes or .note. */
static int elf_build_id(Elf *elf, u8 *bf)
{
	static const char *const names[] = { ".note.gnu.build-id", ".notes", ".note" };
	GElf_Ehdr ehdr;
	GElf_Shdr shdr;
	Elf_Scn *sec = NULL;
	Elf_Data *data;
	size_t off = 0;

	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &ehdr))
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(names) && !sec; i++)
		sec = symtab_elf_section_by_name(elf, &ehdr, &shdr, names[i], NULL);
	if (!sec || !(data = elf_getdata(sec, NULL)) || !data->d_buf)
		return -1;
	while (off + sizeof(GElf_Nhdr) <= data->d_size) {
		GElf_Nhdr nhdr;
		size_t namesz, descsz;
		const char *base = data->d_buf;

		memcpy(&nhdr, base + off, sizeof(nhdr));
		namesz = ALIGN_UP((size_t)nhdr.n_namesz, 4);
		descsz = ALIGN_UP((size_t)nhdr.n_descsz, 4);
		off += sizeof(nhdr);
		if (namesz > data->d_size - off)
			break;
		if (nhdr.n_type == NT_GNU_BUILD_ID && nhdr.n_namesz == 4 &&
		    !memcmp(base + off, "GNU", 4)) {
			size_t sz = MIN((size_t)BUILD_ID_MAX, descsz);

			off += namesz;
			if (sz > data->d_size - off)
				break;
			memset(bf, 0, BUILD_ID_MAX);
			memcpy(bf, base + off, sz);
			return (int)sz;
		}
		off += namesz;
		if (descsz > data->d_size - off)
			break;
		off += descsz;
	}
	return -1;
}

int symtab__filename_build_id(const char *path, u8 *bf)
{
	int fd = open(path, O_RDONLY), ret = -1;
	Elf *elf;

	if (fd < 0)
		return -1;
	pthread_once(&elf_once, elf_init_once);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf) {
		ret = elf_build_id(elf, bf);
		elf_end(elf);
	}
	close(fd);
	return ret;
}

int symtab__memory_build_id(const void *image, size_t size, u8 *bf)
{
	Elf *elf;
	int ret = -1;

	pthread_once(&elf_once, elf_init_once);
	elf = elf_memory((char *)image, size);
	if (elf) {
		ret = elf_build_id(elf, bf);
		elf_end(elf);
	}
	return ret;
}

/* perf's dso__build_id_equal: a 20-byte id also matches a shorter one padded with zeros. */
static bool build_id_equal(const struct dso_id *id, const u8 *bid, size_t size)
{
	if (id->bid_size > size && id->bid_size == BUILD_ID_MAX) {
		for (size_t i = size; i < id->bid_size; i++)
			if (id->bid[i])
				return false;
		return !memcmp(id->bid, bid, size);
	}
	return id->bid_size == size && !memcmp(id->bid, bid, size);
}

static void symsrc_destroy(struct symsrc *ss)
{
	if (ss->elf)
		elf_end(ss->elf);
	if (ss->fd >= 0)
		close(ss->fd);
	ss->elf = NULL;
	ss->fd = -1;
}

/* perf's symsrc__init: open, reject a mismatching build-id, find .symtab and .dynsym. */
static int symsrc_init(struct symsrc *ss, const struct dso_id *id, const char *name)
{
	memset(ss, 0, sizeof(*ss));
	ss->fd = open(name, O_RDONLY);
	if (ss->fd < 0)
		return -1;
	ss->elf = elf_begin(ss->fd, ELF_C_READ_MMAP, NULL);
	if (!ss->elf || elf_kind(ss->elf) != ELF_K_ELF || !gelf_getehdr(ss->elf, &ss->ehdr))
		goto fail;
	if (ss->ehdr.e_ident[EI_DATA] != ELFDATA2LSB && ss->ehdr.e_ident[EI_DATA] != ELFDATA2MSB)
		goto fail;
	if (id->bid_size) {
		u8 bid[BUILD_ID_MAX];
		int size = elf_build_id(ss->elf, bid);

		if (size <= 0 || !build_id_equal(id, bid, (size_t)size))
			goto fail;
	}
	ss->symtab = symtab_elf_section_by_name(ss->elf, &ss->ehdr, &ss->symshdr, ".symtab",
						NULL);
	if (ss->symtab && ss->symshdr.sh_type != SHT_SYMTAB)
		ss->symtab = NULL;
	ss->dynsym = symtab_elf_section_by_name(ss->elf, &ss->ehdr, &ss->dynshdr, ".dynsym",
						&ss->dynsym_idx);
	if (ss->dynsym && ss->dynshdr.sh_type != SHT_DYNSYM)
		ss->dynsym = NULL;
	return 0;
fail:
	symsrc_destroy(ss);
	return -1;
}

/* ---- candidate files: perf's binary_type_symtab order for a user dso ---- */

enum bin_type {
	BT_DEBUGLINK,
	BT_BUILD_ID_CACHE,
	BT_BUILD_ID_CACHE_DEBUGINFO,
	BT_FEDORA_DEBUGINFO,
	BT_UBUNTU_DEBUGINFO,
	BT_BUILDID_DEBUGINFO,
	BT_SYSTEM_PATH_DSO,
	BT_OPENEMBEDDED_DEBUGINFO,
	BT_MIXEDUP_UBUNTU_DEBUGINFO,
	BT_NR,
};

static void build_id_hex(const struct dso_id *id, char *hex)
{
	for (size_t i = 0; i < id->bid_size; i++)
		sprintf(hex + 2 * i, "%02x", id->bid[i]);
	hex[2 * id->bid_size] = '\0';
}

/* perf's dso__build_id_filename: DIR/.build-id/xx/rest, or its elf/debug/vdso file. */
static int build_id_cache_file(const struct symsrc_config *cfg, const struct dso_id *id,
			       bool debug, char *buf, size_t size)
{
	char hex[2 * BUILD_ID_MAX + 1], link[PATH_BUF];
	const char *base = id->vdso ? "vdso" : debug ? "debug" : "elf";

	if (!id->bid_size || !cfg->buildid_dir)
		return -1;
	build_id_hex(id, hex);
	snprintf(link, sizeof(link), "%s/.build-id/%.2s/%s", cfg->buildid_dir, hex, hex + 2);
	if (symtab_is_regular_file(link))
		return snprintf(buf, size, "%s", link) < (int)size ? 0 : -1;
	return snprintf(buf, size, "%s/%s", link, base) < (int)size ? 0 : -1;
}

/* symtab__dso_file and symtab__disassemble_file: in_symfs, the cache entry under symfs */
static int dso_file(const struct symsrc_config *cfg, const char *long_name, const u8 *build_id,
		    size_t build_id_size, bool in_symfs, char *buf, size_t size)
{
	struct dso_id id = { .long_name = long_name, .bid_size = MIN(build_id_size, BUILD_ID_MAX) };
	char entry[PATH_BUF];

	if (id.bid_size)
		memcpy(id.bid, build_id, id.bid_size);
	if (!build_id_cache_file(cfg, &id, false, entry, sizeof(entry)) &&
	    snprintf(buf, size, "%s%s", in_symfs && cfg->symfs ? cfg->symfs : "", entry) < (int)size &&
	    symtab_is_regular_file(buf))
		return 0;
	if (snprintf(buf, size, "%s%s", cfg->symfs ? cfg->symfs : "", long_name) >= (int)size)
		return -1;
	return symtab_is_regular_file(buf) ? 0 : -1;
}

int symtab__dso_file(const struct symsrc_config *cfg, const char *long_name, const u8 *build_id,
		     size_t build_id_size, char *buf, size_t size)
{
	return dso_file(cfg, long_name, build_id, build_id_size, false, buf, size);
}

int symtab__disassemble_file(const struct symsrc_config *cfg, const char *long_name,
			     const u8 *build_id, size_t build_id_size, char *buf, size_t size)
{
	return dso_file(cfg, long_name, build_id, build_id_size, true, buf, size);
}

/* perf's filename__read_debuglink: the string at the start of .gnu_debuglink. */
static int read_debuglink(const char *path, char *out, size_t size)
{
	int fd = open(path, O_RDONLY), ret = -1;
	Elf *elf;
	GElf_Ehdr ehdr;
	GElf_Shdr shdr;
	Elf_Scn *sec;
	Elf_Data *data;

	if (fd < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF && gelf_getehdr(elf, &ehdr) &&
	    (sec = symtab_elf_section_by_name(elf, &ehdr, &shdr, ".gnu_debuglink", NULL)) &&
	    (data = elf_getdata(sec, NULL)) && data->d_buf && data->d_size) {
		size_t n = strnlen(data->d_buf, MIN(data->d_size, size - 1));

		memcpy(out, data->d_buf, n);
		out[n] = '\0';
		ret = 0;
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

static int debuglink_file(const struct symsrc_config *cfg, const struct dso_id *id, char *buf,
			  size_t size)
{
	static const char *const fmts[] = { "%.0s%.0s%s", "%.0s%s/%s", "%.0s%s/.debug/%s",
					    "%s%s/%s" };
	const char *debug_dir = symsrc_debug_dir(cfg);
	char dir[PATH_BUF], link[PATH_BUF];
	char *slash;

	symtab_join_symfs(buf, size, cfg->symfs, id->long_name);
	snprintf(dir, sizeof(dir), "%s", buf);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	else
		dir[0] = '\0';
	if (!symtab_is_regular_file(buf) || read_debuglink(buf, link, sizeof(link)))
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(fmts); i++) {
		snprintf(buf, size, fmts[i], debug_dir, dir, link);
		if (symtab_is_regular_file(buf))
			return 0;
	}
	return -1;
}

/* perf's dso__read_binary_type_filename for the types a user dso tries. */
static int candidate_file(const struct symsrc_config *cfg, const struct dso_id *id,
			  enum bin_type type, char *buf, size_t size)
{
	const char *ln = id->long_name, *slash;
	char hex[2 * BUILD_ID_MAX + 1], tmp[PATH_BUF];

	switch (type) {
	case BT_DEBUGLINK:
		return debuglink_file(cfg, id, buf, size);
	case BT_BUILD_ID_CACHE:
		return build_id_cache_file(cfg, id, false, buf, size);
	case BT_BUILD_ID_CACHE_DEBUGINFO:
		return build_id_cache_file(cfg, id, true, buf, size);
	case BT_FEDORA_DEBUGINFO:
		snprintf(tmp, sizeof(tmp), "%s%s.debug", symsrc_debug_dir(cfg), ln);
		break;
	case BT_UBUNTU_DEBUGINFO:
		snprintf(tmp, sizeof(tmp), "%s%s", symsrc_debug_dir(cfg), ln);
		break;
	case BT_BUILDID_DEBUGINFO:
		if (!id->bid_size)
			return -1;
		build_id_hex(id, hex);
		snprintf(tmp, sizeof(tmp), "%s/.build-id/%.2s/%s.debug", symsrc_debug_dir(cfg), hex,
			 hex + 2);
		break;
	case BT_SYSTEM_PATH_DSO:
		snprintf(tmp, sizeof(tmp), "%s", ln);
		break;
	case BT_OPENEMBEDDED_DEBUGINFO:
		/* DIR/.debug/BASE */
		slash = strrchr(ln, '/');
		if (!slash)
			slash = ln;
		snprintf(tmp, sizeof(tmp), "%.*s.debug%s", (int)(slash - ln + 1), ln, slash);
		break;
	case BT_MIXEDUP_UBUNTU_DEBUGINFO:
		/* /usr/lib/X is looked for as /usr/lib/debug/lib/X */
		if (strncmp(ln, "/usr/lib/", 9))
			return -1;
		snprintf(tmp, sizeof(tmp), "%s%s", symsrc_debug_dir(cfg), ln + 4);
		break;
	default:
		return -1;
	}
	symtab_join_symfs(buf, size, cfg->symfs, tmp);
	return 0;
}

/* perf's dso__load_perf_map: "START SIZE NAME" lines (hex), no fixups. */
static int load_perf_map(struct symtab *st, const char *path)
{
	struct sym_builder b;
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t n = 0;
	ssize_t line_len;
	int nr = 0;

	if (!f)
		return -1;
	builder_init(&b, st);
	while ((line_len = getline(&line, &n, f)) > 0) {
		u64 start, size;
		char *end;
		size_t len;

		line[--line_len] = '\0';	/* perf drops the last byte, newline or not */
		start = strtoull(line, &end, 16);
		len = (size_t)(end - line) + 1;
		if ((ssize_t)len + 2 >= line_len)
			continue;
		size = strtoull(line + len, &end, 16);
		len = (size_t)(end - line) + 1;
		if ((ssize_t)len + 2 >= line_len)
			continue;
		builder_add(&b, start, size, SYM_BIND_GLOBAL, line + len, strlen(line + len));
		nr++;
	}
	free(line);
	fclose(f);
	builder_finish(&b);
	return nr;
}

static int load_user(struct symtab *st, const struct symsrc_config *cfg, struct dso_id *id)
{
	struct symsrc ss[2], *syms_ss = NULL, *runtime_ss = NULL;
	struct sym_builder b;
	char name[PATH_BUF];
	int pos = 0, ret;

	if (!id->bid_size && !id->vdso) {
		u8 bid[BUILD_ID_MAX];
		int size;

		/* perf tests the unprefixed path, then reads the symfs one */
		if (symtab_is_regular_file(id->long_name)) {
			symtab_join_symfs(name, sizeof(name), cfg->symfs, id->long_name);
			symcache_probe_file(name);
			size = symtab__filename_build_id(name, bid);
			if (size > 0) {
				memcpy(id->bid, bid, BUILD_ID_MAX);
				id->bid_size = (size_t)size;
			}
		}
	}
	for (int t = 0; t < BT_NR; t++) {
		bool keep = false;

		if (candidate_file(cfg, id, t, name, sizeof(name)))
			continue;
		if (!symtab_is_regular_file(name) || symsrc_init(&ss[pos], id, name))
			continue;
		if (!syms_ss && ss[pos].symtab) {
			syms_ss = &ss[pos];
			keep = true;
		}
		if (!runtime_ss && ss[pos].dynsym) {
			runtime_ss = &ss[pos];
			keep = true;
		}
		if (keep) {
			pos++;
			if (syms_ss && runtime_ss)
				break;
		} else {
			symsrc_destroy(&ss[pos]);
		}
	}
	if (!syms_ss && !runtime_ss)
		return -1;
	if (!syms_ss)
		syms_ss = runtime_ss;
	if (!runtime_ss)
		runtime_ss = syms_ss;
	builder_init(&b, st);
	ret = symtab_elf_load_syms(&b, syms_ss, runtime_ss);
	if (ret > 0)
		symtab_elf_synthesize_plt(&b, runtime_ss);
	/* the files go before the table is made: their mappings are not in its peak */
	while (pos > 0)
		symsrc_destroy(&ss[--pos]);
	builder_finish(&b);
	return 0;
}

/*
 * load_user through the symbol cache: the key is what is known before a file is read (the
 * recorded name and build-id, the search settings); the probes, every file the search looked
 * at, are checked by symcache__load. A table without symbols is not worth an index.
 */
static int load_user_cached(struct symtab *st, const struct symsrc_config *cfg,
			    struct dso_id *id)
{
	struct symcache_key key;
	int ret;

	symcache_key__init(&key, id->vdso ? "vdso" : "dso");
	symcache_key__add_str(&key, id->long_name);
	symcache_key__add(&key, id->bid, id->bid_size);
	symcache_key__add_str(&key, cfg->symfs);
	symcache_key__add_str(&key, cfg->buildid_dir);
	symcache_key__add_str(&key, symsrc_debug_dir(cfg));
	if (!symcache__load(cfg->cache, &key, st, NULL)) {
		symcache_key__exit(&key);
		return 0;
	}
	symcache_record(&key);
	ret = load_user(st, cfg, id);
	symcache_record(NULL);
	if (!ret && st->nr)
		symtab_defer_save(st, cfg->cache, &key, NULL);
	symcache_key__exit(&key);
	return ret;
}

int symtab__load_dso(struct symtab *st, const struct symsrc_config *cfg, enum dso_kind kind,
		     const char *long_name, const u8 *build_id, size_t build_id_size)
{
	struct dso_id id = { .long_name = long_name, .vdso = kind == DSO_KIND_VDSO };
	int ret;

	symtab_reset(st);
	symtab_pool_add(st, "", 0);
	if (kind == DSO_KIND_KERNEL)
		return symtab__load_kernel(st, cfg, build_id, build_id_size, 0, NULL);
	if (!long_name)
		return -1;
	pthread_once(&elf_once, elf_init_once);
	if (build_id && build_id_size) {
		id.bid_size = MIN(build_id_size, (size_t)BUILD_ID_MAX);
		memcpy(id.bid, build_id, id.bid_size);
	}
	if (!strncmp(long_name, "/tmp/perf-", 10)) {
		ret = load_perf_map(st, long_name);
		return ret < 0 ? -1 : 0;
	}
	ret = cfg->cache ? load_user_cached(st, cfg, &id) : load_user(st, cfg, &id);
	if (ret < 0) {
		symtab_reset(st);
		symtab_pool_add(st, "", 0);
	}
	return ret;
}
