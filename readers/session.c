/*
 * session: open a perf.data file, validate its header and sections, and walk its records in
 * perf's delivery order. Every offset and size read from the file is checked against the
 * mapping before use; problems are reported with the file name and byte offset.
 */
#include "readers/session.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/xalloc.h"
#include "readers/order.h"
#include "readers/swap.h"

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

bool perf_session__has_feat(const struct perf_session *s, int feat)
{
	return feat > 0 && feat < HEADER_FEAT_BITS &&
	       (s->header.adds_features[feat / 64] >> (feat % 64)) & 1;
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
		  s->path, (unsigned long long)where, what, (unsigned long long)sec->offset,
		  (unsigned long long)sec->size, s->size);
	return -1;
}

static int read_header(struct perf_session *s)
{
	struct perf_file_header *h = &s->header;

	if (s->size < sizeof(u64)) {
		error_set("%s: offset 0: file too short for a perf.data header (%zu bytes)",
			  s->path, s->size);
		return -1;
	}
	memcpy(&h->magic, s->base, sizeof(u64));
	if (h->magic == PERF_MAGIC2_SWAPPED) {
		s->swap = true;
	} else if (h->magic != PERF_MAGIC2) {
		error_set("%s: offset 0: not a perf.data file (bad magic %#llx)", s->path,
			  (unsigned long long)h->magic);
		return -1;
	}
	if (s->size < 2 * sizeof(u64)) {
		error_set("%s: offset 0x8: file too short for a perf.data header (%zu bytes)",
			  s->path, s->size);
		return -1;
	}
	memcpy(&h->size, s->base + 8, sizeof(u64));
	if (s->swap)
		h->size = __builtin_bswap64(h->size);
	if (h->size == PERF_PIPE_HEADER_SIZE) {
		error_set("%s: offset 0x8: pipe-mode data is not supported yet", s->path);
		return -1;
	}
	if (s->size < sizeof(*h)) {
		error_set("%s: offset %#zx: file too short for a perf.data header (%zu of %zu bytes)",
			  s->path, s->size, s->size, sizeof(*h));
		return -1;
	}
	memcpy(h, s->base, sizeof(*h));
	if (s->swap)
		swap_file_header(h);
	if (h->size != sizeof(*h)) {
		error_set("%s: offset 0x8: unsupported header size %llu (expected %zu)", s->path,
			  (unsigned long long)h->size, sizeof(*h));
		return -1;
	}
	if (!in_file(s, h->attrs.offset, h->attrs.size))
		return fail_section(s, 0x18, "attrs", &h->attrs);
	if (!in_file(s, h->data.offset, h->data.size))
		return fail_section(s, 0x28, "data", &h->data);
	return 0;
}

static int read_attrs(struct perf_session *s)
{
	const struct perf_file_header *h = &s->header;
	u64 entry = h->attr_size, nr, off;

	if (entry < sizeof(struct perf_file_section) + PERF_ATTR_SIZE_VER0 || entry > 4096) {
		error_set("%s: offset 0x10: bad attr_size %llu", s->path, (unsigned long long)entry);
		return -1;
	}
	if (h->attrs.size % entry) {
		error_set("%s: offset 0x20: attrs section size %llu is not a multiple of attr_size %llu",
			  s->path, (unsigned long long)h->attrs.size, (unsigned long long)entry);
		return -1;
	}
	nr = h->attrs.size / entry;
	if (nr == 0) {
		error_set("%s: offset 0x20: the file has no event attributes", s->path);
		return -1;
	}
	s->evsels = xcalloc(nr, sizeof(*s->evsels));
	s->small_ids = xcalloc(SMALL_IDS, sizeof(*s->small_ids));
	s->nr_evsels = nr;
	/*
	 * perf's read_attr: each attr is as long as its own size field says (0: the first ABI),
	 * and its ids section follows it directly; nr comes from attr_size.
	 */
	off = h->attrs.offset;
	for (u64 i = 0; i < nr; i++) {
		struct evsel *ev = &s->evsels[i];
		struct perf_file_section ids;
		u8 *raw = s->base + off;
		u32 sz;

		if (h->attrs.offset + h->attrs.size - off < PERF_ATTR_SIZE_VER0) {
			error_set("%s: offset %#llx: attr %llu runs past the attrs section", s->path,
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
			error_set("%s: offset %#llx: attr %llu has a bad size %u", s->path,
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
		memcpy(&ids, raw + sz, sizeof(ids));
		if (!in_file(s, ids.offset, ids.size) || ids.size % sizeof(u64))
			return fail_section(s, off + sz, "attr ids", &ids);
		off += sz + sizeof(ids);
		ev->ids = (const u64 *)(s->base + ids.offset);
		ev->nr_ids = ids.size / sizeof(u64);
		if (s->swap) {
			u64 *w = (u64 *)(s->base + ids.offset);

			for (size_t k = 0; k < ev->nr_ids; k++)
				w[k] = __builtin_bswap64(w[k]);
		}
		ev->idx = (int)i;
		for (size_t k = 0; k < ev->nr_ids; k++) {
			if (ev->ids[k] < SMALL_IDS)
				s->small_ids[ev->ids[k]] = ev;
			else
				hashmap_insert(&s->id_map, ev->ids[k], ev);
		}
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
				  s->path, (unsigned long long)off, bit, s->size);
			return -1;
		}
		memcpy(sec, s->base + off, sizeof(*sec));
		if (s->swap)
			swap_file_section(sec);
		if (!in_file(s, sec->offset, sec->size))
			return fail_section(s, off, "feature", sec);
		if (s->swap && swap_feature(bit, s->base + sec->offset, sec->size, true)) {
			error_set("%s: offset %#llx: malformed feature section %d", s->path,
				  (unsigned long long)sec->offset, bit);
			return -1;
		}
		off += sizeof(*sec);
	}
	return 0;
}

static struct evsel *evsel_by_id(const struct perf_session *s, u64 id)
{
	if (id < SMALL_IDS)
		return s->small_ids[id];
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

/* EVENT_DESC: u32 nr, u32 attr_size, then nr * { attr, u32 nr_ids, string name, u64 ids[] } */
static void read_event_names(struct perf_session *s)
{
	const struct perf_file_section *sec = &s->feat[HEADER_EVENT_DESC];
	const u8 *p = s->base + sec->offset, *end = p + sec->size;
	u32 nr, attr_size;

	if (!perf_session__has_feat(s, HEADER_EVENT_DESC) || sec->size < 8)
		return;
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
			ev = evsel_by_id(s, id);
		} else if (i < s->nr_evsels) {
			ev = &s->evsels[i];
		}
		p += (u64)nr_ids * 8;
		if (ev && !ev->name)
			ev->name = xstrdup(name);
	}
}

int perf_session__open(struct perf_session *s, const char *path)
{
	struct stat st;
	int fd;

	memset(s, 0, sizeof(*s));
	s->path = path;
	hashmap_init(&s->id_map);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		error_set("%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		error_set("%s: not a regular file", path);
		close(fd);
		return -1;
	}
	s->size = st.st_size;
	if (s->size) {
		s->base = mmap(NULL, s->size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
		if (s->base == MAP_FAILED) {
			s->base = NULL;
			error_set("%s: cannot map the file: %s", path, strerror(errno));
			close(fd);
			return -1;
		}
	}
	close(fd);
	if (read_header(s) || read_attrs(s) || read_feature_table(s)) {
		perf_session__close(s);
		return -1;
	}
	read_event_names(s);
	return 0;
}

void perf_session__close(struct perf_session *s)
{
	if (s->base)
		munmap(s->base, s->size);
	for (size_t i = 0; i < s->nr_evsels; i++)
		free(s->evsels[i].name);
	free(s->evsels);
	hashmap_exit(&s->id_map);
	free(s->small_ids);
	s->small_ids = NULL;
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
	return evsel_by_id(s, id);
}

struct walk {
	struct perf_session *session;
	struct event_consumer *consumer;
	struct ordered_queue queue;
	int error;	/* -1 once error_get() holds a parse error */
};

static int deliver_one(struct walk *w, struct perf_event_header *event, u64 file_offset)
{
	struct event_ctx ctx = { .event = event, .file_offset = file_offset };
	struct perf_session *s = w->session;

	if (event->type < PERF_RECORD_USER_TYPE_START) {
		ctx.evsel = perf_session__evsel_of(s, event);
		if (!ctx.evsel) {
			error_set("%s: offset %#llx: %s record carries an id that matches no event",
				  s->path, (unsigned long long)file_offset,
				  perf_event__name(event->type));
			w->error = -1;
			return -1;
		}
		if (sample_parse(&ctx.evsel->attr, event, &ctx.sample)) {
			error_set("%s: offset %#llx: %s record of %u bytes is too short for its sample_type %#llx",
				  s->path, (unsigned long long)file_offset,
				  perf_event__name(event->type), event->size,
				  (unsigned long long)ctx.evsel->attr.sample_type);
			w->error = -1;
			return -1;
		}
	}
	return w->consumer->deliver(w->consumer, &ctx);
}

static int deliver_queued(void *data, struct ordered_entry *e)
{
	return deliver_one(data, e->event, e->file_offset);
}

/* The timestamp ordering uses: 0 or ~0 means "deliver now", as perf does. */
static u64 event_timestamp(struct perf_session *s, struct perf_event_header *event,
			   struct evsel **evsel_out)
{
	struct evsel *ev = perf_session__evsel_of(s, event);

	*evsel_out = ev;
	if (!ev)
		return (u64)-1;	/* reported when delivered */
	return sample_time(&ev->attr, event);
}

static int swap_record(struct perf_session *s, struct perf_event_header *event, u64 offset)
{
	const struct perf_event_attr *attr = NULL;

	if (event->type < PERF_RECORD_USER_TYPE_START) {
		/* Find the attr from the id while the body is still foreign-endian. */
		u64 *words = (u64 *)(event + 1);
		size_t nr_words = (event->size - sizeof(*event)) / sizeof(u64);
		struct evsel *ev = NULL;
		u64 id;

		if (s->nr_evsels == 1) {
			ev = &s->evsels[0];
		} else if (event->type == PERF_RECORD_SAMPLE && s->id_pos >= 0 &&
			   (size_t)s->id_pos < nr_words) {
			id = __builtin_bswap64(words[s->id_pos]);
			ev = id ? evsel_by_id(s, id) : &s->evsels[0];
		} else if (event->type != PERF_RECORD_SAMPLE && s->evsels[0].attr.sample_id_all &&
			   s->is_pos >= 0 && (size_t)s->is_pos <= nr_words) {
			id = __builtin_bswap64(words[nr_words - s->is_pos]);
			ev = id ? evsel_by_id(s, id) : &s->evsels[0];
		} else {
			ev = &s->evsels[0];
		}
		attr = ev ? &ev->attr : NULL;
	}
	if (swap_event_body(event, attr, true)) {
		error_set("%s: offset %#llx: malformed %s record of %u bytes", s->path,
			  (unsigned long long)offset, perf_event__name(event->type), event->size);
		return -1;
	}
	return 0;
}

/*
 * Keep the resident set bounded by the ordering window, not the file: pages before the
 * oldest record still queued are dropped (the mapping is private, so this only discards our
 * copies; nothing reads them again).
 */
static void release_pages(struct perf_session *s, const struct ordered_queue *q, u64 cur,
			  u64 *released)
{
	u64 keep = cur, page = (u64)sysconf(_SC_PAGESIZE);

	for (size_t i = q->head; i < q->nr; i++)
		keep = MIN(keep, q->entries[i].file_offset);
	keep &= ~(page - 1);
	if (keep <= *released || keep - *released < (8u << 20))
		return;
	madvise(s->base + *released, keep - *released, MADV_DONTNEED);
	*released = keep;
}

int perf_session__process(struct perf_session *s, struct event_consumer *consumer)
{
	struct walk w = { .session = s, .consumer = consumer };
	u64 off = s->header.data.offset, end = off + s->header.data.size;
	u64 page = (u64)sysconf(_SC_PAGESIZE);
	u64 released = ALIGN_UP(off, page);	/* header, attrs and ids stay */
	int ret = 0;

	ordered_queue_init(&w.queue, deliver_queued, &w);
	/* one pass front to back: let the kernel read ahead generously */
	if (end > released)
		madvise(s->base + released, end - released, MADV_SEQUENTIAL);
	while (off < end) {
		struct perf_event_header *event = (struct perf_event_header *)(s->base + off);
		struct evsel *ev;
		u64 ts;

		if (end - off < sizeof(*event)) {
			error_set("%s: offset %#llx: truncated record header (%llu bytes left in the data section)",
				  s->path, (unsigned long long)off, (unsigned long long)(end - off));
			ret = -1;
			break;
		}
		if (s->swap)
			swap_event_header(event);
		if (event->size < sizeof(*event)) {
			error_set("%s: offset %#llx: record of type %u has invalid size %u", s->path,
				  (unsigned long long)off, event->type, event->size);
			ret = -1;
			break;
		}
		if (event->size > end - off) {
			error_set("%s: offset %#llx: record of type %u and size %u extends past the end of the data section at %#llx",
				  s->path, (unsigned long long)off, event->type, event->size,
				  (unsigned long long)end);
			ret = -1;
			break;
		}
		if (event->type >= PERF_RECORD_HEADER_MAX ||
		    (event->type >= PERF_RECORD_KERNEL_MAX &&
		     event->type < PERF_RECORD_USER_TYPE_START) || event->type == 0) {
			s->stats.nr_unknown_events++;
			off += event->size;
			continue;
		}
		if (s->swap && swap_record(s, event, off)) {
			ret = -1;
			break;
		}
		s->stats.nr_events[0]++;
		s->stats.nr_events[event->type]++;
		if (event->type >= PERF_RECORD_USER_TYPE_START) {
			if (event->type == PERF_RECORD_FINISHED_ROUND) {
				ret = ordered_queue_flush_round(&w.queue);
				release_pages(s, &w.queue, off, &released);
			}
			else
				ret = deliver_one(&w, event, off);
		} else {
			ts = event_timestamp(s, event, &ev);
			if (ts == 0 || ts == (u64)-1)
				ret = deliver_one(&w, event, off);
			else
				ordered_queue_push(&w.queue, ts, event, off);
		}
		if (ret)
			break;
		off += event->size;
	}
	if (!ret)
		ret = ordered_queue_flush_all(&w.queue);
	s->stats.nr_unordered_events = w.queue.nr_unordered;
	ordered_queue_exit(&w.queue);
	if (w.error)
		return -1;
	return ret < 0 ? -1 : ret;
}
