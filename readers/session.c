/*
 * session: open a perf.data file, validate its header and sections, and walk its records in
 * perf's delivery order. Every offset and size read from the file is checked against the
 * mapping before use; problems are reported with the file name and byte offset.
 */
#include "readers/session.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/xalloc.h"
#include "readers/order.h"
#include "readers/decode/swap.h"
#include "readers/decode/tracing_data.h"

static const char *const event_names[PERF_RECORD_HEADER_MAX] = {
	[0] = "TOTAL",
	[PERF_RECORD_MMAP] = "MMAP",
	[PERF_RECORD_LOST] = "LOST",
	[PERF_RECORD_COMM] = "COMM",
	[PERF_RECORD_EXIT] = "EXIT",
	[PERF_RECORD_THROTTLE] = "THROTTLE",
	[PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE",
	[PERF_RECORD_FORK] = "FORK",
	[PERF_RECORD_READ] = "READ",
	[PERF_RECORD_SAMPLE] = "SAMPLE",
	[PERF_RECORD_MMAP2] = "MMAP2",
	[PERF_RECORD_AUX] = "AUX",
	[PERF_RECORD_ITRACE_START] = "ITRACE_START",
	[PERF_RECORD_LOST_SAMPLES] = "LOST_SAMPLES",
	[PERF_RECORD_SWITCH] = "SWITCH",
	[PERF_RECORD_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE",
	[PERF_RECORD_NAMESPACES] = "NAMESPACES",
	[PERF_RECORD_KSYMBOL] = "KSYMBOL",
	[PERF_RECORD_BPF_EVENT] = "BPF_EVENT",
	[PERF_RECORD_CGROUP] = "CGROUP",
	[PERF_RECORD_TEXT_POKE] = "TEXT_POKE",
	[PERF_RECORD_AUX_OUTPUT_HW_ID] = "AUX_OUTPUT_HW_ID",
	[PERF_RECORD_HEADER_ATTR] = "ATTR",
	[PERF_RECORD_HEADER_EVENT_TYPE] = "EVENT_TYPE",
	[PERF_RECORD_HEADER_TRACING_DATA] = "TRACING_DATA",
	[PERF_RECORD_HEADER_BUILD_ID] = "BUILD_ID",
	[PERF_RECORD_FINISHED_ROUND] = "FINISHED_ROUND",
	[PERF_RECORD_ID_INDEX] = "ID_INDEX",
	[PERF_RECORD_AUXTRACE_INFO] = "AUXTRACE_INFO",
	[PERF_RECORD_AUXTRACE] = "AUXTRACE",
	[PERF_RECORD_AUXTRACE_ERROR] = "AUXTRACE_ERROR",
	[PERF_RECORD_THREAD_MAP] = "THREAD_MAP",
	[PERF_RECORD_CPU_MAP] = "CPU_MAP",
	[PERF_RECORD_STAT_CONFIG] = "STAT_CONFIG",
	[PERF_RECORD_STAT] = "STAT",
	[PERF_RECORD_STAT_ROUND] = "STAT_ROUND",
	[PERF_RECORD_EVENT_UPDATE] = "EVENT_UPDATE",
	[PERF_RECORD_TIME_CONV] = "TIME_CONV",
	[PERF_RECORD_HEADER_FEATURE] = "FEATURE",
	[PERF_RECORD_COMPRESSED] = "COMPRESSED",
	[PERF_RECORD_FINISHED_INIT] = "FINISHED_INIT",
};

const char *perf_event__name(u32 type)
{
	if (type >= PERF_RECORD_HEADER_MAX || !event_names[type])
		return "UNKNOWN";
	return event_names[type];
}

void perf_session__warn_data(struct perf_session *s, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (!msg)
		return;
	s->data_warnings = xreallocarray(s->data_warnings, s->nr_data_warnings + 1,
					 sizeof(*s->data_warnings));
	s->data_warnings[s->nr_data_warnings++] = msg;
}

u64 perf_session__data_bytes(const struct perf_session *s)
{
	u64 bytes = s->is_pipe ? 0 : s->header.data.size;

	for (size_t i = 0; i < s->nr_dir_files; i++)
		bytes += s->dir_files[i].size;
	return bytes;
}

bool perf_session__has_feat(const struct perf_session *s, int feat)
{
	return feat > 0 && feat < HEADER_FEAT_BITS &&
	       (s->header.adds_features[feat / 64] >> (feat % 64)) & 1;
}

const u8 *perf_session__feat(const struct perf_session *s, int feat, size_t *size)
{
	if (!perf_session__has_feat(s, feat))
		return NULL;
	*size = s->feat[feat].size;
	if (s->is_pipe)
		return s->feat_copy[feat];
	return s->base + s->feat[feat].offset;
}

const u8 *perf_session__tracing_data(const struct perf_session *s, size_t *size, u64 *offset)
{
	if (s->is_pipe && s->tracing_data) {
		*size = s->tracing_data_size;
		*offset = s->tracing_data_offset;
		return s->tracing_data;
	}
	*offset = s->feat[HEADER_TRACING_DATA].offset;
	return perf_session__feat(s, HEADER_TRACING_DATA, size);
}

/* Is [offset, offset + size) inside the file? */
static bool in_file(const struct perf_session *s, u64 offset, u64 size)
{
	return offset <= s->size && size <= s->size - offset;
}

static int fail_section(const struct perf_session *s, u64 where, const char *what,
			const struct perf_file_section *sec)
{
	error_set("%s: offset %#llx: %s section [%#llx, +%#llx] lies outside the file (%zu bytes)",
		  s->data_path, (unsigned long long)where, what, (unsigned long long)sec->offset,
		  (unsigned long long)sec->size, s->size);
	return -1;
}

static int read_header(struct perf_session *s)
{
	struct perf_file_header *h = &s->header;

	if (s->size < sizeof(u64)) {
		error_set("%s: offset 0: file too short for a perf.data header (%zu bytes)",
			  s->data_path, s->size);
		return -1;
	}
	memcpy(&h->magic, s->base, sizeof(u64));
	if (h->magic == PERF_MAGIC2_SWAPPED) {
		s->swap = true;
	} else if (h->magic != PERF_MAGIC2) {
		error_set("%s: offset 0: not a perf.data file (bad magic %#llx)", s->data_path,
			  (unsigned long long)h->magic);
		return -1;
	}
	if (s->size < 2 * sizeof(u64)) {
		error_set("%s: offset 0x8: file too short for a perf.data header (%zu bytes)",
			  s->data_path, s->size);
		return -1;
	}
	memcpy(&h->size, s->base + 8, sizeof(u64));
	if (s->swap)
		h->size = __builtin_bswap64(h->size);
	if (s->size < sizeof(*h)) {
		error_set("%s: offset %#zx: file too short for a perf.data header (%zu of %zu bytes)",
			  s->data_path, s->size, s->size, sizeof(*h));
		return -1;
	}
	memcpy(h, s->base, sizeof(*h));
	if (s->swap)
		swap_file_header(h);
	if (h->size != sizeof(*h)) {
		error_set("%s: offset 0x8: unsupported header size %llu (expected %zu)", s->data_path,
			  (unsigned long long)h->size, sizeof(*h));
		return -1;
	}
	if (!in_file(s, h->attrs.offset, h->attrs.size))
		return fail_section(s, 0x18, "attrs", &h->attrs);
	if (!in_file(s, h->data.offset, h->data.size))
		return fail_section(s, 0x28, "data", &h->data);
	return 0;
}

#define MAX_ID_SPAN (1u << 20)

/*
 * perf's sample ids are allocated in sequence, so a file's ids span a small range: look
 * them up in a table over that range (bounded; ids outside it go to the hashmap). Runs
 * before the attrs are checked: ids sections outside the file are just not looked at.
 */
static void set_id_window(struct perf_session *s, u64 attrs_off, u64 nr, u64 entry)
{
	u64 min = UINT64_MAX, max = 0, total = 0;

	for (u64 i = 0; i < nr; i++) {
		struct perf_file_section ids;
		u64 off = attrs_off + (i + 1) * entry - sizeof(ids);

		if (off > s->size || sizeof(ids) > s->size - off)
			return;
		memcpy(&ids, s->base + off, sizeof(ids));
		if (s->swap)
			swap_file_section(&ids);
		if (ids.offset > s->size || ids.size > s->size - ids.offset)
			continue;
		total += ids.size;
		if (total > s->size)	/* read_attrs refuses it */
			return;
		for (u64 k = 0; k < ids.size / 8; k++) {
			u64 id;

			memcpy(&id, s->base + ids.offset + k * 8, 8);
			if (s->swap)
				id = __builtin_bswap64(id);
			min = MIN(min, id);
			max = MAX(max, id);
		}
	}
	if (min > max || max - min >= MAX_ID_SPAN)
		return;
	s->id_base = min;
	s->id_span = max - min + 1;
	s->id_table = xcalloc(s->id_span, sizeof(*s->id_table));
}

static int read_attrs(struct perf_session *s)
{
	const struct perf_file_header *h = &s->header;
	u64 entry = h->attr_size, nr, off, ids_total = 0;

	if (entry < sizeof(struct perf_file_section) + PERF_ATTR_SIZE_VER0 || entry > 4096) {
		error_set("%s: offset 0x10: bad attr_size %llu", s->data_path, (unsigned long long)entry);
		return -1;
	}
	if (h->attrs.size % entry) {
		error_set("%s: offset 0x20: attrs section size %llu is not a multiple of attr_size %llu",
			  s->data_path, (unsigned long long)h->attrs.size, (unsigned long long)entry);
		return -1;
	}
	nr = h->attrs.size / entry;
	if (nr == 0) {
		error_set("%s: offset 0x20: the file has no event attributes", s->data_path);
		return -1;
	}
	s->evsels = xcalloc(nr, sizeof(*s->evsels));
	s->nr_evsels = nr;
	set_id_window(s, h->attrs.offset, nr, entry);
	/*
	 * perf's read_attr: each attr is as long as its own size field says (0: the first ABI),
	 * and its ids section follows it directly; nr comes from attr_size.
	 */
	off = h->attrs.offset;
	for (u64 i = 0; i < nr; i++) {
		struct evsel *ev = &s->evsels[i];
		struct perf_file_section ids;
		u8 *raw = s->base + off;
		u64 *w;
		u32 sz;

		if (h->attrs.offset + h->attrs.size - off < PERF_ATTR_SIZE_VER0) {
			error_set("%s: offset %#llx: attr %llu runs past the attrs section", s->data_path,
				  (unsigned long long)off, (unsigned long long)i);
			return -1;
		}
		memcpy(&sz, raw + offsetof(struct perf_event_attr, size), sizeof(sz));
		if (s->swap)
			sz = __builtin_bswap32(sz);
		if (sz == 0)
			sz = PERF_ATTR_SIZE_VER0;
		if (sz < PERF_ATTR_SIZE_VER0 || sz % 8 ||
		    h->attrs.offset + h->attrs.size - off < (u64)sz + sizeof(ids)) {
			error_set("%s: offset %#llx: attr %llu has a bad size %u", s->data_path,
				  (unsigned long long)off, (unsigned long long)i, sz);
			return -1;
		}
		if (s->swap) {
			swap_attr(raw, sz);
			swap_file_section((struct perf_file_section *)(raw + sz));
		}
		/* a newer ABI's extra fields are ignored; older ones leave ours zero */
		memcpy(&ev->attr, raw, MIN((size_t)sz, sizeof(ev->attr)));
		ev->attr.size = sz;
		sample_layout_init(&ev->layout, &ev->attr);
		memcpy(&ids, raw + sz, sizeof(ids));
		if (!in_file(s, ids.offset, ids.size) || ids.size % sizeof(u64))
			return fail_section(s, off + sz, "attr ids", &ids);
		/*
		 * perf writes each attr's ids apart: ids sections that together claim more than
		 * the file holds overlap, and would cost their sum (copies, lookups) per attr.
		 */
		ids_total += ids.size;
		if (ids_total > s->size) {
			error_set("%s: offset %#llx: the attrs' ids sections claim %llu bytes, more than the file holds (%zu bytes)",
				  s->data_path, (unsigned long long)(off + sz),
				  (unsigned long long)ids_total, s->size);
			return -1;
		}
		off += sz + sizeof(ids);
		if (ids.offset % sizeof(u64)) {	/* perf never writes them so: copy them */
			ev->ids_owned = xmalloc(ids.size + 1);
			memcpy(ev->ids_owned, s->base + ids.offset, ids.size);
			w = ev->ids_owned;
		} else {
			w = (u64 *)(s->base + ids.offset);
		}
		ev->ids = w;
		ev->nr_ids = ids.size / sizeof(u64);
		if (s->swap)
			for (size_t k = 0; k < ev->nr_ids; k++)
				w[k] = __builtin_bswap64(w[k]);
		ev->idx = (int)i;
		for (size_t k = 0; k < ev->nr_ids; k++)
			perf_session__register_id(s, ev->ids[k], ev);
	}
	s->id_pos = sample_id_pos(s->evsels[0].attr.sample_type);
	s->is_pos = sample_is_pos(s->evsels[0].attr.sample_type);
	return 0;
}

static int read_feature_table(struct perf_session *s)
{
	u64 off = s->header.data.offset + s->header.data.size;

	for (int bit = 1; bit < HEADER_FEAT_BITS; bit++) {
		struct perf_file_section *sec = &s->feat[bit];

		if (!perf_session__has_feat(s, bit))
			continue;
		if (!in_file(s, off, sizeof(*sec))) {
			error_set("%s: offset %#llx: feature table entry for feature %d lies outside the file (%zu bytes)",
				  s->data_path, (unsigned long long)off, bit, s->size);
			return -1;
		}
		memcpy(sec, s->base + off, sizeof(*sec));
		if (s->swap)
			swap_file_section(sec);
		if (!in_file(s, sec->offset, sec->size))
			return fail_section(s, off, "feature", sec);
		if (s->swap && swap_feature(bit, s->base + sec->offset, sec->size, true)) {
			error_set("%s: offset %#llx: malformed feature section %d", s->data_path,
				  (unsigned long long)sec->offset, bit);
			return -1;
		}
		off += sizeof(*sec);
	}
	return 0;
}

void perf_session__register_id(struct perf_session *s, u64 id, struct evsel *ev)
{
	if (id - s->id_base < s->id_span)
		s->id_table[id - s->id_base] = ev;
	else
		hashmap_insert(&s->id_map, id, ev);
}

struct evsel *perf_session__evsel_by_id(const struct perf_session *s, u64 id)
{
	if (id - s->id_base < s->id_span)
		return s->id_table[id - s->id_base];
	return hashmap_find(&s->id_map, id);
}

/* Read a perf string (u32 len, padded bytes) at *pos within [.., end). */
static const char *read_string(const u8 **pos, const u8 *end)
{
	u32 len;
	const char *str;

	if (end - *pos < 4)
		return NULL;
	memcpy(&len, *pos, 4);
	if (len > (u64)(end - *pos - 4))
		return NULL;
	str = (const char *)*pos + 4;
	if (len == 0 || strnlen(str, len) == len)
		return NULL;
	*pos += 4 + len;
	return str;
}

void perf_session__name_tracepoints(struct perf_session *s)
{
	struct tracing_data td;
	size_t size = 0;
	u64 offset = 0;
	const u8 *data;
	bool unnamed = false;

	for (size_t i = 0; i < s->nr_evsels; i++)
		unnamed |= s->evsels[i].attr.type == PERF_TYPE_TRACEPOINT && !s->evsels[i].name;
	data = unnamed ? perf_session__tracing_data(s, &size, &offset) : NULL;
	if (!data)
		return;
	if (!tracing_data__parse(&td, data, size, offset, s->path)) {
		for (size_t i = 0; i < s->nr_evsels; i++) {
			struct evsel *ev = &s->evsels[i];
			char name[128];	/* perf's */

			if (ev->attr.type == PERF_TYPE_TRACEPOINT && !ev->name &&
			    tracing_data__event_name(&td, ev->attr.config, name, sizeof(name)))
				ev->name = xstrdup(name);
		}
	}
	tracing_data__exit(&td);
}

/* EVENT_DESC: u32 nr, u32 attr_size, then nr * { attr, u32 nr_ids, string name, u64 ids[] } */
void perf_session__read_event_names(struct perf_session *s)
{
	size_t size = 0;
	const u8 *p = perf_session__feat(s, HEADER_EVENT_DESC, &size), *end;
	u32 nr, attr_size;

	if (!p || size < 8)
		return;
	end = p + size;
	memcpy(&nr, p, 4);
	memcpy(&attr_size, p + 4, 4);
	p += 8;
	for (u32 i = 0; i < nr; i++) {
		u32 nr_ids;
		const char *name;
		struct evsel *ev = NULL;

		if ((u64)(end - p) < (u64)attr_size + 4)
			return;
		p += attr_size;
		memcpy(&nr_ids, p, 4);
		p += 4;
		name = read_string(&p, end);
		if (!name || nr_ids > (u64)(end - p) / 8)
			return;
		if (nr_ids) {
			u64 id;

			memcpy(&id, p, 8);
			ev = perf_session__evsel_by_id(s, id);
		} else if (i < s->nr_evsels) {
			ev = &s->evsels[i];
		}
		p += (u64)nr_ids * 8;
		if (ev && !ev->name)
			ev->name = xstrdup(name);
	}
}

static int map_file(struct perf_session *s, int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		error_set("%s: not a regular file", s->data_path);
		return -1;
	}
	s->size = st.st_size;
	if (!s->size)
		return 0;
	s->base = mmap(NULL, s->size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (s->base == MAP_FAILED) {
		s->base = NULL;
		error_set("%s: cannot map the file: %s", s->data_path, strerror(errno));
		return -1;
	}
	return 0;
}

/* N of a file named data.N, or -1. */
static long data_file_number(const char *name)
{
	char *end;
	long n;

	if (strncmp(name, "data.", 5) || name[5] < '0' || name[5] > '9')
		return -1;
	n = strtol(name + 5, &end, 10);
	return *end || n > 1 << 20 ? -1 : n;
}

/*
 * perf_data__open_dir: the regular files named data.* in readdir order (perf's order). Those
 * that cannot be read are left out with a warning, and so are the numbers missing below the
 * highest data.N (perf numbers them from 0, one a writing thread; a missing last one leaves
 * no trace).
 */
static int open_dir(struct perf_session *s)
{
	DIR *dir = opendir(s->path);
	struct dirent *d;
	size_t alloc = 0;
	long max = -1;
	u8 *seen = NULL;
	size_t seen_size = 0;

	if (!dir) {
		error_set("%s: %s", s->path, strerror(errno));
		return -1;
	}
	while ((d = readdir(dir))) {
		long n = data_file_number(d->d_name);
		const char *why;
		struct stat st;
		char *file;
		int fd;

		if (strncmp(d->d_name, "data.", 5))
			continue;
		if (n >= 0) {
			ARRAY_GROW_ZEROED(seen, seen_size, (size_t)n + 1);
			seen[n] = 1;
			max = MAX(max, n);
		}
		if (asprintf(&file, "%s/%s", s->path, d->d_name) < 0) {
			closedir(dir);
			free(seen);
			error_set("%s: out of memory", s->path);
			return -1;
		}
		why = NULL;
		if (stat(file, &st))
			why = strerror(errno);
		else if (!S_ISREG(st.st_mode))
			why = "not a regular file";
		else if ((fd = open(file, O_RDONLY)) < 0)
			why = strerror(errno);
		else
			close(fd);
		if (why) {
			perf_session__warn_data(s, "%s: %s: its records are not in the output", file,
						why);
			free(file);
			continue;
		}
		ARRAY_GROW(s->dir_files, alloc, s->nr_dir_files + 1);
		s->dir_files[s->nr_dir_files++] = (struct data_file){ file, (u64)st.st_size };
	}
	closedir(dir);
	for (long n = 0; n < max; n++)
		if (!seen[n])
			perf_session__warn_data(s, "%s/data.%ld: missing (the directory has data.%ld): its records are not in the output",
						s->path, n, max);
	free(seen);
	return 0;
}

static int open_pipe(struct perf_session *s, int fd)
{
	u8 buf[PERF_PIPE_HEADER_SIZE];
	size_t have = 0;
	u64 magic, size;

	while (have < sizeof(buf)) {
		ssize_t n = read(fd, buf + have, sizeof(buf) - have);

		if (n <= 0) {
			error_set("%s: offset %#zx: file too short for a perf.data header (%zu bytes)",
				  s->path, have, have);
			return -1;
		}
		have += n;
	}
	memcpy(&magic, buf, 8);
	memcpy(&size, buf + 8, 8);
	if (magic == PERF_MAGIC2_SWAPPED) {
		s->swap = true;
		size = __builtin_bswap64(size);
	} else if (magic != PERF_MAGIC2) {
		error_set("%s: offset 0: not a perf.data file (bad magic %#llx)", s->path,
			  (unsigned long long)magic);
		return -1;
	}
	if (size != PERF_PIPE_HEADER_SIZE) {
		error_set("%s: offset 0x8: unsupported header size %llu for a stream", s->path,
			  (unsigned long long)size);
		return -1;
	}
	s->is_pipe = true;
	s->pipe_fd = fd;
	s->header.magic = PERF_MAGIC2;
	s->header.size = size;
	s->evsels = xcalloc(MAX_PIPE_EVSELS, sizeof(*s->evsels));
	s->id_pos = s->is_pos = -1;
	return 0;
}

int perf_session__open(struct perf_session *s, const char *path)
{
	struct stat st;
	u64 head[2];
	ssize_t n;
	int fd;

	memset(s, 0, sizeof(*s));
	s->path = path;
	s->pipe_fd = -1;
	hashmap_init(&s->id_map);
	if (strcmp(path, "-") == 0)
		return open_pipe(s, 0);
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		s->is_dir = true;
		if (asprintf(&s->data_path, "%s/data", path) < 0)
			s->data_path = NULL;
	} else {
		s->data_path = xstrdup(path);
	}
	if (!s->data_path)
		return error_set("%s: out of memory", path), -1;
	fd = open(s->data_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		error_set("%s: %s", s->data_path, strerror(errno));
		goto fail;
	}
	/* a pipe-mode file (16-byte header) is read as a stream */
	n = pread(fd, head, sizeof(head), 0);
	if (!s->is_dir && n == sizeof(head) &&
	    (head[0] == PERF_MAGIC2 || head[0] == PERF_MAGIC2_SWAPPED) &&
	    (head[1] == PERF_PIPE_HEADER_SIZE ||
	     __builtin_bswap64(head[1]) == PERF_PIPE_HEADER_SIZE)) {
		if (lseek(fd, 0, SEEK_SET) < 0 || open_pipe(s, fd)) {
			close(fd);
			goto fail;
		}
		return 0;
	}
	if (map_file(s, fd)) {
		close(fd);
		goto fail;
	}
	close(fd);	/* the mapping keeps the file */
	if (read_header(s) || read_attrs(s) || read_feature_table(s))
		goto fail;
	if (s->is_dir && open_dir(s))
		goto fail;
	if (s->is_dir && s->swap) {
		error_set("%s: opposite-endian data directories are not supported", path);
		goto fail;
	}
	perf_session__read_event_names(s);
	perf_session__name_tracepoints(s);
	return 0;
fail:
	perf_session__close(s);
	return -1;
}

void perf_session__close(struct perf_session *s)
{
	if (s->base)
		munmap(s->base, s->size);
	if (s->pipe_fd > 0)
		close(s->pipe_fd);
	s->pipe_fd = -1;
	for (size_t i = 0; i < s->nr_dir_files; i++)
		free(s->dir_files[i].path);
	free(s->dir_files);
	for (size_t i = 0; i < s->nr_data_warnings; i++)
		free(s->data_warnings[i]);
	free(s->data_warnings);
	s->data_warnings = NULL;
	s->nr_data_warnings = 0;
	s->dir_files = NULL;
	s->nr_dir_files = 0;
	for (int i = 0; i < HEADER_FEAT_BITS; i++) {
		free(s->feat_copy[i]);
		s->feat_copy[i] = NULL;
	}
	free(s->tracing_data);
	s->tracing_data = NULL;
	s->tracing_data_size = 0;
	free(s->data_path);
	s->data_path = NULL;
	/* a pipe's samples may name an evsel before its attr came: every slot may have a name */
	for (size_t i = 0; s->evsels && i < (s->is_pipe ? MAX_PIPE_EVSELS : s->nr_evsels); i++) {
		free(s->evsels[i].name);
		free(s->evsels[i].ids_owned);
	}
	free(s->evsels);
	hashmap_exit(&s->id_map);
	free(s->id_table);
	s->id_table = NULL;
	s->id_span = 0;
	s->base = NULL;
	s->evsels = NULL;
	s->nr_evsels = 0;
}

/* perf's evlist__event2evsel: map a record to its attr by the id it carries. */
struct evsel *perf_session__evsel_of(struct perf_session *s, const struct perf_event_header *event)
{
	struct evsel *first = &s->evsels[0];
	const u64 *words = (const u64 *)(event + 1);
	size_t nr_words = (event->size - sizeof(*event)) / sizeof(u64);
	u64 id;

	if (s->nr_evsels == 1)
		return first;
	if (event->type == PERF_RECORD_SAMPLE) {
		if (s->id_pos < 0 || (size_t)s->id_pos >= nr_words)
			return first;
		id = words[s->id_pos];
	} else {
		if (!first->attr.sample_id_all)
			return first;
		if (s->is_pos < 0 || (size_t)s->is_pos > nr_words)
			return first;
		id = words[nr_words - s->is_pos];
	}
	if (!id)
		return first;
	return perf_session__evsel_by_id(s, id);
}
