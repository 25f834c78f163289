/*
 * cpu_list: the cpu lists of -C (perf_cpu_map__new's syntax: "0-3,6"), as one byte per cpu.
 * Knows nothing of sessions: the caller checks the cpus against the recording's.
 */
#ifndef ANALYZER_CPU_LIST_H
#define ANALYZER_CPU_LIST_H

#include <stdbool.h>

#include "lib/compiler.h"

#define CPU_LIST_MAX 4096	/* cpus a list may name (perf's MAX_NR_CPUS is 2048) */

struct cpu_list {
	u8 *cpus;	/* CPU_LIST_MAX of them; NULL: no list, every cpu */
	int max;	/* the largest cpu named, -1 for none */
};

/* Parse str; false (and an empty list) when it does not parse. */
bool cpu_list__parse(struct cpu_list *list, const char *str);
/* Whether a sample on cpu passes: no list, or the cpu in it. */
bool cpu_list__has(const struct cpu_list *list, u32 cpu);
void cpu_list__exit(struct cpu_list *list);

#endif
