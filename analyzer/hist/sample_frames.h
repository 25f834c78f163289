/*
 * sample_frames: a sample's callchain as perf script shows it (perf's
 * thread__resolve_callchain_sample for frame pointers, callee first, at most SAMPLE_MAX_STACK
 * frames), resolved to maps on the reading thread with the model as it is at the sample; the
 * symbols are looked up later (machine__resolve_symbol), anywhere. Shared by script and
 * flamegraph, with the machine setup both do before the first record.
 */
#ifndef ANALYZER_SAMPLE_FRAMES_H
#define ANALYZER_SAMPLE_FRAMES_H

#include <stdint.h>

#include "lib/compiler.h"

struct dso;
struct dso_loader;
struct machine;
struct perf_sample;
struct perf_session;
struct symsrc_config;
struct thread;
struct workqueue;

/*
 * perf's PERF_MAX_STACK_DEPTH: perf script shows at most this many frames a sample by
 * default (--max-stack asks for fewer; more are not kept)
 */
#define SAMPLE_MAX_STACK 127

/* A frame as the reading thread resolved it: its map's dso and address. */
struct sample_frame {
	struct dso *dso;	/* NULL: no map */
	u64 addr;		/* map-relative (the address itself without a map) */
};

/* No entry of the chain is an address whatever it looks like (see sample_frames__resolve). */
#define SAMPLE_FRAMES_NO_USER_AT UINT64_MAX

/*
 * How many frames perf script shows of a frame-pointer callchain (none without one), at most
 * max_stack. An unknown context marker before the last of them empties perf's cursor: none.
 */
u32 sample_frames__count(const u64 *chain, u32 max_stack);
/*
 * The frames of a chain the dwarf unwinder made: all of them (it kept perf's limits); from
 * entry user_at on, every entry is an address.
 */
u32 sample_frames__count_unwound(const u64 *chain, u64 user_at);
/* How many of those are the unwound user frames (entries from user_at on). */
u32 sample_frames__count_unwound_user(const u64 *chain, u64 user_at);
/*
 * The maps of the first nr frames of chain (nr from one of the counts), callee first; entries
 * from user_at on are addresses even where they look like context markers.
 */
void sample_frames__resolve(struct machine *machine, struct thread *thread, const u64 *chain,
			    u64 user_at, struct sample_frame *frames, u32 nr);

struct unwinder;

/*
 * perf's thread__resolve_callchain for a sample's frames: with user registers and stack
 * (--call-graph dwarf), the unwinder's chain (made on first use in *unwinder; NULL: perf's
 * unwinding failed, and perf shows the sample without frames), else the sample's own;
 * *nr_frames how many perf shows (at most max_stack, which the unwinder made on first use
 * keeps too), *user_at as sample_frames__resolve takes it.
 */
const u64 *sample_frames__chain(struct unwinder **unwinder, struct perf_session *session,
				struct machine *machine, struct thread *thread,
				const struct perf_sample *sample, u32 max_stack, u32 *nr_frames,
				u64 *user_at);

/*
 * The machine of a session about to be read as script reads it: symbols loaded ahead on wq
 * (may be NULL), the kernel's first, then the dsos of the BUILD_ID feature.
 */
void sample_frames__init_machine(struct machine *machine, struct perf_session *session,
				 const struct symsrc_config *symsrc, struct dso_loader *loader,
				 struct workqueue *wq);

#endif
