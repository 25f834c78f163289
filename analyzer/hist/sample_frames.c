/*
 * sample_frames: a sample's callchain frames resolved to maps as perf script resolves them
 * (see sample_frames.h). Reading thread only: it reads the model.
 */
#include "analyzer/hist/sample_frames.h"

#include "analyzer/hist/callchain.h"

#include "machine/machine.h"
#include "machine/unwind.h"
#include "readers/decode/sample.h"
#include "readers/session.h"

u32 sample_frames__count(const u64 *chain, u32 max_stack)
{
	struct chain_walk w;
	u32 frames = 0;
	u64 ip;
	int ret;

	if (!chain)
		return 0;
	chain_walk__init(&w, chain, chain[0], max_stack, false);
	while ((ret = chain_walk__next(&w, &ip)) > 0)
		frames++;
	return ret < 0 ? 0 : frames;
}

u32 sample_frames__count_unwound(const u64 *chain, u64 user_at)
{
	u32 frames = 0;

	for (u64 i = 0; i < chain[0]; i++)
		frames += i >= user_at || chain[1 + i] < (u64)PERF_CONTEXT_MAX;
	return frames;
}

u32 sample_frames__count_unwound_user(const u64 *chain, u64 user_at)
{
	return user_at < chain[0] ? (u32)(chain[0] - user_at) : 0;
}

static struct sample_frame frame_at(struct machine *machine, struct thread *thread,
				    u8 cpumode, u64 ip)
{
	struct addr_location al;

	machine__find_map(machine, thread, cpumode, ip, &al);
	return (struct sample_frame){ .dso = al.map ? al.map->dso : NULL, .addr = al.addr };
}

void sample_frames__resolve(struct machine *machine, struct thread *thread, const u64 *chain,
			    u64 user_at, struct sample_frame *frames, u32 nr)
{
	u64 ends = MIN(chain[0], user_at), ip;
	struct chain_walk w;
	u32 n = 0;

	/* the sample's own chain, then the unwound user frames (all addresses) */
	chain_walk__init(&w, chain, ends, nr, false);
	for (; n < nr && chain_walk__next(&w, &ip) > 0; n++)
		frames[n] = frame_at(machine, thread, w.cpumode, ip);
	for (u64 i = ends; n < nr && i < chain[0]; i++, n++)
		frames[n] = frame_at(machine, thread, PERF_RECORD_MISC_USER, chain[1 + i]);
}

const u64 *sample_frames__chain(struct unwinder **unwinder, struct perf_session *session,
				struct machine *machine, struct thread *thread,
				const struct perf_sample *sample, u32 max_stack, u32 *nr_frames,
				u64 *user_at)
{
	const u64 *chain = sample->callchain;

	*user_at = SAMPLE_FRAMES_NO_USER_AT;
	if (sample->user_regs.regs && sample->user_stack.size) {
		if (!*unwinder)
			*unwinder = unwinder__new(session, max_stack);
		chain = unwind__callchain(*unwinder, machine, thread, sample);
		if (chain != sample->callchain) {
			if (chain)
				*user_at = unwind__user_at(*unwinder);
			*nr_frames = chain ? sample_frames__count_unwound(chain, *user_at) : 0;
			return chain;
		}
	}
	*nr_frames = sample_frames__count(chain, max_stack);
	return chain;
}

void sample_frames__init_machine(struct machine *machine, struct perf_session *session,
				 const struct symsrc_config *symsrc, struct dso_loader *loader,
				 struct workqueue *wq)
{
	size_t size;
	const u8 *ids = perf_session__feat(session, HEADER_BUILD_ID, &size);

	machine__init(machine, symsrc);
	dso_loader__init(loader, wq, &machine->symsrc);
	machine->loader = loader;
	/* as report: the kernel's symbols first, they take longest */
	if (ids)
		machine__add_build_ids(machine, ids, size, false);
	machine__load_kernel_ahead(machine, perf_session__kernel_text(session));
	if (ids)
		machine__add_build_ids(machine, ids, size, true);
}
