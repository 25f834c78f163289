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

/* "00" to "99": two decimal digits a step */
static const char fmt_digit_pairs[201] =
	"0001020304050607080910111213141516171819"
	"2021222324252627282930313233343536373839"
	"4041424344454647484950515253545556575859"
	"6061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* How many decimal digits v has. */
static inline size_t fmt_u64_dec_len(u64 v)
{
	static const u64 pow10[20] = {
		1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
		100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
		10000000000000ull, 100000000000000ull, 1000000000000000ull,
		10000000000000000ull, 100000000000000000ull, 1000000000000000000ull,
		10000000000000000000ull,
	};
	/* v | 1 has as many digits (an odd number is never a power of ten) and a bit length */
	size_t t = (size_t)(64 - __builtin_clzll(v | 1)) * 1233 >> 12;	/* 1233/4096: log10(2) */

	return t + 1 - ((v | 1) < pow10[t]);
}

/* The decimal digits of v at buf (no terminator): their count. */
static inline size_t fmt_u64_dec(char *buf, u64 v)
{
	size_t n = fmt_u64_dec_len(v);
	char *p = buf + n;

	while (v >= 100) {
		u64 q = v / 100;

		p -= 2;
		memcpy(p, fmt_digit_pairs + 2 * (v - q * 100), 2);
		v = q;
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, fmt_digit_pairs + 2 * v, 2);
	} else {
		*--p = (char)('0' + v);
	}
	return n;
}

/* The lowercase hex digits of v at buf (no terminator, no 0x): their count. */
static inline size_t fmt_u64_hex(char *buf, u64 v)
{
	static const char digits[] = "0123456789abcdef";
	size_t n = (size_t)(64 - __builtin_clzll(v | 1) + 3) / 4;

	for (size_t i = n; i-- > 0; v >>= 4)
		buf[i] = digits[v & 15];
	return n;
}

/* s (len bytes) padded with spaces to width: on the left (%*s), or the right (%-*s). */
static inline void fmt_put_padded(struct outbuf *ob, const char *s, size_t len, int width,
				  bool left)
{
	size_t pad = width > 0 && (size_t)width > len ? (size_t)width - len : 0;
	char *p;

	if (unlikely(len + pad > ob->cap)) {	/* longer than the buffer: in pieces */
		if (left)
			outbuf_put(ob, s, len);
		while (pad--)
			outbuf_putc(ob, ' ');
		if (!left)
			outbuf_put(ob, s, len);
		return;
	}
	p = outbuf_reserve(ob, len + pad);
	memset(left ? p + len : p, ' ', pad);
	memcpy(left ? p : p + pad, s, len);
	ob->len += len + pad;
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

/*
 * The 8 hex digits of x, the first in the lowest byte (for memcpy): its nibbles spread one
 * a byte, then each made a digit at once ('a' - '0' - 10 = 39 more for the ones over 9).
 */
static inline u64 fmt_hex8(u32 x)
{
	u64 d = x;

	d = (d | d << 16) & 0x0000ffff0000ffffull;
	d = (d | d << 8) & 0x00ff00ff00ff00ffull;
	d = (d | d << 4) & 0x0f0f0f0f0f0f0f0full;
	d = __builtin_bswap64(d);
	return d + 0x3030303030303030ull +
	       (((d + 0x0606060606060606ull) >> 4) & 0x0101010101010101ull) * 39;
}

/* %*llx */
static inline void fmt_put_hex(struct outbuf *ob, u64 v, int width)
{
	char buf[16];
	size_t n, total;
	u64 hi, lo;
	char *p;

	if (width < 0 || width > 16 || unlikely(ob->cap < 16)) {
		fmt_put_padded(ob, buf, fmt_u64_hex(buf, v), width, false);
		return;
	}
	/* the common widths (0, 16): sixteen spaces stored at once, the digits over their end */
	n = (size_t)(64 - __builtin_clzll(v | 1) + 3) / 4;
	total = MAX(n, (size_t)width);
	hi = fmt_hex8((u32)(v >> 32));
	lo = fmt_hex8((u32)v);
	memcpy(buf, &hi, 8);
	memcpy(buf + 8, &lo, 8);
	p = outbuf_reserve(ob, 16);
	memcpy(p, "                ", 16);
	memcpy(p + total - n, buf + 16 - n, n);
	ob->len += total;
}

/* %0*llu */
static inline void fmt_put_u64_zero(struct outbuf *ob, u64 v, int width)
{
	char buf[FMT_U64_MAX];
	size_t n = fmt_u64_dec(buf, v), zeros = width > 0 && (size_t)width > n ? (size_t)width - n : 0;
	char *p;

	if (unlikely(zeros > FMT_U64_MAX)) {	/* wider than any number: in pieces */
		while (zeros--)
			outbuf_putc(ob, '0');
		outbuf_put(ob, buf, n);
		return;
	}
	p = outbuf_reserve(ob, zeros + n);
	memset(p, '0', zeros);
	memcpy(p + zeros, buf, n);
	ob->len += zeros + n;
}

#endif
