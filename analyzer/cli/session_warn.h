/*
 * session_warn: what perf prints on stderr once a session's records are processed (session.c,
 * perf_session__warn_about_errors), for the commands that read one: chunks lost to a full
 * ring buffer, samples lost, records of unknown types. Counting them is the readers' and the
 * commands' job; this only words them.
 */
#ifndef ANALYZER_SESSION_WARN_H
#define ANALYZER_SESSION_WARN_H

#include <stdbool.h>
#include <stdio.h>

#include "readers/session.h"

/* Add what a LOST or LOST_SAMPLES record reports to st's totals (other records: nothing). */
void events_stats__add_lost(struct events_stats *st, const struct perf_event_header *event);

/*
 * perf's warnings, in its order, each "Warning:\n" and its text. lost_shown: the command
 * printed the LOST records itself (perf script --show-lost-events), so it does not warn of them.
 */
void session_warn_about_errors(const struct events_stats *st, bool lost_shown, FILE *fp);

/*
 * The data files a directory's report leaves out (missing, unreadable, cut short), a line each.
 * Both clear the progress line and flush stdout first, when they print anything.
 */
void session_warn_data_files(const struct perf_session *session, FILE *fp);

#endif
