/*
 * features: reads perf.data feature sections into a perf_env as perf 6.1's process_* readers
 * do (stopping at the first section that fails, as perf does). Never prints; every read is
 * bounded by its section and nothing here trusts a count or length from the file.
 */
#include "readers/decode/features.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/xalloc.h"

/* A read cursor over one feature section (perf's feat_fd, bounded to the section). */
struct feat_buf {
	const u8 *pos, *end;
	u64 size;	/* the section's size, for perf's "old format" size checks */
};

static void *env_keep(struct perf_env *env, void *ptr)
{
	ARRAY_GROW(env->allocs, env->alloc_allocs, env->nr_allocs + 1);
	env->allocs[env->nr_allocs++] = ptr;
	return ptr;
}

static void *env_alloc(struct perf_env *env, size_t nmemb, size_t size)
{
	return env_keep(env, xcalloc(nmemb ? nmemb : 1, size));
}

void perf_env__exit(struct perf_env *env)
{
	for (size_t i = 0; i < env->nr_allocs; i++)
		free(env->allocs[i]);
	free(env->allocs);
}

/*
 * Append one element to an env-owned array. Capacity doubles whenever nr reaches a power of
 * two; outgrown blocks stay owned by the env until perf_env__exit (at most as much again).
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
static char *read_string(struct perf_env *env, struct feat_buf *b)
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

static int process_string(struct perf_env *env, struct feat_buf *b, char **dst)
{
	*dst = read_string(env, b);
	return *dst ? 0 : -1;
}

static int process_nrcpus(struct perf_env *env, struct feat_buf *b)
{
	u32 avail, online;

	if (read_u32(b, &avail) || read_u32(b, &online))
		return -1;
	env->nr_cpus_avail = avail;
	env->nr_cpus_online = online;
	return 0;
}

static int process_cmdline(struct perf_env *env, struct feat_buf *b)
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
static int read_string_list(struct perf_env *env, struct feat_buf *b, char ***list,
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

static int process_cpu_topology(struct perf_env *env, struct feat_buf *b)
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
static char *cpu_list_render(struct perf_env *env, const char *list)
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

static int process_numa_topology(struct perf_env *env, struct feat_buf *b)
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

static int process_pmu_mappings(struct perf_env *env, struct feat_buf *b)
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
static int process_group_desc(struct perf_env *env, struct feat_buf *b, size_t nr_evsels)
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

static int process_cache(struct perf_env *env, struct feat_buf *b)
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

static int process_sample_time(struct perf_env *env, struct feat_buf *b)
{
	u64 first, last;

	if (read_u64(b, &first) || read_u64(b, &last))
		return -1;
	env->first_sample_time = first;
	env->last_sample_time = last;
	return 0;
}

static int process_mem_topology(struct perf_env *env, struct feat_buf *b)
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

static int process_clock_data(struct perf_env *env, struct feat_buf *b)
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

static int process_compressed(struct perf_env *env, struct feat_buf *b)
{
	u32 *fields[] = { &env->comp_ver, &env->comp_type, &env->comp_level, &env->comp_ratio,
			  &env->comp_mmap_len };

	for (size_t i = 0; i < ARRAY_SIZE(fields); i++)
		if (read_u32(b, fields[i]))
			return -1;
	return 0;
}

/* u32 nr, then nr name/value string pairs, kept as "name=value". */
static int read_pmu_caps(struct perf_env *env, struct feat_buf *b, struct pmu_caps *caps)
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

static int process_pmu_caps(struct perf_env *env, struct feat_buf *b)
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

static int process_hybrid_topology(struct perf_env *env, struct feat_buf *b)
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
static void sort_unique_ids(struct perf_env *env)
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

static int process_bpf_btf(struct perf_env *env, struct feat_buf *b)
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

static int process_feature(struct perf_env *env, const struct perf_session *s, int feat,
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
void perf_env__load(struct perf_env *env, const struct perf_session *s)
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
int perf_env__read_event_desc(struct perf_env *env, const struct perf_session *s,
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
