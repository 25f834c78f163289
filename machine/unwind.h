/*
 * unwind: the user frames of `perf record --call-graph dwarf` samples, unwound from the
 * sampled user registers (PERF_SAMPLE_REGS_USER) and stack copy (PERF_SAMPLE_STACK_USER)
 * with the binaries' CFI (.eh_frame through .eh_frame_hdr, else .debug_frame), read with
 * libdw, and given as a callchain in the kernel's format, as perf 6.1 gives them to report
 * and script (Debian's perf 6.1 unwinds with libunwind: util/unwind-libunwind-local.c).
 * x86-64 only. Reads the thread's maps as they are at the sample: it runs on the thread that
 * keeps the model, before the next record changes it. Knows nothing of symbols or output.
 */
#ifndef MACHINE_UNWIND_H
#define MACHINE_UNWIND_H

#include "lib/compiler.h"

struct machine;
struct perf_sample;
struct perf_session;
struct thread;
struct unwinder;

/*
 * An unwinder for one session (its ARCH feature decides whether perf unwinds at all), with
 * perf's max-stack: at most max_stack frames of the sample's own callchain and as many
 * unwound ones (script: 127, PERF_MAX_STACK_DEPTH; report: --max-stack, default the
 * kernel's perf_event_max_stack). Per-dso state (the file, its CFI, the rules of every pc
 * met) is kept for the whole run: nothing is allocated per sample once the pcs are known.
 */
struct unwinder *unwinder__new(const struct perf_session *session, int max_stack);
void unwinder__delete(struct unwinder *unwinder);

/*
 * The callchain perf resolves for a sample that has one (sample->callchain != NULL), in the
 * kernel's format: u64 nr, then nr entries, callee first, PERF_CONTEXT_* markers included.
 *
 * - A sample without user registers or stack (not a dwarf recording, a kernel thread, an
 *   empty stack copy): sample->callchain itself, unchanged.
 * - A dwarf sample: the sample's own chain (the kernel part, at most max_stack frames, as
 *   perf's thread__resolve_callchain_sample walks it: a chain with an unknown context marker
 *   contributes nothing), then PERF_CONTEXT_USER and the unwound user frames (at most
 *   max_stack): the first is the sampled user ip, the others return addresses minus 1 (but
 *   the pc a signal interrupted), as perf's cursor holds them. Each part has its own max_stack:
 *   a consumer must not cap the whole chain again (count the frames after the
 *   PERF_CONTEXT_USER marker this adds separately from those before it).
 *   The buffer belongs to the unwinder: valid until its next call.
 * - NULL where perf's unwinding fails (the registers lack the ip or the stack pointer):
 *   perf script then prints the sample on one line, without frames; perf report stops
 *   ("failed to process sample"). unwind__strerror() says why.
 */
const u64 *unwind__callchain(struct unwinder *unwinder, struct machine *machine,
			     struct thread *thread, const struct perf_sample *sample);
/*
 * Where the unwound frames start in the chain the last unwind__callchain() made (entry
 * chain[1 + i] for i >= this): they are addresses all, also one in the PERF_CONTEXT_* range
 * (perf shows the pc 0 libunwind may give as 0 - 1, ffffffffffffffff).
 */
size_t unwind__user_at(const struct unwinder *unwinder);
/* Why the last unwind__callchain() returned NULL. */
const char *unwind__strerror(const struct unwinder *unwinder);

#endif
