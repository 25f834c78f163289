/*
 * writer: a perf.data file written front to back through one buffer, the header patched in
 * at the end; or a pipe-mode stream, everything in order. Format facts from perf's header.c
 * (perf_session__do_write_header, perf_header__adds_write, perf_header__write_pipe,
 * do_write_string, write_event_desc), synthetic-events.c (perf_event__synthesize_features,
 * perf_event__synthesize_attr, perf_event__synthesize_tracing_data) and
 * perf.data-file-format.txt.
 */
#include "readers/writer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/bytes.h"
#include "lib/error.h"
#include "lib/xalloc.h"

#define WRITE_BUF_SIZE (1u << 20)

struct writer_attr {
	u8 attr[WRITER_ATTR_SIZE];
	u64 *ids;
	size_t nr_ids;
	char *name;
};

struct feature {
	u8 *data;
	size_t size;
};

struct perf_writer {
	char *path;
	int fd;
	bool failed;	/* a write failed: every later call fails */
	bool started;	/* the attrs are in the buffer: records may follow */
	bool pipe;	/* pipe mode: attrs and features are records at the start */
	u8 *buf;
	size_t buf_len;
	u64 buf_offset;	/* file offset of buf[0] */
	u64 attrs_offset, data_offset;
	struct writer_attr *attrs;
	size_t nr_attrs, alloc_attrs;
	struct feature feat[HEADER_FEAT_BITS];
	u64 feat_bits[HEADER_FEAT_BITS / 64];
};

static int fail_write(struct perf_writer *w, u64 offset, int err)
{
	error_set("%s: offset %#llx: cannot write: %s", w->path, (unsigned long long)offset,
		  strerror(err));
	w->failed = true;
	return -1;
}

/* Write all of [data, data + len) at the file's current position, which is offset. */
static int write_all(struct perf_writer *w, const u8 *data, size_t len, u64 offset)
{
	while (len) {
		ssize_t n = write(w->fd, data, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return fail_write(w, offset, n < 0 ? errno : ENOSPC);
		data += n;
		len -= (size_t)n;
		offset += (u64)n;
	}
	return 0;
}

static int flush(struct perf_writer *w)
{
	if (w->buf_len && write_all(w, w->buf, w->buf_len, w->buf_offset))
		return -1;
	w->buf_offset += w->buf_len;
	w->buf_len = 0;
	return 0;
}

static int put(struct perf_writer *w, const void *data, size_t len)
{
	if (w->failed)
		return -1;
	if (!len)
		return 0;
	if (len > WRITE_BUF_SIZE - w->buf_len) {
		if (flush(w))
			return -1;
		if (len >= WRITE_BUF_SIZE) {	/* big payloads go straight to the file */
			if (write_all(w, data, len, w->buf_offset))
				return -1;
			w->buf_offset += len;
			return 0;
		}
	}
	memcpy(w->buf + w->buf_len, data, len);
	w->buf_len += len;
	return 0;
}

struct perf_writer *perf_writer__new(const char *path)
{
	struct perf_writer *w;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0) {
		error_set("%s: cannot create: %s", path, strerror(errno));
		return NULL;
	}
	w = xzalloc(sizeof(*w));
	w->path = xstrdup(path);
	w->fd = fd;
	w->buf = xmalloc(WRITE_BUF_SIZE);
	return w;
}

struct perf_writer *perf_writer__new_pipe(int fd)
{
	struct perf_writer *w = xzalloc(sizeof(*w));

	w->path = xstrdup("-");
	w->fd = fd;
	w->pipe = true;
	w->buf = xmalloc(WRITE_BUF_SIZE);
	return w;
}

int perf_writer__add_attr(struct perf_writer *w, const struct perf_event_attr *attr,
			  const u64 *ids, size_t nr_ids, const char *name)
{
	struct writer_attr *a;
	u32 size = WRITER_ATTR_SIZE;

	if (w->started) {
		error_set("%s: an event attr cannot be added after the first record", w->path);
		return -1;
	}
	ARRAY_GROW(w->attrs, w->alloc_attrs, w->nr_attrs + 1);
	a = &w->attrs[w->nr_attrs++];
	memset(a, 0, sizeof(*a));
	memcpy(a->attr, attr, MIN(sizeof(*attr), (size_t)WRITER_ATTR_SIZE));
	memcpy(a->attr + offsetof(struct perf_event_attr, size), &size, sizeof(size));
	if (nr_ids) {
		a->ids = xcalloc(nr_ids, sizeof(u64));
		memcpy(a->ids, ids, nr_ids * sizeof(u64));
	}
	a->nr_ids = nr_ids;
	a->name = name ? xstrdup(name) : NULL;
	return 0;
}

static bool has_feat(const struct perf_writer *w, int feat)
{
	return (w->feat_bits[feat / 64] >> (feat % 64)) & 1;
}

static int set_event_desc(struct perf_writer *w);

/* A record of header TYPE, then SIZE bytes of body in up to two pieces. */
static int put_record(struct perf_writer *w, u32 type, const void *a, size_t a_size,
		      const void *b, size_t b_size)
{
	size_t size = sizeof(struct perf_event_header) + a_size + b_size;
	struct perf_event_header h = { type, 0, (u16)size };

	if (size > 0xffff) {
		error_set("%s: a %u record of %zu bytes: more than a pipe-mode record holds",
			  w->path, type, size);
		w->failed = true;
		return -1;
	}
	return put(w, &h, sizeof(h)) || put(w, a, a_size) || put(w, b, b_size) ? -1 : 0;
}

/*
 * Pipe mode: the 16-byte header, an ATTR record per attr (with its ids), a FEATURE record
 * per feature set so far and perf's closing one (HEADER_LAST_FEATURE), then the tracing
 * data as a TRACING_DATA record followed by its bytes padded to 8.
 */
static int start_pipe(struct perf_writer *w)
{
	static const u8 zeros[8];
	const u64 header[2] = { PERF_MAGIC2, PERF_PIPE_HEADER_SIZE };
	const struct feature *tracing = &w->feat[HEADER_TRACING_DATA];
	u64 last = HEADER_LAST_FEATURE;

	if (put(w, header, sizeof(header)))
		return -1;
	for (size_t i = 0; i < w->nr_attrs; i++) {
		if (put_record(w, PERF_RECORD_HEADER_ATTR, w->attrs[i].attr, WRITER_ATTR_SIZE,
			       w->attrs[i].ids, w->attrs[i].nr_ids * sizeof(u64)))
			return -1;
	}
	if (!has_feat(w, HEADER_EVENT_DESC) && set_event_desc(w))
		return -1;
	for (u64 feat = 1; feat < HEADER_FEAT_BITS; feat++) {
		if (feat != HEADER_TRACING_DATA && has_feat(w, (int)feat) &&
		    put_record(w, PERF_RECORD_HEADER_FEATURE, &feat, sizeof(feat),
			       w->feat[feat].data, w->feat[feat].size))
			return -1;
	}
	if (put_record(w, PERF_RECORD_HEADER_FEATURE, &last, sizeof(last), NULL, 0))
		return -1;
	if (has_feat(w, HEADER_TRACING_DATA)) {
		u32 size[2] = { (u32)ALIGN_UP(tracing->size, 8), 0 };

		if (put_record(w, PERF_RECORD_HEADER_TRACING_DATA, size, sizeof(size), NULL, 0) ||
		    put(w, tracing->data, tracing->size) || put(w, zeros, size[0] - tracing->size))
			return -1;
	}
	return 0;
}

/* The header's place (zeros until perf_writer__finish), the ids, then the attrs. */
static int start(struct perf_writer *w)
{
	static const struct perf_file_header zero;
	u64 ids_offset = sizeof(zero);

	if (w->started)
		return 0;
	w->started = true;
	if (w->pipe)
		return start_pipe(w);
	if (put(w, &zero, sizeof(zero)))
		return -1;
	for (size_t i = 0; i < w->nr_attrs; i++) {
		if (put(w, w->attrs[i].ids, w->attrs[i].nr_ids * sizeof(u64)))
			return -1;
	}
	w->attrs_offset = perf_writer__offset(w);
	for (size_t i = 0; i < w->nr_attrs; i++) {
		struct perf_file_section ids = { ids_offset, w->attrs[i].nr_ids * sizeof(u64) };

		if (put(w, w->attrs[i].attr, WRITER_ATTR_SIZE) || put(w, &ids, sizeof(ids)))
			return -1;
		ids_offset += ids.size;
	}
	w->data_offset = perf_writer__offset(w);
	return 0;
}

int perf_writer__write(struct perf_writer *w, const void *bytes, size_t size)
{
	if (w->fd < 0) {
		error_set("%s: already finished", w->path);
		return -1;
	}
	if (w->failed || start(w))
		return -1;
	return put(w, bytes, size);
}

u64 perf_writer__offset(const struct perf_writer *w)
{
	return w->buf_offset + w->buf_len;
}

int perf_writer__set_feature(struct perf_writer *w, int feat, const void *bytes, size_t size)
{
	struct feature *f;

	if (feat <= 0 || feat >= HEADER_FEAT_BITS) {
		error_set("%s: no feature bit %d", w->path, feat);
		return -1;
	}
	f = &w->feat[feat];
	free(f->data);
	f->data = xmalloc(size ? size : 1);
	if (size)
		memcpy(f->data, bytes, size);
	f->size = size;
	w->feat_bits[feat / 64] |= 1ULL << (feat % 64);
	return 0;
}

/* Set FEAT to what B holds, and free B. */
static int set_bytes(struct perf_writer *w, int feat, struct bytes *b)
{
	int ret = perf_writer__set_feature(w, feat, b->data, b->len);

	free(b->data);
	return ret;
}

int perf_writer__set_string(struct perf_writer *w, int feat, const char *str)
{
	struct bytes b = { 0 };

	bytes_put_string(&b, str);
	return set_bytes(w, feat, &b);
}

int perf_writer__set_cmdline(struct perf_writer *w, size_t argc, const char *const *argv)
{
	struct bytes b = { 0 };

	bytes_put_u32(&b, (u32)argc);
	for (size_t i = 0; i < argc; i++)
		bytes_put_string(&b, argv[i]);
	return set_bytes(w, HEADER_CMDLINE, &b);
}

int perf_writer__set_nrcpus(struct perf_writer *w, u32 avail, u32 online)
{
	u32 v[2] = { avail, online };

	return perf_writer__set_feature(w, HEADER_NRCPUS, v, sizeof(v));
}

int perf_writer__set_sample_time(struct perf_writer *w, u64 first, u64 last)
{
	u64 v[2] = { first, last };

	return perf_writer__set_feature(w, HEADER_SAMPLE_TIME, v, sizeof(v));
}

/* perf's write_event_desc: u32 nr, u32 attr size, then per attr: attr, u32 nr_ids, name, ids. */
static int set_event_desc(struct perf_writer *w)
{
	struct bytes b = { 0 };

	for (size_t i = 0; i < w->nr_attrs; i++) {
		if (!w->attrs[i].name)
			return 0;
	}
	bytes_put_u32(&b, (u32)w->nr_attrs);
	bytes_put_u32(&b, WRITER_ATTR_SIZE);
	for (size_t i = 0; i < w->nr_attrs; i++) {
		const struct writer_attr *a = &w->attrs[i];

		bytes_put(&b, a->attr, WRITER_ATTR_SIZE);
		bytes_put_u32(&b, (u32)a->nr_ids);
		bytes_put_string(&b, a->name);
		bytes_put(&b, a->ids, a->nr_ids * sizeof(u64));
	}
	return set_bytes(w, HEADER_EVENT_DESC, &b);
}

/* The feature table right after the data, then the sections in bit order. */
static int write_features(struct perf_writer *w)
{
	u64 off = perf_writer__offset(w);
	size_t nr = 0;

	for (int feat = 1; feat < HEADER_FEAT_BITS; feat++)
		nr += has_feat(w, feat);
	off += nr * sizeof(struct perf_file_section);
	for (int feat = 1; feat < HEADER_FEAT_BITS; feat++) {
		struct perf_file_section sec = { off, w->feat[feat].size };

		if (!has_feat(w, feat))
			continue;
		if (put(w, &sec, sizeof(sec)))
			return -1;
		off += sec.size;
	}
	for (int feat = 1; feat < HEADER_FEAT_BITS; feat++) {
		if (has_feat(w, feat) && put(w, w->feat[feat].data, w->feat[feat].size))
			return -1;
	}
	return flush(w);
}

static int write_header(struct perf_writer *w, u64 data_size)
{
	const u64 entry = WRITER_ATTR_SIZE + sizeof(struct perf_file_section);
	struct perf_file_header h = {
		.magic = PERF_MAGIC2,
		.size = sizeof(h),
		.attr_size = entry,
		.attrs = { w->attrs_offset, w->nr_attrs * entry },
		.data = { w->data_offset, data_size },
	};
	const u8 *p = (const u8 *)&h;
	size_t done = 0;

	memcpy(h.adds_features, w->feat_bits, sizeof(h.adds_features));
	while (done < sizeof(h)) {
		ssize_t n = pwrite(w->fd, p + done, sizeof(h) - done, (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return fail_write(w, done, n < 0 ? errno : ENOSPC);
		done += (size_t)n;
	}
	return 0;
}

int perf_writer__finish(struct perf_writer *w)
{
	u64 data_size;
	int fd;

	if (w->failed)
		return -1;
	if (w->fd < 0) {
		error_set("%s: already finished", w->path);
		return -1;
	}
	if (!w->nr_attrs) {
		error_set("%s: no event attrs: perf cannot read a file without them", w->path);
		return -1;
	}
	if (start(w))
		return -1;
	if (w->pipe) {
		if (flush(w))
			return -1;
		goto close;
	}
	data_size = perf_writer__offset(w) - w->data_offset;
	if (!has_feat(w, HEADER_EVENT_DESC) && set_event_desc(w))
		return -1;
	if (write_features(w) || write_header(w, data_size))
		return -1;
close:
	fd = w->fd;
	w->fd = -1;
	if (close(fd)) {
		error_set("%s: cannot write: %s", w->path, strerror(errno));
		w->failed = true;
		return -1;
	}
	return 0;
}

void perf_writer__delete(struct perf_writer *w)
{
	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd);
	for (size_t i = 0; i < w->nr_attrs; i++) {
		free(w->attrs[i].ids);
		free(w->attrs[i].name);
	}
	free(w->attrs);
	for (int feat = 0; feat < HEADER_FEAT_BITS; feat++)
		free(w->feat[feat].data);
	free(w->buf);
	free(w->path);
	free(w);
}
