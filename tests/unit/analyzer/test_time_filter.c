/*
 * Unit tests for analyzer/cli/time_filter.c: perf 6.1's --time strings (absolute ranges, open
 * ends, several ranges separated by blanks, percent slices and spans) and the samples they
 * keep. The expected ranges were checked against perf script on gen_tiny (first sample
 * 1.000063, last 1.012505, as below).
 */
#include <criterion/criterion.h>

#include "analyzer/cli/time_filter.h"

#define FIRST 1000063000ull
#define LAST 1012505000ull

static struct time_filter tf;

static void parse_ok(const char *str, int nr)
{
	enum time_filter_error err = time_filter__parse(&tf, str, FIRST, LAST);

	cr_assert_eq(err, TIME_FILTER_OK, "'%s' refused", str);
	cr_assert_eq(tf.nr, nr, "'%s': %d ranges, not %d", str, tf.nr, nr);
}

static void range_is(int i, u64 start, u64 end)
{
	cr_assert_eq(tf.ranges[i].start, start, "range %d starts at %llu", i,
		     (unsigned long long)tf.ranges[i].start);
	cr_assert_eq(tf.ranges[i].end, end, "range %d ends at %llu", i,
		     (unsigned long long)tf.ranges[i].end);
}

static void fini(void)
{
	time_filter__exit(&tf);
}

TestSuite(time_filter, .fini = fini);

Test(time_filter, absolute_range_and_open_ends)
{
	parse_ok("1.0001,1.001", 1);
	range_is(0, 1000100000, 1001000000);
	cr_assert(time_filter__skip(&tf, 1000099999));
	cr_assert_not(time_filter__skip(&tf, 1000100000));
	cr_assert_not(time_filter__skip(&tf, 1001000000));
	cr_assert(time_filter__skip(&tf, 1001000001));
	time_filter__exit(&tf);

	parse_ok("1.0001,", 1);
	range_is(0, 1000100000, 0);
	cr_assert_not(time_filter__skip(&tf, ~0ull));
	time_filter__exit(&tf);

	parse_ok(",1.001", 1);
	range_is(0, 0, 1001000000);
	cr_assert_not(time_filter__skip(&tf, 1));
}

Test(time_filter, nanoseconds_and_blanks)
{
	parse_ok("1.000100123,2", 1);
	range_is(0, 1000100123, 2000000000);
	time_filter__exit(&tf);
	/* strtoul skips leading blanks on either side */
	parse_ok(" 1.5, 1.75", 1);
	range_is(0, 1500000000, 1750000000);
}

Test(time_filter, several_ranges_separated_by_blanks)
{
	parse_ok("1.0001,1.0002 1.003,1.004", 2);
	range_is(0, 1000100000, 1000200000);
	range_is(1, 1003000000, 1004000000);
	cr_assert_not(time_filter__skip(&tf, 1000150000));
	cr_assert(time_filter__skip(&tf, 1002000000));
	cr_assert_not(time_filter__skip(&tf, 1003500000));
	cr_assert(time_filter__skip(&tf, 1004000001));
	time_filter__exit(&tf);

	/* more blanks between them, and an open last end */
	parse_ok("1.001,1.002  \t1.005,", 2);
	range_is(1, 1005000000, 0);
	cr_assert_not(time_filter__skip(&tf, 9000000000));
}

Test(time_filter, invalid_strings)
{
	static const char *const bad[] = {
		"", "bogus", "1.5", "2,1", "1.0001234567,2", "1,2 ", "1,2,3,4",
		"1.001,1.002 1.0015,1.003",	/* overlapping */
		"1.0001,1.0002,1.003,", "150%", "0%", "10%%", "10%/0", "-10%/1", "10%/1x",
		"10%/1,0%-10%", "10%-20%,30%",	/* the last crashes perf 6.1 */
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert_eq(time_filter__parse(&tf, bad[i], FIRST, LAST), TIME_FILTER_INVALID,
			     "'%s' accepted", bad[i]);
		cr_assert_eq(tf.nr, 0);
		cr_assert_not(time_filter__skip(&tf, 5));
	}
}

Test(time_filter, percent_slices)
{
	/* the second tenth: perf's round() in double, the end 1 ns short of the next slice */
	parse_ok("10%/2", 1);
	range_is(0, 1001307200, 1002551399);
	time_filter__exit(&tf);

	parse_ok("10%/1,10%/3", 2);
	range_is(0, FIRST, 1001307199);
	range_is(1, 1002551400, 1003795599);
	time_filter__exit(&tf);

	/* "50%" is "50%/1"; the last slice ends at the last sample */
	parse_ok("50%", 1);
	range_is(0, FIRST, 1006283999);
	time_filter__exit(&tf);
	parse_ok("50%/2", 1);
	range_is(0, 1006284000, LAST);
}

Test(time_filter, percent_spans)
{
	parse_ok("0%-10%,20%-30%", 2);
	range_is(0, FIRST, 1001307199);
	range_is(1, 1002551400, 1003795599);
	time_filter__exit(&tf);

	/* an empty piece is an open range (so everything passes); a trailing comma ends it */
	parse_ok(",10%-20%", 2);
	range_is(0, 0, 0);
	cr_assert_not(time_filter__skip(&tf, 1));
	time_filter__exit(&tf);
	parse_ok("10%-20%,", 1);
	time_filter__exit(&tf);

	/* backwards: accepted, keeps nothing */
	parse_ok("20%-10%", 1);
	cr_assert(time_filter__skip(&tf, 1002000000));
}

Test(time_filter, percent_needs_the_sample_time)
{
	cr_assert_eq(time_filter__parse(&tf, "10%", 0, 0), TIME_FILTER_NO_SAMPLE_TIME);
	cr_assert_str_eq(time_filter__strerror(TIME_FILTER_NO_SAMPLE_TIME),
			 "HINT: no first/last sample time found in perf data.\n"
			 "Please use latest perf binary to execute 'perf record'\n"
			 "(if '--buildid-all' is enabled, please set '--timestamp-boundary').\n");
	/* absolute times do not */
	cr_assert_eq(time_filter__parse(&tf, "1,2", 0, 0), TIME_FILTER_OK);
}

Test(time_filter, untimed_samples_are_kept)
{
	parse_ok("1.0001,1.001", 1);
	cr_assert_not(time_filter__skip(&tf, 0));
}
