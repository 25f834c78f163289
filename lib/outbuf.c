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

int outbuf_flush(struct outbuf *ob)
{
	int ret = write_all(ob, ob->buf, ob->len);

	ob->len = 0;	/* after an error, dropped */
	return ret;
}

void outbuf_put_slow(struct outbuf *ob, const void *p, size_t n)
{
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
