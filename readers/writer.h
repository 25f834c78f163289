/*
 * writer: writes a perf.data file (file mode, this machine's byte order; or pipe mode, see
 * perf_writer__new_pipe) the way perf record lays it out: header, each attr's ids, the attrs, the data section (records appended through
 * a buffer), then the feature table and feature sections; the header is completed last.
 * It formats bytes only: what the records say, and that they make sense, is the caller's.
 *
 * Layout (perf's perf_session__do_write_header and perf_header__adds_write, header.c):
 *   0                 struct perf_file_header (104 bytes), written last
 *   104               ids of attr 0, ids of attr 1, ...      (u64 each)
 *   ...               attrs: { perf_event_attr, {ids offset, ids size} } per attr
 *   data.offset       records                                 (data.size bytes)
 *   data.offset+size  feature table: {offset, size} per feature bit set, in bit order
 *   ...               the feature sections, in bit order, unpadded
 */
#ifndef READERS_WRITER_H
#define READERS_WRITER_H

#include "lib/compiler.h"
#include "readers/format.h"

/*
 * The attr size written (perf_event_attr up to sig_data, PERF_ATTR_SIZE_VER7): perf 6.1 refuses
 * a file whose attrs are larger than its own struct (read_attr, header.c).
 */
#define WRITER_ATTR_SIZE 128

struct perf_writer;

/* Create (or truncate) PATH. NULL, with error_get() saying why, when it cannot be created. */
struct perf_writer *perf_writer__new(const char *path);

/*
 * A pipe-mode stream on FD (perf record -o -), which the writer owns and closes: the 16-byte
 * pipe header, then the attrs and the features set before the first record as ATTR, FEATURE
 * and TRACING_DATA records (perf's order), then the records. Features set after the first
 * record are not written: a pipe cannot go back.
 */
struct perf_writer *perf_writer__new_pipe(int fd);

/*
 * Add an event: its attr (the first WRITER_ATTR_SIZE bytes; attr->size is written as that),
 * its sample ids (may be none) and its name for the EVENT_DESC feature (NULL: no name).
 * Only before the first record. 0, or -1 with error_get() set.
 */
int perf_writer__add_attr(struct perf_writer *w, const struct perf_event_attr *attr,
			  const u64 *ids, size_t nr_ids, const char *name);

/*
 * Append bytes to the data section: one or more whole records (each a perf_event_header and
 * header.size bytes in all), or the payload that follows an AUXTRACE record. Buffered; the
 * attrs are written before the first bytes. 0, or -1 with error_get() set (and every later
 * call fails too).
 */
int perf_writer__write(struct perf_writer *w, const void *bytes, size_t size);

/* The file offset the next bytes written will have (data.offset + data.size so far). */
u64 perf_writer__offset(const struct perf_writer *w);

/*
 * Set feature FEAT (1..HEADER_FEAT_BITS-1) to SIZE bytes of section content, copied; replaces
 * what was set before. Any time before perf_writer__finish. 0, or -1 with error_get() set.
 */
int perf_writer__set_feature(struct perf_writer *w, int feat, const void *bytes, size_t size);
/* A feature that is one perf string (HOSTNAME, OSRELEASE, VERSION, ARCH, CPUDESC, CPUID). */
int perf_writer__set_string(struct perf_writer *w, int feat, const char *str);
/* CMDLINE: u32 nr, then nr perf strings (perf writes its own path first, then argv). */
int perf_writer__set_cmdline(struct perf_writer *w, size_t argc, const char *const *argv);
/* NRCPUS: u32 available, u32 online. */
int perf_writer__set_nrcpus(struct perf_writer *w, u32 avail, u32 online);
/* SAMPLE_TIME: u64 first, u64 last. */
int perf_writer__set_sample_time(struct perf_writer *w, u64 first, u64 last);

/*
 * Complete the file: flush the data, write the feature table and sections (EVENT_DESC made
 * from the attrs and their names unless set explicitly, when any attr has a name) and the
 * header, and close it. 0, or -1 with error_get() set. Call perf_writer__delete after.
 */
int perf_writer__finish(struct perf_writer *w);

/* Free the writer (closing the file if perf_writer__finish was not called). NULL is a no-op. */
void perf_writer__delete(struct perf_writer *w);

#endif
