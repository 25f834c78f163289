/*
 * data_src: a sample's PERF_SAMPLE_DATA_SRC (perf_event.h's perf_mem_data_src) as perf 6.1
 * words it (mem-events.c's perf_mem__*_scnprintf): what script's data_src field and report's
 * memory keys print. Pure functions of the word; each writes at most sz - 1 characters (and
 * the terminating nul) and returns how many it wrote.
 */
#ifndef READERS_DATA_SRC_H
#define READERS_DATA_SRC_H

#include <stddef.h>

#include "readers/format.h"

/* perf_mem_data_src's fields */
#define DS_OP(d) ((d) & 0x1f)
#define DS_LVL(d) (((d) >> 5) & 0x3fff)
#define DS_SNOOP(d) (((d) >> 19) & 0x1f)
#define DS_LOCK(d) (((d) >> 24) & 0x3)
#define DS_DTLB(d) (((d) >> 26) & 0x7f)
#define DS_LVL_NUM(d) (((d) >> 33) & 0xf)
#define DS_REMOTE(d) (((d) >> 37) & 0x1)
#define DS_SNOOPX(d) (((d) >> 38) & 0x3)
#define DS_BLK(d) (((d) >> 40) & 0x7)
#define DS_HOPS(d) (((d) >> 43) & 0x7)

/* perf_mem__lvl_scnprintf: the level, "Remote ", hops, hit or miss */
size_t data_src__lvl(char *out, size_t sz, u64 d);
/* perf_mem__snp_scnprintf */
size_t data_src__snoop(char *out, size_t sz, u64 d);
/* perf_mem__tlb_scnprintf */
size_t data_src__tlb(char *out, size_t sz, u64 d);
/* perf_mem__blk_scnprintf: " N/A", or " Data" and " Addr" */
size_t data_src__blk(char *out, size_t sz, u64 d);
/* perf_mem__lck_scnprintf's word: "N/A", "Yes" or "No" */
const char *data_src__lock(u64 d);
/*
 * perf_script__meminfo_scnprintf: "|OP ...|LVL ...|SNP ...|TLB ...|LCK ...|BLK ..." in sz
 * bytes, each part in what is left but the level's, given all sz as perf gives it (out needs
 * room for that: twice sz).
 */
size_t data_src__meminfo(char *out, size_t sz, u64 d);
/* perf's get_page_size_name of a page size: "4K", "2M"..., "N/A" for 0 */
size_t page_size__name(char *out, size_t sz, u64 size);

#endif
