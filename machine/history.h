/*
 * history: the model as it was at any point of the recording. While the side-band records
 * are replayed into a machine in delivery order (with the samples set aside), every change
 * of a thread (its table entry, pid, comm, maps) and of a maps (a map in, a map out) is
 * logged with the key of the record that made it. Once finished it answers, for a sample's
 * key, which thread, comm and map the sample saw, without replaying anything: read-only,
 * so any number of threads may ask at once. Everything it logged stays alive until
 * history__exit (it holds references).
 */
#ifndef MACHINE_HISTORY_H
#define MACHINE_HISTORY_H

#include "lib/containers/hashmap.h"
#include "machine/machine.h"

/* A record's place in delivery order: its time, then its place in the file. */
struct model_key {
	u64 time, pos;
};

static inline bool model_key_less(struct model_key a, struct model_key b)
{
	return a.time < b.time || (a.time == b.time && a.pos < b.pos);
}

#define MODEL_KEY_MAX ((struct model_key){ UINT64_MAX, UINT64_MAX })

/* A thread as records after key left it (thread NULL: no thread of that tid then). */
struct thread_version {
	struct model_key key;
	struct thread *thread;	/* a reference */
	struct maps *maps;	/* a reference, or NULL (retired) */
	const struct comm *comm;	/* NULL: none set yet (the thread's comm0 then) */
	s32 tid, pid;
	bool comm_set;
	const void *entry_comm;	/* the caller's, see history__set_entry_comms */
};

/* One map's stay in one maps: [from, to) in delivery order. */
struct map_span {
	u64 start, end;
	struct map *map;	/* a reference */
	struct model_key from, to;
};

struct maps_history {
	struct maps *maps;	/* a reference */
	struct map_span *spans;	/* by start, once finished */
	u64 *max_end;		/* max_end[i]: the largest end of spans[0..i] */
	size_t nr, alloc;
	struct hashmap open;	/* map -> 1 + index of its open span, while building */
};

struct history {
	struct model_key now;	/* the key of the record being replayed */
	struct thread_version *versions;	/* by tid then key, once finished */
	size_t nr_versions, alloc_versions;
	struct hashmap by_tid;	/* tid -> 1 + index of its first version, once finished */
	struct maps_history *mh;
	size_t nr_mh, alloc_mh;
	struct hashmap by_maps;	/* maps -> 1 + index in mh */
	bool finished;
};

/* Start logging m's changes (m has only its idle thread so far). */
void history__init(struct history *h, struct machine *m);
/* Stop logging; sort and index what was logged. */
void history__finish(struct history *h, struct machine *m);
void history__exit(struct history *h);

/* The hooks machine.c and map.c call while h logs (see machine->history, maps_observer). */
void history__thread(struct history *h, struct thread *t);
void history__thread_gone(struct history *h, s32 tid);

/* The version of tid that a record at key saw, or NULL if tid had none then. */
const struct thread_version *history__thread_at(const struct history *h, s32 tid,
						struct model_key key);

/* history__thread_at's last answer, one per reading thread: samples come in runs of a tid. */
struct version_cache {
	const struct thread_version *v;	/* NULL: none yet */
	s32 tid;
	struct model_key to;	/* v answers for keys after its own up to this one */
};

/* history__thread_at, through c. */
const struct thread_version *history__thread_at_cached(const struct history *h, s32 tid,
						       struct model_key key,
						       struct version_cache *c);

/* A lookup's memory of its last answer, one per reading thread. */
struct span_cache {
	const struct maps_history *mh;
	const struct map_span *span;
};

/* The map of maps that held ip at key (perf's maps__find then), or NULL. */
const struct map_span *history__find_map(const struct history *h, struct maps *maps, u64 ip,
					 struct model_key key, struct span_cache *cache);

/* Every version, for the caller to set its entry_comm (fn's return). */
void history__set_entry_comms(struct history *h,
			      const void *(*fn)(void *data, const struct thread_version *v),
			      void *data);

/* Call fn on every span (of every maps); for checks over the whole model. */
void history__for_each_span(const struct history *h,
			    void (*fn)(void *data, const struct maps_history *mh,
				       const struct map_span *span),
			    void *data);

#endif
