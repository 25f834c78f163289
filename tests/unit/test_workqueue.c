/* Unit tests for lib/workqueue: queue/flush, nested flush, parallel_for, shutdown under load. */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/workqueue.h"
#include "tests/unit/gate.h"
#include "lib/xalloc.h"

/* An item that increments its own slot: a slot at 1 means "ran exactly once". */
struct slot_work {
	struct work work;
	int *slot;
};

static void slot_work_run(struct work *work)
{
	struct slot_work *sw = container_of(work, struct slot_work, work);

	(*sw->slot)++;
}

static void queue_slots_with(struct workqueue *wq, struct slot_work *items, int *slots, size_t n,
			     void (*func)(struct work *work))
{
	for (size_t i = 0; i < n; i++) {
		items[i].work.func = func;
		items[i].slot = &slots[i];
		workqueue__queue(wq, &items[i].work);
	}
}

static void queue_slots(struct workqueue *wq, struct slot_work *items, int *slots, size_t n)
{
	queue_slots_with(wq, items, slots, n, slot_work_run);
}

static void assert_all_once(const int *slots, size_t n)
{
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(slots[i], 1, "slot %zu ran %d times", i, slots[i]);
}

Test(workqueue, nr_threads)
{
	struct workqueue *wq = workqueue__new(1);

	cr_assert_not_null(wq);
	cr_assert_eq(workqueue__nr_threads(wq), 1);
	workqueue__destroy(wq);

	wq = workqueue__new(0);
	cr_assert_eq(workqueue__nr_threads(wq), (int)sysconf(_SC_NPROCESSORS_ONLN));
	workqueue__destroy(wq);

	wq = workqueue__new(3);
	cr_assert_eq(workqueue__nr_threads(wq), 3);
	workqueue__flush(wq);	/* empty queue: returns at once */
	workqueue__destroy(wq);
	workqueue__destroy(NULL);
}

struct affinity_work {
	struct work work;
	pthread_barrier_t *barrier;
	cpu_set_t seen;
};

static void note_affinity(struct work *work)
{
	struct affinity_work *a = container_of(work, struct affinity_work, work);

	pthread_getaffinity_np(pthread_self(), sizeof(a->seen), &a->seen);
	pthread_barrier_wait(a->barrier);	/* one item per worker: each waits for the other */
}

/* Workers start away from their creator's CPU, but then may run on every CPU it may. */
Test(workqueue, workers_may_run_everywhere, .timeout = 10)
{
	struct workqueue *wq = workqueue__new(2);
	struct affinity_work items[2];
	pthread_barrier_t barrier;
	cpu_set_t all;

	cr_assert_eq(sched_getaffinity(0, sizeof(all), &all), 0);
	pthread_barrier_init(&barrier, NULL, 3);
	for (int i = 0; i < 2; i++) {
		items[i] = (struct affinity_work){ .work.func = note_affinity, .barrier = &barrier };
		workqueue__queue(wq, &items[i].work);
	}
	pthread_barrier_wait(&barrier);	/* not a flush: this thread runs neither item */
	workqueue__flush(wq);
	for (int i = 0; i < 2; i++)
		cr_assert(CPU_EQUAL(&items[i].seen, &all), "worker %d kept a narrower CPU set", i);
	workqueue__destroy(wq);
	pthread_barrier_destroy(&barrier);
}

static void many_small(int nr_threads)
{
	enum { N = 100000 };
	struct workqueue *wq = workqueue__new(nr_threads);
	struct slot_work *items = xcalloc(N, sizeof(*items));
	int *slots = xcalloc(N, sizeof(*slots));

	queue_slots(wq, items, slots, N);
	workqueue__flush(wq);
	assert_all_once(slots, N);

	/* A struct work may be queued again once it has run. */
	queue_slots(wq, items, slots, N / 2);
	workqueue__flush(wq);
	for (size_t i = 0; i < N; i++)
		cr_assert_eq(slots[i], i < N / 2 ? 2 : 1);
	workqueue__destroy(wq);
	free(items);
	free(slots);
}

Test(workqueue, many_small_items) { many_small(4); }
Test(workqueue, many_small_items_one_thread) { many_small(1); }

/*
 * A huge item alongside small ones: the huge item does not finish until every small item has
 * run, so the pool must run the small items on the other threads meanwhile.
 */
enum { HUGE_SMALL = 2000 };
static pthread_mutex_t huge_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t huge_cond = PTHREAD_COND_INITIALIZER;
static int huge_small_done;
static u64 huge_sum;

static void huge_small_run(struct work *work)
{
	slot_work_run(work);
	pthread_mutex_lock(&huge_lock);
	if (++huge_small_done == HUGE_SMALL)
		pthread_cond_signal(&huge_cond);
	pthread_mutex_unlock(&huge_lock);
}

static void huge_run(struct work *work)
{
	u64 sum = 0;

	for (u64 i = 0; i < 20000000; i++)
		sum += i ^ (sum >> 3);
	huge_sum = sum;
	pthread_mutex_lock(&huge_lock);
	while (huge_small_done < HUGE_SMALL)
		pthread_cond_wait(&huge_cond, &huge_lock);
	pthread_mutex_unlock(&huge_lock);
}

Test(workqueue, huge_item_alongside_small, .timeout = 10)
{
	struct workqueue *wq = workqueue__new(2);
	struct work huge = { .func = huge_run };
	struct slot_work *items = xcalloc(HUGE_SMALL, sizeof(*items));
	int *slots = xcalloc(HUGE_SMALL, sizeof(*slots));
	u64 expect = 0;

	workqueue__queue(wq, &huge);
	queue_slots_with(wq, items, slots, HUGE_SMALL, huge_small_run);
	workqueue__flush(wq);
	for (u64 i = 0; i < 20000000; i++)
		expect += i ^ (expect >> 3);
	cr_assert_eq(huge_sum, expect);
	cr_assert_eq(huge_small_done, HUGE_SMALL);
	assert_all_once(slots, HUGE_SMALL);
	workqueue__destroy(wq);
	free(items);
	free(slots);
}

/* Nested flush: a parent queues children, flushes, and checks they all ran. */
enum { CHILDREN = 64 };
struct parent_work {
	struct work work;
	struct workqueue *wq;
	struct slot_work children[CHILDREN];
	int slots[CHILDREN];
	int children_done_at_flush;	/* written by the parent item, read after flush */
};

static void parent_run(struct work *work)
{
	struct parent_work *p = container_of(work, struct parent_work, work);
	int done = 0;

	queue_slots(p->wq, p->children, p->slots, CHILDREN);
	workqueue__flush(p->wq);
	for (int i = 0; i < CHILDREN; i++)
		done += p->slots[i] == 1;
	p->children_done_at_flush = done;
}

static void nested_flush(int nr_threads, int nr_parents)
{
	struct workqueue *wq = workqueue__new(nr_threads);
	struct parent_work *parents = xcalloc(nr_parents, sizeof(*parents));

	for (int i = 0; i < nr_parents; i++) {
		parents[i].work.func = parent_run;
		parents[i].wq = wq;
		workqueue__queue(wq, &parents[i].work);
	}
	workqueue__flush(wq);
	for (int i = 0; i < nr_parents; i++) {
		cr_assert_eq(parents[i].children_done_at_flush, CHILDREN, "parent %d", i);
		assert_all_once(parents[i].slots, CHILDREN);
	}
	workqueue__destroy(wq);
	free(parents);
}

Test(workqueue, nested_flush_one_thread, .timeout = 10) { nested_flush(1, 1); }
Test(workqueue, nested_flush_one_thread_many_parents, .timeout = 10) { nested_flush(1, 20); }
Test(workqueue, nested_flush_concurrent_parents, .timeout = 10) { nested_flush(4, 50); }

/* Two levels: a grandparent item flushes while its children flush theirs. */
struct grand_work {
	struct work work;
	struct workqueue *wq;
	struct parent_work parents[4];
	bool ok;
};

static void grand_run(struct work *work)
{
	struct grand_work *g = container_of(work, struct grand_work, work);

	for (int i = 0; i < 4; i++) {
		g->parents[i].work.func = parent_run;
		g->parents[i].wq = g->wq;
		workqueue__queue(g->wq, &g->parents[i].work);
	}
	workqueue__flush(g->wq);
	g->ok = true;
	for (int i = 0; i < 4; i++)
		g->ok &= g->parents[i].children_done_at_flush == CHILDREN;
}

Test(workqueue, nested_flush_two_levels, .timeout = 10)
{
	for (int nr_threads = 1; nr_threads <= 3; nr_threads++) {
		struct workqueue *wq = workqueue__new(nr_threads);
		struct grand_work *g = xcalloc(3, sizeof(*g));

		for (int i = 0; i < 3; i++) {
			g[i].work.func = grand_run;
			g[i].wq = wq;
			workqueue__queue(wq, &g[i].work);
		}
		workqueue__flush(wq);
		for (int i = 0; i < 3; i++)
			cr_assert(g[i].ok, "grandparent %d, %d threads", i, nr_threads);
		workqueue__destroy(wq);
		free(g);
	}
}

/* parallel_for */
struct range_counts {
	atomic_int *counts;
};

static void count_index(size_t i, void *arg)
{
	struct range_counts *rc = arg;

	atomic_fetch_add_explicit(&rc->counts[i], 1, memory_order_relaxed);
}

static void check_parallel_for(struct workqueue *wq, size_t start, size_t end, size_t chunk)
{
	enum { SIZE = 5000 };
	struct range_counts rc = { xcalloc(SIZE, sizeof(atomic_int)) };

	cr_assert_eq(workqueue__parallel_for(wq, start, end, chunk, count_index, &rc), 0);
	for (size_t i = 0; i < SIZE; i++)
		cr_assert_eq(atomic_load(&rc.counts[i]), i >= start && i < end,
			     "[%zu, %zu) chunk %zu: index %zu", start, end, chunk, i);
	free(rc.counts);
}

static const size_t chunk_sizes[] = { 0, 1, 3, 7, 64, 1000, 4093, 4096, 100000, SIZE_MAX };

Test(workqueue, parallel_for_coverage)
{
	struct workqueue *wq = workqueue__new(4);

	for (size_t c = 0; c < ARRAY_SIZE(chunk_sizes); c++) {
		check_parallel_for(wq, 0, 4096, chunk_sizes[c]);
		check_parallel_for(wq, 3, 4096, chunk_sizes[c]);
		check_parallel_for(wq, 17, 18, chunk_sizes[c]);
		check_parallel_for(wq, 100, 100, chunk_sizes[c]);	/* empty */
		check_parallel_for(NULL, 5, 2000, chunk_sizes[c]);	/* inline */
	}
	workqueue__destroy(wq);
}

Test(workqueue, parallel_for_one_thread)
{
	struct workqueue *wq = workqueue__new(1);

	for (size_t c = 0; c < ARRAY_SIZE(chunk_sizes); c++)
		check_parallel_for(wq, 1, 4999, chunk_sizes[c]);
	workqueue__destroy(wq);
}

static void must_not_run(size_t i, void *arg)
{
	cr_assert_fail("fn called for index %zu", i);
}

Test(workqueue, parallel_for_empty_and_invalid)
{
	struct workqueue *wq = workqueue__new(2);

	cr_assert_eq(workqueue__parallel_for(wq, 0, 0, 1, must_not_run, NULL), 0);
	cr_assert_eq(workqueue__parallel_for(wq, 42, 42, 0, must_not_run, NULL), 0);
	cr_assert_eq(workqueue__parallel_for(wq, 10, 5, 1, must_not_run, NULL), -EINVAL);
	cr_assert_eq(workqueue__parallel_for(wq, 0, 5, 1, NULL, NULL), -EINVAL);
	workqueue__destroy(wq);
}

/* parallel_for from inside work items, several at once, with fn nesting another level. */
enum { PF_N = 3000 };
struct pfor_work {
	struct work work;
	struct workqueue *wq;
	atomic_int counts[PF_N];
	int ret;
};

static void pfor_inner(size_t i, void *arg)
{
	struct pfor_work *pw = arg;

	atomic_fetch_add_explicit(&pw->counts[i], 1, memory_order_relaxed);
}

static void pfor_outer(size_t i, void *arg)
{
	struct pfor_work *pw = arg;

	/* Each outer index covers 100 inner indices through a nested parallel_for. */
	if (workqueue__parallel_for(pw->wq, i * 100, (i + 1) * 100, 7, pfor_inner, pw))
		pw->ret = -1;
}

static void pfor_work_run(struct work *work)
{
	struct pfor_work *pw = container_of(work, struct pfor_work, work);

	pw->ret = workqueue__parallel_for(pw->wq, 0, PF_N / 100, 2, pfor_outer, pw);
}

static void parallel_for_in_items(int nr_threads)
{
	enum { ITEMS = 6 };
	struct workqueue *wq = workqueue__new(nr_threads);
	struct pfor_work *items = xcalloc(ITEMS, sizeof(*items));

	for (int k = 0; k < ITEMS; k++) {
		items[k].work.func = pfor_work_run;
		items[k].wq = wq;
		workqueue__queue(wq, &items[k].work);
	}
	workqueue__flush(wq);
	for (int k = 0; k < ITEMS; k++) {
		cr_assert_eq(items[k].ret, 0);
		for (size_t i = 0; i < PF_N; i++)
			cr_assert_eq(atomic_load(&items[k].counts[i]), 1, "item %d index %zu", k, i);
	}
	workqueue__destroy(wq);
	free(items);
}

Test(workqueue, parallel_for_from_work_item, .timeout = 10) { parallel_for_in_items(3); }
Test(workqueue, parallel_for_from_work_item_one_thread, .timeout = 10) { parallel_for_in_items(1); }

/* A work item that flushes from inside parallel_for's fn. */
struct pfor_flush {
	struct workqueue *wq;
	struct slot_work children[32][8];
	int slots[32][8];
	atomic_int ok;
};

static void pfor_flush_fn(size_t i, void *arg)
{
	struct pfor_flush *pf = arg;
	int done = 0;

	queue_slots(pf->wq, pf->children[i], pf->slots[i], 8);
	workqueue__flush(pf->wq);
	for (int j = 0; j < 8; j++)
		done += pf->slots[i][j] == 1;
	if (done == 8)
		atomic_fetch_add(&pf->ok, 1);
}

Test(workqueue, flush_inside_parallel_for, .timeout = 10)
{
	for (int nr_threads = 1; nr_threads <= 4; nr_threads += 3) {
		struct workqueue *wq = workqueue__new(nr_threads);
		struct pfor_flush *pf = xcalloc(1, sizeof(*pf));

		pf->wq = wq;
		cr_assert_eq(workqueue__parallel_for(wq, 0, 32, 1, pfor_flush_fn, pf), 0);
		cr_assert_eq(atomic_load(&pf->ok), 32);
		workqueue__destroy(wq);
		free(pf);
	}
}

/* Shutdown under load: destroy with work still queued, some of it queueing more. */
struct chain_work {
	struct work work;
	struct workqueue *wq;
	int *slots;
	int index, left;
};

static void chain_run(struct work *work)
{
	struct chain_work *cw = container_of(work, struct chain_work, work);

	cw->slots[cw->index]++;
	if (cw->left) {
		struct chain_work *next = xmalloc(sizeof(*next));

		*next = *cw;
		next->index++;
		next->left--;
		workqueue__queue(cw->wq, &next->work);
	}
	free(cw);	/* items may free themselves */
}

Test(workqueue, destroy_while_queued, .timeout = 10)
{
	enum { N = 20000, CHAINS = 8, CHAIN_LEN = 50 };

	for (int nr_threads = 1; nr_threads <= 4; nr_threads += 3) {
		struct workqueue *wq = workqueue__new(nr_threads);
		struct slot_work *items = xcalloc(N, sizeof(*items));
		int *slots = xcalloc(N, sizeof(*slots));
		int *chain_slots = xcalloc(CHAINS * CHAIN_LEN, sizeof(*chain_slots));

		for (int c = 0; c < CHAINS; c++) {
			struct chain_work *cw = xmalloc(sizeof(*cw));

			*cw = (struct chain_work){ .work.func = chain_run, .wq = wq,
						   .slots = chain_slots, .index = c * CHAIN_LEN,
						   .left = CHAIN_LEN - 1 };
			workqueue__queue(wq, &cw->work);
		}
		queue_slots(wq, items, slots, N);
		workqueue__destroy(wq);
		assert_all_once(slots, N);
		assert_all_once(chain_slots, CHAINS * CHAIN_LEN);
		free(items);
		free(slots);
		free(chain_slots);
	}
}

/* flush waits for items that are already running on other threads, not only queued ones. */
static atomic_int slow_done;

static void slow_run(struct work *work)
{
	usleep(20000);
	atomic_fetch_add(&slow_done, 1);
}

Test(workqueue, flush_waits_for_running_items, .timeout = 10)
{
	struct workqueue *wq = workqueue__new(4);
	struct work slow[4];

	for (int i = 0; i < 4; i++) {
		slow[i].func = slow_run;
		workqueue__queue(wq, &slow[i]);
	}
	usleep(5000);	/* let workers take them: flush then has nothing to help with */
	workqueue__flush(wq);
	cr_assert_eq(atomic_load(&slow_done), 4);
	workqueue__destroy(wq);
}

Test(workqueue, help_runs_the_oldest_pending_item)
{
	struct workqueue *wq = workqueue__new(1);
	struct gate gate;
	struct slot_work items[2];
	int slots[2] = { 0 };

	/* the only worker is held: items wait, and help runs them here, oldest first */
	gate_close(&gate, wq);
	queue_slots(wq, items, slots, 2);
	cr_assert(workqueue__help(wq));
	cr_assert_eq(slots[0], 1);
	cr_assert_eq(slots[1], 0);
	cr_assert(workqueue__help(wq));
	cr_assert_eq(slots[1], 1);
	cr_assert_not(workqueue__help(wq), "nothing pending");
	gate_open(&gate);
	workqueue__destroy(wq);
}
