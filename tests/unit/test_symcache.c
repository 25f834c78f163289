/*
 * symcache unit tests: the persistent symbol index (symtab/symcache.h) gives back the table it
 * was written from (the fixtures' kallsyms files and ELF files), rejects every changed, cut or
 * grown image, stays in bounds on any image whose checksum was resealed, follows its probes,
 * keeps its directory under its cap and serves threads storing and loading at once.
 * Fixtures are found from the source tree's root (where make runs the unit tests).
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "symtab/symcache.h"
#include "symtab/symtab.h"

/* An assertion for hot loops: criterion reports every cr_assert, passed or not. */
#define CHECK(cond, ...)                         \
	do {                                     \
		if (!(cond))                     \
			cr_assert_fail(__VA_ARGS__); \
	} while (0)

#define FIX "tests/fixtures"
#define BID_CACHE FIX "/buildid-cache"
/* two workloads of the fixtures, from the build-id cache */
#define BURN_BID "9765dc2649f23a1dbab71e24d8d2b99326fc3cdd"
#define BURN_ELF BID_CACHE "/tmp/analyze-fixtures/burn/" BURN_BID "/elf"
#define SORTER_ELF BID_CACHE "/tmp/analyze-fixtures/sorter/67d58c640de1d59bf0e5caab5673b32dd1c468f3/elf"

static char tmpdir[256];

static void setup(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/symcache-test-XXXXXX");
	cr_assert_not_null(mkdtemp(tmpdir));
	cr_assert_eq(access(FIX "/callchain/kallsyms", R_OK), 0,
		     "the unit tests run from the source tree's root (no " FIX ")");
}

static void teardown(void)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	(void)!system(cmd);
}

TestSuite(symcache, .init = setup, .fini = teardown, .timeout = 120);

/* ---- helpers ---- */

/* A path in the test's directory (eight at a time: copy one kept longer). */
static char *in_tmp(const char *name)
{
	static char bufs[8][512];
	static int next;
	char *b = bufs[next++ % 8];

	snprintf(b, sizeof(bufs[0]), "%s/%s", tmpdir, name);
	return b;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

static void write_bytes(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	cr_assert_eq(fwrite(data, 1, size, f), size);
	cr_assert_eq(fclose(f), 0);
}

/* A file's bytes in a buffer of exactly its size (malloc: 16-byte aligned; ASan sees past it). */
static u8 *read_all(const char *path, size_t *size)
{
	struct stat sb;
	u8 *buf;
	FILE *f = fopen(path, "r");

	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	cr_assert_eq(fstat(fileno(f), &sb), 0);
	*size = (size_t)sb.st_size;
	buf = malloc(*size ? *size : 1);
	cr_assert_eq(fread(buf, 1, *size, f), *size);
	fclose(f);
	return buf;
}

static void copy_file(const char *from, const char *to)
{
	size_t size;
	u8 *b = read_all(from, &size);

	write_bytes(to, b, size);
	free(b);
}

static void mkdirs(const char *path)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", path);
	cr_assert_eq(system(cmd), 0);
}

/* The index files (NAME.sym) of dir, sorted; their count. */
static size_t index_files(const char *dir, char names[][64], size_t max)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t nr = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (len > 4 && !strcmp(de->d_name + len - 4, ".sym") && nr < max)
			snprintf(names[nr++], 64, "%.63s", de->d_name);
	}
	closedir(d);
	qsort(names, nr, 64, (int (*)(const void *, const void *))strcmp);
	return nr;
}

/* The one index file of dir: its path. */
static char *only_index(const char *dir)
{
	static char path[600];
	char names[4][64];

	cr_assert_eq(index_files(dir, names, 4), 1, "%s holds %zu indexes, not 1", dir,
		     index_files(dir, names, 4));
	snprintf(path, sizeof(path), "%s/%s", dir, names[0]);
	return path;
}

/* Bytes the index files of dir take on disk (what the cap counts). */
static u64 index_bytes(const char *dir)
{
	char names[64][64], path[600];
	size_t nr = index_files(dir, names, 64);
	u64 total = 0;
	struct stat sb;

	for (size_t i = 0; i < nr; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (!stat(path, &sb))
			total += (u64)sb.st_blocks * 512;
	}
	return total;
}

/* The access time (what the cap's least-recently-used order counts) and the mtime. */
static void set_times(const char *path, time_t atime, time_t mtime)
{
	struct timespec ts[2] = { { .tv_sec = atime }, { .tv_sec = mtime } };

	cr_assert_eq(utimensat(AT_FDCWD, path, ts, 0), 0, "%s: %s", path, strerror(errno));
}

static void set_mtime(const char *path, time_t t)
{
	struct timespec ts[2] = { { .tv_sec = t }, { .tv_sec = t } };

	cr_assert_eq(utimensat(AT_FDCWD, path, ts, 0), 0, "%s: %s", path, strerror(errno));
}

/*
 * A kallsyms file through the cache, as symtab_kallsyms.c's loader goes (key: kind, path and
 * relocation; probe: the file): 1 when the index was used, 0 when the table was built (and
 * stored), -1 when the file did not load.
 */
static int kallsyms_cached(struct symcache *c, const char *kind, const char *path, u64 reloc,
			   struct symtab *st, struct kernel_map_bounds *bounds)
{
	struct symcache_key key;
	int ret;

	symcache_key__init(&key, kind);
	symcache_key__add_str(&key, path);
	symcache_key__add_u64(&key, reloc);
	if (!symcache__load(c, &key, st, bounds)) {
		symcache_key__exit(&key);
		return 1;
	}
	symcache_record(&key);
	symcache_probe_file(path);
	symcache_record(NULL);
	ret = symtab__load_kallsyms_file(st, path, reloc, bounds);
	if (!ret)
		symcache__store(c, &key, st, bounds);
	symcache_key__exit(&key);
	return ret ? -1 : 0;
}

/* A kallsyms file with symbols in every shape a table keeps: an 8 GB gap (a saturated size,
   so big_ends and the range index), duplicates, a module symbol (dropped), one-letter names. */
static const char small_kallsyms[] =
	"0000000000001000 T _text\n"
	"0000000000001000 T _stext\n"
	"0000000000001040 t a\n"
	"0000000000001040 t a_dup\n"
	"0000000000001080 T far_before_gap\n"
	"0000000200001000 T after_gap\n"
	"0000000200001010 W w\n"
	"0000000200001010 t w_alias_with_a_rather_long_name_to_make_the_pool_grow\n"
	"0000000200002000 t mod_sym\t[some_module]\n"
	"0000000200003000 D data_thing\n"
	"0000000200003100 T last\n";

static char *small_kallsyms_file(void)
{
	char *p = in_tmp("small.kallsyms");

	write_text(p, small_kallsyms);
	return p;
}

/* ---- comparing tables ---- */

/* Addresses worth a lookup in st: around every symbol's start and end and every range's
   start, the extremes, and a spread over the table's span. Returns a malloc'd array. */
static u64 *probe_addresses(const struct symtab *st, size_t *nr_out)
{
	size_t nr = 0, alloc = st->nr * 9 + st->nr_ranges * 3 + 600;
	u64 *v = malloc(alloc * sizeof(*v)), lo = UINT64_MAX, hi = 0, x = 0x9e3779b97f4a7c15ull;
	static const u64 fixed[] = { 0, 1, 0x1000, UINT64_MAX, UINT64_MAX - 1, 1ull << 63,
				     0xffffffff80000000ull };

	for (size_t i = 0; i < st->nr; i++) {
		const struct symbol *s = &st->syms[i];
		u64 end = symtab__symbol_end(st, s);

		v[nr++] = s->start - 1;
		v[nr++] = s->start;
		v[nr++] = s->start + 1;
		v[nr++] = s->start + (end - s->start) / 2;
		v[nr++] = end - 1;
		v[nr++] = end;
		v[nr++] = end + 1;
		lo = MIN(lo, s->start);
		hi = MAX(hi, end);
	}
	for (size_t i = 0; i < st->nr_ranges; i++) {
		v[nr++] = st->ranges[i].start - 1;
		v[nr++] = st->ranges[i].start;
		v[nr++] = st->ranges[i].start + 1;
	}
	for (size_t i = 0; i < ARRAY_SIZE(fixed); i++)
		v[nr++] = fixed[i];
	for (int i = 0; i < 512 && lo <= hi; i++) {
		u64 span = hi - lo + 0x200;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		v[nr++] = lo - 0x100 + (span ? x % span : x);
	}
	*nr_out = nr;
	return v;
}

/* NULL when a and b are the same table and answer every lookup alike; else what differs. */
static const char *tables_differ(const struct symtab *a, const struct symtab *b)
{
	static __thread char why[256];
	size_t nr;
	u64 *addrs;

	if (a->nr != b->nr)
		return "symbol counts differ";
	if (a->names_len != b->names_len || memcmp(a->names, b->names, a->names_len))
		return "name pools differ";
	if (a->nr_ranges != b->nr_ranges || !a->ranges != !b->ranges)
		return "range indexes differ";
	if (a->nr_big_ends != b->nr_big_ends)
		return "big ends differ";
	for (size_t i = 0; i < a->nr; i++) {
		const struct symbol *x = &a->syms[i], *y = &b->syms[i];

		if (x->start != y->start || x->size != y->size || x->object != y->object ||
		    strcmp(symbol__name(a, x), symbol__name(b, y)) ||
		    symtab__symbol_end(a, x) != symtab__symbol_end(b, y)) {
			snprintf(why, sizeof(why), "symbol %zu (%s) differs", i, symbol__name(a, x));
			return why;
		}
	}
	for (size_t i = 0; i < a->nr_ranges; i++)
		if (a->ranges[i].start != b->ranges[i].start || a->ranges[i].sym != b->ranges[i].sym)
			return "ranges differ";
	addrs = probe_addresses(a, &nr);
	for (size_t i = 0; i < nr; i++) {
		u64 alo = 0, ahi = 0, blo = 0, bhi = 0;
		const struct symbol *x = symtab__find_span(a, addrs[i], &alo, &ahi);
		const struct symbol *y = symtab__find_span(b, addrs[i], &blo, &bhi);

		/* a span, found or not, holds the address and finds the same at both ends (or is
		 * empty: a lookup caches nothing then) */
		bool spans_hold = (alo == ahi || (alo <= addrs[i] && addrs[i] < ahi &&
						  symtab__find(a, alo) == x &&
						  symtab__find(a, ahi - 1) == x)) &&
				  (blo == bhi || (blo <= addrs[i] && addrs[i] < bhi &&
						  symtab__find(b, blo) == y &&
						  symtab__find(b, bhi - 1) == y));

		if (!x != !y || (x && (x - a->syms != y - b->syms || alo != blo || ahi != bhi)) ||
		    symtab__find(a, addrs[i]) != x || symtab__find(b, addrs[i]) != y ||
		    !spans_hold) {
			snprintf(why, sizeof(why), "lookups of %#llx differ: %s against %s",
				 (unsigned long long)addrs[i], x ? symbol__name(a, x) : "none",
				 y ? symbol__name(b, y) : "none");
			free(addrs);
			return why;
		}
	}
	free(addrs);
	return NULL;
}

static void assert_same_table(const struct symtab *want, const struct symtab *got)
{
	const char *why = tables_differ(want, got);

	cr_assert_null(why, "%s", why);
}

static void assert_same_bounds(const struct kernel_map_bounds *a,
			       const struct kernel_map_bounds *b)
{
	cr_assert_eq(a->valid, b->valid);
	if (a->valid) {
		cr_assert_eq(a->start, b->start);
		cr_assert_eq(a->end, b->end);
	}
}

/* ---- round trips ---- */

/* path loaded cold (stored), then warm (mapped): the same table and bounds as a plain load. */
static void round_trip_kallsyms(const char *path, u64 reloc)
{
	static int calls;
	char dir[64];
	struct symcache *c;
	struct kernel_map_bounds want_b, cold_b, warm_b;
	struct symtab want, cold, warm;

	snprintf(dir, sizeof(dir), "cache-%d", calls++);
	c = symcache__new(in_tmp(dir), 0);
	symtab__init(&want);
	symtab__init(&cold);
	symtab__init(&warm);
	cr_assert_eq(symtab__load_kallsyms_file(&want, path, reloc, &want_b), 0, "%s", path);
	cr_assert_gt(want.nr, 0);
	cr_assert_eq(kallsyms_cached(c, "kallsyms", path, reloc, &cold, &cold_b), 0, "%s", path);
	cr_assert_null(cold.map);
	only_index(in_tmp(dir));
	cr_assert_eq(kallsyms_cached(c, "kallsyms", path, reloc, &warm, &warm_b), 1,
		     "%s: the index written was not used", path);
	cr_assert_not_null(warm.map);
	assert_same_table(&want, &cold);
	assert_same_table(&want, &warm);
	assert_same_bounds(&want_b, &cold_b);
	assert_same_bounds(&want_b, &warm_b);
	symtab__exit(&want);
	symtab__exit(&cold);
	symtab__exit(&warm);
	cr_assert_null(warm.map);
	symcache__delete(c);
}

Test(symcache, kallsyms_round_trip)
{
	static const char *const fixtures[] = { "callchain", "forks", "symsplit", "sysw_g", "addr",
						"dir_none" };

	for (size_t i = 0; i < ARRAY_SIZE(fixtures); i++) {
		char path[256];

		snprintf(path, sizeof(path), FIX "/%s/kallsyms", fixtures[i]);
		round_trip_kallsyms(path, 0);
	}
	/* moved by a relocation: _text recorded 2 MB above the file's */
	round_trip_kallsyms(FIX "/callchain/kallsyms", 0xffffffff81200000ull);
}

Test(symcache, kallsyms_round_trip_saturated_sizes_and_ranges)
{
	char *path = small_kallsyms_file();
	struct symtab st;

	/* the table this file makes has every section an index holds */
	symtab__init(&st);
	cr_assert_eq(symtab__load_kallsyms_file(&st, path, 0, NULL), 0);
	cr_assert_not_null(st.ranges);
	cr_assert_gt(st.nr_big_ends, 0);
	symtab__exit(&st);
	round_trip_kallsyms(small_kallsyms_file(), 0);
	round_trip_kallsyms(small_kallsyms_file(), 0x3000);
}

/* The kernel through symtab__load_kernel (--kallsyms FILE): written at symtab__save, mapped
   by the next load, with the map bounds perf's fixups give, relocated or not. */
Test(symcache, kernel_through_the_loader)
{
	struct symcache *c = symcache__new(in_tmp("cache"), 0);
	const struct symsrc_config plain = { .buildid_dir = in_tmp("bid"), .symfs = "",
					     .kallsyms = FIX "/forks/kallsyms" };
	struct symsrc_config cfg = plain;
	static const u64 relocs[] = { 0, 0xffffffff81400000ull };
	char names[4][64];

	cfg.cache = c;
	for (size_t r = 0; r < ARRAY_SIZE(relocs); r++) {
		struct kernel_map_bounds want_b, cold_b, warm_b;
		struct symtab want, cold, warm;

		symtab__init(&want);
		symtab__init(&cold);
		symtab__init(&warm);
		cr_assert_eq(symtab__load_kernel(&want, &plain, NULL, 0, relocs[r], &want_b), 0);
		cr_assert(want_b.valid);
		cr_assert_eq(symtab__load_kernel(&cold, &cfg, NULL, 0, relocs[r], &cold_b), 0);
		cr_assert_null(cold.map);
		cr_assert_eq(index_files(in_tmp("cache"), names, 4), r);
		symtab__save(&cold);
		cr_assert_eq(index_files(in_tmp("cache"), names, 4), r + 1);
		cr_assert_eq(symtab__load_kernel(&warm, &cfg, NULL, 0, relocs[r], &warm_b), 0);
		cr_assert_not_null(warm.map, "the kernel's index was not mapped");
		symtab__save(&warm);	/* nothing to write */
		cr_assert_eq(index_files(in_tmp("cache"), names, 4), r + 1);
		assert_same_table(&want, &cold);
		assert_same_table(&want, &warm);
		assert_same_bounds(&want_b, &cold_b);
		assert_same_bounds(&want_b, &warm_b);
		symtab__exit(&want);
		symtab__exit(&cold);
		symtab__exit(&warm);
	}
	symcache__delete(c);
}

static struct symsrc_config fixture_cfg(struct symcache *c)
{
	return (struct symsrc_config){ .buildid_dir = BID_CACHE, .symfs = "",
				       .debug_dir = in_tmp("no-debuginfo"), .cache = c };
}

static void hex_to_bid(const char *hex, u8 *bid)
{
	for (size_t i = 0; i < 20; i++)
		sscanf(hex + 2 * i, "%2hhx", &bid[i]);
}

Test(symcache, user_dso_cold_then_warm)
{
	struct symcache *c = symcache__new(in_tmp("cache"), 0);
	struct symsrc_config cfg = fixture_cfg(c), plain = fixture_cfg(NULL);
	struct symtab want, cold, warm;
	char names[4][64];
	u8 bid[20];

	hex_to_bid(BURN_BID, bid);
	symtab__init(&want);
	symtab__init(&cold);
	symtab__init(&warm);
	cr_assert_eq(symtab__load_dso(&want, &plain, DSO_KIND_USER, "/tmp/analyze-fixtures/burn",
				      bid, 20), 0);
	cr_assert_gt(want.nr, 5);
	cr_assert_eq(index_files(in_tmp("cache"), names, 4), 0, "a load without a cache wrote");

	cr_assert_eq(symtab__load_dso(&cold, &cfg, DSO_KIND_USER, "/tmp/analyze-fixtures/burn",
				      bid, 20), 0);
	cr_assert_null(cold.map);
	cr_assert_eq(index_files(in_tmp("cache"), names, 4), 0, "written before symtab__save");
	symtab__save(&cold);
	cr_assert_eq(index_files(in_tmp("cache"), names, 4), 1, "a cold load wrote %zu indexes",
		     index_files(in_tmp("cache"), names, 4));
	cr_assert_eq(symtab__load_dso(&warm, &cfg, DSO_KIND_USER, "/tmp/analyze-fixtures/burn",
				      bid, 20), 0);
	cr_assert_not_null(warm.map, "a warm load did not map the index");
	cr_assert_eq(index_files(in_tmp("cache"), names, 4), 1);
	assert_same_table(&want, &cold);
	assert_same_table(&want, &warm);
	symtab__exit(&want);
	symtab__exit(&cold);
	symtab__exit(&warm);

	/* another build-id of the same name is another key: not this index */
	bid[0] ^= 1;
	symtab__init(&warm);
	symtab__load_dso(&warm, &cfg, DSO_KIND_USER, "/tmp/analyze-fixtures/burn", bid, 20);
	cr_assert_null(warm.map, "an index was used for another build-id");
	symtab__exit(&warm);
	symcache__delete(c);
}

/* ---- images: every byte counts ---- */

/*
 * Where the header's fields are, for the tests that change one and reseal. The magic,
 * version, byte order and size lead (offsets 0, 8, 12, 16); the seal (checksums and the like)
 * follows; then six (offset, count) pairs: key, probes, symbols, names, ranges, big ends; then
 * the kernel map's bounds, up to the key, which follows the header. layout_find finds the
 * pairs in a real image by their values, so that a new field moves them without making these
 * tests test nothing, and a format they do not know fails here loudly.
 */
#define H_FILE_SIZE 16
#define H_SEAL 24
static struct {
	size_t pairs;	/* the key's offset field; the other pairs follow it */
	size_t size;	/* the header's: where the key starts */
} L;
#define H_KEY_OFF (L.pairs)
#define H_SYMS_OFF (L.pairs + 32)
#define H_NR_SYMS (L.pairs + 40)
#define H_NAMES_OFF (L.pairs + 48)
#define H_NAMES_LEN (L.pairs + 56)
#define H_RANGES_OFF (L.pairs + 64)
#define H_NR_RANGES (L.pairs + 72)
#define H_BIG_ENDS_OFF (L.pairs + 80)
#define H_NR_BIG_ENDS (L.pairs + 88)

static u64 get_u64(const u8 *img, size_t off)
{
	u64 v;

	memcpy(&v, img + off, sizeof(v));
	return v;
}

static void put_u64(u8 *img, size_t off, u64 v)
{
	memcpy(img + off, &v, sizeof(v));
}

static void image_layout_ok(const u8 *img, size_t size, const struct symtab *st)
{
	size_t found = 0;

	cr_assert_geq(size, 64);
	cr_assert_eq(memcmp(img, "ANZSYMIX", 8), 0);
	cr_assert_eq(get_u64(img, H_FILE_SIZE), size, "the header changed: update the test");
	for (size_t j = H_SEAL; j + 96 <= MIN(size, (size_t)1024); j += 8) {
		u64 key = get_u64(img, j), probes = get_u64(img, j + 16);
		u64 syms = get_u64(img, j + 32), names = get_u64(img, j + 48);

		if (get_u64(img, j + 40) == st->nr && get_u64(img, j + 56) == st->names_len &&
		    get_u64(img, j + 72) == st->nr_ranges &&
		    get_u64(img, j + 88) == st->nr_big_ends && key % 8 == 0 && key >= j + 96 &&
		    key <= probes && probes <= syms && syms <= names && names < size) {
			cr_assert_eq(found, 0, "the header changed: update the test");
			found = j;
		}
	}
	cr_assert_neq(found, 0, "the header changed: update the test");
	L.pairs = found;
	L.size = get_u64(img, found);
}

/* The index image of a kallsyms file (written by symcache__store, read back) and its table. */
static u8 *kallsyms_image(const char *path, size_t *size, struct symtab *want)
{
	struct symcache *c = symcache__new(in_tmp("img-cache"), 0);
	struct symtab st;
	u8 *img;

	symtab__init(&st);
	cr_assert_eq(kallsyms_cached(c, "kallsyms", path, 0, &st, NULL), 0);
	symtab__exit(&st);
	img = read_all(only_index(in_tmp("img-cache")), size);
	cr_assert_eq(unlink(only_index(in_tmp("img-cache"))), 0);
	symcache__delete(c);
	symtab__init(want);
	cr_assert_eq(symtab__load_kallsyms_file(want, path, 0, NULL), 0);
	image_layout_ok(img, *size, want);
	return img;
}

/* The index image of a user dso (its key and probes are longer). */
static u8 *dso_image(size_t *size, struct symtab *want)
{
	struct symcache *c = symcache__new(in_tmp("img-cache"), 0);
	struct symsrc_config cfg = fixture_cfg(c);
	struct symtab st;
	u8 bid[20], *img;

	hex_to_bid(BURN_BID, bid);
	symtab__init(&st);
	cr_assert_eq(symtab__load_dso(&st, &cfg, DSO_KIND_USER, "/tmp/analyze-fixtures/burn", bid,
				      20), 0);
	symtab__save(&st);
	symtab__exit(&st);
	img = read_all(only_index(in_tmp("img-cache")), size);
	cr_assert_eq(unlink(only_index(in_tmp("img-cache"))), 0);
	symcache__delete(c);
	cfg.cache = NULL;
	symtab__init(want);
	cr_assert_eq(symtab__load_dso(want, &cfg, DSO_KIND_USER, "/tmp/analyze-fixtures/burn", bid,
				      20), 0);
	image_layout_ok(img, *size, want);
	return img;
}

/* Maps a copy of img (in a buffer of exactly size bytes): 0 or -1, as symcache_map_image. */
static int map_copy(const u8 *img, size_t size, u8 **copy, struct symtab *st,
		    struct kernel_map_bounds *b, const char **why)
{
	*copy = malloc(size ? size : 1);
	memcpy(*copy, img, size);
	return symcache_map_image(*copy, size, st, b, why);
}

static void unchanged_image_maps(const u8 *img, size_t size, const struct symtab *want)
{
	struct kernel_map_bounds b;
	struct symtab st;
	const char *why;
	u8 *copy;

	cr_assert_eq(map_copy(img, size, &copy, &st, &b, &why), 0, "%s", why);
	assert_same_table(want, &st);
	free(copy);
}

static void flip_sweep(const u8 *img, size_t size)
{
	static const u8 xors[] = { 0xff, 0x01, 0x80, 0x10 };
	u8 *copy = malloc(size);

	for (size_t i = 0; i < size; i++) {
		for (size_t x = 0; x < ARRAY_SIZE(xors); x++) {
			struct kernel_map_bounds b;
			struct symtab st;
			const char *why = NULL;

			memcpy(copy, img, size);
			copy[i] ^= xors[x];
			CHECK(symcache_map_image(copy, size, &st, &b, &why) && why,
			      "byte %zu of %zu ^ %#x: accepted", i, size, xors[x]);
		}
	}
	free(copy);
}

Test(symcache, every_changed_byte_is_rejected)
{
	struct symtab want;
	size_t size;
	u8 *img = kallsyms_image(small_kallsyms_file(), &size, &want);

	unchanged_image_maps(img, size, &want);
	flip_sweep(img, size);
	free(img);
	symtab__exit(&want);

	img = dso_image(&size, &want);
	unchanged_image_maps(img, size, &want);
	flip_sweep(img, size);
	free(img);
	symtab__exit(&want);
}

static void cut_and_grow_sweep(const u8 *img, size_t size)
{
	static const size_t grow[] = { 1, 7, 8, 16, 4096 };

	/* every prefix, each in a buffer of its own size */
	for (size_t len = 0; len < size; len++) {
		struct symtab st;
		const char *why = NULL;
		u8 *copy;

		CHECK(map_copy(img, len, &copy, &st, NULL, &why) && why,
		      "cut to %zu of %zu bytes: accepted", len, size);
		free(copy);
	}
	for (size_t g = 0; g < ARRAY_SIZE(grow); g++) {
		for (int fill = 0; fill < 2; fill++) {
			u8 *big = malloc(size + grow[g]);
			struct symtab st;
			const char *why;

			memcpy(big, img, size);
			memset(big + size, fill ? 0xff : 0, grow[g]);
			cr_assert_neq(symcache_map_image(big, size + grow[g], &st, NULL, &why), 0,
				      "grown by %zu: accepted", grow[g]);
			/* resealed, the size in the header still says otherwise */
			symcache_seal_image(big, size + grow[g]);
			cr_assert_neq(symcache_map_image(big, size + grow[g], &st, NULL, &why), 0,
				      "grown by %zu and resealed: accepted", grow[g]);
			free(big);
		}
	}
}

Test(symcache, every_cut_and_growth_is_rejected)
{
	struct symtab want;
	size_t size;
	u8 *img = kallsyms_image(small_kallsyms_file(), &size, &want);

	cut_and_grow_sweep(img, size);
	free(img);
	symtab__exit(&want);
	img = kallsyms_image(FIX "/callchain/kallsyms", &size, &want);
	cut_and_grow_sweep(img, size);
	free(img);
	symtab__exit(&want);
}

/*
 * A table mapped from a (resealed, so possibly hostile) image: every symbol, name and
 * lookup stays inside the image (a name out of the pool reads as "", a range naming no
 * symbol of the table finds none: symtab.h). Under ASan the image is a heap block of exactly
 * its size, so a read past it is a report, not luck.
 */
static void name_in_bounds(const struct symtab *st, const struct symbol *s)
{
	const char *name = symbol__name(st, s);

	if (s->name < st->names_len)
		CHECK(name == st->names + s->name && strlen(name) < st->names_len - s->name,
		      "a name past the pool");
	else
		CHECK(!name[0], "a name out of the pool is not empty");
}

static void assert_in_bounds(const struct symtab *st, const u8 *img, size_t size,
			     const u64 *addrs, size_t nr_addrs)
{
	const u8 *end = img + size;

	CHECK(st->nr == 0 || ((const u8 *)st->syms >= img &&
			      (const u8 *)(st->syms + st->nr) <= end), "symbols outside the image");
	CHECK((const u8 *)st->names >= img && (const u8 *)st->names + st->names_len <= end,
	      "names outside the image");
	CHECK(!st->ranges || (const u8 *)(st->ranges + st->nr_ranges) <= end, "ranges outside");
	CHECK(!st->big_ends || (const u8 *)(st->big_ends + st->nr_big_ends) <= end,
	      "big ends outside");
	for (size_t i = 0; i < st->nr; i++) {
		const struct symbol *s = &st->syms[i];

		name_in_bounds(st, s);
		(void)symtab__symbol_end(st, s);
	}
	for (size_t i = 0; i < nr_addrs + size / 8; i++) {
		u64 a = i < nr_addrs ? addrs[i] : get_u64(img, (i - nr_addrs) * 8), lo, hi;
		const struct symbol *s = symtab__find_span(st, a, &lo, &hi);

		if (!s)
			continue;
		CHECK(s >= st->syms && s < st->syms + st->nr, "lookup of %#llx: symbol %td of %zu",
		      (unsigned long long)a, s - st->syms, st->nr);
		name_in_bounds(st, s);
		(void)symtab__symbol_end(st, s);
		CHECK(symtab__find(st, a) == s, "find and find_span disagree");
	}
}

static void resealed_sweep(const u8 *img, size_t size, const struct symtab *want)
{
	static const u8 xors[] = { 0xff, 0x01, 0x80, 0x7f };
	size_t nr_addrs, accepted = 0, rejected = 0;
	u64 *addrs = probe_addresses(want, &nr_addrs);

	for (size_t i = 0; i < size; i++) {
		for (size_t x = 0; x < ARRAY_SIZE(xors); x++) {
			struct kernel_map_bounds b;
			struct symtab st;
			const char *why;
			u8 *copy = malloc(size);
			int ret;

			memcpy(copy, img, size);
			copy[i] ^= xors[x];
			symcache_seal_image(copy, size);
			ret = symcache_map_image(copy, size, &st, &b, &why);
			/* magic, version, byte order, size: no resealing makes them another's */
			CHECK(i >= H_SEAL || ret, "header byte %zu ^ %#x: accepted", i, xors[x]);
			/* the seal's fields: resealing undoes or ignores a change */
			CHECK(i < H_SEAL || i >= H_KEY_OFF || !ret,
			      "seal byte %zu ^ %#x resealed: %s", i, xors[x], why);
			if (ret) {
				rejected++;
				CHECK(why, "rejected without a reason");
			} else {
				accepted++;
				assert_in_bounds(&st, copy, size, addrs, nr_addrs);
				if (i < H_KEY_OFF) {
					const char *d = tables_differ(want, &st);

					CHECK(!d, "seal byte %zu resealed: %s", i, d);
				}
			}
			free(copy);
		}
	}
	cr_log_info("resealed sweep of %zu bytes: %zu accepted, %zu rejected", size, accepted,
		    rejected);
	cr_assert_gt(rejected, 0);
	cr_assert_gt(accepted, 0);
	free(addrs);
}

/* Header fields set to hostile values (offsets past the end, counts that overflow a
   multiplication, misaligned offsets), resealed: rejected or in bounds. */
static void hostile_fields(const u8 *img, size_t size, const struct symtab *want)
{
	const u64 values[] = { 0, 1, 7, 8, 9, size - 1, size, size + 8, size / 2, 1ull << 32,
			       (1ull << 32) - 1, 1ull << 63, UINT64_MAX, UINT64_MAX / 16 + 1,
			       UINT64_MAX / 12 + 1, L.size - 8, L.size, 24 };
	size_t nr_addrs;
	u64 *addrs = probe_addresses(want, &nr_addrs);

	for (size_t off = H_KEY_OFF; off < L.size; off += 8) {
		for (size_t v = 0; v < ARRAY_SIZE(values); v++) {
			struct symtab st;
			const char *why;
			u8 *copy = malloc(size);

			memcpy(copy, img, size);
			put_u64(copy, off, values[v]);
			symcache_seal_image(copy, size);
			if (!symcache_map_image(copy, size, &st, NULL, &why))
				assert_in_bounds(&st, copy, size, addrs, nr_addrs);
			free(copy);
		}
	}
	/* sections moved onto the header, onto each other, anywhere: still in bounds */
	for (size_t f = H_SYMS_OFF; f <= H_BIG_ENDS_OFF; f += 16) {
		for (size_t to = 0; to < size; to += 8) {
			struct symtab st;
			const char *why;
			u8 *copy = malloc(size);

			memcpy(copy, img, size);
			put_u64(copy, f, to);
			symcache_seal_image(copy, size);
			if (!symcache_map_image(copy, size, &st, NULL, &why))
				assert_in_bounds(&st, copy, size, addrs, nr_addrs);
			free(copy);
		}
	}
	free(addrs);
}

Test(symcache, resealed_changes_stay_in_bounds)
{
	struct symtab want;
	size_t size;
	u8 *img = kallsyms_image(small_kallsyms_file(), &size, &want);

	resealed_sweep(img, size, &want);
	hostile_fields(img, size, &want);
	free(img);
	symtab__exit(&want);
	img = dso_image(&size, &want);
	resealed_sweep(img, size, &want);
	hostile_fields(img, size, &want);
	free(img);
	symtab__exit(&want);
}

Test(symcache, structural_checks_behind_the_checksum)
{
	struct symtab want, st;
	const char *why;
	size_t size;
	u8 *img = kallsyms_image(small_kallsyms_file(), &size, &want), *copy = malloc(size);
	struct { size_t off; u64 value; const char *what; } cases[] = {
		{ H_SYMS_OFF, 4, "a misaligned section" },
		{ H_NR_SYMS, UINT64_MAX / 16 + 1, "a count whose bytes wrap" },
		{ H_NR_SYMS, size, "more symbols than bytes" },
		{ H_NAMES_LEN, 0, "an empty name pool" },
		{ H_NAMES_OFF, size + 8, "a section past the end" },
		{ H_NR_RANGES, 1ull << 60, "too many ranges" },
		{ H_NR_BIG_ENDS, 1ull << 60, "too many big ends" },
	};
	static const struct { size_t off; u32 value; const char *what; } words[] = {
		{ 8, 2, "another version" },
		{ 8, 0, "version 0" },
		{ 12, 0x04030201u, "the other byte order" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		memcpy(copy, img, size);
		put_u64(copy, cases[i].off, cases[i].value);
		symcache_seal_image(copy, size);
		cr_assert_neq(symcache_map_image(copy, size, &st, NULL, &why), 0,
			      "%s: accepted", cases[i].what);
		cr_assert_not_null(why);
	}
	for (size_t i = 0; i < ARRAY_SIZE(words); i++) {
		memcpy(copy, img, size);
		memcpy(copy + words[i].off, &words[i].value, 4);
		symcache_seal_image(copy, size);
		cr_assert_neq(symcache_map_image(copy, size, &st, NULL, &why), 0,
			      "%s: accepted", words[i].what);
	}
	/* a symbol naming a string past the pool: rejected, or read as "" */
	for (size_t i = 0; i < want.nr; i++) {
		u8 *sym = copy + get_u64(img, H_SYMS_OFF) + 16 * i;
		u32 word;

		memcpy(copy, img, size);
		memcpy(&word, sym + 12, 4);	/* name:31, object:1 (symtab.h) */
		word = (word & 0x80000000u) | (u32)want.names_len;
		memcpy(sym + 12, &word, 4);
		symcache_seal_image(copy, size);
		if (!symcache_map_image(copy, size, &st, NULL, &why))
			CHECK(!symbol__name(&st, &st.syms[i])[0], "a name past the pool reads %s",
			      symbol__name(&st, &st.syms[i]));
	}
	/* a range naming a symbol past the table: rejected, or finds none */
	cr_assert_gt(want.nr_ranges, 0);
	for (size_t r = 0; r < want.nr_ranges; r++) {
		u32 sym = (u32)want.nr;

		memcpy(copy, img, size);
		memcpy(copy + get_u64(img, H_RANGES_OFF) + 16 * r + 8, &sym, 4);
		symcache_seal_image(copy, size);
		if (!symcache_map_image(copy, size, &st, NULL, &why))
			CHECK(!symtab__find(&st, want.ranges[r].start),
			      "a range naming symbol %u of %zu found one", sym, want.nr);
	}
	free(copy);
	free(img);
	symtab__exit(&want);
}

/*
 * symcache.c's seal: an index whose mtime is still the one its writer set has only its head
 * (header, key, probes) checked at load; any write through the file system moves the mtime,
 * and then every byte is checked. A body changed with its mtime put back (cp -p, tar or
 * rsync -a of a damaged file; data blocks lost in a crash after the rename) is mapped
 * unchecked: its lookups must stay in bounds all the same.
 */
Test(symcache, sealed_index_body)
{
	struct symcache *c = symcache__new(in_tmp("cache"), 0);
	const char *k = small_kallsyms_file();
	struct symtab st, want;
	struct stat sb;
	char path[600];
	size_t size, nr_addrs, used = 0;
	u8 *img, *bad;
	u64 *addrs, x = 88172645463325252ull;

	symtab__init(&st);
	cr_assert_eq(kallsyms_cached(c, "kallsyms", k, 0, &st, NULL), 0);
	symtab__exit(&st);
	snprintf(path, sizeof(path), "%s", only_index(in_tmp("cache")));
	img = read_all(path, &size);
	cr_assert_eq(stat(path, &sb), 0);
	symtab__init(&want);
	cr_assert_eq(symtab__load_kallsyms_file(&want, k, 0, NULL), 0);
	image_layout_ok(img, size, &want);
	addrs = probe_addresses(&want, &nr_addrs);
	bad = malloc(size);
	for (int damage = 0; damage < 4; damage++) {
		size_t body = get_u64(img, H_SYMS_OFF), names = get_u64(img, H_NAMES_OFF);

		memcpy(bad, img, size);
		for (size_t i = body; i < size; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			bad[i] = damage == 0 ? 0 : damage == 1 ? 0xff : damage == 2 ? (u8)x :
				 bad[i] ^ (u8)(i == body + 16 * (x % want.nr) + 12 ? 0x40 : 0);
		}
		bad[names] = bad[names + want.names_len - 1] = 0;	/* past the pool check */
		for (int sealed = 1; sealed >= 0; sealed--) {
			struct timespec ts[2] = { { .tv_nsec = UTIME_OMIT }, sb.st_mtim };
			int ret;

			write_bytes(path, bad, size);
			if (sealed)
				cr_assert_eq(utimensat(AT_FDCWD, path, ts, 0), 0);
			symtab__init(&st);
			ret = kallsyms_cached(c, "kallsyms", k, 0, &st, NULL);
			cr_assert_geq(ret, 0);
			if (ret == 1) {
				cr_assert(sealed, "damage %d: a changed index was used", damage);
				assert_in_bounds(&st, st.map, st.map_size, addrs, nr_addrs);
				used++;
			} else {
				assert_same_table(&want, &st);
			}
			symtab__exit(&st);
		}
	}
	/* what the seal costs: see the report of the tests that came with this file */
	if (used)
		cr_log_info("%zu of 4 damaged bodies under an intact seal were used", used);
	free(bad);
	free(addrs);
	free(img);
	symtab__exit(&want);
	symcache__delete(c);
}

/* ---- probes ---- */

/* A copy of the burn workload at tmpdir/bin/burn, found by path (no build-id recorded). */
static struct symsrc_config probed_cfg(struct symcache *c)
{
	return (struct symsrc_config){ .buildid_dir = in_tmp("bid"), .symfs = "",
				       .debug_dir = in_tmp("no-debuginfo"), .cache = c };
}

/* Loads tmpdir/bin/burn: whether the index was used; the table must be what a plain load of
   the file now gives. */
static bool load_burn_copy(struct symcache *c)
{
	struct symsrc_config cfg = probed_cfg(c), plain = probed_cfg(NULL);
	struct symtab st, want;
	bool mapped;

	symtab__init(&st);
	symtab__init(&want);
	cr_assert_eq(symtab__load_dso(&want, &plain, DSO_KIND_USER, in_tmp("bin/burn"), NULL, 0), 0);
	cr_assert_eq(symtab__load_dso(&st, &cfg, DSO_KIND_USER, in_tmp("bin/burn"), NULL, 0), 0);
	symtab__save(&st);
	assert_same_table(&want, &st);
	mapped = st.map != NULL;
	symtab__exit(&st);
	symtab__exit(&want);
	return mapped;
}

Test(symcache, changed_file_is_not_used)
{
	struct symcache *c = symcache__new(in_tmp("cache"), 0);
	struct stat sb;

	mkdirs(in_tmp("bin"));
	copy_file(BURN_ELF, in_tmp("bin/burn"));
	cr_assert_not(load_burn_copy(c));
	cr_assert(load_burn_copy(c), "a warm load did not map the index");

	/* another mtime */
	cr_assert_eq(stat(in_tmp("bin/burn"), &sb), 0);
	set_mtime(in_tmp("bin/burn"), sb.st_mtime - 3600);
	cr_assert_not(load_burn_copy(c), "an index was used after its file's mtime changed");
	cr_assert(load_burn_copy(c), "the rebuilt index was not used");

	/* rewritten in place (same inode) by another program of another size, mtime kept */
	cr_assert_eq(stat(in_tmp("bin/burn"), &sb), 0);
	copy_file(SORTER_ELF, in_tmp("bin/burn"));
	set_mtime(in_tmp("bin/burn"), sb.st_mtime);
	cr_assert_not(load_burn_copy(c), "an index was used after its file was rewritten");
	cr_assert(load_burn_copy(c));

	/* replaced (another inode) by the same bytes and mtime */
	cr_assert_eq(stat(in_tmp("bin/burn"), &sb), 0);
	copy_file(in_tmp("bin/burn"), in_tmp("bin/burn.new"));
	set_mtime(in_tmp("bin/burn.new"), sb.st_mtime);
	cr_assert_eq(rename(in_tmp("bin/burn.new"), in_tmp("bin/burn")), 0);
	cr_assert_not(load_burn_copy(c), "an index was used after its file was replaced");
	cr_assert(load_burn_copy(c));
	symcache__delete(c);
}

Test(symcache, appearing_file_is_not_used)
{
	struct symcache *c = symcache__new(in_tmp("cache"), 0);
	char hex[41], dir[512], path[600];
	u8 bid[20];

	mkdirs(in_tmp("bin"));
	copy_file(BURN_ELF, in_tmp("bin/burn"));
	cr_assert_eq(symtab__filename_build_id(in_tmp("bin/burn"), bid), 20);
	for (int i = 0; i < 20; i++)
		sprintf(hex + 2 * i, "%02x", bid[i]);
	cr_assert_not(load_burn_copy(c));
	cr_assert(load_burn_copy(c));

	/* the build-id cache gets the file (perf buildid-cache --add): the index was made
	   without it, so it must not be used; the rebuilt one is */
	snprintf(dir, sizeof(dir), "%s/bid/.build-id/%.2s/%s", tmpdir, hex, hex + 2);
	mkdirs(dir);
	snprintf(path, sizeof(path), "%s/elf", dir);
	copy_file(in_tmp("bin/burn"), path);
	cr_assert_not(load_burn_copy(c), "an index was used after a file it found absent appeared");
	cr_assert(load_burn_copy(c), "the rebuilt index was not used");

	/* and goes again */
	cr_assert_eq(unlink(path), 0);
	cr_assert_not(load_burn_copy(c), "an index was used after a file it read went away");
	cr_assert(load_burn_copy(c));
	symcache__delete(c);
}

Test(symcache, kallsyms_probe)
{
	struct symcache *c = symcache__new(in_tmp("cache"), 0);
	char *path = in_tmp("k");
	struct symtab st, want;
	struct stat sb;

	copy_file(FIX "/callchain/kallsyms", path);
	symtab__init(&st);
	cr_assert_eq(kallsyms_cached(c, "kallsyms", path, 0, &st, NULL), 0);
	symtab__exit(&st);
	cr_assert_eq(kallsyms_cached(c, "kallsyms", path, 0, &st, NULL), 1);
	symtab__exit(&st);

	/* another kernel's symbols at the same path, inode and size (mtime a second later, as
	   `touch -d` or a later write leaves it) */
	cr_assert_eq(stat(path, &sb), 0);
	{
		size_t size;
		u8 *b = read_all(path, &size);

		b[0] = b[0] == 'f' ? 'e' : 'f';	/* the first symbol moves */
		write_bytes(path, b, size);
		free(b);
	}
	set_mtime(path, sb.st_mtime + 1);
	symtab__init(&want);
	cr_assert_eq(symtab__load_kallsyms_file(&want, path, 0, NULL), 0);
	cr_assert_eq(kallsyms_cached(c, "kallsyms", path, 0, &st, NULL), 0,
		     "an index was used after its kallsyms changed (the same inode was rewritten)");
	assert_same_table(&want, &st);
	symtab__exit(&st);
	cr_assert_eq(kallsyms_cached(c, "kallsyms", path, 0, &st, NULL), 1);
	assert_same_table(&want, &st);
	symtab__exit(&st);
	symtab__exit(&want);
	symcache__delete(c);
}

/*
 * A kallsyms path that is not a regular file (a FIFO, a pipe from `--kallsyms <(...)`:
 * /dev/fd/63 every time) reads differently each time: no index is written or used for it.
 */
Test(symcache, fifo_kallsyms_is_not_reused)
{
	struct symcache *c = symcache__new(in_tmp("cache"), 0);
	const char *texts[2] = { "0000000000001000 T _text\n0000000000001100 T first_kernel\n",
				 "0000000000001000 T _text\n0000000000001100 T second_kernel\n" };
	char *fifo = in_tmp("fifo");
	const struct symsrc_config cfg = { .buildid_dir = in_tmp("bid"), .symfs = "",
					   .kallsyms = fifo, .cache = c };
	struct symtab st;

	cr_assert_eq(mkfifo(fifo, 0600), 0);
	for (int run = 0; run < 2; run++) {
		pid_t pid = fork();
		const struct symbol *s;

		cr_assert_geq(pid, 0);
		if (!pid) {	/* the writer; gone in 2 s when no one reads */
			int fd;

			alarm(2);
			fd = open(fifo, O_WRONLY);
			_exit(write(fd, texts[run], strlen(texts[run])) < 0);
		}
		symtab__init(&st);
		cr_assert_eq(symtab__load_kernel(&st, &cfg, NULL, 0, 0, NULL), 0);
		symtab__save(&st);
		s = symtab__find(&st, 0x1100);
		cr_assert_not_null(s);
		cr_expect_str_eq(symbol__name(&st, s), run ? "second_kernel" : "first_kernel");
		symtab__exit(&st);
		waitpid(pid, NULL, 0);
	}
	symcache__delete(c);
}

/* ---- keys ---- */

static void store_kallsyms_index(const char *dir, const char *kind, const char *path)
{
	struct symcache *c = symcache__new(dir, 0);
	struct symtab st;

	symtab__init(&st);
	cr_assert_eq(kallsyms_cached(c, kind, path, 0, &st, NULL), 0);
	symtab__exit(&st);
	symcache__delete(c);
}

static size_t count_lines(const char *path, const char *prefix)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	size_t n = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		n += !strncmp(line, prefix, strlen(prefix));
	fclose(f);
	return n;
}

Test(symcache, another_key_is_not_mapped)
{
	const char *k1 = FIX "/callchain/kallsyms";
	char from[600], to[600];
	struct symcache *c;
	struct symtab st;
	char names[4][64];

	store_kallsyms_index(in_tmp("a"), "kallsyms", k1);
	cr_assert_eq(setenv("ANALYZE_SYMBOL_CACHE_LOG", in_tmp("log"), 1), 0);
	c = symcache__from_env(in_tmp("a"), false);
	cr_assert_not_null(c);

	/* another name, and another kind, are other keys */
	symtab__init(&st);
	cr_assert_eq(kallsyms_cached(c, "kallsyms", FIX "/forks/kallsyms", 0, &st, NULL), 0);
	symtab__exit(&st);
	cr_assert_eq(kallsyms_cached(c, "other-kind", k1, 0, &st, NULL), 0);
	symtab__exit(&st);
	cr_assert_eq(kallsyms_cached(c, "kallsyms", k1, 0x1000, &st, NULL), 0);	/* relocated */
	symtab__exit(&st);
	cr_assert_eq(index_files(in_tmp("a"), names, 4), 4);
	cr_assert_eq(count_lines(in_tmp("log"), "hit "), 0);

	/* an index renamed to another key's file name is refused: its own key says otherwise */
	store_kallsyms_index(in_tmp("b"), "renamed-key", k1);
	snprintf(from, sizeof(from), "%s", only_index(in_tmp("b")));
	cr_assert_eq(unlink(from), 0);
	snprintf(to, sizeof(to), "%s/%s", in_tmp("a"), strrchr(from, '/') + 1);
	store_kallsyms_index(in_tmp("c"), "kallsyms", k1);
	snprintf(from, sizeof(from), "%s", only_index(in_tmp("c")));
	cr_assert_eq(rename(from, to), 0);
	cr_assert_eq(truncate(in_tmp("log"), 0), 0);
	cr_assert_eq(kallsyms_cached(c, "renamed-key", k1, 0, &st, NULL), 0,
		     "an index was mapped under another key's name");
	symtab__exit(&st);
	cr_assert_eq(count_lines(in_tmp("log"), "bad "), 1);
	{
		FILE *f = fopen(in_tmp("log"), "r");
		char line[1024] = "";

		cr_assert(fgets(line, sizeof(line), f));
		fclose(f);
		cr_assert(strstr(line, to) && strstr(line, "another key"), "log: %s", line);
	}
	cr_assert_eq(count_lines(in_tmp("log"), "write "), 1);
	cr_assert_eq(kallsyms_cached(c, "renamed-key", k1, 0, &st, NULL), 1);
	symtab__exit(&st);
	symcache__delete(c);
}

/* ---- damaged cache directories ---- */

/* stderr into a file while fn runs: the lines written. */
static char *capture_stderr(void (*fn)(void *), void *arg)
{
	static char text[4096];
	int saved = dup(2), fd = open(in_tmp("stderr"), O_RDWR | O_CREAT | O_TRUNC, 0600);
	ssize_t n;

	cr_assert_geq(fd, 0);
	fflush(stderr);
	dup2(fd, 2);
	fn(arg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, text, sizeof(text) - 1, 0);
	close(fd);
	text[n > 0 ? n : 0] = '\0';
	return text;
}

static size_t lines_in(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void store_and_load_three(void *arg)
{
	struct symcache *c = arg;
	static const char *const files[] = { FIX "/callchain/kallsyms", FIX "/forks/kallsyms",
					     FIX "/addr/kallsyms" };

	for (int round = 0; round < 2; round++) {
		for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
			struct symtab st, want;

			symtab__init(&st);
			symtab__init(&want);
			cr_assert_eq(kallsyms_cached(c, "kallsyms", files[i], 0, &st, NULL), 0,
				     "a load from an unwritable cache did not miss");
			cr_assert_eq(symtab__load_kallsyms_file(&want, files[i], 0, NULL), 0);
			assert_same_table(&want, &st);
			symtab__exit(&st);
			symtab__exit(&want);
		}
	}
}

Test(symcache, unwritable_dir_warns_once)
{
	struct symcache *c;
	u64 files = 1, bytes = 1;
	char *text;

	write_text(in_tmp("file"), "not a directory\n");
	c = symcache__new(in_tmp("file/cache"), 0);
	text = capture_stderr(store_and_load_three, c);
	cr_assert_eq(lines_in(text), 1, "stderr: %s", text);
	cr_assert(strstr(text, "symbol cache") && strstr(text, in_tmp("file/cache")), "%s", text);
	symcache__usage(c, &files, &bytes);
	cr_assert_eq(files, 0);
	cr_assert_eq(bytes, 0);
	symcache__clear(c);
	symcache__delete(c);
}

Test(symcache, damaged_index_files)
{
	struct symcache *c = symcache__new(in_tmp("cache"), 0);
	const char *k = FIX "/callchain/kallsyms";
	char path[600];
	struct symtab st, want;
	size_t size;
	u8 *img;

	symtab__init(&want);
	cr_assert_eq(symtab__load_kallsyms_file(&want, k, 0, NULL), 0);
	symtab__init(&st);
	cr_assert_eq(kallsyms_cached(c, "kallsyms", k, 0, &st, NULL), 0);
	symtab__exit(&st);
	snprintf(path, sizeof(path), "%s", only_index(in_tmp("cache")));
	img = read_all(path, &size);

	/* cut, emptied, one byte, a byte changed: each missed, rebuilt, then used */
	for (int damage = 0; damage < 4; damage++) {
		switch (damage) {
		case 0: write_bytes(path, img, size / 2); break;
		case 1: write_bytes(path, img, 0); break;
		case 2: write_bytes(path, img, 1); break;
		case 3: img[size - 1] ^= 0x20; write_bytes(path, img, size); img[size - 1] ^= 0x20;
			break;
		}
		symtab__init(&st);
		cr_assert_eq(kallsyms_cached(c, "kallsyms", k, 0, &st, NULL), 0,
			     "damage %d: the index was used", damage);
		assert_same_table(&want, &st);
		symtab__exit(&st);
		cr_assert_eq(kallsyms_cached(c, "kallsyms", k, 0, &st, NULL), 1,
			     "damage %d: not rebuilt", damage);
		assert_same_table(&want, &st);
		symtab__exit(&st);
	}
	/* a directory where the index goes: never used, never removed, no crash */
	cr_assert_eq(unlink(path), 0);
	cr_assert_eq(mkdir(path, 0700), 0);
	for (int i = 0; i < 2; i++) {
		int fd = dup(2), null = open("/dev/null", O_WRONLY);

		dup2(null, 2);	/* the warning about the write */
		cr_assert_eq(kallsyms_cached(c, "kallsyms", k, 0, &st, NULL), 0);
		dup2(fd, 2);
		close(fd);
		close(null);
		assert_same_table(&want, &st);
		symtab__exit(&st);
	}
	{
		struct stat sb;

		cr_assert_eq(stat(path, &sb), 0);
		cr_assert(S_ISDIR(sb.st_mode));
	}
	free(img);
	symtab__exit(&want);
	symcache__delete(c);
}

/* ---- the directory: cap, usage, clear ---- */

static const char *const kinds[] = { "k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7" };

/* The index of kind k (callchain's kallsyms) stored through c: its file name into name. */
static void store_kind(struct symcache *c, const char *dir, int k, char *name)
{
	char before[16][64], after[16][64];
	size_t nb = index_files(dir, before, 16), na;
	struct symtab st;

	symtab__init(&st);
	cr_assert_eq(kallsyms_cached(c, kinds[k], FIX "/callchain/kallsyms", 0, &st, NULL), 0);
	symtab__exit(&st);
	na = index_files(dir, after, 16);
	name[0] = '\0';
	for (size_t i = 0, j = 0; i < na; i++) {
		while (j < nb && strcmp(before[j], after[i]) < 0)
			j++;
		if (j >= nb || strcmp(before[j], after[i]))
			memcpy(name, after[i], 64);
	}
	cr_assert(name[0], "no new index for %s", kinds[k]);
}

static bool has_file(const char *dir, const char *name)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return !access(path, F_OK);
}

Test(symcache, tiny_cap_keeps_the_newest)
{
	char *dir = in_tmp("cache"), name[64], names[16][64];
	struct symcache *c = symcache__new(dir, 1024);

	mkdirs(dir);
	write_text(in_tmp("cache/README"), "mine\n");
	for (int k = 0; k < 6; k++) {
		store_kind(c, dir, k, name);
		cr_assert_eq(index_files(dir, names, 16), 1, "after %d stores: %zu indexes", k + 1,
			     index_files(dir, names, 16));
		cr_assert_str_eq(names[0], name, "the newest index was evicted");
	}
	cr_assert(has_file(dir, "README"), "eviction removed a foreign file");
	symcache__delete(c);
}

Test(symcache, cap_evicts_least_recently_used)
{
	char *dir = in_tmp("cache"), n[4][64];
	struct symcache *c;
	u64 one, cap;
	time_t now = time(NULL);
	struct symtab st;

	/* how much one index takes on this file system */
	c = symcache__new(in_tmp("measure"), 0);
	store_kind(c, in_tmp("measure"), 0, n[0]);
	one = index_bytes(in_tmp("measure"));
	symcache__delete(c);
	cr_assert_gt(one, 0);
	/* room for two indexes under three quarters of the cap, not for three */
	cap = one * 3 - one / 4;
	cr_assert(2 * one <= cap / 4 * 3 && 3 * one > cap);

	c = symcache__new(dir, cap);
	store_kind(c, dir, 0, n[0]);
	store_kind(c, dir, 1, n[1]);
	cr_assert_leq(index_bytes(dir), cap);
	{
		char p[600];

		/* atimes after the mtimes: a relatime mount does not move them on a read, only
		   the loader's mark of a use does */
		snprintf(p, sizeof(p), "%s/%s", dir, n[0]);
		set_times(p, now - 7200, now - 20000);
		snprintf(p, sizeof(p), "%s/%s", dir, n[1]);
		set_times(p, now - 3600, now - 20000);
	}
	/* a use makes k0 the most recent: k1 goes first */
	symtab__init(&st);
	cr_assert_eq(kallsyms_cached(c, kinds[0], FIX "/callchain/kallsyms", 0, &st, NULL), 1);
	symtab__exit(&st);
	store_kind(c, dir, 2, n[2]);
	cr_assert_leq(index_bytes(dir), cap, "%llu bytes over a cap of %llu",
		      (unsigned long long)index_bytes(dir), (unsigned long long)cap);
	cr_assert(has_file(dir, n[2]), "the newest index was evicted");
	cr_assert(has_file(dir, n[0]), "the index just used was evicted");
	cr_assert_not(has_file(dir, n[1]), "the least recently used index was kept");
	symcache__delete(c);

	/* a new run (its first write lists the directory) keeps to the cap too */
	for (int k = 3; k < 8; k++) {
		c = symcache__new(dir, cap);
		store_kind(c, dir, k, n[3]);
		cr_assert_leq(index_bytes(dir), cap);
		cr_assert(has_file(dir, n[3]));
		symcache__delete(c);
	}
}

Test(symcache, from_env_max_and_dirs)
{
	struct symcache *c;

	unsetenv("ANALYZE_SYMBOL_CACHE");
	unsetenv("ANALYZE_SYMBOL_CACHE_LOG");
	cr_assert_eq(setenv("ANALYZE_SYMBOL_CACHE_MAX", "1K", 1), 0);
	c = symcache__from_env(in_tmp("x"), false);
	cr_assert_eq(symcache__max_bytes(c), 1024);
	cr_assert_str_eq(symcache__dir(c), in_tmp("x"));
	symcache__delete(c);
	setenv("ANALYZE_SYMBOL_CACHE_MAX", "3M", 1);
	c = symcache__from_env(NULL, false);
	cr_assert_eq(symcache__max_bytes(c), 3ull << 20);
	symcache__delete(c);
	setenv("ANALYZE_SYMBOL_CACHE_MAX", "2g", 1);
	c = symcache__from_env(NULL, false);
	cr_assert_eq(symcache__max_bytes(c), 2ull << 30);
	symcache__delete(c);
	setenv("ANALYZE_SYMBOL_CACHE_MAX", "12345", 1);
	c = symcache__from_env(NULL, false);
	cr_assert_eq(symcache__max_bytes(c), 12345);
	symcache__delete(c);
	unsetenv("ANALYZE_SYMBOL_CACHE_MAX");
	c = symcache__from_env(NULL, false);
	cr_assert_eq(symcache__max_bytes(c), SYMCACHE_DEFAULT_MAX);
	symcache__delete(c);

	/* where it goes: --symbol-cache, ANALYZE_SYMBOL_CACHE, XDG_CACHE_HOME, HOME */
	cr_assert_null(symcache__from_env(NULL, true));
	cr_assert_null(symcache__from_env(in_tmp("x"), true));
	setenv("ANALYZE_SYMBOL_CACHE", "off", 1);
	cr_assert_null(symcache__from_env(NULL, false));
	c = symcache__from_env(in_tmp("x"), false);	/* the option wins */
	cr_assert_str_eq(symcache__dir(c), in_tmp("x"));
	symcache__delete(c);
	setenv("ANALYZE_SYMBOL_CACHE", in_tmp("env"), 1);
	c = symcache__from_env(NULL, false);
	cr_assert_str_eq(symcache__dir(c), in_tmp("env"));
	symcache__delete(c);
	unsetenv("ANALYZE_SYMBOL_CACHE");
	setenv("XDG_CACHE_HOME", in_tmp("xdg"), 1);
	setenv("HOME", in_tmp("home"), 1);
	c = symcache__from_env(NULL, false);
	cr_assert_str_eq(symcache__dir(c), in_tmp("xdg/analyze"));
	symcache__delete(c);
	setenv("XDG_CACHE_HOME", "relative/xdg", 1);	/* ignored, as the XDG spec says */
	c = symcache__from_env(NULL, false);
	cr_assert_str_eq(symcache__dir(c), in_tmp("home/.cache/analyze"));
	symcache__delete(c);
	unsetenv("XDG_CACHE_HOME");
	c = symcache__from_env(NULL, false);
	cr_assert_str_eq(symcache__dir(c), in_tmp("home/.cache/analyze"));
	symcache__delete(c);

	/* nothing is made until an index is written, then the missing directories are */
	c = symcache__new(in_tmp("deep/er/cache"), 0);
	cr_assert_neq(access(in_tmp("deep"), F_OK), 0);
	{
		char name[64];

		store_kind(c, in_tmp("deep/er/cache"), 0, name);
	}
	symcache__delete(c);
}

Test(symcache, usage_and_clear_count_only_indexes)
{
	char *dir = in_tmp("cache"), name[64], p[600];
	struct symcache *c = symcache__new(dir, 0);
	static const char *const foreign[] = {
		"README", "0123456789abcdef.sym", "0123456789ABCDEF0123456789ABCDEF.sym",
		"0123456789abcdef0123456789abcdef.sym.bak", "0123456789abcdef0123456789abcdefxsym",
	};
	const char *stale_tmp = "0123456789abcdef0123456789abcdef.sym.tmp.1.1";
	const char *fresh_tmp = "fedcba9876543210fedcba9876543210.sym.tmp.2.2";
	u64 files, bytes, want_bytes;

	cr_assert_eq(symcache__usage(c, &files, &bytes), 0, "a cache not made yet is empty");
	cr_assert_eq(files, 0);
	cr_assert_eq(bytes, 0);
	cr_assert_eq(symcache__clear(c), 0);
	for (int k = 0; k < 3; k++)
		store_kind(c, dir, k, name);
	want_bytes = index_bytes(dir);
	for (size_t i = 0; i < ARRAY_SIZE(foreign); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, foreign[i]);
		write_text(p, "someone else's\n");
	}
	snprintf(p, sizeof(p), "%s/0123456789abcdef0123456789abcdee.sym", dir);
	cr_assert_eq(mkdir(p, 0700), 0);	/* an index's name on a directory: not ours */
	snprintf(p, sizeof(p), "%s/%s", dir, stale_tmp);
	write_text(p, "a dead writer's\n");
	set_mtime(p, time(NULL) - 7200);
	snprintf(p, sizeof(p), "%s/%s", dir, fresh_tmp);
	write_text(p, "a live writer's\n");

	cr_assert_eq(symcache__usage(c, &files, &bytes), 0);
	cr_assert_eq(files, 3);
	cr_assert_eq(bytes, want_bytes, "usage counts %llu bytes, the indexes take %llu",
		     (unsigned long long)bytes, (unsigned long long)want_bytes);
	cr_assert_not(has_file(dir, stale_tmp), "a dead writer's temporary file was kept");
	cr_assert(has_file(dir, fresh_tmp), "a live writer's temporary file was removed");

	/* (its return says the directory with an index's name could not go: not asserted) */
	symcache__clear(c);
	cr_assert_eq(symcache__usage(c, &files, &bytes), 0);
	cr_assert_eq(files, 0);
	cr_assert_eq(bytes, 0);
	for (size_t i = 0; i < ARRAY_SIZE(foreign); i++)
		cr_assert(has_file(dir, foreign[i]), "clear removed %s", foreign[i]);
	cr_assert(has_file(dir, "0123456789abcdef0123456789abcdee.sym"));
	snprintf(p, sizeof(p), "%s/0123456789abcdef0123456789abcdee.sym", dir);
	cr_assert_eq(rmdir(p), 0);
	store_kind(c, dir, 0, name);
	cr_assert_eq(symcache__clear(c), 0);
	cr_assert_eq(symcache__usage(c, &files, &bytes), 0);
	cr_assert_eq(files, 0);
	cr_assert_not(has_file(dir, fresh_tmp));
	symcache__delete(c);
}

/* ---- threads ---- */

#define THREADS 8
#define ROUNDS 40

struct worker {
	pthread_t thread;
	struct symcache *shared;	/* one cache object for all, or NULL: one each */
	const char *dir;
	int id;
	const struct symtab *want[2];
	const char *files[2];
	atomic_int *hits, *failures;
	char failure[256];
};

static void *worker_run(void *arg)
{
	struct worker *w = arg;
	struct symcache *c = w->shared ? w->shared : symcache__new(w->dir, 0);

	for (int r = 0; r < ROUNDS; r++) {
		/* even rounds the key every thread uses, odd rounds this thread's own */
		int which = (r + w->id) % 2;
		const char *kind = r % 2 ? kinds[w->id % 8] : "shared";
		struct symtab st;
		int ret;
		const char *why;

		symtab__init(&st);
		ret = kallsyms_cached(c, kind, w->files[which], 0, &st, NULL);
		why = ret < 0 ? "a load failed" : tables_differ(w->want[which], &st);
		if (ret == 1)
			atomic_fetch_add(w->hits, 1);
		if (why) {
			if (atomic_fetch_add(w->failures, 1) == 0)
				snprintf(w->failure, sizeof(w->failure), "thread %d round %d: %s",
					 w->id, r, why);
		}
		symtab__exit(&st);
	}
	if (!w->shared)
		symcache__delete(c);
	return NULL;
}

static void concurrent(bool shared)
{
	struct worker w[THREADS];
	struct symtab want[2];
	const char *files[2] = { FIX "/forks/kallsyms", FIX "/callchain/kallsyms" };
	atomic_int hits = 0, failures = 0;
	struct symcache *c = shared ? symcache__new(in_tmp("cache"), 0) : NULL;
	char names[32][64];

	for (int i = 0; i < 2; i++) {
		symtab__init(&want[i]);
		cr_assert_eq(symtab__load_kallsyms_file(&want[i], files[i], 0, NULL), 0);
	}
	for (int i = 0; i < THREADS; i++) {
		w[i] = (struct worker){ .shared = c, .dir = in_tmp("cache"), .id = i,
					.want = { &want[0], &want[1] }, .files = { files[0], files[1] },
					.hits = &hits, .failures = &failures };
		cr_assert_eq(pthread_create(&w[i].thread, NULL, worker_run, &w[i]), 0);
	}
	for (int i = 0; i < THREADS; i++)
		pthread_join(w[i].thread, NULL);
	for (int i = 0; i < THREADS && failures; i++)
		if (w[i].failure[0])
			cr_log_error("%s", w[i].failure);
	cr_assert_eq(failures, 0, "%d loads gave another table", (int)failures);
	cr_assert_gt(hits, 0, "no load used an index");
	/* the keys: "shared" with either file (the last writer's), and each thread's own */
	cr_assert_leq(index_files(in_tmp("cache"), names, 32), 2 + THREADS);
	{
		DIR *d = opendir(in_tmp("cache"));
		struct dirent *de;

		while ((de = readdir(d)))
			cr_assert_null(strstr(de->d_name, ".tmp."), "left behind: %s", de->d_name);
		closedir(d);
	}
	symcache__delete(c);
	for (int i = 0; i < 2; i++)
		symtab__exit(&want[i]);
}

Test(symcache, threads_share_one_cache) { concurrent(true); }
Test(symcache, threads_with_a_cache_each) { concurrent(false); }
