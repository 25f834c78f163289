/*
 * Unit tests for analyzer/itrace/itrace.c: perf 6.1's --itrace strings (which it accepts and what
 * they set: checked against perf script --itrace=... on the bts fixture) and the branch
 * kinds as perf_sample__sprintf_flags names them.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "analyzer/itrace/itrace.h"

static struct itrace_opts parse_ok(const char *str)
{
	struct itrace_opts o = { 0 };

	cr_assert_eq(itrace_opts__parse(&o, str), 0, "'%s' refused", str);
	cr_assert(o.set);
	return o;
}

Test(itrace, default_is_calls_and_errors)
{
	struct itrace_opts o = parse_ok(NULL);

	cr_assert(o.branches && o.calls && o.errors);
	cr_assert(!o.returns && !o.instructions);
}

Test(itrace, letters)
{
	struct itrace_opts o = parse_ok("b");

	cr_assert(o.branches && !o.calls && !o.returns && !o.errors);
	o = parse_ok("cr");
	cr_assert(o.branches && o.calls && o.returns);
	o = parse_ok("b c,e");
	cr_assert(o.calls && o.errors);
	o = parse_ok("be+o-l");
	cr_assert(o.errors);
	o = parse_ok("bs3");
	cr_assert_eq(o.initial_skip, 3);
	o = parse_ok("xwpodfmtaMqAZg16G l8L");
	cr_assert(o.transactions && !o.branches);
}

Test(itrace, instruction_periods)
{
	struct itrace_opts o = parse_ok("i");

	cr_assert(o.instructions);
	cr_assert_eq(o.period, 100000);
	cr_assert_eq(o.period_type, 2);	/* nanoseconds */
	o = parse_ok("i100ns");
	cr_assert_eq(o.period, 100);
	cr_assert_eq(o.period_type, 2);
	o = parse_ok("i10us");
	cr_assert_eq(o.period, 10000);
	o = parse_ok("i3ms");
	cr_assert_eq(o.period, 3000000);
	o = parse_ok("i1000i");
	cr_assert_eq(o.period, 1000);
	cr_assert_eq(o.period_type, 0);
	o = parse_ok("i5t");
	cr_assert_eq(o.period_type, 1);
	o = parse_ok("i5");	/* a bare number: nanoseconds, as perf's default type */
	cr_assert_eq(o.period, 5);
	cr_assert_eq(o.period_type, 2);
	o = parse_ok("i, 7 i b");
	cr_assert_eq(o.period, 7);
	cr_assert(o.branches);
}

Test(itrace, refused_as_perf_refuses)
{
	static const char *const bad[] = { "k", "j", "y", "T", "s", "sx", "i5z", "i5n", "i5u",
					   "g0", "l2000", "e+1", "b!" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct itrace_opts o = { 0 };

		cr_assert_eq(itrace_opts__parse(&o, bad[i]), -1, "'%s' accepted", bad[i]);
	}
}

static void flags_are(u32 flags, const char *want)
{
	char buf[64];

	itrace_flags__format(flags, buf, sizeof(buf));
	cr_assert_str_eq(buf, want, "flags %#x: '%s', not '%s'", flags, buf, want);
}

Test(itrace, flag_names)
{
	flags_are(IP_FLAG_BRANCH | IP_FLAG_CALL, "call           " "      ");
	flags_are(IP_FLAG_BRANCH | IP_FLAG_RETURN, "return         " "      ");
	flags_are(IP_FLAG_BRANCH | IP_FLAG_CONDITIONAL, "jcc            " "      ");
	flags_are(IP_FLAG_BRANCH | IP_FLAG_TRACE_BEGIN, "tr strt        " "      ");
	flags_are(IP_FLAG_BRANCH | IP_FLAG_TRACE_END, "tr end         " "      ");
	flags_are(IP_FLAG_BRANCH | IP_FLAG_CALL | IP_FLAG_ASYNC | IP_FLAG_INTERRUPT,
		  "hw int         " "      ");
	flags_are(IP_FLAG_BRANCH | IP_FLAG_CALL | IP_FLAG_IN_TX, "call           " "   (x)");
	flags_are(0, "");
	/* no name: the letters */
	flags_are(IP_FLAG_CONDITIONAL, "o");
	flags_are(IP_FLAG_BRANCH | IP_FLAG_SYSCALLRET, "bs");
}
