/*
 * symcache: the persistent symbol index (see symcache.h): keys and probes, the file format,
 * mapping and checking an index, writing one atomically, and the cache directory's upkeep
 * (least recently used first out above the size cap). Never trusts a file it did not check.
 */
#include "symtab/symcache.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/containers/xxhash_inline.h"
#include "lib/xalloc.h"
#include "symtab/symcache_internal.h"
#include "symtab/symtab.h"

/*
 * An index file: the header, then at 8-byte aligned offsets the key, the probes, the symbols
 * (struct symbol), the name pool, the lookup ranges and the exact ends of saturated sizes,
 * all in the writer's byte order (another order is rejected, not converted).
 *
 * Two checksums: head_checksum covers the header, key and probes (what is read before an
 * index is used), checksum every byte (both fields taken as zero). The writer sets the file's
 * mtime to sealed_sec, a second before the write: any later change to the file through the
 * file system sets its mtime to the time of the change, so while the mtime is still
 * sealed_sec the body is as written and only the head is checked; otherwise every byte is.
 * So a warm load costs the same for ten symbols as for a million.
 */
#define SYMCACHE_MAGIC "ANZSYMIX"
#define SYMCACHE_VERSION 1
#define SYMCACHE_BYTE_ORDER 0x01020304u

struct symcache_header {
	char magic[8];
	u32 version, byte_order;
	u64 file_size;
	u64 checksum, head_checksum;
	u64 sealed_sec;
	u64 key_off, key_len;
	u64 probes_off, probes_len;
	u64 syms_off, nr_syms;
	u64 names_off, names_len;
	u64 ranges_off, nr_ranges;
	u64 big_ends_off, nr_big_ends;
	u64 bounds_valid, bounds_start, bounds_end;
};

struct symcache *symcache__new(const char *dir, u64 max_bytes)
{
	struct symcache *c = xzalloc(sizeof(*c));
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if (dir)
		c->dir = xstrdup(dir);
	else if (xdg && xdg[0] == '/')	/* the XDG spec: a relative value is ignored */
		c->dir = xasprintf("%s/analyze", xdg);
	else
		c->dir = xasprintf("%s/.cache/analyze", home && home[0] ? home : ".");
	c->max_bytes = max_bytes ? max_bytes : SYMCACHE_DEFAULT_MAX;
	pthread_mutex_init(&c->lock, NULL);
	return c;
}

void symcache__delete(struct symcache *c)
{
	if (!c)
		return;
	pthread_mutex_destroy(&c->lock);
	free(c->dir);
	free(c->log);
	free(c);
}

const char *symcache__dir(const struct symcache *c)
{
	return c->dir;
}

u64 symcache__max_bytes(const struct symcache *c)
{
	return c->max_bytes;
}

static u64 parse_size(const char *s)
{
	char *end;
	u64 v = strtoull(s, &end, 10);

	switch (*end) {
	case 'k': case 'K': return v << 10;
	case 'm': case 'M': return v << 20;
	case 'g': case 'G': return v << 30;
	default: return v;
	}
}

struct symcache *symcache__from_env(const char *dir, bool disabled)
{
	const char *env = getenv("ANALYZE_SYMBOL_CACHE"), *max = getenv("ANALYZE_SYMBOL_CACHE_MAX");
	const char *log = getenv("ANALYZE_SYMBOL_CACHE_LOG");
	struct symcache *c;

	if (disabled)
		return NULL;
	if (!dir && env && !strcmp(env, "off"))
		return NULL;
	c = symcache__new(dir ? dir : env && env[0] ? env : NULL, max ? parse_size(max) : 0);
	if (log && log[0])
		c->log = xstrdup(log);
	return c;
}

/* One line a cache event, appended whole (O_APPEND) so that concurrent runs do not mix. */
void cache_log(const struct symcache *c, const char *what, const char *path,
		      const char *why)
{
	char *line;
	int fd;

	if (!c->log)
		return;
	line = xasprintf("%s %s%s%s\n", what, path, why ? ": " : "", why ? why : "");
	fd = open(c->log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0) {
		if (write(fd, line, strlen(line)) < 0)
			(void)0;	/* a log that cannot be written is no reason to fail */
		close(fd);
	}
	free(line);
}

void cache_warn(struct symcache *c, const char *what, int err)
{
	if (!__atomic_exchange_n(&c->warned, true, __ATOMIC_RELAXED))
		fprintf(stderr, "analyze: symbol cache %s: %s %s; going on without it "
			"(--no-symbol-cache: not to try)\n", c->dir, what, strerror(err));
}

/* ---- the file format ---- */

/* The header as the checksums see it: their own fields zero. */
static struct symcache_header header_for_sum(const void *image)
{
	struct symcache_header h;

	memcpy(&h, image, sizeof(h));
	h.checksum = h.head_checksum = 0;
	return h;
}

/* XXH3 of every byte; its sections' bounds are checked by the caller for the head's. */
static u64 image_checksum(const void *image, size_t size)
{
	struct symcache_header h = header_for_sum(image);
	XXH3_state_t st;

	XXH3_64bits_reset(&st);
	XXH3_64bits_update(&st, &h, sizeof(h));
	XXH3_64bits_update(&st, (const u8 *)image + sizeof(h), size - sizeof(h));
	return XXH3_64bits_digest(&st);
}

/* XXH3 of the header, the key and the probes */
static u64 head_checksum(const struct symcache_header *h, const void *key, const void *probes)
{
	struct symcache_header z = *h;
	XXH3_state_t st;

	z.checksum = z.head_checksum = 0;
	XXH3_64bits_reset(&st);
	XXH3_64bits_update(&st, &z, sizeof(z));
	XXH3_64bits_update(&st, key, h->key_len);
	XXH3_64bits_update(&st, probes, h->probes_len);
	return XXH3_64bits_digest(&st);
}

static bool section_ok(u64 off, u64 nr, u64 size, u64 file_size);

void symcache_seal_image(void *image, size_t size)
{
	struct symcache_header *h = image;
	const u8 *base = image;

	if (size < sizeof(*h))
		return;
	if (section_ok(h->key_off, h->key_len, 1, size) &&
	    section_ok(h->probes_off, h->probes_len, 1, size))
		h->head_checksum = head_checksum(h, base + h->key_off, base + h->probes_off);
	h->checksum = image_checksum(image, size);
}

static bool section_ok(u64 off, u64 nr, u64 size, u64 file_size)
{
	return off % 8 == 0 && off <= file_size && nr <= (file_size - off) / size;
}

/*
 * The checks of an image; body_sealed: its mtime says its body is as written, and only the
 * head's checksum is computed. Lookups stay inside the mapping whatever the body holds
 * (symtab.c bounds names and range indexes), so a body is never read in full here.
 */
static int map_image(const void *image, size_t size, bool body_sealed, struct symtab *st,
		     struct kernel_map_bounds *bounds, const char **why)
{
	const u8 *base = image;
	struct symcache_header h;
	const char *names;

	*why = NULL;
	if (size < sizeof(h)) {
		*why = "truncated header";
		return -1;
	}
	memcpy(&h, image, sizeof(h));
	if (memcmp(h.magic, SYMCACHE_MAGIC, sizeof(h.magic)))
		*why = "not an index";
	else if (h.byte_order != SYMCACHE_BYTE_ORDER)
		*why = "another byte order";
	else if (h.version != SYMCACHE_VERSION)
		*why = "another version";
	else if (h.file_size != size)
		*why = "truncated or grown";
	else if (!section_ok(h.key_off, h.key_len, 1, size) ||
		 !section_ok(h.probes_off, h.probes_len, 1, size) ||
		 !section_ok(h.syms_off, h.nr_syms, sizeof(struct symbol), size) ||
		 !section_ok(h.names_off, h.names_len, 1, size) ||
		 !section_ok(h.ranges_off, h.nr_ranges, sizeof(struct symtab_range), size) ||
		 !section_ok(h.big_ends_off, h.nr_big_ends, sizeof(struct symtab_big_end), size) ||
		 h.nr_syms >= UINT32_MAX || h.names_len == 0 || h.names_len > UINT32_MAX)
		*why = "bad layout";
	else if (head_checksum(&h, base + h.key_off, base + h.probes_off) != h.head_checksum)
		*why = "head checksum mismatch";
	else if (!body_sealed && image_checksum(image, size) != h.checksum)
		*why = "checksum mismatch";
	if (*why)
		return -1;
	names = (const char *)base + h.names_off;
	if (names[0] || names[h.names_len - 1]) {
		*why = "bad name pool";
		return -1;
	}
	memset(st, 0, sizeof(*st));
	st->syms = (struct symbol *)(base + h.syms_off);
	st->nr = h.nr_syms;
	st->names = (char *)names;
	st->names_len = h.names_len;
	st->ranges = h.nr_ranges ? (struct symtab_range *)(base + h.ranges_off) : NULL;
	st->nr_ranges = h.nr_ranges;
	st->big_ends = h.nr_big_ends ? (struct symtab_big_end *)(base + h.big_ends_off) : NULL;
	st->nr_big_ends = h.nr_big_ends;
	if (bounds) {
		bounds->valid = h.bounds_valid != 0;
		bounds->start = h.bounds_start;
		bounds->end = h.bounds_end;
	}
	return 0;
}

int symcache_map_image(const void *image, size_t size, struct symtab *st,
		       struct kernel_map_bounds *bounds, const char **why)
{
	return map_image(image, size, false, st, bounds, why);
}

/*
 * An index's pieces, in file order, written from where they are (a table's arrays run to
 * megabytes: a copy of them would cost as many fresh pages); zeros pad each to 8 bytes.
 */
struct index_pieces {
	struct symcache_header h;
	struct { const void *p; size_t len; } v[14];	/* 7 pieces, a pad after each */
	int nr;
	struct symtab_range *ranges;	/* copies with zeroed padding, not heap garbage */
	struct symtab_big_end *big_ends;
};

static void piece(struct index_pieces *x, const void *p, size_t len, u64 *off_field)
{
	static const u8 zeros[8];
	size_t off = x->h.file_size;

	*off_field = off;
	x->v[x->nr].p = p;
	x->v[x->nr++].len = len;
	off += len;
	if (off % 8) {
		x->v[x->nr].p = zeros;
		x->v[x->nr++].len = 8 - off % 8;
		off = ALIGN_UP(off, (size_t)8);
	}
	x->h.file_size = off;
}

static void index_pieces(struct index_pieces *x, const struct symcache_key *key,
			 const struct symtab *st, const struct kernel_map_bounds *bounds)
{
	struct symcache_header *h = &x->h;
	XXH3_state_t sum;
	u64 unused;

	memset(x, 0, sizeof(*x));
	memcpy(h->magic, SYMCACHE_MAGIC, sizeof(h->magic));
	h->version = SYMCACHE_VERSION;
	h->byte_order = SYMCACHE_BYTE_ORDER;
	h->file_size = 0;
	piece(x, h, sizeof(*h), &unused);
	x->ranges = xcalloc(st->nr_ranges + 1, sizeof(*x->ranges));
	for (size_t i = 0; i < st->nr_ranges; i++) {
		x->ranges[i].start = st->ranges[i].start;
		x->ranges[i].sym = st->ranges[i].sym;
	}
	x->big_ends = xcalloc(st->nr_big_ends + 1, sizeof(*x->big_ends));
	for (size_t i = 0; i < st->nr_big_ends; i++) {
		x->big_ends[i].sym = st->big_ends[i].sym;
		x->big_ends[i].end = st->big_ends[i].end;
	}
	piece(x, key->bytes, key->len, &h->key_off);
	piece(x, key->probes, key->probes_len, &h->probes_off);
	piece(x, st->syms, st->nr * sizeof(struct symbol), &h->syms_off);
	piece(x, st->names, st->names_len, &h->names_off);
	piece(x, x->ranges, st->nr_ranges * sizeof(struct symtab_range), &h->ranges_off);
	piece(x, x->big_ends, st->nr_big_ends * sizeof(struct symtab_big_end), &h->big_ends_off);
	h->key_len = key->len;
	h->probes_len = key->probes_len;
	h->nr_syms = st->nr;
	h->names_len = st->names_len;
	h->nr_ranges = st->nr_ranges;
	h->nr_big_ends = st->nr_big_ends;
	if (bounds && bounds->valid) {
		h->bounds_valid = 1;
		h->bounds_start = bounds->start;
		h->bounds_end = bounds->end;
	}
	h->sealed_sec = (u64)time(NULL) - 1;
	h->head_checksum = head_checksum(h, key->bytes, key->probes);
	/* image_checksum's value, from the pieces: the header first, its checksums zero */
	XXH3_64bits_reset(&sum);
	for (int i = 0; i < x->nr; i++) {
		if (!x->v[i].len)
			continue;
		if (x->v[i].p == h) {
			struct symcache_header z = header_for_sum(h);

			XXH3_64bits_update(&sum, &z, sizeof(z));
		} else {
			XXH3_64bits_update(&sum, x->v[i].p, x->v[i].len);
		}
	}
	h->checksum = XXH3_64bits_digest(&sum);
}

/* Write the pieces to fd: 0, or an errno. */
static int write_pieces(int fd, const struct index_pieces *x)
{
	for (int i = 0; i < x->nr; i++) {
		const u8 *p = x->v[i].p;
		size_t done = 0, len = x->v[i].len;

		while (done < len) {
			ssize_t n = write(fd, p + done, len - done);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				return n < 0 ? errno : ENOSPC;
			done += (size_t)n;
		}
	}
	return 0;
}

/* ---- the cache directory ---- */

static char *index_path(const struct symcache *c, const struct symcache_key *key)
{
	XXH128_hash_t h = XXH3_128bits(key->bytes, key->len);

	return xasprintf("%s/%016llx%016llx" SYMCACHE_SUFFIX, c->dir,
			 (unsigned long long)h.high64, (unsigned long long)h.low64);
}

int symcache__load(struct symcache *c, const struct symcache_key *key, struct symtab *st,
		   struct kernel_map_bounds *bounds)
{
	char *path = index_path(c, key);
	const char *why = NULL;
	struct symtab mapped;
	struct kernel_map_bounds found;
	struct stat sb;
	void *map = MAP_FAILED;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	const u8 *base;

	if (fd < 0 || fstat(fd, &sb) || !S_ISREG(sb.st_mode) ||
	    sb.st_size < (off_t)sizeof(struct symcache_header)) {
		cache_log(c, "miss", path, NULL);
		goto fail;
	}
	map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		why = "cannot map";
		goto fail;
	}
	if (map_image(map, (size_t)sb.st_size,
		      sb.st_mtim.tv_nsec == 0 &&
		      (u64)sb.st_mtim.tv_sec == ((const struct symcache_header *)map)->sealed_sec,
		      &mapped, &found, &why))
		goto fail;
	base = map;
	{
		const struct symcache_header *h = map;

		if (h->key_len != key->len || memcmp(base + h->key_off, key->bytes, key->len)) {
			why = "another key";
			goto fail;
		}
		if (!symcache_probes_hold(base + h->probes_off, h->probes_len, &why))
			goto fail;
	}
	/* least recently used goes first: mark the use in the atime (the mtime is the seal), at
	   most once a minute */
	if (sb.st_atime + 60 < time(NULL))
		futimens(fd, (struct timespec[2]){ { .tv_nsec = UTIME_NOW },
						   { .tv_nsec = UTIME_OMIT } });
	close(fd);
	symtab__exit(st);
	*st = mapped;
	st->map = map;
	st->map_size = (size_t)sb.st_size;
	if (bounds)
		*bounds = found;
	cache_log(c, "hit", path, NULL);
	free(path);
	return 0;
fail:
	if (why)
		cache_log(c, "bad", path, why);
	if (map != MAP_FAILED)
		munmap(map, (size_t)sb.st_size);
	if (fd >= 0)
		close(fd);
	free(path);
	return -1;
}

void symcache__store(struct symcache *c, const struct symcache_key *key, const struct symtab *st,
		     const struct kernel_map_bounds *bounds)
{
	static u32 seq;
	struct index_pieces x;
	char *path, *tmp;
	int fd, err;

	if (__atomic_load_n(&c->warned, __ATOMIC_RELAXED))
		return;	/* the directory refused one: a full disk would refuse them all */
	path = index_path(c, key);
	tmp = xasprintf("%s.tmp.%d.%u", path, (int)getpid(),
			__atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED));
	index_pieces(&x, key, st, bounds);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 && errno == ENOENT && !symcache_make_dirs(c->dir))
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		cache_warn(c, "cannot write an index:", errno);
		goto out;
	}
	err = write_pieces(fd, &x);
	/*
	 * The seal (see the format; a file system that cannot keep it costs a full check), and
	 * the bytes on the disk before the name: a crash cannot leave a sealed, damaged index.
	 */
	if (!err)
		futimens(fd, (struct timespec[2]){ { .tv_nsec = UTIME_NOW },
						   { .tv_sec = (time_t)x.h.sealed_sec } });
	if (!err && fdatasync(fd))
		err = errno;
	if (close(fd) && !err)
		err = errno;
	/* whole or not at all: readers see the old index or the new, never part of one */
	if (err || rename(tmp, path)) {
		cache_warn(c, "cannot write an index:", err ? err : errno);
		unlink(tmp);
		goto out;
	}
	cache_log(c, "write", path, NULL);
	symcache_account(c, ALIGN_UP(x.h.file_size, 4096ull), path);
out:
	free(x.ranges);
	free(x.big_ends);
	free(tmp);
	free(path);
}
