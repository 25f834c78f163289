/* Unit tests for analyzer/hist: the printf-free percent column. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>

#include "analyzer/hist.h"

static void check(double percent)
{
	char want[64], got[64];
	int n = snprintf(want, sizeof(want), "   %*.2f%%", 6, percent);

	cr_assert_eq(hists__format_percent(got, sizeof(got), percent), n, "%.17g", percent);
	cr_assert_str_eq(got, want, "%.17g", percent);
}

/* Every share a report prints: period / total over many totals, ties included. */
Test(hist, percent_matches_printf_on_ratios)
{
	static const unsigned long long totals[] = { 1, 3, 7, 8, 200, 400, 800, 1600, 3000, 12345,
						     50000, 1000000, 59873000000ull };

	for (size_t t = 0; t < sizeof(totals) / sizeof(totals[0]); t++) {
		unsigned long long total = totals[t], step = total > 20000 ? total / 20000 : 1;

		for (unsigned long long p = 0; p <= total; p += step)
			check(100.0 * p / total);
	}
}

/* Values on and next to the halves printf decides, and the edges of the fast path. */
Test(hist, percent_matches_printf_at_halves_and_edges)
{
	for (int i = 0; i <= 20000; i++) {
		double half = (i + 0.5) / 100.0;

		check(half);
		check(nextafter(half, 0));
		check(nextafter(half, 1e9));
	}
	check(0);
	check(100);
	check(99.995);
	check(99.994999999);
	check(999999.994);
	check(1e6);
	check(1e7);
	check(-1);
}

/* The buffer is never overrun; the return value is the full length, as snprintf's. */
Test(hist, percent_truncates_like_snprintf)
{
	char small[5] = "xxxx";

	cr_assert_eq(hists__format_percent(small, sizeof(small), 12.345), 10);
	cr_assert_str_eq(small, "    ");
	cr_assert_eq(hists__format_percent(NULL, 0, 1.0), 10);
}
