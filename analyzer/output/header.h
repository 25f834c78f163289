/*
 * header: perf report's --header / --header-only text (perf_header__fprintf_info): the
 * "# ========" block describing the file and each feature section, as perf 6.1 prints it.
 */
#ifndef ANALYZER_HEADER_H
#define ANALYZER_HEADER_H

#include <stdio.h>

#include "readers/session.h"

/* full: print every feature (-I); otherwise perf's default subset. */
void header__fprintf(struct perf_session *session, FILE *fp, bool full);

/*
 * What perf report prints before the report: the block above when header (--header; perf
 * prints the same block for --header and --header-only), else its one-line hint.
 */
void header__fprintf_report(struct perf_session *session, FILE *fp, bool header, bool full);

/* Pipe mode: one feature, as perf prints it when its HEADER_FEATURE record arrives. */
void header__fprintf_feature(struct perf_session *session, FILE *fp, int feat, bool full);

/*
 * CPU topology from the CPU_TOPOLOGY feature: socket of each cpu (perf's env->cpu[].socket_id).
 * 0 with an array of *nr_cpus entries the caller frees, or -ENOENT with NULL and 0 when the
 * file has no per-cpu topology (perf then reports socket -1).
 */
int header__cpu_sockets(struct perf_session *session, int **sockets, int *nr_cpus);

#endif
