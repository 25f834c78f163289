/*
 * flip-byte: the golden tests' damage to a symbol index. Changes one byte of each FILE (xor
 * 0x5a), at size * (K % 61) / 61, K counting up from FIRST file by file: a place that moves
 * from one flip to the next over every part of the file. One process for every index a case
 * left, where the shell took five a file (stat, od, tr, printf, dd).
 *
 *   flip-byte FIRST FILE...     prints the next K; exit status 1 if a file could not be changed
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static int flip(const char *path, unsigned long k)
{
	struct stat st;
	unsigned char b;
	off_t off;
	int fd = open(path, O_RDWR), ret = -1;

	if (fd < 0) {
		perror(path);
		return -1;
	}
	if (fstat(fd, &st) || st.st_size <= 0)
		goto out;
	off = (off_t)((unsigned long long)st.st_size * (k % 61) / 61);
	if (pread(fd, &b, 1, off) != 1)
		goto out;
	b ^= 0x5a;
	if (pwrite(fd, &b, 1, off) == 1)
		ret = 0;
out:
	if (ret)
		fprintf(stderr, "flip-byte: %s: cannot change a byte\n", path);
	close(fd);
	return ret;
}

int main(int argc, char **argv)
{
	unsigned long k;
	int status = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: flip-byte FIRST FILE...\n");
		return 2;
	}
	k = strtoul(argv[1], NULL, 10);
	for (int i = 2; i < argc; i++, k++)
		if (flip(argv[i], k))
			status = 1;
	printf("%lu\n", k);
	return status;
}
