/*
 * record_masks: the CPUs `analyze record` opens its events on (the online ones, or -C's list)
 * and, with --threads, the masks that group them into streams: perf 6.1's cpu, core, package
 * and numa masks and the user's MAPS/AFFINITY pairs, with perf's rules, messages and exit
 * statuses. The streams themselves are record_stream.c's.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/record/record_internal.h"
#include "lib/xalloc.h"

/*
 * A CPU list as perf_cpu_map__new reads one (libperf of perf 6.1): numbers in C's bases,
 * ranges A-B (a missing B is 0), ',' between; a list that does not start with a digit, a
 * range downwards or a CPU twice is malformed; after a ',', what does not start with a digit
 * ends the list. 0; -ENOMEM where perf gets no map (its status for it), -ENODEV where a CPU
 * is past perf's bitmaps of NBITS CPUs (its test is `cpu > nbits`).
 */
static int cpu_list_parse(const char *list, cpu_set_t *set, long nbits)
{
	const char *p = list;
	long highest = -1;
	int n = 0;

	CPU_ZERO(set);
	while (*p >= '0' && *p <= '9') {
		char *end;
		unsigned long a = strtoul(p, &end, 0), b = a;

		if (a >= INT_MAX || (*end && *end != ',' && *end != '-'))
			return -ENOMEM;
		if (*end == '-') {
			b = strtoul(end + 1, &end, 0);
			if (b >= INT_MAX || (*end && *end != ',') || b < a)
				return -ENOMEM;
		}
		for (unsigned long c = a; c <= b; c++) {
			if (c < CPU_SETSIZE && CPU_ISSET(c, set))
				return -ENOMEM;
			if (c < CPU_SETSIZE)
				CPU_SET(c, set);
			n++;
			if (c >= CPU_SETSIZE)	/* past every bitmap: no need to go on */
				break;
		}
		highest = MAX(highest, (long)b);
		p = *end ? end + 1 : end;
	}
	if (!n)
		return -ENOMEM;
	return highest > nbits || highest >= CPU_SETSIZE ? -ENODEV : 0;
}

static void read_sysfs_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");

	buf[0] = 0;
	if (f) {
		if (!fgets(buf, (int)size, f))
			buf[0] = 0;
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
}

/* perf's cpu__max_cpu: one past the highest possible CPU, the width of its CPU bitmaps. */
static long possible_cpus(void)
{
	char buf[256];
	cpu_set_t set;
	long last = -1;

	read_sysfs_line("/sys/devices/system/cpu/possible", buf, sizeof(buf));
	if (!buf[0] || cpu_list_parse(buf, &set, CPU_SETSIZE))
		return sysconf(_SC_NPROCESSORS_CONF);
	for (long c = 0; c < CPU_SETSIZE; c++) {
		if (CPU_ISSET(c, &set))
			last = c;
	}
	return last + 1;
}

int record__check_cpu_list(const char *list)
{
	cpu_set_t set;

	return cpu_list_parse(list, &set, CPU_SETSIZE) == -ENOMEM ? -1 : 0;
}

int record__set_cpus(struct recording *rec)
{
	char buf[4096];
	cpu_set_t online, set;
	int err;

	read_sysfs_line("/sys/devices/system/cpu/online", buf, sizeof(buf));
	if (!buf[0] || cpu_list_parse(buf, &online, CPU_SETSIZE)) {
		fprintf(stderr, "Couldn't read the online CPUs\n");
		return -EINVAL;
	}
	set = online;
	if (rec->cpu_list) {
		err = cpu_list_parse(rec->cpu_list, &set, possible_cpus());
		CPU_AND(&online, &online, &set);
		if (!err && !CPU_EQUAL(&online, &set))
			err = -ENODEV;
		if (err) {
			/* what perf 6.1 says for a CPU list it cannot use */
			fprintf(stderr, "Failed to initialize parallel data streaming masks\n");
			return err;
		}
	}
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &set))
			continue;
		rec->cpus = xreallocarray(rec->cpus, rec->nr_cpus + 1, sizeof(int));
		rec->cpus[rec->nr_cpus++] = c;
	}
	return 0;
}

static struct rec_mask *add_mask(struct recording *rec)
{
	struct rec_mask *m;

	rec->masks = xreallocarray(rec->masks, rec->nr_masks + 1, sizeof(*rec->masks));
	m = &rec->masks[rec->nr_masks++];
	CPU_ZERO(&m->maps);
	CPU_ZERO(&m->affinity);
	return m;
}

/* The CPU list of CPU's group for --threads=SPEC (cpu, core, package, numa) into key. */
static int group_key(const char *spec, int cpu, char *key, size_t size)
{
	char path[256];

	if (!strcmp(spec, "cpu")) {
		snprintf(key, size, "%d", cpu);
	} else if (!strcmp(spec, "core")) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", cpu);
		read_sysfs_line(path, key, size);
	} else if (!strcmp(spec, "package")) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/core_siblings_list", cpu);
		read_sysfs_line(path, key, size);
	} else if (!strcmp(spec, "numa")) {
		int node = 0;

		for (; node < 1024; node++) {
			snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/node%d", cpu, node);
			if (!access(path, F_OK))
				break;
		}
		snprintf(key, size, "node%d", node == 1024 ? 0 : node);
	} else {
		return -1;
	}
	if (!key[0])
		snprintf(key, size, "%d", cpu);
	return 0;
}

/* The built-in specs: the CPUs grouped by their key, each group its own maps and affinity. */
static int topology_masks(struct recording *rec, const char *spec)
{
	char (*keys)[128] = xcalloc(rec->nr_cpus, sizeof(*keys));
	size_t *group = xcalloc(rec->nr_cpus, sizeof(size_t));
	int ret = -1;

	for (size_t c = 0; c < rec->nr_cpus; c++) {
		size_t g;

		if (group_key(spec, rec->cpus[c], keys[c], sizeof(keys[c])))
			goto out;
		for (g = 0; g < c && strcmp(keys[g], keys[c]); g++)
			;
		if (g == c) {
			group[c] = rec->nr_masks;
			add_mask(rec);
		} else {
			group[c] = group[g];
		}
		CPU_SET(rec->cpus[c], &rec->masks[group[c]].maps);
		CPU_SET(rec->cpus[c], &rec->masks[group[c]].affinity);
	}
	ret = 0;
out:
	free(keys);
	free(group);
	return ret;
}

/* One MAPS or AFFINITY list of a user spec, restricted to the CPUs recorded; perf's checks. */
static int user_mask(const char *list, const char *what, cpu_set_t *mask, const cpu_set_t *cpus,
		     long nbits)
{
	int err = cpu_list_parse(list, mask, nbits);

	if (err) {
		fprintf(stderr, "Failed to initialize %s thread mask\n", what);
		return err;
	}
	CPU_AND(mask, mask, cpus);	/* CPUs not recorded are dropped, */
	if (!CPU_COUNT(mask)) {		/* but a mask may not end up empty */
		fprintf(stderr, "Empty %s mask: %s\n", what, list);
		return -EINVAL;
	}
	return 0;
}

/*
 * --threads=MAPS/AFFINITY[:MAPS/AFFINITY...] (perf 6.1's record__init_thread_user_masks):
 * empty specs are skipped, one without a '/' ends the list; each needs an AFFINITY, the
 * masks may not share CPUs, neither their MAPS nor their AFFINITY. 0 or -errno.
 */
static int user_masks(struct recording *rec, const cpu_set_t *cpus)
{
	char *copy = xstrdup(rec->threads_spec), *save = NULL, **maps = NULL, **affinity = NULL;
	cpu_set_t taken_maps, taken_affinity, both;
	long nbits = possible_cpus();
	size_t n = 0;
	int err = 0;

	for (char *spec = strtok_r(copy, ":", &save); spec; spec = strtok_r(NULL, ":", &save)) {
		char *save2 = NULL, *m = strtok_r(spec, "/", &save2), *a;

		if (!m)
			break;
		a = strtok_r(NULL, "/", &save2);
		if (!a) {
			fprintf(stderr, "Invalid thread maps or affinity specs\n");
			err = -EINVAL;
			goto out;
		}
		maps = xreallocarray(maps, n + 1, sizeof(*maps));
		affinity = xreallocarray(affinity, n + 1, sizeof(*affinity));
		maps[n] = m;
		affinity[n++] = a;
	}
	CPU_ZERO(&taken_maps);
	CPU_ZERO(&taken_affinity);
	for (size_t i = 0; i < n; i++) {
		struct rec_mask *mask = add_mask(rec);

		err = user_mask(maps[i], "maps", &mask->maps, cpus, nbits);
		if (!err)
			err = user_mask(affinity[i], "affinity", &mask->affinity, cpus, nbits);
		if (err)
			goto out;
		err = -EINVAL;
		CPU_AND(&both, &mask->maps, &taken_maps);
		if (CPU_COUNT(&both)) {
			fprintf(stderr, "Intersecting maps mask: %s\n", maps[i]);
			goto out;
		}
		CPU_AND(&both, &mask->affinity, &taken_affinity);
		if (CPU_COUNT(&both)) {
			fprintf(stderr, "Intersecting affinity mask: %s\n", affinity[i]);
			goto out;
		}
		err = 0;
		CPU_OR(&taken_maps, &taken_maps, &mask->maps);
		CPU_OR(&taken_affinity, &taken_affinity, &mask->affinity);
	}
	if (!n)
		err = -EINVAL;
out:
	free(maps);
	free(affinity);
	free(copy);
	return err;
}

/*
 * A CPU in no mask has no stream to drain it: perf still opens its events and never reads
 * them; analyze does not open them.
 */
static void drop_unstreamed_cpus(struct recording *rec)
{
	size_t n = 0;

	for (size_t c = 0; c < rec->nr_cpus; c++) {
		for (size_t m = 0; m < rec->nr_masks; m++) {
			if (CPU_ISSET(rec->cpus[c], &rec->masks[m].maps)) {
				rec->cpus[n++] = rec->cpus[c];
				break;
			}
		}
	}
	rec->nr_cpus = n;
}

int record__set_masks(struct recording *rec)
{
	const char *spec = rec->threads_spec ? rec->threads_spec : "cpu";
	cpu_set_t cpus;
	int err = 0;

	if (!rec->threads)
		return 0;
	CPU_ZERO(&cpus);
	for (size_t c = 0; c < rec->nr_cpus; c++)
		CPU_SET(rec->cpus[c], &cpus);
	if (topology_masks(rec, spec)) {	/* not a built-in spec: the user's masks */
		rec->nr_masks = 0;
		err = user_masks(rec, &cpus);
	}
	if (err) {
		fprintf(stderr, "Failed to initialize parallel data streaming masks\n");
		return err;
	}
	drop_unstreamed_cpus(rec);
	return 0;
}
