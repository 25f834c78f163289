/* Unit tests for analyzer/aggregate: delivery order across threads, hold and release. */
#include <criterion/criterion.h>
#include <stdatomic.h>

#include "analyzer/aggregate.h"
#include "lib/workqueue.h"

#define NR_ITEMS 10000

struct seen {
	u64 next;	/* the addr the next finished item must carry */
	bool in_order;
	atomic_int running;	/* aggregators at work at once: at most one */
	bool overlapped;
	u64 fixed;
};

static void check_order(void *data, struct agg_item *item)
{
	struct seen *seen = data;

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
		struct agg_item *item = aggregate__slot(agg);

		*item = (struct agg_item){ .addr = deferred ? ~i : i, .deferred = deferred };
		aggregate__commit(agg);
	}
}

static void run_order(struct workqueue *wq)
{
	struct seen seen = { .in_order = true };
	struct aggregate agg;

	aggregate__init(&agg, wq, check_order, &seen);
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

static void fix_item(void *data, struct agg_item *item)
{
	struct seen *seen = data;

	cr_assert(item->deferred);
	item->addr = ~item->addr;
	item->deferred = false;
	seen->fixed++;
}

Test(aggregate, hold_keeps_items_until_release_fixes_them)
{
	struct workqueue *wq = workqueue__new(1);
	struct seen seen = { .in_order = true };
	struct aggregate agg;

	aggregate__init(&agg, wq, check_order, &seen);
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
