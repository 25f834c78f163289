/*
 * time_filter: perf's --time strings (util/time-utils.c in perf 6.1) turned into ranges of
 * sample times, and the test a sample passes. Parsing quirks are perf's on purpose: what perf
 * accepts is accepted, what it refuses is refused, with the same ranges.
 */
#include "analyzer/cli/time_filter.h"

#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"

#define NSEC_PER_SEC 1000000000ull

/*
 * perf's isspace (tools/lib/ctype.c) is the kernel's table: the C locale's spaces, and
 * 0xa0 (no-break space in Latin-1) too.
 */
static bool perf_isspace(char c)
{
	unsigned char u = (unsigned char)c;

	return u == ' ' || (u >= '\t' && u <= '\r') || u == 0xa0;
}

/*
 * perf's parse_nsec_time: seconds, optionally '.' and up to nine decimals. Both numbers go
 * through strtoul as in perf, leading blanks and signs included.
 */
static int parse_seconds(const char *str, u64 *ns)
{
	char frac[10], *end;
	unsigned long sec = strtoul(str, &end, 10), nsec = 0;

	if (*end != '.' && *end != '\0')
		return -1;
	if (*end == '.') {
		const char *digits = end + 1;
		size_t len = strlen(digits);

		if (len > 9)
			return -1;
		memcpy(frac, digits, len);
		memset(frac + len, '0', 9 - len);	/* ".5" is 500000000 ns */
		frac[9] = '\0';
		nsec = strtoul(frac, &end, 10);
		if (*end != '\0')
			return -1;
	}
	*ns = (u64)sec * NSEC_PER_SEC + nsec;
	return 0;
}

/*
 * perf_time__parse_str: "start,end", split at the first comma, either side possibly empty
 * (open). An empty string leaves the range as it was: open.
 */
static int parse_range(struct time_range *r, const char *str)
{
	char *copy, *end_str;
	int ret = 0;

	if (!*str)
		return 0;
	copy = xstrdup(str);
	end_str = strchr(copy, ',');
	if (end_str)
		*end_str++ = '\0';
	r->start = r->end = 0;
	if (*copy && parse_seconds(copy, &r->start))
		ret = -1;
	else if (end_str && *end_str && parse_seconds(end_str, &r->end))
		ret = -1;
	free(copy);
	if (!ret && r->end && r->end < r->start)
		ret = -1;
	return ret;
}

/*
 * perf_time__parse_strs: ranges separated by blanks, as many as there are commas (a string
 * without one is refused). Each range but the last ends at the first blank after its comma;
 * a second comma before that blank is an error, and so are ranges that overlap or are out of
 * order. Returns the number of ranges or -1.
 */
static int parse_ranges(struct time_range *ranges, const char *str)
{
	char *copy, *p, *piece;
	int num = 0, i, ret = -1;

	for (const char *c = str; *c; c++)
		num += *c == ',';
	if (!num)
		return -1;
	copy = xstrdup(str);
	p = copy;
	for (i = 0; i < num - 1; i++) {
		piece = p;
		/* every piece before the last holds one comma: the loop below made sure */
		p = strchr(p, ',') + 1;
		while (perf_isspace(*p))
			p++;
		while (*p && !perf_isspace(*p)) {
			if (*p++ == ',')
				goto out;
		}
		if (*p)
			*p++ = '\0';
		if (parse_range(&ranges[i], piece))
			goto out;
	}
	if (parse_range(&ranges[i], p))
		goto out;
	for (i = 0; i < num - 1; i++) {
		if (ranges[i].end >= ranges[i + 1].start)
			goto out;
	}
	ret = num;
out:
	free(copy);
	return ret;
}

/* perf's parse_percent: a number (strtod) directly before the first '%'; str is cut there. */
static int parse_percent(double *fraction, char *str)
{
	char *percent = strchr(str, '%'), *end;
	double d;

	if (!percent)
		return -1;
	*percent = '\0';
	d = strtod(str, &end);
	if (end != str + strlen(str))
		return -1;
	*fraction = d / 100.0;
	return 0;
}

/*
 * round() for the products below (never negative), without libm: analyze links no libm, whose
 * loading cost every run more than this function ever does. Exact: x - t is exact for x
 * under 2^52, and from 2^52 on every double is a whole number.
 */
static double round_positive(double x)
{
	double t;

	if (!(x < 0x1p52))
		return x;
	t = (double)(u64)x;
	return x - t >= 0.5 ? t + 1.0 : t;
}

/*
 * perf's set_percent_time: the slice [from, to] (fractions of the recording) as times. The
 * arithmetic is perf's, in double: first + round(fraction * span). A slice that ends before
 * the last sample stops 1 ns short, so consecutive slices do not share a sample.
 */
static int set_slice(struct time_range *r, double from, double to, u64 first, u64 last)
{
	u64 span = last - first;

	if (from < 0.0 || from > 1.0 || to < 0.0 || to > 1.0)
		return -1;
	r->start = (u64)((double)first + round_positive(from * (double)span));
	r->end = (u64)((double)first + round_positive(to * (double)span));
	if (r->end > r->start && r->end != last)
		r->end -= 1;
	return 0;
}

typedef int (*percent_fn)(char *str, struct time_range *r, u64 first, u64 last);

/* "10%/2": the second 10% of the recording (perf's percent_slash_split). */
static int percent_slash(char *str, struct time_range *r, u64 first, u64 last)
{
	char *slash = strchr(str, '/'), *end;
	double fraction;
	int n;

	if (!slash)
		return -1;
	*slash = '\0';
	if (parse_percent(&fraction, str))
		return -1;
	n = (int)strtol(slash + 1, &end, 10);
	if (*end)
		return -1;
	if (fraction <= 0.0)
		return -1;
	/* (double)n - 1: perf's n - 1 in int, without its overflow at INT_MIN */
	return set_slice(r, fraction * ((double)n - 1.0), fraction * (double)n, first, last);
}

/*
 * "0%-10%" (perf's percent_dash_split). An empty piece leaves the range open, as in perf. A
 * piece without '-' (in a list where another piece has one) crashes perf 6.1 (it reads the
 * missing end); here it is an invalid string.
 */
static int percent_dash(char *str, struct time_range *r, u64 first, u64 last)
{
	char *dash;
	double from, to;

	if (!*str)
		return 0;
	dash = strchr(str, '-');
	if (!dash)
		return -1;
	*dash = '\0';
	if (parse_percent(&from, str) || parse_percent(&to, dash + 1))
		return -1;
	return set_slice(r, from, to, first, last);
}

/* perf's percent_comma_split: pieces between commas, each parsed by fn; a last comma ends it. */
static int percent_list(struct time_range *ranges, int size, const char *str, u64 first,
			u64 last, percent_fn fn)
{
	char *copy = xstrdup(str), *p = copy, *comma;
	size_t len = strlen(copy);
	int n = 0, ret = -1;

	while (p < copy + len) {
		if (n >= size)
			goto out;
		comma = strchr(p, ',');
		if (comma)
			*comma = '\0';
		if (fn(p, &ranges[n], first, last) < 0)
			goto out;
		n++;
		if (!comma)
			break;
		p = comma + 1;
	}
	ret = n;
out:
	free(copy);
	return ret;
}

/*
 * perf_time__percent_parse_str: a '/' anywhere makes every piece a slice, else a '-' makes
 * every piece a span, else the string is one percentage, "50%" meaning "50%/1", its '%' the
 * last character.
 */
static int parse_percent_ranges(struct time_range *ranges, int size, const char *str, u64 first,
				u64 last)
{
	const char *percent = strchr(str, '%');
	size_t len = strlen(str);
	char *slice;
	int ret;

	if (strchr(str, '/'))
		return percent_list(ranges, size, str, first, last, percent_slash);
	if (strchr(str, '-'))
		return percent_list(ranges, size, str, first, last, percent_dash);
	if (!percent || percent != str + len - 1)
		return -1;
	slice = xmalloc(len + 3);
	memcpy(slice, str, len);
	memcpy(slice + len, "/1", 3);
	ret = percent_slash(slice, &ranges[0], first, last);
	free(slice);
	return ret ? -1 : 1;
}

enum time_filter_error time_filter__parse(struct time_filter *tf, const char *str, u64 first,
					  u64 last)
{
	bool percent = strchr(str, '%') != NULL;
	enum time_filter_error err;
	int size = 1, nr;

	/* perf_time__range_alloc: room for one range more than there are commas */
	for (const char *c = str; *c; c++)
		size += *c == ',';
	tf->ranges = xcalloc((size_t)size, sizeof(*tf->ranges));
	tf->nr = 0;
	if (percent && !first && !last) {
		err = TIME_FILTER_NO_SAMPLE_TIME;
		goto fail;
	}
	nr = percent ? parse_percent_ranges(tf->ranges, size, str, first, last)
		     : parse_ranges(tf->ranges, str);
	if (nr < 0) {
		err = TIME_FILTER_INVALID;
		goto fail;
	}
	tf->nr = nr;
	return TIME_FILTER_OK;
fail:
	time_filter__exit(tf);
	return err;
}

void time_filter__shift(struct time_filter *tf, u64 delta)
{
	for (int i = 0; i < tf->nr; i++) {
		tf->ranges[i].start += delta;
		tf->ranges[i].end += delta;
	}
}

const char *time_filter__strerror(enum time_filter_error err)
{
	switch (err) {
	case TIME_FILTER_OK:
		return "";
	case TIME_FILTER_INVALID:
		return "Invalid time string\n";
	case TIME_FILTER_NO_SAMPLE_TIME:
		return "HINT: no first/last sample time found in perf data.\n"
		       "Please use latest perf binary to execute 'perf record'\n"
		       "(if '--buildid-all' is enabled, please set '--timestamp-boundary').\n";
	}
	return "";
}

/*
 * perf_time__ranges_skip_sample: a range's end of 0 is open; so is a start of 0 (where the
 * comparison makes no difference).
 */
bool time_filter__skip(const struct time_filter *tf, u64 time)
{
	if (!tf->nr || !time)
		return false;
	if (tf->nr == 1) {
		const struct time_range *r = &tf->ranges[0];

		return (r->start && time < r->start) || (r->end && time > r->end);
	}
	for (int i = 0; i < tf->nr; i++) {
		const struct time_range *r = &tf->ranges[i];

		if (time >= r->start && (time <= r->end || !r->end))
			return false;
	}
	return true;
}

void time_filter__exit(struct time_filter *tf)
{
	free(tf->ranges);
	tf->ranges = NULL;
	tf->nr = 0;
}
