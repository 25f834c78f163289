/*
 * Unit tests for analyzer/cli/session_warn.c: perf 6.1's end-of-session warnings, byte for byte
 * as perf report and perf script print them on gen_lost (5 LOST records, 1129 of 1249
 * samples lost).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "analyzer/cli/session_warn.h"

static char *warn(const struct events_stats *st, bool lost_shown)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *fp = open_memstream(&buf, &size);

	cr_assert_not_null(fp);
	session_warn_about_errors(st, lost_shown, fp);
	fclose(fp);
	return buf;
}

Test(session_warn, lost_chunks_and_samples)
{
	struct events_stats st = { 0 };
	struct perf_record_lost lost = { .header = { .type = PERF_RECORD_LOST, .size = sizeof(lost) },
					 .lost = 45 };
	struct perf_record_lost_samples ls = {
		.header = { .type = PERF_RECORD_LOST_SAMPLES, .size = sizeof(ls) }, .lost = 1129 };
	char *out;

	st.nr_events[0] = 155;
	st.nr_events[PERF_RECORD_LOST] = 5;
	st.nr_events[PERF_RECORD_SAMPLE] = 120;
	events_stats__add_lost(&st, &lost.header);
	events_stats__add_lost(&st, &ls.header);
	cr_assert_eq(st.total_lost, 45);
	cr_assert_eq(st.total_lost_samples, 1129);
	out = warn(&st, false);
	cr_assert_str_eq(out, "Warning:\nProcessed 155 events and lost 5 chunks!\n\n"
			      "Check IO/CPU overload!\n\n"
			      "Warning:\nProcessed 1249 samples and lost 90.39%!\n\n");
	free(out);
	/* script --show-lost-events prints the LOST records: no warning of them */
	out = warn(&st, true);
	cr_assert_str_eq(out, "Warning:\nProcessed 1249 samples and lost 90.39%!\n\n");
	free(out);
}

Test(session_warn, few_lost_samples_and_none)
{
	struct events_stats st = { 0 };
	char *out;

	st.nr_events[PERF_RECORD_SAMPLE] = 100;
	st.total_lost_samples = 5;	/* 4.8%: under perf's 5% */
	out = warn(&st, false);
	cr_assert_str_eq(out, "");
	free(out);
	st.nr_events[PERF_RECORD_SAMPLE] = 0;
	st.total_lost_samples = 0;
	out = warn(&st, false);
	cr_assert_str_eq(out, "");
	free(out);
}
