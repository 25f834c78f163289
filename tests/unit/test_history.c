/* Unit tests for machine/history: the model's past as a sample at any key saw it. */
#include <criterion/criterion.h>

#include "machine/history.h"
#include "tests/unit/events.h"

static const struct symsrc_config cfg = { .buildid_dir = "/nonexistent", .symfs = "" };

/* Records fed at keys (time, pos): pos counts up, so ties in time keep their order. */
struct feed {
	struct machine m;
	struct history h;
	u64 pos;
};

static void feed_init(struct feed *f)
{
	machine__init(&f->m, &cfg);
	history__init(&f->h, &f->m);
	f->pos = 0;
}

static void feed_exit(struct feed *f)
{
	history__exit(&f->h);
	machine__exit(&f->m);
}

/* The key the next record gets. */
static struct model_key at(struct feed *f, u64 time)
{
	f->h.now = (struct model_key){ time, f->pos += 8 };
	return f->h.now;
}

static struct model_key key(u64 time, u64 pos)
{
	return (struct model_key){ time, pos };
}

static const char *comm_at(const struct feed *f, s32 tid, struct model_key k)
{
	const struct thread_version *v = history__thread_at(&f->h, tid, k);

	if (!v)
		return NULL;
	return v->comm ? comm__str(v->comm) : comm__str(&v->thread->comm0);
}

Test(history, comms_and_threads_as_they_were)
{
	struct feed f;

	feed_init(&f);
	at(&f, 100);
	put_task(&f.m, PERF_RECORD_FORK, 10, 1, 10, 1, 100);
	at(&f, 200);
	put_comm_at(&f.m, 10, 10, "first", 200);
	at(&f, 300);
	put_comm_at(&f.m, 10, 10, "second", 300);	/* an exec: a new comm */
	history__finish(&f.h, &f.m);

	cr_assert_null(history__thread_at(&f.h, 10, key(50, 0)), "before its FORK, no thread");
	cr_assert_not_null(history__thread_at(&f.h, 10, key(150, 0)));
	/* the first name overrides the placeholder in place: earlier samples show it too */
	cr_assert_str_eq(comm_at(&f, 10, key(150, 0)), "first");
	cr_assert_str_eq(comm_at(&f, 10, key(250, 0)), "first");
	cr_assert_str_eq(comm_at(&f, 10, key(350, 0)), "second");
	/* a sample at the record's own time but later in the file sees it; earlier, not */
	cr_assert_str_eq(comm_at(&f, 10, key(300, 1000)), "second");
	cr_assert_str_eq(comm_at(&f, 10, key(300, 1)), "first");
	cr_assert_str_eq(comm_at(&f, 0, key(1, 0)), "swapper", "the idle thread, from the start");
	feed_exit(&f);
}

Test(history, a_reused_tid_is_a_new_thread)
{
	struct feed f;
	const struct thread_version *a, *b;

	feed_init(&f);
	at(&f, 100);
	put_task(&f.m, PERF_RECORD_FORK, 20, 1, 20, 1, 100);
	at(&f, 110);
	put_comm_at(&f.m, 20, 20, "old", 110);
	at(&f, 500);
	put_task(&f.m, PERF_RECORD_FORK, 20, 1, 20, 1, 500);	/* the tid again */
	at(&f, 510);
	put_comm_at(&f.m, 20, 20, "new", 510);
	history__finish(&f.h, &f.m);

	a = history__thread_at(&f.h, 20, key(200, 0));
	b = history__thread_at(&f.h, 20, key(600, 0));
	cr_assert(a && b && a->thread != b->thread);
	cr_assert_str_eq(comm_at(&f, 20, key(200, 0)), "old");
	cr_assert_str_eq(comm_at(&f, 20, key(600, 0)), "new");
	feed_exit(&f);
}

Test(history, maps_as_they_were)
{
	struct feed f;
	struct span_cache cache = { 0 };
	const struct thread_version *v;
	const struct map_span *s;

	feed_init(&f);
	at(&f, 100);
	put_task(&f.m, PERF_RECORD_FORK, 30, 1, 30, 1, 100);
	at(&f, 200);
	put_mmap(&f.m, 30, 0x1000, 0x4000, "/lib/a.so");
	at(&f, 300);
	put_mmap(&f.m, 30, 0x2000, 0x1000, "/lib/b.so");	/* splits a */
	history__finish(&f.h, &f.m);

	v = history__thread_at(&f.h, 30, key(150, 0));
	cr_assert_not_null(v);
	cr_assert_null(history__find_map(&f.h, v->maps, 0x2800, key(150, 0), &cache),
		       "nothing mapped yet");
	s = history__find_map(&f.h, v->maps, 0x2800, key(250, 0), &cache);
	cr_assert(s && !strcmp(s->map->dso->long_name, "/lib/a.so"));
	s = history__find_map(&f.h, v->maps, 0x2800, key(350, 0), &cache);
	cr_assert(s && !strcmp(s->map->dso->long_name, "/lib/b.so"), "b over a, later");
	s = history__find_map(&f.h, v->maps, 0x3800, key(350, 0), &cache);
	cr_assert(s && !strcmp(s->map->dso->long_name, "/lib/a.so"), "a's tail stays");
	cr_assert_eq(s->start, 0x3000);
	/* the cache answers only for the key it holds */
	s = history__find_map(&f.h, v->maps, 0x2800, key(250, 0), &cache);
	cr_assert(s && !strcmp(s->map->dso->long_name, "/lib/a.so"));
	cr_assert_null(history__find_map(&f.h, v->maps, 0x6000, key(350, 0), &cache));
	feed_exit(&f);
}

/*
 * The cached lookup answers as the plain one, whatever the order of the questions: the
 * cache holds for the keys after its version's up to the tid's next version's own key.
 */
Test(history, cached_lookups_answer_as_plain_ones)
{
	struct feed f;
	struct version_cache c = { 0 };
	unsigned int seed = 26;

	feed_init(&f);
	for (u64 t = 100; t < 1000; t += 100) {
		s32 tid = 40 + (s32)(t / 300);

		at(&f, t);
		put_task(&f.m, PERF_RECORD_FORK, tid, 1, tid, 1, t);
		at(&f, t + 10);
		put_comm_at(&f.m, tid, tid, t % 200 ? "odd" : "even", t + 10);
		at(&f, t + 50);
		put_task(&f.m, PERF_RECORD_EXIT, tid, tid, tid, tid, t + 50);
	}
	history__finish(&f.h, &f.m);
	for (int i = 0; i < 20000; i++) {
		s32 tid = 40 + rand_r(&seed) % 5;
		/* runs of one tid, keys around the records' own (time and place) */
		struct model_key k = key(90 + (u64)(rand_r(&seed) % 1000), (u64)(rand_r(&seed) % 200));

		for (int run = 0; run < 3; run++, k.time += (u64)(rand_r(&seed) % 20))
			cr_assert_eq(history__thread_at_cached(&f.h, tid, k, &c),
				     history__thread_at(&f.h, tid, k), "tid %d at %llu.%llu", tid,
				     (unsigned long long)k.time, (unsigned long long)k.pos);
	}
	feed_exit(&f);
}
