/*
 * Unit tests for analyzer/hist's output fields: perf 6.1's -F parsing and how -F and --sort
 * make the columns and the output order (setup_sorting), checked against what perf printed.
 */
#include <criterion/criterion.h>

#include "analyzer/hist/hist.h"

static void expect(const struct field_list *got, const int *want, int nr)
{
	cr_assert_eq(got->nr, nr);
	for (int i = 0; i < nr; i++)
		cr_assert_eq(got->ids[i], want[i], "field %d", i);
}

/* sort: --sort's keys (or the default), fields: -F's string or NULL */
static void layout(const char *sort_str, const char *fields_str, bool cumulate,
		   struct field_list *cols, struct field_list *order)
{
	static struct field_list fields;
	struct sort_list sort = { .nr = 0 };
	struct field_setup setup = { .cumulate = cumulate };
	char bad[32];

	if (sort_str)
		cr_assert_eq(sort_list__parse(&sort, sort_str, bad, sizeof(bad)), 0);
	if (fields_str) {
		cr_assert_eq(field_list__parse(&fields, fields_str, bad, sizeof(bad)), 0);
		field_list__add_keys(&fields, &sort);
	}
	field_list__layout(fields_str ? &fields : NULL, &sort, &setup, cols, order);
}

Test(hist_fields, prefixes_keys_first)
{
	struct field_list f;
	char bad[32];
	const int want[] = { SORT_SYM, HPP_OVERHEAD, SORT_PID, HPP_SAMPLE, HPP_PERIOD };

	cr_assert_eq(field_list__parse(&f, "s,o,p,sa,per,o", bad, sizeof(bad)), 0);
	cr_assert(f.strict);
	expect(&f, want, 5);
}

Test(hist_fields, errors)
{
	struct field_list f;
	char bad[32];

	cr_assert_eq(field_list__parse(&f, "overhead,bogus", bad, sizeof(bad)), -1);
	cr_assert_str_eq(bad, "bogus");
	cr_assert_eq(field_list__parse(&f, "+", bad, sizeof(bad)), -2);
	cr_assert_eq(field_list__parse(&f, "overhead_sys", bad, sizeof(bad)), -3);
}

/* -F overhead,sym -s comm: columns as given then comm; ordered by comm, then the columns */
Test(hist_fields, strict_with_sort)
{
	struct field_list cols, order;
	const int want_cols[] = { HPP_OVERHEAD, SORT_SYM, SORT_COMM };
	const int want_order[] = { SORT_COMM, HPP_OVERHEAD, SORT_SYM };

	layout("comm", "overhead,sym", false, &cols, &order);
	expect(&cols, want_cols, 3);
	expect(&order, want_order, 3);
}

/* -F sym,overhead without --sort: no default keys, the symbols by name first */
Test(hist_fields, strict_without_sort)
{
	struct field_list cols, order;
	const int want[] = { SORT_SYM, HPP_OVERHEAD };

	layout(NULL, "sym,overhead", false, &cols, &order);
	expect(&cols, want, 2);
	expect(&order, want, 2);
}

/* -F +pid,dso in the children view: perf's columns, -F's, then the other keys */
Test(hist_fields, plus_form)
{
	struct field_list cols, order;
	const int want_cols[] = { HPP_OVERHEAD_CHILDREN, HPP_OVERHEAD, SORT_PID, SORT_DSO,
				  SORT_COMM, SORT_SYM };
	const int want_order[] = { HPP_OVERHEAD_CHILDREN, HPP_OVERHEAD, SORT_COMM, SORT_DSO,
				   SORT_SYM, SORT_PID };

	layout("comm,dso,symbol", "+pid,dso", true, &cols, &order);
	expect(&cols, want_cols, 6);
	expect(&order, want_order, 6);
}
