/*
 * session: one perf.data file opened for reading: header, attrs (evsels), the feature
 * section table, and the walk of its records in the order perf delivers them (ordered by
 * timestamp across FINISHED_ROUND windows). Owns the file mapping; parses bytes, never
 * interprets what records mean (that is machine/ and analyzer/).
 */
#ifndef READERS_SESSION_H
#define READERS_SESSION_H

#include "lib/compiler.h"
#include "lib/hashmap.h"
#include "readers/format.h"
#include "readers/sample.h"

#define SMALL_IDS 4096

struct evsel {
	struct perf_event_attr attr;
	const u64 *ids;	/* points into the file */
	size_t nr_ids;
	char *name;
	int idx;
};

struct events_stats {
	u64 nr_events[PERF_RECORD_HEADER_MAX];	/* [0] is the total */
	u64 nr_unknown_events;	/* well-formed records of types we do not know, skipped */
	u64 total_lost, total_lost_samples;
	u64 nr_unordered_events;
};

struct perf_session {
	const char *path;
	u8 *base;	/* private writable mapping of the whole file */
	size_t size;
	bool swap;	/* opposite-endian file, converted in place on read */
	struct perf_file_header header;
	struct evsel *evsels;
	size_t nr_evsels;
	struct hashmap id_map;	/* sample id -> evsel */
	int id_pos, is_pos;	/* from the first evsel's sample_type */
	struct evsel **small_ids;	/* ids below SMALL_IDS (perf's are small): direct lookup */
	struct perf_file_section feat[HEADER_FEAT_BITS];
	struct events_stats stats;
};

/* Which record a callback sees, and where it came from. */
struct event_ctx {
	const struct perf_event_header *event;
	struct perf_sample sample;
	struct evsel *evsel;	/* NULL for records that map to no attr */
	u64 file_offset;
};

struct event_consumer {
	/* Every record, in delivery order. Return 0 to go on, non-zero to stop with that value. */
	int (*deliver)(struct event_consumer *consumer, struct event_ctx *ctx);
};

/* Open and validate. Returns 0, or -1 with error_get() describing the problem. */
int perf_session__open(struct perf_session *session, const char *path);
void perf_session__close(struct perf_session *session);

bool perf_session__has_feat(const struct perf_session *session, int feat);

/* Walk all records, delivering them in perf's order. 0, or -1 with error_get() set. */
int perf_session__process(struct perf_session *session, struct event_consumer *consumer);

struct evsel *perf_session__evsel_of(struct perf_session *session,
				     const struct perf_event_header *event);

const char *perf_event__name(u32 type);

#endif
