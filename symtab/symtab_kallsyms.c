/*
 * symtab_kallsyms: the kernel's symbols as perf 6.1's dso__load_kernel_sym() gets them from a
 * kallsyms file (kallsyms__parse, map__process_kallsym_symbol, kallsyms__delta,
 * symbols__fixup_end(.., true), symbols__fixup_duplicate, maps__split_kallsyms).
 * vmlinux images and kcore are not read (see symtab.h). Reads files only.
 */
#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symtab/symcache.h"
#include "symtab/symtab_internal.h"

#define KSYM_NAME_LEN 512	/* perf 6.1's tools/include/linux/kallsyms.h */
#define BUILD_ID_MAX 20

/* A buffered reader with perf's tools/lib/api/io.h semantics. */
struct kio {
	int fd;
	char buf[65536];
	size_t pos, len;
	bool eof;
};

static int __attribute__((noinline)) kio_refill(struct kio *io)
{
	ssize_t n;

	if (io->eof)
		return -1;
	n = read(io->fd, io->buf, sizeof(io->buf));
	if (n <= 0) {
		io->eof = true;
		return -1;
	}
	io->pos = 1;
	io->len = (size_t)n;
	return (unsigned char)io->buf[0];
}

static inline int kio_getc(struct kio *io)
{
	if (likely(io->pos < io->len))
		return (unsigned char)io->buf[io->pos++];
	return kio_refill(io);
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* io__get_hex: -2 if the first char is not hex (it is consumed), else the char after. */
static int kio_get_hex(struct kio *io, u64 *val)
{
	bool first = true;

	*val = 0;
	for (;;) {
		int ch = kio_getc(io), d;

		if (ch < 0)
			return ch;
		d = hex_digit((char)ch);
		if (d >= 0)
			*val = (*val << 4) | (u64)d;
		else if (first)
			return -2;
		else
			return ch;
		first = false;
	}
}

static void kio_skip_line(struct kio *io)
{
	int ch;

	do
		ch = kio_getc(io);
	while (ch >= 0 && ch != '\n');
}

typedef int (*ksym_cb)(void *arg, const char *name, char type, u64 start);

/* The next line, when it is whole in the buffer and ordinary; else nothing is consumed. */
static bool fast_line(struct kio *io, u64 *start, char *type, char *name)
{
	const char *p = io->buf + io->pos, *end = io->buf + io->len, *nl, *q;
	size_t len;
	u64 v = 0;
	int d;

	nl = memchr(p, '\n', (size_t)(end - p));
	if (!nl)
		return false;
	for (q = p; q < nl && (d = hex_digit(*q)) >= 0; q++)
		v = (v << 4) | (u64)d;
	if (q == p || nl - q < 3 || q[0] != ' ' || q[2] != ' ')
		return false;
	len = (size_t)(nl - (q + 3));
	if (len >= KSYM_NAME_LEN + 1)
		return false;
	*start = v;
	*type = q[1];
	memcpy(name, q + 3, len);
	name[len] = '\0';
	io->pos = (size_t)(nl + 1 - io->buf);
	return true;
}

/*
 * perf's kallsyms__parse. Quirks kept: a line whose first char is not hex makes the reader
 * skip to the end of the *next* line when that char was the newline (an empty line hides the
 * line after it); a name longer than KSYM_NAME_LEN + 1 is cut and its rest parsed as a line.
 */
static int kallsyms_parse(const char *path, void *arg, ksym_cb cb)
{
	struct kio *io = calloc(1, sizeof(*io));
	int err = 0;

	if (!io)
		return -1;
	io->fd = open(path, O_RDONLY);
	if (io->fd < 0) {
		free(io);
		return -1;
	}
	while (!io->eof) {
		u64 start;
		/* perf's buffer holds KSYM_NAME_LEN + 1 chars and writes its NUL past them */
		char type, name[KSYM_NAME_LEN + 2];
		size_t i;
		int ch;

		/*
		 * A whole, ordinary line in the buffer ("hex type name\n", a name shorter than
		 * the limit) is taken at once; anything else goes the char by char way below,
		 * which keeps perf's quirks.
		 */
		if (fast_line(io, &start, &type, name)) {
			err = cb(arg, name, type, start);
			if (err)
				break;
			continue;
		}
		if (kio_get_hex(io, &start) != ' ') {
			kio_skip_line(io);
			continue;
		}
		ch = kio_getc(io);
		type = (char)ch;
		if (kio_getc(io) != ' ') {
			kio_skip_line(io);
			continue;
		}
		for (i = 0; i < KSYM_NAME_LEN + 1; i++) {
			ch = kio_getc(io);
			if (ch < 0 || ch == '\n')
				break;
			name[i] = (char)ch;
		}
		name[i] = '\0';
		err = cb(arg, name, type, start);
		if (err)
			break;
	}
	close(io->fd);
	free(io);
	return err;
}

struct find_args {
	const char *name;
	u64 start;
};

static int find_cb(void *arg, const char *name, char type, u64 start)
{
	struct find_args *a = arg;

	(void)type;
	if (strcmp(name, a->name))
		return 0;
	a->start = start;
	return 1;
}

static int add_cb(void *arg, const char *name, char type, u64 start)
{
	struct sym_builder *b = arg;
	char t = (char)toupper((unsigned char)type);
	u8 binding;

	/* perf's symbol_type__filter: text, weak, data and bss; '$' names are ARM locals */
	if (t != 'T' && t != 'W' && t != 'D' && t != 'B')
		return 0;
	if (name[0] == '$')
		return 0;
	binding = type == 'W' ? SYM_BIND_WEAK :
		  isupper((unsigned char)type) ? SYM_BIND_GLOBAL : SYM_BIND_LOCAL;
	if (t == 'D' || t == 'B')	/* perf's kallsyms2elf_type */
		binding |= SYM_OBJECT;
	builder_add(b, start, 0, binding, name, strlen(name));
	return 0;
}

/*
 * Room for the file's symbols: a line is 20 bytes and its name (and module) on average; the
 * kernel does not say how long /proc/kallsyms is, so room for a large kernel's.
 */
static void kallsyms_reserve(struct sym_builder *b, const char *path)
{
	struct stat sb;

	if (!stat(path, &sb) && sb.st_size > 0)
		builder_reserve(b, (size_t)sb.st_size / 24 + 16, (size_t)sb.st_size / 2 + 4096);
	else
		builder_reserve(b, 1 << 18, 8 << 20);
}

int symtab__load_kallsyms_file(struct symtab *st, const char *path, u64 ref_reloc_addr,
			       struct kernel_map_bounds *bounds)
{
	struct sym_builder b;
	u64 delta = 0;
	u32 n, next, first = SYM_NIL, last = SYM_NIL;
	int err;

	if (bounds)
		bounds->valid = false;
	symtab_reset(st);
	symtab_pool_add(st, "", 0);
	builder_init(&b, st);
	kallsyms_reserve(&b, path);
	err = kallsyms_parse(path, &b, add_cb);
	if (err < 0)
		goto fail;
	/* kallsyms__delta: the file's _text against the recorded one */
	if (ref_reloc_addr) {
		struct find_args fa = { .name = "_text" };

		if (kallsyms_parse(path, &fa, find_cb) <= 0)
			goto fail;
		delta = fa.start - ref_reloc_addr;
	}
	builder_fixup_end(&b, true);
	builder_fixup_duplicate(&b);
	/*
	 * maps__split_kallsyms: module symbols ("name\t[mod]") move to their module's map; this
	 * table has no module maps, so they go, as do x86_64's entry trampoline symbols. The
	 * rest is moved by delta.
	 */
	for (n = builder_first(&b); n != SYM_NIL; n = next) {
		const char *name = builder_name(&b, n);

		next = builder_next(&b, n);
		if (strchr(name, '\t') || !strcmp(name, "__entry_SYSCALL_64_trampoline")) {
			builder_erase(&b, n);
			continue;
		}
		b.v[n].start -= delta;
		b.v[n].end -= delta;
		if (first == SYM_NIL)
			first = n;
		last = n;
	}
	if (bounds && first != SYM_NIL) {
		bounds->valid = true;
		bounds->start = b.v[first].start;
		bounds->end = b.v[last].end;
	}
	builder_finish(&b);
	return 0;
fail:
	builder_exit(&b);
	symtab_reset(st);
	symtab_pool_add(st, "", 0);
	return -1;
}

/* perf's sysfs__read_build_id on /sys/kernel/notes: the GNU build-id note. */
static int running_kernel_build_id(u8 *bid)
{
	u8 buf[4096];
	int fd = open("/sys/kernel/notes", O_RDONLY);
	ssize_t n;
	size_t off = 0;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	while (n > 0 && off + 12 <= (size_t)n) {
		u32 namesz, descsz, type;

		memcpy(&namesz, buf + off, 4);
		memcpy(&descsz, buf + off + 4, 4);
		memcpy(&type, buf + off + 8, 4);
		off += 12;
		namesz = ALIGN_UP(namesz, 4u);
		if (namesz > (size_t)n - off)
			break;
		if (type == 3 && namesz == 4 && !memcmp(buf + off, "GNU", 4)) {
			size_t sz = MIN((size_t)BUILD_ID_MAX, (size_t)descsz);

			off += namesz;
			if (sz > (size_t)n - off)
				break;
			memset(bid, 0, BUILD_ID_MAX);
			memcpy(bid, buf + off, sz);
			return (int)sz;
		}
		off += namesz;
		descsz = ALIGN_UP(descsz, 4u);
		if (descsz > (size_t)n - off)
			break;
		off += descsz;
	}
	return -1;
}

/*
 * The file dso__load_kernel_sym reads the kernel's symbols from into path: --kallsyms FILE if
 * given, else (no --symfs) /proc/kallsyms when no build-id was recorded or it is the running
 * kernel's, else the build-id cache's copy. -1 when there is none.
 */
static int kernel_source(const struct symsrc_config *cfg, const u8 *build_id,
			 size_t build_id_size, char *path, size_t size)
{
	char hex[2 * BUILD_ID_MAX + 1];
	u8 host[BUILD_ID_MAX];
	int host_size;

	if (cfg->kallsyms)
		return snprintf(path, size, "%s", cfg->kallsyms) < (int)size ? 0 : -1;
	/* dso__load_kernel_sym: no local files when a symfs was given */
	if (cfg->symfs && cfg->symfs[0])
		return -1;
	snprintf(path, size, "/proc/kallsyms");
	if (!build_id || !build_id_size)
		return 0;
	build_id_size = MIN(build_id_size, (size_t)BUILD_ID_MAX);
	host_size = running_kernel_build_id(host);
	/* dso__find_kallsyms: the running kernel's own table when the build-id matches */
	if (host_size > 0 &&
	    ((build_id_size == (size_t)host_size && !memcmp(build_id, host, build_id_size)) ||
	     (build_id_size == BUILD_ID_MAX && (size_t)host_size < build_id_size &&
	      !memcmp(build_id, host, (size_t)host_size) &&
	      !build_id[host_size])))
		return 0;
	if (!cfg->buildid_dir)
		return -1;
	for (size_t i = 0; i < build_id_size; i++)
		sprintf(hex + 2 * i, "%02x", build_id[i]);
	snprintf(path, size, "%s/[kernel.kallsyms]/%s/kallsyms", cfg->buildid_dir, hex);
	if (access(path, F_OK)) {
		snprintf(path, size, "%s/[kernel.kallsyms]/%s", cfg->buildid_dir, hex);
		if (access(path, F_OK))
			return -1;
	}
	return 0;
}

/*
 * A kallsyms file through the symbol cache: keyed by the file and the relocation, checked
 * against the file's identity, or for /proc's against the running kernel (its build-id, boot
 * and modules: KASLR moves every address at each boot).
 */
static int load_kallsyms_cached(struct symtab *st, struct symcache *cache, const char *path,
				u64 ref_reloc_addr, struct kernel_map_bounds *bounds)
{
	struct symcache_key key;
	struct kernel_map_bounds own;
	int ret;

	if (!bounds)
		bounds = &own;
	symcache_key__init(&key, "kallsyms");
	symcache_key__add_str(&key, path);
	symcache_key__add_u64(&key, ref_reloc_addr);
	if (!symcache__load(cache, &key, st, bounds)) {
		symcache_key__exit(&key);
		return 0;
	}
	symcache_record(&key);
	if (!strcmp(path, "/proc/kallsyms"))
		symcache_probe_kernel();
	else
		symcache_probe_file(path);
	symcache_record(NULL);
	ret = symtab__load_kallsyms_file(st, path, ref_reloc_addr, bounds);
	if (!ret)
		symtab_defer_save(st, cache, &key, bounds);
	symcache_key__exit(&key);
	return ret;
}

int symtab__load_kernel(struct symtab *st, const struct symsrc_config *cfg, const u8 *build_id,
			size_t build_id_size, u64 ref_reloc_addr, struct kernel_map_bounds *bounds)
{
	char path[4096];

	if (bounds)
		bounds->valid = false;
	if (kernel_source(cfg, build_id, build_id_size, path, sizeof(path))) {
		symtab_reset(st);
		symtab_pool_add(st, "", 0);
		return -1;
	}
	/* a pipe or a device reads differently each time: no probe can vouch for it */
	if (cfg->cache && (!strcmp(path, "/proc/kallsyms") || symtab_is_regular_file(path)))
		return load_kallsyms_cached(st, cfg->cache, path, ref_reloc_addr, bounds);
	return symtab__load_kallsyms_file(st, path, ref_reloc_addr, bounds);
}
