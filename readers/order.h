/*
 * order: perf's ordered-events queue. Records are queued with their timestamp and delivered
 * in timestamp order, ties in arrival order, when a FINISHED_ROUND allows it: a round flush
 * delivers everything up to the largest timestamp seen before the previous round, then
 * remembers the current largest (perf's ordered-events.c, OE_FLUSH__ROUND). Records are not
 * copied: the queue holds pointers into the file mapping.
 */
#ifndef READERS_ORDER_H
#define READERS_ORDER_H

#include "lib/compiler.h"

struct chunk;
struct evsel;

struct ordered_entry {
	u64 timestamp;
	u64 seq;
	u64 file_offset;
	void *event;
	struct chunk *owner;	/* buffer holding the record, put once delivered; or NULL */
	struct evsel *evsel;	/* the record's attr, found when it was queued */
};

typedef int (*ordered_deliver_fn)(void *data, struct ordered_entry *entry);
/*
 * Optional: an entry that will be delivered soon, prefetch_stages times as it comes closer
 * (stage 0 farthest), for the owner to prefetch what delivering it will read in steps (a
 * table slot, then the object the slot points to...). A hint: it changes nothing.
 */
typedef void (*ordered_prefetch_fn)(void *data, const struct ordered_entry *entry, int stage);
#define ORDERED_PREFETCH_STAGES 9

struct ordered_queue {
	struct ordered_entry *entries;	/* pending records are entries[head, nr) */
	size_t head, nr, alloc;
	struct ordered_entry *tmp;	/* merge buffer */
	size_t tmp_alloc;
	size_t *runs;
	size_t runs_alloc;
	u64 seq;
	u64 max_timestamp;
	u64 next_flush;
	u64 last_flush;
	u64 nr_unordered;
	ordered_deliver_fn deliver;
	ordered_prefetch_fn prefetch;	/* NULL: none */
	/* how many stages (at most ORDERED_PREFETCH_STAGES); the owner may change it any time */
	int prefetch_stages;
	void *data;
};

void ordered_queue_init(struct ordered_queue *q, ordered_deliver_fn deliver, void *data);
void ordered_queue_exit(struct ordered_queue *q);
void ordered_queue_push(struct ordered_queue *q, u64 timestamp, void *event, u64 file_offset);
/*
 * A record with this timestamp went by unqueued (its consumer ignores it): it raises the
 * largest timestamp seen, which paces the round flushes, as it would have queued.
 */
static inline void ordered_queue_note(struct ordered_queue *q, u64 timestamp)
{
	if (timestamp < q->last_flush)
		q->nr_unordered++;
	/* perf raises max_timestamp only when the record lands at the tail of its list. */
	if (q->nr == q->head || timestamp >= q->max_timestamp)
		q->max_timestamp = timestamp;
}
/* On FINISHED_ROUND. Returns what deliver returned if non-zero, else 0. */
int ordered_queue_flush_round(struct ordered_queue *q);
/* At the end of the input: everything. */
int ordered_queue_flush_all(struct ordered_queue *q);
/* Number of records waiting. */
static inline size_t ordered_queue_pending(const struct ordered_queue *q)
{
	return q->nr - q->head;
}

#endif
