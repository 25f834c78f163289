/*
 * session: one perf.data file opened for reading: header, attrs (evsels), the feature
 * section table, and the walk of its records in the order perf delivers them (ordered by
 * timestamp across FINISHED_ROUND windows). Owns the file mapping; parses bytes, never
 * interprets what records mean (that is machine/ and analyzer/).
 */
#ifndef READERS_SESSION_H
#define READERS_SESSION_H

#include "lib/compiler.h"
#include "lib/containers/hashmap.h"
#include "readers/format.h"
#include "readers/decode/sample.h"

#define MAX_PIPE_EVSELS 1024

struct evsel {
	struct perf_event_attr attr;
	struct sample_layout layout;	/* of attr: set with it */
	const u64 *ids;	/* into the file, or ids_owned (pipe mode) */
	size_t nr_ids;
	u64 *ids_owned;
	char *name;
	int idx;
};

/* One data.N file of a perf record --threads directory. */
struct data_file {
	char *path;
	u64 size;
};

struct events_stats {
	u64 nr_events[PERF_RECORD_HEADER_MAX];	/* [0] is the total */
	u64 nr_unknown_events;	/* well-formed records of types we do not know, skipped */
	u64 total_lost, total_lost_samples;
	u64 nr_unordered_events;
};

struct workqueue;

struct perf_session {
	const char *path;	/* as given: a file, a directory, or "-" */
	char *data_path;	/* the file holding the header (path, or path/data) */
	u8 *base;	/* private writable mapping of the whole file (not in pipe mode) */
	size_t size;
	bool is_dir, is_pipe;
	struct data_file *dir_files;	/* data.N, in the directory's order (perf's) */
	size_t nr_dir_files;
	int pipe_fd;	/* pipe mode: the stream, positioned after its 16-byte header */
	u8 *feat_copy[HEADER_FEAT_BITS];	/* pipe mode: features from HEADER_FEATURE records */
	/* pipe mode: the bytes after the last HEADER_TRACING_DATA record, and their offset */
	u8 *tracing_data;
	size_t tracing_data_size;
	u64 tracing_data_offset;
	struct workqueue *wq;	/* workers for reading ahead, or NULL (set by the caller) */
	bool prefault;	/* a large file's pages may be mapped ahead on a thread of their own
			   (set by a caller with a CPU to spare: readers/prefault.h) */
	bool swap;	/* opposite-endian file, converted in place on read */
	struct perf_file_header header;
	struct evsel *evsels;
	size_t nr_evsels;
	struct hashmap id_map;	/* sample id -> evsel */
	int id_pos, is_pos;	/* from the first evsel's sample_type */
	/* ids in [id_base, id_base + id_span) by direct lookup (perf's ids are dense), others
	 * through id_map */
	struct evsel **id_table;
	u64 id_base, id_span;
	struct perf_file_section feat[HEADER_FEAT_BITS];
	struct events_stats stats;
	/*
	 * A data directory's files that are left out: missing, unreadable or cut short, one
	 * sentence each naming the file (perf 6.1 leaves them out silently).
	 */
	char **data_warnings;
	size_t nr_data_warnings;
};

/* Which record a callback sees, and where it came from. */
struct event_ctx {
	const struct perf_event_header *event;
	struct perf_sample sample;
	struct evsel *evsel;	/* NULL for records that map to no attr */
	u64 file_offset;
};

struct event_consumer {
	/*
	 * Every record, in delivery order (FINISHED_ROUND too, after the flush it causes).
	 * Return 0 to go on, non-zero to stop with that value.
	 */
	int (*deliver)(struct event_consumer *consumer, struct event_ctx *ctx);
	/*
	 * Optional: every record as it is read, in file order, before ordering (what perf's
	 * dump_event sees): the file it comes from and its offset there.
	 */
	void (*raw)(struct event_consumer *consumer, const struct perf_event_header *event,
		    const char *path, u64 file_offset);
	/*
	 * Optional: kernel record types (bit 1 << type) deliver() would do nothing with. They
	 * are still read, checked and counted, and their time still paces the ordering, but
	 * they are neither queued nor delivered.
	 */
	u64 ignores;
	/*
	 * Optional: a timed record that deliver() will see soon, prefetch_stages times (at most
	 * ORDERED_PREFETCH_STAGES) as it comes closer (stage 0 first), to prefetch what
	 * delivering it reads, in steps.
	 * A hint: it must change nothing.
	 */
	void (*prefetch)(struct event_consumer *consumer, const struct perf_event_header *event,
			 const struct evsel *evsel, int stage);
	/* How many stages prefetch is called for; the consumer may change it as it goes. */
	int prefetch_stages;
	/*
	 * Every record delivered as it is read, in file order (perf's tool.ordered_events
	 * false: perf script --show-round-events); a single file's, not a directory's.
	 */
	bool unordered;
};

/* Open and validate. Returns 0, or -1 with error_get() describing the problem. */
int perf_session__open(struct perf_session *session, const char *path);
void perf_session__close(struct perf_session *session);

bool perf_session__has_feat(const struct perf_session *session, int feat);
/* A feature section's bytes (from the file, or from a pipe's HEADER_FEATURE), or NULL. */
const u8 *perf_session__feat(const struct perf_session *session, int feat, size_t *size);
/*
 * The tracing data (the TRACING_DATA feature section, or in pipe mode what followed the
 * HEADER_TRACING_DATA record read so far) and its offset in the input, or NULL.
 */
const u8 *perf_session__tracing_data(const struct perf_session *session, size_t *size,
				     u64 *offset);
struct evsel *perf_session__evsel_by_id(const struct perf_session *session, u64 id);
void perf_session__register_id(struct perf_session *session, u64 id, struct evsel *evsel);

/* Pipe mode: records that describe the session itself (HEADER_ATTR, HEADER_FEATURE). */
int perf_session__add_attr(struct perf_session *session, const struct perf_event_header *event,
			   u64 offset);
/*
 * Where the kernel's _text was at record time: the pgoff of the `[kernel.kallsyms]_text`
 * MMAP among the first records of the data (synthesized there by perf record), so kernel
 * symbols can start loading before the records are read. 0 if not found.
 */
u64 perf_session__kernel_text(struct perf_session *session);
/* Event names from the EVENT_DESC feature. */
void perf_session__read_event_names(struct perf_session *session);
/*
 * Tracepoint events still unnamed get "system:name" from the tracing data, as perf names them
 * (nothing happens when the data is missing or broken: whoever formats trace fields says so).
 */
void perf_session__name_tracepoints(struct perf_session *session);
int perf_session__add_feature(struct perf_session *session, const struct perf_event_header *event,
			      u64 offset);

/* Note a data file left out (printf-like: the sentence without the file's name first). */
void perf_session__warn_data(struct perf_session *session, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The bytes of records to read: the data section, and a directory's data.N files; 0 for a pipe. */
u64 perf_session__data_bytes(const struct perf_session *session);

/* Walk all records, delivering them in perf's order. 0, or -1 with error_get() set. */
int perf_session__process(struct perf_session *session, struct event_consumer *consumer);

struct evsel *perf_session__evsel_of(struct perf_session *session,
				     const struct perf_event_header *event);

const char *perf_event__name(u32 type);

#endif
