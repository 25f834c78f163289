/*
 * tracing_data: the layout of perf's tracing data (the HEADER_TRACING_DATA feature section, or
 * the bytes after a pipe's PERF_RECORD_HEADER_TRACING_DATA record), split into its pieces as
 * perf 6.1's util/trace-event-read.c reads them. Bytes only: the pieces' text (event formats,
 * printk formats, saved cmdlines) is libtraceevent's to parse (analyzer/trace_fields).
 * Every read is bounded by the buffer; an error names the file and the byte offset.
 */
#ifndef READERS_TRACING_DATA_H
#define READERS_TRACING_DATA_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/compiler.h"

/* A run of bytes inside the tracing data, and where it lies in the file. */
struct tracing_piece {
	const u8 *data;
	size_t size;
	u64 offset;
};

/* One event format file, of the system `system` ("ftrace" for the ftrace formats). */
struct tracing_format {
	const char *system;	/* NUL-terminated, inside the tracing data (or static) */
	struct tracing_piece text;
};

struct tracing_data {
	const char *version;	/* "0.6": NUL-terminated, inside the data */
	bool big_endian;	/* the byte order of the numbers here and of the raw samples */
	u8 long_size;
	u32 page_size;
	struct tracing_piece header_page, header_event;
	struct tracing_format *formats;	/* the ftrace formats, then every system's */
	size_t nr_formats;
	struct tracing_piece kallsyms, printk, cmdlines;	/* cmdlines: version >= 0.6 only */
	size_t size;	/* bytes read: what perf's trace_report() returns */
};

/*
 * Split size bytes at data (found at file offset `offset` of `path`) into td. 0, or -1 with
 * error_get() naming path, the offset and what was wrong. td->formats is allocated (free it
 * with tracing_data__exit, also after an error).
 */
int tracing_data__parse(struct tracing_data *td, const u8 *data, size_t size, u64 offset,
			const char *path);
void tracing_data__exit(struct tracing_data *td);

/*
 * "system:name" of the event whose format says "ID: id" (its "name:" line), as perf names a
 * tracepoint event nothing else names (evsel__prepare_tracepoint_event), into buf (size
 * bytes, truncated as snprintf does); false when no format has that id.
 */
bool tracing_data__event_name(const struct tracing_data *td, u64 id, char *buf, size_t size);

#endif
