/*
 * dir_files: the data files of a perf record --threads directory, and each one read from
 * its start on its own with every record's place in perf's reading order (its turn, file and
 * position). walk_dir (dir.c) reads them merged; the parallel passes (analyzer/passes) read
 * them one file a worker.
 */
#ifndef READERS_DIR_FILES_H
#define READERS_DIR_FILES_H

#include "readers/reader.h"
#include "readers/session.h"

struct dir_file {
	const char *path;
	u8 *map;		/* data.N mapping (the main file uses the session's) */
	size_t map_size;
	u64 offset, size;	/* data region */
	u64 cut_at, cut_bytes;	/* a data.N cut short: where its last whole record ends */
	u32 index;		/* 0: the main file */
	/* reading it */
	struct reader rd;
	u64 seq, turn, turn_bytes;
};

/*
 * The session's main file and each non-empty data.N (perf makes no reader for an empty one),
 * mapped, a cut tail trimmed (dir_files__warn_cut says so). -1 on error (error_get()).
 */
int dir_files__open(struct perf_session *s, struct dir_file **files, u32 *nr);
/* Every file of dir_files__open's, whether it failed or not. */
void dir_files__close(const struct perf_session *s, struct dir_file *files);
/* One data.N mapped (index and the cut left to the caller); -1 on error (error_get()). */
int dir_file__map(struct dir_file *f, const struct data_file *df);
void dir_file__close(struct dir_file *f);
/* The warning of a data file cut short. */
void dir_file__warn_cut(struct perf_session *s, const struct dir_file *f);
/* A data.N cut short is read up to its last whole record (f->size trimmed). */
void dir_file__trim_cut_tail(struct dir_file *f, bool swap);

/* Reading f from its start (again). */
void dir_file__start(struct dir_file *f, bool swap);
/*
 * perf reads 2 MB of a file's records per turn (counting the bytes in the file: a COMPRESSED
 * record, not what it inflates to) and ends a turn only after the records inflated from the
 * last COMPRESSED record. Returns true when the turn ends after rec.
 */
bool dir_file__end_turn(struct dir_file *f, const struct reader_record *rec);

/*
 * A record's place in perf's reading order as one number: turn, then file, then its position
 * among the file's records, each in its bits.
 */
#define DIR_POS_SEQ_BITS 34
#define DIR_POS_FILE_BITS 10
#define DIR_POS_NONE UINT64_MAX

/*
 * The next record of f, as reader__next: 1 and *rec filled, 0 at the end, -1 on error
 * (error_get()). *pos is its place, or DIR_POS_NONE for a record perf never delivers
 * (COMPRESSED, of a type it does not know). A directory too large for the places is an
 * error.
 */
int dir_file__next(struct dir_file *f, struct reader_record *rec, u64 *pos);

#endif
