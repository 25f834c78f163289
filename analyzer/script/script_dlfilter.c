/*
 * script_dlfilter: perf 6.1's --dlfilter shared objects, called as perf's builtin-script.c and
 * util/dlfilter.c call them: filter_event_early before any filtering, filter_event after the
 * time, cpu and thread filters, with the sample's fields and the functions of
 * perf_dlfilter_fns answering as perf's do (what the recording cannot tell: NULL, 0 or -1,
 * as perf's answer when the data is missing). What a filter prints on stdout goes out between
 * the lines as perf's would.
 */
#include "analyzer/script/script_dlfilter.h"

#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/script/perf_dlfilter.h"
#include "lib/xalloc.h"

/* perf's ABI: the sizes a filter built against perf 6.1's header sees */
_Static_assert(sizeof(struct perf_dlfilter_sample) == 208, "perf_dlfilter_sample");
_Static_assert(sizeof(struct perf_dlfilter_al) == 80, "perf_dlfilter_al");
_Static_assert(sizeof(struct perf_dlfilter_fns) == 128 * sizeof(void *), "perf_dlfilter_fns");

/* perf's exec path when PERF_EXEC_PATH is not set: where Debian's perf 6.1 keeps it */
#define PERF_EXEC_PATH_DEFAULT "/usr/lib/perf-core"

/* hist.h's HIST_FILTER__THREAD: the bit perf's machine__resolve sets for --comms/--pid/--tid */
#define FILTERED_THREAD (1u << 1)

typedef int (*filter_fn)(void *data, const struct perf_dlfilter_sample *sample, void *ctx);

struct dlfilter {
	void *handle;
	char *path;
	int (*start)(void **data, void *ctx);
	int (*stop)(void *data, void *ctx);
	filter_fn filter_event, filter_event_early;
	void *data;	/* start()'s */
	int argc;
	char **argv;
	bool begun;	/* start() was called (or there is none): stop() will be */
	bool in_start_stop;	/* args() answers there too */
	/* the sample being filtered, while ctx_valid */
	bool ctx_valid;
	struct script *s;
	const struct event_ctx *ctx;
	struct thread *thread;	/* found when asked for */
	bool own_thread;	/* a reference this file took */
	struct perf_dlfilter_sample sample;
	struct perf_dlfilter_al ip_al, addr_al;	/* size 0: not made yet */
};

static const char *exec_path(void)
{
	const char *env = getenv("PERF_EXEC_PATH");

	return env && *env ? env : PERF_EXEC_PATH_DEFAULT;
}

/* perf's machine__kernel_ip on x86_64: kernel_start stays at the top half */
static bool kernel_ip(u64 ip)
{
	return ip >= 1ULL << 63;
}

static struct thread *filter_thread(struct dlfilter *d)
{
	const struct perf_sample *sample = &d->ctx->sample;

	if (!d->thread) {
		d->thread = machine__findnew_thread(&d->s->machine, (s32)sample->pid,
						    (s32)sample->tid);
		d->own_thread = true;
	}
	return d->thread;
}

/* perf's al_to_d_al: an address_location as a filter sees it */
static void fill_al(struct perf_dlfilter_al *d_al, const struct addr_location *al, u64 ip)
{
	const struct symbol *sym = al->sym;

	memset(d_al, 0, sizeof(*d_al));
	d_al->size = sizeof(*d_al);
	if (al->map && al->dso) {
		d_al->dso = al->dso->long_name;
		d_al->is_64_bit = sizeof(void *) == 8;	/* perf's default: x86_64 dsos */
		d_al->buildid_size = al->dso->build_id_size;
		d_al->buildid = d_al->buildid_size ? al->dso->build_id : NULL;
	}
	if (sym) {
		d_al->sym = symbol__name(al->symtab, sym);
		d_al->sym_start = sym->start;
		d_al->sym_end = sym->start + sym->size;
		/* (perf's odd second case kept: an address past the symbol's end) */
		d_al->symoff = al->addr < d_al->sym_end ? al->addr - sym->start
							: al->addr - al->map->start - sym->start;
	}
	d_al->addr = al->addr;
	d_al->is_kernel_ip = kernel_ip(ip);
}

static void resolve(struct dlfilter *d, u64 ip, struct addr_location *al)
{
	u8 cpumode = d->ctx->sample.misc & PERF_RECORD_MISC_CPUMODE_MASK;

	machine__resolve(&d->s->machine, filter_thread(d), cpumode, ip, al);
}

static const struct perf_dlfilter_al *fn_resolve_ip(void *ctx)
{
	struct dlfilter *d = ctx;
	struct addr_location al;

	if (!d->ctx_valid)
		return NULL;
	if (!d->ip_al.size) {	/* made once a sample */
		resolve(d, d->ctx->sample.ip, &al);
		fill_al(&d->ip_al, &al, d->ctx->sample.ip);
		d->ip_al.comm = thread__comm_str(d->thread);
		d->ip_al.filtered = script_thread_filtered(d->s, d->thread) ? FILTERED_THREAD : 0;
	}
	return &d->ip_al;
}

static const struct perf_dlfilter_al *fn_resolve_addr(void *ctx)
{
	struct dlfilter *d = ctx;
	struct addr_location al;

	if (!d->ctx_valid || !d->sample.addr_correlates_sym)
		return NULL;
	if (!d->addr_al.size) {
		resolve(d, d->ctx->sample.addr, &al);
		fill_al(&d->addr_al, &al, d->ctx->sample.addr);
	}
	return &d->addr_al;
}

static char **fn_args(void *ctx, int *dlargc)
{
	struct dlfilter *d = ctx;

	if (!dlargc)
		return NULL;
	*dlargc = 0;
	if (!d->ctx_valid && !d->in_start_stop)
		return NULL;
	*dlargc = d->argc;
	return d->argv;
}

/* al->size is the caller's: only what it covers is written (an older filter's al) */
static __s32 fn_resolve_address(void *ctx, __u64 address, struct perf_dlfilter_al *al_p)
{
	struct dlfilter *d = ctx;
	struct perf_dlfilter_al d_al;
	struct addr_location al;
	u32 size;

	if (!d->ctx_valid || !al_p)
		return -1;
	resolve(d, address, &al);
	fill_al(&d_al, &al, address);
	size = al_p->size;
	memcpy(al_p, &d_al, MIN((size_t)size, sizeof(d_al)));
	al_p->size = size;
	return 0;
}

/*
 * perf reads an instruction's bytes from the sample (AUX-trace samples) or decodes it from
 * the dso's code, which analyze does not read: the sample's own bytes, else none.
 */
static const __u8 *fn_insn(void *ctx, __u32 *length)
{
	struct dlfilter *d = ctx;

	if (!length)
		return NULL;
	*length = 0;
	if (!d->ctx_valid || !d->ctx->sample.insn_len || !d->ctx->sample.insn)
		return NULL;
	*length = d->ctx->sample.insn_len;
	return d->ctx->sample.insn;
}

/* perf's answer without debuginfo to read the line from (analyze does not ask addr2line) */
static const char *fn_srcline(void *ctx, __u32 *line_number)
{
	if (line_number)
		*line_number = 0;
	return NULL;
}

static struct perf_event_attr *fn_attr(void *ctx)
{
	struct dlfilter *d = ctx;

	return d->ctx_valid ? &d->ctx->evsel->attr : NULL;
}

/* perf's answer when the dso's code cannot be read (the kernel's without vmlinux) */
static __s32 fn_object_code(void *ctx, __u64 ip, void *buf, __u32 len)
{
	return -1;
}

static const struct perf_dlfilter_fns dlfilter_fns = {
	.resolve_ip = fn_resolve_ip,
	.resolve_addr = fn_resolve_addr,
	.args = fn_args,
	.resolve_address = fn_resolve_address,
	.insn = fn_insn,
	.srcline = fn_srcline,
	.attr = fn_attr,
	.object_code = fn_object_code,
};

/* perf's find_dlfilter: a path as it is, a bare name in ., then in the exec path's dlfilters */
static char *find_file(const char *file)
{
	char *path;

	if (strchr(file, '/'))
		return xstrdup(file);
	if (!access(file, R_OK))	/* "./": dlopen would not look in . */
		return xasprintf("./%s", file);
	path = xasprintf("%s/dlfilters/%s", exec_path(), file);
	if (!access(path, R_OK))
		return path;
	free(path);
	return xstrdup(file);	/* the dynamic linker's paths */
}

struct dlfilter *dlfilter__new(const char *file, int argc, const char *const *argv)
{
	struct dlfilter *d = xcalloc(1, sizeof(*d));
	struct perf_dlfilter_fns *fns;

	d->path = find_file(file);
	d->handle = dlopen(d->path, RTLD_NOW);
	if (!d->handle) {
		fprintf(stderr, "dlopen failed for: '%s'\n", d->path);
		free(d->path);
		free(d);
		return NULL;
	}
	*(void **)&d->start = dlsym(d->handle, "start");
	*(void **)&d->stop = dlsym(d->handle, "stop");
	*(void **)&d->filter_event = dlsym(d->handle, "filter_event");
	*(void **)&d->filter_event_early = dlsym(d->handle, "filter_event_early");
	fns = dlsym(d->handle, "perf_dlfilter_fns");
	if (fns)
		memcpy(fns, &dlfilter_fns, sizeof(*fns));
	d->argc = argc;
	d->argv = xcalloc((size_t)argc + 1, sizeof(*d->argv));
	for (int i = 0; i < argc; i++)
		d->argv[i] = xstrdup(argv[i]);
	return d;
}

/* What the filter printed (stdio's buffer) goes after the lines before it. */
static void filter_output(struct script *s)
{
	if (!__fpending(stdout))
		return;
	script_sync(s);
	outbuf_flush(&s->pr.out);
	fflush(stdout);
}

int dlfilter__start(struct dlfilter *d, struct script *s)
{
	int ret = 0;

	d->begun = true;	/* perf calls stop() even when start() failed */
	if (d->start) {
		d->in_start_stop = true;
		ret = d->start(&d->data, d);
		d->in_start_stop = false;
		filter_output(s);
	}
	return ret;
}

/* perf's dlfilter__do_filter_event: the sample as perf_dlfilter_sample */
static void fill_sample(struct perf_dlfilter_sample *d, const struct event_ctx *ctx)
{
	const struct perf_sample *sample = &ctx->sample;
	const struct perf_event_attr *attr = &ctx->evsel->attr;

	memset(d, 0, sizeof(*d));
	d->size = sizeof(*d);
	d->ip = sample->ip;
	d->pid = (s32)sample->pid;
	d->tid = (s32)sample->tid;
	d->time = sample->time;
	d->addr = sample->addr;
	d->id = sample->id;
	d->stream_id = sample->stream_id;
	d->period = sample->period;
	d->weight = sample->weight;
	if (attr->sample_type & PERF_SAMPLE_WEIGHT_STRUCT) {	/* perf_sample_weight's parts */
		d->weight = (u32)sample->weight;
		d->ins_lat = (u16)(sample->weight >> 32);
		d->p_stage_cyc = (u16)(sample->weight >> 48);
	}
	d->transaction = sample->transaction;
	d->cpu = (s32)sample->cpu;
	d->flags = sample->flags;
	d->data_src = sample->data_src;
	d->phys_addr = sample->phys_addr;
	d->data_page_size = sample->data_page_size;
	d->code_page_size = sample->code_page_size;
	d->cgroup = sample->cgroup;
	d->cpumode = sample->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	d->misc = sample->misc;
	d->raw_size = sample->raw_size;
	d->raw_data = sample->raw_data;
	if (sample->branch_stack) {	/* nr, [hw_idx,] entries */
		bool hw_idx = attr->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX;

		d->brstack_nr = sample->branch_stack[0];
		d->brstack = (const void *)(sample->branch_stack + 1 + hw_idx);
	}
	if (sample->callchain) {
		d->raw_callchain_nr = sample->callchain[0];
		d->raw_callchain = (const __u64 *)(sample->callchain + 1);
	}
	d->addr_correlates_sym = (attr->sample_type & PERF_SAMPLE_ADDR) &&
				 addr_correlates_sym(attr);
	d->event = ctx->evsel->name;
	d->machine_pid = 0;	/* the host's samples: analyze has no guests */
	d->vcpu = -1;
}

int dlfilter__filter(struct dlfilter *d, struct script *s, const struct event_ctx *ctx,
		     struct thread *t, bool early)
{
	filter_fn fn = early ? d->filter_event_early : d->filter_event;
	int ret;

	if (!fn)
		return 0;
	d->s = s;
	d->ctx = ctx;
	d->thread = t;
	d->own_thread = false;
	d->ip_al.size = d->addr_al.size = 0;
	fill_sample(&d->sample, ctx);
	d->ctx_valid = true;
	ret = fn(d->data, &d->sample, d);
	d->ctx_valid = false;
	if (d->own_thread)
		thread__put(d->thread);
	d->thread = NULL;
	filter_output(s);
	if (ret < 0)	/* perf: "failed to process" the record that delivered it */
		fprintf(stderr, "analyze script: %s: %s returned %d: stopping\n", d->path,
			early ? "filter_event_early" : "filter_event", ret);
	return ret;
}

void dlfilter__delete(struct dlfilter *d, struct script *s)
{
	if (!d)
		return;
	if (d->stop && d->begun) {
		d->in_start_stop = true;
		d->stop(d->data, d);
		d->in_start_stop = false;
	}
	fflush(stdout);	/* the lines are out already */
	dlclose(d->handle);
	for (int i = 0; i < d->argc; i++)
		free(d->argv[i]);
	free(d->argv);
	free(d->path);
	free(d);
}

/* perf's get_filter_desc: a filter (it has filter_event or filter_event_early), described */
static void list_one(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name);
	void *handle = dlopen(path, RTLD_NOW);
	const char *(*describe)(const char **long_description);
	const char *desc = NULL, *long_desc = NULL;

	free(path);
	if (!handle)
		return;
	if (dlsym(handle, "filter_event") || dlsym(handle, "filter_event_early")) {
		*(void **)&describe = dlsym(handle, "filter_description");
		if (describe)
			desc = describe(&long_desc);
		printf("  %-36s %s\n", name, desc ? desc : "");
	}
	dlclose(handle);
}

/* perf's list_filters: the .so files of dir, in the directory's order */
static void list_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if (e->d_type == DT_DIR || n < 4 || strcmp(e->d_name + n - 3, ".so"))
			continue;
		list_one(dir, e->d_name);
	}
	closedir(d);
}

void dlfilter__list(void)
{
	char *dir = xasprintf("%s/dlfilters", exec_path());

	printf("List of available dlfilters:\n");
	list_dir(".");
	list_dir(dir);
	free(dir);
	fflush(stdout);
}
