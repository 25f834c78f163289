/*
 * time_filter: the --time ranges of perf script and perf report (perf's util/time-utils.c),
 * parsed and applied as perf 6.1 does: `start,stop` in seconds with up to nine decimals,
 * either end open, several ranges separated by spaces; or slices of the recording as
 * percentages of its first to last sample time (`10%/2`, `0%-10%`, lists of either with
 * commas, `50%`). Knows nothing of sessions: the caller passes the sample time bounds.
 */
#ifndef ANALYZER_TIME_FILTER_H
#define ANALYZER_TIME_FILTER_H

#include <stdbool.h>

#include "lib/compiler.h"

/* One range, in ns; 0 leaves that end open. */
struct time_range {
	u64 start, end;
};

struct time_filter {
	struct time_range *ranges;
	int nr;
};

enum time_filter_error {
	TIME_FILTER_OK,
	TIME_FILTER_INVALID,	/* perf: "Invalid time string" */
	TIME_FILTER_NO_SAMPLE_TIME,	/* percentages, but no first/last sample time to scale */
};

/*
 * Parse str as perf_time__parse_for_ranges does; first and last are the recording's first
 * and last sample times (its SAMPLE_TIME feature; 0 and 0 when it has none). On an error the
 * filter is empty (skips nothing).
 */
enum time_filter_error time_filter__parse(struct time_filter *tf, const char *str, u64 first,
					  u64 last);
/* Move every range's ends by delta, open ends too (perf's --reltime does). */
void time_filter__shift(struct time_filter *tf, u64 delta);
/* perf's message for an error above, newlines included, as pr_err prints it. */
const char *time_filter__strerror(enum time_filter_error err);

/* Whether a sample at time falls outside every range (a time of 0 never does). */
bool time_filter__skip(const struct time_filter *tf, u64 time);

void time_filter__exit(struct time_filter *tf);

#endif
