/*
 * Unit tests for analyzer/header: perf 6.1's --header-only text for synthetic feature
 * sections written to a temporary perf.data, and truncated or garbage sections.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

#include "analyzer/output/header.h"
#include "lib/xalloc.h"

/* A growable byte buffer for one feature section. */
struct sec {
	u8 *buf;
	size_t len, alloc;
};

static void put(struct sec *s, const void *data, size_t n)
{
	ARRAY_GROW(s->buf, s->alloc, s->len + n + 1);
	memcpy(s->buf + s->len, data, n);
	s->len += n;
}

static void put_u32(struct sec *s, u32 v)
{
	put(s, &v, 4);
}

static void put_u64(struct sec *s, u64 v)
{
	put(s, &v, 8);
}

/* perf's do_write_string: u32 len (NUL included, 64-aligned), then the padded bytes. */
static void put_str(struct sec *s, const char *str)
{
	u32 len = (u32)ALIGN_UP(strlen(str) + 1, (size_t)64);
	char *pad = xzalloc(len);

	memcpy(pad, str, strlen(str));
	put_u32(s, len);
	put(s, pad, len);
	free(pad);
}

struct file {
	struct sec feat[HEADER_LAST_FEATURE];
	bool has[HEADER_LAST_FEATURE];
	struct perf_event_attr attr[4];
	int nr_attrs;
	char path[64];
};

static struct sec *feat(struct file *f, int bit)
{
	f->has[bit] = true;
	return &f->feat[bit];
}

static void add_attr(struct file *f, u32 type, u64 config)
{
	struct perf_event_attr *a = &f->attr[f->nr_attrs++];

	memset(a, 0, sizeof(*a));
	a->type = type;
	a->size = sizeof(*a);
	a->config = config;
	a->sample_period = 4000;
	a->freq = 1;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
			 PERF_SAMPLE_PERIOD;
	a->disabled = 1;
	a->sample_id_all = 1;
}

/* Lay out header | attrs | (empty) data | feature table | sections; mtime 2024-01-02 03:04:05. */
static void write_file(struct file *f)
{
	struct perf_file_header h = { 0 };
	struct sec out = { 0 };
	u64 attr_entry = sizeof(struct perf_event_attr) + sizeof(struct perf_file_section);
	u64 nr_feats = 0, off;
	struct utimbuf times = { 1704164645, 1704164645 };
	FILE *fp;

	if (!f->nr_attrs)
		add_attr(f, PERF_TYPE_SOFTWARE, 0);
	for (int bit = 1; bit < HEADER_LAST_FEATURE; bit++)
		if (f->has[bit]) {
			h.adds_features[bit / 64] |= 1ULL << (bit % 64);
			nr_feats++;
		}
	h.magic = PERF_MAGIC2;
	h.size = sizeof(h);
	h.attr_size = attr_entry;
	h.attrs.offset = sizeof(h);
	h.attrs.size = attr_entry * f->nr_attrs;
	h.data.offset = h.attrs.offset + h.attrs.size;
	h.data.size = 0;
	put(&out, &h, sizeof(h));
	for (int i = 0; i < f->nr_attrs; i++) {
		struct perf_file_section ids = { 0, 0 };

		put(&out, &f->attr[i], sizeof(f->attr[i]));
		put(&out, &ids, sizeof(ids));
	}
	off = h.data.offset + nr_feats * sizeof(struct perf_file_section);
	for (int bit = 1; bit < HEADER_LAST_FEATURE; bit++) {
		struct perf_file_section sec;

		if (!f->has[bit])
			continue;
		sec.offset = off;
		sec.size = f->feat[bit].len;
		put(&out, &sec, sizeof(sec));
		off += sec.size;
	}
	for (int bit = 1; bit < HEADER_LAST_FEATURE; bit++)
		if (f->has[bit] && f->feat[bit].len)
			put(&out, f->feat[bit].buf, f->feat[bit].len);

	strcpy(f->path, "/tmp/test_header.XXXXXX");
	close(mkstemp(f->path));
	fp = fopen(f->path, "wb");
	cr_assert(fp);
	fwrite(out.buf, 1, out.len, fp);
	fclose(fp);
	utime(f->path, &times);
	free(out.buf);
	for (int bit = 1; bit < HEADER_LAST_FEATURE; bit++)
		free(f->feat[bit].buf);
}

/* The header text of a file, as header__fprintf prints it. Caller frees. */
static char *header_text(struct file *f, bool full)
{
	struct perf_session s;
	char *text = NULL;
	size_t len = 0;
	FILE *mem;

	setenv("TZ", "UTC", 1);
	tzset();
	write_file(f);
	cr_assert_eq(perf_session__open(&s, f->path), 0);
	mem = open_memstream(&text, &len);
	header__fprintf(&s, mem, full);
	fclose(mem);
	perf_session__close(&s);
	unlink(f->path);
	return text;
}

#define PREAMBLE                                                                             \
	"# ========\n"                                                                       \
	"# captured on    : Tue Jan  2 03:04:05 2024\n"                                       \
	"# header version : 1\n"

static void expect_body(const char *text, const char *body)
{
	const char *start = strstr(text, "# feat offset    : ");

	cr_assert(start, "no preamble in:\n%s", text);
	start = strchr(start, '\n') + 1;
	cr_assert_str_eq(start, body);
}

#define ALL_MISSING_BUT(...) "# missing features: " __VA_ARGS__ " \n# ========\n#\n"

Test(header, preamble_and_strings)
{
	struct file f = { 0 };
	char *text;

	put_str(feat(&f, HEADER_HOSTNAME), "host");
	put_str(feat(&f, HEADER_OSRELEASE), "6.1.0");
	put_u32(feat(&f, HEADER_NRCPUS), 8);
	put_u32(&f.feat[HEADER_NRCPUS], 4);
	put_u64(feat(&f, HEADER_TOTAL_MEM), 1234);
	text = header_text(&f, false);
	cr_assert(!strncmp(text, PREAMBLE "# data offset    : ", strlen(PREAMBLE) + 19),
		  "got:\n%s", text);
	expect_body(text, "# hostname : host\n"
			  "# os release : 6.1.0\n"
			  "# nrcpus online : 4\n"
			  "# nrcpus avail : 8\n"
			  "# total memory : 1234 kB\n"
			  "# missing features: TRACING_DATA BUILD_ID VERSION ARCH CPUDESC CPUID "
			  "CMDLINE EVENT_DESC CPU_TOPOLOGY NUMA_TOPOLOGY BRANCH_STACK PMU_MAPPINGS "
			  "GROUP_DESC AUXTRACE STAT CACHE SAMPLE_TIME MEM_TOPOLOGY CLOCKID DIR_FORMAT "
			  "BPF_PROG_INFO BPF_BTF COMPRESSED CPU_PMU_CAPS CLOCK_DATA HYBRID_TOPOLOGY "
			  "PMU_CAPS \n# ========\n#\n");
	free(text);
}

static void set_all_but_some(struct file *f)
{
	/* features with empty bodies that print nothing, so "missing" stays short */
	feat(f, HEADER_BUILD_ID);
	put_u32(feat(f, HEADER_BPF_PROG_INFO), 0);
	put_u32(feat(f, HEADER_BPF_BTF), 0);
	put_u32(feat(f, HEADER_PMU_CAPS), 0);
}

Test(header, cmdline_event_desc_and_times)
{
	struct file f = { 0 };
	struct sec *ed;
	struct perf_event_attr attr;
	char *text;

	set_all_but_some(&f);
	put_u32(feat(&f, HEADER_CMDLINE), 3);
	put_str(&f.feat[HEADER_CMDLINE], "perf");
	put_str(&f.feat[HEADER_CMDLINE], "record");
	put_str(&f.feat[HEADER_CMDLINE], "it's");
	add_attr(&f, PERF_TYPE_SOFTWARE, 0);
	add_attr(&f, PERF_TYPE_SOFTWARE, 1);
	ed = feat(&f, HEADER_EVENT_DESC);
	put_u32(ed, 2);
	put_u32(ed, sizeof(attr));
	for (int i = 0; i < 2; i++) {
		attr = f.attr[i];
		attr.read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST;
		put(ed, &attr, sizeof(attr));
		put_u32(ed, 2 - i);
		put_str(ed, i ? "task-clock" : "cpu-clock");
		for (int j = 0; j < 2 - i; j++)
			put_u64(ed, 100 + j);
	}
	put_u64(feat(&f, HEADER_SAMPLE_TIME), 1996497844123ULL);
	put_u64(&f.feat[HEADER_SAMPLE_TIME], 1996699048999ULL);
	put_u64(feat(&f, HEADER_CLOCKID), 1);
	text = header_text(&f, false);
	expect_body(text,
		    "# cmdline : perf record it\\'s \n"
		    "# event : name = cpu-clock, , id = { 100, 101 }, type = 1, size = 128, "
		    "{ sample_period, sample_freq } = 4000, sample_type = IP|TID|TIME|ID|PERIOD, "
		    "read_format = ID|LOST, disabled = 1, freq = 1, sample_id_all = 1\n"
		    "# event : name = task-clock, , id = { 100 }, type = 1, size = 128, "
		    "config = 0x1, { sample_period, sample_freq } = 4000, "
		    "sample_type = IP|TID|TIME|ID|PERIOD, read_format = ID|LOST, disabled = 1, "
		    "freq = 1, sample_id_all = 1\n"
		    "# time of first sample : 1996.497844\n"
		    "# time of last sample : 1996.699048\n"
		    "# sample duration :    201.205 ms\n"
		    "# clockid frequency: 1000 MHz\n"
		    ALL_MISSING_BUT("TRACING_DATA HOSTNAME OSRELEASE VERSION ARCH NRCPUS CPUDESC CPUID TOTAL_MEM "
				    "CPU_TOPOLOGY NUMA_TOPOLOGY BRANCH_STACK PMU_MAPPINGS "
				    "GROUP_DESC AUXTRACE STAT CACHE MEM_TOPOLOGY DIR_FORMAT "
				    "COMPRESSED CPU_PMU_CAPS CLOCK_DATA HYBRID_TOPOLOGY"));
	free(text);
}

/* A CPU_TOPOLOGY section as perf 6.1 writes it for 2 cpus in one socket. */
static void put_topology(struct file *f, bool dies, u32 socket)
{
	struct sec *t = feat(f, HEADER_CPU_TOPOLOGY);

	put_u32(feat(f, HEADER_NRCPUS), 2);
	put_u32(&f->feat[HEADER_NRCPUS], 2);
	put_u32(t, 1);
	put_str(t, "0-1");
	put_u32(t, 2);
	put_str(t, "0");
	put_str(t, "1");
	for (u32 cpu = 0; cpu < 2; cpu++) {
		put_u32(t, cpu);	/* core */
		put_u32(t, socket);
	}
	if (dies) {
		put_u32(t, 1);
		put_str(t, "0-1");
		put_u32(t, 0);
		put_u32(t, 0);
	}
}

Test(header, topology_full_and_summary)
{
	struct file f = { 0 }, g = { 0 };
	char *full, *summary;

	put_topology(&f, true, 1);
	full = header_text(&f, true);
	cr_assert(strstr(full, "# nrcpus avail : 2\n"
			       "# sibling sockets : 0-1\n"
			       "# sibling dies    : 0-1\n"
			       "# sibling threads : 0\n"
			       "# sibling threads : 1\n"
			       "# CPU 0: Core ID 0, Die ID 0, Socket ID 1\n"
			       "# CPU 1: Core ID 1, Die ID 0, Socket ID 1\n"
			       "# missing features: "),
		  "got:\n%s", full);
	put_topology(&g, false, 1);
	summary = header_text(&g, false);
	cr_assert(strstr(summary, "# CPU_TOPOLOGY info available, use -I to display\n"),
		  "got:\n%s", summary);
	free(full);
	free(summary);
}

Test(header, cpu_sockets)
{
	struct file f = { 0 };
	struct perf_session s;
	int *sockets, nr;

	put_topology(&f, true, 1);
	write_file(&f);
	cr_assert_eq(perf_session__open(&s, f.path), 0);
	cr_assert_eq(header__cpu_sockets(&s, &sockets, &nr), 0);
	cr_assert_eq(nr, 2);
	cr_assert_eq(sockets[0], 1);
	cr_assert_eq(sockets[1], 1);
	free(sockets);
	perf_session__close(&s);
	unlink(f.path);
}

/* perf 6.1 drops the per-cpu ids when a socket id exceeds the cpu count. */
Test(header, socket_id_too_big)
{
	struct file f = { 0 }, g = { 0 };
	struct perf_session s;
	int *sockets, nr;
	char *text;

	put_topology(&f, true, 3);
	text = header_text(&f, true);
	cr_assert(strstr(text, "# sibling threads : 1\n"
			       "# Core ID and Socket ID information is not available\n"),
		  "got:\n%s", text);
	free(text);
	put_topology(&g, true, 3);
	write_file(&g);
	cr_assert_eq(perf_session__open(&s, g.path), 0);
	cr_assert_neq(header__cpu_sockets(&s, &sockets, &nr), 0);
	cr_assert_null(sockets);
	perf_session__close(&s);
	unlink(g.path);
}

Test(header, cpu_sockets_absent)
{
	struct file f = { 0 };
	struct perf_session s;
	int *sockets = (int *)1, nr = 5;

	put_str(feat(&f, HEADER_HOSTNAME), "host");
	write_file(&f);
	cr_assert_eq(perf_session__open(&s, f.path), 0);
	cr_assert_neq(header__cpu_sockets(&s, &sockets, &nr), 0);
	cr_assert_null(sockets);
	cr_assert_eq(nr, 0);
	perf_session__close(&s);
	unlink(f.path);
}

Test(header, numa_cache_memory_full)
{
	struct file f = { 0 };
	struct sec *n = feat(&f, HEADER_NUMA_TOPOLOGY), *c = feat(&f, HEADER_CACHE);
	struct sec *m = feat(&f, HEADER_MEM_TOPOLOGY);
	char *text;

	put_u32(n, 2);
	put_u32(n, 0);
	put_u64(n, 4155596);
	put_u64(n, 3898144);
	put_str(n, "0-1,3,5-6");
	put_u32(n, 1);
	put_u64(n, 10);
	put_u64(n, 5);
	put_str(n, "");
	put_u32(c, 1);
	put_u32(c, 1);
	put_u32(c, 1);
	put_u32(c, 64);
	put_u32(c, 64);
	put_u32(c, 8);
	put_str(c, "Data");
	put_str(c, "32K");
	put_str(c, "0");
	put_u64(m, 1);
	put_u64(m, 0x8000000);
	put_u64(m, 1);
	put_u64(m, 0);
	put_u64(m, 0);
	put_u64(m, 200);
	put_u64(m, 0x00ffffffULL | 0xffffffff00000000ULL);
	put_u64(m, ~0ULL);
	put_u64(m, ~0ULL);
	put_u64(m, 0xff);
	text = header_text(&f, true);
	expect_body(text, "# node0 meminfo  : total = 4155596 kB, free = 3898144 kB\n"
			  "# node0 cpu list : 0-1,3,5-6\n"
			  "# node1 meminfo  : total = 10 kB, free = 5 kB\n"
			  "# node1 cpu list : -1\n"
			  "# CPU cache info:\n"
			  "#  L1 Data                 32K [0]\n"
			  "# memory nodes (nr 1, block size 0x8000000):\n"
			  "#    0 [24G]: 0-23,32-199\n"
			  "# missing features: TRACING_DATA BUILD_ID HOSTNAME OSRELEASE VERSION "
			  "ARCH NRCPUS CPUDESC CPUID TOTAL_MEM CMDLINE EVENT_DESC CPU_TOPOLOGY "
			  "BRANCH_STACK PMU_MAPPINGS GROUP_DESC AUXTRACE STAT SAMPLE_TIME CLOCKID "
			  "DIR_FORMAT BPF_PROG_INFO BPF_BTF COMPRESSED CPU_PMU_CAPS CLOCK_DATA "
			  "HYBRID_TOPOLOGY PMU_CAPS \n# ========\n#\n");
	free(text);
}

Test(header, pmu_group_clock_compressed)
{
	struct file f = { 0 };
	struct sec *p = feat(&f, HEADER_PMU_MAPPINGS), *g = feat(&f, HEADER_GROUP_DESC);
	struct sec *cd = feat(&f, HEADER_CLOCK_DATA), *z = feat(&f, HEADER_COMPRESSED);
	struct sec *caps = feat(&f, HEADER_CPU_PMU_CAPS);
	char *text;

	put_u32(p, 2);
	put_u32(p, 1);
	put_str(p, "software");
	put_u32(p, 9);
	put_str(p, "msr");
	add_attr(&f, PERF_TYPE_SOFTWARE, 0);
	add_attr(&f, PERF_TYPE_SOFTWARE, 1);
	add_attr(&f, PERF_TYPE_HARDWARE, 0);
	put_u32(g, 1);
	put_str(g, "{anon_group}");
	put_u32(g, 0);
	put_u32(g, 2);
	put_u32(caps, 2);
	put_str(caps, "branches");
	put_str(caps, "16");
	put_str(caps, "max_precise");
	put_str(caps, "0");
	put_u32(cd, 1);
	put_u32(cd, CLOCK_MONOTONIC);
	put_u64(cd, 1795374690468809123ULL);
	put_u64(cd, 2004452459057ULL);
	for (u32 v = 0; v < 5; v++)
		put_u32(z, v == 1 ? 1 : v + 1);
	text = header_text(&f, false);
	expect_body(text, "# pmu mappings: software = 1, msr = 9\n"
			  "# group: {cpu-clock:HG,task-clock:HG}\n"
			  "# compressed : Zstd, level = 3, ratio = 4\n"
			  "# cpu pmu capabilities: branches=16, max_precise=0\n"
			  "# clockid: monotonic (1)\n"
			  "# reference time: 2026-11-22 19:11:30.468809 = 1795374690.468809 (TOD) = "
			  "2004.452459057 (monotonic)\n"
			  "# missing features: TRACING_DATA BUILD_ID HOSTNAME OSRELEASE VERSION "
			  "ARCH NRCPUS CPUDESC CPUID TOTAL_MEM CMDLINE EVENT_DESC CPU_TOPOLOGY "
			  "NUMA_TOPOLOGY BRANCH_STACK AUXTRACE STAT CACHE SAMPLE_TIME MEM_TOPOLOGY "
			  "CLOCKID DIR_FORMAT BPF_PROG_INFO BPF_BTF HYBRID_TOPOLOGY PMU_CAPS "
			  "\n# ========\n#\n");
	free(text);
}

Test(header, failed_section_stops_later_processing)
{
	struct file f = { 0 };
	struct sec *h = feat(&f, HEADER_HOSTNAME);
	char *text;

	put_u32(h, 1000);	/* string longer than its section */
	put(h, "abc", 3);
	put_str(feat(&f, HEADER_OSRELEASE), "6.1");
	put_u64(feat(&f, HEADER_TOTAL_MEM), 99);
	text = header_text(&f, false);
	/* as perf: processing stopped at HOSTNAME, the printers see an empty env */
	cr_assert(strstr(text, "# hostname : (null)\n"
			       "# os release : (null)\n"
			       "# total memory : 0 kB\n"),
		  "got:\n%s", text);
	free(text);
}

Test(header, bad_tracing_data_stops_later_processing)
{
	struct file f = { 0 };
	char *text;

	put(feat(&f, HEADER_TRACING_DATA), "not tracing data", 16);
	put_u32(feat(&f, HEADER_CMDLINE), 1);
	put_str(&f.feat[HEADER_CMDLINE], "perf");
	text = header_text(&f, false);
	cr_assert(strstr(text, "\n# cmdline : \n# missing features: BUILD_ID "), "got:\n%s",
		  text);
	free(text);
}

Test(header, bad_event_desc)
{
	struct file f = { 0 };
	struct sec *ed = feat(&f, HEADER_EVENT_DESC);
	char *text;

	put_u32(ed, 5);
	put_u32(ed, 128);
	put_u64(ed, 0);
	text = header_text(&f, false);
	cr_assert(strstr(text, "# event desc: not available or unable to read\n"), "got:\n%s",
		  text);
	free(text);
}

Test(header, report_hint)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	header__fprintf_report(NULL, mem, false, false);
	fclose(mem);
	cr_assert_str_eq(text, "# To display the perf.data header info, please use "
			       "--header/--header-only options.\n#\n");
	free(text);
}

/* Every prefix of every section, and garbage counts: must not crash or read out of bounds. */
Test(header, truncated_sections_never_crash)
{
	static const int bits[] = { HEADER_HOSTNAME, HEADER_NRCPUS, HEADER_CMDLINE,
				    HEADER_EVENT_DESC, HEADER_CPU_TOPOLOGY,
				    HEADER_NUMA_TOPOLOGY, HEADER_PMU_MAPPINGS,
				    HEADER_GROUP_DESC, HEADER_CACHE, HEADER_MEM_TOPOLOGY,
				    HEADER_BPF_BTF, HEADER_CPU_PMU_CAPS, HEADER_HYBRID_TOPOLOGY,
				    HEADER_PMU_CAPS, HEADER_AUXTRACE, HEADER_CLOCK_DATA };
	u8 garbage[96];

	for (size_t i = 0; i < sizeof(garbage); i++)
		garbage[i] = (u8)(i * 37 + 0xf1);
	for (size_t k = 0; k < ARRAY_SIZE(bits); k++) {
		for (size_t cut = 0; cut <= sizeof(garbage); cut += 5) {
			struct file f = { 0 };
			char *text;

			put_u32(feat(&f, HEADER_NRCPUS), 0xffffffffu);
			put_u32(&f.feat[HEADER_NRCPUS], 0xffffffffu);
			put(feat(&f, bits[k]), garbage, cut);
			text = header_text(&f, true);
			cr_assert(strstr(text, "# missing features: "));
			free(text);
		}
	}
}
