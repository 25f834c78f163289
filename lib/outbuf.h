/*
 * outbuf: an output buffer in front of a file descriptor, for printers of millions of lines
 * (script). Appends are inline copies; the buffer goes out in one write(2) when full, or
 * when the caller flushes (a terminal: after each line). After a failed write (EPIPE: the
 * reader went away) everything is dropped and the error kept for the caller to look at.
 * outbuf_stream() gives a stdio stream that appends to the same buffer, in order, for the
 * rare output that is printf-shaped. One writer.
 */
#ifndef LIB_OUTBUF_H
#define LIB_OUTBUF_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "lib/compiler.h"

struct outbuf {
	char *buf;
	size_t len, cap;
	int fd;
	int error;	/* errno of the first failed write, else 0 */
	FILE *stream;	/* outbuf_stream's, made on first use */
	bool memory;	/* outbuf_init_memory's: grows rather than writes */
};

void outbuf_init(struct outbuf *ob, int fd, size_t cap);
/* One that keeps everything: "flushing" it makes room (ob->buf, ob->len are the text). */
void outbuf_init_memory(struct outbuf *ob, size_t cap);
/* Flushes, then frees the buffer and the stream. The error stays readable. */
void outbuf_exit(struct outbuf *ob);
/* Writes out what is buffered: 0, or -1 with ob->error set. */
int outbuf_flush(struct outbuf *ob);
/* outbuf_put's way when the buffer cannot take n more bytes. */
void outbuf_put_slow(struct outbuf *ob, const void *p, size_t n);
/* An unbuffered stdio stream whose writes are appends to ob. */
FILE *outbuf_stream(struct outbuf *ob);

/*
 * Room for n more bytes (n at most the buffer's size): where they go. The caller writes
 * them there and adds what it wrote to ob->len.
 */
static inline char *outbuf_reserve(struct outbuf *ob, size_t n)
{
	if (unlikely(ob->cap - ob->len < n))
		outbuf_flush(ob);
	return ob->buf + ob->len;
}

static inline void outbuf_put(struct outbuf *ob, const void *p, size_t n)
{
	if (unlikely(ob->cap - ob->len < n)) {
		outbuf_put_slow(ob, p, n);
		return;
	}
	memcpy(ob->buf + ob->len, p, n);
	ob->len += n;
}

static inline void outbuf_putc(struct outbuf *ob, char c)
{
	if (unlikely(ob->len == ob->cap))
		outbuf_flush(ob);
	ob->buf[ob->len++] = c;
}

static inline void outbuf_puts(struct outbuf *ob, const char *s)
{
	outbuf_put(ob, s, strlen(s));
}

#endif
