/*
 * Unit tests for analyzer/hist/callchain.c: perf 6.1's -g argument parsing (prefixes, order of
 * words, threshold then print limit, errors) and the trees: frames without a map print their
 * ips, so a tree of such chains can be built and printed without symbols. The expected text
 * follows perf's ui/stdio/hist.c rules (a single root's frames unindented, "--" percentages
 * of the total, pruning by threshold, fractal percentages of the parent).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/hist/callchain.h"

Test(callchain, param_defaults_and_words)
{
	struct callchain_param p;

	callchain_param__init(&p);
	cr_assert_eq(p.mode, CC_GRAPH_ABS);
	cr_assert_eq(p.order, CC_ORDER_CALLEE);
	cr_assert_eq(callchain_param__parse(&p, "fractal,2,3,caller,count"), 0);
	cr_assert_eq(p.mode, CC_GRAPH_REL);
	cr_assert_float_eq(p.min_percent, 2.0, 1e-9);
	cr_assert_eq(p.print_limit, 3);
	cr_assert_eq(p.order, CC_ORDER_CALLER);
	cr_assert(p.order_set);
	cr_assert_eq(p.value, CC_VALUE_COUNT);
	cr_assert(p.enabled);

	callchain_param__init(&p);
	cr_assert_eq(callchain_param__parse(&p, "f,pe"), 0);	/* prefixes: perf's first match */
	cr_assert_eq(p.mode, CC_FLAT);
	cr_assert_eq(p.value, CC_VALUE_PERCENT);
	cr_assert_eq(callchain_param__parse(&p, "fo,calle,peri"), 0);
	cr_assert_eq(p.mode, CC_FOLDED);
	cr_assert_eq(p.order, CC_ORDER_CALLER);	/* perf tries caller first */
	cr_assert_eq(callchain_param__parse(&p, "callee,c"), 0);
	cr_assert_eq(p.order, CC_ORDER_CALLER);	/* "c": an order before a value */
	cr_assert_eq(p.value, CC_VALUE_PERIOD);

	callchain_param__init(&p);
	cr_assert_eq(callchain_param__parse(&p, "none"), 0);
	cr_assert_eq(p.mode, CC_NONE);
	cr_assert(!p.enabled);
}

Test(callchain, param_errors)
{
	struct callchain_param p;

	callchain_param__init(&p);
	cr_assert_eq(callchain_param__parse(&p, "bogus"), -1);
	callchain_param__init(&p);
	cr_assert_eq(callchain_param__parse(&p, "graph,0.5,x"), -1);
	callchain_param__init(&p);
	cr_assert_eq(callchain_param__parse(&p, "graph,1,2,3"), 0);	/* the last limit wins */
	cr_assert_eq(p.print_limit, 3);
}

/* A chain of unmapped ips, in cursor order. */
static u32 intern(struct callchains *cc, const u64 *ips, u32 nr)
{
	struct cc_frame frames[16] = { 0 };

	for (u32 i = 0; i < nr; i++)
		frames[i] = (struct cc_frame){ .addr = ips[i], .ip = ips[i], .level = '.' };
	return callchains__intern_frames(cc, frames, nr);
}

static char *print(struct callchains *cc, const struct callchain_param *param,
		   const struct cc_contrib *c, size_t nr, u64 total)
{
	struct cc_print p = { .param = param, .total = total, .parent = total,
			      .min_hit = (u64)((double)total * (param->min_percent / 100)) };
	char *buf = NULL;
	size_t size = 0;
	FILE *fp = open_memstream(&buf, &size);
	struct cc_scratch *s = cc_scratch__new();

	callchains__fprintf(cc, &p, c, nr, s, fp);
	cc_scratch__delete(s);
	fclose(fp);
	return buf;
}

/* print with perf's default -g parameters, then mode's (NULL: none) */
static char *print_mode(struct callchains *cc, const char *mode, const struct cc_contrib *c,
			size_t nr, u64 total)
{
	struct callchain_param param;

	callchain_param__init(&param);
	if (mode)
		callchain_param__parse(&param, mode);
	return print(cc, &param, c, nr, total);
}

Test(callchain, graph_and_folded)
{
	struct callchains *cc = callchains__new();
	struct callchain_param param;
	u64 a[] = { 0x10, 0x20, 0x30 }, b[] = { 0x11, 0x20, 0x30 }, c[] = { 0x12, 0x30 };
	struct cc_contrib contribs[3];
	char *out;

	contribs[0] = (struct cc_contrib){ .chain = intern(cc, a, 3), .count = 6, .period = 60 };
	contribs[1] = (struct cc_contrib){ .chain = intern(cc, b, 3), .count = 3, .period = 30 };
	contribs[2] = (struct cc_contrib){ .chain = intern(cc, c, 2), .count = 1, .period = 10 };
	cr_assert_eq(intern(cc, a, 3), contribs[0].chain, "a chain is interned once");

	callchain_param__init(&param);
	out = print(cc, &param, contribs, 3, 100);
	cr_assert_str_eq(out,
			 "            |          \n"
			 "            |--60.00%--0x10\n"
			 "            |          0x20\n"
			 "            |          0x30\n"
			 "            |          \n"
			 "            |--30.00%--0x11\n"
			 "            |          0x20\n"
			 "            |          0x30\n"
			 "            |          \n"
			 "             --10.00%--0x12\n"
			 "                       0x30\n"
			 "\n");
	free(out);

	callchain_param__parse(&param, "folded");
	out = print(cc, &param, contribs, 3, 100);
	cr_assert_str_eq(out, "60.00% 0x10;0x20;0x30\n30.00% 0x11;0x20;0x30\n10.00% 0x12;0x30\n");
	free(out);

	/* 15 % threshold: the 10 % chain goes */
	callchain_param__init(&param);
	callchain_param__parse(&param, "graph,15,count");
	out = print(cc, &param, contribs, 3, 100);
	cr_assert_str_eq(out,
			 "            |          \n"
			 "            |--6--0x10\n"
			 "            |          0x20\n"
			 "            |          0x30\n"
			 "            |          \n"
			 "             --3--0x11\n"
			 "                       0x20\n"
			 "                       0x30\n"
			 "\n");
	free(out);
	callchains__delete(cc);
}

Test(callchain, shared_prefix_and_single_root)
{
	struct callchains *cc = callchains__new();
	struct callchain_param param;
	/* caller order: two chains that share their first two frames */
	u64 a[] = { 0x1, 0x2, 0x3 }, b[] = { 0x1, 0x2, 0x4 };
	struct cc_contrib contribs[2];
	char *out;

	contribs[0] = (struct cc_contrib){ .chain = intern(cc, a, 3), .count = 3, .period = 75 };
	contribs[1] = (struct cc_contrib){ .chain = intern(cc, b, 3), .count = 1, .period = 25 };
	callchain_param__init(&param);
	out = print(cc, &param, contribs, 2, 100);
	cr_assert_str_eq(out,
			 "            |\n"
			 "            ---0x1\n"
			 "               0x2\n"
			 "               |          \n"
			 "               |--75.00%--0x3\n"
			 "               |          \n"
			 "                --25.00%--0x4\n"
			 "\n");
	free(out);

	/* fractal: percentages of the parent's children */
	callchain_param__parse(&param, "fractal");
	out = print(cc, &param, contribs, 2, 200);
	cr_assert(strstr(out, "--75.00%--0x3"), "%s", out);
	free(out);
	callchains__delete(cc);
}

/*
 * An unwound frame at the top 4095 addresses (a return address of 0, less one) is shown by
 * perf's graph printer but left out by its flat and folded ones, which take it for a context
 * marker; the chain's percentages stay.
 */
Test(callchain, flat_and_folded_skip_marker_like_frames)
{
	struct callchains *cc = callchains__new();
	u64 a[] = { 0x10, 0xffffffffffffffffull };
	struct cc_contrib contribs[1];
	char *out;

	contribs[0] = (struct cc_contrib){ .chain = intern(cc, a, 2), .count = 2, .period = 40 };
	out = print_mode(cc, "folded", contribs, 1, 100);
	cr_assert_str_eq(out, "40.00% 0x10\n");
	free(out);

	out = print_mode(cc, "flat", contribs, 1, 100);
	cr_assert_str_eq(out, "           40.00%\n                0x10\n\n");
	free(out);

	out = print_mode(cc, NULL, contribs, 1, 100);
	cr_assert(strstr(out, "0xffffffffffffffff"), "the graph keeps it: %s", out);
	free(out);
	callchains__delete(cc);
}

/* The frames a chain_walk yields: "ip/mode" for each, then "." (end) or "!" (a bad marker). */
static void walked(const u64 *chain, u32 max_stack, bool caller, char *out, size_t size)
{
	struct chain_walk w;
	size_t len = 0;
	int ret;
	u64 ip;

	chain_walk__init(&w, chain, chain[0], max_stack, caller);
	while ((ret = chain_walk__next(&w, &ip)) > 0)
		len += (size_t)snprintf(out + len, size - len, "%llx/%u ", (unsigned long long)ip,
					(unsigned)w.cpumode);
	snprintf(out + len, size - len, "%s", ret < 0 ? "!" : ".");
}

/* perf's walk: callee first it stops at max_stack frames before the markers past them;
 * caller first it checks the last marker first, then the one before each it passes. */
Test(callchain, chain_walk)
{
	const u64 K = (u64)PERF_CONTEXT_KERNEL, U = (u64)PERF_CONTEXT_USER, BAD = ~0ull;
	u64 ends_bad[] = { 3, U, 0x10, BAD };
	u64 mixed[] = { 6, K, 0x1, 0x2, U, 0x10, 0x20 };
	u64 early_bad[] = { 5, BAD, 0x1, U, 0x10, 0x20 };
	char out[256];

	walked(ends_bad, 1, false, out, sizeof(out));
	cr_assert_str_eq(out, "10/2 .", "the bad marker past max_stack is not read");
	walked(ends_bad, 2, false, out, sizeof(out));
	cr_assert_str_eq(out, "10/2 !");
	walked(ends_bad, 1, true, out, sizeof(out));
	cr_assert_str_eq(out, "!", "caller first, the last marker is checked first");

	walked(mixed, 127, false, out, sizeof(out));
	cr_assert_str_eq(out, "1/1 2/1 10/2 20/2 .");
	walked(mixed, 127, true, out, sizeof(out));
	cr_assert_str_eq(out, "20/2 10/2 2/1 1/1 .");
	walked(mixed, 3, true, out, sizeof(out));
	cr_assert_str_eq(out, "20/2 10/2 2/1 .");

	walked(early_bad, 2, true, out, sizeof(out));
	cr_assert_str_eq(out, "20/2 10/2 .", "a bad marker before the frames taken is not read");
	walked(early_bad, 3, true, out, sizeof(out));
	cr_assert_str_eq(out, "20/2 10/2 !", "passing the user marker checks the one before");
}
