/*
 * report_parallel: what the parallel run's two passes share (report_scan.c: pass 1, the
 * side band and the model; report_parallel.c: pass 2, the samples, and the fold). Private
 * to analyzer/report/.
 */
#ifndef ANALYZER_REPORT_PARALLEL_H
#define ANALYZER_REPORT_PARALLEL_H

#include "analyzer/report/report_internal.h"
#include "machine/history.h"

/* A stretch of the file read into memory. */
struct window {
	u8 *buf;
	u64 pos, len, alloc;
};

#define SYM_SLOTS 2048
#define BATCH 16

struct sym_slot {
	const struct symtab *st;
	u64 lo, hi;
	const struct symbol *sym;
};

/*
 * A worker's histograms and what folding them needs of their entries; a line of its own.
 * Claimed by the thread that runs a piece of pass 1 or a chunk of pass 2 (claim).
 */
struct partial {
	_Alignas(64) struct hists *hists;	/* one per event */
	struct entry_keys *keys;	/* per event: by entry */
	struct span_cache cache;
	struct model_key kernel_hit;	/* the first sample in the kernel's map as recorded */
	struct model_key kernel_stretch;	/* the first only in its stretch (see below) */
	u64 first_sample_pos;	/* the earliest sample in the file */
	struct window win;	/* of the file, read by pread: no page faults, no mapping */
	struct sym_slot *syms;	/* symbols found, and the spans of addresses they cover */
	bool fallback;
	const char *why;	/* it did */
	int busy;
};

/* An entry's first and last samples, and the map of its last (perf's entry keeps it). */
struct entry_key {
	struct model_key first, last;
	struct map *last_map;
	struct dso *last_dso;
};

struct entry_keys {
	struct entry_key *v;
	size_t alloc;
};

struct piece;

/* One parallel run. */
struct par {
	struct report *rep;
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
	/* by round (records between two boundaries): the smallest and largest time */
	u64 *round_min, *round_max;
	size_t nr_partials;
	struct partial *partials;
	size_t *chunks;	/* chunk i: bounds[chunks[i]] to bounds[chunks[i + 1]] */
	size_t nr_chunks;
	int fd;		/* the data file, read by the workers */
	u64 data_start, data_end;
	u64 test_bytes;	/* ANALYZE_PARALLEL_BYTES: pieces and chunks that small, or 0 */
	struct piece *pieces;	/* pass 1's */
	size_t nr_pieces;
};

/* A partial no other thread holds (there is one per thread), released by storing busy 0. */
struct partial *claim(struct par *p);
/* Give the run up, for the first reason given. */
void give_up(struct par *p, const char *why);
/* One more record boundary, after the last. */
void add_bound(struct par *p, u64 pos);

/*
 * The record at pos, whole, in the window (read as needed); the file read no further than
 * to. NULL if the file does not hold it there.
 */
struct perf_event_header *window_record(int fd, struct window *win, u64 pos, u64 to);

/*
 * Pass 1 (report_scan.c): the data's records walked in pieces on every worker, the counts
 * into the session's, the rounds' ends into bounds, the side band replayed into the model
 * and its history. False to give up.
 */
bool scan(struct par *p);
/* What scan leaves. */
void scan_exit(struct par *p);

#endif
