/*
 * tasks: `analyze tasks`, perf report --tasks [--mmaps]: the tree of every task the recording
 * saw (pid, tid, ppid, comm, and with --mmaps each task's maps), in perf 6.1's order or, with
 * --sorted, ordered by tid at every level. Reads side-band records only: no samples, no
 * symbol tables.
 */
#ifndef ANALYZER_TASKS_H
#define ANALYZER_TASKS_H

#include <stdbool.h>
#include <stdio.h>

struct machine;

/*
 * Print the model's task tree as perf 6.1's `report --tasks` prints it (with mmaps: each
 * task's maps; sorted: every level by tid). Returns 0, or -1 without printing anything when a
 * task's parent is not in the model (perf: "failed to process tasks").
 */
int tasks__fprintf(struct machine *machine, FILE *fp, bool mmaps, bool sorted);

#endif
