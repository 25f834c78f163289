/*
 * features: perf.data feature sections read into a perf_env, the way perf 6.1's process_*
 * readers (header.c) fill struct perf_env. Parses bytes only; printing them is analyzer/header.
 * Every read is bounded by its section; nothing here trusts a count or length from the file.
 */
#ifndef READERS_FEATURES_H
#define READERS_FEATURES_H

#include "readers/session.h"

/* perf 6.1 header.h: HEADER_LAST_FEATURE; the features its feat_ops table knows. */
#define HEADER_LAST_FEATURE_61 32

struct cpu_topo {
	int core_id, socket_id, die_id;
};

struct numa_node {
	u32 node;
	u64 mem_total, mem_free;
	char *cpus;	/* rendered as perf's cpu_map__snprint */
};

struct cache_level {
	u32 level, line_size, sets, ways;
	char *type, *size, *map;
};

struct memory_node {
	u64 node, size, nbits;
	u64 *set;
};

struct pmu_caps {
	u32 nr_caps;
	char **caps;	/* "name=value" */
	char *pmu_name;
};

struct name_pair {
	char *a, *b;
};

/* What perf's process_* readers leave in perf_env (and the session) for the printers. */
struct perf_env {
	void **allocs;	/* everything below that points to memory is owned here */
	size_t nr_allocs, alloc_allocs;

	char *hostname, *os_release, *version, *arch, *cpu_desc, *cpuid;
	u32 nr_cpus_avail, nr_cpus_online;
	u64 total_mem;
	char **cmdline;
	size_t nr_cmdline;
	char **sibling_cores, **sibling_threads, **sibling_dies;
	size_t nr_sibling_cores, nr_sibling_threads, nr_sibling_dies;
	struct cpu_topo *cpu;
	bool has_cpu;
	struct numa_node *numa;
	size_t nr_numa;
	struct name_pair *pmu_mappings;	/* a = name, b unused; type in pmu_types */
	u32 *pmu_types;
	size_t nr_pmu_mappings;
	int *leader;	/* per session evsel: index of its group leader */
	u32 *nr_members;
	char **group_name;
	struct cache_level *caches;
	size_t nr_caches;
	u64 first_sample_time, last_sample_time;
	u64 memory_bsize;
	struct memory_node *mem_nodes;
	size_t nr_mem_nodes;
	u64 clockid_res_ns;
	bool clock_enabled;
	u32 clockid;
	u64 tod_ns, clockid_ns;
	u64 dir_version;
	u32 comp_ver, comp_type, comp_level, comp_ratio, comp_mmap_len;
	struct pmu_caps cpu_pmu_caps;
	struct pmu_caps *pmu_caps;
	size_t nr_pmu_caps;
	struct name_pair *hybrid;
	size_t nr_hybrid;
	u32 *btf_ids;	/* sorted, unique: perf keeps them in an rb-tree by id */
	size_t nr_btf_ids;
};

/* One EVENT_DESC entry (perf's read_event_desc). */
struct event_desc {
	struct perf_event_attr attr;
	char *name;
	const u8 *ids;	/* nr_ids u64s, unaligned, inside the section */
	u32 nr_ids;
};

/*
 * Read every feature section of the session into env, in bit order, stopping at the first
 * one that fails as perf_header__process_sections does (what was read before stays).
 */
void perf_env__load(struct perf_env *env, const struct perf_session *session);
/* Free everything env owns (env itself is the caller's); env must be loaded again to reuse. */
void perf_env__exit(struct perf_env *env);

/*
 * The EVENT_DESC section, read again as perf's print_event_desc does: the number of events
 * with *events an env-owned array of them, or -1 when perf's read_event_desc would fail.
 */
int perf_env__read_event_desc(struct perf_env *env, const struct perf_session *session,
			      struct event_desc **events);

#endif
