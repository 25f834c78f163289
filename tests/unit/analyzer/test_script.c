/*
 * Unit tests for analyzer/script/script.c: perf script's time column (seconds.microseconds,
 * truncated, 12 wide; --ns) and -F field lists as perf 6.1 applies them (a plain list
 * replaces, +/- edit, a type prefix limits to one type, errors).
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <linux/perf_event.h>
#include <string.h>

#include "analyzer/cli/options.h"
#include "analyzer/script/script.h"

static const char *fmt_time(u64 t, bool ns)
{
	static char buf[64];

	script_time__format(buf, sizeof(buf), t, ns);
	return buf;
}

Test(script_time, microseconds_truncated_in_a_12_wide_column)
{
	cr_assert_str_eq(fmt_time(2517946394167ull, false), " 2517.946394: ");
	/* truncated, never rounded up */
	cr_assert_str_eq(fmt_time(1999999999ull, false), "    1.999999: ");
	cr_assert_str_eq(fmt_time(0, false), "    0.000000: ");
	/* wider than the column: printed whole */
	cr_assert_str_eq(fmt_time(123456789012000000ull, false), "123456789.012000: ");
}

Test(script_time, nanoseconds)
{
	cr_assert_str_eq(fmt_time(2517946394167ull, true), " 2517.946394167: ");
	cr_assert_str_eq(fmt_time(1000000007ull, true), "    1.000000007: ");
}

#define DEFAULT_SW                                                                          \
	(SF_COMM | SF_TID | SF_CPU | SF_TIME | SF_EVNAME | SF_IP | SF_SYM | SF_SYMOFFSET |  \
	 SF_DSO | SF_PERIOD | SF_BPF_OUTPUT)

Test(script_fields, defaults)
{
	struct script_fields f;

	script_fields__init(&f);
	cr_assert_eq(f.fields[PERF_TYPE_SOFTWARE], DEFAULT_SW);
	cr_assert_eq(f.fields[PERF_TYPE_HARDWARE], DEFAULT_SW & ~SF_BPF_OUTPUT);
	cr_assert_eq(f.fields[PERF_TYPE_TRACEPOINT],
		     SF_COMM | SF_TID | SF_CPU | SF_TIME | SF_EVNAME | SF_TRACE);
	cr_assert_not(f.user_set[PERF_TYPE_SOFTWARE]);
	/* raw events (perf mem's) show their memory fields when their samples have them */
	cr_assert_eq(f.fields[PERF_TYPE_RAW],
		     (DEFAULT_SW & ~SF_BPF_OUTPUT) | SF_ADDR | SF_DATA_SRC | SF_WEIGHT |
			     SF_PHYS_ADDR | SF_DATA_PAGE_SIZE | SF_CODE_PAGE_SIZE | SF_INS_LAT);
	cr_assert_eq(script_output_type(PERF_TYPE_RAW), PERF_TYPE_RAW);
	cr_assert_eq(script_output_type(42), SCRIPT_TYPE_OTHER);
}

Test(script_fields, plain_list_replaces_every_type)
{
	struct script_fields f;
	char bad[32];

	script_fields__init(&f);
	cr_assert_eq(script_fields__parse(&f, "comm,tid,ip", bad, sizeof(bad)), SF_OK);
	for (int t = 0; t < SCRIPT_TYPES; t++) {
		cr_assert_eq(f.fields[t], SF_COMM | SF_TID | SF_IP, "type %d", t);
		cr_assert_eq(f.user_fields[t], SF_COMM | SF_TID | SF_IP);
		cr_assert(f.user_set[t] && f.wildcard_set[t]);
	}
}

Test(script_fields, plus_and_minus_edit_the_defaults, .init = cr_redirect_stderr)
{
	struct script_fields f;
	char bad[32];

	script_fields__init(&f);
	cr_assert_eq(script_fields__parse(&f, "+pid,-period", bad, sizeof(bad)), SF_OK);
	cr_assert_eq(f.fields[PERF_TYPE_SOFTWARE], (DEFAULT_SW | SF_PID) & ~SF_PERIOD);
	cr_assert_eq(f.user_fields[PERF_TYPE_SOFTWARE], SF_PID);
	/* a second -F applies on top of the first */
	cr_assert_eq(script_fields__parse(&f, "-dso", bad, sizeof(bad)), SF_OK);
	cr_assert_eq(f.fields[PERF_TYPE_SOFTWARE], (DEFAULT_SW | SF_PID) & ~(SF_PERIOD | SF_DSO));
	/* trace only ever applies to tracepoints */
	cr_assert_eq(script_fields__parse(&f, "+trace", bad, sizeof(bad)), SF_OK);
	cr_assert_eq(f.fields[PERF_TYPE_SOFTWARE] & SF_TRACE, 0);
}

Test(script_fields, a_type_prefix_limits_to_that_type)
{
	struct script_fields f;
	char bad[32];

	script_fields__init(&f);
	cr_assert_eq(script_fields__parse(&f, "sw:comm,tid", bad, sizeof(bad)), SF_OK);
	cr_assert_eq(f.fields[PERF_TYPE_SOFTWARE], SF_COMM | SF_TID);
	cr_assert(f.user_set[PERF_TYPE_SOFTWARE]);
	cr_assert_eq(f.fields[PERF_TYPE_HARDWARE], DEFAULT_SW & ~SF_BPF_OUTPUT);
	cr_assert_not(f.user_set[PERF_TYPE_HARDWARE]);
	cr_assert_eq(script_fields__parse(&f, "hw:+pid", bad, sizeof(bad)), SF_OK);
	cr_assert_eq(f.fields[PERF_TYPE_HARDWARE], (DEFAULT_SW & ~SF_BPF_OUTPUT) | SF_PID);
}

Test(script_fields, errors)
{
	struct script_fields f;
	char bad[96];

	script_fields__init(&f);
	cr_assert_eq(script_fields__parse(&f, "comm,bogus", bad, sizeof(bad)), SF_ERR_INVALID);
	cr_assert_str_eq(bad, "bogus");
	cr_assert_eq(script_fields__parse(&f, "comm,+pid", bad, sizeof(bad)), SF_ERR_BADMIX);
	cr_assert_eq(script_fields__parse(&f, "+pid,comm", bad, sizeof(bad)), SF_ERR_BADMIX);
	cr_assert_eq(script_fields__parse(&f, "nosuch:comm", bad, sizeof(bad)), SF_ERR_TYPE);
	cr_assert_eq(script_fields__parse(&f, "", bad, sizeof(bad)), SF_ERR_EMPTY);
	/* a field perf knows that analyze does not print: not silently ignored */
	cr_assert_eq(script_fields__parse(&f, "comm,iregs", bad, sizeof(bad)), SF_ERR_UNSUPPORTED);
	cr_assert_str_eq(bad, "iregs");
	cr_assert_eq(script_fields__parse(&f, "comm,ip,srcline", bad, sizeof(bad)), SF_OK);
	cr_assert_eq(f.fields[PERF_TYPE_SOFTWARE], SF_COMM | SF_IP | SF_SRCLINE);
	/* the branch and memory fields; perf 6.1 has no cgroup field, brstackinsn not done */
	cr_assert_eq(script_fields__parse(&f, "brstack,brstacksym,brstackoff,misc", bad,
					  sizeof(bad)), SF_OK);
	cr_assert_eq(f.fields[PERF_TYPE_HARDWARE], SF_BRSTACK | SF_BRSTACKSYM | SF_BRSTACKOFF |
						   SF_MISC);
	cr_assert_eq(script_fields__parse(&f, "weight,ins_lat,data_src,phys_addr,insnlen", bad,
					  sizeof(bad)), SF_OK);
	cr_assert_eq(f.fields[PERF_TYPE_RAW], SF_WEIGHT | SF_INS_LAT | SF_DATA_SRC |
					      SF_PHYS_ADDR | SF_INSNLEN);
	cr_assert_eq(script_fields__parse(&f, "data_page_size,code_page_size", bad, sizeof(bad)),
		     SF_OK);
	cr_assert_eq(script_fields__parse(&f, "ip,cgroup", bad, sizeof(bad)), SF_ERR_INVALID);
	cr_assert_eq(script_fields__parse(&f, "ip,brstackinsn", bad, sizeof(bad)),
		     SF_ERR_UNSUPPORTED);
	cr_assert_eq(script_fields__parse(&f, "comm,addr,flags,callindent", bad, sizeof(bad)), SF_OK);
	cr_assert_eq(f.fields[PERF_TYPE_SOFTWARE], SF_COMM | SF_ADDR | SF_FLAGS | SF_CALLINDENT);
	cr_assert_str_eq(script_fields__strerror(SF_ERR_INVALID), "Invalid field requested.");
	/* trace only for tracepoints: with another type, perf's error */
	cr_assert_eq(script_fields__parse(&f, "sw:comm,trace", bad, sizeof(bad)), SF_ERR_NOT_VALID);
	cr_assert_str_eq(bad, "'trace' not valid for software events.");
	cr_assert_eq(script_fields__parse(&f, "raw:trace", bad, sizeof(bad)), SF_ERR_NOT_VALID);
	cr_assert_str_eq(bad, "'trace' not valid for unknown events.");
	cr_assert_eq(script_fields__parse(&f, "trace:comm,trace", bad, sizeof(bad)), SF_OK);
	cr_assert_eq(f.fields[PERF_TYPE_TRACEPOINT], SF_COMM | SF_TRACE);
}

/* Without a type, trace is left off the other types with perf's warning for each. */
Test(script_fields, trace_without_a_type_warns_for_the_others, .init = cr_redirect_stderr)
{
	struct script_fields f;
	char bad[96];

	script_fields__init(&f);
	cr_assert_eq(script_fields__parse(&f, "comm,trace", bad, sizeof(bad)), SF_OK);
	cr_assert_eq(f.fields[PERF_TYPE_TRACEPOINT], SF_COMM | SF_TRACE);
	cr_assert_eq(f.fields[PERF_TYPE_SOFTWARE], SF_COMM);
	fflush(stderr);
	cr_assert_stderr_eq_str("'trace' not valid for hardware events. Ignoring.\n"
				"'trace' not valid for software events. Ignoring.\n"
				"'trace' not valid for hardware-cache events. Ignoring.\n"
				"'trace' not valid for unknown events. Ignoring.\n"
				"'trace' not valid for unknown events. Ignoring.\n"
				"'trace' not valid for unknown events. Ignoring.\n"
				"'trace' not valid for unknown events. Ignoring.\n");
}

static int apply_fields(const char *arg, void *data)
{
	char bad[32];

	return script_fields__parse(data, arg, bad, sizeof(bad)) ? -1 : 0;
}

/* options.c's OPT_CALLBACK, as script's -F uses it: every -F in turn, a refusal stops. */
Test(script_fields, every_F_applies_in_turn)
{
	struct script_fields f;
	struct option_callback cb = { apply_fields, &f };
	struct option opts[] = {
		{ 'F', "fields", OPT_CALLBACK, &cb, "str", "fields" },
		OPT_END_MARK,
	};
	const char *argv[] = { "-F", "comm,tid", "file", "--fields=+pid", "-Fsw:-tid" };

	script_fields__init(&f);
	cr_assert_eq(parse_options(5, argv, opts, "test"), 1);
	cr_assert_str_eq(argv[0], "file");
	cr_assert_eq(f.fields[PERF_TYPE_SOFTWARE], SF_COMM | SF_PID);
	cr_assert_eq(f.fields[PERF_TYPE_HARDWARE], SF_COMM | SF_TID | SF_PID);

	const char *bad_argv[] = { "-F", "bogus" };

	/* the usage goes to stderr */
	cr_redirect_stderr();
	cr_assert_eq(parse_options(2, bad_argv, opts, "test"), -1);
}
