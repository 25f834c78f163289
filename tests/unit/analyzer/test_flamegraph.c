/*
 * Unit tests for analyze flamegraph: frame names as stackcollapse-perf.pl makes them from
 * perf script's lines (analyzer/flamegraph/flamegraph.c), the stack tree and its folded form
 * (flamegraph_tree.c), and the SVG writer (flamegraph_svg.c): widths, escaping, minwidth.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/flamegraph/flamegraph.h"
#include "analyzer/flamegraph/flamegraph_svg.h"
#include "analyzer/flamegraph/flamegraph_tree.h"

/* "a;b;c": names joined as flamegraph_frame_names joins them, and their count */
static void expect_names(const char *sym, const char *dso, bool java, const char *want,
			 u32 want_nr)
{
	u32 nr;
	char *names = flamegraph_frame_names(sym, dso, java, &nr);

	cr_expect_str_eq(names, want, "%s (%s)", sym, dso);
	cr_expect_eq(nr, want_nr, "%s (%s): %u names", sym, dso, nr);
	free(names);
}

Test(flamegraph_names, symbols_as_perf_script_prints_them)
{
	expect_names("burn_half", "/tmp/analyze-fixtures/burn", false, "burn_half", 1);
	expect_names("update_active.constprop.0", "/lib/ld.so", false, "update_active.constprop.0",
		     1);
	expect_names("", "/x", false, "", 0);
}

Test(flamegraph_names, unknown_symbols_take_their_dso_name)
{
	expect_names("[unknown]", "/usr/lib/x86_64-linux-gnu/libc.so.6", false, "[libc.so.6]", 1);
	expect_names("[unknown]", "[kernel.kallsyms]", false, "[[kernel.kallsyms]]", 1);
	expect_names("[unknown]", "[unknown]", false, "[unknown]", 1);
}

Test(flamegraph_names, tidied)
{
	/* argument lists go, but not an anonymous namespace; Go methods stay whole */
	expect_names("std::vector<int>::push_back(int const&)", "/a", false,
		     "std::vector<int>::push_back", 1);
	expect_names("ns::(anonymous namespace)::f(int)", "/a", false,
		     "ns::(anonymous namespace)::f", 1);
	expect_names("net/http.(*Client).Do", "/a", false, "net/http.(*Client).Do", 1);
	expect_names("a;b'c\"d", "/a", false, "a:bcd", 1);
	/* perf's "(process name)" frames are none */
	expect_names("(anonymous namespace)::g", "/a", false, "", 0);
}

Test(flamegraph_names, inline_chains_and_java)
{
	expect_names("outer->inner->leaf", "/a", false, "outer;inner_[i];leaf_[i]", 3);
	expect_names("x->", "/a", false, "x", 1);
	expect_names("->x", "/a", false, ";x_[i]", 2);
	expect_names("[unknown]->[unknown]", "/lib/a.so", false, "[a.so];[a.so]_[i]", 2);
	expect_names("Lorg/mozilla/Foo;.call(Ljava/lang/Object;)V", "/tmp/perf-1.map", true,
		     "org/mozilla/Foo:.call", 1);
	expect_names("Lorg/mozilla/Foo;.call", "/a", false, "Lorg/mozilla/Foo:.call", 1);
	expect_names("Lplain", "/a", true, "Lplain", 1);
}

/* Add a stack given as "a;b;c" (the names in order from the root), count times. */
static void add_stack(struct flame_tree *tree, const char *stack, u64 count)
{
	u32 node = FLAME_ROOT;
	const char *p = stack;

	for (;;) {
		const char *sep = strchr(p, ';');
		size_t len = sep ? (size_t)(sep - p) : strlen(p);

		node = flame_tree__child(tree, node, flame_tree__name(tree, p, len));
		if (!sep)
			break;
		p = sep + 1;
	}
	flame_tree__add(tree, node, count);
}

static char *folded(struct flame_tree *tree)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	cr_assert_eq(flame_tree__fprintf_folded(tree, f), 0);
	fclose(f);
	return buf;
}

Test(flamegraph_tree, folded_stacks_sorted_bytewise)
{
	struct flame_tree *tree = flame_tree__new();
	char *text;

	add_stack(tree, "burn;main;spin", 2);
	add_stack(tree, "burn;main", 1);
	add_stack(tree, "burn;main;burn_half", 5);
	add_stack(tree, "burn;main;spin", 1);
	add_stack(tree, "a_b;x", 1);
	add_stack(tree, "burn;main;spin!", 1);	/* '!' before ';' and ' ': after "spin" */
	text = folded(tree);
	cr_expect_str_eq(text, "a_b;x 1\n"
			       "burn;main 1\n"
			       "burn;main;burn_half 5\n"
			       "burn;main;spin 3\n"
			       "burn;main;spin! 1\n");
	free(text);
	cr_expect_eq(flame_tree__node(tree, FLAME_ROOT)->total, 11);
	flame_tree__delete(tree);
}

Test(flamegraph_tree, children_in_name_order_with_totals)
{
	struct flame_tree *tree = flame_tree__new();
	const struct flame_node *root, *comm, *first, *second;

	add_stack(tree, "c;zeta", 4);
	add_stack(tree, "c;alpha;leaf", 3);
	add_stack(tree, "c;alpha", 1);
	flame_tree__finish(tree);
	root = flame_tree__node(tree, FLAME_ROOT);
	comm = flame_tree__node(tree, root->first_child);
	cr_expect_eq(comm->next_sibling, FLAME_NONE);
	first = flame_tree__node(tree, comm->first_child);
	second = flame_tree__node(tree, first->next_sibling);
	cr_expect_str_eq(flame_tree__name_str(tree, first->name), "alpha");
	cr_expect_eq(first->total, 4);
	cr_expect_eq(first->self, 1);
	cr_expect_str_eq(flame_tree__name_str(tree, second->name), "zeta");
	cr_expect_eq(second->total, 4);
	cr_expect_eq(comm->total, 8);
	cr_expect_eq(root->total, 8);
	/* the same bytes, the same name; the same path, the same node */
	cr_expect_eq(flame_tree__name(tree, "zeta", 4), second->name);
	cr_expect_eq(flame_tree__nr_nodes(tree), 5);
	add_stack(tree, "c;alpha;leaf", 1);
	cr_expect_eq(flame_tree__nr_nodes(tree), 5);
	flame_tree__delete(tree);
}

static char *svg(struct flame_tree *tree, unsigned int width, double minwidth, const char *title)
{
	struct flame_svg_opts opts = { .title = title, .width = width, .minwidth = minwidth };
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	cr_assert_eq(flame_svg__write(tree, &opts, f), 0);
	fclose(f);
	return buf;
}

Test(flamegraph_svg, widths_in_proportion_to_samples)
{
	struct flame_tree *tree = flame_tree__new();
	char *text;

	add_stack(tree, "a;b", 3);
	add_stack(tree, "a;c", 1);
	text = svg(tree, 1200, 0.1, NULL);
	/* 1180 pixels for 4 samples: 295 a sample; three rows (all, a, b|c): 3 * 16 + 36 + 34 */
	cr_expect(strstr(text, "<svg version=\"1.1\" width=\"1200\" height=\"118\""), "%s", text);
	cr_expect(strstr(text, "<g class=\"f\" data-s=\"0\" data-n=\"4\"><title>all (4 samples, "
			       "100.00%)</title><rect x=\"10.0\" y=\"69.0\" width=\"1180.0\" "
			       "height=\"15.0\""));
	cr_expect(strstr(text, "<g class=\"f\" data-s=\"0\" data-n=\"3\"><title>b (3 samples, "
			       "75.00%)</title><rect x=\"10.0\" y=\"37.0\" width=\"885.0\""));
	cr_expect(strstr(text, "<g class=\"f\" data-s=\"3\" data-n=\"1\"><title>c (1 samples, "
			       "25.00%)</title><rect x=\"895.0\" y=\"37.0\" width=\"295.0\""));
	cr_expect(strstr(text, "<text id=\"title\" x=\"600.0\" y=\"24\">Flame Graph</text>"));
	/* nothing from outside the file */
	cr_expect_null(strstr(text, "href"));
	cr_expect_null(strstr(text, "@import"));
	cr_expect_null(strstr(text, "<!DOCTYPE"));
	free(text);
	/* the same tree, the same bytes */
	text = svg(tree, 1200, 0.1, NULL);
	{
		char *again = svg(tree, 1200, 0.1, NULL);

		cr_expect_str_eq(text, again);
		free(again);
	}
	free(text);
	flame_tree__delete(tree);
}

Test(flamegraph_svg, names_escaped_and_cut_to_fit)
{
	struct flame_tree *tree = flame_tree__new();
	char *text;

	add_stack(tree, "x;operator<<(a&, \"b\", 'c')>", 1);
	add_stack(tree, "x;bad\xff\x01name", 1);
	text = svg(tree, 1200, 0.1, "<&>");
	cr_expect(strstr(text, "<title>operator&lt;&lt;(a&amp;, &quot;b&quot;, &apos;c&apos;)&gt; "
			       "(1 samples, 50.00%)</title>"), "%s", text);
	cr_expect(strstr(text, "<title>bad??name (1 samples, 50.00%)</title>"));
	cr_expect(strstr(text, ">&lt;&amp;&gt;</text>"));
	free(text);
	/* 590 pixels a frame: 83 characters fit (7.08 pixels each); a longer name is cut */
	flame_tree__delete(tree);
	tree = flame_tree__new();
	{
		char name[2 + 90 + 1] = "x;", want[1 + 81 + 2 + 8] = ">";

		memset(name + 2, 'a', 90);
		name[92] = '\0';
		memset(want + 1, 'a', 81);
		strcpy(want + 82, "..</text>");
		add_stack(tree, name, 1);
		add_stack(tree, "x;b", 1);
		text = svg(tree, 1200, 0.1, NULL);
		cr_expect(strstr(text, want), "%s", text);
		/* the title has it whole */
		cr_expect(strstr(text, name + 2));
	}
	free(text);
	flame_tree__delete(tree);
}

Test(flamegraph_svg, frames_under_minwidth_left_out)
{
	struct flame_tree *tree = flame_tree__new();
	char *text;

	/* 1180 pixels for 20000 samples: one is 0.059 pixels, two 0.118 */
	add_stack(tree, "c;big", 19997);
	add_stack(tree, "c;one;above", 1);
	add_stack(tree, "c;two", 2);
	text = svg(tree, 1200, 0.1, NULL);
	cr_expect(strstr(text, "<title>big "));
	cr_expect(strstr(text, "<title>two "));
	cr_expect_null(strstr(text, "<title>one "));
	cr_expect_null(strstr(text, "<title>above "));
	/* rows: all, c, big|two: the dropped frame's row is gone too */
	cr_expect(strstr(text, "height=\"118\""));
	free(text);
	text = svg(tree, 1200, 0, NULL);
	cr_expect(strstr(text, "<title>one "));
	cr_expect(strstr(text, "<title>above "));
	cr_expect(strstr(text, "height=\"134\""));
	free(text);
	flame_tree__delete(tree);
}
