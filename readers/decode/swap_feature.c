/*
 * swap_feature: byte-order conversion of perf.data feature sections, in place, in both
 * directions: which words of each section are u64, u32 or strings (header.c write_* /
 * process_* with ph->needs_swap). Never interprets the values; every access is bounds-checked.
 */
#include "readers/decode/swap.h"

#include <string.h>

#include "readers/decode/swap_internal.h"

/* A perf string: u32 length, then that many bytes left alone (header.c do_read_string). */
static void cur_string(struct cursor *c)
{
	u32 len = cur_u32(c);

	cur_skip(c, len);
}

static void cur_strings(struct cursor *c, u64 n)
{
	/* each string takes at least its 4-byte length */
	if (n > (c->end - MIN(c->pos, c->end)) / 4) {
		c->bad = true;
		return;
	}
	while (n-- && !c->bad)
		cur_string(c);
}

/* A u32 in native order without swapping it (for probing a layout). */
static bool peek_u32(const struct cursor *c, size_t pos, u32 *out)
{
	if (pos > c->end || c->end - pos < 4)
		return false;
	memcpy(out, c->base + pos, 4);
	if (c->to_native)
		*out = __builtin_bswap32(*out);
	return true;
}

static bool topology_dies_fit(const struct cursor *c, size_t nr_cpus)
{
	size_t pos = c->pos + nr_cpus * 8;
	u32 nr, len;

	if (!peek_u32(c, pos, &nr) || nr == 0 || nr > nr_cpus)
		return false;
	pos += 4;
	for (u32 i = 0; i < nr; i++) {
		if (!peek_u32(c, pos, &len) || len > c->end - pos - 4)
			return false;
		pos += 4 + (size_t)len;
	}
	return c->end - pos == nr_cpus * 4;
}

/*
 * CPU_TOPOLOGY: u32 nr + strings (core siblings), u32 nr + strings (thread siblings), then
 * optionally per available cpu {u32 core_id, u32 socket_id}, then optionally u32 nr + strings
 * (die siblings) and per cpu u32 die_id. The cpu count lives in another feature (NRCPUS), so
 * find it from the layout: everything is u32 or string, and only one count makes the die part
 * end exactly at the section end; with no die part the rest is 8 bytes per cpu.
 */
static void swap_cpu_topology(struct cursor *c)
{
	size_t rest, nr_cpus = 0;
	bool dies = false;

	cur_strings(c, cur_u32(c));
	cur_strings(c, cur_u32(c));
	if (c->bad || c->pos == c->end)
		return;
	rest = c->end - c->pos;
	for (size_t n = 1; n <= rest / 12; n++) {
		if (topology_dies_fit(c, n)) {
			nr_cpus = n;
			dies = true;
			break;
		}
	}
	if (!dies) {
		if (rest % 8) {
			c->bad = true;
			return;
		}
		nr_cpus = rest / 8;
	}
	cur_u32s(c, nr_cpus * 2);
	if (dies) {
		cur_strings(c, cur_u32(c));
		cur_u32s(c, nr_cpus);
	}
}

int swap_feature(int feat, void *data, size_t size, bool to_native)
{
	struct cursor c = { .base = data, .end = size, .to_native = to_native };
	u32 nr;

	switch (feat) {
	case HEADER_TRACING_DATA:	/* endian-tagged inside; libtraceevent reads either */
	case HEADER_BRANCH_STACK:	/* no data */
	case HEADER_STAT:		/* no data */
		return 0;
	case HEADER_BUILD_ID:
		/* records: perf_event_header, s32 pid, build_id[24], file name */
		while (c.pos < c.end && !c.bad) {
			size_t start = c.pos;
			u16 rec_size;

			cur_u32(&c);	/* type */
			cur_u16(&c);	/* misc */
			rec_size = cur_u16(&c);
			cur_u32(&c);	/* pid */
			if (c.bad || rec_size < 12 || rec_size > c.end - start)
				return -1;
			c.pos = start + rec_size;
		}
		break;
	case HEADER_HOSTNAME:
	case HEADER_OSRELEASE:
	case HEADER_VERSION:
	case HEADER_ARCH:
	case HEADER_CPUDESC:
	case HEADER_CPUID:
		cur_string(&c);
		break;
	case HEADER_NRCPUS:
		cur_u32s(&c, 2);	/* nr_cpus_avail, nr_cpus_online */
		break;
	case HEADER_TOTAL_MEM:
	case HEADER_CLOCKID:
	case HEADER_DIR_FORMAT:
	case HEADER_SAMPLE_TIME:	/* first, last */
	case HEADER_AUXTRACE:		/* u64 nr, then {file_offset, size} pairs */
	case HEADER_MEM_TOPOLOGY:	/* version, block_size, nr, {node, size, bitmap} */
		if (size % 8)
			return -1;
		cur_rest_u64(&c);
		break;
	case HEADER_CMDLINE:
	case HEADER_CPU_PMU_CAPS:	/* nr, then name/value string pairs */
		nr = cur_u32(&c);
		cur_strings(&c, feat == HEADER_CMDLINE ? nr : (u64)nr * 2);
		break;
	case HEADER_EVENT_DESC: {
		u32 attr_size;

		nr = cur_u32(&c);
		attr_size = cur_u32(&c);
		if (c.bad || attr_size < 8)
			return c.bad || nr ? -1 : 0;
		for (u32 i = 0; i < nr && !c.bad; i++) {
			u32 nr_ids;

			if (!cur_has(&c, attr_size))
				break;
			swap_attr_dir(c.base + c.pos, attr_size, to_native);
			c.pos += attr_size;
			nr_ids = cur_u32(&c);
			cur_string(&c);
			cur_u64s(&c, nr_ids);
		}
		break;
	}
	case HEADER_CPU_TOPOLOGY:
		swap_cpu_topology(&c);
		break;
	case HEADER_NUMA_TOPOLOGY:
		nr = cur_u32(&c);
		for (u32 i = 0; i < nr && !c.bad; i++) {
			cur_u32(&c);	/* node */
			cur_u64s(&c, 2);	/* mem_total, mem_free */
			cur_string(&c);	/* cpus */
		}
		break;
	case HEADER_PMU_MAPPINGS:
		nr = cur_u32(&c);
		for (u32 i = 0; i < nr && !c.bad; i++) {
			cur_u32(&c);	/* type */
			cur_string(&c);	/* name */
		}
		break;
	case HEADER_GROUP_DESC:
		nr = cur_u32(&c);
		for (u32 i = 0; i < nr && !c.bad; i++) {
			cur_string(&c);	/* name */
			cur_u32s(&c, 2);	/* leader_idx, nr_members */
		}
		break;
	case HEADER_CACHE:
		cur_u32(&c);	/* version */
		nr = cur_u32(&c);
		for (u32 i = 0; i < nr && !c.bad; i++) {
			cur_u32s(&c, 4);	/* level, line_size, sets, ways */
			cur_strings(&c, 3);	/* type, size, map */
		}
		break;
	case HEADER_BPF_PROG_INFO:
		/* perf refuses these from the other byte order; swap the framing only */
		nr = cur_u32(&c);
		for (u32 i = 0; i < nr && !c.bad; i++) {
			u32 info_len = cur_u32(&c), data_len = cur_u32(&c);

			cur_skip(&c, (u64)info_len + data_len);
		}
		break;
	case HEADER_BPF_BTF:
		nr = cur_u32(&c);
		for (u32 i = 0; i < nr && !c.bad; i++) {
			cur_u32(&c);	/* id */
			cur_skip(&c, cur_u32(&c));
		}
		break;
	case HEADER_COMPRESSED:
		cur_u32s(&c, 5);	/* version, type, level, ratio, mmap_len */
		break;
	case HEADER_CLOCK_DATA:
		cur_u32s(&c, 2);	/* version, clockid */
		cur_u64s(&c, 2);	/* tod ns, clockid ns */
		break;
	case HEADER_HYBRID_TOPOLOGY:
		nr = cur_u32(&c);
		cur_strings(&c, (u64)nr * 2);	/* pmu name, cpus */
		break;
	case HEADER_PMU_CAPS:
		nr = cur_u32(&c);
		for (u32 i = 0; i < nr && !c.bad; i++) {
			u32 nr_caps = cur_u32(&c);

			cur_strings(&c, (u64)nr_caps * 2);
			cur_string(&c);	/* pmu name */
		}
		break;
	default:
		return 0;	/* unknown features are left alone */
	}
	return c.bad ? -1 : 0;
}
