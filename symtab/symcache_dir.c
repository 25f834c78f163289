/*
 * symcache directory: making it, its files (indexes and writers' temporary files), the
 * least recently used out above the cap, and what `analyze symbol-cache` shows and clears.
 * Removes only files named as the cache names them: the directory may be the user's.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/xalloc.h"
#include "symtab/symcache_internal.h"

/* mkdir -p: every missing directory of path, made 0700 (the XDG spec's mode). */
int symcache_make_dirs(const char *path)
{
	char *p = xstrdup(path);
	int ret = 0;

	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0700) && errno != EEXIST)
			ret = -1;
		*s = '/';
	}
	if (mkdir(p, 0700) && errno != EEXIST)
		ret = -1;
	free(p);
	return ret;
}

static bool is_index_name(const char *name)
{
	size_t len = strlen(name);

	if (len != 32 + strlen(SYMCACHE_SUFFIX) || strcmp(name + 32, SYMCACHE_SUFFIX))
		return false;
	return strspn(name, "0123456789abcdef") == 32;
}

/* A writer's temporary file: an index name, ".tmp.", its pid and a counter. */
static bool is_temp_name(const char *name)
{
	const char *dot = strstr(name, SYMCACHE_SUFFIX ".tmp.");

	return dot && dot - name == 32;
}

struct entry {
	char *name;
	u64 bytes;
	s64 atime;	/* the last use: symcache__load marks it */
};

static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	return x->atime < y->atime ? -1 : x->atime > y->atime;
}

/*
 * The cache's files, oldest first; temporary files of writers that died (an hour old) are
 * removed on the way. Returns the count, -1 if dir cannot be read.
 */
static ssize_t list_entries(const char *dir, struct entry **out, u64 *total)
{
	DIR *d = opendir(dir);
	struct entry *v = NULL;
	size_t nr = 0, alloc = 0;
	struct dirent *de;

	*total = 0;
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		struct stat sb;

		if (fstatat(dirfd(d), de->d_name, &sb, AT_SYMLINK_NOFOLLOW) || !S_ISREG(sb.st_mode))
			continue;
		if (is_temp_name(de->d_name) && sb.st_mtime + 3600 < time(NULL)) {
			unlinkat(dirfd(d), de->d_name, 0);
			continue;
		}
		if (!is_index_name(de->d_name))
			continue;
		ARRAY_GROW(v, alloc, nr + 1);
		v[nr].name = xstrdup(de->d_name);
		v[nr].bytes = (u64)sb.st_blocks * 512;
		v[nr].atime = sb.st_atime;
		*total += v[nr].bytes;
		nr++;
	}
	closedir(d);
	if (nr)	/* qsort(NULL, 0, ...) is undefined: glibc declares its base nonnull */
		qsort(v, nr, sizeof(*v), entry_cmp);
	*out = v;
	return (ssize_t)nr;
}

static void free_entries(struct entry *v, ssize_t nr)
{
	for (ssize_t i = 0; i < nr; i++)
		free(v[i].name);
	free(v);
}

/* Above the cap: remove the least recently used indexes down to three quarters of it. */
static void evict(struct symcache *c, const char *keep)
{
	struct entry *v = NULL;
	u64 total;
	ssize_t nr = list_entries(c->dir, &v, &total);
	const char *base = strrchr(keep, '/') + 1;

	for (ssize_t i = 0; i < nr && total > c->max_bytes / 4 * 3; i++) {
		char *path;

		if (!strcmp(v[i].name, base))
			continue;
		path = xasprintf("%s/%s", c->dir, v[i].name);
		if (!unlink(path))
			total -= v[i].bytes;
		free(path);
	}
	c->total = nr < 0 ? 0 : total;
	free_entries(v, nr);
}

/* After a write of bytes: keep the directory under its cap (listed once a run, then counted). */
void symcache_account(struct symcache *c, u64 bytes, const char *path)
{
	pthread_mutex_lock(&c->lock);
	if (!c->sized) {
		struct entry *v = NULL;
		ssize_t nr = list_entries(c->dir, &v, &c->total);

		free_entries(v, nr);
		c->sized = true;
	} else {
		c->total += bytes;
	}
	if (c->total > c->max_bytes)
		evict(c, path);
	pthread_mutex_unlock(&c->lock);
}

int symcache__usage(const struct symcache *c, u64 *files, u64 *bytes)
{
	struct entry *v = NULL;
	ssize_t nr = list_entries(c->dir, &v, bytes);

	*files = nr < 0 ? 0 : (u64)nr;
	if (nr < 0) {
		*bytes = 0;
		return errno == ENOENT ? 0 : -1;
	}
	free_entries(v, nr);
	return 0;
}

/* Not a directory of the user's that happens to be named like an index. */
static bool is_regular_at(int dirfd, const struct dirent *de)
{
	struct stat sb;

	if (de->d_type != DT_UNKNOWN)
		return de->d_type == DT_REG;
	return !fstatat(dirfd, de->d_name, &sb, AT_SYMLINK_NOFOLLOW) && S_ISREG(sb.st_mode);
}

int symcache__clear(const struct symcache *c)
{
	DIR *d = opendir(c->dir);
	struct dirent *de;
	int ret = 0;

	if (!d)
		return errno == ENOENT ? 0 : -1;
	/* only our files: the directory may be one the user keeps other things in */
	while ((de = readdir(d)))
		if ((is_index_name(de->d_name) || is_temp_name(de->d_name)) &&
		    is_regular_at(dirfd(d), de) &&
		    unlinkat(dirfd(d), de->d_name, 0) && errno != ENOENT)
			ret = -1;
	closedir(d);
	return ret;
}
