/*
 * tracing_data: perf's tracing data split into pieces, in the order perf 6.1's trace_report()
 * (util/trace-event-read.c) reads them. Only bytes: what the pieces say is libtraceevent's.
 * Unlike perf, which reads on past a short section and takes a failed read as a count of 0,
 * any piece that does not fit is an error here.
 */
#include "readers/decode/tracing_data.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/xalloc.h"

struct td_cursor {
	const u8 *base, *pos, *end;
	u64 offset;	/* file offset of base */
	const char *path;
	bool big_endian;
};

static u64 cur_offset(const struct td_cursor *c)
{
	return c->offset + (u64)(c->pos - c->base);
}

static int fail(const struct td_cursor *c, const char *what)
{
	error_set("%s: offset %#llx: tracing data: %s", c->path, (unsigned long long)cur_offset(c),
		  what);
	return -1;
}

static int take(struct td_cursor *c, size_t n, const u8 **p)
{
	if (n > (size_t)(c->end - c->pos))
		return -1;
	*p = c->pos;
	c->pos += n;
	return 0;
}

/* A number of n (4 or 8) bytes in the data's byte order (perf's read4/read8). */
static int read_num(struct td_cursor *c, size_t n, u64 *v, const char *what)
{
	const u8 *p;

	if (take(c, n, &p))
		return fail(c, what);
	*v = 0;
	for (size_t i = 0; i < n; i++)
		*v |= (u64)p[c->big_endian ? i : n - 1 - i] << (8 * (n - 1 - i));
	return 0;
}

/* A NUL-terminated string (perf's read_string), returned in place. */
static int read_string(struct td_cursor *c, const char **s, const char *what)
{
	const u8 *nul = memchr(c->pos, 0, (size_t)(c->end - c->pos));

	if (!nul)
		return fail(c, what);
	*s = (const char *)c->pos;
	c->pos = nul + 1;
	return 0;
}

/* size (a number of n bytes), then that many bytes. */
static int read_piece(struct td_cursor *c, size_t n, struct tracing_piece *piece, const char *what)
{
	u64 size;
	const u8 *start = c->pos;

	if (read_num(c, n, &size, what))
		return -1;
	piece->offset = cur_offset(c);
	if (size > (u64)(c->end - c->pos)) {
		c->pos = start;
		return fail(c, what);
	}
	piece->data = c->pos;
	piece->size = (size_t)size;
	c->pos += size;
	return 0;
}

/* perf's read_header_files: "header_page\0", size, bytes; "header_event\0", size, bytes. */
static int read_headers(struct td_cursor *c, struct tracing_data *td)
{
	const u8 *p;

	if (take(c, 12, &p) || memcmp(p, "header_page", 12))
		return fail(c, "no header_page");
	if (read_piece(c, 8, &td->header_page, "header_page does not fit"))
		return -1;
	if (take(c, 13, &p) || memcmp(p, "header_event", 13))
		return fail(c, "no header_event");
	return read_piece(c, 8, &td->header_event, "header_event does not fit");
}

static int add_formats(struct td_cursor *c, struct tracing_data *td, const char *system,
		       size_t *alloc)
{
	u64 count;

	if (read_num(c, 4, &count, "truncated format count"))
		return -1;
	/* each format takes at least its 8-byte size: a count beyond that cannot be */
	if (count > (u64)(c->end - c->pos) / 8)
		return fail(c, "format count larger than the data");
	for (u64 i = 0; i < count; i++) {
		struct tracing_format *f;

		ARRAY_GROW(td->formats, *alloc, td->nr_formats + 1);
		f = &td->formats[td->nr_formats];
		f->system = system;
		if (read_piece(c, 8, &f->text, "event format does not fit"))
			return -1;
		td->nr_formats++;
	}
	return 0;
}

/* perf's read_ftrace_files and read_event_files. */
static int read_formats(struct td_cursor *c, struct tracing_data *td)
{
	size_t alloc = 0;
	u64 systems;

	if (add_formats(c, td, "ftrace", &alloc))
		return -1;
	if (read_num(c, 4, &systems, "truncated system count"))
		return -1;
	for (u64 i = 0; i < systems; i++) {
		const char *system = NULL;	/* set by read_string: for -O1's warning */

		if (read_string(c, &system, "unterminated system name") ||
		    add_formats(c, td, system, &alloc))
			return -1;
	}
	return 0;
}

int tracing_data__parse(struct tracing_data *td, const u8 *data, size_t size, u64 offset,
			const char *path)
{
	static const u8 magic[10] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	struct td_cursor c = { data, data, data + size, offset, path, false };
	const u8 *p;
	u64 page_size;

	memset(td, 0, sizeof(*td));
	if (take(&c, sizeof(magic), &p) || memcmp(p, magic, sizeof(magic)))
		return fail(&c, "no tracing magic");
	if (read_string(&c, &td->version, "unterminated version"))
		return -1;
	if (take(&c, 2, &p))
		return fail(&c, "truncated header");
	td->big_endian = p[0];
	td->long_size = p[1];
	c.big_endian = td->big_endian;
	if (read_num(&c, 4, &page_size, "truncated header"))
		return -1;
	if (!page_size) {
		c.pos -= 4;
		return fail(&c, "page size 0");
	}
	td->page_size = (u32)page_size;
	if (read_headers(&c, td) || read_formats(&c, td) ||
	    read_piece(&c, 4, &td->kallsyms, "kallsyms do not fit") ||
	    read_piece(&c, 4, &td->printk, "printk formats do not fit"))
		return -1;
	if (atof(td->version) >= 0.6 &&
	    read_piece(&c, 8, &td->cmdlines, "saved cmdlines do not fit"))
		return -1;
	td->size = (size_t)(c.pos - c.base);
	return 0;
}

void tracing_data__exit(struct tracing_data *td)
{
	free(td->formats);
	td->formats = NULL;
	td->nr_formats = 0;
}

/* The value of a "key: value" line of a format's text, its length in *len; NULL if none. */
static const char *format_line(const struct tracing_piece *text, const char *key, size_t *len)
{
	const char *p = (const char *)text->data, *end = p + text->size;
	size_t key_len = strlen(key);

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));

		eol = eol ? eol : end;
		if ((size_t)(eol - p) >= key_len && memcmp(p, key, key_len) == 0) {
			*len = (size_t)(eol - p) - key_len;
			return p + key_len;
		}
		p = eol + 1;
	}
	return NULL;
}

bool tracing_data__event_name(const struct tracing_data *td, u64 id, char *buf, size_t size)
{
	for (size_t i = 0; i < td->nr_formats; i++) {
		const struct tracing_format *f = &td->formats[i];
		size_t id_len, name_len;
		const char *id_str = format_line(&f->text, "ID: ", &id_len);
		const char *name = format_line(&f->text, "name: ", &name_len);
		char num[24];

		if (!id_str || !name || id_len >= sizeof(num))
			continue;
		memcpy(num, id_str, id_len);
		num[id_len] = '\0';
		if (strtoull(num, NULL, 10) != id)
			continue;
		snprintf(buf, size, "%s:%.*s", f->system, (int)name_len, name);
		return true;
	}
	return false;
}
