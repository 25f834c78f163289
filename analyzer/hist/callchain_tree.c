/*
 * perf 6.1's callchain trees (util/callchain.c), built after the run from one entry's chain
 * contributions, and their stdio printing (ui/stdio/hist.c: graph, fractal, flat, folded).
 * One thread a tree; interns nothing (callchain.c does), reads the frames and their symbols.
 */
#include "analyzer/hist/callchain_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/containers/rbtree.h"
#include "lib/xalloc.h"
#include "machine/inline.h"

#define NO_NODE UINT32_MAX

struct cc_node {
	u32 val, val_nr;	/* frame ids in tree.vals */
	u32 parent;
	u32 child, nr_children;	/* contiguous, in perf's rb_root_in order */
	u32 count, children_count;
	u64 hit, children_hit;
};

struct trie_node {
	u32 frame;
	u32 kids;	/* the root of its children's rb-tree (in tree.rb), or RBTREE_NONE */
	u32 count;	/* of the chains that end here */
	bool ends;
	u64 hit;
};

struct tree {
	struct callchains *cc;
	struct machine *machine;
	const struct cc_print *p;
	struct cc_node *nodes;
	size_t nr_nodes, nodes_alloc;
	u32 *vals;
	size_t nr_vals, vals_alloc;
	struct trie_node *trie;	/* one node a frame of a path, as perf's before it merges runs */
	size_t nr_trie, trie_alloc;
	struct rbtree rb;	/* every trie node's children, as perf's rb_root_in */
	u32 *walk;	/* scratch for the children of one trie node at a time */
	size_t walk_alloc;
	u32 *out;	/* scratch for sorted children lists */
	size_t nr_out, out_alloc;
	FILE *fp;
};

static const struct symbol *frame_sym(struct tree *t, u32 frame, const struct symtab **symtab)
{
	return callchains__sym(t->cc, t->machine, frame, symtab);
}

/*
 * perf's srcline of a frame (machine.c callchain_srcline, srcline.c get_srcline) under the
 * address and srcline keys: NULL without a map; addr2line's answer for the pc
 * (inlines__srcline); without one, "+OFFSET" in its symbol under the address key and NULL
 * under the srcline key. Made once a frame (perf keeps one a dso and address).
 */
static const char *frame_srcline(struct tree *t, u32 frame)
{
	struct callchains *cc = t->cc;
	const struct cc_frame *f = &cc->frames[frame];
	const struct symtab *symtab;
	const struct symbol *sym;
	char buf[4096];

	ARRAY_GROW_ZEROED(cc->lines, cc->lines_alloc, cc->nr_frames);
	if (cc->lines[frame])
		return cc->lines[frame] == no_line ? NULL : cc->lines[frame];
	sym = frame_sym(t, frame, &symtab);
	if (!f->dso) {
		cc->lines[frame] = no_line;
		return NULL;
	}
	if (!t->p->lines || !inlines__srcline(t->p->lines, f->dso, f->addr, buf, sizeof(buf))) {
		if (t->p->param->key != CC_KEY_ADDRESS) {
			cc->lines[frame] = no_line;
			return NULL;
		}
		if (sym)
			snprintf(buf, sizeof(buf), "+%llu",
				 (unsigned long long)(f->addr - sym->start));
		else	/* perf's "DSO[ADDR]" (never printed: frames without a symbol show the ip) */
			snprintf(buf, sizeof(buf), "[%llx]", (unsigned long long)f->addr);
	}
	cc->lines[frame] = xstrdup(buf);
	return cc->lines[frame];
}

/*
 * perf's match_chain(new, existing): < 0 when the existing frame comes before the new one
 * (MATCH_LT: the new one goes to its left in rb_root_in). With the function key, two
 * resolved frames compare by dso, then their symbols' starts (inlined ones by name alone);
 * any other pair by dso, then raw ip. perf compares dso pointers, which its allocator hands
 * out in about the order the dsos are made: here that order. The order is not transitive
 * (a resolved and an unresolved frame of one dso compare by ips, which differ from process to
 * process in a position-independent dso), so the trees are built by perf's inserts.
 */
static int frame_match(struct tree *t, u32 existing, u32 new)
{
	const struct cc_frame *fl = &t->cc->frames[existing], *fr = &t->cc->frames[new];
	u64 vl = fl->ip, vr = fr->ip;

	if (existing == new)
		return 0;
	if (t->p->param->key == CC_KEY_SRCLINE) {
		const char *ll = frame_srcline(t, existing), *lr = frame_srcline(t, new);

		if (ll || lr) {
			int ret = !ll ? 1 : !lr ? -1 : strcmp(ll, lr);

			return ret < 0 ? -1 : ret > 0;
		}
	}
	if (t->p->param->key != CC_KEY_ADDRESS) {
		const struct symtab *tl, *tr;
		const struct symbol *sl = frame_sym(t, existing, &tl), *sr = frame_sym(t, new, &tr);

		if (sl && sr && (fl->inl || fr->inl)) {
			int ret = strcmp(symbol__name(tl, sl), symbol__name(tr, sr));

			return ret < 0 ? -1 : ret > 0;
		}
		if (sl && sr) {
			vl = sl->start;
			vr = sr->start;
		}
	}
	if (fl->dso != fr->dso) {
		if (!fl->dso || !fr->dso)
			return !fl->dso ? -1 : 1;
		return fl->dso->seq < fr->dso->seq ? -1 : 1;
	}
	if (vl != vr)
		return vl < vr ? -1 : 1;
	return 0;
}

/* rb-tree direction of a new trie node against an existing one (perf's append_chain_children) */
static int trie_dir(void *arg, u32 item, u32 node)
{
	struct tree *t = arg;

	return frame_match(t, t->trie[node].frame, t->trie[item].frame);
}

/* perf's append_chain: one chain into the trie, frame by frame */
static void trie_add(struct tree *t, const u32 *f, u32 len, u32 count, u64 period)
{
	u32 cur = 0;

	for (u32 k = 0; k < len; k++) {
		u32 new = (u32)t->nr_trie, found;

		ARRAY_GROW(t->trie, t->trie_alloc, t->nr_trie + 1);
		rbtree__reserve(&t->rb, t->nr_trie + 1);
		t->trie[new] = (struct trie_node){ .frame = f[k], .kids = RBTREE_NONE };
		found = rbtree__insert_at(&t->rb, &t->trie[cur].kids, new, trie_dir, t);
		if (found == RBTREE_NONE) {
			t->nr_trie++;
			cur = new;
		} else {
			cur = found;
		}
	}
	t->trie[cur].ends = true;
	t->trie[cur].count += count;
	t->trie[cur].hit += period;
}

static u64 cumul_hits(const struct cc_node *n)
{
	return n->hit + n->children_hit;
}

static u32 cumul_counts(const struct cc_node *n)
{
	return n->count + n->children_count;
}

/* The one child of trie node x, or RBTREE_NONE when it has none or several. */
static u32 only_child(const struct tree *t, u32 x)
{
	u32 r = t->trie[x].kids;

	if (r == RBTREE_NONE || t->rb.link[3 * (size_t)r] != RBTREE_NONE ||
	    t->rb.link[3 * (size_t)r + 1] != RBTREE_NONE)
		return RBTREE_NONE;
	return r;
}

/*
 * The children of node: those of trie node x, in rb_root_in order, each with the run of
 * frames down to where a chain ends or the path branches (perf's nodes).
 */
static void build_children(struct tree *t, u32 node, u32 x)
{
	size_t groups, first;
	u64 children_hit = 0;
	u32 children_count = 0;

	if (t->trie[x].kids == RBTREE_NONE)
		return;
	ARRAY_GROW(t->walk, t->walk_alloc, t->nr_trie);
	groups = rbtree__walk_at(&t->rb, t->trie[x].kids, t->walk);
	first = t->nr_nodes;
	ARRAY_GROW(t->nodes, t->nodes_alloc, t->nr_nodes + groups);
	t->nr_nodes += groups;
	t->nodes[node].child = (u32)first;
	t->nodes[node].nr_children = (u32)groups;
	/* the walk scratch is reused below: the children first take their places */
	for (size_t g = 0; g < groups; g++)
		t->nodes[first + g].child = t->walk[g];
	for (size_t g = 0; g < groups; g++) {
		u32 end = t->nodes[first + g].child, start = (u32)t->nr_vals, next;
		struct cc_node *n;

		for (;;) {
			ARRAY_GROW(t->vals, t->vals_alloc, t->nr_vals + 1);
			t->vals[t->nr_vals++] = t->trie[end].frame;
			next = only_child(t, end);
			if (t->trie[end].ends || next == RBTREE_NONE)
				break;
			end = next;
		}
		n = &t->nodes[first + g];
		*n = (struct cc_node){ .val = start, .val_nr = (u32)t->nr_vals - start,
				       .parent = node, .child = NO_NODE,
				       .hit = t->trie[end].hit, .count = t->trie[end].count };
		build_children(t, (u32)(first + g), end);
		n = &t->nodes[first + g];
		children_hit += cumul_hits(n);
		children_count += cumul_counts(n);
	}
	t->nodes[node].children_hit = children_hit;
	t->nodes[node].children_count = children_count;
}

/* perf's callchain_append of each chain, in the order the samples came */
static void tree_build(struct tree *t, const struct cc_contrib *contribs, size_t nr)
{
	t->nr_trie = 1;
	ARRAY_GROW(t->trie, t->trie_alloc, 1);
	t->trie[0] = (struct trie_node){ .kids = RBTREE_NONE };
	t->rb.root = RBTREE_NONE;	/* the trie nodes' roots are theirs: each starts empty */
	for (size_t i = 0; i < nr; i++) {
		u32 len = callchains__len(t->cc, contribs[i].chain);

		if (contribs[i].offset >= len)
			continue;
		trie_add(t, callchains__frame_ids(t->cc, contribs[i].chain) + contribs[i].offset,
			 len - contribs[i].offset, contribs[i].count, contribs[i].period);
	}
	t->nr_nodes = 1;
	t->nr_vals = 0;
	ARRAY_GROW(t->nodes, t->nodes_alloc, 1);
	t->nodes[0] = (struct cc_node){ .parent = NO_NODE, .child = NO_NODE };
	build_children(t, 0, 0);
}

/*
 * The children of node shown, in output order (perf's rb_insert_callchain: by cumulated
 * hits, ties in input order): appended to t->out, returns where they start.
 */
static size_t sorted_children(struct tree *t, u32 node, size_t *nr)
{
	const struct cc_node *n = &t->nodes[node];
	size_t start = t->nr_out;
	u64 min_hit = t->p->min_hit;

	if (t->p->param->mode == CC_GRAPH_REL)
		min_hit = (u64)ceil((double)n->children_hit * (t->p->param->min_percent / 100.0));
	ARRAY_GROW(t->out, t->out_alloc, t->nr_out + n->nr_children);
	for (u32 i = 0; i < n->nr_children; i++) {
		u32 c = n->child + i;
		u64 hits = cumul_hits(&t->nodes[c]);
		size_t k;

		if (hits < min_hit)
			continue;
		/* insertion: after every child with as many hits or more */
		for (k = t->nr_out; k > start && cumul_hits(&t->nodes[t->out[k - 1]]) < hits; k--)
			t->out[k] = t->out[k - 1];
		t->out[k] = c;
		t->nr_out++;
	}
	*nr = t->nr_out - start;
	return start;
}

static void frame_name(struct tree *t, u32 frame, char *buf, size_t size)
{
	const struct symtab *symtab;
	const struct symbol *sym = callchains__sym(t->cc, t->machine, frame, &symtab);

	const char *line = t->p->param->key != CC_KEY_FUNCTION ? frame_srcline(t, frame) : NULL;

	if (sym)
		snprintf(buf, size, "%s%s%s%s", symbol__name(symtab, sym), line ? " " : "",
			 line ? line : "", symtab->inlined ? " (inlined)" : "");
	else
		snprintf(buf, size, "%#llx", (unsigned long long)t->cc->frames[frame].ip);
}

/* perf's callchain_node__fprintf_value */
static void print_value(struct tree *t, u64 period, u32 count, u64 total)
{
	switch (t->p->param->value) {
	case CC_VALUE_PERIOD:
		fprintf(t->fp, "%llu", (unsigned long long)period);
		break;
	case CC_VALUE_COUNT:
		fprintf(t->fp, "%u", count);
		break;
	default:
		fprintf(t->fp, "%.2f%%", total ? period * 100.0 / total : 0.0);
		break;
	}
}

static void left_margin(struct tree *t, int margin)
{
	fprintf(t->fp, "%*s", 12 + margin, "");
}

/* perf's depth masks are ints shifted by the depth: on x86 the count wraps at 32 */
static bool mask_bit(int mask, int i)
{
	return mask & (int)(1u << (i & 31));
}

static int mask_without(int mask, int i)
{
	return mask & ~(int)(1u << (i & 31));
}

static void graph_line(struct tree *t, int depth, int mask, int margin)
{
	left_margin(t, margin);
	for (int i = 0; i < depth; i++)
		fputs(mask_bit(mask, i) ? "|          " : "           ", t->fp);
	fputc('\n', t->fp);
}

/* perf's ipchain__fprintf_graph: name is the frame's, or "[...]" */
static void graph_entry(struct tree *t, u64 hits, u32 counts, const char *name, int depth,
			int mask, int period, u64 total, int margin)
{
	left_margin(t, margin);
	for (int i = 0; i < depth; i++) {
		fputc(mask_bit(mask, i) ? '|' : ' ', t->fp);
		if (!period && i == depth - 1) {
			fputs("--", t->fp);
			print_value(t, hits, counts, total);
			fputs("--", t->fp);
		} else {
			fputs("          ", t->fp);
		}
	}
	fputs(name, t->fp);
	fputc('\n', t->fp);
}

/* perf's __callchain__fprintf_graph over the children of node; whether it printed */
static bool print_graph(struct tree *t, u32 node, u64 total, int depth, int mask, int margin)
{
	const struct callchain_param *param = t->p->param;
	size_t nr, start = sorted_children(t, node, &nr), printed = 0;
	int new_mask = mask;
	u64 remaining = total;
	u32 cumul_count = 0;
	u32 last = NO_NODE;
	char name[1024];

	for (size_t k = 0; k < nr; k++) {
		u32 c = t->out[start + k];
		const struct cc_node *child = &t->nodes[c];
		u64 new_total;

		last = c;
		remaining -= cumul_hits(child);
		cumul_count += cumul_counts(child);
		if (k + 1 == nr && (param->mode != CC_GRAPH_REL || !remaining))
			new_mask = mask_without(new_mask, depth - 1);
		graph_line(t, depth, mask, margin);
		for (u32 v = 0; v < child->val_nr; v++) {
			frame_name(t, t->vals[child->val + v], name, sizeof(name));
			graph_entry(t, cumul_hits(child), cumul_counts(child), name, depth, new_mask,
				    (int)v, total, margin);
		}
		new_total = param->mode == CC_GRAPH_REL ? child->children_hit : total;
		print_graph(t, c, new_total, depth + 1, new_mask | (int)(1u << (depth & 31)),
			    margin);
		if (++printed == param->print_limit)
			break;
	}
	t->nr_out = start;
	if (param->mode == CC_GRAPH_REL && remaining && remaining != total) {
		u32 count = 0;

		if (param->value == CC_VALUE_COUNT && last != NO_NODE) {
			s64 rem = (s64)t->nodes[t->nodes[last].parent].children_count - cumul_count;

			if (rem <= 0)
				return nr > 0;
			count = (u32)rem;
		}
		new_mask = mask_without(new_mask, depth - 1);
		graph_entry(t, remaining, count, "[...]", depth, new_mask, 0, total, margin);
		return true;
	}
	return nr > 0;
}

/* perf's callchain__fprintf_graph: a single root's own frames go first, unindented */
static void print_graph_root(struct tree *t)
{
	const struct callchain_param *param = t->p->param;
	size_t nr, start = sorted_children(t, 0, &nr);
	u64 total = t->p->total;
	u32 node = 0;
	int margin = 0;
	bool printed_any = false;
	char name[1024];

	if (nr == 1 && cumul_hits(&t->nodes[t->out[start]]) == t->p->parent) {
		const struct cc_node *n = &t->nodes[t->out[start]];
		bool printed = false;
		u32 entries = 0;

		node = t->out[start];
		for (u32 v = 0; v < n->val_nr; v++) {
			if (!v && t->p->skip_first)
				continue;
			if (!printed) {
				left_margin(t, margin);
				fputs("|\n", t->fp);
				left_margin(t, margin);
				fputs("---", t->fp);
				margin += 3;
				printed = true;
			} else {
				left_margin(t, margin);
			}
			frame_name(t, t->vals[n->val + v], name, sizeof(name));
			fprintf(t->fp, "%s\n", name);
			printed_any = true;
			if (++entries == param->print_limit)
				break;
		}
	}
	t->nr_out = 0;
	if (param->mode == CC_GRAPH_REL)
		total = t->p->parent;
	printed_any |= print_graph(t, node, total, 1, 1, margin);
	if (printed_any)
		fputc('\n', t->fp);
}

/* sort_chain_flat: every node with hits of its own, post-order, then by hits */
static void flat_collect(struct tree *t, u32 node)
{
	const struct cc_node *n = &t->nodes[node];
	size_t k;

	for (u32 i = 0; i < n->nr_children; i++)
		flat_collect(t, n->child + i);
	n = &t->nodes[node];
	if (!n->hit || n->hit < t->p->min_hit)
		return;
	ARRAY_GROW(t->out, t->out_alloc, t->nr_out + 1);
	for (k = t->nr_out; k > 0 && t->nodes[t->out[k - 1]].hit < n->hit; k--)
		t->out[k] = t->out[k - 1];
	t->out[k] = node;
	t->nr_out++;
}

static void print_path(struct tree *t, u32 node, const char *prefix, const char *sep,
		       bool *first)
{
	const struct cc_node *n = &t->nodes[node];
	char name[1024];

	if (n->parent != NO_NODE)
		print_path(t, n->parent, prefix, sep, first);
	for (u32 v = 0; v < n->val_nr; v++) {
		/* perf's flat and folded printers leave out what looks like a context marker: an
		 * unwound frame at the top 4095 addresses (a return address of 0, less one) */
		if (t->cc->frames[t->vals[n->val + v]].ip >= (u64)PERF_CONTEXT_MAX)
			continue;
		frame_name(t, t->vals[n->val + v], name, sizeof(name));
		if (sep) {
			fprintf(t->fp, "%s%s", *first ? "" : sep, name);
			*first = false;
		} else {
			fprintf(t->fp, "%s%s\n", prefix, name);
		}
	}
}

static void print_flat(struct tree *t, bool folded)
{
	u32 printed = 0;

	t->nr_out = 0;
	flat_collect(t, 0);
	for (size_t k = 0; k < t->nr_out; k++) {
		const struct cc_node *n = &t->nodes[t->out[k]];
		bool first = true;

		if (folded) {
			print_value(t, n->hit, n->count, t->p->total);
			fputc(' ', t->fp);
			print_path(t, t->out[k], NULL, ";", &first);
			fputc('\n', t->fp);
		} else {
			fputs("           ", t->fp);
			print_value(t, cumul_hits(n), cumul_counts(n), t->p->total);
			fputc('\n', t->fp);
			print_path(t, t->out[k], "                ", NULL, &first);
			fputc('\n', t->fp);
		}
		if (++printed == t->p->param->print_limit)
			break;
	}
	t->nr_out = 0;
}

bool callchains__prints_nothing(const struct cc_print *p, u64 period)
{
	return p->param->mode == CC_NONE || (p->param->mode != CC_GRAPH_REL && period < p->min_hit);
}

struct cc_scratch {
	struct tree t;	/* its arrays */
	struct cc_contrib *contribs;
	size_t contribs_alloc;
};

struct cc_scratch *cc_scratch__new(void)
{
	struct cc_scratch *s = xzalloc(sizeof(*s));

	rbtree__init(&s->t.rb, 1);
	return s;
}

void cc_scratch__delete(struct cc_scratch *s)
{
	if (!s)
		return;
	free(s->t.nodes);
	free(s->t.vals);
	free(s->t.trie);
	free(s->t.walk);
	rbtree__exit(&s->t.rb);
	free(s->t.out);
	free(s->contribs);
	free(s);
}

struct cc_contrib *cc_scratch__contribs(struct cc_scratch *s, size_t nr)
{
	ARRAY_GROW(s->contribs, s->contribs_alloc, nr ? nr : 1);
	return s->contribs;
}

void callchains__fprintf(struct callchains *cc, const struct cc_print *p,
			 const struct cc_contrib *contribs, size_t nr, struct cc_scratch *s,
			 FILE *fp)
{
	struct tree t = s->t;

	if (p->param->mode == CC_NONE)
		return;
	t.cc = cc;
	t.machine = p->machine;
	t.p = p;
	t.fp = fp;
	t.nr_nodes = t.nr_vals = t.nr_trie = t.nr_out = 0;
	tree_build(&t, contribs, nr);
	switch (p->param->mode) {
	case CC_GRAPH_ABS:
	case CC_GRAPH_REL:
		print_graph_root(&t);
		break;
	case CC_FLAT:
		print_flat(&t, false);
		break;
	case CC_FOLDED:
		print_flat(&t, true);
		break;
	default:
		break;
	}
	s->t = t;	/* what grew, for the next */
}
