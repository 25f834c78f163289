/*
 * perf-byteswap IN OUT: write an opposite-endian copy of a native perf.data file (header,
 * attrs and their id sections, data records, feature table and sections), as a machine of the
 * other byte order would have written it. A fixture writer for the swap path of readers/; it
 * does not handle pipe-mode files or COMPRESSED records.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "readers/format.h"
#include "readers/decode/sample.h"
#include "readers/decode/swap.h"

struct image {
	const char *path;
	u8 *buf;
	size_t size;
	struct perf_file_header header;	/* native copy */
	struct perf_event_attr *attrs;	/* native copies */
	const u64 **ids;		/* native copies, one array per attr */
	size_t *nr_ids;
	size_t nr_attrs;
	int id_pos, is_pos;
};

static int fail(const struct image *im, u64 offset, const char *what)
{
	fprintf(stderr, "perf-byteswap: %s: offset %#llx: %s\n", im->path,
		(unsigned long long)offset, what);
	return -1;
}

static bool in_file(const struct image *im, u64 offset, u64 size)
{
	return offset <= im->size && size <= im->size - offset;
}

static int load(struct image *im, const char *path)
{
	FILE *f = fopen(path, "rb");
	long len;

	im->path = path;
	if (!f) {
		fprintf(stderr, "perf-byteswap: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return fail(im, 0, "cannot size the file");
	}
	im->size = (size_t)len;
	im->buf = xmalloc(im->size ? im->size : 1);
	if (fread(im->buf, 1, im->size, f) != im->size) {
		fclose(f);
		return fail(im, 0, "short read");
	}
	fclose(f);
	return 0;
}

static int read_header(struct image *im)
{
	struct perf_file_header *h = &im->header;

	if (im->size < sizeof(*h))
		return fail(im, 0, "too short for a perf.data header");
	memcpy(h, im->buf, sizeof(*h));
	if (h->magic == PERF_MAGIC2_SWAPPED)
		return fail(im, 0, "already opposite-endian");
	if (h->magic != PERF_MAGIC2)
		return fail(im, 0, "not a perf.data file");
	if (h->size != sizeof(*h))
		return fail(im, 8, "not a file-mode header (pipe data is not supported)");
	if (!in_file(im, h->attrs.offset, h->attrs.size) ||
	    !in_file(im, h->data.offset, h->data.size))
		return fail(im, 0x18, "section outside the file");
	if (h->attr_size <= sizeof(struct perf_file_section) + 8 || h->attr_size > 4096 ||
	    h->attrs.size % h->attr_size)
		return fail(im, 0x10, "bad attr_size");
	return 0;
}

/* Swap the attrs section and each id section once, keeping native copies for the records. */
static int swap_attrs(struct image *im)
{
	const struct perf_file_header *h = &im->header;
	size_t attr_bytes = h->attr_size - sizeof(struct perf_file_section);
	u64 nr = h->attrs.size / h->attr_size;

	if (!nr)
		return fail(im, 0x20, "no attrs");
	im->nr_attrs = nr;
	im->attrs = xcalloc(nr, sizeof(*im->attrs));
	im->ids = xcalloc(nr, sizeof(*im->ids));
	im->nr_ids = xcalloc(nr, sizeof(*im->nr_ids));
	for (u64 i = 0; i < nr; i++) {
		u64 off = h->attrs.offset + i * h->attr_size;
		u8 *raw = im->buf + off;
		struct perf_file_section ids;
		u64 *copy, *w;

		memcpy(&im->attrs[i], raw, MIN(attr_bytes, sizeof(im->attrs[i])));
		memcpy(&ids, raw + attr_bytes, sizeof(ids));
		if (!in_file(im, ids.offset, ids.size) || ids.size % 8)
			return fail(im, off + attr_bytes, "ids section outside the file");
		im->nr_ids[i] = ids.size / 8;
		copy = xmalloc(ids.size ? ids.size : 1);
		memcpy(copy, im->buf + ids.offset, ids.size);
		im->ids[i] = copy;
		/* written from the native copy, so a section shared by two attrs stays right */
		w = (u64 *)(im->buf + ids.offset);
		for (size_t k = 0; k < im->nr_ids[i]; k++)
			w[k] = __builtin_bswap64(copy[k]);
		swap_attr_dir(raw, attr_bytes, false);
		swap_file_section((struct perf_file_section *)(raw + attr_bytes));
	}
	im->id_pos = sample_id_pos(im->attrs[0].sample_type);
	im->is_pos = sample_is_pos(im->attrs[0].sample_type);
	return 0;
}

static const struct perf_event_attr *attr_of_id(const struct image *im, u64 id)
{
	for (size_t i = 0; i < im->nr_attrs; i++)
		for (size_t k = 0; k < im->nr_ids[i]; k++)
			if (im->ids[i][k] == id)
				return &im->attrs[i];
	return NULL;
}

/* perf's evlist__event2evsel, on a native record. */
static const struct perf_event_attr *attr_of(const struct image *im,
					     const struct perf_event_header *event)
{
	const u8 *body = (const u8 *)(event + 1);
	size_t nr_words = (event->size - sizeof(*event)) / 8;
	u64 id;

	if (im->nr_attrs == 1 || event->type >= PERF_RECORD_USER_TYPE_START)
		return &im->attrs[0];
	if (event->type == PERF_RECORD_SAMPLE) {
		if (im->id_pos < 0 || (size_t)im->id_pos >= nr_words)
			return &im->attrs[0];
		memcpy(&id, body + im->id_pos * 8, 8);
	} else {
		if (!im->attrs[0].sample_id_all || im->is_pos < 0 ||
		    (size_t)im->is_pos > nr_words)
			return &im->attrs[0];
		memcpy(&id, body + (nr_words - im->is_pos) * 8, 8);
	}
	return id ? attr_of_id(im, id) : &im->attrs[0];
}

static int swap_records(struct image *im)
{
	u64 off = im->header.data.offset, end = off + im->header.data.size;

	while (off < end) {
		struct perf_event_header *event = (struct perf_event_header *)(im->buf + off);
		const struct perf_event_attr *attr = NULL;
		u64 extra = 0;

		if (end - off < sizeof(*event))
			return fail(im, off, "truncated record header");
		if (event->size < sizeof(*event) || event->size > end - off)
			return fail(im, off, "bad record size");
		if (event->type == PERF_RECORD_COMPRESSED)
			return fail(im, off, "COMPRESSED records are not supported (record with -z off)");
		if (event->type == PERF_RECORD_AUXTRACE) {
			/* the trace bytes follow the record, outside header.size */
			if (event->size < sizeof(*event) + 8)
				return fail(im, off, "short AUXTRACE record");
			memcpy(&extra, event + 1, 8);
			if (extra > end - off - event->size)
				return fail(im, off, "AUXTRACE data past the data section");
		}
		if (event->type < PERF_RECORD_USER_TYPE_START) {
			attr = attr_of(im, event);
			if (!attr)
				return fail(im, off, "record id matches no attr");
		}
		if (swap_event_body(event, attr, false))
			return fail(im, off, "malformed record");
		swap_event_header(event);
		off += (u64)__builtin_bswap16(event->size) + extra;
	}
	return 0;
}

static int swap_features(struct image *im)
{
	u64 off = im->header.data.offset + im->header.data.size;

	for (int bit = 0; bit < HEADER_FEAT_BITS; bit++) {
		struct perf_file_section sec;

		if (!((im->header.adds_features[bit / 64] >> (bit % 64)) & 1))
			continue;
		if (!in_file(im, off, sizeof(sec)))
			return fail(im, off, "feature table outside the file");
		memcpy(&sec, im->buf + off, sizeof(sec));
		if (!in_file(im, sec.offset, sec.size))
			return fail(im, off, "feature section outside the file");
		if (swap_feature(bit, im->buf + sec.offset, sec.size, false)) {
			fprintf(stderr, "perf-byteswap: %s: offset %#llx: malformed feature %d\n",
				im->path, (unsigned long long)sec.offset, bit);
			return -1;
		}
		swap_file_section((struct perf_file_section *)(im->buf + off));
		off += sizeof(sec);
	}
	return 0;
}

static int save(const struct image *im, const char *path)
{
	FILE *f = fopen(path, "wb");

	if (!f) {
		fprintf(stderr, "perf-byteswap: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fwrite(im->buf, 1, im->size, f) != im->size || fclose(f)) {
		fprintf(stderr, "perf-byteswap: %s: write failed\n", path);
		return -1;
	}
	return 0;
}

static void image_free(struct image *im)
{
	for (size_t i = 0; i < im->nr_attrs; i++)
		free((void *)im->ids[i]);
	free(im->ids);
	free(im->nr_ids);
	free(im->attrs);
	free(im->buf);
}

int main(int argc, char **argv)
{
	struct image im = { 0 };
	int ret = 1;

	if (argc != 3) {
		fprintf(stderr, "usage: perf-byteswap IN OUT\n");
		return 2;
	}
	if (load(&im, argv[1]) || read_header(&im) || swap_attrs(&im) || swap_records(&im) ||
	    swap_features(&im))
		goto out;
	swap_file_header((struct perf_file_header *)im.buf);
	if (save(&im, argv[2]))
		goto out;
	ret = 0;
out:
	image_free(&im);
	return ret;
}
