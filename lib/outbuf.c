/* outbuf: see outbuf.h. */
#include "lib/outbuf.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/xalloc.h"

void outbuf_init(struct outbuf *ob, int fd, size_t cap)
{
	*ob = (struct outbuf){ .buf = xmalloc(cap), .cap = cap, .fd = fd };
}

void outbuf_exit(struct outbuf *ob)
{
	if (ob->stream)
		fclose(ob->stream);
	if (!ob->memory)
		outbuf_flush(ob);
	free(ob->buf);
	ob->buf = NULL;
	ob->cap = ob->len = 0;
	ob->stream = NULL;
}

/* Everything of [p, p + n) out, or -1 with ob->error set. */
static int write_all(struct outbuf *ob, const char *p, size_t n)
{
	while (n && !ob->error) {
		ssize_t w = write(ob->fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			ob->error = w < 0 ? errno : EIO;
			break;
		}
		p += w;
		n -= (size_t)w;
	}
	return ob->error ? -1 : 0;
}

void outbuf_init_memory(struct outbuf *ob, size_t cap)
{
	outbuf_init(ob, -1, cap);
	ob->memory = true;
}

/* A memory outbuf with room for n more bytes. */
static void grow(struct outbuf *ob, size_t n)
{
	if (ob->cap - ob->len >= n)
		return;
	ob->cap = MAX(ob->cap + ob->cap / 2, ob->len + n);
	ob->buf = xrealloc(ob->buf, ob->cap);
}

int outbuf_flush(struct outbuf *ob)
{
	int ret;

	if (ob->memory) {	/* room made, nothing written */
		grow(ob, ob->cap / 2 + 1);	/* by half again */
		return 0;
	}
	ret = write_all(ob, ob->buf, ob->len);

	ob->len = 0;	/* after an error, dropped */
	return ret;
}

void outbuf_put_slow(struct outbuf *ob, const void *p, size_t n)
{
	if (ob->memory) {
		grow(ob, n);
		memcpy(ob->buf + ob->len, p, n);
		ob->len += n;
		return;
	}
	outbuf_flush(ob);
	if (n >= ob->cap) {
		write_all(ob, p, n);
		return;
	}
	memcpy(ob->buf, p, n);
	ob->len = n;
}

static ssize_t stream_write(void *cookie, const char *p, size_t n)
{
	outbuf_put(cookie, p, n);
	return (ssize_t)n;
}

FILE *outbuf_stream(struct outbuf *ob)
{
	if (!ob->stream) {
		ob->stream = fopencookie(ob, "w", (cookie_io_functions_t){ .write = stream_write });
		if (!ob->stream) {	/* it only allocates */
			fprintf(stderr, "analyze: out of memory making an output stream\n");
			exit(1);
		}
		setvbuf(ob->stream, NULL, _IONBF, 0);
	}
	return ob->stream;
}
