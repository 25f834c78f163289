/*
 * dump: `analyze report -D` (--dump-raw-trace), perf report -D's raw dump: every record as a
 * hex dump followed by its decoded line, where perf 6.1 prints them (user records as they are
 * read, kernel records as they are delivered in time order), then the stats block.
 * It only prints: the machine model is updated by the consumer it forwards every record to.
 */
#ifndef ANALYZER_DUMP_H
#define ANALYZER_DUMP_H

#include <stdio.h>

#include "lib/containers/hashmap.h"
#include "readers/session.h"

struct machine;

struct dump {
	struct event_consumer consumer;	/* pass this to perf_session__process */
	struct event_consumer *next;	/* gets every record after it is printed */
	struct perf_session *session;
	struct machine *machine;	/* threads and maps for the sample lines */
	FILE *fp;
	struct hashmap paths;	/* directory data files: kernel record -> file, read to delivery */
	struct hashmap read_values;	/* PERF_SAMPLE_READ: counter id -> u64 * last value */
	/* perf script's dump: its tool handles THREAD_MAP and CPU_MAP (no ": unhandled!") */
	bool maps_handled;
	/* perf script --show-lost-events: its tool prints LOST records (no ": id:...: lost:...") */
	bool lost_handled;
	/*
	 * perf script: whether the consumer keeps a sample (--time, -C): perf resolves, and so
	 * prints the " ... thread:" lines of, only those. NULL: every sample.
	 */
	bool (*keeps_sample)(struct event_consumer *next, const struct event_ctx *ctx);
	u32 aux_type;	/* of the AUXTRACE_INFO record seen (2: Intel BTS, whose data is dumped) */
};

/* Print records to fp, then hand them to next (whose machine is the one samples resolve in). */
void dump__init(struct dump *dump, struct perf_session *session, struct machine *machine,
		struct event_consumer *next, FILE *fp);
void dump__exit(struct dump *dump);

/*
 * perf's trace_event(): the ". ... raw event: size N bytes" block, 16 bytes a line with
 * their ASCII, and the blank line after it.
 */
void dump_fprintf_hex(FILE *fp, const struct perf_event_header *event);

/*
 * What follows "PERF_RECORD_<NAME>" for records whose text depends only on the record
 * (MMAP, MMAP2, COMM, FORK, EXIT, LOST, KSYMBOL, BPF_EVENT, SWITCH, NAMESPACES, CGROUP, AUX,
 * ITRACE_START, ID_INDEX, EVENT_UPDATE, THREAD_MAP, CPU_MAP, TIME_CONV, ...), as perf report
 * 6.1 prints it, newline included (nothing for records perf prints nothing after).
 */
void dump_fprintf_details(FILE *fp, const struct perf_event_header *event);

/*
 * perf's dump_sample(): "(IP, 0xMISC): PID/TID: 0xIP period: N addr: 0xADDR" and the
 * callchain, branch stack, registers, ... lines the attr's sample_type asks for.
 */
void dump_fprintf_sample(FILE *fp, const struct perf_event_header *event,
			 const struct perf_sample *sample, const struct perf_event_attr *attr);

/*
 * A branch's kind from its perf_branch_entry flags (the u64 after from and to), as perf 6.1
 * names it (branch_type_name, and branch_new_type_name for PERF_BR_EXTEND_ABI): "COND",
 * "IND_CALL", "FAULT_DATA", ...; "" for an unknown one.
 */
const char *branch_flags__type_name(u64 flags);

#endif
