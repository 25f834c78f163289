/*
 * Unit tests for analyzer/tasks/tasks.c: the task tree as perf 6.1's report --tasks links and
 * orders it (threads visited by tid % 256, then tid), --sorted, --mmaps lines, and trees
 * perf cannot print (a cycle from a reused tid) or would print by deep recursion.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "analyzer/tasks/tasks.h"
#include "machine/machine.h"
#include "tests/unit/events.h"

static void mmap2_ev(struct machine *m, u32 pid, u64 start, u64 len, u64 pgoff, u32 prot,
		     u32 flags, u64 ino, const char *name)
{
	struct {
		struct perf_record_mmap2 mm;
		char buf[64];
	} ev = { 0 };

	ev.mm.header.type = PERF_RECORD_MMAP2;
	ev.mm.header.misc = PERF_RECORD_MISC_USER;
	ev.mm.header.size = sizeof(ev);
	ev.mm.pid = ev.mm.tid = pid;
	ev.mm.start = start;
	ev.mm.len = len;
	ev.mm.pgoff = pgoff;
	ev.mm.maj = ino ? 8 : 0;
	ev.mm.ino = ino;
	ev.mm.prot = prot;
	ev.mm.flags = flags;
	strcpy(ev.mm.filename, name);
	cr_assert_eq(machine__process_event(m, &ev.mm.header, 0), 0);
}

static void init(struct machine *m)
{
	struct symsrc_config cfg = { .buildid_dir = "/nonexistent", .symfs = "" };

	machine__init(m, &cfg);
	m->keep_exited = true;
}

/* tasks__fprintf's output, in a malloc'ed string */
static char *print(struct machine *m, bool mmaps, bool sorted, int *ret)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *fp = open_memstream(&buf, &size);

	cr_assert_not_null(fp);
	*ret = tasks__fprintf(m, fp, mmaps, sorted);
	fclose(fp);
	return buf;
}

/*
 * 300 "init" with a thread 301, forking 258 (which forks 260) and 513. perf visits
 * 0, 513 (bucket 1), 258 (2), 260 (4), 300 (44), 301 (45): 513 links first under 300.
 */
static void small_tree(struct machine *m)
{
	put_comm(m, 300, 300, "init");
	put_fork(m, 258, 300, 258, 300);
	put_fork(m, 513, 300, 513, 300);
	put_comm(m, 513, 513, "late");
	put_fork(m, 260, 258, 260, 258);
	put_fork(m, 300, 300, 301, 300);
}

Test(tasks, perf_order_links_in_tid_bucket_order)
{
	struct machine m;
	int ret;
	char *out;

	init(&m);
	small_tree(&m);
	out = print(&m, false, false, &ret);
	cr_assert_eq(ret, 0);
	cr_assert_str_eq(out,
			 "#      pid      tid     ppid  comm\n"
			 "         0        0       -1 |swapper\n"
			 "       300      300       -1 |init\n"
			 "       513      513      300 | late\n"
			 "       258      258      300 | init\n"
			 "       260      260      258 |  init\n"
			 "       300      301      300 | init\n");
	free(out);
	machine__exit(&m);
}

Test(tasks, sorted_orders_every_level_by_tid)
{
	struct machine m;
	int ret;
	char *out;

	init(&m);
	small_tree(&m);
	out = print(&m, false, true, &ret);
	cr_assert_eq(ret, 0);
	cr_assert_str_eq(out,
			 "#      pid      tid     ppid  comm\n"
			 "         0        0       -1 |swapper\n"
			 "       300      300       -1 |init\n"
			 "       258      258      300 | init\n"
			 "       260      260      258 |  init\n"
			 "       300      301      300 | init\n"
			 "       513      513      300 | late\n");
	free(out);
	machine__exit(&m);
}

/*
 * Map lines: indented under the comm, in address order; prot and MAP_SHARED as recorded;
 * an MMAP (no id) shows the inode a later MMAP2 of the same path recorded (perf injects the
 * id into the dso); [vdso] shows 0; a fork copies the maps, a thread shares them.
 */
Test(tasks, mmaps_lines)
{
	struct machine m;
	int ret;
	char *out;

	init(&m);
	put_comm(&m, 40, 40, "prog");
	put_mmap(&m, 40, 0x400000, 0x1000, "/bin/prog");
	mmap2_ev(&m, 40, 0x7f0000002000, 0x2000, 0, PROT_READ | PROT_EXEC, MAP_PRIVATE, 0,
		 "[vdso]");
	mmap2_ev(&m, 40, 0x7f0000000000, 0x1000, 0x3000, PROT_READ | PROT_WRITE, MAP_SHARED, 77,
		 "/bin/prog");
	put_fork(&m, 40, 40, 41, 40);
	put_fork(&m, 42, 40, 42, 40);
	mmap2_ev(&m, 42, 0x500000, 0x1000, 0x1000, PROT_READ | PROT_EXEC, MAP_PRIVATE, 99,
		 "/bin/prog");
	out = print(&m, true, false, &ret);
	cr_assert_eq(ret, 0);
	cr_assert_str_eq(out,
			 "#      pid      tid     ppid  comm\n"
			 "         0        0       -1 |swapper\n"
			 "        40       40       -1 |prog\n"
			 "                                400000-401000 --xp 00000000 77 /bin/prog\n"
			 "                                7f0000000000-7f0000001000 rw-s 00003000 77 /bin/prog\n"
			 "                                7f0000002000-7f0000004000 r-xp 00000000 0 [vdso]\n"
			 "        40       41       40 | prog\n"
			 "                                 400000-401000 --xp 00000000 77 /bin/prog\n"
			 "                                 7f0000000000-7f0000001000 rw-s 00003000 77 /bin/prog\n"
			 "                                 7f0000002000-7f0000004000 r-xp 00000000 0 [vdso]\n"
			 "        42       42       40 | prog\n"
			 "                                 400000-401000 --xp 00000000 77 /bin/prog\n"
			 "                                 500000-501000 r-xp 00001000 99 /bin/prog\n"
			 "                                 7f0000000000-7f0000001000 rw-s 00003000 77 /bin/prog\n"
			 "                                 7f0000002000-7f0000004000 r-xp 00000000 0 [vdso]\n");
	free(out);
	machine__exit(&m);
}

/*
 * A reused tid can make two tasks each other's parent: perf links them to each other and
 * prints neither; so do we, without looping.
 */
Test(tasks, parent_cycle_is_not_printed)
{
	struct machine m;
	int ret;
	char *out;

	init(&m);
	put_comm(&m, 100, 100, "a");
	put_fork(&m, 101, 100, 101, 100);
	put_fork(&m, 100, 101, 100, 101);	/* tid 100 again, now a child of 101 */
	out = print(&m, false, false, &ret);
	cr_assert_eq(ret, 0);
	cr_assert_str_eq(out, "#      pid      tid     ppid  comm\n"
			      "         0        0       -1 |swapper\n");
	free(out);
	machine__exit(&m);
}

/* A long chain of forks prints without recursion, one more space a level. */
Test(tasks, deep_chain)
{
	enum { DEPTH = 3000 };
	struct machine m;
	char want[DEPTH + 64];
	int ret;
	char *out, *last;

	init(&m);
	put_comm(&m, 1000, 1000, "c");
	for (u32 i = 1; i < DEPTH; i++)
		put_fork(&m, 1000 + i, 1000 + i - 1, 1000 + i, 1000 + i - 1);
	out = print(&m, false, true, &ret);
	cr_assert_eq(ret, 0);
	last = strrchr(out, '\n');
	*last = '\0';
	last = strrchr(out, '\n') + 1;
	snprintf(want, sizeof(want), "  %8d %8d %8d |%*sc", 1000 + DEPTH - 1, 1000 + DEPTH - 1,
		 1000 + DEPTH - 2, DEPTH - 1, "");
	cr_assert_str_eq(last, want);
	free(out);
	machine__exit(&m);
}
