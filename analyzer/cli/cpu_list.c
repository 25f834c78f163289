/*
 * cpu_list: -C's lists of cpus, ranges and single ones separated by commas, as perf's
 * perf_cpu_map__new reads them (a range's start above its end is an error).
 */
#include "analyzer/cli/cpu_list.h"

#include <stdlib.h>

#include "lib/xalloc.h"

bool cpu_list__parse(struct cpu_list *list, const char *str)
{
	const char *p = str;

	list->cpus = xcalloc(CPU_LIST_MAX, 1);
	list->max = -1;
	while (*p) {
		char *end;
		unsigned long a = strtoul(p, &end, 10), b = a;

		if (end == p)
			goto bad;
		p = end;
		if (*p == '-') {
			b = strtoul(p + 1, &end, 10);
			if (end == p + 1)
				goto bad;
			p = end;
		}
		if (a > b || b >= CPU_LIST_MAX)
			goto bad;
		for (unsigned long c = a; c <= b; c++)
			list->cpus[c] = 1;
		list->max = MAX(list->max, (int)b);
		if (*p == ',')
			p++;
		else if (*p)
			goto bad;
	}
	return true;
bad:
	cpu_list__exit(list);
	return false;
}

bool cpu_list__has(const struct cpu_list *list, u32 cpu)
{
	return !list->cpus || (cpu < CPU_LIST_MAX && list->cpus[cpu]);
}

void cpu_list__exit(struct cpu_list *list)
{
	free(list->cpus);
	list->cpus = NULL;
	list->max = -1;
}
