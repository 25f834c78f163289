/*
 * walk: what the record walks of process.c (files, pipes) and dir.c (--threads
 * directories) share: delivering a record to the consumer, and the checks, counts and hooks
 * every record goes through as it is read. Internal to readers/.
 */
#ifndef READERS_WALK_H
#define READERS_WALK_H

#include "readers/order.h"
#include "readers/reader.h"
#include "readers/session.h"

struct walk {
	struct perf_session *session;
	struct event_consumer *consumer;
	struct ordered_queue queue;
	int error;	/* -1 once error_get() holds a parse error */
	const char *path;	/* the file of the record being delivered, when not the
				   session's own (a data directory's data.N); errors name it */
	struct prefault *prefault;	/* mapping the file ahead, or NULL */
};

/* Deliver one record (evsel: its attr if already known, else NULL). */
int walk__deliver(struct walk *w, struct perf_event_header *event, u64 file_offset,
		  struct evsel *evsel);
/* A record the consumer ignores: checked as delivery would check it, then dropped. */
int walk__check(struct walk *w, struct perf_event_header *event, u64 file_offset,
		struct evsel *evsel);
static inline bool walk__ignores(const struct walk *w, const struct perf_event_header *event)
{
	return event->type < 64 && (w->consumer->ignores >> event->type & 1);
}
/* The ordered queue's callback: deliver, then release the record's buffer. */
int walk__deliver_queued(void *data, struct ordered_entry *e);
bool walk__known_type(u32 type);
/* As a record is read: skip unknown types (counted), swap, count, show the raw hook.
 * 1: go on with it, 0: skip it, -1: error. */
int walk__take_record(struct walk *w, struct reader_record *rec, const char *path);
/* The time ordering uses (0 for user records and records without a usable one). */
u64 walk__record_time(struct perf_session *s, const struct perf_event_header *event,
		      struct evsel **evsel);

/* A --threads directory (dir.c). */
int walk_dir(struct walk *w);

#endif
