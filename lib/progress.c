/* The progress line (progress.h): a drawing thread, a phase under a lock, a counter. */
#include "lib/progress.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/clock.h"

#define REDRAW_MS 100

u64 progress_counter;

static struct {
	pthread_mutex_t lock;	/* guards everything below but the thread handle */
	pthread_cond_t wake;
	pthread_t thread;
	bool running;		/* the thread exists (the command's thread alone reads it) */
	bool stop;
	bool drawn;		/* the line is on the screen */
	const char *who, *phase;
	u64 total;
	u64 run_start, phase_start;	/* ms */
	u64 delay;
} progress = { .lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER };

static u64 now_ms(void)
{
	return clock_ns(CLOCK_MONOTONIC) / 1000000;
}

static void put(const char *s, size_t len)
{
	while (len) {
		ssize_t n = write(STDERR_FILENO, s, len);

		if (n <= 0)
			return;
		s += n;
		len -= (size_t)n;
	}
}

/* "3 s", "2 min 5 s", "1 h 2 min" */
static void fmt_duration(char *buf, size_t size, u64 s)
{
	if (s < 60)
		snprintf(buf, size, "%llu s", (unsigned long long)s);
	else if (s < 3600)
		snprintf(buf, size, "%llu min %llu s", (unsigned long long)s / 60,
			 (unsigned long long)s % 60);
	else
		snprintf(buf, size, "%llu h %llu min", (unsigned long long)s / 3600,
			 (unsigned long long)s / 60 % 60);
}

static void fmt_bytes(char *buf, size_t size, u64 n)
{
	if (n < 10ull << 20)
		snprintf(buf, size, "%.1f MB", (double)n / (1 << 20));
	else if (n < 10ull << 30)
		snprintf(buf, size, "%llu MB", (unsigned long long)(n >> 20));
	else
		snprintf(buf, size, "%.1f GB", (double)n / (1 << 30));
}

/* The line for the phase as it stands; lock held. */
static void draw(u64 now)
{
	u64 done = __atomic_load_n(&progress_counter, __ATOMIC_RELAXED);
	u64 elapsed = now - progress.phase_start;
	char line[256], a[32], b[32], left[32];
	int n;

	if (progress.total) {
		if (done > progress.total)
			done = progress.total;
		fmt_bytes(a, sizeof(a), done);
		fmt_bytes(b, sizeof(b), progress.total);
		n = snprintf(line, sizeof(line), "\r%s: %s %3u%% (%s of %s)", progress.who,
			     progress.phase, (unsigned)(done * 100 / progress.total), a, b);
		if (done && elapsed >= 200) {
			fmt_duration(left, sizeof(left),
				     (u64)((double)elapsed * (double)(progress.total - done) /
					   (double)done / 1000 + 0.5));
			n += snprintf(line + n, sizeof(line) - (size_t)n, ", %s left", left);
		}
	} else {
		fmt_duration(a, sizeof(a), elapsed / 1000);
		n = snprintf(line, sizeof(line), "\r%s: %s, %s", progress.who, progress.phase, a);
	}
	if (n >= (int)sizeof(line) - 4)
		n = (int)sizeof(line) - 4;
	memcpy(line + n, "\033[K", 3);
	put(line, (size_t)n + 3);
	progress.drawn = true;
}

static void *progress_thread(void *arg)
{
	pthread_mutex_lock(&progress.lock);
	while (!progress.stop) {
		struct timespec until;
		u64 now = now_ms();

		if (progress.phase && now - progress.run_start >= progress.delay)
			draw(now);
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += REDRAW_MS * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&progress.wake, &progress.lock, &until);
	}
	pthread_mutex_unlock(&progress.lock);
	return arg;
}

/* Whether descriptors a and b are the same terminal. */
static bool same_terminal(int a, int b)
{
	struct stat sa, sb;

	return isatty(a) && isatty(b) && !fstat(a, &sa) && !fstat(b, &sb) &&
	       sa.st_rdev == sb.st_rdev;
}

void progress_init(const char *who, bool disabled, bool streams_output)
{
	static char stdout_buf[1 << 20];
	const char *delay = getenv("ANALYZE_PROGRESS_DELAY_MS");
	bool shared = same_terminal(STDOUT_FILENO, STDERR_FILENO);

	if (disabled || progress.running || !isatty(STDERR_FILENO) || (shared && streams_output))
		return;
	/* what the command prints before progress_done waits in the buffer, not on the line */
	if (shared)
		setvbuf(stdout, stdout_buf, _IOFBF, sizeof(stdout_buf));
	progress.who = who;
	progress.delay = delay ? strtoull(delay, NULL, 10) : PROGRESS_DELAY_MS;
	progress.run_start = progress.phase_start = now_ms();
	if (pthread_create(&progress.thread, NULL, progress_thread, NULL))
		return;
	progress.running = true;
	atexit(progress_done);
}

void progress_phase(const char *phase, u64 total)
{
	if (!progress.running)
		return;
	pthread_mutex_lock(&progress.lock);
	progress.phase = phase;
	progress.total = total;
	progress.phase_start = now_ms();
	__atomic_store_n(&progress_counter, 0, __ATOMIC_RELAXED);
	if (progress.phase_start - progress.run_start >= progress.delay)
		draw(progress.phase_start);
	pthread_mutex_unlock(&progress.lock);
}

void progress_done(void)
{
	if (!progress.running)
		return;
	pthread_mutex_lock(&progress.lock);
	progress.stop = true;
	pthread_cond_signal(&progress.wake);
	pthread_mutex_unlock(&progress.lock);
	pthread_join(progress.thread, NULL);
	progress.running = false;
	if (progress.drawn)
		put("\r\033[K", 4);
	progress.drawn = false;
}

void progress_output_starts(void)
{
	struct stat st;

	if (!fstat(STDOUT_FILENO, &st) && (S_ISREG(st.st_mode) || S_ISCHR(st.st_mode)) &&
	    !isatty(STDOUT_FILENO))
		progress_phase("writing", 0);
	else
		progress_done();
}
