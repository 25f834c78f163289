/*
 * trace_fields: the `trace` field of perf script, through libtraceevent fed the recording's
 * tracing data the way perf 6.1's trace_report() feeds it (util/trace-event-read.c and
 * trace-event-parse.c). The bytes are split by readers/decode/tracing_data; only their text is parsed
 * here. One trace_seq is reused for every sample: nothing is allocated per event.
 */
#include "analyzer/output/trace_fields.h"

#include <errno.h>
#include <event-parse.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <trace-seq.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/xalloc.h"
#include "machine/dso.h"
#include "machine/machine.h"
#include "readers/session.h"
#include "readers/decode/tracing_data.h"

struct event_name {
	u64 id;
	char *name;
};

struct trace_fields {
	struct tep_handle *tep;
	struct machine *machine;
	struct trace_seq seq;
	struct event_name *names;
	size_t nr_names, alloc_names;
};

/*
 * perf's machine__resolve_kernel_addr: the kernel symbol holding *addrp, *addrp moved to its
 * start; the module's name for a module's symbol.
 */
static char *resolve_kernel_addr(void *priv, unsigned long long *addrp, char **modp)
{
	struct machine *m = priv;
	struct addr_location al;

	machine__find_symbol(m, NULL, PERF_RECORD_MISC_KERNEL, *addrp, &al);
	if (!al.map || !al.sym)
		return NULL;
	*modp = al.map != m->kernel_map && al.map->dso ? (char *)al.map->dso->short_name : NULL;
	*addrp = al.map->identity ? al.sym->start : al.sym->start - al.map->pgoff + al.map->start;
	return (char *)symbol__name(al.symtab, al.sym);
}

/* A piece's text as a NUL-terminated copy (libtraceevent's parsers want C strings). */
static char *piece_text(const struct tracing_piece *p)
{
	char *s = xmalloc(p->size + 1);

	memcpy(s, p->data, p->size);
	s[p->size] = '\0';
	return s;
}

/* perf's parse_ftrace_printk: "addr : format" lines. */
static void register_printk(struct tep_handle *tep, const struct tracing_piece *p)
{
	char *text = piece_text(p), *save = NULL;

	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':'), *fmt;
		unsigned long long addr = strtoull(line, NULL, 16);

		/* after the colon comes one space, then the format */
		if (!colon)
			continue;
		fmt = colon[1] ? colon + 2 : colon + 1;
		/*
		 * libtraceevent strips a closing quote and "\n" by looking 3 bytes back from
		 * the end: a format shorter than that (not even a quoted one) is read before its
		 * start. Such a line is garbage; it is skipped.
		 */
		if (strlen(fmt) < 3)
			continue;
		tep_register_print_string(tep, fmt, addr);
	}
	free(text);
}

/* perf's parse_saved_cmdline: "pid comm" lines. */
static void register_cmdlines(struct tep_handle *tep, const struct tracing_piece *p)
{
	char *text = piece_text(p), *save = NULL;

	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char comm[17];
		int pid;

		if (sscanf(line, "%d %16s", &pid, comm) == 2)
			tep_register_comm(tep, comm, pid);
	}
	free(text);
}

/*
 * libtraceevent folds constant sub-expressions of a print fmt as it parses it, dividing by
 * whatever the text says: a format that divides by a constant zero kills the process with
 * SIGFPE (perf's own copy too). The formats are parsed first in a child, which says on a
 * pipe which one it is at: 0 when the child got through them all, else -1 with the error of
 * the one it died on.
 */
static int parse_in_child(const struct tracing_data *td, const char *path)
{
	int fds[2], status = 0;
	u32 at = UINT32_MAX, next;
	pid_t pid;

	if (!td->nr_formats || pipe(fds))
		return 0;	/* nothing to try, or no way to: parse in place */
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return 0;
	}
	if (!pid) {
		static const int sigs[] = { SIGFPE, SIGSEGV, SIGBUS, SIGILL, SIGABRT };
		struct tep_handle *tep = tep_alloc();
		int null = open("/dev/null", O_WRONLY);

		for (size_t i = 0; i < ARRAY_SIZE(sigs); i++)
			signal(sigs[i], SIG_DFL);	/* no sanitizer's or fuzzer's report */
		if (null >= 0)
			dup2(null, STDERR_FILENO);
		close(fds[0]);
		for (u32 i = 0; tep && i < td->nr_formats; i++) {
			const struct tracing_format *f = &td->formats[i];

			if (write(fds[1], &i, sizeof(i)) != sizeof(i))
				_exit(1);
			tep_parse_event(tep, (const char *)f->text.data, f->text.size, f->system);
		}
		_exit(0);
	}
	close(fds[1]);
	while (read(fds[0], &next, sizeof(next)) == sizeof(next))
		at = next;
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFSIGNALED(status) || at >= td->nr_formats)
		return 0;
	error_set("%s: offset %#llx: tracing data: bad %s event format: libtraceevent dies of signal %d parsing it (a division by zero in its print fmt?)",
		  path, (unsigned long long)td->formats[at].text.offset, td->formats[at].system,
		  WTERMSIG(status));
	return -1;
}

static int load(struct trace_fields *tf, const struct tracing_data *td, const char *path)
{
	struct tep_handle *tep = tf->tep;
	const u16 one = 1;
	char *header_page;

	tep_set_flag(tep, TEP_NSEC_OUTPUT);
	tep_set_file_bigendian(tep, td->big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, *(const u8 *)&one ? TEP_LITTLE_ENDIAN : TEP_BIG_ENDIAN);
	tep_set_long_size(tep, td->long_size);
	tep_set_page_size(tep, (int)td->page_size);
	/* perf: the page header's commit field is a kernel long, its size the long size */
	header_page = piece_text(&td->header_page);
	if (!tep_parse_header_page(tep, header_page, td->header_page.size, td->long_size))
		tep_set_long_size(tep, tep_get_header_page_size(tep));
	free(header_page);
	if (parse_in_child(td, path))
		return -1;
	for (size_t i = 0; i < td->nr_formats; i++) {
		const struct tracing_format *f = &td->formats[i];
		enum tep_errno err = tep_parse_event(tep, (const char *)f->text.data, f->text.size,
						     f->system);

		if (err) {
			char msg[128];

			tep_strerror(tep, err, msg, sizeof(msg));
			error_set("%s: offset %#llx: tracing data: bad %s event format: %s", path,
				  (unsigned long long)f->text.offset, f->system, msg);
			return -1;
		}
	}
	/* the kallsyms piece is skipped as perf skips it: addresses go to resolve_kernel_addr */
	register_printk(tep, &td->printk);
	register_cmdlines(tep, &td->cmdlines);
	return tep_set_function_resolver(tep, resolve_kernel_addr, tf->machine);
}

/* perf's evsel__prepare_tracepoint_event: every tracepoint event needs its format. */
static int check_events(struct trace_fields *tf, const struct perf_session *s, u64 offset)
{
	for (size_t i = 0; i < s->nr_evsels; i++) {
		const struct perf_event_attr *attr = &s->evsels[i].attr;

		if (attr->type == PERF_TYPE_TRACEPOINT && !tep_find_event(tf->tep, (int)attr->config)) {
			error_set("%s: offset %#llx: tracing data: no format for tracepoint id %llu",
				  s->is_pipe ? s->path : s->data_path, (unsigned long long)offset,
				  (unsigned long long)attr->config);
			return -1;
		}
	}
	return 0;
}

struct trace_fields *trace_fields__new(const struct perf_session *s, struct machine *machine)
{
	const char *path = s->is_pipe ? s->path : s->data_path;
	struct trace_fields *tf = xzalloc(sizeof(*tf));
	struct tracing_data td;
	size_t size = 0;
	u64 offset = 0;
	const u8 *data = perf_session__tracing_data(s, &size, &offset);

	tf->machine = machine;
	trace_seq_init(&tf->seq);
	if (!data) {
		error_set("%s: offset %#llx: no tracing data for the tracepoint events", path,
			  (unsigned long long)offset);
		trace_fields__delete(tf);
		return NULL;
	}
	tf->tep = tep_alloc();
	if (!tf->tep) {
		error_set("%s: out of memory for libtraceevent", path);
		trace_fields__delete(tf);
		return NULL;
	}
	if (tracing_data__parse(&td, data, size, offset, path) || load(tf, &td, path) ||
	    check_events(tf, s, offset)) {
		tracing_data__exit(&td);
		trace_fields__delete(tf);
		return NULL;
	}
	tracing_data__exit(&td);
	return tf;
}

void trace_fields__delete(struct trace_fields *tf)
{
	if (!tf)
		return;
	for (size_t i = 0; i < tf->nr_names; i++)
		free(tf->names[i].name);
	free(tf->names);
	trace_seq_destroy(&tf->seq);
	if (tf->tep)
		tep_free(tf->tep);
	free(tf);
}

void trace_fields__fprintf(struct trace_fields *tf, FILE *fp, u64 id, u32 cpu, const void *raw,
			   u32 raw_size)
{
	struct tep_event *event = tep_find_event(tf->tep, (int)id);
	struct tep_record record = { 0 };
	size_t len;

	if (!event)
		return;
	record.cpu = (int)cpu;
	record.size = (int)raw_size;
	record.data = (void *)raw;
	trace_seq_reset(&tf->seq);
	tep_print_event(tf->tep, &tf->seq, &record, "%s", TEP_PRINT_INFO);
	/* perf's trace_seq_do_fprintf: "%.*s" */
	len = strnlen(tf->seq.buffer, tf->seq.len);
	fwrite_unlocked(tf->seq.buffer, 1, len, fp);
}

const char *trace_fields__event_name(struct trace_fields *tf, u64 id)
{
	struct tep_event *event;
	struct event_name *n;

	for (size_t i = 0; i < tf->nr_names; i++)
		if (tf->names[i].id == id)
			return tf->names[i].name;
	event = tep_find_event(tf->tep, (int)id);
	if (!event)
		return NULL;
	ARRAY_GROW(tf->names, tf->alloc_names, tf->nr_names + 1);
	n = &tf->names[tf->nr_names++];
	n->id = id;
	if (asprintf(&n->name, "%s:%s", event->system, event->name) < 0)
		n->name = NULL;
	return n->name;
}
