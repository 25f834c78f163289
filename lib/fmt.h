/*
 * fmt: the few printf conversions a line-per-event printer needs, without printf: decimal
 * and hex digits into a caller's buffer, and padded appends to an outbuf. For output paths
 * that print millions of lines (script); everything else should keep using printf. Each
 * function gives exactly what the printf conversion named in its comment gives. Thread
 * safety: that of the outbuf (one writer).
 */
#ifndef LIB_FMT_H
#define LIB_FMT_H

#include <string.h>

#include "lib/compiler.h"
#include "lib/outbuf.h"

#define FMT_U64_MAX 20	/* digits of the largest u64 in decimal; 16 in hex */

/* The decimal digits of v at buf (no terminator): their count. */
static inline size_t fmt_u64_dec(char *buf, u64 v)
{
	char tmp[FMT_U64_MAX];
	size_t n = 0;

	do {
		tmp[FMT_U64_MAX - ++n] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	memcpy(buf, tmp + FMT_U64_MAX - n, n);
	return n;
}

/* The lowercase hex digits of v at buf (no terminator, no 0x): their count. */
static inline size_t fmt_u64_hex(char *buf, u64 v)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[16];
	size_t n = 0;

	do {
		tmp[16 - ++n] = digits[v & 15];
		v >>= 4;
	} while (v);
	memcpy(buf, tmp + 16 - n, n);
	return n;
}

/* s (len bytes) padded with spaces to width: on the left (%*s), or the right (%-*s). */
static inline void fmt_put_padded(struct outbuf *ob, const char *s, size_t len, int width,
				  bool left)
{
	size_t pad = width > 0 && (size_t)width > len ? (size_t)width - len : 0;

	if (left)
		outbuf_put(ob, s, len);
	while (pad--)
		outbuf_putc(ob, ' ');
	if (!left)
		outbuf_put(ob, s, len);
}

static inline void fmt_put_str(struct outbuf *ob, const char *s)
{
	outbuf_puts(ob, s);
}

/* %*d, or %-*d when left. */
static inline void fmt_put_int(struct outbuf *ob, int v, int width, bool left)
{
	char buf[FMT_U64_MAX + 1];
	size_t n = 0;

	if (v < 0)
		buf[n++] = '-';
	n += fmt_u64_dec(buf + n, v < 0 ? -(u64)(s64)v : (u64)v);
	fmt_put_padded(ob, buf, n, width, left);
}

/* %*llu */
static inline void fmt_put_u64(struct outbuf *ob, u64 v, int width)
{
	char buf[FMT_U64_MAX];

	fmt_put_padded(ob, buf, fmt_u64_dec(buf, v), width, false);
}

/* %*llx */
static inline void fmt_put_hex(struct outbuf *ob, u64 v, int width)
{
	char buf[16];

	fmt_put_padded(ob, buf, fmt_u64_hex(buf, v), width, false);
}

/* %0*llu */
static inline void fmt_put_u64_zero(struct outbuf *ob, u64 v, int width)
{
	char buf[FMT_U64_MAX];
	size_t n = fmt_u64_dec(buf, v);

	for (size_t i = n; width > 0 && i < (size_t)width; i++)
		outbuf_putc(ob, '0');
	outbuf_put(ob, buf, n);
}

#endif
