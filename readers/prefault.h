/*
 * prefault: a thread that maps a file mapping's pages ahead of the thread reading it, so the
 * reader's page faults (a third of a fast pass over a large file) are taken on another CPU.
 * It stays at most a few MB ahead (the reader releases what it leaves behind: the resident
 * set stays bounded). Linux 5.14's MADV_POPULATE_READ; without it the thread just ends.
 */
#ifndef READERS_PREFAULT_H
#define READERS_PREFAULT_H

#include "lib/compiler.h"

struct prefault;

/*
 * Start mapping [from, to) of the mapping at base (page aligned) ahead of the reader, or
 * NULL when the range is too small to be worth a thread, or the thread cannot start.
 */
struct prefault *prefault__start(u8 *base, u64 from, u64 to);
/* The reader is at pos (reader thread; a relaxed store). */
void prefault__advance(struct prefault *p, u64 pos);
/* Stop the thread and free p (NULL: nothing). */
void prefault__stop(struct prefault *p);

#endif
