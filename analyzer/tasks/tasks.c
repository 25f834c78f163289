/*
 * tasks: `analyze tasks`, perf report --tasks [--mmaps]. Feeds COMM FORK EXIT (and with
 * --mmaps MMAP MMAP2) to the machine model in perf's delivery order, keeping exited threads,
 * then links and prints the task tree. Samples are not looked at, so no symbol table loads.
 */
#include "analyzer/commands.h"
#include "analyzer/tasks/tasks.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analyzer/cli/options.h"
#include "analyzer/cli/session_warn.h"
#include "lib/progress.h"
#include "lib/error.h"
#include "lib/workqueue.h"
#include "lib/xalloc.h"
#include "machine/machine.h"
#include "readers/session.h"

static const char *const tasks_usage = "analyze tasks [<options>] [PATH]";

#define NO_TASK UINT32_MAX

/*
 * One thread in the tree. perf 6.1 links its `struct task`s the same way: children in the
 * order they are first reached, `listed` once linked under a parent or among the roots.
 */
struct task_node {
	struct thread *thread;	/* borrowed from the model */
	u64 key;	/* task_key() of its tid: sorting and searching read no thread */
	u32 first_child, last_child, next;
	bool listed;
};

struct tasks_tree {
	struct task_node *nodes;
	u32 nr;
	u32 first_root, last_root;
};

/*
 * perf 6.1 keeps threads in 256 rb-trees by tid (THREADS__TABLE_SIZE, picked by tid % 256,
 * each ordered by tid) and visits them tree after tree: that order decides the tree's. As
 * one number: the tree above, the tid (signed, so its sign bit flipped) below.
 */
static u64 task_key(s32 tid)
{
	return (u64)((u32)tid % 256) << 32 | ((u32)tid ^ 0x80000000u);
}

static int node_cmp(const void *a, const void *b)
{
	u64 x = ((const struct task_node *)a)->key, y = ((const struct task_node *)b)->key;

	return x < y ? -1 : x > y;
}

/* Counting sort by perf's tree (tid % 256) first: no copy of all the nodes to sort them. */
struct node_sorter {
	struct tasks_tree *tree;
	u32 next[256];	/* where the next node of each tree goes */
};

static int count_node(struct thread *thread, void *data)
{
	((struct node_sorter *)data)->next[(u32)thread->tid % 256]++;
	return 0;
}

static int add_node(struct thread *thread, void *data)
{
	struct node_sorter *ns = data;
	struct task_node *n = &ns->tree->nodes[ns->next[(u32)thread->tid % 256]++];

	n->thread = thread;
	n->key = task_key(thread->tid);
	n->first_child = n->last_child = n->next = NO_TASK;
	n->listed = false;
	return 0;
}

/* The nodes of every thread, in key order. */
static void add_nodes(struct machine *machine, struct tasks_tree *tree)
{
	struct node_sorter ns = { .tree = tree };
	u32 start = 0, starts[256];

	machine__for_each_thread(machine, count_node, &ns);
	for (int b = 0; b < 256; b++) {
		u32 nr = ns.next[b];

		starts[b] = ns.next[b] = start;
		start += nr;
	}
	machine__for_each_thread(machine, add_node, &ns);
	tree->nr = start;
	for (int b = 0; b < 256; b++)
		qsort(tree->nodes + starts[b], ns.next[b] - starts[b], sizeof(*tree->nodes),
		      node_cmp);
}

/* The node of tid (nodes are in key order), or NO_TASK. */
static u32 find_node(const struct tasks_tree *tree, s32 tid)
{
	u64 key = task_key(tid);
	u32 lo = 0, hi = tree->nr;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (tree->nodes[mid].key == key)
			return mid;
		if (key < tree->nodes[mid].key)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NO_TASK;
}

static void append(struct task_node *nodes, u32 *first, u32 *last, u32 i)
{
	if (*last == NO_TASK)
		*first = i;
	else
		nodes[*last].next = i;
	*last = i;
}

/*
 * perf's tasks_list, without recursion: link i under its parent, the parent under its own,
 * and so on up to a task already linked (*root = NO_TASK) or one without a parent (*root).
 * -1 when a parent is not in the model.
 */
static int link_up(struct tasks_tree *tree, u32 i, u32 *root)
{
	for (;;) {
		struct task_node *n = &tree->nodes[i];
		u32 parent;

		if (n->listed) {
			*root = NO_TASK;
			return 0;
		}
		if (n->thread->ppid == -1) {
			*root = i;
			return 0;
		}
		parent = find_node(tree, n->thread->ppid);
		if (parent == NO_TASK)
			return -1;
		append(tree->nodes, &tree->nodes[parent].first_child, &tree->nodes[parent].last_child,
		       i);
		n->listed = true;
		i = parent;
	}
}

static int tid_cmp(const void *a, const void *b)
{
	s32 x = (*(struct task_node *const *)a)->thread->tid;
	s32 y = (*(struct task_node *const *)b)->thread->tid;

	return x < y ? -1 : x > y;
}

/* --sorted: relink one list (*first..*last) in tid order; scratch holds tree->nr pointers. */
static void sort_list(struct tasks_tree *tree, u32 *first, u32 *last, struct task_node **scratch)
{
	size_t n = 0;

	for (u32 i = *first; i != NO_TASK; i = tree->nodes[i].next)
		scratch[n++] = &tree->nodes[i];
	if (n < 2)
		return;
	qsort(scratch, n, sizeof(*scratch), tid_cmp);
	*first = *last = NO_TASK;
	for (size_t k = 0; k < n; k++) {
		u32 i = (u32)(scratch[k] - tree->nodes);

		tree->nodes[i].next = NO_TASK;
		append(tree->nodes, first, last, i);
	}
}

static void sort_tree(struct tasks_tree *tree)
{
	struct task_node **scratch = xcalloc(tree->nr ? tree->nr : 1, sizeof(*scratch));

	sort_list(tree, &tree->first_root, &tree->last_root, scratch);
	for (u32 i = 0; i < tree->nr; i++)
		sort_list(tree, &tree->nodes[i].first_child, &tree->nodes[i].last_child, scratch);
	free(scratch);
}

struct map_print {
	FILE *fp;
	int indent;
};

/* perf 6.1's maps__fprintf_task: one line a map, under the comm. */
static int print_map(struct map *map, void *data)
{
	struct map_print *mp = data;

	fprintf(mp->fp, "%*s  %" PRIx64 "-%" PRIx64 " %c%c%c%c %08" PRIx64 " %" PRIu64 " %s\n",
		mp->indent, "", map->start, map->end, map->prot & PROT_READ ? 'r' : '-',
		map->prot & PROT_WRITE ? 'w' : '-', map->prot & PROT_EXEC ? 'x' : '-',
		map->shared ? 's' : 'p', map->pgoff, dso__ino(map->dso, map->ino_index),
		map->dso->long_name);
	return 0;
}

/* perf's task__print_level, depth first in list order, without recursion. */
static void print_tree(struct tasks_tree *tree, FILE *fp, bool mmaps)
{
	/* stack[d]: the next task to print at depth d */
	u32 *stack = xcalloc((size_t)tree->nr + 1, sizeof(*stack));
	int depth = 0;

	stack[0] = tree->first_root;
	while (depth >= 0) {
		u32 i = stack[depth];
		struct thread *t;
		struct map_print mp = { .fp = fp };

		if (i == NO_TASK) {
			depth--;
			continue;
		}
		t = tree->nodes[i].thread;
		mp.indent = fprintf(fp, "  %8d %8d %8d |%*s", t->pid, t->tid, t->ppid, depth, "");
		fprintf(fp, "%s\n", thread__comm_str(t));
		if (mmaps && t->maps)
			maps__for_each_map(t->maps, print_map, &mp);
		stack[depth] = tree->nodes[i].next;
		stack[++depth] = tree->nodes[i].first_child;
	}
	free(stack);
}

int tasks__fprintf(struct machine *machine, FILE *fp, bool mmaps, bool sorted)
{
	struct tasks_tree tree = { .first_root = NO_TASK, .last_root = NO_TASK };
	size_t nr = machine__nr_threads(machine);
	int ret = 0;

	tree.nodes = xcalloc(nr ? nr : 1, sizeof(*tree.nodes));
	add_nodes(machine, &tree);
	for (u32 i = 0; i < tree.nr; i++) {
		u32 root;

		if (tree.nodes[i].listed)
			continue;
		if (link_up(&tree, i, &root)) {
			ret = -1;
			goto out;
		}
		if (root != NO_TASK) {
			append(tree.nodes, &tree.first_root, &tree.last_root, root);
			tree.nodes[root].listed = true;
		}
	}
	if (sorted)
		sort_tree(&tree);
	fprintf(fp, "# %8s %8s %8s  %s\n", "pid", "tid", "ppid", "comm");
	print_tree(&tree, fp, mmaps);
out:
	free(tree.nodes);
	return ret;
}

struct tasks {
	struct event_consumer consumer;
	struct perf_session session;
	struct machine machine;
	bool mmaps;
};

/* What perf's tasks mode handles: COMM, EXIT, FORK, and MMAP/MMAP2 with --mmaps. */
static int tasks_deliver(struct event_consumer *consumer, struct event_ctx *ctx)
{
	struct tasks *tasks = container_of(consumer, struct tasks, consumer);
	u32 type = ctx->event->type;

	if (type != PERF_RECORD_COMM && type != PERF_RECORD_EXIT && type != PERF_RECORD_FORK &&
	    !(tasks->mmaps && (type == PERF_RECORD_MMAP || type == PERF_RECORD_MMAP2)))
		return 0;
	if (machine__process_event(&tasks->machine, ctx->event, ctx->sample.time)) {
		error_set("%s: offset %#llx: %s", tasks->session.path,
			  (unsigned long long)ctx->file_offset, error_get());
		return -1;
	}
	return 0;
}

int cmd_tasks(int argc, const char **argv)
{
	const char *input = NULL, *jobs = NULL;
	bool mmaps = false, sorted = false, progress = true;
	struct option opts[] = {
		{ 'i', "input", OPT_STRING, &input, "file", "input file name" },
		{ 0, "mmaps", OPT_BOOL, &mmaps, NULL, "Display recorded tasks memory maps" },
		{ 0, "sorted", OPT_BOOL, &sorted, NULL, "order every level of the tree by tid" },
		{ 'j', "jobs", OPT_STRING, &jobs, "n", "threads in all for reading (default: online CPUs)" },
		OPT_PROGRESS(&progress),
		OPT_END_MARK,
	};
	struct tasks tasks = { .consumer.deliver = tasks_deliver };
	struct symsrc_config symsrc = { 0 };
	struct workqueue *wq = NULL;
	int nr_args, nr_jobs, ret;

	nr_args = parse_options(argc, argv, opts, tasks_usage);
	if (nr_args < 0)
		return 129;
	if (!options__input(nr_args, argv, &input, tasks_usage, opts))
		return 129;
	nr_jobs = options__jobs(jobs, tasks_usage, opts);
	if (nr_jobs < 0)
		return 129;
	if (perf_session__open(&tasks.session, input)) {
		fprintf(stderr, "analyze: %s\n", error_get());
		return 1;
	}
	/*
	 * -j N: N threads in all, this one included; workers only read a data directory's files
	 * ahead (a single file is read on this thread: starting threads would only cost)
	 */
	wq = nr_jobs > 1 && tasks.session.is_dir ? workqueue__new(nr_jobs - 1) : NULL;
	tasks.session.wq = wq;
	/*
	 * The CPU no worker uses maps the file ahead when the mmaps are read from it. Without
	 * --mmaps most records are skipped, a header each: mapping ahead doubled the pages held
	 * and gave 0.01-0.03 s on 10M mmaps, and was slower on 1M threads (0.99-1.11 s against
	 * 0.89-0.94 s).
	 */
	tasks.session.prefault = nr_jobs > 1 && mmaps;
	/* no dso loader: nothing here loads symbols */
	machine__init(&tasks.machine, &symsrc);
	tasks.machine.keep_exited = true;	/* perf lists exited tasks too */
	tasks.mmaps = mmaps;
	tasks.consumer.ignores = ~(1ull << PERF_RECORD_COMM | 1ull << PERF_RECORD_EXIT |
				   1ull << PERF_RECORD_FORK);
	if (mmaps)
		tasks.consumer.ignores &= ~(1ull << PERF_RECORD_MMAP | 1ull << PERF_RECORD_MMAP2);

	progress_init("analyze tasks", !progress, false);
	progress_phase("reading", perf_session__data_bytes(&tasks.session));
	ret = perf_session__process(&tasks.session, &tasks.consumer);
	progress_done();
	session_warn_data_files(&tasks.session, stderr);
	if (ret) {
		fprintf(stderr, "analyze: %s\n", error_get());
		ret = 1;
	} else if (tasks__fprintf(&tasks.machine, stdout, mmaps, sorted)) {
		/* perf 6.1: pr_err, then its status -ENOENT & 0xff */
		fprintf(stderr, "Error: failed to process tasks\n");
		ret = 254;
	}
	if (wq)
		workqueue__destroy(wq);
	machine__exit(&tasks.machine);
	perf_session__close(&tasks.session);
	return ret;
}
