/*
 * dir_files: a --threads directory's data files (dir_files.h), mapped and trimmed, and the
 * turns perf reads them in.
 */
#include "readers/dir_files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/xalloc.h"
#include "readers/walk.h"

#define READER_MAX_SIZE (2u * 1024 * 1024)	/* perf's round-robin quantum (session.c) */

int dir_file__map(struct dir_file *f, const struct data_file *df)
{
	int fd = open(df->path, O_RDONLY);

	f->path = df->path;
	if (fd < 0) {
		error_set("%s: %s", f->path, strerror(errno));
		return -1;
	}
	f->map_size = df->size;
	f->map = mmap(NULL, f->map_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	close(fd);
	if (f->map == MAP_FAILED) {
		f->map = NULL;
		error_set("%s: cannot map the file: %s", f->path, strerror(errno));
		return -1;
	}
	f->size = f->map_size;
	return 0;
}

int dir_files__open(struct perf_session *s, struct dir_file **files, u32 *nr)
{
	struct dir_file *v = xcalloc(s->nr_dir_files + 1, sizeof(*v));

	*files = v;
	*nr = 1;
	v[0] = (struct dir_file){ .path = s->data_path, .map = s->base,
				  .offset = s->header.data.offset, .size = s->header.data.size };
	for (size_t i = 0; i < s->nr_dir_files; i++) {
		if (!s->dir_files[i].size)
			continue;	/* perf makes no reader for an empty file */
		v[*nr].index = *nr;
		if (dir_file__map(&v[*nr], &s->dir_files[i]))
			return -1;
		(*nr)++;
	}
	return 0;
}

void dir_files__close(const struct perf_session *s, struct dir_file *files)
{
	for (size_t r = 0; files && r <= s->nr_dir_files; r++)
		dir_file__close(&files[r]);
	free(files);
}

/*
 * A data.N cut short (a crash, a full disk) is read up to its last whole record and the rest
 * left out, with a warning: perf reads the other files of the directory. Record sizes only
 * (an AUXTRACE record's trace bytes too): what lies inside the records is the reader's to check.
 */
void dir_file__trim_cut_tail(struct dir_file *f, bool swap)
{
	u64 pos = f->offset, end = f->offset + f->size;

	if (!f->index)
		return;
	while (end - pos >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		u64 step, aux = 0;

		memcpy(&h, f->map + pos, sizeof(h));
		if (swap) {
			h.type = __builtin_bswap32(h.type);
			h.size = __builtin_bswap16(h.size);
		}
		if (h.size < sizeof(h))
			return;	/* not a cut: the reader says what is wrong */
		if (h.type == PERF_RECORD_AUXTRACE && h.size >= 16 && end - pos >= 16) {
			memcpy(&aux, f->map + pos + 8, sizeof(aux));
			if (swap)
				aux = __builtin_bswap64(aux);
		}
		step = h.size + aux;
		if (step < aux || step > end - pos)
			break;
		pos += step;
	}
	if (pos == end)
		return;
	f->cut_at = pos;
	f->cut_bytes = end - pos;
	f->size = pos - f->offset;
}

void dir_file__close(struct dir_file *f)
{
	reader__exit(&f->rd);
	if (f->index && f->map)
		munmap(f->map, f->map_size);
	f->map = NULL;
}

void dir_file__warn_cut(struct perf_session *s, const struct dir_file *f)
{
	if (f->cut_bytes)
		perf_session__warn_data(s, "%s: cut short inside the record at offset %#llx: its last %llu bytes are not in the output",
					f->path, (unsigned long long)f->cut_at,
					(unsigned long long)f->cut_bytes);
}

void dir_file__start(struct dir_file *f, bool swap)
{
	reader__exit(&f->rd);
	reader__init_map(&f->rd, f->path, f->map, f->offset, f->size, swap);
	f->seq = f->turn = f->turn_bytes = 0;
}

bool dir_file__end_turn(struct dir_file *f, const struct reader_record *rec)
{
	if (!rec->inflated)
		f->turn_bytes += rec->event->size;
	if (f->turn_bytes < READER_MAX_SIZE || reader__pending_inflated(&f->rd))
		return false;
	f->turn_bytes = 0;
	f->turn++;
	return true;
}

int dir_file__next(struct dir_file *f, struct reader_record *rec, u64 *pos)
{
	u64 turn = f->turn, seq;
	int ret = reader__next(&f->rd, rec);

	*pos = DIR_POS_NONE;
	if (ret <= 0)
		return ret;
	dir_file__end_turn(f, rec);
	if (rec->event->type == PERF_RECORD_COMPRESSED || !walk__known_type(rec->event->type))
		return 1;
	seq = f->seq++;
	if (seq >> DIR_POS_SEQ_BITS || f->index >> DIR_POS_FILE_BITS ||
	    turn >> (64 - DIR_POS_SEQ_BITS - DIR_POS_FILE_BITS)) {
		error_set("%s: too many records for a directory's places", f->path);
		return -1;
	}
	*pos = turn << (DIR_POS_SEQ_BITS + DIR_POS_FILE_BITS) | (u64)f->index << DIR_POS_SEQ_BITS |
	       seq;
	return 1;
}
