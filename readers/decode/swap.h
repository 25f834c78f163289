/*
 * swap: conversion of opposite-endian perf.data contents to native order, in place, and
 * back (the fixture tool that writes an opposite-endian copy uses to_native = false).
 * Follows perf's rules (session.c perf_event__*_swap, header.c): u64 words swapped whole,
 * u32 pairs swapped per half, strings left alone, attr bitfields bit-reversed per byte.
 */
#ifndef READERS_SWAP_H
#define READERS_SWAP_H

#include "lib/compiler.h"
#include "readers/format.h"

void swap_file_header(struct perf_file_header *header);
void swap_file_section(struct perf_file_section *section);
/* An attr of `size` bytes as stored in the file (size may differ from sizeof). */
void swap_attr(void *attr, size_t size);
/* The same with a direction: to_native false converts a native attr to the other order. */
void swap_attr_dir(void *attr, size_t size, bool to_native);
void swap_event_header(struct perf_event_header *header);

/* Bytes of the sample_id_all trailer for a sample_type. */
size_t swap_trailer_size(u64 sample_type);

/* One branch_entry flags word (perf's bitfield mirror plus u64 swap), either direction. */
u64 swap_branch_flags(u64 value, bool to_native);

/*
 * Swap one record's body (its header already converted to native order when to_native, still
 * native when !to_native). attr is the record's attr (NULL when none is known: then only the
 * generic u64 swap is done). Returns 0, or -1 when the record is malformed.
 */
int swap_event_body(struct perf_event_header *event, const struct perf_event_attr *attr,
		    bool to_native);

/* Swap a feature section's contents (feat is the HEADER_* bit). */
int swap_feature(int feat, void *data, size_t size, bool to_native);

#endif
