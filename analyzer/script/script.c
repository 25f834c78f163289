/*
 * script: `analyze script`, perf script 6.1's default per-event output. Reads the session in
 * perf's delivery order and keeps the machine model current; each sample's comm and maps are
 * resolved on the reading thread as it comes, its symbols and text on the aggregator (or
 * here: see struct script), written through lib/outbuf, nothing allocated per event.
 * Tracepoint fields are formatted by trace_fields (libtraceevent), on the reading thread.
 */
#include "analyzer/commands.h"
#include "analyzer/script/script.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analyzer/hist/aggregate.h"
#include "analyzer/output/dump.h"
#include "analyzer/output/header.h"
#include "analyzer/itrace/itrace.h"
#include "analyzer/cli/name_list.h"
#include "analyzer/cli/options.h"
#include "analyzer/hist/sample_frames.h"
#include "analyzer/cli/session_warn.h"
#include "analyzer/cli/time_filter.h"
#include "analyzer/output/trace_fields.h"
#include "lib/error.h"
#include "lib/fmt.h"
#include "lib/workqueue.h"
#include "lib/xalloc.h"
#include "machine/inline.h"
#include "machine/machine.h"
#include "machine/unwind.h"
#include "readers/evsel_name.h"
#include "readers/session.h"

static const char *const script_usage = "analyze script [<options>]";

#define MAX_CPUS 4096
#define OUTPUT_BUFFER (64 << 10)	/* stays in the core's cache between writes */

/* builtin-script.c's all_output_options: every name perf accepts, and what we print of them */
static const struct {
	const char *name;
	u32 field;	/* 0: perf knows it, analyze does not print it yet */
} field_names[] = {
	{ "comm", SF_COMM }, { "tid", SF_TID }, { "pid", SF_PID }, { "time", SF_TIME },
	{ "cpu", SF_CPU }, { "event", SF_EVNAME }, { "trace", SF_TRACE }, { "ip", SF_IP },
	{ "sym", SF_SYM }, { "dso", SF_DSO }, { "addr", SF_ADDR }, { "symoff", SF_SYMOFFSET },
	{ "srcline", SF_SRCLINE }, { "period", SF_PERIOD }, { "iregs", 0 }, { "uregs", 0 },
	{ "brstack", 0 }, { "brstacksym", 0 }, { "data_src", 0 }, { "weight", 0 },
	{ "bpf-output", SF_BPF_OUTPUT }, { "callindent", SF_CALLINDENT }, { "insn", SF_INSN }, { "insnlen", 0 },
	{ "synth", SF_SYNTH }, { "phys_addr", 0 }, { "metric", 0 }, { "misc", 0 }, { "srccode", 0 },
	{ "ipc", 0 }, { "tod", 0 }, { "data_page_size", 0 }, { "code_page_size", 0 },
	{ "ins_lat", 0 }, { "brstackinsnlen", 0 }, { "machine_pid", 0 }, { "vcpu", 0 },
	{ "cgroup", 0 }, { "retire_lat", 0 }, { "brstackoff", 0 }, { "flags", SF_FLAGS },
};

/* builtin-script.c's defaults: the same for every kind of sampled event but tracepoints */
#define SF_DEFAULT                                                                          \
	(SF_COMM | SF_TID | SF_CPU | SF_TIME | SF_EVNAME | SF_IP | SF_SYM | SF_SYMOFFSET |  \
	 SF_DSO | SF_PERIOD)

int script_output_type(u32 attr_type)
{
	if (attr_type == PERF_TYPE_SYNTH)
		return SCRIPT_TYPE_SYNTH;
	return attr_type < SCRIPT_TYPE_OTHER ? (int)attr_type : SCRIPT_TYPE_OTHER;
}

void script_fields__init(struct script_fields *f)
{
	memset(f, 0, sizeof(*f));
	for (int t = 0; t < SCRIPT_TYPES; t++)
		f->fields[t] = SF_DEFAULT;
	f->fields[PERF_TYPE_SOFTWARE] |= SF_BPF_OUTPUT;
	f->fields[SCRIPT_TYPE_SYNTH] = (SF_DEFAULT & ~SF_PERIOD) | SF_SYNTH;
	f->fields[PERF_TYPE_TRACEPOINT] = SF_COMM | SF_TID | SF_CPU | SF_TIME | SF_EVNAME | SF_TRACE;
}

const char *script_fields__strerror(enum script_fields_error err)
{
	switch (err) {
	case SF_OK:
		return "";
	case SF_ERR_INVALID:
		return "Invalid field requested.";
	case SF_ERR_BADMIX:
		return "Cannot mix +-field with overridden fields";
	case SF_ERR_TYPE:
		return "Invalid event type in field string.";
	case SF_ERR_EMPTY:
		return "Cannot set fields to 'none' for all event types.";
	case SF_ERR_UNSUPPORTED:
		return "analyze script does not print this field yet";
	case SF_ERR_NOT_VALID:
		return "Field not valid for the events of that type.";
	}
	return "";
}

static int field_type(const char *prefix)
{
	if (strcmp(prefix, "synth") == 0)
		return SCRIPT_TYPE_SYNTH;
	static const char *const names[] = { "hw", "sw", "trace", NULL, "raw", "break" };

	for (int t = 0; t < (int)ARRAY_SIZE(names); t++)
		if (names[t] && strcmp(prefix, names[t]) == 0)
			return t;
	return -1;
}

static void set_field(struct script_fields *f, int t, u32 field, bool remove)
{
	if (remove) {
		f->fields[t] &= ~field;
		f->user_fields[t] &= ~field;
	} else {
		f->fields[t] |= field;
		f->user_fields[t] |= field;
	}
	/* perf 6.1 takes +flags aside (print_flags): BTS lines keep their " => addr" */
	if (field == SF_FLAGS && !remove)
		return;
	f->user_set[t] = true;
	f->wildcard_set[t] = true;
}

/*
 * builtin-script.c's output[].invalid_fields: trace only for tracepoints; bpf-output not for
 * hardware, hardware-cache, raw and breakpoint events (perf accepts it for tracepoints and
 * other types too, where it prints nothing: analyze leaves it off them). Type 6 here is
 * perf's synth type, which analyze has no events of.
 */
static bool field_invalid(u32 field, int t)
{
	if (field == SF_TRACE)
		return t != PERF_TYPE_TRACEPOINT;
	if (field == SF_BPF_OUTPUT)
		return t == PERF_TYPE_HARDWARE || t == PERF_TYPE_HW_CACHE || t == PERF_TYPE_RAW ||
		       t == PERF_TYPE_BREAKPOINT;
	return false;
}

/* builtin-script.c's event_type() */
static const char *event_type_name(int t)
{
	static const char *const names[] = { "hardware", "software", "tracepoint",
					     "hardware-cache" };

	return t >= 0 && t < (int)ARRAY_SIZE(names) ? names[t] : "unknown";
}

enum script_fields_error script_fields__parse(struct script_fields *f, const char *str, char *bad,
					      size_t bad_size)
{
	enum { DEFAULT, SET, ADD, REMOVE } change = DEFAULT;
	enum script_fields_error err = SF_OK;
	char *copy = xstrdup(str), *list = copy, *colon = strchr(copy, ':'), *save = NULL;
	int type = -1;

	if (bad_size)
		bad[0] = '\0';
	if (colon) {
		*colon = '\0';
		list = colon + 1;
		type = field_type(copy);
		if (type < 0) {
			err = SF_ERR_TYPE;
			goto out;
		}
	} else if (!*copy) {
		err = SF_ERR_EMPTY;
		goto out;
	}
	/* a plain list replaces the defaults; one with + or - anywhere edits them */
	if (!strchr(list, '+') && !strchr(list, '-')) {
		for (int t = 0; t < SCRIPT_TYPES; t++) {
			if (type >= 0 && t != type)
				continue;
			f->fields[t] = 0;
			f->user_set[t] = true;
			f->wildcard_set[t] = type < 0;
		}
	}
	for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		bool remove = false;
		size_t i;

		if (*tok == '+' || *tok == '-') {
			if (change == SET) {
				err = SF_ERR_BADMIX;
				goto out;
			}
			remove = *tok++ == '-';
			change = remove ? REMOVE : ADD;
		} else {
			if (change != SET && change != DEFAULT) {
				err = SF_ERR_BADMIX;
				goto out;
			}
			change = SET;
		}
		for (i = 0; i < ARRAY_SIZE(field_names); i++)
			if (strcmp(tok, field_names[i].name) == 0)
				break;
		if (i == ARRAY_SIZE(field_names) || !field_names[i].field) {
			err = i == ARRAY_SIZE(field_names) ? SF_ERR_INVALID : SF_ERR_UNSUPPORTED;
			snprintf(bad, bad_size, "%s", tok);
			goto out;
		}
		if (type >= 0 && field_invalid(field_names[i].field, type)) {
			err = SF_ERR_NOT_VALID;
			snprintf(bad, bad_size, "'%s' not valid for %s events.", tok,
				 event_type_name(type));
			goto out;
		}
		for (int t = 0; t < SCRIPT_TYPES; t++) {
			if (type >= 0 && t != type)
				continue;
			/* perf warns for every type it leaves out, its synth type before other */
			if (t == SCRIPT_TYPE_OTHER && type < 0 && field_invalid(field_names[i].field, 6))
				fprintf(stderr, "'%s' not valid for %s events. Ignoring.\n", tok,
					event_type_name(6));
			if (field_invalid(field_names[i].field, t)) {
				/* (the synth type's warning came with other's, as perf orders them) */
				if (type < 0 && t != SCRIPT_TYPE_SYNTH)
					fprintf(stderr, "'%s' not valid for %s events. Ignoring.\n", tok,
						event_type_name(t));
				continue;
			}
			if (field_names[i].field == SF_BPF_OUTPUT && t != PERF_TYPE_SOFTWARE)
				continue;
			set_field(f, t, field_names[i].field, remove);
			if (type >= 0)
				f->wildcard_set[t] = true;
		}
	}
out:
	free(copy);
	return err;
}

int script_time__format(char *buf, size_t size, u64 time, bool ns)
{
	/* "%5llu.%09llu: " (ns), or perf's timestamp__scnprintf_usec: "%llu.%06llu" truncated
	 * to microseconds, in a 12-wide column, then ": " */
	char num[FMT_U64_MAX + 1 + 9];
	u64 frac = ns ? time % 1000000000 : time % 1000000000 / 1000;
	int digits = ns ? 9 : 6, width = ns ? 5 : 12;
	size_t n = fmt_u64_dec(num, time / 1000000000), len;

	if (ns) {
		len = n < 5 ? 5 : n;
		memmove(num + len - n, num, n);
		memset(num, ' ', len - n);
		n = len;
	}
	num[n++] = '.';
	for (int i = digits - 1; i >= 0; i--, frac /= 10)
		num[n + (size_t)i] = (char)('0' + frac % 10);
	n += (size_t)digits;
	len = (size_t)width > n ? (size_t)width : n;
	if (size < len + 3)
		return -1;
	memset(buf, ' ', len - n);
	memcpy(buf + len - n, num, n);
	memcpy(buf + len, ": ", 3);
	return (int)len + 2;
}

struct script {
	struct event_consumer consumer;
	struct perf_session session;
	struct machine machine;
	struct script_fields f;
	bool checked;	/* the fields were checked against the events' sample_types */
	bool use_callchain;	/* perf's symbol_conf.use_callchain */
	bool no_callchain;	/* -G */
	u32 max_stack;		/* --max-stack: frames shown a sample */
	bool ns;
	bool show_task_events, show_mmap_events, show_switch_events, show_lost_events;
	bool print_features;	/* --header on a pipe: its features as their records come */
	bool check_failed;	/* a pipe's events lack a field -F asked for */
	int name_width;
	struct name_list comms, pids, tids;
	u8 *cpus;	/* -C: a byte per cpu, or NULL */
	struct outbuf out;
	/*
	 * With workers, samples' lines are made on the aggregator, in order (pipelined); what
	 * this thread prints itself waits for them first (script_sync).
	 */
	bool pipelined;
	struct aggregate agg;
	bool stop;	/* the aggregator saw the output go away (atomic) */
	u64 time_sec;	/* the whole seconds of the last time printed, */
	char time_prefix[32];	/* their text: padding, digits and the point */
	size_t time_prefix_len;	/* (0: none yet) */
	/* the text print_start made last before the time (comm, tids, cpu), and what it was
	 * made of: lines come in runs of one thread */
	struct {
		const struct evsel *evsel;
		const char *comm;
		u32 pid, tid, cpu;
		size_t len;	/* 0: none */
		char text[80];
	} start;
	bool tty;	/* stdout is a terminal: each line goes out as it is made */
	struct time_filter time;	/* --time: samples only (perf filters no side band) */
	struct trace_fields *tf;	/* tracepoints' fields, once the tracing data is read */
	bool trace_failed;	/* the tracing data did not load: error_get() says why */
	struct unwinder *unwinder;	/* --call-graph dwarf samples' user frames, or NULL */
	/* AUX-area traces: the decoder, once AUXTRACE_INFO came (--itrace, itrace.h) */
	struct itrace_opts itrace_opts;
	struct itrace *itrace;
	struct itrace_consumer itrace_consumer;
	int callindent_spacing;	/* perf's static spacing of callindent */
	int pad_dso;		/* --call-trace: dso names padded to 50 (pad_output_len_dso) */
	u32 nr_itrace_errors;
	bool itrace_refused;
	bool dump;	/* -D */	/* the decoder's event lacks a field -F asked for */
	struct inlines *inlines;	/* frames' inlined functions (used where lines are made) */
	struct inlines *lines;		/* -F srcline: where source lines come from (inlines, or
					   its own with --no-inline) */
};

static int stype_check(struct script *s, int t, struct evsel *evsel, u64 bit, const char *what,
		       u32 field)
{
	if (!(s->f.fields[t] & field) || (evsel->attr.sample_type & bit))
		return 0;
	/* evsel__do_check_stype's allow_user_set: a file with AUX data may (ADDR, CPU) */
	if ((s->f.user_fields[t] & field) && (bit == PERF_SAMPLE_ADDR || bit == PERF_SAMPLE_CPU) &&
	    perf_session__has_feat(&s->session, HEADER_AUXTRACE))
		return 0;
	if (s->f.user_fields[t] & field) {
		fprintf(stderr,
			"Samples for '%s' event do not have %s attribute set. Cannot print '%s' field.\n",
			evsel__name(evsel), what, what);
		return -1;
	}
	s->f.fields[t] &= ~field;	/* not asked for: dropped from the defaults */
	return 0;
}

/*
 * perf reads the tracing data as it opens the file (a pipe: as its record comes) and refuses
 * a recording whose tracepoint events have no format there (evsel__prepare_tracepoint_event).
 */
static int script_load_trace_fields(struct script *s)
{
	bool tracepoints = false;

	for (size_t i = 0; i < s->session.nr_evsels; i++)
		tracepoints |= s->session.evsels[i].attr.type == PERF_TYPE_TRACEPOINT;
	if (!tracepoints || s->tf)
		return 0;
	s->pipelined = false;	/* their lines are made on this thread: no use handing others on */
	s->tf = trace_fields__new(&s->session, &s->machine);
	if (!s->tf) {
		s->trace_failed = true;
		return -1;
	}
	return 0;
}

/* perf 6.1's evsel__check_attr for the first event of type t, in its order and words */
static int check_type(struct script *s, int t, struct evsel *evsel)
{
	u64 st = evsel->attr.sample_type;

	if (!s->f.fields[t])
		return 0;
	if (stype_check(s, t, evsel, PERF_SAMPLE_IP, "IP", SF_IP) ||
	    stype_check(s, t, evsel, PERF_SAMPLE_ADDR, "ADDR", SF_ADDR))
		return -1;
	if ((s->f.fields[t] & SF_SYM) && !(st & (PERF_SAMPLE_IP | PERF_SAMPLE_ADDR))) {
		fprintf(stderr, "Display of symbols requested but neither sample IP nor sample address\navailable. Hence, no addresses to convert to symbols.\n");
		return -1;
	}
	if ((s->f.fields[t] & SF_SYMOFFSET) && !(s->f.fields[t] & SF_SYM)) {
		fprintf(stderr, "Display of offsets requested but symbol is notselected.\n");
		return -1;
	}
	if ((s->f.fields[t] & SF_DSO) && !(st & (PERF_SAMPLE_IP | PERF_SAMPLE_ADDR))) {
		fprintf(stderr, "Display of DSO requested but no address to convert.\n");
		return -1;
	}
	if ((s->f.fields[t] & SF_SRCLINE) && !(s->f.fields[t] & SF_IP)) {
		fprintf(stderr, "Display of source line number requested but sample IP is not\nselected. Hence, no address to lookup the source line number.\n");
		return -1;
	}
	if (stype_check(s, t, evsel, PERF_SAMPLE_TID, "TID", SF_TID | SF_PID) ||
	    stype_check(s, t, evsel, PERF_SAMPLE_TIME, "TIME", SF_TIME) ||
	    stype_check(s, t, evsel, PERF_SAMPLE_CPU, "CPU", SF_CPU))
		return -1;
	return 0;
}

/* The name column is as wide as the longest event name. */
static void widen_name(struct script *s, struct evsel *evsel)
{
	const char *name = evsel__name(evsel);
	int len = name ? (int)strlen(name) : 0;

	if (len > s->name_width)
		s->name_width = len;
}

/*
 * perf's perf_session__check_output_opt: the first event of each type decides which of its
 * type's fields can be printed; a field -F asked for that its samples lack is an error.
 */
static int script_check_fields(struct script *s)
{
	static const char *const type_names[] = { "HW", "SW", "TP", "HW_CACHE", "RAW", "BKPT",
						   "OTHER", "SYNTH" };

	s->use_callchain = false;
	for (size_t i = 0; i < s->session.nr_evsels; i++)
		s->use_callchain |= !!(s->session.evsels[i].attr.sample_type & PERF_SAMPLE_CALLCHAIN);
	s->use_callchain &= !s->no_callchain;
	for (int t = 0; t < SCRIPT_TYPES; t++) {
		struct evsel *evsel = NULL;

		/*
		 * perf looks for the first event whose attr type is t (attr_type(): other is
		 * type 7, perf's OUTPUT_TYPE_OTHER): events of PMUs such as intel_bts go unchecked
		 */
		for (size_t i = 0; i < s->session.nr_evsels && !evsel; i++)
			if (t == SCRIPT_TYPE_OTHER ? s->session.evsels[i].attr.type == SCRIPT_TYPE_OTHER + 1
						   : s->session.evsels[i].attr.type == (u32)t)
				evsel = &s->session.evsels[i];
		if (!evsel) {
			/* AUX traces' samples come from events perf makes as it decodes them */
			if (s->f.user_set[t] && !s->f.wildcard_set[t] &&
			    !perf_session__has_feat(&s->session, HEADER_AUXTRACE)) {
				fprintf(stderr, "%s events do not exist. Remove corresponding -F option to proceed.\n",
					type_names[t]);
				return -1;
			}
			continue;
		}
		if (check_type(s, t, evsel))
			return -1;
	}
	/* perf: tracepoints show their frames when they have some and -F left them alone */
	for (size_t i = 0; s->use_callchain && !s->f.user_set[PERF_TYPE_TRACEPOINT] &&
			   i < s->session.nr_evsels; i++) {
		const struct perf_event_attr *attr = &s->session.evsels[i].attr;

		if (attr->type == PERF_TYPE_TRACEPOINT && (attr->sample_type & PERF_SAMPLE_CALLCHAIN)) {
			s->f.fields[PERF_TYPE_TRACEPOINT] |= SF_IP | SF_SYM | SF_SYMOFFSET | SF_DSO;
			break;
		}
	}
	if (script_load_trace_fields(s))
		return -1;
	for (size_t i = 0; i < s->session.nr_evsels; i++)
		widen_name(s, &s->session.evsels[i]);
	s->checked = true;
	return 0;
}

/*
 * A sample's line as the reading thread resolved it, with the model as it is at the sample
 * (comm, maps); the symbols and the text come later, on the aggregator when there is one.
 * It holds no references: comms are interned, dsos live as long as the machine.
 */
struct line_item {
	struct evsel *evsel;
	const char *comm;
	struct dso *dso;	/* the ip's, or NULL */
	u64 addr;		/* the ip in its map */
	u64 ip, time, period;
	u32 pid, tid, cpu;
	u32 flags;		/* AUX-trace samples' branch kind */
	u8 insn_len;		/* and instruction (Intel PT's) */
	u8 insn[16];
	u32 call_depth;		/* and the calls open then (-F callindent) */
	char synth[48];		/* a synthesized event's data as text (-F synth) */
	u32 nr_frames;		/* of frames[], when callchain */
	u32 first_unwound;	/* frames[] from this one on were unwound (dwarf): perf 6.1
				   looks for inlined functions in those only (unwind_entry) */
	bool callchain;		/* the ip field is the sample's callchain */
	u64 sample_addr;	/* the sample's addr field, */
	struct dso *addr_dso;	/* its dso and address in it (page faults: addr_location) */
	u64 addr_in_dso;
	const void *raw_data;	/* a tracepoint's fields: only while the record is at hand */
	u32 raw_size;		/* (lines with them are made on the reading thread) */
	struct sample_frame frames[];
};

/* perf's __symbol__fprintf_symname_offs and map__fprintf_dsoname, for one address. */
static void print_sym_dso(struct script *s, struct dso *dso, u64 addr, u32 fields)
{
	struct addr_location al = { .dso = dso, .addr = addr };

	if (fields & SF_SYM) {
		machine__resolve_symbol(&s->machine, &al);
		outbuf_putc(&s->out, ' ');
		if (al.sym) {
			fmt_put_str(&s->out, symbol__name(al.symtab, al.sym));
			if (fields & SF_SYMOFFSET) {
				fmt_put_str(&s->out, "+0x");
				fmt_put_hex(&s->out, al.addr - al.sym->start, 0);
			}
		} else {
			fmt_put_str(&s->out, "[unknown]");
		}
	}
	if (fields & SF_DSO) {
		fmt_put_str(&s->out, " (");
		fmt_put_str(&s->out, dso ? dso->long_name : "[unknown]");
		outbuf_putc(&s->out, ')');
	}
}

/*
 * map__fprintf_srcline: "\n  FILE:LINE" for the ip at addr in dso, as addr2line gives it, or
 * "\n  DSO[ADDR]" when it gives nothing; nothing for its "??:0" (a function without a line)
 */
static void print_srcline(struct script *s, struct dso *dso, u64 addr, u32 fields)
{
	char buf[4096];

	if (!(fields & SF_SRCLINE) || !dso)
		return;
	if (!inlines__srcline(s->lines, dso, addr, buf, sizeof(buf)))
		snprintf(buf, sizeof(buf), "%s[%llx]",
			 dso->short_name ? dso->short_name : dso->long_name, (unsigned long long)addr);
	else if (!strncmp(buf, "??:0", 4))
		return;
	fmt_put_str(&s->out, "\n  ");
	fmt_put_str(&s->out, buf);
}

/* A line of a frame's inline records: the record's own srcline, as it is ("??:0" too) */
static void print_record_line(struct script *s, const struct sample_frame *frame,
			      const char *line, u32 fields)
{
	if (!line) {
		print_srcline(s, frame->dso, frame->addr, fields);
	} else if (fields & SF_SRCLINE) {
		fmt_put_str(&s->out, "\n  ");
		fmt_put_str(&s->out, line);
	}
}

static bool thread_filtered(struct script *s, const struct thread *t)
{
	return (s->comms.nr && !name_list__has(&s->comms, thread__comm_str(t))) ||
	       (s->pids.nr && !int_list__has(&s->pids, t->pid)) ||
	       (s->tids.nr && !int_list__has(&s->tids, t->tid));
}

/* script_time__format, keeping the text of the whole seconds from line to line */
static void print_time(struct script *s, u64 time)
{
	u64 sec = time / 1000000000, frac = time % 1000000000;
	size_t digits = s->ns ? 9 : 6, n;
	char *p;

	if (sec != s->time_sec || !s->time_prefix_len) {
		char buf[64];
		int len = script_time__format(buf, sizeof(buf), sec * 1000000000, s->ns);

		s->time_prefix_len = (size_t)len - digits - 2;	/* up to the point */
		memcpy(s->time_prefix, buf, s->time_prefix_len);
		s->time_sec = sec;
	}
	if (!s->ns)
		frac /= 1000;	/* truncated, as perf does */
	n = s->time_prefix_len + digits + 2;
	p = outbuf_reserve(&s->out, n);
	memcpy(p, s->time_prefix, s->time_prefix_len);
	p += s->time_prefix_len;
	for (size_t i = digits; i-- > 0; frac /= 10)
		p[i] = (char)('0' + frac % 10);
	memcpy(p + digits, ": ", 2);
	s->out.len += n;
}

/*
 * perf's perf_sample__fprintf_start: comm, tid, cpu, time, for samples and side-band records
 * alike.
 */
static void print_start(struct script *s, struct evsel *evsel, const char *comm, u32 pid, u32 tid,
			u32 cpu, u64 time)
{
	u32 fields = s->f.fields[script_output_type(evsel->attr.type)];
	struct outbuf *ob = &s->out;
	size_t from = ob->len;

	if (s->start.len && s->start.evsel == evsel && s->start.comm == comm &&
	    s->start.pid == pid && s->start.tid == tid && s->start.cpu == cpu) {
		outbuf_put(ob, s->start.text, s->start.len);
		goto time;
	}
	if (fields & SF_COMM) {
		/* perf leaves the comm unpadded when frames follow */
		bool unpadded = (fields & SF_IP) && s->use_callchain &&
				(evsel->attr.sample_type & PERF_SAMPLE_CALLCHAIN);

		fmt_put_padded(ob, comm, strlen(comm), unpadded ? 0 : 16, false);
		outbuf_putc(ob, ' ');
	}
	if ((fields & SF_PID) && (fields & SF_TID)) {	/* "%5d/%-5d " */
		fmt_put_int(ob, (int)pid, 5, false);
		outbuf_putc(ob, '/');
		fmt_put_int(ob, (int)tid, 5, true);
		outbuf_putc(ob, ' ');
	} else if (fields & (SF_PID | SF_TID)) {
		fmt_put_int(ob, (int)(fields & SF_PID ? pid : tid), 5, false);
		outbuf_putc(ob, ' ');
	}
	if (fields & SF_CPU) {
		if (cpu < 1000) {	/* "[%03d] " */
			outbuf_putc(ob, '[');
			fmt_put_u64_zero(ob, cpu, 3);
			fmt_put_str(ob, "] ");
		} else {
			char buf[16];

			outbuf_put(ob, buf, (size_t)snprintf(buf, sizeof(buf), "[%03d] ", (int)cpu));
		}
	}
	/* (kept when the buffer was not flushed meanwhile and it fits) */
	s->start.len = 0;
	if (ob->len > from && ob->len - from <= sizeof(s->start.text)) {
		s->start = (typeof(s->start)){ evsel, comm, pid, tid, cpu, ob->len - from };
		memcpy(s->start.text, ob->buf + from, s->start.len);
	}
time:
	if (fields & SF_TIME)
		print_time(s, time);
}

/* perf's is_bts_event: branches with a period of 1, as the BTS decoder makes them */
static bool is_bts_event(const struct perf_event_attr *attr)
{
	return attr->type == PERF_TYPE_HARDWARE &&
	       attr->config == PERF_COUNT_HW_BRANCH_INSTRUCTIONS && attr->sample_period == 1;
}

/* perf's sample_addr_correlates_sym: addr is a page fault's address, or a branch's target */
static bool addr_correlates_sym(const struct perf_event_attr *attr)
{
	if (is_bts_event(attr))
		return true;
	return attr->type == PERF_TYPE_SOFTWARE && (attr->config == PERF_COUNT_SW_PAGE_FAULTS ||
						    attr->config == PERF_COUNT_SW_PAGE_FAULTS_MIN ||
						    attr->config == PERF_COUNT_SW_PAGE_FAULTS_MAJ);
}

/* perf_sample__fprintf_bts: " => addr" when -F asks for addr, or by default when it has one */
static bool bts_shows_addr(const struct script *s, const struct perf_event_attr *attr)
{
	int t = script_output_type(attr->type);

	return (s->f.fields[t] & SF_ADDR) ||
	       ((attr->sample_type & PERF_SAMPLE_ADDR) && !s->f.user_set[t]);
}

/*
 * One frame of a callchain, one line; perf's append_inlines makes a frame whose pc is in
 * inlined code (DWARF of its file says so) one line a function, innermost first: the
 * inlined ones "(inlined)" in place of the dso, even without -F sym.
 */
static void print_frame(struct script *s, const struct sample_frame *frame, u32 fields,
			bool unwound)
{
	struct addr_location al = { .dso = frame->dso, .addr = frame->addr };
	const char *const *names = NULL, *const *lines = NULL;
	struct outbuf *ob = &s->out;
	size_t n = 0;

	machine__resolve_symbol(&s->machine, &al);
	if (unwound && al.sym && frame->dso && s->inlines)
		n = inlines__find(s->inlines, frame->dso, frame->addr,
				  symbol__name(al.symtab, al.sym), &names, &lines);
	if (!n) {
		char line[4096];

		outbuf_putc(ob, '\t');
		fmt_put_hex(ob, frame->addr, 16);
		print_sym_dso(s, frame->dso, frame->addr, fields);
		/*
		 * an unwound frame's line comes from its inline records: with no DWARF for the
		 * pc, addr2line's one record of the function ("??:0" too) when it has one
		 */
		if ((fields & SF_SRCLINE) && unwound && al.sym && frame->dso && s->inlines &&
		    inlines__srcline(s->lines, frame->dso, frame->addr, line, sizeof(line)))
			print_record_line(s, frame, line, fields);
		else
			print_srcline(s, frame->dso, frame->addr, fields);
		outbuf_putc(ob, '\n');
		return;
	}
	for (size_t i = 0; i < n; i++) {
		outbuf_putc(ob, '\t');
		fmt_put_hex(ob, frame->addr, 16);
		if (!names[i]) {
			print_sym_dso(s, frame->dso, frame->addr, fields);
			print_record_line(s, frame, lines[i], fields);
		} else {
			if (fields & SF_SYM) {
				outbuf_putc(ob, ' ');
				fmt_put_str(ob, names[i]);
				if (fields & SF_SYMOFFSET) {
					fmt_put_str(ob, "+0x");
					fmt_put_hex(ob, al.addr - al.sym->start, 0);
				}
			}
			print_record_line(s, frame, lines[i], fields);
			fmt_put_str(ob, " (inlined)");
		}
		outbuf_putc(ob, '\n');
	}
}

/* perf_sample__fprintf_insn: " insn: xx xx" when the decoder gave the instruction */
static void print_insn(struct script *s, const struct line_item *item, u32 fields)
{
	if (!(fields & SF_INSN) || !item->insn_len)
		return;
	static const char hex[] = "0123456789abcdef";

	fmt_put_str(&s->out, " insn:");
	for (u8 i = 0; i < item->insn_len; i++) {	/* " %02x" */
		outbuf_putc(&s->out, ' ');
		outbuf_putc(&s->out, hex[item->insn[i] >> 4]);
		outbuf_putc(&s->out, hex[item->insn[i] & 15]);
	}
}

/* the symbol's name at addr in dso, or NULL */
static const char *sym_name(struct script *s, struct dso *dso, u64 addr)
{
	struct addr_location al = { .dso = dso, .addr = addr };

	machine__resolve_symbol(&s->machine, &al);
	return al.sym ? symbol__name(al.symtab, al.sym) : NULL;
}

/*
 * perf_sample__fprintf_callindent: the dso (when neither ip nor addr is printed), then the
 * function called (or begun in) or returned from (or ended in), indented by the calls open;
 * the width is kept across lines, as perf's static spacing does.
 */
static void print_callindent(struct script *s, const struct line_item *item, u32 fields)
{
	u32 depth = item->call_depth + (item->flags & IP_FLAG_RETURN ? 1 : 0);
	struct outbuf *ob = &s->out;
	const char *name = NULL;
	char num[32];
	u64 ip = 0;
	int len = 0;

	if (item->flags & (IP_FLAG_CALL | IP_FLAG_TRACE_BEGIN)) {
		if (!(name = sym_name(s, item->addr_dso, item->addr_in_dso)))
			ip = item->sample_addr;
	} else if (item->flags & (IP_FLAG_RETURN | IP_FLAG_TRACE_END)) {
		if (!(name = sym_name(s, item->dso, item->addr)))
			ip = item->ip;
	}
	if ((fields & SF_DSO) && !(fields & (SF_IP | SF_ADDR))) {	/* map__fprintf_dsoname */
		const char *dso = item->dso ? item->dso->long_name : "[unknown]";

		outbuf_putc(ob, '(');
		fmt_put_padded(ob, dso, strlen(dso), s->pad_dso, true);
		fmt_put_str(ob, ")\t");
	}
	if (name || ip) {
		if (!name) {
			snprintf(num, sizeof(num), "%16llx", (unsigned long long)ip);
			name = num;
		}
		len = (int)(depth * 4 + strlen(name));
		for (u32 i = 0; i < depth * 4; i++)
			outbuf_putc(ob, ' ');
		fmt_put_str(ob, name);
	}
	if (len > s->callindent_spacing || (len && len < s->callindent_spacing - 52))
		s->callindent_spacing = (len + 4 + 31) / 32 * 32;
	for (; len < s->callindent_spacing; len++)
		outbuf_putc(ob, ' ');
}

/* perf script's process_event for the fields above: a sample's line (and frames). */
static void print_line(struct script *s, const struct line_item *item)
{
	struct evsel *evsel = item->evsel;
	u32 fields = s->f.fields[script_output_type(evsel->attr.type)];
	struct outbuf *ob = &s->out;

	if (!fields)
		return;
	print_start(s, evsel, item->comm, item->pid, item->tid, item->cpu, item->time);
	if (fields & SF_PERIOD) {
		fmt_put_u64(ob, item->period, 10);
		outbuf_putc(ob, ' ');
	}
	if (fields & SF_EVNAME) {
		const char *name = evsel__name(evsel);

		name = name ? name : "[unknown]";
		fmt_put_padded(ob, name, strlen(name), s->name_width, false);
		fmt_put_str(ob, ": ");
	}
	if (fields & SF_FLAGS) {	/* perf_sample__fprintf_flags: "  %-21s " */
		char str[64];

		itrace_flags__format(item->flags, str, sizeof(str));
		fmt_put_str(ob, "  ");
		fmt_put_padded(ob, str, strlen(str), 21, true);
		outbuf_putc(ob, ' ');
	}
	if (is_bts_event(&evsel->attr)) {	/* perf_sample__fprintf_bts */
		if (fields & SF_CALLINDENT)
			print_callindent(s, item, fields);
		if (fields & SF_IP) {
			outbuf_putc(ob, ' ');
			fmt_put_hex(ob, item->ip, 16);
			print_sym_dso(s, item->dso, item->addr, fields);
		}
		if (bts_shows_addr(s, &evsel->attr)) {
			fmt_put_str(ob, " => ");
			fmt_put_hex(ob, item->sample_addr, 16);
			print_sym_dso(s, item->addr_dso, item->addr_in_dso, fields);
		}
		if (fields & SF_IP)	/* the branch's source line last (print_srcline_last) */
			print_srcline(s, item->dso, item->addr, fields);
		print_insn(s, item, fields);
		outbuf_putc(ob, '\n');
		if (ob->error)
			__atomic_store_n(&s->stop, true, __ATOMIC_RELAXED);
		return;
	}
	if ((fields & SF_TRACE) && item->raw_data && evsel->attr.type == PERF_TYPE_TRACEPOINT &&
	    s->tf)	/* NULL only for a pipe's attr that came after its first sample */
		trace_fields__fprintf(s->tf, outbuf_stream(ob), evsel->attr.config, item->cpu,
				      item->raw_data, item->raw_size);
	if ((fields & SF_SYNTH) && item->synth[0]) {	/* perf_sample__fprintf_synth */
		size_t len = strlen(item->synth);

		fmt_put_str(ob, item->synth);
		for (; len < 34; len++)	/* perf_sample__fprintf_pt_spacing */
			outbuf_putc(ob, ' ');
	}
	if (fields & SF_ADDR) {	/* perf_sample__fprintf_addr */
		fmt_put_hex(ob, item->sample_addr, 16);
		if (addr_correlates_sym(&evsel->attr))
			print_sym_dso(s, item->addr_dso, item->addr_in_dso, fields);
	}
	if ((fields & SF_IP) && item->callchain) {
		outbuf_putc(ob, '\n');
		for (u32 i = 0; i < item->nr_frames; i++)	/* sample__fprintf_callchain */
			print_frame(s, &item->frames[i], fields, i >= item->first_unwound);
	} else if (fields & SF_IP) {
		outbuf_putc(ob, ' ');
		fmt_put_hex(ob, item->ip, 16);
		print_sym_dso(s, item->dso, item->addr, fields);
		print_srcline(s, item->dso, item->addr, fields);
	}
	/*
	 * perf prints a bpf-output event's raw data under it (a software event's default field
	 * bpf-output): with none, that is one empty line. Raw data itself is not shown yet.
	 * (Printed for software events only: the field is invalid for the other types.)
	 */
	print_insn(s, item, fields);
	if ((fields & SF_BPF_OUTPUT) && evsel->attr.type == PERF_TYPE_SOFTWARE &&
	    evsel->attr.config == PERF_COUNT_SW_BPF_OUTPUT)
		outbuf_putc(ob, '\n');
	outbuf_putc(ob, '\n');
	if (ob->error)
		__atomic_store_n(&s->stop, true, __ATOMIC_RELAXED);
}

/* The aggregator's work: a line. */
static void finish_line(void *data, void *item)
{
	print_line(data, item);
}

/* Before this thread writes: every line handed on is out. */
static void script_sync(struct script *s)
{
	if (s->pipelined)
		aggregate__drain(&s->agg);
}

/*
 * perf's process_sample_event drops a sample outside the time ranges, then one of a cpu -C
 * leaves out, before it resolves anything (its thread is not even made).
 */
static bool script_keeps_sample(struct event_consumer *consumer, const struct event_ctx *ctx)
{
	struct script *s = container_of(consumer, struct script, consumer);
	u32 cpu = ctx->sample.cpu;

	return !time_filter__skip(&s->time, ctx->sample.time) &&
	       !(s->cpus && (cpu >= MAX_CPUS || !s->cpus[cpu]));
}

static int process_sample(struct script *s, struct event_ctx *ctx)
{
	const struct perf_sample *sample = &ctx->sample;
	struct evsel *evsel = ctx->evsel;
	bool callchain;
	const u64 *chain = NULL;
	u64 user_at = SAMPLE_FRAMES_NO_USER_AT;
	u32 nr_frames = 0;
	union {	/* a line made here, when it is printed here: a chain and an unwound one */
		struct line_item item;
		u8 bytes[sizeof(struct line_item) + 2 * SAMPLE_MAX_STACK * sizeof(struct sample_frame)];
	} local;
	struct line_item *item;
	bool here;	/* the line is made on this thread */
	struct thread *t;

	if (!s->checked && script_check_fields(s)) {
		s->check_failed = true;
		return 1;
	}
	/*
	 * an AUX-trace decoder's event with call chains (--itrace=g, its evsels follow the
	 * file's): perf's process_attr for it turns call chains on from then on, -G or not
	 */
	if ((evsel->attr.sample_type & PERF_SAMPLE_CALLCHAIN) &&
	    evsel->idx >= (int)s->session.nr_evsels)
		s->use_callchain = true;
	callchain = s->use_callchain && (evsel->attr.sample_type & PERF_SAMPLE_CALLCHAIN) &&
		    sample->callchain;
	if (!script_keeps_sample(&s->consumer, ctx))
		return 0;
	t = machine__findnew_thread(&s->machine, (s32)sample->pid, (s32)sample->tid);
	if (thread_filtered(s, t)) {
		thread__put(t);
		return 0;
	}
	/* perf resolves the frames only to print them (with the ip) */
	callchain &= !!(s->f.fields[script_output_type(evsel->attr.type)] & SF_IP);
	if (callchain) {
		chain = sample_frames__chain(&s->unwinder, &s->session, &s->machine, t, sample,
					     s->max_stack, &nr_frames, &user_at);
		callchain = chain != NULL;
	}
	/* a tracepoint's fields are read from the record, which is not kept */
	here = !s->pipelined || evsel->attr.type == PERF_TYPE_TRACEPOINT;
	item = !here ? aggregate__slot(&s->agg,
				       sizeof(*item) + nr_frames * sizeof(struct sample_frame))
		     : &local.item;
	item->evsel = evsel;
	item->comm = thread__comm_str(t);
	item->ip = sample->ip;
	item->time = sample->time;
	item->period = sample->period;
	item->pid = sample->pid;
	item->tid = sample->tid;
	item->cpu = sample->cpu;
	item->flags = sample->flags;
	item->call_depth = sample->call_depth;
	item->synth[0] = '\0';
	if (sample->synth)
		snprintf(item->synth, sizeof(item->synth), "%s", sample->synth);
	item->insn_len = sample->insn && sample->insn_len <= sizeof(item->insn) ? sample->insn_len : 0;
	if (item->insn_len)
		memcpy(item->insn, sample->insn, item->insn_len);
	item->callchain = callchain;
	item->nr_frames = nr_frames;
	item->first_unwound = nr_frames;
	if (callchain && user_at != SAMPLE_FRAMES_NO_USER_AT)	/* the kernel's frames come first */
		item->first_unwound = nr_frames - sample_frames__count_unwound_user(chain, user_at);
	item->dso = NULL;
	item->addr = sample->ip;
	item->raw_data = sample->raw_data;
	item->raw_size = sample->raw_size;
	item->sample_addr = sample->addr;
	item->addr_dso = NULL;
	item->addr_in_dso = sample->addr;
	if (((s->f.fields[script_output_type(evsel->attr.type)] & (SF_ADDR | SF_CALLINDENT)) ||
	     (is_bts_event(&evsel->attr) && bts_shows_addr(s, &evsel->attr))) &&
	    addr_correlates_sym(&evsel->attr)) {	/* perf's thread__resolve */
		struct addr_location al;

		machine__resolve_map(&s->machine, t, sample->misc & PERF_RECORD_MISC_CPUMODE_MASK,
				     sample->addr, &al);
		item->addr_dso = al.map ? al.map->dso : NULL;
		item->addr_in_dso = al.addr;
	}
	if (callchain) {
		sample_frames__resolve(&s->machine, t, chain, user_at, item->frames, nr_frames);
	} else if (s->f.fields[script_output_type(evsel->attr.type)] & (SF_IP | SF_CALLINDENT)) {
		struct addr_location al;

		machine__resolve_map(&s->machine, t, sample->misc & PERF_RECORD_MISC_CPUMODE_MASK,
				     sample->ip, &al);
		item->dso = al.map ? al.map->dso : NULL;
		item->addr = al.addr;
	}
	thread__put(t);
	if (!here) {
		aggregate__commit(&s->agg);
		return __atomic_load_n(&s->stop, __ATOMIC_RELAXED) ? 1 : 0;
	}
	script_sync(s);
	print_line(s, item);
	if (s->tty)
		outbuf_flush(&s->out);
	return s->out.error ? 1 : 0;	/* the output went away: stop */
}

/* perf's perf_event__fprintf for the side-band records script shows. */
static void print_record(struct script *s, const struct perf_event_header *ev)
{
	const struct perf_record_lost *lost = (const void *)ev;

	outbuf_puts(&s->out, "PERF_RECORD_");
	outbuf_puts(&s->out, perf_event__name(ev->type));
	/* -D's LOST details are the tool's (": id:...: lost:..."); perf_event__fprintf's: */
	if (ev->type == PERF_RECORD_LOST)
		fprintf(outbuf_stream(&s->out), " lost %" PRIu64 "\n",
			ev->size >= sizeof(*lost) ? lost->lost : 0);
	else
		dump_fprintf_details(outbuf_stream(&s->out), ev);
}

/*
 * perf's print_event_with_time: the start of a line as for a sample of the record's event
 * (none when the record maps to no event), the comm of the record's thread, then the record.
 * Without sample_id_all, the record's own pid, tid and time (fork, exit) stand in.
 */
static void print_sideband(struct script *s, struct event_ctx *ctx, s32 pid, s32 tid, u64 time)
{
	struct evsel *evsel = ctx->evsel;
	struct perf_sample sample = ctx->sample;
	struct thread *t = NULL;

	if (!evsel && s->session.nr_evsels == 1)
		evsel = &s->session.evsels[0];	/* perf's evlist__id2evsel */
	if (evsel && !evsel->attr.sample_id_all) {
		sample.cpu = 0;
		sample.time = time;
		sample.pid = (u32)pid;
		sample.tid = (u32)tid;
	}
	if (s->cpus && (sample.cpu >= MAX_CPUS || !s->cpus[sample.cpu]))
		return;
	if (tid != -1)
		t = machine__findnew_thread(&s->machine, pid, tid);
	script_sync(s);
	if (evsel)
		print_start(s, evsel, t ? thread__comm_str(t) : ":-1", sample.pid, sample.tid,
			    sample.cpu, sample.time);
	print_record(s, ctx->event);
	thread__put(t);
}

static int process_sideband(struct script *s, struct event_ctx *ctx)
{
	const struct perf_event_header *ev = ctx->event;
	const struct perf_record_fork *f = (const void *)ev;
	const struct perf_record_comm *c = (const void *)ev;	/* pid, tid as in mmap's */
	bool task = ev->type == PERF_RECORD_COMM || ev->type == PERF_RECORD_FORK ||
		    ev->type == PERF_RECORD_EXIT;
	bool is_switch = ev->type == PERF_RECORD_SWITCH || ev->type == PERF_RECORD_SWITCH_CPU_WIDE;
	bool is_lost = ev->type == PERF_RECORD_LOST;
	bool show = task ? s->show_task_events
			 : is_switch ? s->show_switch_events
			 : is_lost ? s->show_lost_events
				   : s->show_mmap_events && (ev->type == PERF_RECORD_MMAP ||
							     ev->type == PERF_RECORD_MMAP2);

	if (show && !s->checked && script_check_fields(s)) {
		s->check_failed = true;
		return 1;
	}
	/* perf prints an exit before the model forgets anything */
	if (show && ev->type == PERF_RECORD_EXIT && ev->size >= sizeof(*f))
		print_sideband(s, ctx, (s32)f->pid, (s32)f->tid, f->time);
	if (machine__process_event(&s->machine, ev, ctx->sample.time)) {
		error_set("%s: offset %#llx: %s", s->session.path,
			  (unsigned long long)ctx->file_offset, error_get());
		return -1;
	}
	if (!show || ev->type == PERF_RECORD_EXIT)
		return 0;
	if (ev->type == PERF_RECORD_FORK)
		print_sideband(s, ctx, (s32)f->pid, (s32)f->tid, f->time);
	else if (is_switch || is_lost)	/* the task is the sample's (sample_id_all) */
		print_sideband(s, ctx, (s32)ctx->sample.pid, (s32)ctx->sample.tid, 0);
	else
		print_sideband(s, ctx, (s32)c->pid, (s32)c->tid, 0);
	return 0;
}

/* perf_event__fprintf_auxtrace_error, on stdout as perf script prints it */
static void print_auxtrace_error(struct script *s, u32 type, const struct itrace_error *e,
				 u64 time, bool fmt)
{
	FILE *fp;

	script_sync(s);
	fp = outbuf_stream(&s->out);
	fprintf(fp, " %s error type %u", type == 1 ? "instruction trace" : "unknown AUX", type);
	if (fmt && time)
		fprintf(fp, " time %" PRIu64 ".%09" PRIu64, time / 1000000000, time % 1000000000);
	else
		fputs(" time 0", fp);
	fprintf(fp, " cpu %d pid %d tid %d ip %#" PRIx64 " code %u: %s\n", e->cpu, e->pid, e->tid,
		e->ip, e->code, e->msg);
	if (type == 1)
		s->nr_itrace_errors++;
}

static int itrace_sample(struct itrace_consumer *consumer, struct event_ctx *ctx)
{
	struct script *s = container_of(consumer, struct script, itrace_consumer);

	return process_sample(s, ctx);
}

static void itrace_error(struct itrace_consumer *consumer, const struct itrace_error *e)
{
	print_auxtrace_error(container_of(consumer, struct script, itrace_consumer), 1, e, e->time,
			     true);
}

/*
 * AUXTRACE_INFO: the decoder starts, and with it the exited-thread exception (the kernel
 * reports an EXIT while trace of the task is still to come: its thread stays in the model).
 * Its event ("branches") is checked and named as the recorded ones were.
 */
static int start_itrace(struct script *s, struct event_ctx *ctx)
{
	struct evsel *evsel;
	int t;

	s->machine.keep_exited = true;
	if (s->itrace_opts.dont_decode || s->itrace || s->session.is_pipe || s->session.is_dir ||
	    s->dump)	/* perf -D dumps the trace instead of decoding it */
		return 0;
	s->itrace_consumer.sample = itrace_sample;
	s->itrace_consumer.error = itrace_error;
	s->itrace = itrace__new(&s->session, &s->machine, &s->itrace_opts, &s->itrace_consumer,
				ctx->event, ctx->file_offset);
	if (!s->itrace)
		return -1;
	for (size_t n = 0; (evsel = itrace__evsel(s->itrace, n)); n++) {
		t = script_output_type(evsel->attr.type);
		if (!s->f.user_set[t] || s->f.wildcard_set[t]) {
			bool first = true;

			for (size_t i = 0; i < s->session.nr_evsels; i++)
				first &= script_output_type(s->session.evsels[i].attr.type) != t;
			for (size_t i = 0; i < n; i++)
				first &= script_output_type(itrace__evsel(s->itrace, i)->attr.type) != t;
			if (first && check_type(s, t, evsel)) {
				/* perf: the AUXTRACE_INFO record fails, -EINVAL */
				s->check_failed = s->itrace_refused = true;
				return 1;
			}
		}
		widen_name(s, evsel);
	}
	return 0;
}

/* A record of the file: AUX-trace records, else what comes before any kernel record. */
static int script_itrace(struct script *s, struct event_ctx *ctx)
{
	const struct perf_event_header *ev = ctx->event;

	switch (ev->type) {
	case PERF_RECORD_AUXTRACE_INFO:
		return start_itrace(s, ctx);
	case PERF_RECORD_AUXTRACE:
		return s->itrace ? itrace__add_buffer(s->itrace, ev, ctx->file_offset) : 0;
	case PERF_RECORD_AUXTRACE_ERROR: {
		/* perf event.h: perf_record_auxtrace_error */
		struct {
			struct perf_event_header header;
			u32 type, code, cpu, pid, tid, fmt;
			u64 ip, time;
			char msg[64];
		} r = { 0 };
		struct itrace_error e;

		if (s->itrace_opts.dont_decode)
			return 0;
		memcpy(&r, ev, MIN((size_t)ev->size, sizeof(r)));
		r.msg[sizeof(r.msg) - 1] = '\0';
		e = (struct itrace_error){ r.code, (s32)r.cpu, (s32)r.pid, (s32)r.tid, r.ip,
					   r.fmt ? r.msg : (const char *)&r.time };
		print_auxtrace_error(s, r.type, &e, r.time, r.fmt);
		return 0;
	}
	default:
		if (ev->type < PERF_RECORD_USER_TYPE_START && s->itrace)
			return itrace__process_event(s->itrace, ev, ctx->sample.time);
		return 0;
	}
}

static int script_deliver(struct event_consumer *consumer, struct event_ctx *ctx)
{
	struct script *s = container_of(consumer, struct script, consumer);
	const struct perf_event_header *ev = ctx->event;
	int ret = script_itrace(s, ctx);

	if (ret)
		return ret;
	switch (ev->type) {
	case PERF_RECORD_SAMPLE:
		return process_sample(s, ctx);
	case PERF_RECORD_HEADER_FEATURE:
		if (s->print_features) {
			u64 feat;

			memcpy(&feat, ev + 1, sizeof(feat));
			script_sync(s);
			header__fprintf_feature(&s->session, outbuf_stream(&s->out),
						(int)MIN(feat, 255u), false);
		}
		return 0;
	case PERF_RECORD_HEADER_BUILD_ID:
		/* pipe mode: build-ids come as records */
		machine__add_build_ids(&s->machine, (const u8 *)ev, ev->size, true);
		return 0;
	case PERF_RECORD_LOST_SAMPLES:	/* for the warning at the end: perf script prints none */
		events_stats__add_lost(&s->session.stats, ev);
		return 0;
	default:
		if (process_sideband(s, ctx))
			return -1;
		if (s->tty)
			outbuf_flush(&s->out);
		return s->check_failed || s->out.error ? 1 : 0;
	}
}

/* -C: perf's cpu list, "0-3,6"; false when it does not parse. */
static bool parse_cpus(struct script *s, const char *str)
{
	const char *p = str;

	s->cpus = xcalloc(MAX_CPUS, 1);
	while (*p) {
		char *end;
		unsigned long a = strtoul(p, &end, 10), b = a;

		if (end == p)
			return false;
		p = end;
		if (*p == '-') {
			b = strtoul(p + 1, &end, 10);
			if (end == p + 1)
				return false;
			p = end;
		}
		if (a > b || b >= MAX_CPUS)
			return false;
		for (unsigned long c = a; c <= b; c++)
			s->cpus[c] = 1;
		if (*p == ',')
			p++;
		else if (*p)
			return false;
	}
	return true;
}

/* perf_session__cpu_bitmap: -C needs the cpu of every sample. */
static int check_cpus(struct script *s)
{
	for (size_t i = 0; i < s->session.nr_evsels; i++) {
		if (!(s->session.evsels[i].attr.sample_type & PERF_SAMPLE_CPU)) {
			fprintf(stderr, "File does not contain CPU events. Remove -C option to proceed.\n");
			return -1;
		}
	}
	return 0;
}

/* --time: the ranges, percentages of the SAMPLE_TIME feature's span (none in a pipe) */
static int script_parse_time(struct script *s, const char *str)
{
	size_t size;
	const u8 *feat = perf_session__feat(&s->session, HEADER_SAMPLE_TIME, &size);
	u64 bounds[2] = { 0, 0 };
	enum time_filter_error err;

	if (feat && size >= sizeof(bounds))
		memcpy(bounds, feat, sizeof(bounds));
	err = time_filter__parse(&s->time, str, bounds[0], bounds[1]);
	if (err) {
		outbuf_flush(&s->out);	/* the header first */
		fputs(time_filter__strerror(err), stderr);
		return -1;
	}
	return 0;
}

/* --itrace[=opts], as perf's itrace_parse_synth_opts */
static int parse_itrace(const char *arg, void *data)
{
	if (itrace_opts__parse(data, arg)) {
		fprintf(stderr, "Bad Instruction Tracing options '%s'\n", arg);
		return -1;
	}
	return 0;
}

/* -F, as perf's parse_output_fields: applied as it comes, its error said before the usage */
static int parse_fields(const char *arg, void *data)
{
	char bad[96];
	enum script_fields_error err = script_fields__parse(data, arg, bad, sizeof(bad));

	if (err == SF_ERR_UNSUPPORTED)
		fprintf(stderr, "analyze script: field '%s' is not supported yet\n", bad);
	else if (err == SF_ERR_NOT_VALID)
		fprintf(stderr, "%s\n", bad);
	else if (err)
		fprintf(stderr, "%s\n", script_fields__strerror(err));
	return err ? -1 : 0;
}

/* perf 6.1's trace options: -F edits, --itrace letters and --ns, each as perf sets them */
static int trace_option(struct script *s, const char *fields, const char *itrace, int pad_dso)
{
	if (parse_fields(fields, &s->f))
		return -1;
	itrace_opts__parse(&s->itrace_opts, itrace);
	s->ns = true;
	if (pad_dso)	/* (perf never sets it back) */
		s->pad_dso = pad_dso;
	return 0;
}

/* --insn-trace: every instruction, with the trace's errors as perf 6.1 prints them ("e") */
static int parse_insn_trace(const char *arg, void *data)
{
	return trace_option(data, "+insn,-event,-period", "i0nse", 0);
}

/* --call-trace: calls with their depth, dso names padded to 50 (pad_output_len_dso) */
static int parse_call_trace(const char *arg, void *data)
{
	return trace_option(data, "-ip,-addr,-event,-period,+callindent", "cewp", 50);
}

/* --call-ret-trace: calls and returns, with their kinds */
static int parse_call_ret_trace(const char *arg, void *data)
{
	return trace_option(data, "-ip,-addr,-event,-period,+callindent,+flags", "crewp", 0);
}

int cmd_script(int argc, const char **argv, const struct analyze_config *cfg)
{
	const char *input = NULL, *jobs = NULL, *symfs = NULL, *kallsyms = NULL, *comms = NULL;
	const char *pids = NULL, *tids = NULL, *cpus = NULL, *time_str = NULL, *max_stack = NULL;
	bool ns = false, hide_callgraph = false, task_events = false, mmap_events = false,
	     switch_events = false, lost_events = false, header = false, dump_raw = false,
	     show_inline = true;
	struct dump dump = { 0 };
	struct script s = { .consumer.deliver = script_deliver };
	struct option_callback fields_cb = { parse_fields, &s.f };
	struct option_callback itrace_cb = { parse_itrace, &s.itrace_opts };
	struct option_callback insn_trace_cb = { parse_insn_trace, &s };
	struct option_callback call_trace_cb = { parse_call_trace, &s };
	struct option_callback call_ret_trace_cb = { parse_call_ret_trace, &s };
	struct option opts[] = {
		{ 'i', "input", OPT_STRING, &input, "file", "input file name" },
		{ 'F', "fields", OPT_CALLBACK, &fields_cb, "str", "comma separated output fields prepend with 'type:'. +field to add and -field to remove. Valid types: hw,sw,trace,raw,break. Fields: comm,tid,pid,time,cpu,event,trace,ip,sym,dso,symoff,period" },
		{ 0, "comms", OPT_STRING, &comms, "comm[,comm...]", "only display events for these comms" },
		{ 0, "pid", OPT_STRING, &pids, "pid[,pid...]", "only consider symbols in these pids" },
		{ 0, "tid", OPT_STRING, &tids, "tid[,tid...]", "only consider symbols in these tids" },
		{ 'C', "cpu", OPT_STRING, &cpus, "cpu", "list of cpus to profile" },
		{ 0, "ns", OPT_BOOL, &ns, NULL, "Use 9 decimal places when displaying time" },
		{ 0, "show-task-events", OPT_BOOL, &task_events, NULL, "Show the fork/comm/exit events" },
		{ 0, "show-mmap-events", OPT_BOOL, &mmap_events, NULL, "Show the mmap events" },
		{ 0, "header", OPT_BOOL, &header, NULL, "Show data header." },
		{ 'D', "dump-raw-trace", OPT_BOOL, &dump_raw, NULL, "dump raw trace in ASCII" },
		{ 0, "show-switch-events", OPT_BOOL, &switch_events, NULL, "Show context switch events (if recorded)" },
		{ 0, "show-lost-events", OPT_BOOL, &lost_events, NULL, "Show lost events (if recorded)" },
		{ 0, "time", OPT_STRING, &time_str, "str", "Time span of interest (start,stop)" },
		{ 'G', "hide-call-graph", OPT_BOOL, &hide_callgraph, NULL, "When printing symbols do not display call chain" },
		{ 0, "max-stack", OPT_STRING, &max_stack, "n", "Set the maximum stack depth when parsing the callchain, anything beyond the specified depth will be ignored. Default: kernel.perf_event_max_stack or 127" },
		{ 0, "symfs", OPT_STRING, &symfs, "directory", "Look for files with symbols relative to this directory" },
		{ 0, "kallsyms", OPT_STRING, &kallsyms, "file", "kallsyms pathname" },
		{ 'k', "vmlinux", OPT_NOOP_ARG, NULL, "file", "vmlinux pathname (not used)" },
		{ 'j', "jobs", OPT_STRING, &jobs, "n", "threads in all for reading and loading symbols (default: online CPUs)" },
		{ 0, "inline", OPT_BOOL, &show_inline, NULL, "Show inline function" },
		{ 0, "itrace", OPT_CALLBACK, &itrace_cb, "opts", "Instruction Tracing options: i[period] synthesize instructions events, b branches, c calls (only), r returns (only), x transactions, e errors, s<N> skip initial events; default ce (Intel BTS decoded)", false, true },
		{ 0, "no-itrace", OPT_BOOL, &s.itrace_opts.dont_decode, NULL, "do not decode AUX-area traces", false, false },
		{ 0, "insn-trace", OPT_CALLBACK, &insn_trace_cb, NULL, "Decode instructions from itrace", false, true },
		{ 0, "call-trace", OPT_CALLBACK, &call_trace_cb, NULL, "Show call trace from itrace", false, true },
		{ 0, "call-ret-trace", OPT_CALLBACK, &call_ret_trace_cb, NULL, "Show call and return trace from itrace", false, true },
		OPT_END_MARK,
	};
	struct symsrc_config symsrc = { 0 };
	struct workqueue *wq = NULL;
	struct dso_loader loader;
	char *symfs_cache = NULL;
	int nr_args, nr_jobs, ret = 0;
	bool bad_time;

	script_fields__init(&s.f);	/* -F edits perf's defaults, each -F in turn */
	nr_args = parse_options(argc, argv, opts, script_usage);
	if (nr_args < 0)
		return 129;
	if (!options__input(nr_args, argv, &input, script_usage, opts))
		return 129;
	nr_jobs = options__jobs(jobs, script_usage, opts);
	if (nr_jobs < 0)
		return 129;
	if (cpus && !parse_cpus(&s, cpus)) {
		free(s.cpus);
		fprintf(stderr, "analyze script: bad cpu list '%s'\n", cpus);
		return 255;
	}
	s.ns |= ns;
	s.dump = dump_raw;
	for (int t = 0; t < SCRIPT_TYPES; t++) {
		s.itrace_opts.insn_bytes |= !!(s.f.fields[t] & SF_INSN);
		s.itrace_opts.thread_stack |= !!(s.f.fields[t] & SF_CALLINDENT);
	}
	if (!s.itrace_opts.set)	/* perf script's default: calls and errors */
		itrace_opts__set_default(&s.itrace_opts, true);
	s.no_callchain = hide_callgraph;
	/* perf's scripting_max_stack; more than perf's own default is not kept */
	s.max_stack = MIN(max_stack ? (u32)MAX(0, atoi(max_stack)) : options__max_stack(),
			  SAMPLE_MAX_STACK);
	s.show_task_events = task_events;
	s.show_mmap_events = mmap_events;
	s.show_switch_events = switch_events;
	s.show_lost_events = lost_events;
	if (perf_session__open(&s.session, input)) {
		free(s.cpus);
		fprintf(stderr, "analyze: %s\n", error_get());
		return 1;
	}
	/* a pipe names its events as it goes: they are checked at its first sample */
	if ((!s.session.is_pipe && script_check_fields(&s)) || (s.cpus && check_cpus(&s))) {
		if (s.trace_failed)
			fprintf(stderr, "analyze: %s\n", error_get());
		free(s.cpus);
		perf_session__close(&s.session);
		return s.trace_failed ? 1 : 255;
	}

	symfs_cache = options__symsrc(&symsrc, cfg->buildid_dir, symfs, kallsyms);
	/* -j N: N threads in all, this one included */
	wq = nr_jobs > 1 ? workqueue__new(nr_jobs - 1) : NULL;
	s.session.wq = wq;
	sample_frames__init_machine(&s.machine, &s.session, &symsrc, &loader, wq);
	s.inlines = show_inline ? inlines__new(&s.machine.symsrc) : NULL;
	s.lines = s.inlines;
	for (int t = 0; t < SCRIPT_TYPES && !s.lines; t++)
		if (s.f.fields[t] & SF_SRCLINE)
			s.lines = inlines__new(&s.machine.symsrc);
	name_list__parse(&s.comms, comms);
	name_list__parse(&s.pids, pids);
	name_list__parse(&s.tids, tids);

	/* a closed pipe is the reader saying it has seen enough: EPIPE, not a signal */
	signal(SIGPIPE, SIG_IGN);
	outbuf_init(&s.out, STDOUT_FILENO, OUTPUT_BUFFER);
	s.tty = isatty(STDOUT_FILENO);
	/* a terminal sees each line as it is made; -D's dump lines are made on this thread */
	s.pipelined = wq && !s.tty && !dump_raw && !s.tf;
	aggregate__init(&s.agg, s.pipelined ? wq : NULL, finish_line, NULL, &s);
	/* perf report --header-only's block first; a pipe's features come with their records */
	if (header)
		header__fprintf(&s.session, outbuf_stream(&s.out), false);
	s.print_features = header && s.session.is_pipe;
	/* perf parses --time once the header is out; its error ends the run with -EINVAL */
	bad_time = time_str && script_parse_time(&s, time_str);

	/* -D: report -D's dump of every record, a sample's script line under its own */
	if (dump_raw && !bad_time) {
		dump__init(&dump, &s.session, &s.machine, &s.consumer, outbuf_stream(&s.out));
		dump.maps_handled = true;
		dump.lost_handled = s.show_lost_events;
		dump.keeps_sample = script_keeps_sample;
	}
	if (!bad_time)
		ret = perf_session__process(&s.session, dump_raw ? &dump.consumer : &s.consumer);
	if (!bad_time && !ret && s.itrace)	/* what the trace holds after the last record */
		ret = itrace__flush(s.itrace);
	aggregate__exit(&s.agg);	/* every line out */
	outbuf_exit(&s.out);
	if (bad_time) {
		ret = 256 - EINVAL;
	} else if (s.out.error && s.out.error != EPIPE) {
		fprintf(stderr, "analyze script: writing the output: %s\n", strerror(s.out.error));
		ret = 1;
	} else if (s.out.error) {
		ret = 0;	/* the reader went away: perf ends quietly too */
	} else if (s.trace_failed) {
		fprintf(stderr, "analyze: %s\n", error_get());
		ret = 1;
	} else if (s.check_failed) {
		ret = s.itrace_refused ? 256 - EINVAL : 255;
	} else if (ret) {
		fprintf(stderr, "analyze: %s\n", error_get());
		ret = 1;
	} else {
		session_warn_about_errors(&s.session.stats, s.show_lost_events, stderr);
		if (s.nr_itrace_errors)	/* events_stats__auxtrace_error_warn */
			fprintf(stderr, "Warning:\n%u instruction trace errors\n", s.nr_itrace_errors);
	}

	if (dump_raw && !bad_time)
		dump__exit(&dump);
	time_filter__exit(&s.time);
	name_list__free(&s.comms);
	name_list__free(&s.pids);
	name_list__free(&s.tids);
	free(s.cpus);
	free(symfs_cache);
	if (wq)
		workqueue__destroy(wq);	/* symbol tables still loading refer to dsos */
	trace_fields__delete(s.tf);
	itrace__delete(s.itrace);
	unwinder__delete(s.unwinder);
	if (s.lines != s.inlines)
		inlines__delete(s.lines);
	inlines__delete(s.inlines);
	machine__exit(&s.machine);
	dso_loader__exit(&loader);
	perf_session__close(&s.session);
	return ret;
}
