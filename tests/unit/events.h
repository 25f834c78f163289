/*
 * Side-band records for unit tests of the model: each builds one record and feeds it to
 * machine__process_event(), asserting it is accepted. time 0: untimed.
 */
#ifndef TESTS_UNIT_EVENTS_H
#define TESTS_UNIT_EVENTS_H

#include <criterion/criterion.h>
#include <string.h>

#include "machine/machine.h"

/* FORK or EXIT (same layout). */
static inline void put_task(struct machine *m, u32 type, u32 pid, u32 ppid, u32 tid, u32 ptid,
			    u64 time)
{
	struct perf_record_fork ev = {
		.header = { .type = type, .size = sizeof(ev) },
		.pid = pid, .ppid = ppid, .tid = tid, .ptid = ptid, .time = time,
	};

	cr_assert_eq(machine__process_event(m, &ev.header, time), 0);
}

static inline void put_fork(struct machine *m, u32 pid, u32 ppid, u32 tid, u32 ptid)
{
	put_task(m, PERF_RECORD_FORK, pid, ppid, tid, ptid, 0);
}

static inline void put_comm_at(struct machine *m, u32 pid, u32 tid, const char *comm, u64 time)
{
	struct {
		struct perf_record_comm c;
		char buf[32];
	} ev = { 0 };

	ev.c.header.type = PERF_RECORD_COMM;
	ev.c.header.size = sizeof(ev);
	ev.c.pid = pid;
	ev.c.tid = tid;
	strcpy(ev.c.comm, comm);
	cr_assert_eq(machine__process_event(m, &ev.c.header, time), 0);
}

static inline void put_comm(struct machine *m, u32 pid, u32 tid, const char *comm)
{
	put_comm_at(m, pid, tid, comm, 0);
}

/* A user-space MMAP of the whole process (pid == tid). */
static inline void put_mmap(struct machine *m, u32 pid, u64 start, u64 len, const char *name)
{
	struct {
		struct perf_record_mmap mm;
		char buf[64];
	} ev = { 0 };

	ev.mm.header.type = PERF_RECORD_MMAP;
	ev.mm.header.misc = PERF_RECORD_MISC_USER;
	ev.mm.header.size = sizeof(ev);
	ev.mm.pid = ev.mm.tid = pid;
	ev.mm.start = start;
	ev.mm.len = len;
	strcpy(ev.mm.filename, name);
	cr_assert_eq(machine__process_event(m, &ev.mm.header, 0), 0);
}

#endif
