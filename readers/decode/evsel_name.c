/*
 * perf 6.1's event names from the attr (tools/perf/util/evsel.c: evsel__name and the
 * evsel__*_name helpers; tools/perf/arch/x86/util/evsel.c: arch_evsel__hw_name). See
 * evsel_name.h.
 */
#include "readers/decode/evsel_name.h"

#include <inttypes.h>
#include <linux/hw_breakpoint.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lib/xalloc.h"
#include "readers/session.h"

/* A cursor over a fixed buffer: appends as far as it has room, always NUL-terminated. */
struct name_buf {
	char *buf;
	size_t size, len;
};

__attribute__((format(printf, 2, 3))) static void name_printf(struct name_buf *b,
							      const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->len + 1 >= b->size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->buf + b->len, b->size - b->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		b->len = MIN(b->len + (size_t)n, b->size - 1);
}

static const char *const hw_names[] = {
	"cycles", "instructions", "cache-references", "cache-misses", "branches",
	"branch-misses", "bus-cycles", "stalled-cycles-frontend", "stalled-cycles-backend",
	"ref-cycles",
};

/* perf 6.1 stops at dummy: bpf-output and cgroup-switches are "unknown-software" */
static const char *const sw_names[] = {
	"cpu-clock", "task-clock", "page-faults", "context-switches", "cpu-migrations",
	"minor-faults", "major-faults", "alignment-faults", "emulation-faults", "dummy",
};

/* the first of each of perf's alias lists; ops also the second ("loads") */
static const char *const cache_names[] = { "L1-dcache", "L1-icache", "LLC", "dTLB", "iTLB",
					   "branch", "node" };
static const char *const cache_ops[][2] = { { "load", "loads" }, { "store", "stores" },
					    { "prefetch", "prefetches" } };
static const char *const cache_results[] = { "refs", "misses" };

/* which ops each cache has (perf's evsel__hw_cache_stat): bit op */
static const u8 cache_valid_ops[] = { 7, 5, 7, 7, 1, 1, 7 };

/*
 * perf's evsel__add_modifiers: the privilege levels counted when some are excluded, 'p's of
 * precise_ip, and host/guest when they differ from what perf's parser would have set by
 * default (exclude_guest goes with any of the former).
 */
static void add_modifiers(struct name_buf *b, const struct perf_event_attr *attr)
{
	bool exclude_guest_default = false;
	char mods[8];
	size_t n = 0;

	if (attr->exclude_kernel || attr->exclude_user || attr->exclude_hv) {
		if (!attr->exclude_kernel)
			mods[n++] = 'k';
		if (!attr->exclude_user)
			mods[n++] = 'u';
		if (!attr->exclude_hv)
			mods[n++] = 'h';
		exclude_guest_default = true;
	}
	for (unsigned int i = 0; i < attr->precise_ip; i++) {
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
		name_printf(b, ":%.*s", (int)n, mods);
}

/* x86's arch_evsel__hw_name: a hybrid PMU's type in the config's upper half names it */
static void hw_name(struct name_buf *b, u64 config)
{
	u64 event = config & 0xffffffffu, pmu = config >> 32;
	const char *name = event < ARRAY_SIZE(hw_names) ? hw_names[event] : "unknown-hardware";

	if (pmu)
		name_printf(b, "cpu/%s/", name);	/* no PMU name is known when reading */
	else
		name_printf(b, "%s", name);
}

static void hw_cache_name(struct name_buf *b, u64 config)
{
	unsigned int type = config & 0xff, op = (config >> 8) & 0xff;
	unsigned int result = (config >> 16) & 0xff;

	if (type >= ARRAY_SIZE(cache_names))
		name_printf(b, "unknown-ext-hardware-cache-type");
	else if (op >= ARRAY_SIZE(cache_ops))
		name_printf(b, "unknown-ext-hardware-cache-op");
	else if (result >= ARRAY_SIZE(cache_results))
		name_printf(b, "unknown-ext-hardware-cache-result");
	else if (!(cache_valid_ops[type] & (1u << op)))
		name_printf(b, "invalid-cache");
	else if (result)
		name_printf(b, "%s-%s-%s", cache_names[type], cache_ops[op][0],
			    cache_results[result]);
	else
		name_printf(b, "%s-%s", cache_names[type], cache_ops[op][1]);
}

static void bp_name(struct name_buf *b, const struct perf_event_attr *attr)
{
	name_printf(b, "mem:0x%" PRIx64 ":%s%s%s", (u64)attr->bp_addr,
		    attr->bp_type & HW_BREAKPOINT_R ? "r" : "",
		    attr->bp_type & HW_BREAKPOINT_W ? "w" : "",
		    attr->bp_type & HW_BREAKPOINT_X ? "x" : "");
}

char *evsel_name__from_attr(const struct perf_event_attr *attr, char *buf, size_t size)
{
	struct name_buf b = { .buf = buf, .size = size };

	if (!size)
		return buf;
	buf[0] = 0;
	switch (attr->type) {
	case PERF_TYPE_RAW:
		name_printf(&b, "raw 0x%" PRIx64, (u64)attr->config);
		break;
	case PERF_TYPE_HARDWARE:
		hw_name(&b, attr->config);
		break;
	case PERF_TYPE_HW_CACHE:
		hw_cache_name(&b, attr->config);
		break;
	case PERF_TYPE_SOFTWARE:
		name_printf(&b, "%s", attr->config < ARRAY_SIZE(sw_names) ? sw_names[attr->config]
									 : "unknown-software");
		break;
	case PERF_TYPE_BREAKPOINT:
		bp_name(&b, attr);
		break;
	case PERF_TYPE_TRACEPOINT:
		/* perf names tracepoints from the file's tracing data, or refuses the file */
		name_printf(&b, "unknown tracepoint");
		return buf;
	default:
		name_printf(&b, "unknown attr type: %d", (int)attr->type);
		return buf;
	}
	add_modifiers(&b, attr);
	return buf;
}

const char *evsel__name(struct evsel *evsel)
{
	char buf[128];	/* perf's */

	if (!evsel)
		return "unknown";
	if (!evsel->name)
		evsel->name = xstrdup(evsel_name__from_attr(&evsel->attr, buf, sizeof(buf)));
	return evsel->name;
}
