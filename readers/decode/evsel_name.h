/*
 * evsel_name: the name perf 6.1 gives an event that nothing in the file named (no EVENT_DESC
 * feature, no EVENT_UPDATE record): evsel__name's, derived from the attr alone. Pure
 * functions of the attr; they know nothing of the file it came from.
 */
#ifndef READERS_EVSEL_NAME_H
#define READERS_EVSEL_NAME_H

#include <stddef.h>

#include "readers/format.h"

struct evsel;

/*
 * Write ATTR's name into BUF (SIZE bytes, NUL-terminated, truncated as snprintf does):
 * "cycles:u", "cpu-clock:HG", "L1-dcache-load-misses", "raw 0x1234:ppp", "mem:0x1000:rw"...
 * Returns BUF.
 */
char *evsel_name__from_attr(const struct perf_event_attr *attr, char *buf, size_t size);

/*
 * EVSEL's name: the one the file gave it, else the attr's, computed once and kept in
 * evsel->name (as perf's evsel__name does: later names from the file no longer replace it).
 * "unknown" for NULL. Not thread-safe: call it from the thread that owns the session.
 */
const char *evsel__name(struct evsel *evsel);

#endif
