/*
 * What the hist_*.c files share: the entries' small helpers, the cumulation's and the
 * replay's state, and the functions one file calls in another. Private to analyzer/hist/
 * (make check-layers): the API is hist.h. Hot helpers stay static inline here.
 */
#ifndef ANALYZER_HIST_HIST_INTERNAL_H
#define ANALYZER_HIST_HIST_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "analyzer/hist/hist.h"
#include "analyzer/hist/hist_keys_internal.h"
#include "lib/containers/rbtree.h"

/* An entry of an address without a map: see struct replay. */
static inline bool entry_wraps(const struct hist_entry *he)
{
	return !he->merged && !he->dso && !he->sym;
}

/* The entry e ends up in. */
static inline u32 final_entry(const struct hists *hists, u32 e)
{
	while (hists->entries[e].merged)
		e = hists->merged_into[e];
	return e;
}

#define NO_ENTRY UINT32_MAX

/*
 * What the cumulation hands the replay (struct replay), which runs on another thread
 * meanwhile: the entries the replay inserts into perf's first tree (all but the wrapping
 * ones), in the order perf inserted them (by_first), each once its first sample and place in
 * it are final. The pairs are cumulated in the order of their first samples, and an entry's
 * first sample is that of the first pair to reach it: once the pairs first seen before
 * sample s are cumulated, so is every entry first reached before s. The run's entries, made
 * in the order of their first samples, go at their turn, unless a pair reached them earlier.
 */
struct replay_feed {
	u32 *log;		/* the entries, in insert order */
	size_t nr, alloc;	/* logged; room (all of it before the replay starts on its
				   thread: the log does not move while it reads it) */
	bool *fed;		/* by entry of the run: logged at the pair that reached it first */
	size_t nr_run, next_run;
	_Atomic size_t published;	/* what of the log the replay may read */
	_Atomic u64 frontier;	/* each entry first reached before this sample is logged */
};

/*
 * The frames' entries (protos) are made some frames ahead of their lookups, and each one's
 * index slot, then the entry in it, fetched meanwhile: the lookups of a million chains' frames
 * are cache misses, which then overlap. A ring of the protos made and not yet looked up.
 */
#define CUMULATE_AHEAD 8	/* protos made ahead; the slot's entry is fetched half way */
#define CUMULATE_RING 16	/* > CUMULATE_AHEAD, a power of 2 */

/* A walk over every frame of every pair's chain, in pair order. */
struct frame_walk {
	size_t pair;
	u32 frame;	/* the next one's, in the pair's chain */
};

struct cumulate {
	struct hists *hists;
	const struct hists_callchain *cc;
	struct replay_feed *feed;	/* or NULL: no replay */
	struct frame_walk make;	/* the next proto's frame */
	char level;		/* carried along a pair's frames */
	size_t made, taken;	/* protos made, looked up */
	struct frame_walk fetch;	/* further ahead: the next frame and symbol to fetch */
	size_t fetched;
	struct hist_entry ring[CUMULATE_RING];
};

/*
 * The replay runs on a thread of its own while the cumulation makes the entries (keyed:
 * what it reads of them is then final, see struct replay_feed), else after it. It counts the
 * wrapping entries (the cumulation leaves them alone) and makes its own entries (extra) until
 * replay_finish puts them after the cumulation's.
 */
struct replay {
	struct hists *hists;
	const struct hists_callchain *cc;
	const struct chain_count *counts;	/* the pairs', made as the cumulation goes */
	const u32 *made, *made_at;	/* see replay_start */
	const char *levels;
	struct replay_feed *feed;
	u64 frontier;		/* the feed's, as last read */
	size_t nr_log;		/* the feed's log readable then */
	size_t next_insert;	/* in the log */
	bool keyed;	/* the tree's nodes hold the entries' keys; else the entries compared */
	bool plain;	/* keyed, and the keys perf's default: comm, dso, symbol */
	struct name_set comms, dsos;	/* keyed: every name an entry can have, ranked */
	struct rbtree tree;
	u32 version;	/* inserts so far: a lookup's answer holds until the next one */
	bool *placed;	/* by wrapping entry: in the tree already */
	u32 *seen;	/* by wrapping entry: 1 + the version its last lookup found it at (the
			   tree's items are u32, and a version counts inserts) */
	u32 *found;	/* what that lookup found */
	size_t placed_alloc, seen_alloc, found_alloc;
	struct hist_entry *extra;	/* the entries the lookups made: ids extra_base + i */
	size_t nr_extra, extra_alloc;
	u32 extra_base;	/* above every entry the cumulation makes */
	pthread_t thread;
	bool threaded;
	u32 *order;	/* the tree's items in order, when done */
	size_t nr_order;
};

/* hist.c */
const struct object_map *object_map(const struct hists *hists, u32 e);
/* hist_print.c and hist_render.c: the columns' widths, and one printing of the entries. */
struct widths {
	int col[FIELD_NR];
};

#define RENDER_CHUNK 256	/* a chunk's work: its entries and their callchains */
#define RENDER_SLOTS 4		/* chunks made and not yet written, at most */
#define RENDER_MIN 64		/* entries from which a helper prints too */

struct render {
	const struct hists *hists;
	const struct hists_print_opts *opts;
	const u32 *order;
	size_t nr;
	const struct widths *w;
	const struct field_list *columns;
	int last;	/* the last column shown */
	u64 total;	/* what percentages are of (perf's hists__total_period) */
	u64 min_total;	/* and the graphs' threshold: the same before --symbol-filter */
	size_t line_size;
	bool graphs;
	/* render_parallel's, under lock */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	size_t next, written, nr_chunks;
	size_t *starts;		/* chunk c is entries [starts[c], starts[c + 1]) */
	struct render_slot {
		char *buf;
		size_t len;
		bool ready;
	} slots[RENDER_SLOTS];
};

/* Entries [from, to) of r's order printed to fp (hist_print.c). */
void render_entries(const struct render *r, size_t from, size_t to, struct cc_scratch *scratch,
		    FILE *fp);
/* All of them, in chunks on this thread and a helper where printing allows (hist_render.c). */
void render_run(struct render *r, struct cc_scratch *scratch, FILE *fp);

void hists__collapse(struct hists *hists);
bool *src_known(const struct hists *hists, enum sort_key key);
void release_read(uintptr_t lo, uintptr_t hi, uintptr_t *from);
void release_free(void);
size_t replay_collapse(struct hists *hists, struct rbtree *t, u32 *order, size_t nr,
		       rbtree_dir_fn dir, void *ctx);
void feed_run(struct replay_feed *f, const struct hists *hists, u64 upto);
void feed_publish(struct replay_feed *f, u64 frontier);
void cumulate_pair(struct cumulate *c, const struct chain_pair *p, u32 *made,
		   char *levels);

/* hist_order.c */
/* by: an order of -F's (field_list__layout), or NULL for perf's default one */
size_t output_order(struct hists *hists, const struct hists_print_opts *opts,
		    const struct field_list *by, u32 *order);

/* hist_replay.c */
void replay_start(struct replay *r, struct hists *hists, const struct hists_callchain *cc,
		  struct replay_feed *feed, const u32 *made, const char *levels,
		  const u32 *made_at, size_t nr_max);
void replay_finish(struct replay *r);

/* hist_branch.c: branch mode's columns (col: widths by sort key; unres_dso: see there) */
void hist_branch__widths(const struct hist_entry *he, bool unres_dso, int *col);
int hist_branch__snprintf(char *buf, size_t size, enum sort_key key, const struct hist_entry *he,
			  int width);
int hist_end_snprintf(char *buf, size_t size, const struct symbol *sym,
		      const struct symtab *symtab, const struct dso *dso, u64 addr, u64 base,
		      char level, int width, bool addr_key);
/* hist_mem.c: memory mode's columns, the same way */
void hist_mem__widths(const struct hist_entry *he, bool unres_dso, int *col);
int hist_mem__snprintf(char *buf, size_t size, enum sort_key key, const struct hist_entry *he,
		       int width);

#endif
