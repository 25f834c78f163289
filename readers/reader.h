/*
 * reader: one stream of perf.data records, the data section of a file (mapped) or a pipe
 * (read into buffers), with its own zstd stream that inflates PERF_RECORD_COMPRESSED payloads
 * (a record may straddle two COMPRESSED records). Hands out records in file order; a record
 * read from a buffer stays valid while its chunk holds a reference.
 * Never reads outside the input: a truncated record, a bad size or a corrupt frame is an error
 * naming the file and offset. Not thread safe; one reader per thread.
 */
#ifndef READERS_READER_H
#define READERS_READER_H

#include "lib/compiler.h"
#include "lib/progress.h"
#include "readers/format.h"

/*
 * A buffer of records (inflated or read from a pipe), freed when its last reference goes.
 * References may be taken and dropped from different threads.
 */
struct chunk {
	u32 refs;
	u32 size;
	u8 data[];
};

void chunk__get(struct chunk *chunk);
void chunk__put(struct chunk *chunk);

struct reader_record {
	struct perf_event_header *event;
	u64 file_offset;	/* of the record, or of the COMPRESSED record it came from */
	struct chunk *chunk;	/* NULL when the record lies in the file mapping */
	bool inflated;		/* came out of a COMPRESSED record */
};

struct reader {
	const char *path;
	bool swap;		/* records are opposite-endian: headers are converted here */
	/* input: a mapped region, or a file descriptor read in blocks */
	u8 *map;
	u64 pos, end;		/* position in the mapping / stream offset and limit */
	int fd;
	bool stream;
	struct chunk *in;	/* stream input buffer */
	struct chunk *aligned;	/* aligned copy of the last unaligned mapped record */
	u32 in_head;
	bool eof;
	/* inflate */
	void *zstd;
	struct chunk *out;	/* inflated records not yet handed out */
	u32 out_head;
	u64 out_offset;		/* file offset of the COMPRESSED record they came from */
	u32 max_inflate;	/* bound on what one COMPRESSED record may inflate to */
	/* the trace bytes of the AUXTRACE record handed out last, stepped over by the next call */
	u64 aux_skip;
	u64 published;	/* pos as last added to the progress counter (lib/progress.h) */
	bool uncounted;	/* a first pass over the input: the progress counter is left alone */
};

/* Over [offset, offset + size) of a mapping. */
void reader__init_map(struct reader *rd, const char *path, u8 *map, u64 offset, u64 size,
		      bool swap);
/* Over a descriptor (a pipe or a pipe-mode file), starting at stream offset `offset`. */
void reader__init_fd(struct reader *rd, const char *path, int fd, u64 offset, bool swap);
void reader__exit(struct reader *rd);
/*
 * Adds the input read since the last call to the progress line's counter, a megabyte at a
 * time (all of it when done): one atomic add a megabyte, not one a record.
 */
static inline void reader__publish(struct reader *rd, bool done)
{
	if (rd->pos - rd->published >= (1u << 20) || (done && rd->pos != rd->published)) {
		if (!rd->uncounted)
			progress_add(rd->pos - rd->published);
		rd->published = rd->pos;
	}
}

/*
 * The next record: 1 and *rec filled, 0 at the end, -1 on error (error_get() says where).
 * COMPRESSED records are returned themselves (they are counted and dumped as perf does),
 * then the records inflated from them. An AUXTRACE record's trace bytes (its `size` field;
 * they follow the record, outside header.size) are stepped over: its payload lies at
 * rec->file_offset + header.size of the input. The caller must chunk__get() rec->chunk to keep a
 * buffered record beyond the next call.
 */
int reader__next(struct reader *rd, struct reader_record *rec);
/* Is a complete inflated record waiting (read before the next record of the input)? */
bool reader__pending_inflated(const struct reader *rd);
/* Skip n bytes of the input that follow the last record (pipe-mode tracing data). */
int reader__skip(struct reader *rd, u64 n);
/* The same, copying them to dst (NULL: skip). */
int reader__read(struct reader *rd, void *dst, u64 n);

#endif
