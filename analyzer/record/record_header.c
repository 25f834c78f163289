/*
 * record_header: the header features `analyze record` writes (the ones perf 6.1's record
 * writes that readers use; layouts from perf's header.c write_* functions), the tracing data
 * of tracepoint events (trace-event-info.c), the build-ids of the dsos the samples hit
 * (perf's post-recording build-id pass) and their copies in the build-id cache
 * (build-id.c: <dir>/<path>/<build-id>/elf, linked from <dir>/.build-id/xx/yyy...).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "analyzer/record/record_internal.h"
#include "lib/bytes.h"
#include "lib/xalloc.h"
#include "readers/writer.h"
#include "symtab/symtab.h"

#define BUILD_ID_SIZE 20

/* A whole small file (sysfs, tracefs, /proc): its bytes (NUL-terminated), or NULL. */
static char *slurp(const char *path, size_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0, alloc = 4096;
	char *buf;

	if (fd < 0)
		return NULL;
	buf = xmalloc(alloc);
	for (;;) {
		ssize_t n;

		if (alloc - len < 4096) {
			alloc *= 2;
			buf = xrealloc(buf, alloc);
		}
		n = read(fd, buf + len, alloc - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = 0;
	if (size)
		*size = len;
	return buf;
}

/* The value of "key : value" in /proc/cpuinfo (first CPU), trimmed; "" when missing. */
static void cpuinfo(const char *key, char *out, size_t size)
{
	char *text = slurp("/proc/cpuinfo", NULL), *line, *save = NULL;

	*out = 0;
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
		const char *colon = strchr(line, ':');
		size_t klen = strcspn(line, "\t:");

		if (!colon || klen != strlen(key) || strncmp(line, key, klen))
			continue;
		colon++;
		while (*colon == ' ')
			colon++;
		snprintf(out, size, "%s", colon);
		break;
	}
	free(text);
}

/* perf's write_cpudesc: the model name, runs of blanks squeezed to one. */
static void set_cpudesc(struct perf_writer *w)
{
	char model[256], out[256];
	size_t j = 0;

	cpuinfo("model name", model, sizeof(model));
	for (size_t i = 0; model[i] && j + 1 < sizeof(out); i++) {
		if (model[i] == ' ' && (j == 0 || out[j - 1] == ' '))
			continue;
		out[j++] = model[i];
	}
	while (j && out[j - 1] == ' ')
		j--;
	out[j] = 0;
	perf_writer__set_string(w, HEADER_CPUDESC, out);
}

/* perf's x86 get_cpuid: vendor,family,model,stepping. */
static void set_cpuid(struct perf_writer *w)
{
	char vendor[64], family[16], model[16], stepping[16], out[160];

	cpuinfo("vendor_id", vendor, sizeof(vendor));
	cpuinfo("cpu family", family, sizeof(family));
	cpuinfo("model", model, sizeof(model));
	cpuinfo("stepping", stepping, sizeof(stepping));
	snprintf(out, sizeof(out), "%s,%s,%s,%s", vendor, family, model, stepping);
	perf_writer__set_string(w, HEADER_CPUID, out);
}

static void set_total_mem(struct perf_writer *w)
{
	char *text = slurp("/proc/meminfo", NULL), *p = text ? strstr(text, "MemTotal:") : NULL;
	u64 kb = p ? strtoull(p + 9, NULL, 10) : 0;

	perf_writer__set_feature(w, HEADER_TOTAL_MEM, &kb, sizeof(kb));
	free(text);
}

/* A sysfs CPU list file, trimmed; "" when missing. */
static void cpu_file(int cpu, const char *name, char *out, size_t size)
{
	char path[256], *text;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, name);
	text = slurp(path, NULL);
	snprintf(out, size, "%s", text ? text : "");
	out[strcspn(out, "\n")] = 0;
	free(text);
}

static int cpu_number(int cpu, const char *name)
{
	char buf[32];

	cpu_file(cpu, name, buf, sizeof(buf));
	return buf[0] ? atoi(buf) : -1;
}

/* The distinct values of a sibling list over the CPUs: u32 count, then the strings. */
static void put_siblings(struct bytes *b, int nr_cpus, const char *name)
{
	char (*lists)[128] = xcalloc((size_t)nr_cpus, sizeof(*lists));
	u32 nr = 0;

	for (int cpu = 0; cpu < nr_cpus; cpu++) {
		char buf[128];
		u32 i;

		cpu_file(cpu, name, buf, sizeof(buf));
		for (i = 0; i < nr && strcmp(lists[i], buf); i++)
			;
		if (i == nr && buf[0])
			snprintf(lists[nr++], sizeof(lists[0]), "%s", buf);
	}
	bytes_put_u32(b, nr);
	for (u32 i = 0; i < nr; i++)
		bytes_put_string(b, lists[i]);
	free(lists);
}

/* perf's write_cpu_topology: core and thread siblings, core and socket ids, dies. */
static void set_topology(struct perf_writer *w, int nr_cpus)
{
	struct bytes b = { 0 };

	put_siblings(&b, nr_cpus, "core_siblings_list");
	put_siblings(&b, nr_cpus, "thread_siblings_list");
	for (int cpu = 0; cpu < nr_cpus; cpu++) {
		bytes_put_u32(&b, (u32)cpu_number(cpu, "core_id"));
		bytes_put_u32(&b, (u32)cpu_number(cpu, "physical_package_id"));
	}
	put_siblings(&b, nr_cpus, "die_cpus_list");
	for (int cpu = 0; cpu < nr_cpus; cpu++)
		bytes_put_u32(&b, (u32)MAX(cpu_number(cpu, "die_id"), 0));
	perf_writer__set_feature(w, HEADER_CPU_TOPOLOGY, b.data, b.len);
	free(b.data);
}

static void put_file(struct bytes *b, const char *path, size_t size_bytes)
{
	size_t size = 0;
	char *text = slurp(path, &size);

	if (size_bytes == 8)
		bytes_put_u64(b, size);
	else
		bytes_put_u32(b, (u32)size);
	bytes_put(b, text, size);
	free(text);
}

/*
 * perf's tracing_data_get (trace-event-info.c), version 0.6: headers, no ftrace formats, the
 * formats of the recorded tracepoints by system, empty kallsyms, printk formats and cmdlines.
 */
static void set_tracing_data(struct recording *rec, struct perf_writer *w)
{
	static const u8 magic[10] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	const char *root = access("/sys/kernel/tracing/events", F_OK) ? "/sys/kernel/debug/tracing"
								   : "/sys/kernel/tracing";
	struct bytes b = { 0 };
	char path[512];
	u32 systems = 0;

	for (size_t i = 0; i < rec->nr_events; i++) {
		const char *sys = rec->events[i].tp_system;
		bool seen = false;

		for (size_t j = 0; j < i && sys && !seen; j++)
			seen = rec->events[j].tp_system && !strcmp(rec->events[j].tp_system, sys);
		systems += sys && !seen;
	}
	if (!systems)
		return;
	bytes_put(&b, magic, sizeof(magic));
	bytes_put(&b, "0.6", 4);
	bytes_put(&b, (u8[]){ 0, sizeof(long) }, 2);	/* little-endian, long size */
	bytes_put_u32(&b, (u32)rec->page_size);
	bytes_put(&b, "header_page", 12);
	snprintf(path, sizeof(path), "%s/events/header_page", root);
	put_file(&b, path, 8);
	bytes_put(&b, "header_event", 13);
	snprintf(path, sizeof(path), "%s/events/header_event", root);
	put_file(&b, path, 8);
	bytes_put_u32(&b, 0);	/* ftrace formats */
	bytes_put_u32(&b, systems);
	for (size_t i = 0; i < rec->nr_events; i++) {
		const char *sys = rec->events[i].tp_system;
		bool seen = false;
		u32 nr = 0;

		for (size_t j = 0; j < i && sys && !seen; j++)
			seen = rec->events[j].tp_system && !strcmp(rec->events[j].tp_system, sys);
		if (!sys || seen)
			continue;
		bytes_put(&b, sys, strlen(sys) + 1);
		for (size_t j = i; j < rec->nr_events; j++)
			nr += rec->events[j].tp_system && !strcmp(rec->events[j].tp_system, sys);
		bytes_put_u32(&b, nr);
		for (size_t j = i; j < rec->nr_events; j++) {
			const struct rec_event *e = &rec->events[j];

			if (!e->tp_system || strcmp(e->tp_system, sys))
				continue;
			snprintf(path, sizeof(path), "%s/events/%s/%s/format", root, sys, e->tp_name);
			put_file(&b, path, 8);
		}
	}
	bytes_put_u32(&b, 0);	/* kallsyms */
	snprintf(path, sizeof(path), "%s/printk_formats", root);
	put_file(&b, path, 4);
	bytes_put_u64(&b, 0);	/* saved cmdlines */
	perf_writer__set_feature(w, HEADER_TRACING_DATA, b.data, b.len);
	free(b.data);
}

/* A dso hit by the samples, with its build-id. */
struct hit_dso {
	const char *path;
	bool kernel;
	u8 build_id[BUILD_ID_SIZE];
	int size;
};

static int cmp_map(const void *a, const void *b)
{
	const struct rec_map *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int cmp_path(const void *a, const void *b)
{
	const char *const *x = a, *const *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* The [vdso]'s build-id, from this process's own copy of it (the kernel maps the same). */
static int vdso_build_id(u8 *bid)
{
	const void *image = (const void *)getauxval(AT_SYSINFO_EHDR);

	return image ? symtab__memory_build_id(image, 2 * 4096, bid) : -1;
}

/* The kernel's build-id: the GNU note of /sys/kernel/notes. */
static int kernel_build_id(u8 *bid)
{
	size_t size = 0, off = 0;
	char *notes = slurp("/sys/kernel/notes", &size);
	int ret = -1;

	while (notes && off + 12 <= size) {
		u32 namesz, descsz, type;

		memcpy(&namesz, notes + off, 4);
		memcpy(&descsz, notes + off + 4, 4);
		memcpy(&type, notes + off + 8, 4);
		off += 12;
		if (ALIGN_UP((size_t)namesz, 4) + ALIGN_UP((size_t)descsz, 4) > size - off)
			break;
		if (type == 3 && namesz == 4 && !memcmp(notes + off, "GNU", 4)) {
			memset(bid, 0, BUILD_ID_SIZE);
			memcpy(bid, notes + off + 4, MIN((size_t)descsz, (size_t)BUILD_ID_SIZE));
			ret = (int)MIN(descsz, BUILD_ID_SIZE);
			break;
		}
		off += ALIGN_UP((size_t)namesz, 4) + ALIGN_UP((size_t)descsz, 4);
	}
	free(notes);
	return ret;
}

/*
 * The dsos the samples hit, as perf's build-id pass finds them: every stream's maps merged
 * and sorted by pid and address, each user sample's ip looked up among its process's maps.
 */
static struct hit_dso *hit_dsos(struct recording *rec, size_t *nr_out)
{
	struct rec_map *maps = NULL;
	const char **paths = NULL;
	size_t nr_maps = 0, alloc = 0, nr_paths = 0, alloc_paths = 0, nr = 0;
	bool kernel = false;
	struct hit_dso *dsos;

	for (size_t i = 0; i < rec->nr_streams; i++) {
		const struct rec_stream *s = &rec->streams[i];

		ARRAY_GROW(maps, alloc, nr_maps + s->nr_maps);
		if (s->nr_maps)
			memcpy(maps + nr_maps, s->maps, s->nr_maps * sizeof(*maps));
		nr_maps += s->nr_maps;
		kernel |= s->kernel_hit;
	}
	if (nr_maps)
		qsort(maps, nr_maps, sizeof(*maps), cmp_map);
	for (size_t i = 0; i < rec->nr_streams; i++) {
		const struct rec_stream *s = &rec->streams[i];

		for (size_t j = 0; j < s->nr_hits; j++) {
			const struct rec_hit *h = &s->hits[j];
			size_t lo = 0, hi = nr_maps;

			while (lo < hi) {	/* the last map of the pid starting at or below ip */
				size_t mid = lo + (hi - lo) / 2;
				const struct rec_map *m = &maps[mid];

				if (m->pid < h->pid || (m->pid == h->pid && m->start <= h->ip))
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo && maps[lo - 1].pid == h->pid && h->ip < maps[lo - 1].end) {
				ARRAY_GROW(paths, alloc_paths, nr_paths + 1);
				paths[nr_paths++] = maps[lo - 1].path;
			}
		}
	}
	if (nr_paths)
		qsort(paths, nr_paths, sizeof(*paths), cmp_path);
	dsos = xcalloc(nr_paths + 1, sizeof(*dsos));
	if (kernel) {
		dsos[nr].path = "[kernel.kallsyms]";
		dsos[nr].kernel = true;
		dsos[nr].size = kernel_build_id(dsos[nr].build_id);
		nr += dsos[nr].size > 0;
	}
	for (size_t i = 0; i < nr_paths; i++) {
		struct hit_dso *d = &dsos[nr];

		if (i && paths[i] == paths[i - 1])
			continue;
		d->path = paths[i];
		if (!strcmp(d->path, "[vdso]"))
			d->size = vdso_build_id(d->build_id);
		else if (d->path[0] == '/')
			d->size = symtab__filename_build_id(d->path, d->build_id);
		else
			d->size = -1;
		nr += d->size > 0;
	}
	free(paths);
	free(maps);
	*nr_out = nr;
	return dsos;
}

/* perf's write_build_id: one PERF_RECORD_HEADER_BUILD_ID record per dso. */
static void set_build_ids(struct perf_writer *w, const struct hit_dso *dsos, size_t nr)
{
	struct bytes b = { 0 };

	for (size_t i = 0; i < nr; i++) {
		struct perf_record_header_build_id r = { 0 };
		size_t len = strlen(dsos[i].path) + 1, padded = ALIGN_UP(len, 64);
		static const u8 zeros[64];

		r.header.type = PERF_RECORD_HEADER_BUILD_ID;
		r.header.misc = (dsos[i].kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER) |
				PERF_RECORD_MISC_BUILD_ID_SIZE;
		r.header.size = (u16)(sizeof(r) + padded);
		r.pid = -1;	/* perf's HOST_KERNEL_ID */
		memcpy(r.data, dsos[i].build_id, BUILD_ID_SIZE);
		r.size = (u8)dsos[i].size;
		bytes_put(&b, &r, sizeof(r));
		bytes_put(&b, dsos[i].path, len);
		bytes_put(&b, zeros, padded - len);
	}
	if (nr)
		perf_writer__set_feature(w, HEADER_BUILD_ID, b.data, b.len);
	free(b.data);
}

static void hex(const u8 *bid, int size, char *out)
{
	for (int i = 0; i < size; i++)
		sprintf(out + 2 * i, "%02x", bid[i]);
}

/* mkdir -p of PATH's directories (PATH itself included when DIR_TOO). */
static int mkdirs(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(path, 0755) && errno != EEXIST) {
			*p = '/';
			return -1;
		}
		*p = '/';
	}
	return 0;
}

/* Copy the file SRC (or SIZE bytes of DATA) to DST, 64 KiB at a time; an existing DST stays. */
static int copy_file(const char *dst, const char *src, const void *data, size_t size)
{
	int in = src ? open(src, O_RDONLY | O_CLOEXEC) : -1, out = -1, ret = -1;
	char buf[65536];

	if (src && in < 0)
		return -1;
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (out < 0) {
		ret = errno == EEXIST ? 0 : -1;
		goto out;
	}
	for (;;) {
		ssize_t n = src ? read(in, buf, sizeof(buf)) : (ssize_t)MIN(size, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = n < 0 ? -1 : 0;
			break;
		}
		if (!src) {
			memcpy(buf, data, (size_t)n);
			data = (const u8 *)data + n;
			size -= (size_t)n;
		}
		if (write(out, buf, (size_t)n) != n)
			break;
	}
	if (close(out))
		ret = -1;
	if (ret)
		unlink(dst);
out:
	if (in >= 0)
		close(in);
	return ret;
}

/* One dso into the cache: its copy (elf, kallsyms or vdso) and the .build-id link. */
static int cache_dso(const char *dir, const struct hit_dso *d)
{
	char bid[2 * BUILD_ID_SIZE + 1], path[PATH_MAX], link[PATH_MAX], target[PATH_MAX];
	const char *base = d->kernel ? "kallsyms" : !strcmp(d->path, "[vdso]") ? "vdso" : "elf";
	const char *sep = d->path[0] == '/' ? "" : "/";
	int ret;

	hex(d->build_id, d->size, bid);
	if (snprintf(path, sizeof(path), "%s%s%s/%s/%s", dir, sep, d->path, bid, base) >= (int)sizeof(path) ||
	    snprintf(link, sizeof(link), "%s/.build-id/%.2s/%s", dir, bid, bid + 2) >= (int)sizeof(link) ||
	    snprintf(target, sizeof(target), "../..%s%s/%s/%s", sep, d->path, bid, base) >= (int)sizeof(target))
		return -1;
	if (mkdirs(path) || mkdirs(link))
		return -1;
	if (d->kernel)
		ret = copy_file(path, "/proc/kallsyms", NULL, 0);
	else if (!strcmp(base, "vdso"))
		ret = copy_file(path, NULL, (const void *)getauxval(AT_SYSINFO_EHDR), 2 * 4096);
	else
		ret = copy_file(path, d->path, NULL, 0);
	if (!ret && symlink(target, link) && errno != EEXIST)
		ret = -1;
	return ret;
}

int record__write_features(struct recording *rec)
{
	struct perf_writer *w = rec->writer;
	struct utsname u;
	u64 first = 0, last = 0;
	int nr_cpus = (int)sysconf(_SC_NPROCESSORS_CONF);

	uname(&u);
	set_tracing_data(rec, w);
	free(rec->hit_dsos);	/* a pipe's features are set twice: at the start, at the end */
	rec->hit_dsos = hit_dsos(rec, &rec->nr_hit_dsos);
	set_build_ids(w, rec->hit_dsos, rec->nr_hit_dsos);
	perf_writer__set_string(w, HEADER_HOSTNAME, u.nodename);
	perf_writer__set_string(w, HEADER_OSRELEASE, u.release);
	perf_writer__set_string(w, HEADER_VERSION, "6.1 (analyze record)");
	perf_writer__set_string(w, HEADER_ARCH, u.machine);
	perf_writer__set_nrcpus(w, (u32)nr_cpus, (u32)sysconf(_SC_NPROCESSORS_ONLN));
	set_cpudesc(w);
	set_cpuid(w);
	set_total_mem(w);
	perf_writer__set_cmdline(w, (size_t)rec->cmdline_argc, rec->cmdline_argv);
	set_topology(w, nr_cpus);
	for (size_t i = 0; i < rec->nr_streams; i++) {
		const struct rec_stream *s = &rec->streams[i];

		if (s->first_time && (!first || s->first_time < first))
			first = s->first_time;
		last = MAX(last, s->last_time);
	}
	perf_writer__set_sample_time(w, first, last);
	if (rec->threads) {
		u64 version = 1;

		perf_writer__set_feature(w, HEADER_DIR_FORMAT, &version, sizeof(version));
	}
	if (rec->zstd_level) {
		u64 in = 0, out = 0;
		u32 c[5] = { 0, 1 /* zstd */, (u32)rec->zstd_level, 0,
			     (u32)((rec->mmap_pages + 1) * rec->page_size) };

		for (size_t i = 0; i < rec->nr_streams; i++) {
			in += rec->streams[i].bytes_in;
			out += rec->streams[i].bytes_out;
		}
		c[3] = out ? (u32)((in + out / 2) / out) : 0;
		perf_writer__set_feature(w, HEADER_COMPRESSED, c, sizeof(c));
	}
	return 0;
}

/* perf record's build-id cache update; --buildid-dir (or $PERF_BUILDID_DIR, ~/.debug). */
int record__cache_build_ids(struct recording *rec)
{
	int ret = 0;

	for (size_t i = 0; i < rec->nr_hit_dsos; i++) {
		if (cache_dso(rec->buildid_dir, &rec->hit_dsos[i]))
			ret = -1;
	}
	return ret;
}
