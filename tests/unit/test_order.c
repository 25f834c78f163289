/* Unit tests for readers/order: perf's FINISHED_ROUND delivery rules. */
#include <criterion/criterion.h>

#include "readers/order.h"

struct log {
	u64 ts[64];
	uintptr_t ev[64];
	int n;
};

static int record(void *data, struct ordered_entry *e)
{
	struct log *log = data;

	log->ts[log->n] = e->timestamp;
	log->ev[log->n++] = (uintptr_t)e->event;
	return 0;
}

Test(order, round_flushes_up_to_previous_round_max)
{
	struct ordered_queue q;
	struct log log = { 0 };

	ordered_queue_init(&q, record, &log);
	ordered_queue_push(&q, 30, (void *)1, 0);
	ordered_queue_push(&q, 10, (void *)2, 0);
	ordered_queue_push(&q, 20, (void *)3, 0);
	ordered_queue_flush_round(&q);	/* first round: nothing yet, remembers 30 */
	cr_assert_eq(log.n, 0);
	ordered_queue_push(&q, 25, (void *)4, 0);
	ordered_queue_push(&q, 40, (void *)5, 0);
	ordered_queue_flush_round(&q);	/* delivers <= 30 */
	cr_assert_eq(log.n, 4);
	cr_assert_eq(log.ts[0], 10);
	cr_assert_eq(log.ts[1], 20);
	cr_assert_eq(log.ts[2], 25);
	cr_assert_eq(log.ts[3], 30);
	ordered_queue_flush_all(&q);
	cr_assert_eq(log.n, 5);
	cr_assert_eq(log.ts[4], 40);
	ordered_queue_exit(&q);
}

Test(order, ties_keep_arrival_order)
{
	struct ordered_queue q;
	struct log log = { 0 };

	ordered_queue_init(&q, record, &log);
	for (uintptr_t i = 1; i <= 20; i++)
		ordered_queue_push(&q, 100 + (i % 2), (void *)i, 0);
	ordered_queue_flush_all(&q);
	cr_assert_eq(log.n, 20);
	for (int i = 0; i < 10; i++) {
		cr_assert_eq(log.ev[i], 2 * (uintptr_t)i + 2);	/* even ids: ts 100 */
		cr_assert_eq(log.ev[10 + i], 2 * (uintptr_t)i + 1);
	}
	ordered_queue_exit(&q);
}

Test(order, empty_round_keeps_old_limit)
{
	struct ordered_queue q;
	struct log log = { 0 };

	ordered_queue_init(&q, record, &log);
	ordered_queue_push(&q, 5, (void *)1, 0);
	ordered_queue_flush_round(&q);	/* limit 0 -> nothing; next limit 5 */
	ordered_queue_flush_round(&q);	/* delivers 5; next limit stays 5 (max) */
	cr_assert_eq(log.n, 1);
	ordered_queue_flush_round(&q);	/* empty: perf returns early */
	ordered_queue_push(&q, 3, (void *)2, 0);	/* queue was empty: max becomes 3 */
	ordered_queue_push(&q, 9, (void *)3, 0);
	ordered_queue_flush_round(&q);	/* limit 5: delivers 3 */
	cr_assert_eq(log.n, 2);
	cr_assert_eq(log.ts[1], 3);
	cr_assert_eq(q.nr_unordered, 1);	/* 3 < last flushed 5 */
	ordered_queue_exit(&q);
}

/* A record that goes by unqueued still raises the limit of the next round. */
Test(order, noted_timestamps_pace_rounds_like_queued_ones)
{
	struct ordered_queue q;
	struct log log = { 0 };

	ordered_queue_init(&q, record, &log);
	ordered_queue_push(&q, 10, (void *)1, 0);
	ordered_queue_note(&q, 50);	/* a record the consumer ignores */
	ordered_queue_flush_round(&q);	/* remembers 50 */
	ordered_queue_push(&q, 40, (void *)2, 0);
	ordered_queue_push(&q, 60, (void *)3, 0);
	ordered_queue_flush_round(&q);	/* delivers <= 50 */
	cr_assert_eq(log.n, 2);
	cr_assert_eq(log.ts[1], 40);
	ordered_queue_flush_all(&q);
	cr_assert_eq(log.n, 3);
	ordered_queue_exit(&q);
}

static int fail_on_second(void *data, struct ordered_entry *e)
{
	struct log *log = data;

	log->ts[log->n++] = e->timestamp;
	return log->n == 2 ? -1 : 0;
}

/*
 * A failed delivery still consumes its entry (the deliverer let go of the record): what is
 * left queued afterwards is exactly what was not delivered (found by fuzzing: a pipe whose
 * last records failed in the final flush had its failed record's buffer put twice).
 */
Test(order, failed_delivery_consumes_the_entry)
{
	struct ordered_queue q;
	struct log log = { 0 };

	ordered_queue_init(&q, fail_on_second, &log);
	ordered_queue_push(&q, 10, (void *)1, 0);
	ordered_queue_push(&q, 20, (void *)2, 0);
	ordered_queue_push(&q, 30, (void *)3, 0);
	cr_assert_eq(ordered_queue_flush_all(&q), -1);
	cr_assert_eq(log.n, 2);
	cr_assert_eq(q.nr - q.head, 1);
	cr_assert_eq(q.entries[q.head].timestamp, 30);
	ordered_queue_exit(&q);
}
