/*
 * header: the "# ========" block of perf report --header/--header-only (perf 6.1
 * perf_session__fprintf_info): prints what readers/decode/features read from each feature section
 * into a perf_env. Formats only; the bytes are parsed there.
 */
#include "analyzer/output/header.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "lib/xalloc.h"
#include "readers/decode/evsel_name.h"
#include "readers/decode/features.h"

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

/* ---- EVENT_DESC (read again at print time, as perf's print_event_desc does) ---- */

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

static void print_event_desc(struct perf_env *env, struct perf_session *s, FILE *fp)
{
	struct event_desc *events = NULL;
	int nr = perf_env__read_event_desc(env, s, &events);

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

static void print_cmdline(struct perf_env *env, FILE *fp)
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

static void print_cpu_topology(struct perf_env *env, FILE *fp)
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

static void print_numa_topology(struct perf_env *env, FILE *fp)
{
	for (size_t i = 0; i < env->nr_numa; i++) {
		const struct numa_node *n = &env->numa[i];

		fprintf(fp, "# node%u meminfo  : total = %" PRIu64 " kB, free = %" PRIu64 " kB\n",
			n->node, n->mem_total, n->mem_free);
		fprintf(fp, "# node%u cpu list : %s\n", n->node, n->cpus);
	}
}

static void print_pmu_mappings(struct perf_env *env, FILE *fp)
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

static void print_group_desc(struct perf_env *env, struct perf_session *s, FILE *fp)
{
	struct event_desc *events = NULL;
	int nr_events = perf_session__has_feat(s, HEADER_EVENT_DESC) ?
				perf_env__read_event_desc(env, s, &events) : -1;
	u32 nr = 0;

	for (size_t i = 0; i < s->nr_evsels; i++) {
		const char *name = (int)i < nr_events ? events[i].name : evsel__name(&s->evsels[i]);

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

static void print_mem_topology(struct perf_env *env, FILE *fp)
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

static void print_clock_data(struct perf_env *env, FILE *fp)
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

static void print_sample_time(struct perf_env *env, FILE *fp)
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

static void print_feature(struct perf_env *env, struct perf_session *s, int feat, FILE *fp)
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

	if (!s->path || (strcmp(s->path, "-") ? stat(s->path, &st) : fstat(0, &st)))
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
	struct perf_env env;
	char date[64];
	time_t when;

	if (capture_time(s, &when))
		return;
	fprintf(fp, "# captured on    : %s", ctime_r(&when, date) ? date : "(null)");
	fprintf(fp, "# header version : %u\n", 1u);
	fprintf(fp, "# data offset    : %" PRIu64 "\n", (u64)h->data.offset);
	fprintf(fp, "# data size      : %" PRIu64 "\n", (u64)h->data.size);
	fprintf(fp, "# feat offset    : %" PRIu64 "\n", (u64)(h->data.offset + h->data.size));
	if (s->is_pipe)
		return;	/* features come as records: header__fprintf_feature prints each */

	perf_env__load(&env, s);
	for (int feat = 1; feat < HEADER_LAST_FEATURE_61; feat++) {
		if (!perf_session__has_feat(s, feat))
			continue;
		if (feat_full_only(feat) && !full)
			fprintf(fp, "# %s info available, use -I to display\n", feat_names[feat]);
		else
			print_feature(&env, s, feat, fp);
	}
	perf_env__exit(&env);

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

void header__fprintf_feature(struct perf_session *s, FILE *fp, int feat, bool full)
{
	struct perf_env env;

	if (feat <= 0 || feat >= HEADER_LAST_FEATURE_61 || !perf_session__has_feat(s, feat))
		return;
	if (feat_full_only(feat) && !full) {
		fprintf(fp, "# %s info available, use -I to display\n", feat_names[feat]);
		return;
	}
	perf_env__load(&env, s);
	print_feature(&env, s, feat, fp);
	perf_env__exit(&env);
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
	struct perf_env env;
	int ret = -ENOENT;

	*sockets = NULL;
	*nr_cpus = 0;
	if (!perf_session__has_feat(session, HEADER_CPU_TOPOLOGY))
		return ret;
	perf_env__load(&env, session);
	if (env.has_cpu && env.nr_cpus_avail && env.nr_cpus_avail <= INT_MAX) {
		*sockets = xcalloc(env.nr_cpus_avail, sizeof(int));
		for (u32 i = 0; i < env.nr_cpus_avail; i++)
			(*sockets)[i] = env.cpu[i].socket_id;
		*nr_cpus = (int)env.nr_cpus_avail;
		ret = 0;
	}
	perf_env__exit(&env);
	return ret;
}
