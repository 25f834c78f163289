/* Unit tests for analyzer/aggregate: delivery order across threads, hold and release. */
#include <criterion/criterion.h>
#include <stdatomic.h>

#include "analyzer/hist/aggregate.h"
#include "lib/workqueue.h"

#define NR_ITEMS 10000

struct seen {
	u64 next;	/* the addr the next finished item must carry */
	bool in_order;
	atomic_int running;	/* aggregators at work at once: at most one */
	bool overlapped;
	u64 fixed;
};

/* An item as a caller might make it; aggregate knows only its size. */
struct item {
	u64 addr;
	bool deferred;
};

static void check_order(void *data, void *p)
{
	struct seen *seen = data;
	struct item *item = p;

	if (atomic_fetch_add(&seen->running, 1))
		seen->overlapped = true;
	if (item->addr != seen->next || item->deferred)
		seen->in_order = false;
	seen->next++;
	atomic_fetch_sub(&seen->running, 1);
}

static void add_items(struct aggregate *agg, u64 from, u64 to, bool deferred)
{
	for (u64 i = from; i < to; i++) {
		struct item *item = aggregate__slot(agg, sizeof(*item));

		*item = (struct item){ .addr = deferred ? ~i : i, .deferred = deferred };
		aggregate__commit(agg);
	}
}

static void run_order(struct workqueue *wq)
{
	struct seen seen = { .in_order = true };
	struct aggregate agg;

	aggregate__init(&agg, wq, check_order, NULL, &seen);
	add_items(&agg, 0, NR_ITEMS, false);
	aggregate__drain(&agg);
	cr_assert_eq(seen.next, NR_ITEMS, "every item finished once");
	cr_assert(seen.in_order, "in the order they were handed on");
	cr_assert_not(seen.overlapped, "one aggregator at a time");
	add_items(&agg, NR_ITEMS, NR_ITEMS + 10, false);	/* usable again after a drain */
	aggregate__exit(&agg);
	cr_assert_eq(seen.next, NR_ITEMS + 10);
	cr_assert(seen.in_order);
}

Test(aggregate, in_order_on_the_calling_thread)
{
	run_order(NULL);
}

Test(aggregate, in_order_on_workers)
{
	struct workqueue *wq = workqueue__new(3);

	run_order(wq);
	workqueue__destroy(wq);
}

static void fix_item(void *data, void *p)
{
	struct seen *seen = data;
	struct item *item = p;

	if (!item->deferred)
		return;
	item->addr = ~item->addr;
	item->deferred = false;
	seen->fixed++;
}

Test(aggregate, hold_keeps_items_until_release_fixes_them)
{
	struct workqueue *wq = workqueue__new(1);
	struct seen seen = { .in_order = true };
	struct aggregate agg;

	aggregate__init(&agg, wq, check_order, NULL, &seen);
	add_items(&agg, 0, 3000, false);
	aggregate__hold(&agg);
	add_items(&agg, 3000, 5000, true);	/* what cannot be resolved yet */
	add_items(&agg, 5000, 6000, false);
	workqueue__flush(wq);
	cr_assert_leq(seen.next, 3000, "nothing held was finished");
	aggregate__release(&agg, fix_item, &seen);
	cr_assert_eq(seen.fixed, 2000, "release fixes each deferred item once");
	add_items(&agg, 6000, 7000, false);
	aggregate__drain(&agg);
	cr_assert_eq(seen.next, 7000);
	cr_assert(seen.in_order, "held items keep their place");
	aggregate__exit(&agg);
	workqueue__destroy(wq);
}

/* Items of many sizes: each arrives whole and in order, and is put once. */
struct sized_seen {
	u64 next, put;
	bool intact;
};

static size_t item_size(u64 i)
{
	return sizeof(u64) + (size_t)(i * 37 % 3000);
}

static void check_sized(void *data, void *p)
{
	struct sized_seen *seen = data;
	const u64 *words = p;
	size_t n = item_size(seen->next) / sizeof(u64);

	if (words[0] != seen->next)
		seen->intact = false;
	for (size_t k = 1; k < n; k++)
		if (words[k] != words[0] * 1000 + k)
			seen->intact = false;
	seen->next++;
}

static void put_sized(void *data, void *p)
{
	struct sized_seen *seen = data;

	(void)p;
	seen->put++;	/* on this thread: no lock needed */
}

Test(aggregate, items_of_any_size_stay_whole_and_in_order)
{
	struct workqueue *wq = workqueue__new(1);
	struct sized_seen seen = { .intact = true };
	struct aggregate agg;

	aggregate__init(&agg, wq, check_sized, put_sized, &seen);
	for (u64 i = 0; i < 5000; i++) {
		u64 *words = aggregate__slot(&agg, item_size(i));

		words[0] = i;
		for (size_t k = 1; k < item_size(i) / sizeof(u64); k++)
			words[k] = i * 1000 + k;
		aggregate__commit(&agg);
	}
	aggregate__drain(&agg);
	cr_assert_eq(seen.next, 5000, "every item finished once");
	cr_assert(seen.intact, "in order, with their bytes");
	cr_assert_eq(seen.put, 5000, "every item put once");
	aggregate__exit(&agg);
	workqueue__destroy(wq);
}
