/*
 * Unit tests for lib/: hashmap, ptrtable, strpool, refcount, slab, outbuf, fmt, error, rbtree,
 * stree.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/fmt.h"
#include "lib/containers/hashmap.h"
#include "lib/outbuf.h"
#include "lib/containers/ptrtable.h"
#include "lib/containers/rbtree.h"
#include "lib/refcount.h"
#include "lib/containers/slab.h"
#include "lib/containers/stree.h"
#include "lib/containers/strpool.h"

Test(hashmap, insert_find_remove_many)
{
	struct hashmap map;

	hashmap_init(&map);
	for (u64 i = 0; i < 10000; i++)
		cr_assert_null(hashmap_insert(&map, i * 7919, (void *)(uintptr_t)(i + 1)));
	cr_assert_eq(map.count, 10000);
	for (u64 i = 0; i < 10000; i++)
		cr_assert_eq((uintptr_t)hashmap_find(&map, i * 7919), i + 1);
	cr_assert_null(hashmap_find(&map, 3));
	for (u64 i = 0; i < 10000; i += 2)
		cr_assert_eq((uintptr_t)hashmap_remove(&map, i * 7919), i + 1);
	for (u64 i = 0; i < 10000; i++) {
		void *v = hashmap_find(&map, i * 7919);

		if (i % 2)
			cr_assert_eq((uintptr_t)v, i + 1);
		else
			cr_assert_null(v);
	}
	/* reinsert over tombstones, replace returns the old value */
	cr_assert_null(hashmap_insert(&map, 0, (void *)1));
	cr_assert_eq((uintptr_t)hashmap_insert(&map, 0, (void *)2), 1);
	hashmap_exit(&map);
}

Test(hashmap, iterate_visits_each_once)
{
	struct hashmap map;
	u64 key, sum = 0;
	void *v;
	size_t it = 0, n = 0;

	hashmap_init(&map);
	for (u64 i = 1; i <= 100; i++)
		hashmap_insert(&map, i, (void *)(uintptr_t)i);
	while (hashmap_next(&map, &it, &key, &v)) {
		cr_assert_eq(key, (uintptr_t)v);
		sum += key;
		n++;
	}
	cr_assert_eq(n, 100);
	cr_assert_eq(sum, 5050);
	hashmap_exit(&map);
}

Test(strpool, interns_once)
{
	struct strpool pool;
	const char *a, *b, *c;
	char big[100000];

	strpool_init(&pool);
	a = strpool_intern(&pool, "swapper");
	b = strpool_intern_len(&pool, "swapperX", 7);
	c = strpool_intern(&pool, "ls");
	cr_assert_eq(a, b);
	cr_assert_neq(a, c);
	cr_assert_str_eq(a, "swapper");
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	cr_assert_str_eq(strpool_intern(&pool, big), big);
	for (int i = 0; i < 5000; i++) {
		char name[32];

		snprintf(name, sizeof(name), "comm-%d", i);
		cr_assert_str_eq(strpool_intern(&pool, name), name);
	}
	cr_assert_eq(strpool_intern(&pool, "swapper"), a);
	strpool_exit(&pool);
}

Test(strpool, store_copies_without_indexing)
{
	struct strpool pool;
	const char *kept[3000];
	char name[64];

	strpool_init(&pool);
	for (int i = 0; i < 3000; i++) {
		snprintf(name, sizeof(name), "/usr/lib/libstored-%d.so", i);
		kept[i] = strpool_store(&pool, name);
		cr_assert_str_eq(kept[i], name);
		cr_assert_neq(kept[i], name);
	}
	cr_assert_eq(pool.count, 0, "stored strings are not in the index");
	/* interning the same text makes its own copy; stored ones stay where they are */
	cr_assert_neq(strpool_intern(&pool, "/usr/lib/libstored-7.so"), kept[7]);
	for (int i = 0; i < 3000; i++) {
		snprintf(name, sizeof(name), "/usr/lib/libstored-%d.so", i);
		cr_assert_str_eq(kept[i], name);
	}
	strpool_exit(&pool);
}

Test(refcount, put_reports_last)
{
	struct refcount r;

	refcount_init(&r, "test");
	refcount_get(&r);
	cr_assert_not(refcount_put(&r));
	cr_assert(refcount_put(&r));
}

struct slab_obj {
	u64 a, b, c;
	u8 tag;
};

/* Objects are zeroed and never overlap, freed ones are handed out again, and the last free
 * gives every chunk back. */
Test(slab, objects_are_zeroed_disjoint_and_the_last_free_releases_all)
{
	enum { N = 20000 };
	static struct slab_obj *objs[N];
	struct slab slab = SLAB_INIT(struct slab_obj);

	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < N; i++) {
			if (objs[i])
				continue;
			objs[i] = slab_zalloc(&slab);
			cr_assert_eq((uintptr_t)objs[i] % 8, 0);
			cr_assert(!objs[i]->a && !objs[i]->b && !objs[i]->c && !objs[i]->tag);
			objs[i]->a = objs[i]->b = objs[i]->c = (u64)i;
			objs[i]->tag = (u8)i;
		}
		for (int i = 0; i < N; i++)
			cr_assert(objs[i]->a == (u64)i && objs[i]->c == (u64)i &&
				  objs[i]->tag == (u8)i, "object %d overwritten", i);
		for (int i = round; i < N; i += 2) {	/* half, then the other half */
			slab_free(&slab, objs[i]);
			objs[i] = NULL;
		}
	}
	for (int i = 0; i < N; i++)
		slab_free(&slab, objs[i]);
	cr_assert_eq(slab.live, 0);
	cr_assert_null(slab.chunks);
	cr_assert_null(slab.free);
}

struct keyed {
	u32 key;
};

/* A poor hash on purpose: few distinct homes, long runs, so removal shifts a lot. */
static u64 keyed_hash(const void *obj)
{
	return (u64)(((const struct keyed *)obj)->key % 97) << 32;
}

static bool keyed_match(const void *obj, const void *key)
{
	return ((const struct keyed *)obj)->key == *(const u32 *)key;
}

/* Random inserts and removals against a naive model: every key finds its object or none. */
Test(ptrtable, matches_naive_model_through_inserts_and_removals)
{
	enum { KEYS = 2000 };
	static struct keyed objs[KEYS];
	static bool in[KEYS];
	struct ptrtable t;
	u64 seed = 7;
	size_t count = 0;

	ptrtable_init(&t, keyed_hash);
	for (u32 i = 0; i < KEYS; i++)
		objs[i].key = i;
	for (int step = 0; step < 50000; step++) {
		u32 k;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		k = (u32)(seed >> 33) % KEYS;
		if (in[k]) {
			cr_assert(ptrtable_remove(&t, &objs[k]));
			cr_assert_not(ptrtable_remove(&t, &objs[k]));
			count--;
		} else {
			ptrtable_insert(&t, &objs[k]);
			count++;
		}
		in[k] = !in[k];
		if (step % 1000 == 0) {
			for (u32 i = 0; i < KEYS; i++)
				cr_assert_eq(ptrtable_find(&t, keyed_hash(&objs[i]), keyed_match, &i),
					     in[i] ? &objs[i] : NULL, "key %u at step %d", i, step);
			cr_assert_eq(t.count, count);
		}
	}
	ptrtable_exit(&t);
}

/* An outbuf over a file of its own (deleted), and what went out through it so far. */
static void ob_open(struct outbuf *ob, size_t cap)
{
	FILE *f = tmpfile();

	cr_assert_not_null(f);
	outbuf_init(ob, dup(fileno(f)), cap);
	fclose(f);
}

static char *ob_text(struct outbuf *ob)
{
	off_t n;
	char *text;

	cr_assert_eq(outbuf_flush(ob), 0);
	n = lseek(ob->fd, 0, SEEK_END);
	text = malloc((size_t)n + 1);
	cr_assert_eq(pread(ob->fd, text, (size_t)n, 0), n);
	text[n] = 0;
	cr_assert_eq(ftruncate(ob->fd, 0), 0);
	lseek(ob->fd, 0, SEEK_SET);
	return text;
}

static void ob_close(struct outbuf *ob)
{
	int fd = ob->fd;

	outbuf_exit(ob);
	close(fd);
}

Test(outbuf, keeps_order_across_puts_streams_and_full_buffers)
{
	struct outbuf ob;
	char want[3000], big[300], *got;
	size_t w = 0;

	ob_open(&ob, 64);	/* small: puts straddle, and some are larger than the buffer */
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	for (int i = 0; i < 5; i++) {
		outbuf_puts(&ob, "line ");
		fprintf(outbuf_stream(&ob), "%d:", i);
		outbuf_putc(&ob, '<');
		outbuf_put(&ob, big, (size_t)(i * 70));
		outbuf_puts(&ob, ">\n");
		w += (size_t)snprintf(want + w, sizeof(want) - w, "line %d:<%.*s>\n", i, i * 70, big);
	}
	got = ob_text(&ob);
	cr_assert_str_eq(got, want);
	cr_assert_eq(ob.error, 0);
	free(got);
	ob_close(&ob);
}

Test(outbuf, a_closed_reader_is_epipe_and_drops_the_rest)
{
	struct outbuf ob;
	int fds[2];

	signal(SIGPIPE, SIG_IGN);
	cr_assert_eq(pipe(fds), 0);
	close(fds[0]);
	outbuf_init(&ob, fds[1], 16);
	outbuf_puts(&ob, "more than sixteen bytes");	/* goes out at once: fails */
	cr_assert_eq(ob.error, EPIPE);
	outbuf_puts(&ob, "dropped");
	cr_assert_eq(outbuf_flush(&ob), -1);
	cr_assert_eq(ob.len, 0);
	outbuf_exit(&ob);
	cr_assert_eq(ob.error, EPIPE);
	close(fds[1]);
}

/* lib/fmt.h against the printf conversions each function stands for */

static const u64 fmt_values[] = { 0, 1, 9, 10, 99, 100, 12345, 99999, 100000, 4294967295ull,
				  4294967296ull, 0x7fffffffffffffffull, 0xffffffffffffffffull,
				  0xffffffff821f236bull, 0x55d5c55db221ull,
				  /* every digit at every place, for fmt_hex8's digits at once */
				  0x0123456789abcdefull, 0xfedcba9876543210ull, 0x9a9a9a9a9a9a9a9aull,
				  0xa09f8e7d6c5b4a39ull };

Test(fmt, numbers_as_printf_prints_them)
{
	struct outbuf ob;
	char want[4096], *got;

	ob_open(&ob, 4096);
	for (size_t i = 0; i < ARRAY_SIZE(fmt_values); i++) {
		u64 v = fmt_values[i];
		int iv = (int)(u32)v;

		for (int width = 0; width <= 20; width += 5) {
			fmt_put_u64(&ob, v, width);
			fmt_put_hex(&ob, v, width);
			fmt_put_u64_zero(&ob, v % 1000000, width);
			fmt_put_int(&ob, iv, width, false);
			fmt_put_int(&ob, iv, width, true);
			fmt_put_int(&ob, -iv, width, true);
			outbuf_putc(&ob, '|');
			snprintf(want, sizeof(want), "%*llu%*llx%0*llu%*d%-*d%-*d|", width,
				 (unsigned long long)v, width, (unsigned long long)v, width,
				 (unsigned long long)(v % 1000000), width, iv, width, iv, width, -iv);
			got = ob_text(&ob);
			cr_assert_str_eq(got, want, "value %llu width %d",
					 (unsigned long long)v, width);
			free(got);
		}
	}
	fmt_put_int(&ob, INT32_MIN, 0, false);
	fmt_put_padded(&ob, "comm", 4, 16, false);
	fmt_put_padded(&ob, "a-comm-longer-than-16", 21, 16, true);
	snprintf(want, sizeof(want), "%d%16s%-16s", INT32_MIN, "comm", "a-comm-longer-than-16");
	got = ob_text(&ob);
	cr_assert_str_eq(got, want);
	free(got);
	ob_close(&ob);

	ob_open(&ob, 4096);	/* every digit count: the powers of ten and their neighbours */
	for (u64 p = 1, i = 0; i < 20; i++, p *= 10) {
		for (u64 v = p - 1; v != p + 2; v++) {
			fmt_put_u64(&ob, v, 0);
			fmt_put_hex(&ob, v, 0);
			outbuf_putc(&ob, ' ');
			snprintf(want, sizeof(want), "%llu%llx ", (unsigned long long)v,
				 (unsigned long long)v);
			got = ob_text(&ob);
			cr_assert_str_eq(got, want);
			free(got);
		}
	}
	ob_close(&ob);

	ob_open(&ob, 8);	/* padding wider than the buffer */
	fmt_put_padded(&ob, "comm", 4, 20, false);
	fmt_put_padded(&ob, "comm", 4, 20, true);
	fmt_put_u64_zero(&ob, 42, 30);
	fmt_put_hex(&ob, 0xffffffff821f236bull, 0);
	snprintf(want, sizeof(want), "%20s%-20s%030d%llx", "comm", "comm", 42,
		 0xffffffff821f236bull);
	got = ob_text(&ob);
	cr_assert_str_eq(got, want);
	free(got);
	ob_close(&ob);
}

/* error_set may wrap the last error's own text (found by fuzzing: it came out doubled). */
Test(error, set_wraps_its_own_text)
{
	error_set("malformed %s record", "MMAP2");
	error_set("%s: offset %#x: %s", "f.data", 0x2884, error_get());
	cr_assert_str_eq(error_get(), "f.data: offset 0x2884: malformed MMAP2 record");
}

/* rbtree: items ordered by the values in ctx; equal values are found, not inserted */
static int by_value(void *ctx, uint32_t item, uint32_t node)
{
	const int *v = ctx;

	return v[item] < v[node] ? -1 : v[item] > v[node];
}

/* The black height under x, or -1 when a red node has a red child or the heights differ. */
static int black_height(const struct rbtree *t, uint32_t x)
{
	int l, r;

	if (x == RBTREE_NONE)
		return 1;
	l = black_height(t, t->link[3 * x]);
	r = black_height(t, t->link[3 * x + 1]);
	if (l < 0 || r < 0 || l != r)
		return -1;
	for (int i = 0; i < 2; i++) {
		uint32_t c = t->link[3 * x + i];

		if (t->red[x] && c != RBTREE_NONE && t->red[c])
			return -1;
	}
	return l + !t->red[x];
}

Test(rbtree, sorts_and_stays_balanced)
{
	enum { N = 1000 };
	static int v[N];
	uint32_t out[N];
	struct rbtree t;

	for (int i = 0; i < N; i++)
		v[i] = (i * 7919) % N;
	rbtree__init(&t, N);
	for (uint32_t i = 0; i < N; i++) {
		cr_assert_eq(rbtree__insert(&t, i, by_value, v), RBTREE_NONE);
		cr_assert_gt(black_height(&t, t.root), 0);
		cr_assert(!t.red[t.root]);
	}
	cr_assert_eq(rbtree__walk(&t, out), N);
	for (int i = 0; i < N; i++)
		cr_assert_eq(v[out[i]], i);
	rbtree__exit(&t);
}

Test(rbtree, finds_equal)
{
	int v[] = { 5, 3, 5 };
	uint32_t out[3];
	struct rbtree t;

	rbtree__init(&t, 3);
	cr_assert_eq(rbtree__insert(&t, 0, by_value, v), RBTREE_NONE);
	cr_assert_eq(rbtree__insert(&t, 1, by_value, v), RBTREE_NONE);
	cr_assert_eq(rbtree__insert(&t, 2, by_value, v), 0);
	cr_assert_eq(rbtree__walk(&t, out), 2);
	cr_assert_eq(out[0], 1);
	cr_assert_eq(out[1], 0);
	rbtree__exit(&t);
}

/* Ascending inserts rotate as the kernel's rb_insert_color: 0..6 end with 1 at the root. */
static int ascending(void *ctx, uint32_t item, uint32_t node)
{
	(void)ctx;
	return item < node ? -1 : 1;
}

Test(rbtree, kernel_shape)
{
	uint32_t out[7];
	struct rbtree t;

	rbtree__init(&t, 7);
	for (uint32_t i = 0; i < 7; i++)
		rbtree__insert(&t, i, ascending, NULL);
	cr_assert_eq(t.root, 1);
	cr_assert_eq(t.link[3 * 1], 0);
	cr_assert_eq(t.link[3 * 1 + 1], 3);
	cr_assert_eq(t.link[3 * 3], 2);
	cr_assert_eq(t.link[3 * 3 + 1], 5);
	cr_assert_eq(rbtree__walk(&t, out), 7);
	for (uint32_t i = 0; i < 7; i++)
		cr_assert_eq(out[i], i);
	rbtree__exit(&t);
}

/* A payload beside the links: the comparison reads it; the same shape; it survives growth. */
static int by_payload(void *ctx, uint32_t item, uint32_t node)
{
	const struct rbtree *t = ctx;
	u64 a = *(const u64 *)rbtree__payload(t, item), b = *(const u64 *)rbtree__payload(t, node);

	return a < b ? -1 : a > b;
}

Test(rbtree, payload)
{
	enum { N = 1000 };
	uint32_t out[N];
	struct rbtree t;

	rbtree__init_payload(&t, 1, 16);
	for (uint32_t i = 0; i < N; i++) {
		rbtree__reserve(&t, i + 1);
		cr_assert_eq((uintptr_t)rbtree__payload(&t, i) % 8, 0);
		*(u64 *)rbtree__payload(&t, i) = (u64)(i * 7919) % N << 32;
		((u64 *)rbtree__payload(&t, i))[1] = ~(u64)i;	/* the rest of its 16 bytes */
		cr_assert_eq(rbtree__insert(&t, i, by_payload, &t), RBTREE_NONE);
	}
	cr_assert_eq(rbtree__walk(&t, out), N);
	for (uint32_t i = 0; i < N; i++) {
		cr_assert_eq(*(u64 *)rbtree__payload(&t, out[i]), (u64)i << 32);
		cr_assert_eq(((u64 *)rbtree__payload(&t, out[i]))[1], ~(u64)out[i]);
	}
	rbtree__exit(&t);
	/* ascending inserts: the kernel's shape, as without a payload */
	rbtree__init_payload(&t, 7, 16);
	for (uint32_t i = 0; i < 7; i++)
		rbtree__insert(&t, i, ascending, NULL);
	cr_assert_eq(t.root, 1);
	cr_assert_eq(rbtree__walk(&t, out), 7);
	for (uint32_t i = 0; i < 7; i++)
		cr_assert_eq(out[i], i);
	rbtree__exit(&t);
}

/* The last key <= x by looking at every key: what stree_find must answer. */
static size_t last_at_or_below(const u64 *keys, size_t nr, u64 x)
{
	size_t last = SIZE_MAX;

	for (size_t i = 0; i < nr && keys[i] <= x; i++)
		last = i;
	return last;
}

static u64 random_u64(void)
{
	return (u64)rand() << 42 ^ (u64)rand() << 21 ^ (u64)rand();
}

/* Sorted keys, gaps and runs of equal keys among them; every kind of question about them. */
static void stree_against_scan(struct stree *t, u64 **keys, size_t *alloc, size_t nr)
{
	u64 probes[] = { 0, 1, UINT64_MAX - 1, UINT64_MAX };

	stree_keys_grow(keys, alloc, nr);
	cr_assert_eq((uintptr_t)*keys % 64, 0);
	for (size_t i = 0; i < nr; i++) {
		u64 prev = i ? (*keys)[i - 1] : 1;

		(*keys)[i] = rand() % 5 ? prev + (u64)(rand() % 3) * 0x1000 : prev + random_u64() % (1ull << 40);
	}
	stree_build(t, *keys, nr);
	cr_assert_eq(t->nr, nr);
	for (size_t i = 0; i < ARRAY_SIZE(probes); i++)
		cr_assert_eq(stree_find(t, *keys, probes[i]), nr ? last_at_or_below(*keys, nr, probes[i])
								  : SIZE_MAX, "nr %zu x %#llx", nr,
			     (unsigned long long)probes[i]);
	for (size_t q = 0; q < 3 * nr + 100; q++) {
		u64 x = nr && q % 2 ? (*keys)[(size_t)rand() % nr] + (u64)(rand() % 3) - 1
				    : random_u64() % ((nr ? (*keys)[nr - 1] : 0) + 0x2000);
		size_t want = last_at_or_below(*keys, nr, x), lines = 0;

		cr_assert_eq(stree_find(t, *keys, x), nr ? want : SIZE_MAX, "nr %zu x %#llx", nr,
			     (unsigned long long)x);
		/* every step of a prefetch reads only lines a search reads, and says how many */
		for (size_t step = 0; step < 12; step++) {
			size_t n = stree_prefetch(t, *keys, x, step, *keys, sizeof(**keys));

			cr_assert(step == 0 || n == lines);
			lines = n;
		}
		if (nr)
			cr_assert_geq(lines, 1);
	}
}

Test(stree, finds_the_last_key_at_or_below_as_a_scan_does)
{
	static const size_t sizes[] = { 1, 2, 15, 16, 17, 255, 256, 257, 4095, 4096, 4097, 40000,
					3, 0, 70000 };
	struct stree t = { 0 };
	u64 *keys = NULL;
	size_t alloc = 0;

	srand(7);
	/* one index rebuilt over arrays growing and shrinking, as a process's maps do */
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		stree_against_scan(&t, &keys, &alloc, sizes[i]);
		stree_clear(&t);
		cr_assert_eq(stree_find(&t, keys, UINT64_MAX - 1), SIZE_MAX);
	}
	stree_exit(&t);
	free(keys);
}
