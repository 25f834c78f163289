/*
 * Unit tests for readers/decode/evsel_name: the names perf 6.1 gives events from their attrs alone.
 * Every expected name below is what perf 6.1 (x86_64) printed for a file with that attr and
 * no EVENT_DESC (made by tools/gen-perfdata --event ... --no-event-desc).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "readers/decode/evsel_name.h"
#include "readers/session.h"

struct name_case {
	struct perf_event_attr attr;
	const char *name;
};

#define HW(c) .type = PERF_TYPE_HARDWARE, .config = (c)
#define SW(c) .type = PERF_TYPE_SOFTWARE, .config = (c)
#define CACHE(c) .type = PERF_TYPE_HW_CACHE, .config = (c)

static const struct name_case cases[] = {
	/* perf record's defaults: exclude_guest set, nothing else: no modifier */
	{ { SW(0), .exclude_guest = 1 }, "cpu-clock" },
	{ { SW(1), .exclude_guest = 1 }, "task-clock" },
	/* host and guest both counted where perf's parser would have excluded the guest */
	{ { SW(0) }, "cpu-clock:HG" },
	{ { SW(9) }, "dummy:HG" },
	/* perf 6.1 knows no name for bpf-output (10) and cgroup-switches (11) */
	{ { SW(10) }, "unknown-software:HG" },
	{ { SW(11), .exclude_hv = 1 }, "unknown-software:ku" },
	/* some privilege level excluded: exclude_guest is then the default, host is shown */
	{ { HW(0), .exclude_kernel = 1, .exclude_hv = 1, .exclude_guest = 1 }, "cycles:uH" },
	{ { HW(1), .exclude_user = 1, .exclude_guest = 1 }, "instructions:khH" },
	{ { HW(0), .exclude_kernel = 1, .exclude_hv = 1 }, "cycles:u" },
	{ { HW(0), .precise_ip = 2 }, "cycles:pp" },
	{ { HW(9), .precise_ip = 1, .exclude_guest = 1 }, "ref-cycles:pH" },
	{ { HW(10), .exclude_host = 1, .exclude_guest = 1 }, "unknown-hardware" },
	{ { HW(3), .exclude_host = 1 }, "cache-misses:G" },
	/* every privilege level excluded: no letter, no colon */
	{ { HW(4), .exclude_user = 1, .exclude_kernel = 1, .exclude_hv = 1, .exclude_guest = 1 },
	  "branches:H" },
	/* a hybrid PMU's type in the upper half of the config (x86's arch_evsel__hw_name) */
	{ { HW(0x800000000ull), .exclude_kernel = 1 }, "cpu/cycles/:uh" },
	{ { CACHE(0x10000) }, "L1-dcache-load-misses:HG" },
	{ { CACHE(0), .exclude_guest = 1 }, "L1-dcache-loads" },
	{ { CACHE(0x10102), .exclude_guest = 1 }, "LLC-store-misses" },
	{ { CACHE(0x00205), .exclude_guest = 1 }, "invalid-cache" },
	{ { CACHE(0x00005), .exclude_guest = 1 }, "branch-loads" },
	{ { CACHE(0x104), .exclude_host = 1 }, "invalid-cache:G" },
	{ { CACHE(7), .exclude_guest = 1 }, "unknown-ext-hardware-cache-type" },
	{ { CACHE(0x300), .exclude_guest = 1 }, "unknown-ext-hardware-cache-op" },
	{ { CACHE(0x20000), .exclude_guest = 1 }, "unknown-ext-hardware-cache-result" },
	{ { .type = PERF_TYPE_RAW, .config = 0x1234, .precise_ip = 3, .exclude_user = 1 },
	  "raw 0x1234:khppp" },
	{ { .type = PERF_TYPE_BREAKPOINT, .bp_addr = 0x1000, .bp_type = 3 }, "mem:0x1000:rw:HG" },
	{ { .type = PERF_TYPE_BREAKPOINT, .bp_addr = 0xffffffff81000000ull, .bp_type = 4,
	    .exclude_guest = 1 }, "mem:0xffffffff81000000:x" },
	{ { .type = 9, .config = 1 }, "unknown attr type: 9" },
	{ { .type = PERF_TYPE_TRACEPOINT, .config = 5 }, "unknown tracepoint" },
};

Test(evsel_name, from_attr)
{
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char buf[128];

		cr_expect_str_eq(evsel_name__from_attr(&cases[i].attr, buf, sizeof(buf)),
				 cases[i].name, "case %zu", i);
	}
}

Test(evsel_name, truncates_like_snprintf)
{
	struct perf_event_attr attr = { HW(0), .exclude_kernel = 1 };
	char buf[8];

	cr_expect_str_eq(evsel_name__from_attr(&attr, buf, sizeof(buf)), "cycles:");
	cr_expect_str_eq(evsel_name__from_attr(&attr, buf, 1), "");
}

Test(evsel_name, evsel_keeps_the_file_name_and_caches_the_attr_one)
{
	struct evsel named = { .attr = { SW(0) }, .name = strdup("my-event") };
	struct evsel unnamed = { .attr = { HW(0), .exclude_kernel = 1, .exclude_hv = 1 } };

	cr_expect_str_eq(evsel__name(&named), "my-event");
	cr_expect_str_eq(evsel__name(&unnamed), "cycles:u");
	cr_expect_eq(evsel__name(&unnamed), unnamed.name, "computed once, kept");
	cr_expect_str_eq(evsel__name(NULL), "unknown");
	free(named.name);
	free(unnamed.name);
}
