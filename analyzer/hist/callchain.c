/*
 * Interned callchains (frames, chains, the cache of raw chains), their frames' symbols and
 * inlined functions, and perf's -g option. Interning runs on the reading thread; the trees
 * built from the chains are callchain_tree.c's. Holds no references: dsos live as long as
 * the machine.
 */
#include "analyzer/hist/callchain_internal.h"

#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "machine/inline.h"
#include "lib/containers/xxhash_inline.h"

void callchain_param__init(struct callchain_param *param)
{
	*param = (struct callchain_param){ .mode = CC_GRAPH_ABS, .min_percent = 0.5,
					   .order = CC_ORDER_CALLEE, .key = CC_KEY_FUNCTION,
					   .value = CC_VALUE_PERCENT };
}

/* perf's strncmp(tok, word, strlen(tok)): tok is a prefix of word (an empty one too) */
static bool prefix_of(const char *tok, const char *word)
{
	return !strncmp(tok, word, strlen(tok));
}

static bool parse_word(struct callchain_param *p, const char *tok)
{
	static const struct { const char *word; int mode; } modes[] = {
		{ "graph", CC_GRAPH_ABS }, { "flat", CC_FLAT },
		{ "fractal", CC_GRAPH_REL }, { "folded", CC_FOLDED },
	};

	for (size_t i = 0; i < ARRAY_SIZE(modes); i++) {
		if (prefix_of(tok, modes[i].word)) {
			p->mode = modes[i].mode;
			return true;
		}
	}
	/* perf tries caller first: "calle" is caller */
	if (prefix_of(tok, "caller") || prefix_of(tok, "callee")) {
		p->order = prefix_of(tok, "caller") ? CC_ORDER_CALLER : CC_ORDER_CALLEE;
		p->order_set = true;
		return true;
	}
	if (prefix_of(tok, "function") || prefix_of(tok, "address") || prefix_of(tok, "srcline")) {
		p->key = prefix_of(tok, "function") ? CC_KEY_FUNCTION
			 : prefix_of(tok, "address") ? CC_KEY_ADDRESS : CC_KEY_SRCLINE;
		return true;
	}
	if (prefix_of(tok, "branch")) {
		p->branch = true;
		return true;
	}
	if (prefix_of(tok, "percent") || prefix_of(tok, "period") || prefix_of(tok, "count")) {
		p->value = prefix_of(tok, "percent") ? CC_VALUE_PERCENT
			   : prefix_of(tok, "period") ? CC_VALUE_PERIOD : CC_VALUE_COUNT;
		return true;
	}
	return false;
}

int callchain_param__parse(struct callchain_param *p, const char *arg)
{
	char *copy, *save = NULL, *end;
	bool min_set = false;
	int ret = 0;

	p->enabled = true;
	if (!arg)
		return 0;
	copy = xstrdup(arg);
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (prefix_of(tok, "none")) {
			p->mode = CC_NONE;
			p->enabled = false;
			break;
		}
		if (parse_word(p, tok))
			continue;
		if (!min_set) {
			p->min_percent = strtod(tok, &end);
			min_set = true;
		} else {
			p->print_limit = (u32)strtoul(tok, &end, 0);
		}
		if (end == tok) {
			ret = -1;
			break;
		}
	}
	free(copy);
	return ret;
}

/* ---- interning ---- */

static const struct symtab no_symtab;

/* A raw chain seen before, by its 128-bit hash (context included): its chain id. */
struct raw_slot {	/* 16 bytes: 96 bits of the hash; all zero is empty */
	u64 lo;
	u32 hi;
	u32 chain;
};

#define RAW_CACHE_MAX (1u << 22)	/* entries before the cache starts over */
/*
 * The cache pays only where chains come again: a hit saves a map lookup and a frame lookup
 * per frame, a miss costs a hash, a probe and a slot. Where fewer than a quarter of a
 * window's lookups hit (a compiler's deep, varied stacks: most chains are seen once), it is
 * let go and the chains are interned directly for RAW_OFF samples, then tried again empty.
 */
#define RAW_WINDOW (1u << 16)
#define RAW_OFF (1u << 20)

char no_line[1];

struct callchains *callchains__new(void)
{
	return xzalloc(sizeof(struct callchains));
}

void callchains__delete(struct callchains *cc)
{
	if (!cc)
		return;
	free(cc->frames);
	free(cc->frame_index.slots);
	free(cc->ids);
	free(cc->chains);
	free(cc->chain_index.slots);
	free(cc->scratch);
	free(cc->pending);
	free(cc->pending_hash);
	free(cc->syms);
	free(cc->raw);
	symtab__exit(&cc->inl);
	free(cc->inlined);
	free(cc->unmapped);
	for (size_t i = 0; i < cc->lines_alloc; i++)
		if (cc->lines[i] != no_line)
			free(cc->lines[i]);
	free(cc->lines);
	free(cc);
}

static void index_grow(struct id_index *x, u64 (*hash_of)(const struct callchains *, u32),
		       const struct callchains *cc, size_t nr)
{
	size_t cap = x->cap ? x->cap * 2 : 4096;

	while (cap < 2 * (nr + 1))	/* an index made again after the run */
		cap *= 2;
	free(x->slots);
	x->slots = xcalloc_populated(cap, sizeof(*x->slots));
	x->cap = cap;
	for (size_t i = 0; i < nr; i++) {
		size_t j = hash_of(cc, (u32)i) & (cap - 1);

		while (x->slots[j])
			j = (j + 1) & (cap - 1);
		x->slots[j] = (u32)(i + 1);
	}
}

static u64 frame_hash(const struct cc_frame *f)
{
	u64 key[6] = { (u64)(uintptr_t)f->dso, f->addr, f->ip, f->map_size,
		       (u64)(u8)f->level | (u64)f->unwound << 8, f->inl };

	return XXH3_64bits(key, sizeof(key));
}

/*
 * A frame's hash is not kept: the index is made again from the frames themselves when it
 * grows, and a probe compares the frame it finds, one cache miss where a kept hash would be
 * a second (and its memory, 8 bytes a frame).
 */
static u64 frame_hash_of(const struct callchains *cc, u32 i)
{
	return frame_hash(&cc->frames[i]);
}

static u64 chain_hash_of(const struct callchains *cc, u32 i)
{
	return cc->chains[i].hash;
}

static u32 frame_intern_hashed(struct callchains *cc, const struct cc_frame *f, u64 hash)
{
	size_t j;

	if (2 * (cc->nr_frames + 1) > cc->frame_index.cap)
		index_grow(&cc->frame_index, frame_hash_of, cc, cc->nr_frames);
	for (j = hash & (cc->frame_index.cap - 1); cc->frame_index.slots[j];
	     j = (j + 1) & (cc->frame_index.cap - 1)) {
		u32 id = cc->frame_index.slots[j] - 1;
		const struct cc_frame *o = &cc->frames[id];

		if (o->dso == f->dso && o->addr == f->addr && o->ip == f->ip &&
		    o->map_size == f->map_size && o->level == f->level &&
		    o->unwound == f->unwound && o->inl == f->inl)
			return id;
	}
	ARRAY_GROW(cc->frames, cc->frames_alloc, cc->nr_frames + 1);
	cc->frames[cc->nr_frames] = *f;
	cc->frame_index.slots[j] = (u32)(cc->nr_frames + 1);
	return (u32)cc->nr_frames++;
}

static u32 frame_intern(struct callchains *cc, const struct cc_frame *f)
{
	return frame_intern_hashed(cc, f, frame_hash(f));
}

/*
 * A chain's hash, from its frames' (frame_hash): known before its frames are interned, so
 * that its index slot can be fetched with theirs.
 */
static u64 chain_hash(const u64 *frame_hashes, u32 len)
{
	return XXH3_64bits(frame_hashes, len * sizeof(*frame_hashes));
}

/* Room for n pending frames and their hashes. */
static void pending_reserve(struct callchains *cc, size_t n)
{
	if (n <= cc->pending_alloc)
		return;
	ARRAY_GROW(cc->pending, cc->pending_alloc, n);
	cc->pending_hash = xreallocarray(cc->pending_hash, cc->pending_alloc,
					 sizeof(*cc->pending_hash));
}

/* chain_hash of interned frames */
static u64 chain_hash_ids(struct callchains *cc, const u32 *ids, u32 len)
{
	pending_reserve(cc, len);
	for (u32 k = 0; k < len; k++)
		cc->pending_hash[k] = frame_hash(&cc->frames[ids[k]]);
	return chain_hash(cc->pending_hash, len);
}

/*
 * The pending frames interned, in order, their ids into out, and their chain's hash: first
 * every frame's index slot and the chain's are fetched, then the frames and the chain those
 * slots name, then each frame is looked up. Most of a large recording's frames are a cache
 * miss in the index and another in the frames, a new chain three more; so the misses of a
 * sample's frames and chain overlap instead of coming one after the other.
 */
static u64 intern_pending(struct callchains *cc, u32 *out)
{
	size_t n = cc->nr_pending, frame_mask = cc->frame_index.cap - 1;
	size_t chain_mask = cc->chain_index.cap - 1;
	u64 hash;

	for (size_t k = 0; k < n; k++) {
		cc->pending_hash[k] = frame_hash(&cc->pending[k]);
		if (cc->frame_index.cap)
			__builtin_prefetch(&cc->frame_index.slots[cc->pending_hash[k] & frame_mask]);
	}
	hash = chain_hash(cc->pending_hash, (u32)n);
	if (cc->chain_index.cap)
		__builtin_prefetch(&cc->chain_index.slots[hash & chain_mask]);
	for (size_t k = 0; k < n && cc->frame_index.cap; k++) {
		u32 slot = cc->frame_index.slots[cc->pending_hash[k] & frame_mask];

		if (slot)
			__builtin_prefetch(&cc->frames[slot - 1]);
	}
	if (n && cc->chain_index.cap && cc->chain_index.slots[hash & chain_mask])
		__builtin_prefetch(&cc->chains[cc->chain_index.slots[hash & chain_mask] - 1]);
	for (size_t k = 0; k < n; k++)
		out[k] = frame_intern_hashed(cc, &cc->pending[k], cc->pending_hash[k]);
	cc->nr_pending = 0;
	return hash;
}

/* The chain of ids (of hash: chain_hash of their frames' hashes). */
static u32 chain_intern(struct callchains *cc, const u32 *ids, u32 len, u64 hash)
{
	size_t j;

	if (2 * (cc->nr_chains + 1) > cc->chain_index.cap)
		index_grow(&cc->chain_index, chain_hash_of, cc, cc->nr_chains);
	for (j = hash & (cc->chain_index.cap - 1); cc->chain_index.slots[j];
	     j = (j + 1) & (cc->chain_index.cap - 1)) {
		u32 id = cc->chain_index.slots[j] - 1;
		const struct cc_chain *c = &cc->chains[id];

		if (c->hash == hash && c->len == len &&
		    !memcmp(cc->ids + c->start, ids, len * sizeof(*ids)))
			return id;
	}
	ARRAY_GROW(cc->ids, cc->ids_alloc, cc->nr_ids + len);
	memcpy(cc->ids + cc->nr_ids, ids, len * sizeof(*ids));
	ARRAY_GROW(cc->chains, cc->chains_alloc, cc->nr_chains + 1);
	cc->chains[cc->nr_chains] = (struct cc_chain){ .start = (u32)cc->nr_ids, .len = len,
						       .hash = hash };
	ARRAY_GROW_ZEROED(cc->unmapped, cc->unmapped_alloc, cc->nr_chains / 64 + 1);
	for (u32 i = 0; i < len; i++)
		if (!cc->frames[ids[i]].dso)
			cc->unmapped[cc->nr_chains / 64] |= 1ull << cc->nr_chains % 64;
	cc->nr_ids += len;
	cc->chain_index.slots[j] = (u32)(cc->nr_chains + 1);
	return (u32)cc->nr_chains++;
}

u32 callchains__intern_frames(struct callchains *cc, const struct cc_frame *frames, u32 nr)
{
	ARRAY_GROW(cc->scratch, cc->scratch_alloc, nr ? nr : 1);
	for (u32 i = 0; i < nr; i++)
		cc->scratch[i] = frame_intern(cc, &frames[i]);
	return nr ? chain_intern(cc, cc->scratch, nr, chain_hash_ids(cc, cc->scratch, nr))
		  : CC_NO_CHAIN;
}

/* The context marker of the chain's last entry before `before` (nr + 1: none). */
static u64 marker_before(const u64 *chain, u64 before)
{
	while (before-- > 0)
		if (chain[1 + before] >= (u64)PERF_CONTEXT_MAX)
			return before;
	return UINT64_MAX;
}

/* The address space marker i names; false when it names none (perf discards the chain). */
static bool take_marker(const u64 *chain, u64 i, u8 *cpumode)
{
	return i == UINT64_MAX || machine__callchain_context(chain[1 + i], cpumode);
}

void chain_walk__init(struct chain_walk *w, const u64 *chain, u64 nr, u32 max_stack,
		      bool caller)
{
	*w = (struct chain_walk){ .chain = chain, .nr = nr, .max_stack = max_stack,
				  .caller = caller, .cpumode = PERF_RECORD_MISC_USER };
	/* caller first, perf checks the last marker before anything (find_prev_cpumode) */
	w->bad = caller && !take_marker(chain, marker_before(chain, nr), &w->cpumode);
}

int chain_walk__next(struct chain_walk *w, u64 *ip)
{
	if (w->bad)
		return -1;
	while (w->walked < w->nr && w->taken < w->max_stack) {
		u64 i = w->caller ? w->nr - 1 - w->walked : w->walked;

		w->walked++;
		*ip = w->chain[1 + i];
		if (*ip < (u64)PERF_CONTEXT_MAX) {
			w->taken++;
			return 1;
		}
		/* caller first, a marker passed switches to the one before it */
		if (!take_marker(w->chain, w->caller ? marker_before(w->chain, i) : i, &w->cpumode)) {
			w->bad = true;
			return -1;
		}
	}
	return 0;
}

/* The frame of ip in thread, pending (see intern_pending). */
static void pend_ip(struct callchains *cc, struct machine *machine, struct thread *thread,
		    u8 cpumode, u64 ip, bool unwound)
{
	struct addr_location al;

	machine__find_map(machine, thread, cpumode, ip, &al);
	cc->pending[cc->nr_pending++] = (struct cc_frame){
		.dso = al.map ? al.map->dso : NULL, .addr = al.addr, .ip = ip,
		.map_size = al.map ? al.map->end - al.map->start : 0,
		.level = al.map ? al.level : 0, .unwound = unwound };
}

/*
 * perf's __thread__resolve_callchain: the sample's own chain as thread__resolve_callchain_sample
 * walks it (struct chain_walk), and a dwarf sample's unwound user frames (from user_at on),
 * the innermost max_stack of them as its unwinder stops there. Callee first, the own chain
 * then the unwound frames; at a marker that is no context perf drops what it took of the own
 * chain. Caller first, the unwound frames outermost first, then the own chain; a bad marker
 * drops all.
 */
u32 callchains__intern(struct callchains *cc, struct machine *machine, struct thread *thread,
		       const u64 *chain, u32 max_stack, enum callchain_order order, u64 user_at)
{
	u64 nr = chain[0], ends = MIN(nr, user_at), ip;
	u32 n = 0, unwound = (u32)MIN(nr - ends, (u64)max_stack);
	bool caller = order == CC_ORDER_CALLER;
	struct chain_walk w;
	u64 hash;
	int ret;

	ARRAY_GROW(cc->scratch, cc->scratch_alloc, nr ? nr : 1);
	pending_reserve(cc, nr);
	for (u32 k = 0; caller && k < unwound; k++)
		pend_ip(cc, machine, thread, PERF_RECORD_MISC_USER,
			chain[1 + ends + unwound - 1 - k], true);
	chain_walk__init(&w, chain, ends, max_stack, caller);
	while ((ret = chain_walk__next(&w, &ip)) > 0)
		pend_ip(cc, machine, thread, w.cpumode, ip, false);
	if (ret < 0) {
		/* what was taken is interned all the same, as perf resolves it first */
		intern_pending(cc, cc->scratch);
		if (caller || ends == nr)
			return CC_NO_CHAIN;	/* perf: corrupted, discard all */
		/* the unwound frames come after the reset */
	}
	for (u32 k = 0; !caller && k < unwound; k++)
		pend_ip(cc, machine, thread, PERF_RECORD_MISC_USER, chain[1 + ends + k], true);
	n = (u32)cc->nr_pending;
	hash = intern_pending(cc, cc->scratch);
	return n ? chain_intern(cc, cc->scratch, n, hash) : CC_NO_CHAIN;
}

void callchains__end_run(struct callchains *cc)
{
	if (!cc)
		return;
	free(cc->raw);
	free(cc->frame_index.slots);
	free(cc->chain_index.slots);
	free(cc->scratch);
	free(cc->pending);
	free(cc->pending_hash);
	cc->raw = NULL;
	cc->frame_index = cc->chain_index = (struct id_index){ 0 };
	cc->scratch = NULL;
	cc->pending = NULL;
	cc->pending_hash = NULL;
	cc->raw_cap = cc->nr_raw = cc->scratch_alloc = cc->pending_alloc = 0;
}

static void raw_grow(struct callchains *cc)
{
	size_t cap = cc->raw_cap ? cc->raw_cap * 2 : 4096;
	struct raw_slot *old = cc->raw;
	size_t old_cap = cc->raw_cap;

	if (cc->nr_raw >= RAW_CACHE_MAX) {	/* bounded: start over */
		cap = cc->raw_cap;
		old_cap = 0;
		cc->nr_raw = 0;
	}
	cc->raw = xcalloc_populated(cap, sizeof(*cc->raw));
	cc->raw_cap = cap;
	for (size_t i = 0; i < old_cap; i++) {
		size_t j;

		if (!old[i].lo && !old[i].hi)
			continue;
		for (j = old[i].lo & (cap - 1); cc->raw[j].lo || cc->raw[j].hi; j = (j + 1) & (cap - 1))
			;
		cc->raw[j] = old[i];
	}
	free(old);
}

u32 callchains__intern_cached(struct callchains *cc, struct machine *machine,
			      struct thread *thread, const u64 *chain, u32 max_stack,
			      enum callchain_order order, u64 user_at, u64 context)
{
	XXH128_hash_t h;
	size_t j;
	u32 id;

	if (cc->raw_off) {
		cc->raw_off--;
		return callchains__intern(cc, machine, thread, chain, max_stack, order, user_at);
	}
	if (++cc->raw_lookups == RAW_WINDOW) {
		if (cc->raw_hits < RAW_WINDOW / 4) {
			free(cc->raw);
			cc->raw = NULL;
			cc->raw_cap = cc->nr_raw = 0;
			cc->raw_off = RAW_OFF;
		}
		cc->raw_lookups = cc->raw_hits = 0;
		if (cc->raw_off)
			return callchains__intern(cc, machine, thread, chain, max_stack, order,
						  user_at);
	}
	h = XXH3_128bits_withSeed(chain, (chain[0] + 1) * sizeof(u64),
				  context ^ user_at * 0x9e3779b97f4a7c15ull);
	if (2 * (cc->nr_raw + 1) > cc->raw_cap)
		raw_grow(cc);
	for (j = h.low64 & (cc->raw_cap - 1); cc->raw[j].lo || cc->raw[j].hi;
	     j = (j + 1) & (cc->raw_cap - 1)) {
		if (cc->raw[j].lo == h.low64 && cc->raw[j].hi == (u32)h.high64) {
			cc->raw_hits++;
			return cc->raw[j].chain;
		}
	}
	id = callchains__intern(cc, machine, thread, chain, max_stack, order, user_at);
	if (h.low64 || (u32)h.high64) {	/* (a hash of all zero bits is not kept) */
		cc->raw[j] = (struct raw_slot){ .lo = h.low64, .hi = (u32)h.high64, .chain = id };
		cc->nr_raw++;
	}
	return id;
}

bool callchains__unmapped(const struct callchains *cc, u32 chain)
{
	return cc->unmapped[chain / 64] >> chain % 64 & 1;
}

u32 callchains__nr_frames(const struct callchains *cc)
{
	return (u32)cc->nr_frames;
}

u32 callchains__len(const struct callchains *cc, u32 chain)
{
	return cc->chains[chain].len;
}

const u32 *callchains__frame_ids(const struct callchains *cc, u32 chain)
{
	return cc->ids + cc->chains[chain].start;
}

const struct cc_frame *callchains__frame(const struct callchains *cc, u32 frame)
{
	return &cc->frames[frame];
}

void callchains__prefetch_sym(const struct callchains *cc, u32 frame)
{
	__builtin_prefetch(&cc->frames[frame]);
	if (frame < cc->syms_alloc)
		__builtin_prefetch(&cc->syms[frame]);
}

const struct symbol *callchains__sym(struct callchains *cc, struct machine *machine, u32 frame,
				     const struct symtab **symtab)
{
	struct cc_sym *s;

	if (!cc->syms_alloc) {	/* the run is over: sized to its frames (inlines may add some) */
		cc->syms = xcalloc_populated(cc->nr_frames, sizeof(*cc->syms));
		cc->syms_alloc = cc->nr_frames;
	}
	ARRAY_GROW_ZEROED(cc->syms, cc->syms_alloc, cc->nr_frames);
	if (cc->frames[frame].inl) {
		*symtab = &cc->inl;
		return &cc->inl.syms[cc->frames[frame].inl - 1];
	}
	s = &cc->syms[frame];
	if (!s->symtab) {
		const struct cc_frame *f = &cc->frames[frame];
		struct addr_location al = { .dso = f->dso, .addr = f->addr };

		if (f->dso)
			machine__resolve_symbol(machine, &al);
		s->sym = al.sym;
		s->symtab = al.symtab ? al.symtab : &no_symtab;
	}
	*symtab = s->symtab != &no_symtab ? s->symtab : NULL;
	return s->sym;
}

/* The frame and chain indexes, let go at the end of the run, made again to intern more. */
static void reindex(struct callchains *cc)
{
	if (cc->frame_index.slots)
		return;
	index_grow(&cc->frame_index, frame_hash_of, cc, cc->nr_frames);
	index_grow(&cc->chain_index, chain_hash_of, cc, cc->nr_chains);
}

/* A frame of the function name inlined at f, whose own symbol is sym (perf's new_inline_sym). */
static u32 inline_frame(struct callchains *cc, const struct cc_frame *f, const struct symbol *sym,
			const char *name)
{
	struct cc_frame g = *f;

	cc->inl.inlined = true;
	g.inl = (u32)symtab__append(&cc->inl, sym->start, sym->size, name) + 1;
	return frame_intern(cc, &g);
}

/* The srcline of frame (frame_srcline) is line (NULL: none) */
static void set_line(struct callchains *cc, u32 frame, const char *line)
{
	ARRAY_GROW_ZEROED(cc->lines, cc->lines_alloc, cc->nr_frames);
	if (cc->lines[frame] && cc->lines[frame] != no_line)
		free(cc->lines[frame]);
	cc->lines[frame] = line ? xstrdup(line) : no_line;
}

u32 callchains__inline(struct callchains *cc, struct machine *machine, struct inlines *inlines,
		       u32 chain, enum callchain_order order)
{
	u32 len = cc->chains[chain].len, n = 0, *ids;
	bool any = false;

	ARRAY_GROW_ZEROED(cc->inlined, cc->inlined_alloc, cc->nr_chains);
	if (cc->inlined[chain])
		return cc->inlined[chain] - 1;
	for (u32 i = 0; i < len && !any; i++)
		any = cc->frames[cc->ids[cc->chains[chain].start + i]].unwound;
	if (!any) {
		cc->inlined[chain] = chain + 1;
		return chain;
	}
	reindex(cc);
	ids = xmalloc(len * sizeof(*ids));
	memcpy(ids, cc->ids + cc->chains[chain].start, len * sizeof(*ids));
	for (u32 i = 0; i < len; i++) {
		const struct cc_frame *f = &cc->frames[ids[i]];
		const struct symtab *symtab;
		const struct symbol *sym = NULL;
		const char *const *names, *const *lines;
		size_t nr = 0;

		if (f->unwound && f->dso)
			sym = callchains__sym(cc, machine, ids[i], &symtab);
		if (sym)
			nr = inlines__find(inlines, f->dso, f->addr, symbol__name(symtab, sym),
					   &names, &lines);
		ARRAY_GROW(cc->scratch, cc->scratch_alloc, n + (nr ? nr : 1));
		if (!nr) {
			cc->scratch[n++] = ids[i];
			continue;
		}
		for (size_t k = 0; k < nr; k++) {
			size_t r = order == CC_ORDER_CALLER ? nr - 1 - k : k;
			/* frame_intern may move the frames: f is looked up again */
			u32 id = names[r] ? inline_frame(cc, &cc->frames[ids[i]], sym, names[r])
					  : ids[i];

			/* a record's srcline is its own (perf's inline_list), not the pc's */
			set_line(cc, id, lines[r]);
			cc->scratch[n++] = id;
		}
	}
	free(ids);
	n = chain_intern(cc, cc->scratch, n, chain_hash_ids(cc, cc->scratch, n));
	ARRAY_GROW_ZEROED(cc->inlined, cc->inlined_alloc, cc->nr_chains);
	cc->inlined[chain] = cc->inlined[n] = n + 1;	/* made: it has its inlines */
	return n;
}
