/*
 * dump_internal: what the pieces of the raw dump share. dump.c owns the hex dump and the
 * records' decoded lines; dump_sample.c a sample's; dump_consumer.c when each record is
 * printed and what is forwarded. Not for use outside analyzer/output/.
 */
#ifndef ANALYZER_DUMP_INTERNAL_H
#define ANALYZER_DUMP_INTERNAL_H

#include <stdio.h>
#include <string.h>

#include "analyzer/output/dump.h"

/* A record's body past the header, or NULL when it is shorter than `need` bytes. */
static inline const u8 *body(const struct perf_event_header *event, size_t need)
{
	if (event->size < sizeof(*event) + need)
		return NULL;
	return (const u8 *)(event + 1);
}

static inline u64 get_u64(const u8 *p)
{
	u64 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline u32 get_u32(const u8 *p)
{
	u32 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline u16 get_u16(const u8 *p)
{
	u16 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* A string field of a record, bounded by the record's end. */
static inline int str_len(const struct perf_event_header *event, const char *s)
{
	const char *end = (const char *)event + event->size;
	const char *nul;

	if (s >= end)
		return 0;
	nul = memchr(s, '\0', end - s);
	return (int)((nul ? nul : end) - s);
}

/* THREAD_MAP's and CPU_MAP's lines (perf script's tool prints them without ": unhandled!") */
void dump_fprintf_thread_map(FILE *fp, const struct perf_event_header *event);
void dump_fprintf_cpu_map(FILE *fp, const struct perf_event_header *event);

#endif
