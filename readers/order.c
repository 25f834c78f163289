/* perf's ordered-events delivery rules over an array of pending records; see order.h. */
#include "readers/order.h"

#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"

void ordered_queue_init(struct ordered_queue *q, ordered_deliver_fn deliver, void *data)
{
	memset(q, 0, sizeof(*q));
	q->deliver = deliver;
	q->data = data;
}

void ordered_queue_exit(struct ordered_queue *q)
{
	free(q->entries);
	free(q->tmp);
	free(q->runs);
	memset(q, 0, sizeof(*q));
}

void ordered_queue_push(struct ordered_queue *q, u64 timestamp, void *event, u64 file_offset)
{
	ordered_queue_note(q, timestamp);
	ARRAY_GROW(q->entries, q->alloc, q->nr + 1);
	q->entries[q->nr++] = (struct ordered_entry){
		.timestamp = timestamp,
		.seq = q->seq++,
		.file_offset = file_offset,
		.event = event,
	};
}

static bool entry_less(const struct ordered_entry *x, const struct ordered_entry *y)
{
	return x->timestamp < y->timestamp || (x->timestamp == y->timestamp && x->seq < y->seq);
}

/*
 * Stable sort of the pending records. They arrive as a few ascending runs (the sorted rest of
 * the last round, then one run per CPU buffer), so a natural merge sort costs O(n log runs).
 */
static void sort_pending(struct ordered_queue *q)
{
	struct ordered_entry *a = q->entries + q->head, *src, *dst;
	size_t n = q->nr - q->head, nr_runs = 0;

	for (size_t i = 0; i < n; i++) {
		if (i == 0 || entry_less(&a[i], &a[i - 1])) {
			ARRAY_GROW(q->runs, q->runs_alloc, nr_runs + 2);
			q->runs[nr_runs++] = i;
		}
	}
	if (nr_runs <= 1)
		return;
	q->runs[nr_runs] = n;
	ARRAY_GROW(q->tmp, q->tmp_alloc, n);
	src = a;
	dst = q->tmp;
	while (nr_runs > 1) {
		size_t out_runs = 0;

		for (size_t r = 0; r < nr_runs; r += 2) {
			size_t lo = q->runs[r], mid = q->runs[MIN(r + 1, nr_runs)];
			size_t hi = q->runs[MIN(r + 2, nr_runs)], i = lo, j = mid, k = lo;

			while (i < mid && j < hi)
				dst[k++] = entry_less(&src[j], &src[i]) ? src[j++] : src[i++];
			while (i < mid)
				dst[k++] = src[i++];
			while (j < hi)
				dst[k++] = src[j++];
			q->runs[out_runs++] = lo;
		}
		q->runs[out_runs] = n;
		nr_runs = out_runs;
		struct ordered_entry *t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
}

/*
 * How far ahead the first stage of prefetching runs, the stages spread evenly up to the
 * entry delivered: 16 entries apart for 3 stages (a thread), 5 for 9 (a thread and the
 * search in its maps). Closer steps for few stages cost more than they save (threads-100000:
 * 18% more of the reading thread's time at 6 apart).
 */
#define PREFETCH_AHEAD 48

static int flush_upto(struct ordered_queue *q, u64 limit)
{
	int ret = 0, stages = 0;
	size_t step = 0;

	if (!limit)
		return 0;
	sort_pending(q);
	while (q->head < q->nr && q->entries[q->head].timestamp <= limit) {
		/* the step divided out only when the stages change: a division costs per entry */
		if (q->prefetch_stages != stages) {
			stages = q->prefetch_stages;
			step = stages ? PREFETCH_AHEAD / (size_t)stages : 0;
		}
		/* stage s at step * (stages - s) entries ahead of the one delivered */
		for (int stage = 0; q->prefetch && stage < stages; stage++) {
			size_t ahead = q->head + step * (size_t)(stages - stage);

			if (ahead < q->nr)
				q->prefetch(q->data, &q->entries[ahead], stage);
		}
		ret = q->deliver(q->data, &q->entries[q->head]);
		/* delivered, even when it failed: the entry is gone (deliver let go of it) */
		q->last_flush = q->entries[q->head].timestamp;
		q->head++;
		if (ret)
			break;
	}
	/* compact when the delivered prefix dominates */
	if (q->head == q->nr) {
		q->head = q->nr = 0;
	} else if (q->head > (q->nr - q->head)) {
		memmove(q->entries, q->entries + q->head, (q->nr - q->head) * sizeof(*q->entries));
		q->nr -= q->head;
		q->head = 0;
	}
	return ret;
}

int ordered_queue_flush_round(struct ordered_queue *q)
{
	int ret;

	if (q->nr == q->head)
		return 0;
	ret = flush_upto(q, q->next_flush);
	if (!ret)
		q->next_flush = q->max_timestamp;
	return ret;
}

int ordered_queue_flush_all(struct ordered_queue *q)
{
	if (q->nr == q->head)
		return 0;
	q->next_flush = UINT64_MAX;
	return flush_upto(q, UINT64_MAX);
}
