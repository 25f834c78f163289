/*
 * record_events: the events of `analyze record`: perf's event names (software, hardware,
 * tracepoints by their tracefs id) and errors, the attrs as perf 6.1's evsel__config sets them
 * (as `perf evlist -v` shows them on this machine), and their fds: opened with
 * perf_event_open directly, once a CPU and task, enabled, disabled and closed per CPU in
 * parallel on lib/workqueue.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "analyzer/record/record_internal.h"
#include "lib/workqueue.h"
#include "lib/xalloc.h"

/* perf's x86 PERF_REGS_MASK: every user register but the segment ones (ds, es, fs, gs). */
#define X86_REGS_USER_MASK 0xff0fffULL

struct named_event {
	const char *name;
	u32 type;
	u64 config;
};

/* perf's event_symbols_sw and event_symbols_hw (parse-events.c), with their aliases. */
static const struct named_event named_events[] = {
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
	{ "dummy", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY },
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
};

static struct rec_event *add_event(struct recording *rec, const char *name)
{
	struct rec_event *e;

	rec->events = xreallocarray(rec->events, rec->nr_events + 1, sizeof(*rec->events));
	e = &rec->events[rec->nr_events++];
	memset(e, 0, sizeof(*e));
	e->attr.size = sizeof(e->attr);
	e->name = xstrdup(name);
	return e;
}

/* The tracepoint's id from tracefs (or debugfs' tracing), or -1. */
static long tracepoint_id(const char *system, const char *name)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char path[512];

	if (strchr(system, '/') || strchr(name, '/') || !*system || !*name)
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(roots); i++) {
		FILE *f;
		long id = -1;

		snprintf(path, sizeof(path), "%s/events/%s/%s/id", roots[i], system, name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fscanf(f, "%ld", &id) != 1)
			id = -1;
		fclose(f);
		if (id >= 0)
			return id;
	}
	return -1;
}

/* perf's parse error: the event, a pointer under it and what was wrong. */
static int syntax_error(const char *event, const char *what)
{
	fprintf(stderr, "event syntax error: '%s'\n", event);
	fprintf(stderr, "%*s\\___ %s\n", (int)strlen("event syntax error: '"), "", what);
	fprintf(stderr, "Run 'perf list' for a list of valid events\n");
	return -1;
}

static int parse_one(struct recording *rec, const char *name)
{
	const char *colon = strchr(name, ':');
	struct rec_event *e;

	if (colon) {
		char *system = xstrndup(name, (size_t)(colon - name));
		long id = tracepoint_id(system, colon + 1);

		if (id < 0) {
			free(system);
			return syntax_error(name, "unknown tracepoint");
		}
		e = add_event(rec, name);
		e->tp_system = system;
		e->tp_name = xstrdup(colon + 1);
		e->attr.type = PERF_TYPE_TRACEPOINT;
		e->attr.config = (u64)id;
		/* perf's evsel__newtp: every tracepoint sample is raw, timed, per CPU, one period */
		e->attr.sample_type = PERF_SAMPLE_RAW | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
		e->attr.sample_period = 1;
		e->attr.exclude_guest = 1;
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(named_events); i++) {
		if (strcmp(named_events[i].name, name))
			continue;
		e = add_event(rec, name);
		e->attr.type = named_events[i].type;
		e->attr.config = named_events[i].config;
		e->attr.exclude_guest = 1;
		return 0;
	}
	return syntax_error(name, "parser error");
}

int record__parse_event(struct recording *rec, const char *names)
{
	char *copy = xstrdup(names), *save = NULL;
	int ret = 0;

	for (char *tok = strtok_r(copy, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save))
		ret = parse_one(rec, tok);
	free(copy);
	return ret;
}

/*
 * perf 6.1 with no -e: cycles:P, which this machine lacks, so evsel__fallback makes it
 * cpu-clock and keeps precise_ip (named "cpu-clock:ppp").
 */
int record__default_event(struct recording *rec)
{
	struct rec_event *e = add_event(rec, "cpu-clock:ppp");

	e->attr.type = PERF_TYPE_SOFTWARE;
	e->attr.config = PERF_COUNT_SW_CPU_CLOCK;
	e->attr.precise_ip = 3;
	return 0;
}

/* The sample fields and side-band flags perf's evsel__config and evlist__config set. */
static void config_attrs(struct recording *rec)
{
	/* a workload's own events start at its exec; CPU-wide ones are enabled by the recorder */
	bool workload = rec->argc > 0 && !rec->system_wide;

	for (size_t i = 0; i < rec->nr_events; i++) {
		struct perf_event_attr *a = &rec->events[i].attr;
		bool tracepoint = a->type == PERF_TYPE_TRACEPOINT;

		a->sample_type |= PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
		if (!tracepoint) {
			if (rec->period) {
				a->sample_period = rec->period;
			} else {
				a->freq = 1;
				a->sample_freq = rec->freq ? rec->freq : 4000;
				a->sample_type |= PERF_SAMPLE_PERIOD;
			}
		}
		if (rec->system_wide || rec->have_cpu_list)
			a->sample_type |= PERF_SAMPLE_CPU;
		if (rec->nr_events > 1)
			a->sample_type |= PERF_SAMPLE_IDENTIFIER;
		if (rec->callchain)
			a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		if (rec->callchain == CALLCHAIN_DWARF) {
			a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
			a->sample_regs_user = X86_REGS_USER_MASK;
			a->sample_stack_user = rec->stack_size;
			a->exclude_callchain_user = 1;
		}
		a->read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST;
		a->disabled = 1;
		a->inherit = !rec->no_inherit;
		a->enable_on_exec = workload;
		a->sample_id_all = 1;
		if (i == 0) {	/* the side-band records come once, with the first event */
			a->mmap = a->comm = a->task = 1;
			a->mmap2 = a->comm_exec = 1;
		}
	}
}

static int event_open(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* perf's messages for an event that does not open (evsel__open_strerror, the common cases). */
static int open_error(struct recording *rec, struct rec_event *e, int err)
{
	if (e->attr.type == PERF_TYPE_HARDWARE && (err == ENOENT || err == EOPNOTSUPP)) {
		fprintf(stderr, "Error:\nThe %s event is not supported.\n", e->name);
	} else if (err == ESRCH) {
		fprintf(stderr, "Error:\nThe sys_perf_event_open() syscall returned with %d (%s) "
			"for event (%s).\n", err, strerror(err), e->name);
	} else if (err == EACCES || err == EPERM) {
		fprintf(stderr, "Error:\nAccess to performance monitoring and observability "
			"operations is limited.\n");
	} else {
		fprintf(stderr, "Error:\nThe sys_perf_event_open() syscall returned with %d (%s) "
			"for event (%s).\n", err, strerror(err), e->name);
	}
	return -1;
}

/*
 * cycles where the machine has no hardware PMU: perf's evsel__fallback turns it into
 * cpu-clock silently. True when E was changed and may be tried again.
 */
static bool fallback(struct rec_event *e, int err)
{
	if (e->attr.type != PERF_TYPE_HARDWARE || e->attr.config != PERF_COUNT_HW_CPU_CYCLES ||
	    (err != ENOENT && err != EOPNOTSUPP))
		return false;
	e->attr.type = PERF_TYPE_SOFTWARE;
	e->attr.config = PERF_COUNT_SW_CPU_CLOCK;
	free(e->name);
	e->name = xstrdup("cpu-clock");
	return true;
}

/*
 * Open the events of CPU index c into its slice of rec->fds. 0, or -1 with the errno and the
 * event in rec->open_errno[c] and rec->open_failed[c]. The first CPU may change the attrs
 * (perf's fallbacks); the others, opened in parallel, only read them.
 */
static int open_cpu(struct recording *rec, size_t c, bool may_fall_back)
{
	size_t per_cpu = rec->nr_tids * rec->nr_events;
	int *fds = rec->fds + c * per_cpu;

	for (size_t t = 0; t < rec->nr_tids; t++) {
		for (size_t i = 0; i < rec->nr_events; i++) {
			struct rec_event *e = &rec->events[i];
			int fd = event_open(&e->attr, rec->tids[t], rec->cpus[c]);

			if (fd < 0 && may_fall_back && e->attr.precise_ip && errno == EINVAL) {
				e->attr.precise_ip = 0;	/* perf lowers it until it opens */
				fd = event_open(&e->attr, rec->tids[t], rec->cpus[c]);
			}
			if (fd < 0 && may_fall_back && fallback(e, errno))
				fd = event_open(&e->attr, rec->tids[t], rec->cpus[c]);
			if (fd < 0) {
				rec->open_errno[c] = errno;
				rec->open_failed[c] = i;
				return -1;
			}
			fds[t * rec->nr_events + i] = fd;
		}
	}
	return 0;
}

static void open_one(size_t c, void *arg)
{
	open_cpu(arg, c, false);
}

/* The first CPU on the calling thread (its fallbacks settle the attrs), the others in parallel. */
int record__open_events(struct recording *rec)
{
	size_t per_cpu = rec->nr_tids * rec->nr_events;

	config_attrs(rec);
	rec->nr_fds = rec->nr_cpus * per_cpu;
	rec->fds = xmalloc(rec->nr_fds * sizeof(int));
	for (size_t i = 0; i < rec->nr_fds; i++)
		rec->fds[i] = -1;
	rec->open_errno = xcalloc(rec->nr_cpus, sizeof(int));
	rec->open_failed = xcalloc(rec->nr_cpus, sizeof(size_t));
	if (rec->nr_cpus * per_cpu > 1)
		rec->wq = workqueue__new(0);
	if (!open_cpu(rec, 0, true))
		workqueue__parallel_for(rec->wq, 1, rec->nr_cpus, 1, open_one, rec);
	for (size_t c = 0; c < rec->nr_cpus; c++) {
		if (rec->open_errno[c])
			return open_error(rec, &rec->events[rec->open_failed[c]], rec->open_errno[c]);
	}
	return 0;
}

int record__set_ids(struct recording *rec)
{
	size_t n = 0;

	for (size_t i = 0; i < rec->nr_events; i++)
		rec->events[i].ids = xcalloc(rec->nr_cpus * rec->nr_tids, sizeof(u64));
	for (size_t c = 0; c < rec->nr_cpus; c++) {
		for (size_t t = 0; t < rec->nr_tids; t++) {
			for (size_t i = 0; i < rec->nr_events; i++) {
				struct rec_event *e = &rec->events[i];
				u64 id;

				if (ioctl(rec->fds[n++], PERF_EVENT_IOC_ID, &id)) {
					fprintf(stderr, "failed to read the id of %s: %s\n", e->name,
						strerror(errno));
					return -1;
				}
				e->ids[e->nr_ids++] = id;
			}
		}
	}
	return 0;
}

struct fd_job {
	struct recording *rec;
	unsigned long request;	/* an ioctl, or 0: close */
	int failed;
};

/* CPU index c's events: ioctl or close each. */
static void fds_one(size_t c, void *arg)
{
	struct fd_job *job = arg;
	size_t per_cpu = job->rec->nr_tids * job->rec->nr_events;
	int *fds = job->rec->fds + c * per_cpu;

	for (size_t i = 0; i < per_cpu; i++) {
		if (fds[i] < 0)
			continue;
		if (!job->request) {
			close(fds[i]);
			fds[i] = -1;
		} else if (ioctl(fds[i], job->request, 0)) {
			__atomic_store_n(&job->failed, 1, __ATOMIC_RELAXED);
		}
	}
}

/* Every CPU's events at once on the workqueue (the kernel's work for each is per CPU). */
static int fds_all(struct recording *rec, unsigned long request)
{
	struct fd_job job = { rec, request, 0 };

	if (rec->fds)
		workqueue__parallel_for(rec->wq, 0, rec->nr_cpus, 1, fds_one, &job);
	return job.failed ? -1 : 0;
}

int record__enable(struct recording *rec, bool enable)
{
	return fds_all(rec, enable ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE);
}

size_t record__id_hdr_size(const struct recording *rec)
{
	u64 t = rec->events[0].attr.sample_type;
	size_t n = 0;

	n += !!(t & PERF_SAMPLE_TID) + !!(t & PERF_SAMPLE_TIME) + !!(t & PERF_SAMPLE_ID);
	n += !!(t & PERF_SAMPLE_STREAM_ID) + !!(t & PERF_SAMPLE_CPU) + !!(t & PERF_SAMPLE_IDENTIFIER);
	return n * sizeof(u64);
}

/* Close the events (every CPU's in parallel) and free them. */
void record__close_events(struct recording *rec)
{
	fds_all(rec, 0);
	workqueue__destroy(rec->wq);
	rec->wq = NULL;
	free(rec->fds);
	free(rec->open_errno);
	free(rec->open_failed);
	rec->fds = NULL;
	rec->nr_fds = 0;
	for (size_t i = 0; i < rec->nr_events; i++) {
		free(rec->events[i].name);
		free(rec->events[i].tp_system);
		free(rec->events[i].tp_name);
		free(rec->events[i].ids);
	}
	free(rec->events);
	rec->events = NULL;
	rec->nr_events = 0;
}
