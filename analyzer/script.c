/*
 * script: `analyze script`, perf script 6.1's default per-event output. Reads the session in
 * perf's delivery order, keeps the machine model current and prints each sample as it comes:
 * resolved on the reading thread, written through one large stdio buffer, nothing allocated
 * per event. Tracepoint fields are formatted by trace_fields (libtraceevent).
 */
#include "analyzer/script.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analyzer/dump.h"
#include "analyzer/header.h"
#include "analyzer/name_list.h"
#include "analyzer/options.h"
#include "analyzer/trace_fields.h"
#include "lib/error.h"
#include "lib/fmt.h"
#include "lib/workqueue.h"
#include "lib/xalloc.h"
#include "machine/machine.h"
#include "readers/evsel_name.h"
#include "readers/session.h"

static const char *const script_usage = "analyze script [<options>]";

/* perf's PERF_MAX_STACK_DEPTH: perf script shows at most this many frames a sample */
#define MAX_STACK 127
#define MAX_CPUS 4096
#define OUTPUT_BUFFER (1 << 20)

/* builtin-script.c's all_output_options: every name perf accepts, and what we print of them */
static const struct {
	const char *name;
	u32 field;	/* 0: perf knows it, analyze does not print it yet */
} field_names[] = {
	{ "comm", SF_COMM }, { "tid", SF_TID }, { "pid", SF_PID }, { "time", SF_TIME },
	{ "cpu", SF_CPU }, { "event", SF_EVNAME }, { "trace", SF_TRACE }, { "ip", SF_IP },
	{ "sym", SF_SYM }, { "dso", SF_DSO }, { "addr", 0 }, { "symoff", SF_SYMOFFSET },
	{ "srcline", 0 }, { "period", SF_PERIOD }, { "iregs", 0 }, { "uregs", 0 },
	{ "brstack", 0 }, { "brstacksym", 0 }, { "data_src", 0 }, { "weight", 0 },
	{ "bpf-output", SF_BPF_OUTPUT }, { "callindent", 0 }, { "insn", 0 }, { "insnlen", 0 },
	{ "synth", 0 }, { "phys_addr", 0 }, { "metric", 0 }, { "misc", 0 }, { "srccode", 0 },
	{ "ipc", 0 }, { "tod", 0 }, { "data_page_size", 0 }, { "code_page_size", 0 },
	{ "ins_lat", 0 }, { "brstackinsnlen", 0 }, { "machine_pid", 0 }, { "vcpu", 0 },
	{ "cgroup", 0 }, { "retire_lat", 0 }, { "brstackoff", 0 }, { "flags", 0 },
};

/* builtin-script.c's defaults: the same for every kind of sampled event but tracepoints */
#define SF_DEFAULT                                                                          \
	(SF_COMM | SF_TID | SF_CPU | SF_TIME | SF_EVNAME | SF_IP | SF_SYM | SF_SYMOFFSET |  \
	 SF_DSO | SF_PERIOD)

int script_output_type(u32 attr_type)
{
	return attr_type < SCRIPT_TYPE_OTHER ? (int)attr_type : SCRIPT_TYPE_OTHER;
}

void script_fields__init(struct script_fields *f)
{
	memset(f, 0, sizeof(*f));
	for (int t = 0; t < SCRIPT_TYPES; t++)
		f->fields[t] = SF_DEFAULT;
	f->fields[PERF_TYPE_SOFTWARE] |= SF_BPF_OUTPUT;
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
				if (type < 0)
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
	bool ns;
	bool show_task_events, show_mmap_events, show_switch_events;
	bool stopped;	/* the output went away (EPIPE): stop quietly */
	bool print_features;	/* --header on a pipe: its features as their records come */
	bool check_failed;	/* a pipe's events lack a field -F asked for */
	int name_width;
	struct name_list comms, pids, tids;
	u8 *cpus;	/* -C: a byte per cpu, or NULL */
	FILE *fp;
	struct trace_fields *tf;	/* tracepoints' fields, once the tracing data is read */
	bool trace_failed;	/* the tracing data did not load: error_get() says why */
};

static int stype_check(struct script *s, int t, struct evsel *evsel, u64 bit, const char *what,
		       u32 field)
{
	if (!(s->f.fields[t] & field) || (evsel->attr.sample_type & bit))
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
	s->tf = trace_fields__new(&s->session, &s->machine);
	if (!s->tf) {
		s->trace_failed = true;
		return -1;
	}
	return 0;
}

/*
 * perf's perf_session__check_output_opt: the first event of each type decides which of its
 * type's fields can be printed; a field -F asked for that its samples lack is an error.
 */
static int script_check_fields(struct script *s)
{
	static const char *const type_names[] = { "HW", "SW", "TP", "HW_CACHE", "RAW", "BKPT",
						   "OTHER" };

	s->use_callchain = false;
	for (size_t i = 0; i < s->session.nr_evsels; i++)
		s->use_callchain |= !!(s->session.evsels[i].attr.sample_type & PERF_SAMPLE_CALLCHAIN);
	s->use_callchain &= !s->no_callchain;
	for (int t = 0; t < SCRIPT_TYPES; t++) {
		struct evsel *evsel = NULL;
		u64 st;

		for (size_t i = 0; i < s->session.nr_evsels && !evsel; i++)
			if (script_output_type(s->session.evsels[i].attr.type) == t)
				evsel = &s->session.evsels[i];
		if (!evsel) {
			if (s->f.user_set[t] && !s->f.wildcard_set[t]) {
				fprintf(stderr, "%s events do not exist. Remove corresponding -F option to proceed.\n",
					type_names[t]);
				return -1;
			}
			continue;
		}
		if (!s->f.fields[t])
			continue;
		st = evsel->attr.sample_type;
		if (stype_check(s, t, evsel, PERF_SAMPLE_IP, "IP", SF_IP))
			return -1;
		if ((s->f.fields[t] & SF_SYMOFFSET) && !(s->f.fields[t] & SF_SYM)) {
			fprintf(stderr, "Display of offsets requested but symbol is not selected.\n");
			return -1;
		}
		if ((s->f.fields[t] & (SF_SYM | SF_DSO)) && !(st & (PERF_SAMPLE_IP | PERF_SAMPLE_ADDR))) {
			fprintf(stderr, "Display of %s requested but no address to convert.\n",
				s->f.fields[t] & SF_SYM ? "symbols" : "DSO");
			return -1;
		}
		if (stype_check(s, t, evsel, PERF_SAMPLE_TID, "TID", SF_TID | SF_PID) ||
		    stype_check(s, t, evsel, PERF_SAMPLE_TIME, "TIME", SF_TIME) ||
		    stype_check(s, t, evsel, PERF_SAMPLE_CPU, "CPU", SF_CPU) ||
		    stype_check(s, t, evsel, PERF_SAMPLE_PERIOD, "PERIOD", SF_PERIOD))
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
	for (size_t i = 0; i < s->session.nr_evsels; i++) {
		const char *name = evsel__name(&s->session.evsels[i]);
		int len = name ? (int)strlen(name) : 0;

		if (len > s->name_width)
			s->name_width = len;
	}
	s->checked = true;
	return 0;
}

/* perf's __symbol__fprintf_symname_offs and map__fprintf_dsoname, for one address. */
static void print_sym_dso(struct script *s, const struct addr_location *al, u32 fields)
{
	if (fields & SF_SYM) {
		putc_unlocked(' ', s->fp);
		if (al->sym) {
			fmt_put_str(s->fp, symbol__name(al->symtab, al->sym));
			if (fields & SF_SYMOFFSET) {
				fmt_put_str(s->fp, "+0x");
				fmt_put_hex(s->fp, al->addr - al->sym->start, 0);
			}
		} else {
			fmt_put_str(s->fp, "[unknown]");
		}
	}
	if (fields & SF_DSO) {
		fmt_put_str(s->fp, " (");
		fmt_put_str(s->fp, al->map && al->map->dso ? al->map->dso->long_name : "[unknown]");
		putc_unlocked(')', s->fp);
	}
}

/*
 * perf's thread__resolve_callchain_sample (frame pointers, callee first) and
 * sample__fprintf_callchain: a line a frame, the address map-relative as perf's cursor keeps
 * it. An unknown context marker empties perf's cursor: then no frame is printed.
 */
static void print_callchain(struct script *s, struct thread *t, const u64 *chain, u32 fields)
{
	u64 nr = chain[0], frames = 0;
	u8 cpumode = PERF_RECORD_MISC_USER, mode = cpumode;

	for (u64 i = 0; i < nr && frames < MAX_STACK; i++) {
		if (chain[1 + i] < (u64)PERF_CONTEXT_MAX)
			frames++;
		else if (!machine__callchain_context(chain[1 + i], &mode))
			return;
	}
	frames = 0;
	for (u64 i = 0; i < nr && frames < MAX_STACK; i++) {
		u64 ip = chain[1 + i];
		struct addr_location al;

		if (ip >= (u64)PERF_CONTEXT_MAX) {
			machine__callchain_context(ip, &cpumode);
			continue;
		}
		frames++;
		machine__find_symbol(&s->machine, t, cpumode, ip, &al);
		putc_unlocked('\t', s->fp);
		fmt_put_hex(s->fp, al.addr, 16);
		print_sym_dso(s, &al, fields);
		putc_unlocked('\n', s->fp);
	}
}

static bool thread_filtered(struct script *s, const struct thread *t)
{
	return (s->comms.nr && !name_list__has(&s->comms, thread__comm_str(t))) ||
	       (s->pids.nr && !int_list__has(&s->pids, t->pid)) ||
	       (s->tids.nr && !int_list__has(&s->tids, t->tid));
}

/*
 * perf's perf_sample__fprintf_start: comm, tid, cpu, time, for samples and side-band records
 * alike (t NULL: a record of tid -1).
 */
static void print_start(struct script *s, struct evsel *evsel, struct thread *t,
			const struct perf_sample *sample)
{
	u32 fields = s->f.fields[script_output_type(evsel->attr.type)];
	const char *comm = t ? thread__comm_str(t) : ":-1";
	FILE *fp = s->fp;

	if (fields & SF_COMM) {
		/* perf leaves the comm unpadded when frames follow */
		bool unpadded = (fields & SF_IP) && s->use_callchain &&
				(evsel->attr.sample_type & PERF_SAMPLE_CALLCHAIN);

		fmt_put_padded(fp, comm, strlen(comm), unpadded ? 0 : 16, false);
		putc_unlocked(' ', fp);
	}
	if ((fields & SF_PID) && (fields & SF_TID)) {	/* "%5d/%-5d " */
		fmt_put_int(fp, (int)sample->pid, 5, false);
		putc_unlocked('/', fp);
		fmt_put_int(fp, (int)sample->tid, 5, true);
		putc_unlocked(' ', fp);
	} else if (fields & (SF_PID | SF_TID)) {
		fmt_put_int(fp, (int)(fields & SF_PID ? sample->pid : sample->tid), 5, false);
		putc_unlocked(' ', fp);
	}
	if (fields & SF_CPU) {
		if (sample->cpu < 1000) {	/* "[%03d] " */
			putc_unlocked('[', fp);
			fmt_put_u64_zero(fp, sample->cpu, 3);
			fmt_put_str(fp, "] ");
		} else {
			fprintf(fp, "[%03d] ", (int)sample->cpu);
		}
	}
	if (fields & SF_TIME) {
		char buf[64];
		int n = script_time__format(buf, sizeof(buf), sample->time, s->ns);

		fwrite_unlocked(buf, 1, (size_t)n, fp);
	}
}

/* perf script's process_event for the fields above. */
static void print_sample(struct script *s, struct evsel *evsel, struct thread *t,
			 const struct perf_sample *sample)
{
	int type = script_output_type(evsel->attr.type);
	u32 fields = s->f.fields[type];
	bool callchain = s->use_callchain && (evsel->attr.sample_type & PERF_SAMPLE_CALLCHAIN) &&
			 sample->callchain;
	FILE *fp = s->fp;

	if (!fields)
		return;
	print_start(s, evsel, t, sample);
	if (fields & SF_PERIOD) {
		fmt_put_u64(fp, sample->period, 10);
		putc_unlocked(' ', fp);
	}
	if (fields & SF_EVNAME) {
		const char *name = evsel__name(evsel);

		name = name ? name : "[unknown]";
		fmt_put_padded(fp, name, strlen(name), s->name_width, false);
		fmt_put_str(fp, ": ");
	}
	if ((fields & SF_TRACE) && sample->raw_data && evsel->attr.type == PERF_TYPE_TRACEPOINT &&
	    s->tf)	/* NULL only for a pipe's attr that came after its first sample */
		trace_fields__fprintf(s->tf, fp, evsel->attr.config, sample->cpu, sample->raw_data,
				      sample->raw_size);
	if (fields & SF_IP) {
		if (callchain) {
			putc_unlocked('\n', fp);
			print_callchain(s, t, sample->callchain, fields);
		} else {
			struct addr_location al;

			machine__resolve(&s->machine, t, sample->misc & PERF_RECORD_MISC_CPUMODE_MASK,
					 sample->ip, &al);
			putc_unlocked(' ', fp);
			fmt_put_hex(fp, sample->ip, 16);
			print_sym_dso(s, &al, fields);
		}
	}
	/*
	 * perf prints a bpf-output event's raw data under it (a software event's default field
	 * bpf-output): with none, that is one empty line. Raw data itself is not shown yet.
	 * (Printed for software events only: the field is invalid for the other types.)
	 */
	if ((fields & SF_BPF_OUTPUT) && evsel->attr.type == PERF_TYPE_SOFTWARE &&
	    evsel->attr.config == PERF_COUNT_SW_BPF_OUTPUT)
		putc_unlocked('\n', fp);
	putc_unlocked('\n', fp);
}

static int process_sample(struct script *s, struct event_ctx *ctx)
{
	const struct perf_sample *sample = &ctx->sample;
	struct thread *t;

	if (!s->checked && script_check_fields(s)) {
		s->check_failed = true;
		return 1;
	}
	if (s->cpus && (sample->cpu >= MAX_CPUS || !s->cpus[sample->cpu]))
		return 0;
	t = machine__findnew_thread(&s->machine, (s32)sample->pid, (s32)sample->tid);
	if (!thread_filtered(s, t))
		print_sample(s, ctx->evsel, t, sample);
	thread__put(t);
	if (ferror(s->fp)) {
		s->stopped = true;
		return 1;
	}
	return 0;
}

/* perf's perf_event__fprintf for the side-band records script shows. */
static void print_record(struct script *s, const struct perf_event_header *ev)
{
	fprintf(s->fp, "PERF_RECORD_%s", perf_event__name(ev->type));
	dump_fprintf_details(s->fp, ev);
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
	if (evsel)
		print_start(s, evsel, t, &sample);
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
	bool show = task ? s->show_task_events
			 : is_switch ? s->show_switch_events
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
	else if (is_switch)	/* the task is the sample's (sample_id_all) */
		print_sideband(s, ctx, (s32)ctx->sample.pid, (s32)ctx->sample.tid, 0);
	else
		print_sideband(s, ctx, (s32)c->pid, (s32)c->tid, 0);
	return 0;
}

static int script_deliver(struct event_consumer *consumer, struct event_ctx *ctx)
{
	struct script *s = container_of(consumer, struct script, consumer);
	const struct perf_event_header *ev = ctx->event;

	switch (ev->type) {
	case PERF_RECORD_SAMPLE:
		return process_sample(s, ctx);
	case PERF_RECORD_HEADER_FEATURE:
		if (s->print_features) {
			u64 feat;

			memcpy(&feat, ev + 1, sizeof(feat));
			header__fprintf_feature(&s->session, s->fp, (int)MIN(feat, 255u), false);
		}
		return 0;
	case PERF_RECORD_HEADER_BUILD_ID:
		/* pipe mode: build-ids come as records */
		machine__add_build_ids(&s->machine, (const u8 *)ev, ev->size, true);
		return 0;
	default:
		if (process_sideband(s, ctx))
			return -1;
		return s->stopped || s->check_failed || ferror(s->fp) ? 1 : 0;
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

static void script_init_machine(struct script *s, struct symsrc_config *symsrc,
				struct dso_loader *loader, struct workqueue *wq)
{
	size_t size;
	const u8 *ids = perf_session__feat(&s->session, HEADER_BUILD_ID, &size);

	machine__init(&s->machine, symsrc);
	dso_loader__init(loader, wq, &s->machine.symsrc);
	s->machine.loader = loader;
	/* as report: the kernel's symbols first, they take longest */
	if (ids)
		machine__add_build_ids(&s->machine, ids, size, false);
	machine__load_kernel_ahead(&s->machine, perf_session__kernel_text(&s->session));
	if (ids)
		machine__add_build_ids(&s->machine, ids, size, true);
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

int cmd_script(int argc, const char **argv, const struct report_config *cfg)
{
	const char *input = NULL, *jobs = NULL, *symfs = NULL, *kallsyms = NULL, *comms = NULL;
	const char *pids = NULL, *tids = NULL, *cpus = NULL;
	bool ns = false, hide_callgraph = false, task_events = false, mmap_events = false,
	     switch_events = false, header = false, dump_raw = false;
	struct dump dump = { 0 };
	struct script s = { .consumer.deliver = script_deliver };
	struct option_callback fields_cb = { parse_fields, &s.f };
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
		{ 'G', "hide-call-graph", OPT_BOOL, &hide_callgraph, NULL, "When printing symbols do not display call chain" },
		{ 0, "symfs", OPT_STRING, &symfs, "directory", "Look for files with symbols relative to this directory" },
		{ 0, "kallsyms", OPT_STRING, &kallsyms, "file", "kallsyms pathname" },
		{ 'k', "vmlinux", OPT_NOOP_ARG, NULL, "file", "vmlinux pathname (not used)" },
		{ 'j', "jobs", OPT_STRING, &jobs, "n", "threads in all for reading and loading symbols (default: online CPUs)" },
		OPT_END_MARK,
	};
	struct symsrc_config symsrc = { 0 };
	struct workqueue *wq = NULL;
	struct dso_loader loader;
	char *symfs_cache = NULL;
	int nr_args, nr_jobs, ret;
	static char outbuf[OUTPUT_BUFFER];

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
	s.ns = ns;
	s.no_callchain = hide_callgraph;
	s.show_task_events = task_events;
	s.show_mmap_events = mmap_events;
	s.show_switch_events = switch_events;
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
	script_init_machine(&s, &symsrc, &loader, wq);
	name_list__parse(&s.comms, comms);
	name_list__parse(&s.pids, pids);
	name_list__parse(&s.tids, tids);

	/* a closed pipe is the reader saying it has seen enough: EPIPE, not a signal */
	signal(SIGPIPE, SIG_IGN);
	s.fp = stdout;
	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	/* perf report --header-only's block first; a pipe's features come with their records */
	if (header)
		header__fprintf(&s.session, stdout, false);
	s.print_features = header && s.session.is_pipe;

	/* -D: report -D's dump of every record, a sample's script line under its own */
	if (dump_raw) {
		dump__init(&dump, &s.session, &s.machine, &s.consumer, stdout);
		dump.maps_handled = true;
	}
	ret = perf_session__process(&s.session, dump_raw ? &dump.consumer : &s.consumer);
	if (fflush(stdout) && errno == EPIPE)
		s.stopped = true;
	if (s.stopped) {
		ret = 0;
	} else if (s.trace_failed) {
		fprintf(stderr, "analyze: %s\n", error_get());
		ret = 1;
	} else if (s.check_failed) {
		ret = 255;
	} else if (ret) {
		fprintf(stderr, "analyze: %s\n", error_get());
		ret = 1;
	}

	if (dump_raw)
		dump__exit(&dump);
	name_list__free(&s.comms);
	name_list__free(&s.pids);
	name_list__free(&s.tids);
	free(s.cpus);
	free(symfs_cache);
	if (wq)
		workqueue__destroy(wq);	/* symbol tables still loading refer to dsos */
	trace_fields__delete(s.tf);
	machine__exit(&s.machine);
	dso_loader__exit(&loader);
	perf_session__close(&s.session);
	return ret;
}
