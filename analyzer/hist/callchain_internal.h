/*
 * The interned callchains' tables, shared by callchain.c (interning, symbols, inlines) and
 * callchain_tree.c (the trees, their printing). Private to analyzer/hist/: callers outside
 * go through callchain.h.
 */
#ifndef ANALYZER_HIST_CALLCHAIN_INTERNAL_H
#define ANALYZER_HIST_CALLCHAIN_INTERNAL_H

#include "analyzer/hist/callchain.h"

/* Open addressing over ids (+1, 0 is empty), probed by their hashes; grows at half full. */
struct id_index {
	u32 *slots;
	size_t cap;
};

struct cc_chain {
	u32 start, len;	/* in ids[] */
	u64 hash;
};

struct cc_sym {
	const struct symbol *sym;
	const struct symtab *symtab;	/* NULL: not looked up yet; &no_symtab: no symbol */
};

struct raw_slot;

struct callchains {
	struct raw_slot *raw;
	size_t raw_cap, nr_raw;
	u32 raw_lookups, raw_hits;	/* in this window */
	u32 raw_off;			/* samples left to intern without the cache */
	struct cc_frame *frames;
	size_t nr_frames, frames_alloc;
	struct id_index frame_index;
	u32 *ids;
	size_t nr_ids, ids_alloc;
	struct cc_chain *chains;
	size_t nr_chains, chains_alloc;
	struct id_index chain_index;
	u32 *scratch;	/* one sample's frame ids */
	size_t scratch_alloc;
	struct cc_frame *pending;	/* one sample's frames, made before they are interned */
	u64 *pending_hash;
	size_t pending_alloc, nr_pending;
	struct cc_sym *syms;	/* by frame, after the run */
	size_t syms_alloc;
	struct symtab inl;	/* the inline frames' symbols (callchains__inline) */
	u32 *inlined;		/* by chain: 1 + its chain with inlines, 0 not made yet */
	size_t inlined_alloc;
	char **lines;		/* by frame: its srcline (address and srcline keys), NULL not
				   made yet, no_line for none */
	size_t lines_alloc;
	u64 *unmapped;		/* by chain, a bit: it has a frame without a map */
	size_t unmapped_alloc;
};

/* the srcline of a frame that has none (struct callchains' lines) */
extern char no_line[1];

#endif
