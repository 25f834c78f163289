/*
 * itrace: AUX-area trace decoding (`--itrace`), perf 6.1's auxtrace layer as the commands
 * see it: the options, the trace buffers of a file queued from its AUXTRACE records (or the
 * AUXTRACE feature's index), and a decoder (Intel BTS natively, Intel PT through libipt) that
 * turns them into samples handed to the command's callback as they are decoded, in perf's
 * order: BTS decodes a buffer before the first record whose time reaches the buffer's
 * reference, at its thread's EXIT, or at the end; PT decodes each queue up to the time of
 * the next record. Trace bytes are read from the file mapping where they lie, never
 * copied. Pipe-mode inputs and data directories are not decoded (their records are skipped).
 */
#ifndef ANALYZER_ITRACE_H
#define ANALYZER_ITRACE_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/compiler.h"
#include "readers/session.h"

struct machine;

/* perf's itrace_synth_opts, the part analyze acts on (the other letters are accepted). */
struct itrace_opts {
	bool set;		/* --itrace given */
	bool dont_decode;	/* --no-itrace */
	bool instructions, branches, calls, returns, errors, transactions;
	bool ptwrites, pwr_events;	/* w, p: Intel PT's */
	bool callchain;		/* g: synthesized samples carry call chains (Intel PT's) ... */
	u32 callchain_sz;	/* ... of this many frames at most */
	bool add_callchain;	/* G: the recorded events' (none here; report's view changes) */
	u64 period;		/* i: the instruction period */
	int period_type;	/* 0 instructions, 1 ticks, 2 nanoseconds */
	u64 initial_skip;	/* s: events to skip first */
	bool insn_bytes;	/* the command prints instructions (-F insn): BTS reads them */
	bool thread_stack;	/* and call depths (-F callindent): perf's thread stack */
	/* the command's default was perf report's (perf's !default_no_sample): Intel PT then
	 * synthesizes instructions with call chains instead of branches */
	bool default_report;
};

/*
 * Parse an --itrace argument as perf 6.1's itrace_parse_synth_opts (NULL: the default). -1
 * on a string perf refuses ("Bad Instruction Tracing options '%s'").
 */
int itrace_opts__parse(struct itrace_opts *opts, const char *str);
/* itrace_opts__parse as an option's callback (data: the opts), perf's error said if refused */
int itrace_opts__option(const char *arg, void *data);

/* perf's PERF_ITRACE_DEFAULT_CALLCHAIN_SZ and PERF_ITRACE_MAX_CALLCHAIN_SZ */
#define ITRACE_DEFAULT_CALLCHAIN_SZ 16
#define ITRACE_MAX_CALLCHAIN_SZ 1024
/*
 * The default of perf script (no_sample: calls and errors) or perf report (everything);
 * set and dont_decode stay as they are. Commands apply theirs when --itrace was not given.
 */
void itrace_opts__set_default(struct itrace_opts *opts, bool no_sample);

/* perf's PERF_IP_FLAG_* (util/event.h): a branch sample's kind. */
enum {
	IP_FLAG_BRANCH = 1 << 0,
	IP_FLAG_CALL = 1 << 1,
	IP_FLAG_RETURN = 1 << 2,
	IP_FLAG_CONDITIONAL = 1 << 3,
	IP_FLAG_SYSCALLRET = 1 << 4,
	IP_FLAG_ASYNC = 1 << 5,
	IP_FLAG_INTERRUPT = 1 << 6,
	IP_FLAG_TX_ABORT = 1 << 7,
	IP_FLAG_TRACE_BEGIN = 1 << 8,
	IP_FLAG_TRACE_END = 1 << 9,
	IP_FLAG_IN_TX = 1 << 10,
	IP_FLAG_VMENTRY = 1 << 11,
	IP_FLAG_VMEXIT = 1 << 12,
	IP_FLAG_INTR_DISABLE = 1 << 13,
	IP_FLAG_INTR_TOGGLE = 1 << 14,
};

/* perf_sample__sprintf_flags: "call", "jcc", "tr strt", or the flag letters. */
void itrace_flags__format(u32 flags, char *buf, size_t size);

/* An error the decoder reports (perf's synthesized AUXTRACE_ERROR). */
struct itrace_error {
	u32 code;
	s32 cpu, pid, tid;
	u64 ip;
	const char *msg;
	u64 time;	/* PT's: the decoder's time then (0: none) */
};

struct itrace_consumer {
	/* A decoded sample: deliver it as a recorded one of evsel. Non-zero stops. */
	int (*sample)(struct itrace_consumer *consumer, struct event_ctx *ctx);
	void (*error)(struct itrace_consumer *consumer, const struct itrace_error *err);
};

struct itrace;

#define ITRACE_MAX_EVSELS 8	/* synthesized events a decoder may add */
#define PERF_TYPE_SYNTH 0x80000000u	/* perf's util/event.h: their attr type (INT_MAX + 1) */

/*
 * Set up from an AUXTRACE_INFO record at file offset `offset` (its bytes native-endian).
 * NULL with error_get() set (naming the file and offset) when the record is malformed or its
 * AUX type unknown.
 */
struct itrace *itrace__new(struct perf_session *session, struct machine *machine,
			   const struct itrace_opts *opts, struct itrace_consumer *consumer,
			   const struct perf_event_header *info, u64 offset);
void itrace__delete(struct itrace *itrace);
/* The i-th synthesized event the samples come from (perf's "branches", "instructions"), or
 * NULL past the last. */
struct evsel *itrace__evsel(struct itrace *itrace, size_t i);
/* An AUXTRACE record at `offset` of the data (its trace bytes follow it). 0 or -1. */
int itrace__add_buffer(struct itrace *itrace, const struct perf_event_header *event, u64 offset);
/* Before a kernel record (time: its timestamp, 0 if none) is delivered. 0 or -1. */
int itrace__process_event(struct itrace *itrace, const struct perf_event_header *event, u64 time);
/* After the last record: decode what is left. 0 or -1. */
int itrace__flush(struct itrace *itrace);

#endif
