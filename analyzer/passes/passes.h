/*
 * passes: a perf.data file read in two parallel passes, for the commands that can take its
 * samples in any order and put their results in delivery order after (report's histograms,
 * script's lines). Pass 1 (scan.c) walks the data in pieces on every worker, noting the
 * side-band records, the rounds' ends and the counts; the side band, replayed in delivery
 * order through the command's consumer, builds the model and its history (machine/history.h).
 * Pass 2 (passes.c) hands the workers chunks of whole rounds, whose samples each resolve
 * against the model as it was at their key (time, then place in the file): the command's
 * callback does the rest. What the passes cannot answer as the streaming path would (a
 * record out of order, a sample that would change the model, a record they cannot read)
 * gives the run up: the command reads the file the streaming way then.
 */
#ifndef ANALYZER_PASSES_H
#define ANALYZER_PASSES_H

#include "lib/workqueue.h"
#include "machine/history.h"
#include "machine/machine.h"
#include "readers/dir_files.h"
#include "readers/session.h"

/* A stretch of the file read into memory. */
struct window {
	u8 *buf;
	u64 pos, len, alloc;
};

#define SYM_SLOTS 2048

struct sym_slot {
	const struct symtab *st;
	u64 lo, hi;
	const struct symbol *sym;
};

/*
 * What a thread running a piece of pass 1 or a chunk of pass 2 holds; a line of its own.
 * There is one per thread (passes__claim); index says which, for the command's own.
 */
struct pass_worker {
	_Alignas(64) struct window win;	/* of the file, read by pread: no faults, no mapping */
	struct span_cache cache;
	struct version_cache versions;
	struct model_key kernel_hit;	/* the first sample in the kernel's map as recorded */
	struct model_key kernel_stretch;	/* the first only in its stretch (prepare_kernel) */
	u64 first_sample_pos;	/* the earliest sample it met */
	struct sym_slot *syms;	/* symbols found, and the spans of addresses they cover */
	bool fallback;
	const char *why;	/* it did */
	size_t index;
	int busy;
};

struct piece;

struct passes {
	struct perf_session *session;
	struct machine *machine;
	struct event_consumer *side_band;	/* the side band's records go to its deliver */
	struct workqueue *wq;
	struct history history;
	u64 *bounds;	/* record boundaries: the data's start, each round's end, its end */
	size_t nr_bounds, alloc_bounds;
	u64 last_untimed_pos;	/* the last side-band record without a time, or 0 */
	bool fallback;
	const char *why;	/* the first reason to give up */
	/* the kernel's map stretched over its symbols once they load (perf's map__load) */
	struct map *kernel_map;
	u64 kstart, kend;
	const struct map_span **kspans;	/* the kernel map's spans in the kernel's maps */
	size_t nr_kspans;
	struct model_key kernel_hit;	/* the first sample in the kernel's map (passes__check) */
	/* by round (records between two boundaries): the smallest and largest time */
	u64 *round_min, *round_max;
	size_t nr_workers;
	struct pass_worker *workers;
	size_t *chunks;	/* chunk i: bounds[chunks[i]] to bounds[chunks[i + 1]] */
	size_t nr_chunks;
	int fd;		/* the data file, read by the workers */
	struct dir_file *files;	/* or a directory's files: one a piece, one a chunk */
	u32 nr_files;
	u64 data_start, data_end;
	u64 chunk_bytes;	/* the least a worker takes at once */
	u64 test_bytes;	/* ANALYZE_PARALLEL_BYTES: pieces and chunks that small, or 0 */
	struct piece *pieces;	/* pass 1's */
	size_t nr_pieces;
};

/* A record type perf knows (the others are counted and skipped). */
static inline bool passes__known_type(u32 type)
{
	return type && type < PERF_RECORD_HEADER_MAX &&
	       (type < PERF_RECORD_KERNEL_MAX || type >= PERF_RECORD_USER_TYPE_START);
}

/*
 * Whether the passes can read the session at all: a file (not a pipe...), or with dirs a
 * --threads directory (read a file a worker: a command that holds a chunk's results until
 * it is done would hold a whole file's).
 */
bool passes__eligible(const struct perf_session *s, bool dirs);

/*
 * Pass 1 and what pass 2 needs: the side band into m through side_band's deliver, the
 * history finished, the kernel's symbols loaded, the chunks made (whole rounds, at least
 * chunk_bytes a chunk). False to give up (why set); passes__exit either way.
 */
bool passes__start(struct passes *ps, struct perf_session *s, struct machine *m,
		   struct event_consumer *side_band, struct workqueue *wq, u64 chunk_bytes);
void passes__exit(struct passes *ps);

/* For the benchmarks (ANALYZE_BUSY): which way the run went, and why. */
void passes__busy_path(const struct passes *ps, bool done);

/* Give the run up, for the first reason given. */
void passes__give_up(struct passes *ps, const char *why);

/* A worker no other thread holds, released by passes__release. */
struct pass_worker *passes__claim(struct passes *ps);
void passes__release(struct pass_worker *w);

/* What a sample saw: its thread's version, its map (or NULL) and perf's level letter. */
struct pass_sample {
	struct perf_sample sample;
	struct evsel *evsel;
	struct model_key key;
	const struct thread_version *v;
	const struct map_span *span;
	char level;
};

/*
 * Pass 2, chunk i, on worker w: each sample, in file order, resolved (passes__resolve: one
 * it cannot gives the run up, w->why set) and handed to sample(arg, w, ps); the rounds'
 * times noted for passes__check.
 */
void passes__walk_chunk(struct passes *ps, struct pass_worker *w, size_t i,
			void (*sample)(void *arg, struct pass_worker *w,
				       const struct pass_sample *ps),
			void *arg);

/* Sample ev at pos parsed and resolved against the model at its key: false to give up. */
bool passes__resolve(struct passes *ps, struct pass_worker *w, struct perf_event_header *ev,
		     u64 pos, struct pass_sample *out);

/* The symbol of addr in st, through w's cache of the spans found. */
const struct symbol *passes__find_symbol(struct pass_worker *w, const struct symtab *st,
					 u64 addr);

/*
 * After pass 2: whether the run still holds (no record out of order, nothing a worker gave
 * up on, the kernel's map as the streaming path would have it). False: give up.
 */
bool passes__check(struct passes *ps);
/* Then, once the command is done with the model as pass 2 saw it: the kernel's map left as
 * perf leaves it. */
void passes__finish(struct passes *ps);

/*
 * The record at pos, whole, in the window (read as needed); the file read no further than
 * to. NULL if the file does not hold it there.
 */
struct perf_event_header *window_record(int fd, struct window *win, u64 pos, u64 to);

/* scan.c: pass 1. One more record boundary, after the last; the pass; what it leaves. */
void passes__add_bound(struct passes *ps, u64 pos);
bool passes__scan(struct passes *ps);
bool passes__scan_dir(struct passes *ps);
void passes__scan_exit(struct passes *ps);

#endif
