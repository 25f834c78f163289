/*
 * script_print: the text of perf script's lines: a sample's (its start, fields and frames, with
 * their symbols, inlined functions and source lines), a side-band record's, an AUX-trace error's.
 * Written through s->out, on the aggregator when lines are pipelined; nothing allocated a line.
 */
#include "analyzer/script/script_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer/output/dump.h"
#include "lib/fmt.h"
#include "lib/xalloc.h"
#include "readers/decode/evsel_name.h"

int script_time__format(char *buf, size_t size, u64 time, bool ns)
{
	/* "%5llu.%09llu: " (ns), or perf's timestamp__scnprintf_usec: "%llu.%06llu" truncated
	 * to microseconds, in a 12-wide column, then ": " */
	char num[FMT_U64_MAX + 1 + 9];
	u64 frac = ns ? time % 1000000000 : time % 1000000000 / 1000;
	int digits = ns ? 9 : 6, width = ns ? 5 : 12;
	size_t n = fmt_u64_dec(num, time / 1000000000), len;

	if (ns) {
		len = n < 5 ? 5 : n;
		memmove(num + len - n, num, n);
		memset(num, ' ', len - n);
		n = len;
	}
	num[n++] = '.';
	for (int i = digits - 1; i >= 0; i--, frac /= 10)
		num[n + (size_t)i] = (char)('0' + frac % 10);
	n += (size_t)digits;
	len = (size_t)width > n ? (size_t)width : n;
	if (size < len + 3)
		return -1;
	memset(buf, ' ', len - n);
	memcpy(buf + len - n, num, n);
	memcpy(buf + len, ": ", 3);
	return (int)len + 2;
}

/*
 * al's symbol: through the machine's caches, or a parallel run's worker's own (the dsos'
 * caches are for one thread).
 */
void script_resolve_symbol(struct script_printer *pr, struct addr_location *al)
{
	if (!pr->worker) {
		machine__resolve_symbol(&pr->s->machine, al);
		return;
	}
	al->symtab = al->dso ? dso__symtab(al->dso, &pr->s->machine.symsrc) : NULL;
	al->sym = al->symtab ? passes__find_symbol(pr->worker, al->symtab, al->addr) : NULL;
}

/* perf's __symbol__fprintf_symname_offs and map__fprintf_dsoname, for one address. */
static void print_sym_dso(struct script_printer *pr, struct dso *dso, u64 addr, u32 fields)
{
	struct addr_location al = { .dso = dso, .addr = addr };

	if (fields & SF_SYM) {
		script_resolve_symbol(pr, &al);
		outbuf_putc(&pr->out, ' ');
		if (al.sym) {
			fmt_put_str(&pr->out, symbol__name(al.symtab, al.sym));
			if (fields & SF_SYMOFFSET) {
				fmt_put_str(&pr->out, "+0x");
				fmt_put_hex(&pr->out, al.addr - al.sym->start, 0);
			}
		} else {
			fmt_put_str(&pr->out, "[unknown]");
		}
	}
	if (fields & SF_DSO) {
		fmt_put_str(&pr->out, " (");
		fmt_put_str(&pr->out, dso ? dso->long_name : "[unknown]");
		outbuf_putc(&pr->out, ')');
	}
}

/*
 * map__fprintf_srcline: "\n  FILE:LINE" for the ip at addr in dso, as addr2line gives it, or
 * "\n  DSO[ADDR]" when it gives nothing; nothing for its "??:0" (a function without a line)
 */
static void print_srcline(struct script_printer *pr, struct dso *dso, u64 addr, u32 fields)
{
	struct script *s = pr->s;
	char buf[4096];

	if (!(fields & SF_SRCLINE) || !dso)
		return;
	if (!inlines__srcline(s->lines, dso, addr, buf, sizeof(buf)))
		snprintf(buf, sizeof(buf), "%s[%llx]",
			 dso->short_name ? dso->short_name : dso->long_name, (unsigned long long)addr);
	else if (!strncmp(buf, "??:0", 4))
		return;
	fmt_put_str(&pr->out, "\n  ");
	fmt_put_str(&pr->out, buf);
}

/* A line of a frame's inline records: the record's own srcline, as it is ("??:0" too) */
static void print_record_line(struct script_printer *pr, const struct sample_frame *frame,
			      const char *line, u32 fields)
{
	if (!line) {
		print_srcline(pr, frame->dso, frame->addr, fields);
	} else if (fields & SF_SRCLINE) {
		fmt_put_str(&pr->out, "\n  ");
		fmt_put_str(&pr->out, line);
	}
}

/* script_time__format, keeping the text of the whole seconds from line to line */
static void print_time(struct script_printer *pr, u64 time)
{
	struct script *s = pr->s;
	u64 sec = time / 1000000000, frac = time % 1000000000;
	size_t digits = s->ns ? 9 : 6, n;
	char *p;

	if (sec != pr->time_sec || !pr->time_prefix_len) {
		char buf[64];
		int len = script_time__format(buf, sizeof(buf), sec * 1000000000, s->ns);

		pr->time_prefix_len = (size_t)len - digits - 2;	/* up to the point */
		memcpy(pr->time_prefix, buf, pr->time_prefix_len);
		pr->time_sec = sec;
	}
	if (!s->ns)
		frac /= 1000;	/* truncated, as perf does */
	n = pr->time_prefix_len + digits + 2;
	p = outbuf_reserve(&pr->out, n);
	memcpy(p, pr->time_prefix, pr->time_prefix_len);
	p += pr->time_prefix_len;
	for (size_t i = digits; i-- > 0; frac /= 10)
		p[i] = (char)('0' + frac % 10);
	memcpy(p + digits, ": ", 2);
	pr->out.len += n;
}

/* --reltime: the time since the first line's; --deltatime: since the line before's */
static u64 shown_time(struct script_printer *pr, u64 time)
{
	u64 shown = time;

	if (pr->s->reltime) {
		if (!pr->initial_time)	/* (perf's test: a first time of 0 is no time) */
			pr->initial_time = time;
		shown = time - pr->initial_time;
	} else if (pr->s->deltatime) {
		shown = pr->previous_time ? time - pr->previous_time : 0;
		pr->previous_time = time;
	}
	return shown;
}

/*
 * perf_sample__fprintf_start's misc: the cpumode's letters (as perf tests them: all of a
 * mode's bits set), the record's own flag, padded to 6.
 */
static void print_misc(struct outbuf *ob, const struct perf_event_header *header)
{
	static const struct {
		u16 bits;
		char c;
	} modes[] = { { PERF_RECORD_MISC_KERNEL, 'K' }, { PERF_RECORD_MISC_USER, 'U' },
		      { PERF_RECORD_MISC_HYPERVISOR, 'H' }, { PERF_RECORD_MISC_GUEST_KERNEL, 'G' },
		      { PERF_RECORD_MISC_GUEST_USER, 'g' } };
	u16 misc = header->misc;
	int n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(modes); i++) {
		if ((misc & modes[i].bits) == modes[i].bits) {
			outbuf_putc(ob, modes[i].c);
			n++;
		}
	}
	switch (header->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		if (misc & PERF_RECORD_MISC_MMAP_DATA)
			n += (outbuf_putc(ob, 'M'), 1);
		break;
	case PERF_RECORD_COMM:
		if (misc & PERF_RECORD_MISC_COMM_EXEC)
			n += (outbuf_putc(ob, 'E'), 1);
		break;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		if (misc & PERF_RECORD_MISC_SWITCH_OUT) {
			n += (outbuf_putc(ob, 'S'), 1);
			if (misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT)
				n += (outbuf_putc(ob, 'p'), 1);
		}
		break;
	default:
		break;
	}
	/* "%*s", 6 - n, " " */
	fmt_put_padded(ob, " ", 1, 6 - n, false);
}

/*
 * perf's perf_sample__fprintf_start: comm, tid, cpu, misc, time, for samples and side-band
 * records alike.
 */
static void print_start(struct script_printer *pr, struct evsel *evsel, const char *comm, u32 pid, u32 tid,
			u32 cpu, u64 time, const struct perf_event_header *header)
{
	struct script *s = pr->s;
	u32 fields = s->f.fields[script_output_type(evsel->attr.type)];
	struct outbuf *ob = &pr->out;
	size_t from = ob->len;

	if (pr->start.len && pr->start.evsel == evsel && pr->start.comm == comm &&
	    pr->start.pid == pid && pr->start.tid == tid && pr->start.cpu == cpu) {
		outbuf_put(ob, pr->start.text, pr->start.len);
		goto time;
	}
	if (fields & SF_COMM) {
		/* perf leaves the comm unpadded when frames follow */
		bool unpadded = (fields & SF_IP) && s->use_callchain &&
				(evsel->attr.sample_type & PERF_SAMPLE_CALLCHAIN);

		fmt_put_padded(ob, comm, strlen(comm), unpadded ? 0 : 16, false);
		outbuf_putc(ob, ' ');
	}
	if ((fields & SF_PID) && (fields & SF_TID)) {	/* "%5d/%-5d " */
		fmt_put_int(ob, (int)pid, 5, false);
		outbuf_putc(ob, '/');
		fmt_put_int(ob, (int)tid, 5, true);
		outbuf_putc(ob, ' ');
	} else if (fields & (SF_PID | SF_TID)) {
		fmt_put_int(ob, (int)(fields & SF_PID ? pid : tid), 5, false);
		outbuf_putc(ob, ' ');
	}
	if (fields & SF_CPU) {
		if (cpu < 1000) {	/* "[%03d] " */
			outbuf_putc(ob, '[');
			fmt_put_u64_zero(ob, cpu, 3);
			fmt_put_str(ob, "] ");
		} else {
			char buf[16];

			outbuf_put(ob, buf, (size_t)snprintf(buf, sizeof(buf), "[%03d] ", (int)cpu));
		}
	}
	/* (kept when the buffer was not flushed meanwhile and it fits) */
	pr->start.len = 0;
	if (ob->len > from && ob->len - from <= sizeof(pr->start.text)) {
		pr->start = (typeof(pr->start)){ evsel, comm, pid, tid, cpu, ob->len - from };
		memcpy(pr->start.text, ob->buf + from, pr->start.len);
	}
time:
	if (fields & SF_MISC)
		print_misc(ob, header);
	if (fields & SF_TIME)
		print_time(pr, shown_time(pr, time));
}

/* --stop-bt: the callchain ends after a frame of one of these functions */
static bool stops_bt(const struct script *s, const char *name)
{
	return s->stop_bt.nr && name && name_list__has(&s->stop_bt, name);
}

/*
 * One frame of a callchain, one line; perf's append_inlines makes a frame whose pc is in
 * inlined code (DWARF of its file says so) one line a function, innermost first: the
 * inlined ones "(inlined)" in place of the dso, even without -F sym. False when --stop-bt
 * ends the callchain at it.
 */
static bool print_frame(struct script_printer *pr, const struct sample_frame *frame, u32 fields,
			bool unwound)
{
	struct script *s = pr->s;
	struct addr_location al = { .dso = frame->dso, .addr = frame->addr };
	const char *const *names = NULL, *const *lines = NULL;
	struct outbuf *ob = &pr->out;
	size_t n = 0;

	script_resolve_symbol(pr, &al);
	if (unwound && al.sym && frame->dso && s->inlines)
		n = inlines__find(s->inlines, frame->dso, frame->addr,
				  symbol__name(al.symtab, al.sym), &names, &lines);
	if (!n) {
		char line[4096];

		outbuf_putc(ob, '\t');
		fmt_put_hex(ob, frame->addr, 16);
		print_sym_dso(pr, frame->dso, frame->addr, fields);
		/*
		 * an unwound frame's line comes from its inline records: with no DWARF for the
		 * pc, addr2line's one record of the function ("??:0" too) when it has one
		 */
		if ((fields & SF_SRCLINE) && unwound && al.sym && frame->dso && s->inlines &&
		    inlines__srcline(s->lines, frame->dso, frame->addr, line, sizeof(line)))
			print_record_line(pr, frame, line, fields);
		else
			print_srcline(pr, frame->dso, frame->addr, fields);
		outbuf_putc(ob, '\n');
		return !stops_bt(s, al.sym ? symbol__name(al.symtab, al.sym) : NULL);
	}
	for (size_t i = 0; i < n; i++) {
		outbuf_putc(ob, '\t');
		fmt_put_hex(ob, frame->addr, 16);
		if (!names[i]) {
			print_sym_dso(pr, frame->dso, frame->addr, fields);
			print_record_line(pr, frame, lines[i], fields);
		} else {
			if (fields & SF_SYM) {
				outbuf_putc(ob, ' ');
				fmt_put_str(ob, names[i]);
				if (fields & SF_SYMOFFSET) {
					fmt_put_str(ob, "+0x");
					fmt_put_hex(ob, al.addr - al.sym->start, 0);
				}
			}
			print_record_line(pr, frame, lines[i], fields);
			fmt_put_str(ob, " (inlined)");
		}
		outbuf_putc(ob, '\n');
		/* perf's inlined functions are frames of their own */
		if (stops_bt(s, names[i] ? names[i] : symbol__name(al.symtab, al.sym)))
			return false;
	}
	return true;
}

/* perf_sample__fprintf_insn: " insn: xx xx" when the decoder gave the instruction */
static void print_insn(struct script_printer *pr, const struct line_item *item, u32 fields)
{
	static const char hex[] = "0123456789abcdef";

	if (fields & SF_INSNLEN) {	/* " ilen: %d" */
		fmt_put_str(&pr->out, " ilen: ");
		fmt_put_u64(&pr->out, item->insn_len, 0);
	}
	if (!(fields & SF_INSN) || !item->insn_len)
		return;

	fmt_put_str(&pr->out, " insn:");
	for (u8 i = 0; i < item->insn_len; i++) {	/* " %02x" */
		outbuf_putc(&pr->out, ' ');
		outbuf_putc(&pr->out, hex[item->insn[i] >> 4]);
		outbuf_putc(&pr->out, hex[item->insn[i] & 15]);
	}
}

/* the symbol's name at addr in dso, or NULL */
static const char *sym_name(struct script_printer *pr, struct dso *dso, u64 addr)
{
	struct addr_location al = { .dso = dso, .addr = addr };

	script_resolve_symbol(pr, &al);
	return al.sym ? symbol__name(al.symtab, al.sym) : NULL;
}

/*
 * perf_sample__fprintf_callindent: the dso (when neither ip nor addr is printed), then the
 * function called (or begun in) or returned from (or ended in), indented by the calls open;
 * the width is kept across lines, as perf's static spacing does.
 */
static void print_callindent(struct script_printer *pr, const struct line_item *item, u32 fields)
{
	struct script *s = pr->s;
	u32 depth = item->call_depth + (item->flags & IP_FLAG_RETURN ? 1 : 0);
	struct outbuf *ob = &pr->out;
	const char *name = NULL;
	char num[32];
	u64 ip = 0;
	int len = 0;

	if (item->flags & (IP_FLAG_CALL | IP_FLAG_TRACE_BEGIN)) {
		if (!(name = sym_name(pr, item->addr_dso, item->addr_in_dso)))
			ip = item->sample_addr;
	} else if (item->flags & (IP_FLAG_RETURN | IP_FLAG_TRACE_END)) {
		if (!(name = sym_name(pr, item->dso, item->addr)))
			ip = item->ip;
	}
	if ((fields & SF_DSO) && !(fields & (SF_IP | SF_ADDR))) {	/* map__fprintf_dsoname */
		const char *dso = item->dso ? item->dso->long_name : "[unknown]";

		outbuf_putc(ob, '(');
		fmt_put_padded(ob, dso, strlen(dso), s->pad_dso, true);
		fmt_put_str(ob, ")\t");
	}
	if (name || ip) {
		if (!name) {
			snprintf(num, sizeof(num), "%16llx", (unsigned long long)ip);
			name = num;
		}
		len = (int)(depth * 4 + strlen(name));
		for (u32 i = 0; i < depth * 4; i++)
			outbuf_putc(ob, ' ');
		fmt_put_str(ob, name);
	}
	if (len > pr->callindent_spacing || (len && len < pr->callindent_spacing - 52))
		pr->callindent_spacing = (len + 4 + 31) / 32 * 32;
	for (; len < pr->callindent_spacing; len++)
		outbuf_putc(ob, ' ');
}

/* perf script's process_event for the fields above: a sample's line (and frames). */
static void print_line(struct script_printer *pr, const struct line_item *item)
{
	struct script *s = pr->s;
	struct evsel *evsel = item->evsel;
	u32 fields = s->f.fields[script_output_type(evsel->attr.type)];
	struct outbuf *ob = &pr->out;

	if (!fields)
		return;
	print_start(pr, evsel, item->comm, item->pid, item->tid, item->cpu, item->time,
		    &(struct perf_event_header){ .type = PERF_RECORD_SAMPLE, .misc = item->misc });
	if (fields & SF_PERIOD) {
		fmt_put_u64(ob, item->period, 10);
		outbuf_putc(ob, ' ');
	}
	if (fields & SF_EVNAME) {
		const char *name = evsel__name(evsel);

		name = name ? name : "[unknown]";
		fmt_put_padded(ob, name, strlen(name), s->name_width, false);
		fmt_put_str(ob, ": ");
	}
	if (fields & SF_FLAGS) {	/* perf_sample__fprintf_flags: "  %-21s " */
		char str[64];

		itrace_flags__format(item->flags, str, sizeof(str));
		fmt_put_str(ob, "  ");
		fmt_put_padded(ob, str, strlen(str), 21, true);
		outbuf_putc(ob, ' ');
	}
	if (is_bts_event(&evsel->attr)) {	/* perf_sample__fprintf_bts */
		if (fields & SF_CALLINDENT)
			print_callindent(pr, item, fields);
		if (fields & SF_IP) {
			outbuf_putc(ob, ' ');
			fmt_put_hex(ob, item->ip, 16);
			print_sym_dso(pr, item->dso, item->addr, fields);
		}
		if (bts_shows_addr(s, &evsel->attr)) {
			fmt_put_str(ob, " => ");
			fmt_put_hex(ob, item->sample_addr, 16);
			print_sym_dso(pr, item->addr_dso, item->addr_in_dso, fields);
		}
		if (fields & SF_IP)	/* the branch's source line last (print_srcline_last) */
			print_srcline(pr, item->dso, item->addr, fields);
		print_insn(pr, item, fields);
		outbuf_putc(ob, '\n');
		if (ob->error)
			__atomic_store_n(&s->stop, true, __ATOMIC_RELAXED);
		return;
	}
	if ((fields & SF_TRACE) && item->raw_data && evsel->attr.type == PERF_TYPE_TRACEPOINT &&
	    s->tf)	/* NULL only for a pipe's attr that came after its first sample */
		trace_fields__fprintf(s->tf, outbuf_stream(ob), evsel->attr.config, item->cpu,
				      item->raw_data, item->raw_size);
	if ((fields & SF_SYNTH) && item->synth[0]) {	/* perf_sample__fprintf_synth */
		size_t len = strlen(item->synth);

		fmt_put_str(ob, item->synth);
		for (; len < 34; len++)	/* perf_sample__fprintf_pt_spacing */
			outbuf_putc(ob, ' ');
	}
	if (fields & SF_ADDR) {	/* perf_sample__fprintf_addr */
		fmt_put_hex(ob, item->sample_addr, 16);
		if (addr_correlates_sym(&evsel->attr))
			print_sym_dso(pr, item->addr_dso, item->addr_in_dso, fields);
	}
	script_print_mem_early(pr, item, fields);
	if ((fields & SF_IP) && item->callchain) {
		outbuf_putc(ob, '\n');
		for (u32 i = 0; i < item->nr_frames; i++)	/* sample__fprintf_callchain */
			if (!print_frame(pr, &item->frames[i], fields, i >= item->first_unwound))
				break;
	} else if (fields & SF_IP) {
		outbuf_putc(ob, ' ');
		fmt_put_hex(ob, item->ip, 16);
		print_sym_dso(pr, item->dso, item->addr, fields);
		print_srcline(pr, item->dso, item->addr, fields);
	}
	if (item->nr_branches)
		script_print_branches(pr, item, fields);
	/*
	 * perf prints a bpf-output event's raw data under it (a software event's default field
	 * bpf-output): with none, that is one empty line. Raw data itself is not shown yet.
	 * (Printed for software events only: the field is invalid for the other types.)
	 */
	if ((fields & SF_BPF_OUTPUT) && evsel->attr.type == PERF_TYPE_SOFTWARE &&
	    evsel->attr.config == PERF_COUNT_SW_BPF_OUTPUT)
		outbuf_putc(ob, '\n');
	print_insn(pr, item, fields);
	script_print_mem_late(pr, item, fields);
	outbuf_putc(ob, '\n');
	if (ob->error)
		__atomic_store_n(&s->stop, true, __ATOMIC_RELAXED);
}

/*
 * A sample's line, in its event's file with --per-event-dump: that file's outbuf takes the
 * place of the printer's for the line. (An outbuf's stream, made on first use, writes to the
 * place it was made at: each file's is made and used only there.)
 */
void script_print_line(struct script_printer *pr, const struct line_item *item)
{
	struct script *s = pr->s;
	struct event_dump *d;
	struct outbuf out;

	if (!s->event_dumps || item->evsel->idx >= (int)s->session.nr_evsels) {
		print_line(pr, item);
		return;
	}
	d = &s->event_dumps[item->evsel->idx];
	out = pr->out;
	pr->out = d->out;
	print_line(pr, item);
	d->out = pr->out;
	pr->out = out;
	d->samples += !!s->f.fields[script_output_type(item->evsel->attr.type)];
}

int script_event_dumps__open(struct script *s, const char *input)
{
	s->event_dumps = xcalloc(s->session.nr_evsels, sizeof(*s->event_dumps));
	for (size_t i = 0; i < s->session.nr_evsels; i++) {
		struct event_dump *d = &s->event_dumps[i];
		const char *name = evsel__name(&s->session.evsels[i]);
		int fd;

		d->path = xasprintf("%s.%s.dump", input, name ? name : "[unknown]");
		fd = open(d->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
		if (fd < 0) {
			fprintf(stderr, "analyze script: %s: %s\n", d->path, strerror(errno));
			return -1;
		}
		outbuf_init(&d->out, fd, 64 << 10);
	}
	return 0;
}

/*
 * perf's evsel_script__fprintf: the size it gives is what its FILE had written when it
 * looked, before its last flush: whole blocks of the file's st_blksize (glibc's buffer).
 */
void script_event_dumps__close(struct script *s)
{
	FILE *fp = outbuf_stream(&s->pr.out);

	if (!s->event_dumps)
		return;
	for (size_t i = 0; i < s->session.nr_evsels; i++) {
		struct event_dump *d = &s->event_dumps[i];
		struct stat st;
		u64 size = 0;

		if (d->path && d->out.buf) {
			int fd = d->out.fd;

			outbuf_exit(&d->out);
			if (!fstat(fd, &st) && st.st_blksize > 0)
				size = (u64)st.st_size / (u64)st.st_blksize * (u64)st.st_blksize;
			close(fd);
			fprintf(fp, "[ perf script: Wrote %.3f MB %s (%" PRIu64 " samples) ]\n",
				(double)size / 1024.0 / 1024.0, d->path, d->samples);
		}
		free(d->path);
	}
	free(s->event_dumps);
	s->event_dumps = NULL;
}

/* perf's perf_event__fprintf for the side-band records script shows. */
static void print_record(struct script_printer *pr, const struct perf_event_header *ev)
{
	const struct perf_record_lost *lost = (const void *)ev;

	outbuf_puts(&pr->out, "PERF_RECORD_");
	outbuf_puts(&pr->out, perf_event__name(ev->type));
	/* -D's LOST details are the tool's (": id:...: lost:..."); perf_event__fprintf's: */
	if (ev->type == PERF_RECORD_LOST)
		fprintf(outbuf_stream(&pr->out), " lost %" PRIu64 "\n",
			ev->size >= sizeof(*lost) ? lost->lost : 0);
	else
		dump_fprintf_details(outbuf_stream(&pr->out), ev);
}

/*
 * perf's print_event_with_time: the start of a line as for a sample of the record's event
 * (none when the record maps to no event), the comm of the record's thread, then the record.
 * Without sample_id_all, the record's own pid, tid and time (fork, exit) stand in.
 */
void script_print_sideband(struct script *s, struct event_ctx *ctx, s32 pid, s32 tid, u64 time)
{
	struct evsel *evsel = ctx->evsel;
	struct perf_sample sample = ctx->sample;
	struct thread *t = NULL;

	if (!evsel && s->session.nr_evsels == 1)
		evsel = &s->session.evsels[0];	/* perf's evlist__id2evsel */
	if (evsel && !evsel->attr.sample_id_all) {
		sample.cpu = 0;
		sample.time = time;
		sample.pid = (u32)pid;
		sample.tid = (u32)tid;
	}
	if (!cpu_list__has(&s->cpus, sample.cpu))
		return;
	if (tid != -1)
		t = machine__findnew_thread(&s->machine, pid, tid);
	script_sync(s);
	if (evsel)
		print_start(&s->pr, evsel, t ? thread__comm_str(t) : ":-1", sample.pid, sample.tid,
			    sample.cpu, sample.time, ctx->event);
	print_record(&s->pr, ctx->event);
	thread__put(t);
}

/* perf_event__fprintf_auxtrace_error, on stdout as perf script prints it */
void script_print_auxtrace_error(struct script *s, u32 type, const struct itrace_error *e,
				 u64 time, bool fmt)
{
	FILE *fp;

	script_sync(s);
	fp = outbuf_stream(&s->pr.out);
	fprintf(fp, " %s error type %u", type == 1 ? "instruction trace" : "unknown AUX", type);
	if (fmt && time)
		fprintf(fp, " time %" PRIu64 ".%09" PRIu64, time / 1000000000, time % 1000000000);
	else
		fputs(" time 0", fp);
	fprintf(fp, " cpu %d pid %d tid %d ip %#" PRIx64 " code %u: %s\n", e->cpu, e->pid, e->tid,
		e->ip, e->code, e->msg);
	if (type == 1)
		s->nr_itrace_errors++;
}

