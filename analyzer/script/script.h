/*
 * script: `analyze script`, perf script's per-event output: one line a sample (and with
 * callchains, one line a frame under it), in perf's delivery order, as perf 6.1 prints them.
 * The pieces below are exposed for the unit tests.
 */
#ifndef ANALYZER_SCRIPT_H
#define ANALYZER_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>

#include "analyzer/itrace/itrace.h"
#include "lib/compiler.h"

/* perf script's output fields (-F), as bits. */
enum script_field {
	SF_COMM = 1 << 0,
	SF_TID = 1 << 1,
	SF_PID = 1 << 2,
	SF_TIME = 1 << 3,
	SF_CPU = 1 << 4,
	SF_EVNAME = 1 << 5,
	SF_IP = 1 << 6,
	SF_SYM = 1 << 7,
	SF_DSO = 1 << 8,
	SF_SYMOFFSET = 1 << 9,
	SF_PERIOD = 1 << 10,
	SF_TRACE = 1 << 11,	/* tracepoints' default: their fields, formatted (trace_fields.h) */
	SF_BPF_OUTPUT = 1 << 12,	/* software events' default: a bpf-output event's raw data */
	SF_ADDR = 1 << 13,	/* the sample's addr (and, for page faults, its symbol and dso) */
	SF_FLAGS = 1 << 14,	/* branch flags: an empty column outside AUX traces */
	SF_CALLINDENT = 1 << 15,	/* BTS/PT call indentation: nothing outside them */
	SF_INSN = 1 << 16,	/* AUX-trace samples: the instruction's bytes */
	SF_SYNTH = 1 << 17,	/* perf's synthesized events (psb, cbr): their data as text */
	SF_SRCLINE = 1 << 18,	/* each ip's source line, under it */
	SF_BRSTACK = 1 << 19,	/* the branch stack: from/to addresses and flags */
	SF_BRSTACKSYM = 1 << 20,	/* the same as symbols */
	SF_BRSTACKOFF = 1 << 21,	/* the same as offsets in their dsos */
	SF_WEIGHT = 1 << 22,
	SF_DATA_SRC = 1 << 23,	/* the data source, raw and decoded (perf mem's fields) */
	SF_PHYS_ADDR = 1 << 24,
	SF_DATA_PAGE_SIZE = 1 << 25,
	SF_CODE_PAGE_SIZE = 1 << 26,
	SF_MISC = 1 << 27,	/* the record's misc bits as letters (cpumode, exec, ...) */
	SF_INSNLEN = 1 << 28,	/* the instruction's length (AUX-trace samples; else 0) */
	SF_INS_LAT = 1 << 29,	/* the instruction latency of a WEIGHT_STRUCT sample */
};

/* perf's output types: the attr types 0..5 (hw sw trace hw_cache raw break), then others,
 * then the events AUX-trace decoders synthesize with perf's PERF_TYPE_SYNTH. */
enum { SCRIPT_TYPE_OTHER = 6, SCRIPT_TYPE_SYNTH, SCRIPT_TYPES };

struct script_fields {
	u32 fields[SCRIPT_TYPES];
	u32 user_fields[SCRIPT_TYPES];	/* asked for by -F: missing from the samples is an error */
	bool user_set[SCRIPT_TYPES];
	bool wildcard_set[SCRIPT_TYPES];	/* set by a -F without a type prefix */
};

/* Which of the types above an attr type prints as (inline: every sample asks). */
static inline int script_output_type(u32 attr_type)
{
	if (attr_type == PERF_TYPE_SYNTH)
		return SCRIPT_TYPE_SYNTH;
	return attr_type < SCRIPT_TYPE_OTHER ? (int)attr_type : SCRIPT_TYPE_OTHER;
}

/* perf's defaults, before any -F. */
void script_fields__init(struct script_fields *f);

enum script_fields_error {
	SF_OK,
	SF_ERR_INVALID,	/* "Invalid field requested." */
	SF_ERR_BADMIX,	/* "Cannot mix +-field with overridden fields" */
	SF_ERR_TYPE,	/* "Invalid event type in field string." */
	SF_ERR_EMPTY,	/* "Cannot set fields to 'none' for all event types." */
	SF_ERR_UNSUPPORTED,	/* a field perf knows that analyze does not print yet */
	SF_ERR_NOT_VALID,	/* "'trace' not valid for software events.": in bad */
};

/*
 * Apply one -F argument as perf 6.1 does: `[type:]field,...` replaces the fields (of that
 * type, or of every type), `+field`/`-field` lists add to or take from them. On an error,
 * bad (bad_size bytes) gets the offending field (SF_ERR_NOT_VALID: perf's whole message).
 * A field not valid for some types, given without a type, is left off them with perf's
 * warning on stderr.
 */
enum script_fields_error script_fields__parse(struct script_fields *f, const char *str, char *bad,
					      size_t bad_size);
/* perf's message for an error above (the unsupported one is ours). */
const char *script_fields__strerror(enum script_fields_error err);

/* A sample time as perf script prints it: seconds.microseconds (ns: .nanoseconds). */
int script_time__format(char *buf, size_t size, u64 time, bool ns);

#endif
