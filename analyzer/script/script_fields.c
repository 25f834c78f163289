/*
 * script_fields: perf script's output fields (-F), parsed as perf 6.1 parses them, and their
 * check against the events' sample types before the first line (perf_session__check_output_opt).
 */
#include "analyzer/script/script_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "readers/decode/evsel_name.h"

/* builtin-script.c's all_output_options: every name perf accepts, and what we print of them */
static const struct {
	const char *name;
	u32 field;	/* 0: perf knows it, analyze does not print it yet */
} field_names[] = {
	{ "comm", SF_COMM }, { "tid", SF_TID }, { "pid", SF_PID }, { "time", SF_TIME },
	{ "cpu", SF_CPU }, { "event", SF_EVNAME }, { "trace", SF_TRACE }, { "ip", SF_IP },
	{ "sym", SF_SYM }, { "dso", SF_DSO }, { "addr", SF_ADDR }, { "symoff", SF_SYMOFFSET },
	{ "srcline", SF_SRCLINE }, { "period", SF_PERIOD }, { "iregs", 0 }, { "uregs", 0 },
	{ "brstack", SF_BRSTACK }, { "brstacksym", SF_BRSTACKSYM }, { "data_src", SF_DATA_SRC },
	{ "weight", SF_WEIGHT }, { "bpf-output", SF_BPF_OUTPUT }, { "callindent", SF_CALLINDENT },
	{ "insn", SF_INSN }, { "insnlen", SF_INSNLEN }, { "synth", SF_SYNTH },
	{ "phys_addr", SF_PHYS_ADDR }, { "metric", 0 }, { "misc", SF_MISC }, { "srccode", 0 },
	{ "ipc", 0 }, { "tod", 0 }, { "data_page_size", SF_DATA_PAGE_SIZE },
	{ "code_page_size", SF_CODE_PAGE_SIZE }, { "ins_lat", SF_INS_LAT },
	{ "brstackinsn", 0 }, { "brstackinsnlen", 0 }, { "machine_pid", 0 }, { "vcpu", 0 },
	{ "brstackoff", SF_BRSTACKOFF }, { "flags", SF_FLAGS },
};

/* builtin-script.c's defaults: the same for every kind of sampled event but tracepoints */
#define SF_DEFAULT                                                                          \
	(SF_COMM | SF_TID | SF_CPU | SF_TIME | SF_EVNAME | SF_IP | SF_SYM | SF_SYMOFFSET |  \
	 SF_DSO | SF_PERIOD)

void script_fields__init(struct script_fields *f)
{
	memset(f, 0, sizeof(*f));
	for (int t = 0; t < SCRIPT_TYPES; t++)
		f->fields[t] = SF_DEFAULT;
	f->fields[PERF_TYPE_SOFTWARE] |= SF_BPF_OUTPUT;
	/* raw events are perf mem's: their memory fields too (dropped where samples lack them) */
	f->fields[PERF_TYPE_RAW] |= SF_ADDR | SF_DATA_SRC | SF_WEIGHT | SF_PHYS_ADDR |
				    SF_DATA_PAGE_SIZE | SF_CODE_PAGE_SIZE | SF_INS_LAT;
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

/* perf's output_field2str: the name of one field, "unknown" for none or several */
static const char *field_name(u32 field)
{
	for (size_t i = 0; i < ARRAY_SIZE(field_names); i++)
		if (field_names[i].field == field)
			return field_names[i].name;
	return "unknown";
}

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
			evsel__name(evsel), what, field_name(field));
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
int script_check_type(struct script *s, int t, struct evsel *evsel)
{
	u64 st = evsel->attr.sample_type;

	if (!s->f.fields[t])
		return 0;
	if (stype_check(s, t, evsel, PERF_SAMPLE_IP, "IP", SF_IP) ||
	    stype_check(s, t, evsel, PERF_SAMPLE_ADDR, "ADDR", SF_ADDR) ||
	    stype_check(s, t, evsel, PERF_SAMPLE_DATA_SRC, "DATA_SRC", SF_DATA_SRC) ||
	    stype_check(s, t, evsel, PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT, "WEIGHT",
			SF_WEIGHT))
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
	    stype_check(s, t, evsel, PERF_SAMPLE_CPU, "CPU", SF_CPU) ||
	    stype_check(s, t, evsel, PERF_SAMPLE_PHYS_ADDR, "PHYS_ADDR", SF_PHYS_ADDR) ||
	    stype_check(s, t, evsel, PERF_SAMPLE_DATA_PAGE_SIZE, "DATA_PAGE_SIZE",
			SF_DATA_PAGE_SIZE) ||
	    stype_check(s, t, evsel, PERF_SAMPLE_CODE_PAGE_SIZE, "CODE_PAGE_SIZE",
			SF_CODE_PAGE_SIZE) ||
	    stype_check(s, t, evsel, PERF_SAMPLE_WEIGHT_STRUCT, "WEIGHT_STRUCT", SF_INS_LAT))
		return -1;
	return 0;
}

/* The name column is as wide as the longest event name. */
void script_widen_name(struct script *s, struct evsel *evsel)
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
int script_check_fields(struct script *s)
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
		if (script_check_type(s, t, evsel))
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
		script_widen_name(s, &s->session.evsels[i]);
	s->checked = true;
	return 0;
}
