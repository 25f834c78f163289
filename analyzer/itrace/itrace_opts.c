/*
 * itrace_opts: the --itrace options as perf 6.1 parses them (itrace_parse_synth_opts) and its
 * defaults, and the branch flags of AUX-trace samples as perf script prints them (-F flags).
 */
#include "analyzer/itrace/itrace.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* perf auxtrace.h: PERF_ITRACE_DEFAULT_PERIOD(_TYPE), the branch stack size */
#define DEFAULT_PERIOD 100000
#define PERIOD_NANOSECS 2
#define MAX_LAST_BRANCH_SZ 1024

void itrace_opts__set_default(struct itrace_opts *o, bool no_sample)
{
	bool set = o->set, dont_decode = o->dont_decode, insn_bytes = o->insn_bytes;
	bool thread_stack = o->thread_stack;

	memset(o, 0, sizeof(*o));
	o->set = set;
	o->dont_decode = dont_decode;
	o->insn_bytes = insn_bytes;
	o->thread_stack = thread_stack;
	o->branches = o->transactions = o->errors = o->ptwrites = o->pwr_events = true;
	o->default_report = !no_sample;
	if (no_sample) {
		o->period_type = 0;
		o->period = 1;
		o->calls = true;
	} else {
		o->instructions = true;
		o->period_type = PERIOD_NANOSECS;
		o->period = DEFAULT_PERIOD;
	}
}

static const char *skip_separators(const char *p)
{
	while (*p == ' ' || *p == ',')
		p++;
	return p;
}

/* e and d take +x/-x flag letters: a-z, as perf's get_flag */
static int skip_flags(const char **p)
{
	while (**p == '+' || **p == '-' || **p == ' ') {
		if (**p == ' ') {
			(*p)++;
			continue;
		}
		(*p)++;
		if (**p < 'a' || **p > 'z')
			return -1;
		(*p)++;
	}
	return 0;
}

/* "i" then an optional period: N then i, t, ns, us or ms (perf's itrace_parse_synth_opts) */
static int parse_period(struct itrace_opts *o, const char **pp, bool *type_set, bool *set)
{
	const char *p = skip_separators(*pp);
	char *end;

	if (!isdigit((unsigned char)*p)) {
		*pp = p;
		return 0;
	}
	o->period = strtoull(p, &end, 10);
	*set = true;
	p = skip_separators(end);
	switch (*p++) {
	case 'i':
		o->period_type = 0;
		break;
	case 't':
		o->period_type = 1;
		break;
	case 'm':
		o->period *= 1000;
		/* fall through */
	case 'u':
		o->period *= 1000;
		/* fall through */
	case 'n':
		if (*p++ != 's')
			return -1;
		o->period_type = PERIOD_NANOSECS;
		break;
	case '\0':
		*pp = p - 1;
		return 1;	/* the end of the string */
	default:
		return -1;
	}
	*type_set = true;
	*pp = p;
	return 0;
}

/* a g/G/l/L size: 1..max */
/* An optional size after a letter (in *size when given) */
static int parse_size(const char **pp, unsigned long max, u32 *size)
{
	const char *p = skip_separators(*pp);
	char *end;
	unsigned long v;

	*pp = p;
	if (!isdigit((unsigned char)*p))
		return 0;
	v = strtoul(p, &end, 10);
	*pp = end;
	if (!v || v > max)
		return -1;
	if (size)
		*size = (u32)v;
	return 0;
}

int itrace_opts__parse(struct itrace_opts *o, const char *str)
{
	bool type_set = false, period_set = false;
	const char *p;
	char *end;
	int ret;

	o->set = true;
	if (!str) {
		itrace_opts__set_default(o, true);
		return 0;
	}
	for (p = str; *p;) {
		switch (*p++) {
		case 'i':
			o->instructions = true;
			ret = parse_period(o, &p, &type_set, &period_set);
			if (ret < 0)
				return -1;
			if (ret > 0)
				goto out;
			break;
		case 'b':
			o->branches = true;
			break;
		case 'x':
			o->transactions = true;
			break;
		case 'e':
			o->errors = true;
			if (skip_flags(&p))
				return -1;
			break;
		case 'd':
			if (skip_flags(&p))
				return -1;
			break;
		case 'c':
			o->branches = o->calls = true;
			break;
		case 'r':
			o->branches = o->returns = true;
			break;
		case 'g':
			o->callchain = true;
			o->callchain_sz = ITRACE_DEFAULT_CALLCHAIN_SZ;
			if (parse_size(&p, ITRACE_MAX_CALLCHAIN_SZ, &o->callchain_sz))
				return -1;
			break;
		case 'G':	/* call chains added to the recorded events: none here */
			o->add_callchain = true;
			if (parse_size(&p, ITRACE_MAX_CALLCHAIN_SZ, NULL))
				return -1;
			break;
		case 'l':
		case 'L':
			if (parse_size(&p, MAX_LAST_BRANCH_SZ, NULL))
				return -1;
			break;
		case 's':
			o->initial_skip = strtoul(p, &end, 10);
			if (end == p)
				return -1;
			p = end;
			break;
		case 'w':
			o->ptwrites = true;
			break;
		case 'p':
			o->pwr_events = true;
			break;
		case 'o': case 'f': case 'm': case 't': case 'a': case 'M':
		case 'q': case 'A': case 'Z': case ' ': case ',':
			break;	/* events BTS never has (PT's), or modifiers */
		default:
			return -1;
		}
	}
out:
	if (o->instructions) {
		if (!type_set)
			o->period_type = PERIOD_NANOSECS;
		if (!period_set)
			o->period = DEFAULT_PERIOD;
	}
	return 0;
}

/* perf's sample_flags[] (util/trace-event... event.c): the names of the common kinds */
static const struct {
	u32 flags;
	const char *name;
} flag_names[] = {
	{ IP_FLAG_BRANCH | IP_FLAG_CALL, "call" },
	{ IP_FLAG_BRANCH | IP_FLAG_RETURN, "return" },
	{ IP_FLAG_BRANCH | IP_FLAG_CONDITIONAL, "jcc" },
	{ IP_FLAG_BRANCH, "jmp" },
	{ IP_FLAG_BRANCH | IP_FLAG_CALL | IP_FLAG_INTERRUPT, "int" },
	{ IP_FLAG_BRANCH | IP_FLAG_RETURN | IP_FLAG_INTERRUPT, "iret" },
	{ IP_FLAG_BRANCH | IP_FLAG_CALL | IP_FLAG_SYSCALLRET, "syscall" },
	{ IP_FLAG_BRANCH | IP_FLAG_RETURN | IP_FLAG_SYSCALLRET, "sysret" },
	{ IP_FLAG_BRANCH | IP_FLAG_ASYNC, "async" },
	{ IP_FLAG_BRANCH | IP_FLAG_CALL | IP_FLAG_ASYNC | IP_FLAG_INTERRUPT, "hw int" },
	{ IP_FLAG_BRANCH | IP_FLAG_TX_ABORT, "tx abrt" },
	{ IP_FLAG_BRANCH | IP_FLAG_TRACE_BEGIN, "tr strt" },
	{ IP_FLAG_BRANCH | IP_FLAG_TRACE_END, "tr end" },
	{ IP_FLAG_BRANCH | IP_FLAG_CALL | IP_FLAG_VMENTRY, "vmentry" },
	{ IP_FLAG_BRANCH | IP_FLAG_CALL | IP_FLAG_VMEXIT, "vmexit" },
};

#define ADDITIONAL_STATE (IP_FLAG_IN_TX | IP_FLAG_INTR_DISABLE | IP_FLAG_INTR_TOGGLE)

static const char *flags_name(u32 flags)
{
	for (size_t i = 0; i < ARRAY_SIZE(flag_names); i++)
		if (flag_names[i].flags == flags)
			return flag_names[i].name;
	return NULL;
}

void itrace_flags__format(u32 flags, char *buf, size_t size)
{
	static const char chars[] = "bcrosyiABExghDt";	/* PERF_IP_FLAG_CHARS */
	u32 kind = flags & ~ADDITIONAL_STATE;
	char xs[16] = "";
	const char *name;
	size_t pos = 0, i;

	if (flags & ADDITIONAL_STATE)
		snprintf(xs, sizeof(xs), "(%s%s%s)", flags & IP_FLAG_IN_TX ? "x" : "",
			 flags & IP_FLAG_INTR_DISABLE ? "D" : "",
			 flags & IP_FLAG_INTR_TOGGLE ? "t" : "");
	if ((name = flags_name(kind))) {
		snprintf(buf, size, "%-15s%6s", name, xs);
		return;
	}
	/* perf 6.1: a trace begin or end on a branch of a known kind */
	if ((flags & IP_FLAG_TRACE_BEGIN) && (name = flags_name(kind & ~IP_FLAG_TRACE_BEGIN))) {
		snprintf(buf, size, "tr strt %-7s%6s", name, xs);
		return;
	}
	if ((flags & IP_FLAG_TRACE_END) && (name = flags_name(kind & ~IP_FLAG_TRACE_END))) {
		snprintf(buf, size, "tr end  %-7s%6s", name, xs);
		return;
	}
	if (!size)
		return;
	if ((flags & IP_FLAG_TRACE_BEGIN) && pos + 1 < size)
		buf[pos++] = 'B';
	if ((flags & IP_FLAG_TRACE_END) && pos + 1 < size)
		buf[pos++] = 'E';
	for (i = 0; i < 32 && pos + 1 < size; i++, flags >>= 1) {
		if (!(flags & 1))
			continue;
		if (i < sizeof(chars) - 1) {
			if (chars[i] != ' ')
				buf[pos++] = chars[i];
		} else {
			buf[pos++] = '?';
		}
	}
	buf[pos] = '\0';
}

int itrace_opts__option(const char *arg, void *data)
{
	if (itrace_opts__parse(data, arg)) {
		fprintf(stderr, "Bad Instruction Tracing options '%s'\n", arg);
		return -1;
	}
	return 0;
}
