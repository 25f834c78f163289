/* Unit tests for analyzer/hist: the printf-free percent column, the entry index. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/hist/callchain.h"
#include "analyzer/hist/hist.h"
#include "machine/machine.h"

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

static void add_cpu(struct hists *hists, struct thread *t, s32 cpu)
{
	struct hist_entry proto = { .thread = thread__get(t), .comm = t->comm,
				    .cpu = cpu, .socket = -1,
				    .period = 1 };

	hists__add(hists, &proto, CC_NO_CHAIN, 0);
	thread__put(proto.thread);	/* unless the entry took it */
}

/*
 * Printing lets the entry index go (hists__fprintf): samples added after it still find their
 * entries, through an index built again for all of them.
 */
Test(hist, adds_after_printing_find_their_entries)
{
	struct symsrc_config cfg = { .buildid_dir = "/nonexistent", .symfs = "" };
	struct hists_print_opts opts = { 0 };
	struct sort_list sort = { 0 };
	struct machine m;
	struct hists hists;
	struct thread *t;
	char bad[32];
	FILE *out = fopen("/dev/null", "w");

	cr_assert_not_null(out);
	cr_assert_eq(sort_list__parse(&sort, "cpu", bad, sizeof(bad)), 0);
	machine__init(&m, &cfg);
	t = machine__findnew_thread(&m, 1, 1);
	hists__init(&hists, &sort);
	for (s32 i = 0; i < 3000; i++)
		add_cpu(&hists, t, i % 1500);
	cr_assert_eq(hists.nr, 1500);
	hists__fprintf(&hists, &opts, out);
	for (s32 i = 0; i < 3000; i++)
		add_cpu(&hists, t, i % 2000);
	cr_assert_eq(hists.nr, 2000);
	for (size_t i = 0; i < hists.nr; i++) {
		s32 cpu = hists.entries[i].cpu;

		cr_assert_eq(hists.entries[i].nr_events, cpu < 1000 ? 4u : cpu < 1500 ? 3u : 1u,
			     "cpu %d", cpu);
	}
	hists__exit(&hists);
	thread__put(t);
	machine__exit(&m);
	fclose(out);
}

/* An unresolved address prints as printf's "%-#.16llx": no "0x" before a zero. */
Test(hist, unresolved_addresses_print_as_printf)
{
	struct symsrc_config cfg = { .buildid_dir = "/nonexistent", .symfs = "" };
	struct hists_print_opts opts = { 0 };
	struct sort_list sort = { 0 };
	const u64 ips[] = { 0, 0x1234, 0xffffffffffffffffull };
	struct machine m;
	struct hists hists;
	struct thread *t;
	char bad[32], *text = NULL, want[64];
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	cr_assert_not_null(out);
	cr_assert_eq(sort_list__parse(&sort, "sym", bad, sizeof(bad)), 0);
	machine__init(&m, &cfg);
	t = machine__findnew_thread(&m, 1, 1);
	hists__init(&hists, &sort);
	for (size_t i = 0; i < sizeof(ips) / sizeof(*ips); i++) {
		struct hist_entry proto = { .thread = thread__get(t), .comm = t->comm, .ip = ips[i],
					    .level = '.', .socket = -1, .period = 1 + i };

		hists__add(&hists, &proto, CC_NO_CHAIN, 0);
		thread__put(proto.thread);	/* unless the entry took it */
	}
	hists__fprintf(&hists, &opts, out);
	fclose(out);
	for (size_t i = 0; i < sizeof(ips) / sizeof(*ips); i++) {
		snprintf(want, sizeof(want), "[.] %-#.*llx\n", 16, (unsigned long long)ips[i]);
		cr_assert(strstr(text, want), "%s in:\n%s", want, text);
	}
	cr_assert(strstr(text, "[.] 0000000000000000\n"), "%s", text);
	cr_assert(strstr(text, "[.] 0x0000000000001234\n"), "%s", text);
	free(text);
	hists__exit(&hists);
	thread__put(t);
	machine__exit(&m);
}

/* The report of entries of the given comms and addresses, printed by perf's trees or not. */
static char *print_order(const char *keys, const struct comm *comms, size_t nr_comms,
			 const u64 *ips, const u64 *periods, size_t nr, bool trees, bool *sorted)
{
	struct symsrc_config cfg = { .buildid_dir = "/nonexistent", .symfs = "" };
	struct hists_print_opts opts = { 0 };
	struct sort_list sort = { 0 };
	struct machine m;
	struct hists hists;
	struct thread *t;
	char bad[32], *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	cr_assert_not_null(out);
	cr_assert_eq(sort_list__parse(&sort, keys, bad, sizeof(bad)), 0);
	machine__init(&m, &cfg);
	t = machine__findnew_thread(&m, 1, 1);
	hists__init(&hists, &sort);
	hists.order_by_trees = trees;
	for (size_t i = 0; i < nr; i++) {
		struct hist_entry proto = { .thread = thread__get(t), .comm = &comms[i % nr_comms],
					    .ip = ips[i], .level = '.', .socket = -1,
					    .period = periods[i] };

		hists__add(&hists, &proto, CC_NO_CHAIN, 0);
		thread__put(proto.thread);	/* unless the entry took it */
	}
	hists__fprintf(&hists, &opts, out);
	fclose(out);
	*sorted = hists.in_sorted && hists.out_sorted;
	hists__exit(&hists);
	thread__put(t);
	machine__exit(&m);
	return text;
}

/*
 * The output order sorted rather than built through perf's trees gives the trees' order,
 * ties (equal periods and names) included; addresses that wrap as signed differences (which
 * perf's trees order by shape) go through the trees.
 */
Test(hist, sorted_order_is_the_trees_order)
{
	const struct comm comms[] = { { .str = "b" }, { .str = "a" }, { .str = "c" } };
	const char *keys[] = { "comm,dso,sym", "dso,sym", "comm", "sym", "dso,comm" };
	u64 ips[3000], periods[3000];
	unsigned int seed = 26;

	for (size_t i = 0; i < 3000; i++) {
		ips[i] = (u64)rand_r(&seed) % 700 * 0x10;
		periods[i] = 1 + (u64)rand_r(&seed) % 3;
	}
	for (int wrap = 0; wrap < 2; wrap++) {
		if (wrap) {	/* one address over 2^63 from the others */
			ips[5] = 0xffffffff81000000ull;
			ips[6] = 0x4000000000000000ull;
		}
		for (size_t k = 0; k < sizeof(keys) / sizeof(*keys); k++) {
			bool fast, slow;
			char *a = print_order(keys[k], comms, 3, ips, periods, 3000, false, &fast);
			char *b = print_order(keys[k], comms, 3, ips, periods, 3000, true, &slow);

			cr_assert_not(slow);
			/* "sym" alone compares dsos inside the symbol key; "dso,comm" goes out of order */
			cr_assert_eq(fast, k == 2 || (!wrap && k < 2), "%s, wrap %d", keys[k], wrap);
			cr_assert_str_eq(a, b, "%s, wrap %d", keys[k], wrap);
			free(a);
			free(b);
		}
	}
}

/* One branch of flags into a branch-mode histogram (as report_branch.c adds them). */
static void add_branch(struct hists *hists, struct thread *t, u64 flags)
{
	struct hist_branch b = { .from = 0x1000, .to = 0x2000, .flags = flags };
	struct hist_entry proto = { .thread = thread__get(t), .comm = t->comm, .ip = b.to,
				    .level = '.', .socket = -1, .period = 1 };

	proto.branch = &b;
	hists__add(hists, &proto, CC_NO_CHAIN, 0);
	thread__put(proto.thread);	/* unless the entry took it */
}

/*
 * perf's mispredict key says only equal or not (never < 0): its first tree misses an equal
 * entry and makes a second one. Predicted (N), mispredicted (Y), neither, then N again: the
 * tree's rotation puts Y at the root and the first N to its left, out of the second N's way.
 * cycles is a true order: equal cycles are one entry.
 */
Test(hist, branch_keys_find_entries_as_perf_tree)
{
	struct symsrc_config cfg = { 0 };
	struct sort_list sort = { 0 };
	struct hists hists;
	struct machine m;
	struct thread *t;
	char bad[64];
	const u64 predicted = 2, mispred = 1, cycles_7 = 7 << 4;

	cr_assert_eq(sort_list__parse(&sort, "mispredict", bad, sizeof(bad)), 0);
	sort.branch = true;
	machine__init(&m, &cfg);
	t = machine__findnew_thread(&m, 1, 1);
	hists__init(&hists, &sort);
	add_branch(&hists, t, predicted);
	add_branch(&hists, t, mispred);
	add_branch(&hists, t, 0);
	add_branch(&hists, t, predicted);
	cr_assert_eq(hists.nr, 4);
	hists__exit(&hists);

	cr_assert_eq(sort_list__parse(&sort, "cycles", bad, sizeof(bad)), 0);
	sort.branch = true;
	hists__init(&hists, &sort);
	add_branch(&hists, t, cycles_7 | predicted);
	add_branch(&hists, t, mispred);
	add_branch(&hists, t, cycles_7 | mispred);
	cr_assert_eq(hists.nr, 2);
	cr_assert_eq(hists.entries[0].period, 2);
	cr_assert_eq(BRANCH_PREDICTED(hists.entries[0].branch->flags), 1);	/* the first's */
	hists__exit(&hists);
	thread__put(t);
	machine__exit(&m);
}
