/*
 * header: the "# ========" block of perf report --header/--header-only (perf 6.1
 * perf_session__fprintf_info). Parses each feature section into an env the way perf's
 * process_* readers do (stopping at the first section that fails, as perf does), then prints.
 * Every read is bounded by its section; nothing here trusts a count or length from the file.
 */
#include "analyzer/header.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/xalloc.h"

/* perf 6.1 header.h: HEADER_LAST_FEATURE; the features its feat_ops table knows. */
#define HEADER_LAST_FEATURE_61 32

/* perf 6.1 header.c feat_ops[].name, indexed by feature bit. */
static const char *const feat_names[HEADER_LAST_FEATURE_61] = {
	[HEADER_TRACING_DATA] = "TRACING_DATA",	[HEADER_BUILD_ID] = "BUILD_ID",
	[HEADER_HOSTNAME] = "HOSTNAME",		[HEADER_OSRELEASE] = "OSRELEASE",
	[HEADER_VERSION] = "VERSION",		[HEADER_ARCH] = "ARCH",
	[HEADER_NRCPUS] = "NRCPUS",		[HEADER_CPUDESC] = "CPUDESC",
	[HEADER_CPUID] = "CPUID",		[HEADER_TOTAL_MEM] = "TOTAL_MEM",
	[HEADER_CMDLINE] = "CMDLINE",		[HEADER_EVENT_DESC] = "EVENT_DESC",
	[HEADER_CPU_TOPOLOGY] = "CPU_TOPOLOGY",	[HEADER_NUMA_TOPOLOGY] = "NUMA_TOPOLOGY",
	[HEADER_BRANCH_STACK] = "BRANCH_STACK",	[HEADER_PMU_MAPPINGS] = "PMU_MAPPINGS",
	[HEADER_GROUP_DESC] = "GROUP_DESC",	[HEADER_AUXTRACE] = "AUXTRACE",
	[HEADER_STAT] = "STAT",			[HEADER_CACHE] = "CACHE",
	[HEADER_SAMPLE_TIME] = "SAMPLE_TIME",	[HEADER_MEM_TOPOLOGY] = "MEM_TOPOLOGY",
	[HEADER_CLOCKID] = "CLOCKID",		[HEADER_DIR_FORMAT] = "DIR_FORMAT",
	[HEADER_BPF_PROG_INFO] = "BPF_PROG_INFO", [HEADER_BPF_BTF] = "BPF_BTF",
	[HEADER_COMPRESSED] = "COMPRESSED",	[HEADER_CPU_PMU_CAPS] = "CPU_PMU_CAPS",
	[HEADER_CLOCK_DATA] = "CLOCK_DATA",	[HEADER_HYBRID_TOPOLOGY] = "HYBRID_TOPOLOGY",
	[HEADER_PMU_CAPS] = "PMU_CAPS",
};

/* A read cursor over one feature section (perf's feat_fd, bounded to the section). */
struct feat_buf {
	const u8 *pos, *end;
	u64 size;	/* the section's size, for perf's "old format" size checks */
};

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
struct header_env {
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

static void *env_keep(struct header_env *env, void *ptr)
{
	ARRAY_GROW(env->allocs, env->alloc_allocs, env->nr_allocs + 1);
	env->allocs[env->nr_allocs++] = ptr;
	return ptr;
}

static void *env_alloc(struct header_env *env, size_t nmemb, size_t size)
{
	return env_keep(env, xcalloc(nmemb ? nmemb : 1, size));
}

static void env_free(struct header_env *env)
{
	for (size_t i = 0; i < env->nr_allocs; i++)
		free(env->allocs[i]);
	free(env->allocs);
}

/*
 * Append one element to an env-owned array. Capacity doubles whenever nr reaches a power of
 * two; outgrown blocks stay owned by the env until env_free (at most as much again).
 */
#define ENV_PUSH(env, arr, nr, value)                                                        \
	do {                                                                                 \
		if (((nr) & ((nr) - 1)) == 0) {                                              \
			__typeof__(arr) __n = env_alloc(env, (nr) ? 2 * (nr) : 1, sizeof(*(arr))); \
			if (nr)                                                              \
				memcpy(__n, arr, (nr) * sizeof(*(arr)));                     \
			(arr) = __n;                                                         \
		}                                                                            \
		(arr)[nr] = (value);                                                         \
		(nr)++;                                                                      \
	} while (0)

static u64 remaining(const struct feat_buf *b)
{
	return (u64)(b->end - b->pos);
}

static int read_bytes(struct feat_buf *b, void *dst, u64 n)
{
	if (n > remaining(b))
		return -1;
	memcpy(dst, b->pos, n);
	b->pos += n;
	return 0;
}

static int read_u32(struct feat_buf *b, u32 *v)
{
	return read_bytes(b, v, sizeof(*v));
}

static int read_u64(struct feat_buf *b, u64 *v)
{
	return read_bytes(b, v, sizeof(*v));
}

/* perf's do_read_string: u32 len, then len bytes zero padded. Always NUL-terminated here. */
static char *read_string(struct header_env *env, struct feat_buf *b)
{
	u32 len;
	char *str;

	if (read_u32(b, &len) || len > remaining(b))
		return NULL;
	str = env_keep(env, xstrndup((const char *)b->pos, len));
	b->pos += len;
	return str;
}

/* perf's string_size(): what the writer would have used for this string. */
static u64 string_size(const char *str)
{
	return ALIGN_UP(strlen(str) + 1, (size_t)64) + sizeof(u32);
}

static int process_string(struct header_env *env, struct feat_buf *b, char **dst)
{
	*dst = read_string(env, b);
	return *dst ? 0 : -1;
}

static int process_nrcpus(struct header_env *env, struct feat_buf *b)
{
	u32 avail, online;

	if (read_u32(b, &avail) || read_u32(b, &online))
		return -1;
	env->nr_cpus_avail = avail;
	env->nr_cpus_online = online;
	return 0;
}

static int process_cmdline(struct header_env *env, struct feat_buf *b)
{
	u32 nr;

	if (read_u32(b, &nr))
		return -1;
	for (u32 i = 0; i < nr; i++) {
		char *str = read_string(env, b);

		if (!str)
			return -1;
		ENV_PUSH(env, env->cmdline, env->nr_cmdline, str);
	}
	return 0;
}

/* A u32 count, then that many strings; *size grows as perf's process_cpu_topology counts. */
static int read_string_list(struct header_env *env, struct feat_buf *b, char ***list,
			    size_t *nr_list, u64 *size)
{
	char **strs = NULL;
	size_t n = 0;
	u32 nr;

	if (read_u32(b, &nr))
		return -1;
	*size += sizeof(u32);
	for (u32 i = 0; i < nr; i++) {
		char *str = read_string(env, b);

		if (!str)
			return -1;
		ENV_PUSH(env, strs, n, str);
		*size += string_size(str);
	}
	*list = strs;
	*nr_list = n;
	return 0;
}

static int process_cpu_topology(struct header_env *env, struct feat_buf *b)
{
	u32 cpu_nr = env->nr_cpus_avail, v = 0;
	u64 size = 0;

	if (read_string_list(env, b, &env->sibling_cores, &env->nr_sibling_cores, &size) ||
	    read_string_list(env, b, &env->sibling_threads, &env->nr_sibling_threads, &size))
		return -1;
	/* older perf wrote no core and socket ids */
	if (b->size <= size)
		return 0;
	if ((u64)cpu_nr * 8 > remaining(b))
		return -1;
	env->cpu = env_alloc(env, cpu_nr, sizeof(*env->cpu));
	for (u32 i = 0; i < cpu_nr; i++) {
		read_u32(b, &v);
		env->cpu[i].core_id = (int)v;
		read_u32(b, &v);
		/* perf 6.1: "socket_id number is too big", and the ids are dropped */
		if (v != (u32)-1 && v > cpu_nr)
			return -1;
		env->cpu[i].socket_id = (int)v;
		size += 8;
	}
	env->has_cpu = true;
	/* ... nor die ids */
	if (b->size <= size)
		return 0;
	if (read_string_list(env, b, &env->sibling_dies, &env->nr_sibling_dies, &size) ||
	    (u64)cpu_nr * 4 > remaining(b)) {
		env->has_cpu = false;
		return -1;
	}
	for (u32 i = 0; i < cpu_nr; i++) {
		read_u32(b, &v);
		env->cpu[i].die_id = (int)v;
	}
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

#define MAX_MAP_CPUS (1 << 16)	/* bound on a cpu list from the file */

/*
 * libperf's perf_cpu_map__new() on a cpu list, rendered by cpu_map__snprint(); NULL where
 * perf gets no map. An empty list is perf's dummy map {-1}; a list that does not start with
 * a digit is the default map of online cpus.
 */
static char *cpu_list_render(struct header_env *env, const char *list)
{
	int *cpus = NULL, nr = 0;
	size_t alloc = 0, len = 0, cap = 64;
	char *out;
	const char *p = list;

	while (isdigit((unsigned char)*p)) {
		char *end;
		unsigned long start = strtoul(p, &end, 0), last;

		if (start >= INT_MAX || (*end && *end != ',' && *end != '-'))
			goto invalid;
		if (*end == '-') {
			p = end + 1;
			last = strtoul(p, &end, 0);
			if (last >= INT_MAX || (*end && *end != ',') || last < start)
				goto invalid;
		} else {
			last = start;
		}
		if (last - start >= (unsigned long)(MAX_MAP_CPUS - nr))
			goto invalid;
		for (; start <= last; start++) {
			ARRAY_GROW(cpus, alloc, (size_t)nr + 1);
			cpus[nr++] = (int)start;
		}
		if (*end)
			end++;
		p = end;
	}
	if (nr == 0 && *p) {
		long online = sysconf(_SC_NPROCESSORS_ONLN);

		for (long i = 0; i < online && i < MAX_MAP_CPUS; i++) {
			ARRAY_GROW(cpus, alloc, (size_t)nr + 1);
			cpus[nr++] = (int)i;
		}
	}
	if (nr)
		qsort(cpus, nr, sizeof(*cpus), cmp_int);
	for (int i = 1; i < nr; i++)
		if (cpus[i] == cpus[i - 1])
			goto invalid;	/* perf rejects duplicates */
	if (nr == 0) {
		free(cpus);
		return env_keep(env, xstrdup("-1"));
	}
	out = xmalloc(cap);
	for (int i = 0, start = 0; i <= nr; i++) {
		char item[32];
		int n;

		if (i < nr && i > start && cpus[i] - cpus[start] == i - start)
			continue;
		if (i == start)
			continue;
		if (start == i - 1)
			n = snprintf(item, sizeof(item), "%s%d", len ? "," : "", cpus[start]);
		else
			n = snprintf(item, sizeof(item), "%s%d-%d", len ? "," : "", cpus[start],
				     cpus[i - 1]);
		if (len + n + 1 > cap) {
			cap = (len + n + 1) * 2;
			out = xrealloc(out, cap);
		}
		memcpy(out + len, item, n + 1);
		len += n;
		start = i;
	}
	free(cpus);
	return env_keep(env, out);
invalid:
	free(cpus);
	return NULL;
}

static int process_numa_topology(struct header_env *env, struct feat_buf *b)
{
	struct numa_node *nodes = NULL;
	size_t n = 0;
	u32 nr;

	if (read_u32(b, &nr))
		return -1;
	for (u32 i = 0; i < nr; i++) {
		struct numa_node node = { 0 };
		char *str;

		if (read_u32(b, &node.node) || read_u64(b, &node.mem_total) ||
		    read_u64(b, &node.mem_free))
			return -1;
		str = read_string(env, b);
		if (!str)
			return -1;
		node.cpus = cpu_list_render(env, str);
		if (!node.cpus)
			return -1;
		ENV_PUSH(env, nodes, n, node);
	}
	env->numa = nodes;
	env->nr_numa = n;
	return 0;
}

static int process_pmu_mappings(struct header_env *env, struct feat_buf *b)
{
	struct name_pair *names = NULL;
	u32 *types = NULL;
	size_t n = 0, n2 = 0;
	u32 nr;

	if (read_u32(b, &nr))
		return -1;
	for (u32 i = 0; i < nr; i++) {
		struct name_pair name = { 0 };
		u32 type;

		if (read_u32(b, &type))
			return -1;
		name.a = read_string(env, b);
		if (!name.a)
			return -1;
		ENV_PUSH(env, names, n, name);
		ENV_PUSH(env, types, n2, type);
	}
	env->pmu_mappings = names;
	env->pmu_types = types;
	env->nr_pmu_mappings = n;
	return 0;
}

/* perf's process_group_desc: rebuild leaders over the session's evsels, in idx order. */
static int process_group_desc(struct header_env *env, struct feat_buf *b, size_t nr_evsels)
{
	struct { char *name; u32 leader_idx, nr_members; } *desc = NULL;
	size_t n = 0;
	u32 nr_groups, i = 0, nr = 0;
	int leader = -1;

	if (read_u32(b, &nr_groups))
		return -1;
	if (!nr_groups)
		return 0;
	for (u32 k = 0; k < nr_groups; k++) {
		__typeof__(*desc) d;

		d.name = read_string(env, b);
		if (!d.name || read_u32(b, &d.leader_idx) || read_u32(b, &d.nr_members))
			return -1;
		ENV_PUSH(env, desc, n, d);
	}
	for (size_t idx = 0; idx < nr_evsels; idx++) {
		if (i < nr_groups && idx == desc[i].leader_idx) {
			env->leader[idx] = (int)idx;
			if (strcmp(desc[i].name, "{anon_group}"))
				env->group_name[idx] = desc[i].name;
			env->nr_members[idx] = desc[i].nr_members;
			if (nr > 0)
				return -1;	/* invalid group desc */
			leader = (int)idx;
			nr = desc[i].nr_members - 1;
			i++;
		} else if (nr) {
			env->leader[idx] = leader;
			nr--;
		}
	}
	return i != nr_groups || nr != 0 ? -1 : 0;
}

static int process_auxtrace(struct feat_buf *b)
{
	u64 nr;

	if (read_u64(b, &nr))
		return -1;
	/* auxtrace_index__process: nr entries of {file_offset, size} must fit */
	return nr > remaining(b) / 16 ? -1 : 0;
}

static int process_cache(struct header_env *env, struct feat_buf *b)
{
	struct cache_level *caches = NULL;
	size_t n = 0;
	u32 version, cnt;

	if (read_u32(b, &version) || version != 1 || read_u32(b, &cnt))
		return -1;
	for (u32 i = 0; i < cnt; i++) {
		struct cache_level c = { 0 };

		if (read_u32(b, &c.level) || read_u32(b, &c.line_size) || read_u32(b, &c.sets) ||
		    read_u32(b, &c.ways))
			return -1;
		c.type = read_string(env, b);
		c.size = c.type ? read_string(env, b) : NULL;
		c.map = c.size ? read_string(env, b) : NULL;
		if (!c.map)
			return -1;
		ENV_PUSH(env, caches, n, c);
	}
	env->caches = caches;
	env->nr_caches = n;
	return 0;
}

static int process_sample_time(struct header_env *env, struct feat_buf *b)
{
	u64 first, last;

	if (read_u64(b, &first) || read_u64(b, &last))
		return -1;
	env->first_sample_time = first;
	env->last_sample_time = last;
	return 0;
}

static int process_mem_topology(struct header_env *env, struct feat_buf *b)
{
	struct memory_node *nodes = NULL;
	size_t n = 0;
	u64 version, bsize, nr;

	if (read_u64(b, &version) || version != 1 || read_u64(b, &bsize) || read_u64(b, &nr))
		return -1;
	for (u64 i = 0; i < nr; i++) {
		struct memory_node node = { 0 };
		u64 words;

		if (read_u64(b, &node.node) || read_u64(b, &node.size) ||
		    read_u64(b, &node.nbits))
			return -1;
		words = node.nbits / 64 + (node.nbits % 64 != 0);
		if (words > remaining(b) / 8)
			return -1;
		node.set = env_alloc(env, words, sizeof(u64));
		read_bytes(b, node.set, words * 8);
		ENV_PUSH(env, nodes, n, node);
	}
	env->memory_bsize = bsize;
	env->mem_nodes = nodes;
	env->nr_mem_nodes = n;
	return 0;
}

static int process_clock_data(struct header_env *env, struct feat_buf *b)
{
	u32 version, clockid;
	u64 tod, ref;

	if (read_u32(b, &version) || version != 1 || read_u32(b, &clockid))
		return -1;
	env->clockid = clockid;
	if (read_u64(b, &tod))
		return -1;
	env->tod_ns = tod;
	if (read_u64(b, &ref))
		return -1;
	env->clockid_ns = ref;
	env->clock_enabled = true;
	return 0;
}

static int process_compressed(struct header_env *env, struct feat_buf *b)
{
	u32 *fields[] = { &env->comp_ver, &env->comp_type, &env->comp_level, &env->comp_ratio,
			  &env->comp_mmap_len };

	for (size_t i = 0; i < ARRAY_SIZE(fields); i++)
		if (read_u32(b, fields[i]))
			return -1;
	return 0;
}

/* u32 nr, then nr name/value string pairs, kept as "name=value". */
static int read_pmu_caps(struct header_env *env, struct feat_buf *b, struct pmu_caps *caps)
{
	char **list = NULL;
	size_t n = 0;
	u32 nr;

	caps->nr_caps = 0;
	caps->caps = NULL;
	if (read_u32(b, &nr))
		return -1;
	for (u32 i = 0; i < nr; i++) {
		char *name = read_string(env, b), *value = name ? read_string(env, b) : NULL;
		char *both;

		if (!value)
			return -1;
		both = env_alloc(env, strlen(name) + strlen(value) + 2, 1);
		sprintf(both, "%s=%s", name, value);
		ENV_PUSH(env, list, n, both);
	}
	caps->caps = list;
	caps->nr_caps = (u32)n;
	return 0;
}

static int process_pmu_caps(struct header_env *env, struct feat_buf *b)
{
	struct pmu_caps *pmus = NULL;
	size_t n = 0;
	u32 nr;

	if (read_u32(b, &nr))
		return -1;
	for (u32 i = 0; i < nr; i++) {
		struct pmu_caps caps;

		if (read_pmu_caps(env, b, &caps))
			return -1;
		caps.pmu_name = read_string(env, b);
		if (!caps.pmu_name)
			return -1;
		ENV_PUSH(env, pmus, n, caps);
	}
	env->pmu_caps = pmus;
	env->nr_pmu_caps = n;
	return 0;
}

static int process_hybrid_topology(struct header_env *env, struct feat_buf *b)
{
	struct name_pair *nodes = NULL;
	size_t n = 0;
	u32 nr;

	if (read_u32(b, &nr))
		return -1;
	for (u32 i = 0; i < nr; i++) {
		struct name_pair node;

		node.a = read_string(env, b);
		node.b = node.a ? read_string(env, b) : NULL;
		if (!node.b)
			return -1;
		ENV_PUSH(env, nodes, n, node);
	}
	env->hybrid = nodes;
	env->nr_hybrid = n;
	return 0;
}

/* BPF_PROG_INFO: entries are only counted; perf prints them only with programs recorded. */
static int process_bpf_prog_info(struct feat_buf *b)
{
	u32 count;

	if (read_u32(b, &count))
		return -1;
	for (u32 i = 0; i < count; i++) {
		u32 info_len, data_len;
		u64 arrays;

		if (read_u32(b, &info_len) || read_u32(b, &data_len) || read_u64(b, &arrays) ||
		    (u64)info_len + data_len > remaining(b))
			return -1;
		b->pos += (u64)info_len + data_len;
	}
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return (x > y) - (x < y);
}

/* perf keeps BTF nodes in an rb-tree by id, rejecting duplicates: sorted, unique. */
static void sort_unique_ids(struct header_env *env)
{
	size_t out = 0;

	if (!env->nr_btf_ids)
		return;
	qsort(env->btf_ids, env->nr_btf_ids, sizeof(u32), cmp_u32);
	for (size_t i = 0; i < env->nr_btf_ids; i++)
		if (!out || env->btf_ids[out - 1] != env->btf_ids[i])
			env->btf_ids[out++] = env->btf_ids[i];
	env->nr_btf_ids = out;
}

static int process_bpf_btf(struct header_env *env, struct feat_buf *b)
{
	u32 count;
	int ret = 0;

	if (read_u32(b, &count))
		return -1;
	for (u32 i = 0; i < count; i++) {
		u32 id, data_size;

		if (read_u32(b, &id) || read_u32(b, &data_size) || data_size > remaining(b)) {
			ret = -1;
			break;
		}
		b->pos += data_size;
		ENV_PUSH(env, env->btf_ids, env->nr_btf_ids, id);
	}
	sort_unique_ids(env);
	return ret;
}

/*
 * perf's trace_report() fails (and so stops all later processing) on data that does not
 * start with the tracing magic; the rest of the tracing data is libtraceevent's business.
 */
static int process_tracing_data(struct feat_buf *b)
{
	static const char magic[] = "\027\010\104tracing";

	if (remaining(b) < sizeof(magic) - 1 || memcmp(b->pos, magic, sizeof(magic) - 1))
		return -1;
	return 0;
}

/* Is the session a perf.data directory (perf record --threads)? */
static bool session_is_dir(const struct perf_session *s)
{
	struct stat st;

	return s->path && stat(s->path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int process_feature(struct header_env *env, struct perf_session *s, int feat,
			   struct feat_buf *b)
{
	switch (feat) {
	case HEADER_HOSTNAME:
		return process_string(env, b, &env->hostname);
	case HEADER_OSRELEASE:
		return process_string(env, b, &env->os_release);
	case HEADER_VERSION:
		return process_string(env, b, &env->version);
	case HEADER_ARCH:
		return process_string(env, b, &env->arch);
	case HEADER_CPUDESC:
		return process_string(env, b, &env->cpu_desc);
	case HEADER_CPUID:
		return process_string(env, b, &env->cpuid);
	case HEADER_NRCPUS:
		return process_nrcpus(env, b);
	case HEADER_TOTAL_MEM:
		return read_u64(b, &env->total_mem);
	case HEADER_CMDLINE:
		return process_cmdline(env, b);
	case HEADER_CPU_TOPOLOGY:
		return process_cpu_topology(env, b);
	case HEADER_NUMA_TOPOLOGY:
		return process_numa_topology(env, b);
	case HEADER_PMU_MAPPINGS:
		return process_pmu_mappings(env, b);
	case HEADER_GROUP_DESC:
		return process_group_desc(env, b, s->nr_evsels);
	case HEADER_AUXTRACE:
		return process_auxtrace(b);
	case HEADER_CACHE:
		return process_cache(env, b);
	case HEADER_SAMPLE_TIME:
		return process_sample_time(env, b);
	case HEADER_MEM_TOPOLOGY:
		return process_mem_topology(env, b);
	case HEADER_CLOCKID:
		return read_u64(b, &env->clockid_res_ns);
	case HEADER_DIR_FORMAT:
		/* perf WARNs and fails when the file is not a directory's data file */
		return session_is_dir(s) ? read_u64(b, &env->dir_version) : -1;
	case HEADER_BPF_PROG_INFO:
		return s->swap ? 0 : process_bpf_prog_info(b);
	case HEADER_BPF_BTF:
		return s->swap ? 0 : process_bpf_btf(env, b);
	case HEADER_COMPRESSED:
		return process_compressed(env, b);
	case HEADER_CPU_PMU_CAPS:
		return read_pmu_caps(env, b, &env->cpu_pmu_caps);
	case HEADER_CLOCK_DATA:
		return process_clock_data(env, b);
	case HEADER_HYBRID_TOPOLOGY:
		return process_hybrid_topology(env, b);
	case HEADER_PMU_CAPS:
		return process_pmu_caps(env, b);
	case HEADER_TRACING_DATA:
		return process_tracing_data(b);
	default:	/* BUILD_ID, EVENT_DESC, BRANCH_STACK, STAT */
		return 0;
	}
}

static struct feat_buf feat_buf(const struct perf_session *s, int feat)
{
	size_t size = 0;
	const u8 *data = perf_session__feat(s, feat, &size);
	struct feat_buf b = { data, data + size, size };

	return b;
}

/* perf_header__process_sections(.., perf_file_section__process): stops at the first failure. */
static void env_load(struct header_env *env, struct perf_session *s)
{
	memset(env, 0, sizeof(*env));
	env->leader = env_alloc(env, s->nr_evsels, sizeof(int));
	env->nr_members = env_alloc(env, s->nr_evsels, sizeof(u32));
	env->group_name = env_alloc(env, s->nr_evsels, sizeof(char *));
	for (size_t i = 0; i < s->nr_evsels; i++) {
		env->leader[i] = (int)i;
		env->nr_members[i] = 1;
	}
	for (int feat = 1; feat < HEADER_LAST_FEATURE_61; feat++) {
		struct feat_buf b;

		if (!perf_session__has_feat(s, feat))
			continue;
		b = feat_buf(s, feat);
		if (process_feature(env, s, feat, &b))
			break;
	}
}

/* ---- EVENT_DESC (read again at print time, as perf's print_event_desc does) ---- */

struct event_desc {
	struct perf_event_attr attr;
	char *name;
	const u8 *ids;	/* nr_ids u64s, unaligned, inside the section */
	u32 nr_ids;
};

/* perf 6.1 perf_attr_check, with its PERF_SAMPLE_MAX, PERF_FORMAT_MAX, BRANCH_MAX. */
static bool attr_check(const struct perf_event_attr *attr)
{
	if (attr->__reserved_1 || attr->__reserved_2 || attr->__reserved_3)
		return false;
	if (attr->sample_type & ~((1ULL << 25) - 1))
		return false;
	if (attr->read_format & ~((1ULL << 5) - 1))
		return false;
	if ((attr->sample_type & PERF_SAMPLE_BRANCH_STACK) &&
	    (attr->branch_sample_type & ~((1ULL << 19) - 1)))
		return false;
	return true;
}

/* Returns the number of events, or -1 when perf's read_event_desc would fail. */
static int read_event_desc(struct header_env *env, struct perf_session *s,
			   struct event_desc **out)
{
	struct feat_buf b = feat_buf(s, HEADER_EVENT_DESC);
	struct event_desc *events = NULL;
	size_t n = 0;
	u32 nre, sz;

	if (read_u32(&b, &nre) || read_u32(&b, &sz))
		return -1;
	for (u32 i = 0; i < nre; i++) {
		struct event_desc ev;

		memset(&ev, 0, sizeof(ev));
		if (sz > remaining(&b))
			return -1;
		memcpy(&ev.attr, b.pos, MIN((size_t)sz, sizeof(ev.attr)));
		b.pos += sz;
		if (!attr_check(&ev.attr) || read_u32(&b, &ev.nr_ids))
			return -1;
		ev.name = read_string(env, &b);
		if (!ev.name || ev.nr_ids > remaining(&b) / 8)
			return -1;
		ev.ids = b.pos;
		b.pos += (u64)ev.nr_ids * 8;
		ENV_PUSH(env, events, n, ev);
	}
	*out = events;
	return (int)MIN(n, (size_t)INT_MAX);
}

struct bit_name {
	u64 bit;
	const char *name;
};

#define BIT_NAME(prefix, n) { prefix##n, #n }

/* perf 6.1 perf_event_attr_fprintf.c bit tables. */
static const struct bit_name sample_type_bits[] = {
	BIT_NAME(PERF_SAMPLE_, IP), BIT_NAME(PERF_SAMPLE_, TID), BIT_NAME(PERF_SAMPLE_, TIME),
	BIT_NAME(PERF_SAMPLE_, ADDR), BIT_NAME(PERF_SAMPLE_, READ),
	BIT_NAME(PERF_SAMPLE_, CALLCHAIN), BIT_NAME(PERF_SAMPLE_, ID),
	BIT_NAME(PERF_SAMPLE_, CPU), BIT_NAME(PERF_SAMPLE_, PERIOD),
	BIT_NAME(PERF_SAMPLE_, STREAM_ID), BIT_NAME(PERF_SAMPLE_, RAW),
	BIT_NAME(PERF_SAMPLE_, BRANCH_STACK), BIT_NAME(PERF_SAMPLE_, REGS_USER),
	BIT_NAME(PERF_SAMPLE_, STACK_USER), BIT_NAME(PERF_SAMPLE_, IDENTIFIER),
	BIT_NAME(PERF_SAMPLE_, REGS_INTR), BIT_NAME(PERF_SAMPLE_, DATA_SRC),
	BIT_NAME(PERF_SAMPLE_, WEIGHT), BIT_NAME(PERF_SAMPLE_, PHYS_ADDR),
	BIT_NAME(PERF_SAMPLE_, AUX), BIT_NAME(PERF_SAMPLE_, CGROUP),
	BIT_NAME(PERF_SAMPLE_, DATA_PAGE_SIZE), BIT_NAME(PERF_SAMPLE_, CODE_PAGE_SIZE),
	BIT_NAME(PERF_SAMPLE_, WEIGHT_STRUCT), { 0, NULL },
};

static const struct bit_name branch_sample_bits[] = {
	BIT_NAME(PERF_SAMPLE_BRANCH_, USER), BIT_NAME(PERF_SAMPLE_BRANCH_, KERNEL),
	BIT_NAME(PERF_SAMPLE_BRANCH_, HV), BIT_NAME(PERF_SAMPLE_BRANCH_, ANY),
	BIT_NAME(PERF_SAMPLE_BRANCH_, ANY_CALL), BIT_NAME(PERF_SAMPLE_BRANCH_, ANY_RETURN),
	BIT_NAME(PERF_SAMPLE_BRANCH_, IND_CALL), BIT_NAME(PERF_SAMPLE_BRANCH_, ABORT_TX),
	BIT_NAME(PERF_SAMPLE_BRANCH_, IN_TX), BIT_NAME(PERF_SAMPLE_BRANCH_, NO_TX),
	BIT_NAME(PERF_SAMPLE_BRANCH_, COND), BIT_NAME(PERF_SAMPLE_BRANCH_, CALL_STACK),
	BIT_NAME(PERF_SAMPLE_BRANCH_, IND_JUMP), BIT_NAME(PERF_SAMPLE_BRANCH_, CALL),
	BIT_NAME(PERF_SAMPLE_BRANCH_, NO_FLAGS), BIT_NAME(PERF_SAMPLE_BRANCH_, NO_CYCLES),
	BIT_NAME(PERF_SAMPLE_BRANCH_, TYPE_SAVE), BIT_NAME(PERF_SAMPLE_BRANCH_, HW_INDEX),
	BIT_NAME(PERF_SAMPLE_BRANCH_, PRIV_SAVE), { 0, NULL },
};

static const struct bit_name read_format_bits[] = {
	BIT_NAME(PERF_FORMAT_, TOTAL_TIME_ENABLED), BIT_NAME(PERF_FORMAT_, TOTAL_TIME_RUNNING),
	BIT_NAME(PERF_FORMAT_, ID), BIT_NAME(PERF_FORMAT_, GROUP), BIT_NAME(PERF_FORMAT_, LOST),
	{ 0, NULL },
};

static void fprint_bits(FILE *fp, const char *field, u64 value, const struct bit_name *bits)
{
	const char *sep = "";

	fprintf(fp, ", %s = ", field);
	for (int i = 0; bits[i].name; i++) {
		if (value & bits[i].bit) {
			fprintf(fp, "%s%s", sep, bits[i].name);
			sep = "|";
		}
	}
}

#define PRINT_U(name, val)                                                                   \
	do {                                                                                 \
		if (val)                                                                     \
			fprintf(fp, ", %s = %" PRIu64, name, (u64)(val));                    \
	} while (0)
#define PRINT_X(name, val)                                                                   \
	do {                                                                                 \
		if (val)                                                                     \
			fprintf(fp, ", %s = %#" PRIx64, name, (u64)(val));                   \
	} while (0)
#define PRINT_F(field) PRINT_U(#field, attr->field)

/* perf 6.1 perf_event_attr__fprintf with print_event_desc's ", %s = %s" callback. */
static void attr_fprintf(FILE *fp, const struct perf_event_attr *attr)
{
	PRINT_F(type);
	PRINT_F(size);
	PRINT_X("config", attr->config);
	PRINT_U("{ sample_period, sample_freq }", attr->sample_period);
	if (attr->sample_type)
		fprint_bits(fp, "sample_type", attr->sample_type, sample_type_bits);
	if (attr->read_format)
		fprint_bits(fp, "read_format", attr->read_format, read_format_bits);
	PRINT_F(disabled);
	PRINT_F(inherit);
	PRINT_F(pinned);
	PRINT_F(exclusive);
	PRINT_F(exclude_user);
	PRINT_F(exclude_kernel);
	PRINT_F(exclude_hv);
	PRINT_F(exclude_idle);
	PRINT_F(mmap);
	PRINT_F(comm);
	PRINT_F(freq);
	PRINT_F(inherit_stat);
	PRINT_F(enable_on_exec);
	PRINT_F(task);
	PRINT_F(watermark);
	PRINT_F(precise_ip);
	PRINT_F(mmap_data);
	PRINT_F(sample_id_all);
	PRINT_F(exclude_host);
	PRINT_F(exclude_guest);
	PRINT_F(exclude_callchain_kernel);
	PRINT_F(exclude_callchain_user);
	PRINT_F(mmap2);
	PRINT_F(comm_exec);
	PRINT_F(use_clockid);
	PRINT_F(context_switch);
	PRINT_F(write_backward);
	PRINT_F(namespaces);
	PRINT_F(ksymbol);
	PRINT_F(bpf_event);
	PRINT_F(aux_output);
	PRINT_F(cgroup);
	PRINT_F(text_poke);
	PRINT_F(build_id);
	PRINT_F(inherit_thread);
	PRINT_F(remove_on_exec);
	PRINT_F(sigtrap);
	PRINT_U("{ wakeup_events, wakeup_watermark }", attr->wakeup_events);
	PRINT_F(bp_type);
	PRINT_X("{ bp_addr, config1 }", attr->bp_addr);
	PRINT_X("{ bp_len, config2 }", attr->bp_len);
	if (attr->branch_sample_type)
		fprint_bits(fp, "branch_sample_type", attr->branch_sample_type,
			    branch_sample_bits);
	PRINT_X("sample_regs_user", attr->sample_regs_user);
	PRINT_F(sample_stack_user);
	if (attr->clockid)
		fprintf(fp, ", clockid = %" PRId64, (s64)attr->clockid);
	PRINT_X("sample_regs_intr", attr->sample_regs_intr);
	PRINT_F(aux_watermark);
	PRINT_F(sample_max_stack);
	PRINT_F(aux_sample_size);
	PRINT_F(sig_data);
}

static void print_event_desc(struct header_env *env, struct perf_session *s, FILE *fp)
{
	struct event_desc *events = NULL;
	int nr = read_event_desc(env, s, &events);

	if (nr < 0) {
		fprintf(fp, "# event desc: not available or unable to read\n");
		return;
	}
	/* perf's list ends at the first attr whose size is 0 */
	for (int i = 0; i < nr && events[i].attr.size; i++) {
		fprintf(fp, "# event : name = %s, ", events[i].name);
		if (events[i].nr_ids) {
			fprintf(fp, ", id = {");
			for (u32 j = 0; j < events[i].nr_ids; j++) {
				u64 id;

				memcpy(&id, events[i].ids + (size_t)j * 8, 8);
				fprintf(fp, "%s %" PRIu64, j ? "," : "", id);
			}
			fprintf(fp, " }");
		}
		attr_fprintf(fp, &events[i].attr);
		fputc('\n', fp);
	}
}

/* ---- the other printers (perf 6.1 header.c print_*) ---- */

static const char *str_or_null(const char *s)
{
	return s ? s : "(null)";	/* what glibc prints for perf's unset env strings */
}

static void print_cmdline(struct header_env *env, FILE *fp)
{
	fprintf(fp, "# cmdline : ");
	for (size_t i = 0; i < env->nr_cmdline; i++) {
		const char *arg = env->cmdline[i], *quote;

		while ((quote = strchr(arg, '\''))) {
			fprintf(fp, "%.*s\\'", (int)(quote - arg), arg);
			arg = quote + 1;
		}
		fprintf(fp, "%s ", arg);
	}
	fputc('\n', fp);
}

static void print_cpu_topology(struct header_env *env, FILE *fp)
{
	for (size_t i = 0; i < env->nr_sibling_cores; i++)
		fprintf(fp, "# sibling sockets : %s\n", env->sibling_cores[i]);
	for (size_t i = 0; i < env->nr_sibling_dies; i++)
		fprintf(fp, "# sibling dies    : %s\n", env->sibling_dies[i]);
	for (size_t i = 0; i < env->nr_sibling_threads; i++)
		fprintf(fp, "# sibling threads : %s\n", env->sibling_threads[i]);
	if (env->nr_sibling_dies) {
		if (!env->has_cpu) {
			fprintf(fp, "# Core ID, Die ID and Socket ID information is not available\n");
			return;
		}
		for (u32 i = 0; i < env->nr_cpus_avail; i++)
			fprintf(fp, "# CPU %d: Core ID %d, Die ID %d, Socket ID %d\n", (int)i,
				env->cpu[i].core_id, env->cpu[i].die_id, env->cpu[i].socket_id);
	} else {
		if (!env->has_cpu) {
			fprintf(fp, "# Core ID and Socket ID information is not available\n");
			return;
		}
		for (u32 i = 0; i < env->nr_cpus_avail; i++)
			fprintf(fp, "# CPU %d: Core ID %d, Socket ID %d\n", (int)i,
				env->cpu[i].core_id, env->cpu[i].socket_id);
	}
}

static void print_numa_topology(struct header_env *env, FILE *fp)
{
	for (size_t i = 0; i < env->nr_numa; i++) {
		const struct numa_node *n = &env->numa[i];

		fprintf(fp, "# node%u meminfo  : total = %" PRIu64 " kB, free = %" PRIu64 " kB\n",
			n->node, n->mem_total, n->mem_free);
		fprintf(fp, "# node%u cpu list : %s\n", n->node, n->cpus);
	}
}

static void print_pmu_mappings(struct header_env *env, FILE *fp)
{
	const char *sep = "# pmu mappings: ";

	if (!env->nr_pmu_mappings) {
		fprintf(fp, "# pmu mappings: not available\n");
		return;
	}
	for (size_t i = 0; i < env->nr_pmu_mappings; i++) {
		fprintf(fp, "%s%s = %" PRIu32, sep, env->pmu_mappings[i].a, env->pmu_types[i]);
		sep = ", ";
	}
	fprintf(fp, "\n");
}

/* perf 6.1 evsel__add_modifiers: ":ukhppHG"-style suffix from the exclude bits. */
static void add_modifiers(const struct perf_event_attr *attr, char *buf, size_t size)
{
	char mods[16];
	size_t n = 0;
	bool exclude_guest_default = false;

	if (attr->exclude_kernel || attr->exclude_user || attr->exclude_hv) {
		if (!attr->exclude_kernel)
			mods[n++] = 'k';
		if (!attr->exclude_user)
			mods[n++] = 'u';
		if (!attr->exclude_hv)
			mods[n++] = 'h';
		exclude_guest_default = true;
	}
	if (attr->precise_ip) {
		for (unsigned int i = 0; i < attr->precise_ip && i < 3; i++)
			mods[n++] = 'p';
		exclude_guest_default = true;
	}
	if (attr->exclude_host || attr->exclude_guest == exclude_guest_default) {
		if (!attr->exclude_host)
			mods[n++] = 'H';
		if (!attr->exclude_guest)
			mods[n++] = 'G';
	}
	if (n)
		snprintf(buf + strlen(buf), size - strlen(buf), ":%.*s", (int)n, mods);
}

/* perf 6.1 evsel__name() for an evsel no EVENT_DESC name reached. */
static const char *evsel_fallback_name(const struct perf_event_attr *attr, char *buf,
				       size_t size)
{
	static const char *const hw[] = {
		"cycles", "instructions", "cache-references", "cache-misses", "branches",
		"branch-misses", "bus-cycles", "stalled-cycles-frontend",
		"stalled-cycles-backend", "ref-cycles",
	};
	static const char *const sw[] = {
		"cpu-clock", "task-clock", "page-faults", "context-switches", "cpu-migrations",
		"minor-faults", "major-faults", "alignment-faults", "emulation-faults", "dummy",
		"bpf-output", "cgroup-switches",
	};

	switch (attr->type) {
	case PERF_TYPE_HARDWARE:
		snprintf(buf, size, "%s", attr->config < ARRAY_SIZE(hw) ? hw[attr->config] :
									 "unknown-hardware");
		break;
	case PERF_TYPE_SOFTWARE:
		snprintf(buf, size, "%s", attr->config < ARRAY_SIZE(sw) ? sw[attr->config] :
									 "unknown-software");
		break;
	case PERF_TYPE_RAW:
		snprintf(buf, size, "raw 0x%" PRIx64, (u64)attr->config);
		break;
	case PERF_TYPE_TRACEPOINT:
		return "unknown tracepoint";
	default:
		snprintf(buf, size, "unknown attr type: %d", (int)attr->type);
		return buf;
	}
	add_modifiers(attr, buf, size);
	return buf;
}

static void print_group_desc(struct header_env *env, struct perf_session *s, FILE *fp)
{
	struct event_desc *events = NULL;
	int nr_events = perf_session__has_feat(s, HEADER_EVENT_DESC) ?
				read_event_desc(env, s, &events) : -1;
	u32 nr = 0;

	for (size_t i = 0; i < s->nr_evsels; i++) {
		char buf[64];
		const char *name = (int)i < nr_events ? events[i].name : s->evsels[i].name;

		if (!name)
			name = evsel_fallback_name(&s->evsels[i].attr, buf, sizeof(buf));
		if (env->leader[i] == (int)i && env->nr_members[i] > 1) {
			fprintf(fp, "# group: %s{%s", env->group_name[i] ? env->group_name[i] : "",
				name);
			nr = env->nr_members[i] - 1;
		} else if (nr) {
			fprintf(fp, ",%s", name);
			if (--nr == 0)
				fprintf(fp, "}\n");
		}
	}
}

/* Linux scnprintf() into buf at *len: keeps what fits, never more than size - 1. */
static void scn_append(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*len + 1 >= size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *len, size - *len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	*len += (size_t)n < size - *len ? (size_t)n : size - *len - 1;
}

static bool test_bit64(const u64 *set, unsigned int bit)
{
	return (set[bit / 64] >> (bit % 64)) & 1;
}

static void print_mem_topology(struct header_env *env, FILE *fp)
{
	fprintf(fp, "# memory nodes (nr %d, block size 0x%llx):\n", (int)env->nr_mem_nodes,
		(unsigned long long)env->memory_bsize);
	for (size_t i = 0; i < env->nr_mem_nodes; i++) {
		const struct memory_node *n = &env->mem_nodes[i];
		unsigned int nbits = (unsigned int)n->nbits;	/* perf passes it as unsigned int */
		char map[100], size_buf[50];
		const char units[] = "BKMG";
		size_t len = 0;
		u64 weight = 0, size;
		int unit = 0;
		unsigned int cur = 0;

		map[0] = '\0';
		for (unsigned int bit = 0; bit < nbits; bit++)
			weight += test_bit64(n->set, bit);
		size = env->memory_bsize * weight;
		while (size / 1024 > 1 && unit < 3) {	/* perf's unit_number__scnprintf */
			size /= 1024;
			unit++;
		}
		snprintf(size_buf, sizeof(size_buf), "%" PRIu64 "%c", size, units[unit]);
		/* perf's bitmap_scnprintf: ranges "a-b", comma separated, into 100 bytes */
		while (cur < nbits && !test_bit64(n->set, cur))
			cur++;
		while (cur < nbits) {
			unsigned int bot = cur, top = cur;

			while (top + 1 < nbits && test_bit64(n->set, top + 1))
				top++;
			scn_append(map, sizeof(map), &len, "%s%u", len ? "," : "", bot);
			if (bot < top)
				scn_append(map, sizeof(map), &len, "-%u", top);
			cur = top + 1;
			while (cur < nbits && !test_bit64(n->set, cur))
				cur++;
		}
		fprintf(fp, "#  %3" PRIu64 " [%s]: %s\n", n->node, size_buf, map);
	}
}

/* perf's clockid table (util/clockid.c), first match wins. */
static const char *clockid_name(u32 clockid)
{
	static const struct { const char *name; u32 id; } ids[] = {
		{ "monotonic", CLOCK_MONOTONIC }, { "monotonic_raw", CLOCK_MONOTONIC_RAW },
		{ "realtime", CLOCK_REALTIME },	  { "boottime", CLOCK_BOOTTIME },
		{ "tai", CLOCK_TAI },
	};

	for (size_t i = 0; i < ARRAY_SIZE(ids); i++)
		if (ids[i].id == clockid)
			return ids[i].name;
	return "(not found)";
}

static void print_clock_data(struct header_env *env, FILE *fp)
{
	time_t tod_sec;
	u64 tod_usec, ref_sec, ref_nsec;
	char tstr[96], date[64];
	struct tm tm;

	if (!env->clock_enabled) {
		fprintf(fp, "# reference time disabled\n");
		return;
	}
	tod_sec = (time_t)(env->tod_ns / 1000000000ULL);
	tod_usec = (env->tod_ns % 1000000000ULL) / 1000;
	ref_sec = env->clockid_ns / 1000000000ULL;
	ref_nsec = env->clockid_ns % 1000000000ULL;
	if (!localtime_r(&tod_sec, &tm)) {
		snprintf(tstr, sizeof(tstr), "<error>");
	} else {
		strftime(date, sizeof(date), "%F %T", &tm);
		snprintf(tstr, sizeof(tstr), "%s.%06d", date, (int)tod_usec);
	}
	fprintf(fp, "# clockid: %s (%u)\n", clockid_name(env->clockid), env->clockid);
	fprintf(fp, "# reference time: %s = %ld.%06d (TOD) = %ld.%09ld (%s)\n", tstr,
		(long)tod_sec, (int)tod_usec, (long)ref_sec, (long)ref_nsec,
		clockid_name(env->clockid));
}

static void print_pmu_caps_line(FILE *fp, const struct pmu_caps *caps, const char *pmu_name)
{
	if (!caps->nr_caps) {
		fprintf(fp, "# %s pmu capabilities: not available\n", str_or_null(pmu_name));
		return;
	}
	fprintf(fp, "# %s pmu capabilities: ", str_or_null(pmu_name));
	for (u32 i = 0; i < caps->nr_caps; i++)
		fprintf(fp, "%s%s", i ? ", " : "", caps->caps[i]);
	fprintf(fp, "\n");
}

static void print_sample_time(struct header_env *env, FILE *fp)
{
	u64 first = env->first_sample_time, last = env->last_sample_time;

	fprintf(fp, "# time of first sample : %" PRIu64 ".%06" PRIu64 "\n",
		(u64)(first / 1000000000), (u64)(first % 1000000000 / 1000));
	fprintf(fp, "# time of last sample : %" PRIu64 ".%06" PRIu64 "\n",
		(u64)(last / 1000000000), (u64)(last % 1000000000 / 1000));
	fprintf(fp, "# sample duration : %10.3f ms\n", (double)(last - first) / 1000000.0);
}

/* perf 6.1 feat_ops[].full_only: printed only with -I, else an "info available" line. */
static bool feat_full_only(int feat)
{
	return feat == HEADER_CPU_TOPOLOGY || feat == HEADER_NUMA_TOPOLOGY ||
	       feat == HEADER_CACHE || feat == HEADER_MEM_TOPOLOGY ||
	       feat == HEADER_HYBRID_TOPOLOGY;
}

static void print_feature(struct header_env *env, struct perf_session *s, int feat, FILE *fp)
{
	switch (feat) {
	case HEADER_HOSTNAME:
		fprintf(fp, "# hostname : %s\n", str_or_null(env->hostname));
		break;
	case HEADER_OSRELEASE:
		fprintf(fp, "# os release : %s\n", str_or_null(env->os_release));
		break;
	case HEADER_VERSION:
		fprintf(fp, "# perf version : %s\n", str_or_null(env->version));
		break;
	case HEADER_ARCH:
		fprintf(fp, "# arch : %s\n", str_or_null(env->arch));
		break;
	case HEADER_NRCPUS:
		fprintf(fp, "# nrcpus online : %u\n", env->nr_cpus_online);
		fprintf(fp, "# nrcpus avail : %u\n", env->nr_cpus_avail);
		break;
	case HEADER_CPUDESC:
		fprintf(fp, "# cpudesc : %s\n", str_or_null(env->cpu_desc));
		break;
	case HEADER_CPUID:
		fprintf(fp, "# cpuid : %s\n", str_or_null(env->cpuid));
		break;
	case HEADER_TOTAL_MEM:
		fprintf(fp, "# total memory : %llu kB\n", (unsigned long long)env->total_mem);
		break;
	case HEADER_CMDLINE:
		print_cmdline(env, fp);
		break;
	case HEADER_EVENT_DESC:
		print_event_desc(env, s, fp);
		break;
	case HEADER_CPU_TOPOLOGY:
		print_cpu_topology(env, fp);
		break;
	case HEADER_NUMA_TOPOLOGY:
		print_numa_topology(env, fp);
		break;
	case HEADER_BRANCH_STACK:
		fprintf(fp, "# contains samples with branch stack\n");
		break;
	case HEADER_PMU_MAPPINGS:
		print_pmu_mappings(env, fp);
		break;
	case HEADER_GROUP_DESC:
		print_group_desc(env, s, fp);
		break;
	case HEADER_AUXTRACE:
		fprintf(fp, "# contains AUX area data (e.g. instruction trace)\n");
		break;
	case HEADER_STAT:
		fprintf(fp, "# contains stat data\n");
		break;
	case HEADER_CACHE:
		fprintf(fp, "# CPU cache info:\n");
		for (size_t i = 0; i < env->nr_caches; i++) {
			const struct cache_level *c = &env->caches[i];

			fprintf(fp, "#  L%d %-15s %8s [%s]\n", (int)c->level, c->type, c->size,
				c->map);
		}
		break;
	case HEADER_SAMPLE_TIME:
		print_sample_time(env, fp);
		break;
	case HEADER_MEM_TOPOLOGY:
		print_mem_topology(env, fp);
		break;
	case HEADER_CLOCKID:
		fprintf(fp, "# clockid frequency: %" PRIu64 " MHz\n", env->clockid_res_ns * 1000);
		break;
	case HEADER_DIR_FORMAT:
		fprintf(fp, "# directory data version : %" PRIu64 "\n", env->dir_version);
		break;
	case HEADER_BPF_BTF:
		for (size_t i = 0; i < env->nr_btf_ids; i++)
			fprintf(fp, "# btf info of id %u\n", env->btf_ids[i]);
		break;
	case HEADER_COMPRESSED:
		fprintf(fp, "# compressed : %s, level = %d, ratio = %d\n",
			env->comp_type == 1 ? "Zstd" : "Unknown", (int)env->comp_level,
			(int)env->comp_ratio);
		break;
	case HEADER_CPU_PMU_CAPS:
		print_pmu_caps_line(fp, &env->cpu_pmu_caps, "cpu");
		break;
	case HEADER_CLOCK_DATA:
		print_clock_data(env, fp);
		break;
	case HEADER_HYBRID_TOPOLOGY:
		fprintf(fp, "# hybrid cpu system:\n");
		for (size_t i = 0; i < env->nr_hybrid; i++)
			fprintf(fp, "# %s cpu list : %s\n", env->hybrid[i].a, env->hybrid[i].b);
		break;
	case HEADER_PMU_CAPS:
		for (size_t i = 0; i < env->nr_pmu_caps; i++)
			print_pmu_caps_line(fp, &env->pmu_caps[i], env->pmu_caps[i].pmu_name);
		break;
	default:	/* TRACING_DATA, BUILD_ID: no printer; BPF_PROG_INFO: see open points */
		break;
	}
}

/* perf prints the mtime of the file it reads: a directory's is its "data" file. */
static int capture_time(const struct perf_session *s, time_t *when)
{
	struct stat st;

	if (!s->path || stat(s->path, &st))
		return -1;
	if (S_ISDIR(st.st_mode)) {
		char *data = xmalloc(strlen(s->path) + sizeof("/data"));
		int ret;

		sprintf(data, "%s/data", s->path);
		ret = stat(data, &st);
		free(data);
		if (ret)
			return -1;
	}
	*when = st.st_mtime;
	return 0;
}

/* perf_header__fprintf_info */
static void header_info_fprintf(struct perf_session *s, FILE *fp, bool full)
{
	const struct perf_file_header *h = &s->header;
	struct header_env env;
	char date[64];
	time_t when;

	if (capture_time(s, &when))
		return;
	fprintf(fp, "# captured on    : %s", ctime_r(&when, date) ? date : "(null)");
	fprintf(fp, "# header version : %u\n", 1u);
	fprintf(fp, "# data offset    : %" PRIu64 "\n", (u64)h->data.offset);
	fprintf(fp, "# data size      : %" PRIu64 "\n", (u64)h->data.size);
	fprintf(fp, "# feat offset    : %" PRIu64 "\n", (u64)(h->data.offset + h->data.size));

	env_load(&env, s);
	for (int feat = 1; feat < HEADER_LAST_FEATURE_61; feat++) {
		if (!perf_session__has_feat(s, feat))
			continue;
		if (feat_full_only(feat) && !full)
			fprintf(fp, "# %s info available, use -I to display\n", feat_names[feat]);
		else
			print_feature(&env, s, feat, fp);
	}
	env_free(&env);

	fprintf(fp, "# missing features: ");
	for (int feat = 1; feat < HEADER_LAST_FEATURE_61; feat++)
		if (!perf_session__has_feat(s, feat))
			fprintf(fp, "%s ", feat_names[feat]);
	fprintf(fp, "\n");
}

void header__fprintf(struct perf_session *session, FILE *fp, bool full)
{
	fprintf(fp, "# ========\n");
	header_info_fprintf(session, fp, full);
	fprintf(fp, "# ========\n#\n");
}

void header__fprintf_report(struct perf_session *session, FILE *fp, bool header, bool full)
{
	if (header)
		header__fprintf(session, fp, full);
	else
		fputs("# To display the perf.data header info, please use --header/--header-only options.\n#\n",
		      fp);
}

int header__cpu_sockets(struct perf_session *session, int **sockets, int *nr_cpus)
{
	struct header_env env;
	int ret = -ENOENT;

	*sockets = NULL;
	*nr_cpus = 0;
	if (!perf_session__has_feat(session, HEADER_CPU_TOPOLOGY))
		return ret;
	env_load(&env, session);
	if (env.has_cpu && env.nr_cpus_avail && env.nr_cpus_avail <= INT_MAX) {
		*sockets = xcalloc(env.nr_cpus_avail, sizeof(int));
		for (u32 i = 0; i < env.nr_cpus_avail; i++)
			(*sockets)[i] = env.cpu[i].socket_id;
		*nr_cpus = (int)env.nr_cpus_avail;
		ret = 0;
	}
	env_free(&env);
	return ret;
}
