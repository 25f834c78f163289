/*
 * trace_fields: tracepoint samples' raw data formatted as perf 6.1's `perf script` prints its
 * `trace` field: libtraceevent, loaded with the recording's own tracing data (event formats,
 * printk formats, saved cmdlines), kernel addresses resolved through the machine's symbols
 * as perf's machine__resolve_kernel_addr does. No plugins are loaded (perf 6.1 as packaged
 * looks for them only under ~/.local/lib/traceevent/plugins).
 */
#ifndef ANALYZER_TRACE_FIELDS_H
#define ANALYZER_TRACE_FIELDS_H

#include <stdio.h>

#include "lib/compiler.h"

struct machine;
struct perf_session;
struct trace_fields;

/*
 * Parse the session's tracing data. NULL with error_get() naming the file and offset when it
 * is missing or malformed, or lacks the format of one of the session's tracepoint events.
 * The machine resolves kernel addresses (%pS...) while printing; it must outlive the result.
 */
struct trace_fields *trace_fields__new(const struct perf_session *session,
				       struct machine *machine);
void trace_fields__delete(struct trace_fields *tf);

/* perf's event_format__fprintf: the fields of a sample of tracepoint `id` (attr.config). */
void trace_fields__fprintf(struct trace_fields *tf, FILE *fp, u64 id, u32 cpu, const void *raw,
			   u32 raw_size);

/* "system:name" of tracepoint id, as perf names an event the file does not name; or NULL. */
const char *trace_fields__event_name(struct trace_fields *tf, u64 id);

#endif
