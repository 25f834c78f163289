/* Unit tests for machine/: maps overlap semantics, threads, fork/comm/exit handling. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/containers/strpool.h"
#include "machine/machine.h"
#include "tests/unit/events.h"
#include "tests/unit/gate.h"

/* A dso as a sample finds it: named short too. */
static struct dso *new_dso(struct dsos *dsos, struct strpool *pool, const char *name)
{
	struct dso *dso = dsos__findnew(dsos, pool, name);

	dso__name_short(dso, pool);
	return dso;
}

Test(maps, overlapping_insert_splits_and_trims)
{
	struct strpool pool;
	struct dsos dsos;
	struct maps *maps;
	struct dso *a, *b;
	struct map *m;

	strpool_init(&pool);
	dsos__init(&dsos);
	a = new_dso(&dsos, &pool, "/lib/a.so");
	b = new_dso(&dsos, &pool, "/lib/b.so");
	maps = maps__new();
	m = map__new(0x1000, 0x5000, 0x0, a);
	maps__insert(maps, m);
	map__put(m);
	m = map__new(0x2000, 0x3000, 0x100, b);
	maps__insert(maps, m);
	map__put(m);
	cr_assert_eq(maps->nr, 3);
	m = maps__find(maps, 0x1800);
	cr_assert_eq(m->dso, a);
	cr_assert_eq(m->end, 0x2000);
	m = maps__find(maps, 0x2800);
	cr_assert_eq(m->dso, b);
	cr_assert_eq(map__map_ip(m, 0x2800), 0x900);
	m = maps__find(maps, 0x4000);
	cr_assert_eq(m->dso, a);
	cr_assert_eq(m->start, 0x3000);
	cr_assert_eq(m->pgoff, 0x2000);	/* tail keeps its file offset */
	cr_assert_null(maps__find(maps, 0x5000));
	cr_assert_null(maps__find(maps, 0xfff));
	maps__put(maps);
	dso__put(a);
	dso__put(b);
	dsos__exit(&dsos);
	strpool_exit(&pool);
}

/* A naive model of perf's mappings: a list where each insert trims and splits what it covers. */
struct naive_map {
	u64 start, end, pgoff;
	int id;
};

static size_t naive_insert(struct naive_map *v, size_t n, struct naive_map m)
{
	struct naive_map out[4096];
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		struct naive_map o = v[i];

		if (o.end <= m.start || o.start >= m.end) {
			out[k++] = o;
			continue;
		}
		if (o.start < m.start)
			out[k++] = (struct naive_map){ o.start, m.start, o.pgoff, o.id };
		if (o.end > m.end)
			out[k++] = (struct naive_map){ m.end, o.end, o.pgoff + (m.end - o.start), o.id };
	}
	out[k++] = m;
	memcpy(v, out, k * sizeof(*v));
	return k;
}

/* A lookup in maps against the naive model, after prefetching every step of it. */
static void check_lookup(struct maps *maps, const struct naive_map *naive, size_t nr,
			 struct dso **dso, u64 ip)
{
	const struct naive_map *want = NULL;
	struct map *got;

	for (size_t step = 0; step < 10; step++)
		maps__prefetch(maps, ip, step);
	for (size_t i = 0; i < nr; i++)
		if (ip >= naive[i].start && ip < naive[i].end)
			want = &naive[i];
	got = maps__find(maps, ip);
	if (!want) {
		cr_assert_null(got, "ip %#llx", (unsigned long long)ip);
		return;
	}
	cr_assert_not_null(got, "ip %#llx", (unsigned long long)ip);
	cr_assert_eq(got->start, want->start);
	cr_assert_eq(got->end, want->end);
	cr_assert_eq(got->pgoff, want->pgoff);
	cr_assert_eq(got->dso, dso[want->id]);
}

/*
 * Inserts in every order (rising, falling, random, overlapping) answer lookups as the naive
 * model does, whether lookups come between inserts (the tail merged often) or not at all.
 */
static void maps_against_naive(unsigned seed, int mode, bool lookups_between)
{
	static struct naive_map naive[4096];
	struct strpool pool;
	struct dsos dsos;
	struct dso *dso[8];
	struct maps *maps = maps__new();
	size_t nr = 0;

	strpool_init(&pool);
	dsos__init(&dsos);
	for (int i = 0; i < 8; i++) {
		char name[32];

		snprintf(name, sizeof(name), "/lib/l%d.so", i);
		dso[i] = new_dso(&dsos, &pool, name);
	}
	srand(seed);
	for (int i = 0; i < 1500; i++) {
		u64 start, len;
		struct map *m;

		if (mode == 0)
			start = 0x10000 + (u64)i * 0x2000;	/* rising */
		else if (mode == 1)
			start = 0x10000000 - (u64)i * 0x2000;	/* falling, as top-down mmaps */
		else
			start = 0x10000 + (u64)(rand() % 4000) * 0x1000;	/* random, overlapping */
		len = mode == 2 ? (u64)(1 + rand() % 8) * 0x1000 : 0x1000;
		m = map__new(start, start + len, (u64)i << 12, dso[i % 8]);
		maps__insert(maps, m);
		map__put(m);
		nr = naive_insert(naive, nr, (struct naive_map){ start, start + len, (u64)i << 12, i % 8 });
		if (lookups_between && i % 7 == 0)
			maps__find(maps, start);
	}
	cr_assert_eq(maps->nr, nr);
	for (int q = 0; q < 20000; q++)
		check_lookup(maps, naive, nr, dso, 0x8000 + (u64)rand() % 0x10010000);
	maps__put(maps);
	for (int i = 0; i < 8; i++)
		dso__put(dso[i]);
	dsos__exit(&dsos);
	strpool_exit(&pool);
}

/*
 * Many maps with holes between them, looked up enough to be indexed (maps.index), then
 * changed by inserts that land in holes, overlap (trim, split) and remove maps, each followed
 * by lookups: every answer is the naive model's, whether the index was just built, is stale or
 * is rebuilt.
 */
Test(maps, indexed_lookups_follow_inserts_overlaps_and_removals)
{
	static struct naive_map naive[4096];
	struct strpool pool;
	struct dsos dsos;
	struct dso *dso[8];
	struct maps *maps = maps__new();
	size_t nr = 0;
	u64 top = 0x10000 + 1000 * 0x3000;

	strpool_init(&pool);
	dsos__init(&dsos);
	for (int i = 0; i < 8; i++) {
		char name[32];

		snprintf(name, sizeof(name), "/lib/l%d.so", i);
		dso[i] = new_dso(&dsos, &pool, name);
	}
	srand(11);
	for (int i = 0; i < 1000; i++) {
		u64 start = 0x10000 + (u64)i * 0x3000, len = (u64)(1 + rand() % 2) * 0x1000;
		struct map *m = map__new(start, start + len, (u64)i << 12, dso[i % 8]);

		maps__insert(maps, m);
		map__put(m);
		nr = naive_insert(naive, nr, (struct naive_map){ start, start + len, (u64)i << 12,
								 i % 8 });
	}
	for (int q = 0; q < 2000; q++)
		check_lookup(maps, naive, nr, dso, 0x8000 + (u64)rand() % top);
	cr_assert(maps->index.nr, "looked up enough to be indexed");
	for (int i = 1000; i < 1600; i++) {
		/* in a hole, over parts of several maps, or over whole ones (removing them) */
		u64 start = 0x10000 + (u64)(rand() % 3000) * 0x1000 + (u64)(rand() % 2) * 0x800;
		u64 len = i % 10 == 0 ? (u64)(4 + rand() % 20) * 0x1000 : (u64)(1 + rand() % 3) * 0x800;
		struct map *m = map__new(start, start + len, (u64)i << 12, dso[i % 8]);

		maps__insert(maps, m);
		map__put(m);
		nr = naive_insert(naive, nr, (struct naive_map){ start, start + len, (u64)i << 12,
								 i % 8 });
		/* sometimes few lookups (the index stays off), sometimes enough to index again */
		for (int q = 0; q < (i % 50 == 0 ? 200 : 3); q++)
			check_lookup(maps, naive, nr, dso, 0x8000 + (u64)rand() % top);
	}
	cr_assert_eq(maps->nr, nr);
	for (int q = 0; q < 5000; q++)
		check_lookup(maps, naive, nr, dso, 0x8000 + (u64)rand() % top);
	cr_assert(maps->index.nr);
	maps__put(maps);
	for (int i = 0; i < 8; i++)
		dso__put(dso[i]);
	dsos__exit(&dsos);
	strpool_exit(&pool);
}

Test(maps, rising_inserts_match_naive) { maps_against_naive(1, 0, false); }
Test(maps, falling_inserts_match_naive) { maps_against_naive(2, 1, false); }
Test(maps, falling_inserts_with_lookups_match_naive) { maps_against_naive(3, 1, true); }
Test(maps, random_overlapping_inserts_match_naive) { maps_against_naive(4, 2, false); }
Test(maps, random_overlapping_inserts_with_lookups_match_naive) { maps_against_naive(5, 2, true); }

Test(dsos, same_name_same_dso_and_short_name)
{
	struct strpool pool;
	struct dsos dsos;
	struct dso *a, *b, *k;

	strpool_init(&pool);
	dsos__init(&dsos);
	a = dsos__findnew(&dsos, &pool, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	cr_assert_null(a->short_name, "named short before a sample needs it");
	dso__name_short(a, &pool);
	k = new_dso(&dsos, &pool, "[kernel.kallsyms]");
	b = new_dso(&dsos, &pool, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	cr_assert_eq(a, b);
	cr_assert_str_eq(a->short_name, "libc.so.6");
	cr_assert_str_eq(k->short_name, "[kernel.kallsyms]");
	cr_assert_eq(k->kind, DSO_KIND_KERNEL);
	{
		struct dso *jit = new_dso(&dsos, &pool, "/tmp/perf-4242.map");

		cr_assert_str_eq(jit->short_name, "[JIT] tid 4242");
		dso__put(jit);
	}
	dso__put(a);
	dso__put(b);
	dso__put(k);
	dsos__exit(&dsos);
	strpool_exit(&pool);
}

Test(machine, threads_share_maps_processes_copy)
{
	struct symsrc_config cfg = { .buildid_dir = "/nonexistent", .symfs = "" };
	struct machine m;
	struct thread *parent, *thr, *child;

	machine__init(&m, &cfg);
	put_comm(&m, 100, 100, "server");
	put_mmap(&m, 100, 0x400000, 0x1000, "/usr/bin/server");
	put_fork(&m, 100, 100, 101, 100);	/* a thread */
	put_fork(&m, 200, 100, 200, 100);	/* a process */
	parent = machine__findnew_thread(&m, 100, 100);
	thr = machine__findnew_thread(&m, 100, 101);
	child = machine__findnew_thread(&m, 200, 200);
	cr_assert_eq(thr->maps, parent->maps);
	cr_assert_neq(child->maps, parent->maps);
	cr_assert_not_null(maps__find(child->maps, 0x400800));
	cr_assert_str_eq(thread__comm_str(child), "server");
	cr_assert_eq(child->ppid, 100);
	/* the child's new mapping does not show in the parent */
	put_mmap(&m, 200, 0x800000, 0x1000, "/usr/lib/libx.so");
	cr_assert_null(maps__find(parent->maps, 0x800800));
	put_comm(&m, 200, 200, "worker");
	cr_assert_str_eq(thread__comm_str(child), "worker");
	cr_assert_str_eq(thread__comm_str(parent), "server");
	thread__put(parent);
	thread__put(thr);
	thread__put(child);
	machine__exit(&m);
}

Test(machine, unknown_thread_has_tid_comm_and_idle_is_swapper)
{
	struct symsrc_config cfg = { .buildid_dir = "/nonexistent", .symfs = "" };
	struct machine m;
	struct thread *t, *idle;

	machine__init(&m, &cfg);
	t = machine__findnew_thread(&m, 4242, 4242);
	cr_assert_str_eq(thread__comm_str(t), ":4242");
	idle = machine__findnew_thread(&m, 0, 0);
	cr_assert_str_eq(thread__comm_str(idle), "swapper");
	thread__put(t);
	thread__put(idle);
	machine__exit(&m);
}

#define SEC 1000000000ull

static int count_placeholders(struct thread *t, void *data)
{
	char want[16];

	snprintf(want, sizeof(want), ":%d", t->tid);
	*(int *)data += !strcmp(thread__comm_str(t), want);
	return 0;
}

/* A thread the model made for an MMAP of an unknown task is listed with its ":tid". */
Test(machine, thread_made_inside_the_model_is_listed_with_tid_comm)
{
	struct symsrc_config cfg = { .buildid_dir = "/nonexistent", .symfs = "" };
	struct machine m;
	int placeholders = 0;

	machine__init(&m, &cfg);
	put_mmap(&m, 777, 0x400000, 0x1000, "/usr/bin/unknown");
	machine__for_each_thread(&m, count_placeholders, &placeholders);
	cr_assert_eq(placeholders, 1);
	machine__exit(&m);
}

/*
 * Churn costs nothing that stays: named threads that fork, get sampled and exit intern no
 * string each (no ":tid" placeholder is made for a thread named before anything asks).
 */
Test(machine, churn_of_named_threads_interns_nothing)
{
	struct symsrc_config cfg = { .buildid_dir = "/nonexistent", .symfs = "" };
	struct machine m;
	size_t strings;
	u64 time = SEC;

	machine__init(&m, &cfg);
	put_comm_at(&m, 100, 100, "server", time);
	put_task(&m, PERF_RECORD_FORK, 100, 100, 101, 100, time);
	strings = m.strings.count;
	for (u32 tid = 1000; tid < 3000; tid++) {
		struct thread *t;

		put_task(&m, PERF_RECORD_FORK, 100, 100, tid, 100,
			 time += MACHINE_RETIRE_AFTER_NS / 20);
		t = machine__findnew_thread(&m, 100, (s32)tid);	/* as a sample does */
		cr_assert_str_eq(thread__comm_str(t), "server");
		thread__put(t);
		put_task(&m, PERF_RECORD_EXIT, 100, 100, tid, 100,
			 time += MACHINE_RETIRE_AFTER_NS / 20);
	}
	cr_assert_eq(m.strings.count, strings);
	/*
	 * exited threads stay, as in perf 6.1, for MACHINE_FORGET_AFTER_NS of recorded time (a
	 * tid's FORK and EXIT take a tenth of the retirement delay here); their maps are released
	 * 2 s after their EXIT
	 */
	{
		u32 step = 10, kept = (u32)(MACHINE_FORGET_AFTER_NS / (MACHINE_RETIRE_AFTER_NS / step));

		for (u32 tid = 3000 - kept + 2; tid < 3000 - step - 2; tid++) {
			struct thread *t = machine__find_thread(&m, (s32)tid);

			cr_assert_not_null(t, "tid %u", tid);
			cr_assert(t->exited);
			cr_assert_null(t->maps, "tid %u", tid);
			thread__put(t);
		}
		for (u32 tid = 1000; tid < 3000 - kept - 2; tid++)
			cr_assert_null(machine__find_thread(&m, (s32)tid), "tid %u", tid);
	}
	machine__exit(&m);
}

Test(machine, sample_after_exit_keeps_comm)
{
	struct symsrc_config cfg = { .buildid_dir = "/nonexistent", .symfs = "" };
	struct perf_record_fork ev = {
		.header = { .type = PERF_RECORD_EXIT, .size = sizeof(ev) },
		.pid = 300, .ppid = 1, .tid = 300, .ptid = 1,
	};
	struct machine m;
	struct thread *t;

	machine__init(&m, &cfg);
	put_comm(&m, 300, 300, "short");
	cr_assert_eq(machine__process_event(&m, &ev.header, 0), 0);
	t = machine__findnew_thread(&m, 300, 300);
	cr_assert_str_eq(thread__comm_str(t), "short");
	cr_assert(t->exited);
	thread__put(t);
	machine__exit(&m);
}


/* The stream moves on: a side-band record of an unrelated task at time. */
static void tick(struct machine *m, u64 time)
{
	put_comm_at(m, 9999, 9999, "ticker", time);
}

Test(machine, exit_retires_once_the_stream_is_past_it)
{
	struct symsrc_config cfg = { .buildid_dir = "/nonexistent", .symfs = "" };
	struct machine m;
	struct thread *held, *t;

	machine__init(&m, &cfg);
	put_comm_at(&m, 300, 300, "short", 1 * SEC);
	put_mmap(&m, 300, 0x400000, 0x1000, "/usr/bin/short");
	held = machine__findnew_thread(&m, 300, 300);	/* as a histogram entry holds it */
	put_task(&m, PERF_RECORD_EXIT, 300, 1, 300, 1, 2 * SEC);
	/* samples the kernel sends after EXIT still find the thread, its comm and maps */
	tick(&m, 2 * SEC + MACHINE_RETIRE_AFTER_NS / 2);
	t = machine__find_thread(&m, 300);
	cr_assert_eq(t, held);
	cr_assert(t->exited);
	cr_assert_not_null(maps__find(t->maps, 0x400800));
	thread__put(t);
	/*
	 * past the retirement delay: maps released, the thread still there with its comm (perf
	 * 6.1 keeps exited threads: a sample of the address space's teardown seconds after the
	 * EXIT shows the comm)
	 */
	tick(&m, 2 * SEC + 2 * MACHINE_RETIRE_AFTER_NS);
	cr_assert_null(held->maps);
	t = machine__findnew_thread(&m, 300, 300);
	cr_assert_eq(t, held);
	cr_assert_str_eq(thread__comm_str(t), "short");
	cr_assert_eq(t->tid, 300);
	thread__put(t);
	/* a record that maps something into it again starts new maps */
	put_mmap(&m, 300, 0x500000, 0x1000, "/usr/bin/again");
	cr_assert_not_null(held->maps);
	cr_assert_not_null(maps__find(held->maps, 0x500800));
	cr_assert_null(maps__find(held->maps, 0x400800));
	thread__put(held);
	machine__exit(&m);
}

/*
 * MACHINE_FORGET_AFTER_NS after its EXIT an exited thread leaves the table (threads that come
 * and go cost memory for that much of the recording, not for all of it); a process leader
 * whose maps its threads still use stays.
 */
Test(machine, exited_threads_are_forgotten_after_the_delay)
{
	struct symsrc_config cfg = { .buildid_dir = "/nonexistent", .symfs = "" };
	struct machine m;
	struct thread *held, *t;
	size_t before;

	machine__init(&m, &cfg);
	put_comm_at(&m, 300, 300, "short", 1 * SEC);
	put_comm_at(&m, 400, 400, "server", 1 * SEC);
	put_mmap(&m, 400, 0x400000, 0x1000, "/usr/bin/server");
	put_task(&m, PERF_RECORD_FORK, 400, 400, 401, 400, 1 * SEC);
	held = machine__findnew_thread(&m, 300, 300);	/* as a histogram entry holds it */
	before = machine__nr_threads(&m);
	put_task(&m, PERF_RECORD_EXIT, 300, 1, 300, 1, 2 * SEC);
	put_task(&m, PERF_RECORD_EXIT, 400, 1, 400, 1, 2 * SEC);	/* its thread 401 runs on */
	tick(&m, 2 * SEC + MACHINE_FORGET_AFTER_NS / 2);
	t = machine__find_thread(&m, 300);	/* half the time on: still there */
	cr_assert_eq(t, held);
	thread__put(t);
	tick(&m, 3 * SEC + MACHINE_FORGET_AFTER_NS);
	cr_assert_null(machine__find_thread(&m, 300));
	cr_assert_str_eq(thread__comm_str(held), "short");	/* its holders keep it */
	t = machine__find_thread(&m, 400);
	cr_assert_not_null(t, "a leader whose maps its threads use stays");
	cr_assert_not_null(maps__find(t->maps, 0x400800));
	thread__put(t);
	cr_assert_eq(machine__nr_threads(&m), before);	/* 300 gone, the ticker came */
	thread__put(held);
	machine__exit(&m);
}

/*
 * The thread table against a naive model: many threads come and go (EXIT and retirement
 * remove them from the middle of probe runs), tids are reused; every tid finds exactly the
 * thread the model says, and the table counts them right.
 */
Test(machine, thread_table_matches_naive)
{
	enum { TIDS = 3000, STEPS = 40000 };
	struct symsrc_config cfg = { .buildid_dir = "/nonexistent", .symfs = "" };
	static bool live[TIDS];
	struct machine m;
	u64 seed = 42, time = SEC;
	size_t nr_live = 0;

	machine__init(&m, &cfg);
	for (int step = 0; step < STEPS; step++) {
		u32 tid;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		tid = 1 + (u32)(seed >> 33) % (TIDS - 1);
		time += MACHINE_RETIRE_AFTER_NS / 5;	/* an EXIT retires 6 records later */
		if (!live[tid]) {
			put_task(&m, PERF_RECORD_FORK, tid, 0, tid, 0, time);
			live[tid] = true;
			nr_live++;
		} else if ((seed >> 20) & 1) {
			put_task(&m, PERF_RECORD_EXIT, tid, 0, tid, 0, time);
			live[tid] = false;
			nr_live--;
		}
		if (step % 997 == 0) {
			size_t found = 0;

			for (u32 i = 1; i < TIDS; i++) {
				struct thread *t = machine__find_thread(&m, (s32)i);

				if (live[i]) {
					cr_assert_not_null(t, "tid %u lost at step %d", i, step);
					cr_assert_eq(t->tid, (s32)i);
					cr_assert_not(t->exited);
				}
				found += t && !t->exited;
				thread__put(t);
			}
			cr_assert_eq(found, nr_live);
		}
	}
	/* past every EXIT: every tid seen stays (perf 6.1), only the live ones have maps */
	tick(&m, time + 2 * MACHINE_RETIRE_AFTER_NS);
	for (u32 i = 1; i < TIDS; i++) {
		struct thread *t = machine__find_thread(&m, (s32)i);

		if (t)
			cr_assert_eq(live[i], t->maps != NULL, "tid %u", i);
		else
			cr_assert_not(live[i]);
		thread__put(t);
	}
	machine__exit(&m);
}

Test(machine, keep_exited_keeps_exited_threads)
{
	struct symsrc_config cfg = { .buildid_dir = "/nonexistent", .symfs = "" };
	struct machine m;
	struct thread *t;

	machine__init(&m, &cfg);
	m.keep_exited = true;
	put_comm_at(&m, 300, 300, "short", 1 * SEC);
	put_task(&m, PERF_RECORD_EXIT, 300, 1, 300, 1, 2 * SEC);
	tick(&m, 60 * SEC);
	t = machine__find_thread(&m, 300);
	cr_assert_not_null(t);
	cr_assert(t->exited);
	cr_assert_not_null(t->maps);
	thread__put(t);
	machine__exit(&m);
}

Test(machine, untimed_exit_retires_nothing)
{
	struct symsrc_config cfg = { .buildid_dir = "/nonexistent", .symfs = "" };
	struct machine m;
	struct thread *t;

	machine__init(&m, &cfg);
	put_comm(&m, 300, 300, "short");
	put_task(&m, PERF_RECORD_EXIT, 300, 1, 300, 1, 0);
	tick(&m, 60 * SEC);
	t = machine__find_thread(&m, 300);
	cr_assert_not_null(t);
	thread__put(t);
	machine__exit(&m);
}

/* A leader that exits before its threads stays, with the process's maps, until they go. */
Test(machine, exited_leader_stays_for_its_threads)
{
	struct symsrc_config cfg = { .buildid_dir = "/nonexistent", .symfs = "" };
	struct machine m;
	struct thread *leader, *a, *b;

	machine__init(&m, &cfg);
	put_comm_at(&m, 100, 100, "srv", 1 * SEC);
	put_mmap(&m, 100, 0x400000, 0x1000, "/usr/bin/srv");
	put_task(&m, PERF_RECORD_FORK, 100, 100, 101, 100, 1 * SEC);
	put_task(&m, PERF_RECORD_EXIT, 100, 100, 100, 100, 2 * SEC);
	tick(&m, 2 * SEC + 2 * MACHINE_RETIRE_AFTER_NS);	/* past the leader's retirement */
	leader = machine__find_thread(&m, 100);
	cr_assert_not_null(leader);
	thread__put(leader);
	/* a thread made after the leader's exit still joins the process's maps */
	put_task(&m, PERF_RECORD_FORK, 100, 100, 102, 101, 2 * SEC + 2 * MACHINE_RETIRE_AFTER_NS);
	a = machine__find_thread(&m, 101);
	b = machine__find_thread(&m, 102);
	cr_assert_eq(a->maps, b->maps);
	cr_assert_not_null(maps__find(b->maps, 0x400800));
	thread__put(a);
	thread__put(b);
	put_task(&m, PERF_RECORD_EXIT, 100, 100, 101, 101, 3 * SEC + 2 * MACHINE_RETIRE_AFTER_NS);
	tick(&m, 3 * SEC + 4 * MACHINE_RETIRE_AFTER_NS);
	leader = machine__find_thread(&m, 100);
	cr_assert_not_null(leader, "the leader stays while thread 102 runs");
	thread__put(leader);
	put_task(&m, PERF_RECORD_EXIT, 100, 100, 102, 102, 4 * SEC + 4 * MACHINE_RETIRE_AFTER_NS);
	tick(&m, 4 * SEC + 6 * MACHINE_RETIRE_AFTER_NS);
	for (s32 tid = 101; tid <= 102; tid++) {	/* all retired: the process's maps are gone */
		struct thread *t = machine__find_thread(&m, tid);

		cr_assert_not_null(t);
		cr_assert_null(t->maps, "tid %d", tid);
		thread__put(t);
	}
	/* the leader, its maps gone with its last thread, is past the forget delay: forgotten */
	cr_assert(14 * SEC > MACHINE_FORGET_AFTER_NS);
	cr_assert_null(machine__find_thread(&m, 100));
	machine__exit(&m);
}

/* A FORK that reuses an exited tid replaces the thread; the old EXIT leaves the new alone. */
Test(machine, tid_reuse_replaces_the_thread)
{
	struct symsrc_config cfg = { .buildid_dir = "/nonexistent", .symfs = "" };
	struct machine m;
	struct thread *old, *t;

	machine__init(&m, &cfg);
	put_comm_at(&m, 1, 1, "init", 1 * SEC);
	put_task(&m, PERF_RECORD_FORK, 500, 1, 500, 1, 1 * SEC);
	put_comm_at(&m, 500, 500, "first", 1 * SEC);
	old = machine__findnew_thread(&m, 500, 500);
	put_task(&m, PERF_RECORD_EXIT, 500, 1, 500, 1, 2 * SEC);
	put_task(&m, PERF_RECORD_FORK, 500, 1, 500, 1, 2 * SEC + 1000);
	t = machine__find_thread(&m, 500);
	cr_assert_neq(t, old);
	cr_assert_str_eq(thread__comm_str(t), "init");
	cr_assert_str_eq(thread__comm_str(old), "first");
	tick(&m, 5 * SEC);
	cr_assert_eq(machine__find_thread(&m, 500), t);
	thread__put(t);	/* the find above */
	thread__put(t);
	thread__put(old);
	machine__exit(&m);
}

Test(machine, first_comm_renames_placeholder_in_place_exec_makes_new)
{
	struct symsrc_config cfg = { .buildid_dir = "/nonexistent", .symfs = "" };
	struct machine m;
	struct thread *t;
	struct comm *placeholder, *first;

	machine__init(&m, &cfg);
	t = machine__findnew_thread(&m, 500, 500);
	placeholder = t->comm;
	cr_assert_str_eq(placeholder->str, ":500");
	put_comm(&m, 500, 500, "sh");
	/* a sample taken before the COMM now shows "sh", as perf shows it */
	cr_assert_eq(t->comm, placeholder);
	cr_assert_str_eq(placeholder->str, "sh");
	first = t->comm;
	put_comm(&m, 500, 500, "ls");
	cr_assert_neq(t->comm, first);
	cr_assert_str_eq(first->str, "sh");
	cr_assert_str_eq(thread__comm_str(t), "ls");
	thread__put(t);
	machine__exit(&m);
}

Test(maps, lookup_cache_follows_changes)
{
	struct strpool pool;
	struct dsos dsos;
	struct maps *maps = maps__new();
	struct dso *a, *b;
	struct map *m, *first, *again;

	strpool_init(&pool);
	dsos__init(&dsos);
	a = new_dso(&dsos, &pool, "/lib/a.so");
	b = new_dso(&dsos, &pool, "/lib/b.so");
	m = map__new(0x1000, 0x5000, 0, a);
	maps__insert(maps, m);
	map__put(m);
	cr_assert_eq(maps__find(maps, 0x2800)->dso, a);	/* now the cached answer */
	m = map__new(0x2000, 0x3000, 0, b);
	maps__insert(maps, m);	/* splits the cached map: the cache must not keep it */
	map__put(m);
	cr_assert_eq(maps__find(maps, 0x2800)->dso, b);
	cr_assert_eq(maps__find(maps, 0x1800)->end, 0x2000);
	cr_assert_eq(maps__find(maps, 0x4000)->start, 0x3000);
	/* bounds stretched in place (as the kernel's map is) make maps overlap: then every
	 * lookup is the search's answer, whatever was asked before */
	m = maps__find(maps, 0x1800);
	m->end = 0x2800;
	maps__changed(maps);
	first = maps__find(maps, 0x2400);
	cr_assert_not_null(first);
	cr_assert_eq(maps__find(maps, 0x1200)->dso, a);
	again = maps__find(maps, 0x2400);
	cr_assert_eq(again, first);
	maps__find(maps, 0x2900);
	cr_assert_eq(maps__find(maps, 0x2400), first);
	maps__put(maps);
	dso__put(a);
	dso__put(b);
	dsos__exit(&dsos);
	strpool_exit(&pool);
}

/*
 * DESIGN.md "Scale rules": the object budgets. The checking build's refcount carries its
 * bookkeeping (a slot and the kind): that much more is allowed there.
 */
#define REFCHECK_EXTRA (sizeof(struct refcount) - sizeof(u32))

Test(machine, objects_fit_their_budgets)
{
	cr_expect_leq(sizeof(struct thread), 96 + REFCHECK_EXTRA, "thread: %zu bytes",
		      sizeof(struct thread));
	cr_expect_leq(sizeof(struct map), 48 + REFCHECK_EXTRA, "map: %zu bytes",
		      sizeof(struct map));
	cr_expect_leq(sizeof(struct dso), 160 + REFCHECK_EXTRA, "dso: %zu bytes",
		      sizeof(struct dso));
	cr_expect_leq(sizeof(struct symbol), 16, "symbol: %zu bytes", sizeof(struct symbol));
}

Test(machine, kernel_lookups_wait_while_a_worker_loads_its_symbols)
{
	char path[] = "/tmp/analyze-test-kallsyms-XXXXXX";
	const char text[] = "ffffffff81000000 T _text\n"
			    "ffffffff81000100 T foo\n"
			    "ffffffff81200000 D data_end\n";
	struct symsrc_config cfg = { .buildid_dir = "/nonexistent", .symfs = "", .kallsyms = path };
	struct workqueue *wq = workqueue__new(1);
	struct gate gate;
	struct dso_loader loader;
	struct addr_location al;
	struct machine m;
	struct thread *t;
	int fd = mkstemp(path);
	struct {
		struct perf_record_mmap mm;
		char buf[64];
	} ev = { 0 };

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
	close(fd);
	machine__init(&m, &cfg);
	dso_loader__init(&loader, wq, &m.symsrc);
	m.loader = &loader;
	gate_close(&gate, wq);
	/* the kernel's map as perf record synthesizes it: its symbols load behind the gate */
	ev.mm.header.type = PERF_RECORD_MMAP;
	ev.mm.header.misc = PERF_RECORD_MISC_KERNEL;
	ev.mm.header.size = sizeof(ev);
	ev.mm.pid = ev.mm.tid = (u32)-1;
	ev.mm.start = ev.mm.pgoff = 0xffffffff81000000ull;
	ev.mm.len = 0x1000;
	strcpy(ev.mm.filename, "[kernel.kallsyms]_text");
	cr_assert_eq(machine__process_event(&m, &ev.mm.header, 0), 0);
	t = machine__findnew_thread(&m, 1, 1);

	/* the first hit is the kernel's map whatever its final bounds: no wait */
	cr_assert(machine__resolve_map_nowait(&m, t, PERF_RECORD_MISC_KERNEL,
					      0xffffffff81000010ull, &al));
	cr_assert_eq(al.map, m.kernel_map);
	cr_assert(m.kernel_pending);
	/* past the recorded bounds, the answer depends on the symbols: deferred */
	cr_assert_not(machine__resolve_map_nowait(&m, t, PERF_RECORD_MISC_KERNEL,
						  0xffffffff81100000ull, &al));
	cr_assert_not(machine__resolve_map_nowait(&m, t, PERF_RECORD_MISC_USER,
						  0xffffffff81100000ull, &al),
		      "a user sample at a kernel address falls back to the kernel's maps");
	cr_assert(machine__resolve_map_nowait(&m, t, PERF_RECORD_MISC_USER, 0x400000, &al));
	cr_assert_null(al.map);
	cr_assert_not(machine__kernel_ready(&m));

	gate_open(&gate);
	workqueue__flush(wq);
	cr_assert(machine__kernel_ready(&m));
	cr_assert_not(m.kernel_pending);
	machine__resolve_kernel_map(&m, 0xffffffff81100000ull, &al);
	cr_assert_eq(al.map, m.kernel_map, "the map now spans the kernel's symbols");
	cr_assert(machine__resolve_map_nowait(&m, t, PERF_RECORD_MISC_KERNEL,
					      0xffffffff81100000ull, &al));
	cr_assert_eq(al.map, m.kernel_map);
	thread__put(t);
	workqueue__destroy(wq);
	machine__exit(&m);
	dso_loader__exit(&loader);
	unlink(path);
}
