/*
 * symcache probes: an index's key (what a load knows before it reads a file) and its probes
 * (the state of every file the load looked at, or of the running kernel), recorded while the
 * table loads and checked before the index is used.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/containers/xxhash_inline.h"
#include "lib/xalloc.h"
#include "symtab/symcache_internal.h"

/* A probe: a file's state, or the running kernel's; its path (if any) follows, padded to 8. */
enum { PROBE_ABSENT = 1, PROBE_FILE, PROBE_KERNEL };

struct probe {
	u32 type, path_len;
	u64 a, b, c, d;	/* file: dev, ino, size, mtime in ns; kernel: a 128-bit digest */
};


static __thread struct symcache_key *recording;

void symcache_key__init(struct symcache_key *k, const char *kind)
{
	memset(k, 0, sizeof(*k));
	symcache_key__add_str(k, kind);
}

void symcache_key__exit(struct symcache_key *k)
{
	free(k->bytes);
	free(k->probes);
	memset(k, 0, sizeof(*k));
}

void symcache_key__add(struct symcache_key *k, const void *data, size_t len)
{
	u64 n = len;

	/* length-prefixed: ("ab", "c") and ("a", "bc") are different keys */
	ARRAY_GROW(k->bytes, k->alloc, k->len + sizeof(n) + len);
	memcpy(k->bytes + k->len, &n, sizeof(n));
	if (len)
		memcpy(k->bytes + k->len + sizeof(n), data, len);
	k->len += sizeof(n) + len;
}

void symcache_key__add_str(struct symcache_key *k, const char *s)
{
	symcache_key__add(k, s ? s : "", s ? strlen(s) + 1 : 0);
}

void symcache_key__add_u64(struct symcache_key *k, u64 v)
{
	symcache_key__add(k, &v, sizeof(v));
}

void symcache_record(struct symcache_key *k)
{
	recording = k;
}

static void probe_append(struct symcache_key *k, const struct probe *p, const char *path)
{
	size_t len = sizeof(*p) + ALIGN_UP((size_t)p->path_len, 8u);

	ARRAY_GROW_ZEROED(k->probes, k->probes_alloc, k->probes_len + len);
	memcpy(k->probes + k->probes_len, p, sizeof(*p));
	if (path && p->path_len)
		memcpy(k->probes + k->probes_len + sizeof(*p), path, p->path_len);
	k->probes_len += len;
}

/* A file's state as symtab_is_regular_file sees it, and the identity of a regular one. */
static void file_state(const char *path, struct probe *p)
{
	struct stat sb;

	p->a = p->b = p->c = p->d = 0;
	p->type = PROBE_ABSENT;
	if (stat(path, &sb) || !S_ISREG(sb.st_mode))
		return;
	p->type = PROBE_FILE;
	p->a = (u64)sb.st_dev;
	p->b = (u64)sb.st_ino;
	p->c = (u64)sb.st_size;
	p->d = (u64)sb.st_mtim.tv_sec * 1000000000ull + (u64)sb.st_mtim.tv_nsec;
}

void symcache_probe_file(const char *path)
{
	struct probe p;

	if (!recording)
		return;
	file_state(path, &p);
	p.path_len = (u32)MIN(strlen(path), (size_t)UINT32_MAX - 8);
	probe_append(recording, &p, path);
}

/* Feed a small file's bytes (or nothing if unreadable) to the digest. */
static void digest_file(XXH3_state_t *h, const char *path, bool modules)
{
	char buf[8192], line[512];
	FILE *f = fopen(path, "re");

	XXH3_128bits_update(h, path, strlen(path) + 1);
	if (!f)
		return;
	if (!modules) {
		size_t n = fread(buf, 1, sizeof(buf), f);

		XXH3_128bits_update(h, buf, n);
	} else {
		/* a module's name, size and address: not its use count, which changes */
		while (fgets(line, sizeof(line), f)) {
			char name[256], addr[64];
			unsigned long size;

			if (sscanf(line, "%255s %lu %*s %*s %*s %63s", name, &size, addr) == 3) {
				XXH3_128bits_update(h, name, strlen(name) + 1);
				XXH3_128bits_update(h, &size, sizeof(size));
				XXH3_128bits_update(h, addr, strlen(addr) + 1);
			}
		}
	}
	fclose(f);
}

/*
 * The running kernel as far as /proc/kallsyms goes: its build-id (another kernel), the boot
 * (KASLR), the modules loaded and where, and what this user may see of the addresses.
 */
static void kernel_state(struct probe *p)
{
	XXH3_state_t h;
	XXH128_hash_t d;
	u64 euid = geteuid();

	XXH3_128bits_reset(&h);
	digest_file(&h, "/sys/kernel/notes", false);
	digest_file(&h, "/proc/sys/kernel/random/boot_id", false);
	digest_file(&h, "/proc/sys/kernel/kptr_restrict", false);
	digest_file(&h, "/proc/modules", true);
	XXH3_128bits_update(&h, &euid, sizeof(euid));
	d = XXH3_128bits_digest(&h);
	p->type = PROBE_KERNEL;
	p->path_len = 0;
	p->a = d.low64;
	p->b = d.high64;
	p->c = p->d = 0;
}

void symcache_probe_kernel(void)
{
	struct probe p;

	if (!recording)
		return;
	kernel_state(&p);
	probe_append(recording, &p, NULL);
}

bool symcache_probes_hold(const u8 *probes, size_t len, const char **why)
{
	size_t off = 0;

	while (off < len) {
		struct probe p, now;
		char path[4096];

		if (len - off < sizeof(p))
			goto bad;
		memcpy(&p, probes + off, sizeof(p));
		off += sizeof(p);
		if (p.path_len >= sizeof(path) || ALIGN_UP((size_t)p.path_len, 8u) > len - off)
			goto bad;
		memcpy(path, probes + off, p.path_len);
		path[p.path_len] = '\0';
		off += ALIGN_UP((size_t)p.path_len, 8u);
		if (p.type == PROBE_KERNEL)
			kernel_state(&now);
		else if (p.type == PROBE_FILE || p.type == PROBE_ABSENT)
			file_state(path, &now);
		else
			goto bad;
		if (now.type != p.type || now.a != p.a || now.b != p.b || now.c != p.c ||
		    now.d != p.d) {
			*why = p.type == PROBE_KERNEL ? "another kernel, boot or module set" :
			       "a file it was made from changed";
			return false;
		}
	}
	return true;
bad:
	*why = "bad probe list";
	return false;
}
