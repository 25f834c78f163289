/*
 * data_src: perf 6.1's words for a PERF_SAMPLE_DATA_SRC (mem-events.c), for script's
 * data_src field and report's memory keys.
 */
#include "readers/decode/data_src.h"

#include <stdarg.h>
#include <stdio.h>

#include "lib/compiler.h"

/* perf's scnprintf: what fits of the text in size bytes, the length written */
__attribute__((format(printf, 3, 4))) static size_t scn(char *buf, size_t size, const char *fmt,
							  ...)
{
	va_list ap;
	int n;

	if (!size)
		return 0;
	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n < 0 ? 0 : MIN((size_t)n, size - 1);
}

/* the room left after l of sz, never "negative" */
#define LEFT(sz, l) ((l) < (sz) ? (sz) - (l) : 0)

/*
 * The names of the bits set in m (bit i: names[i]) after out[0..l), " or " between them.
 * perf puts " or " with strcat, unchecked: where that differs from this, perf writes past
 * its buffer (a data source no PMU gives, with many bits of a field set).
 */
static size_t bit_names(char *out, size_t sz, size_t l, u64 m, const char *const *names,
			size_t nr)
{
	for (size_t i = 0; m && i < nr; i++, m >>= 1) {
		if (!(m & 1))
			continue;
		if (l)
			l += scn(out + l, LEFT(sz, l), " or ");
		l += scn(out + l, LEFT(sz, l), "%s", names[i]);
	}
	return l;
}

/*
 * perf 6.1's perf_mem__lvl_scnprintf: "Remote ", then the hops or else the level bits, the
 * level number after " or ", "N/A" for nothing, then hit or miss.
 */
size_t data_src__lvl(char *out, size_t sz, u64 d)
{
	static const char *const lvl[] = { "N/A", "HIT", "MISS", "L1", "LFB/MAB", "L2", "L3",
					   "Local RAM", "Remote RAM (1 hop)", "Remote RAM (2 hops)",
					   "Remote Cache (1 hop)", "Remote Cache (2 hops)", "I/O",
					   "Uncached" };
	static const char *const lvlnum[16] = { [0x9] = "CXL", [0xa] = "I/O",
						[0xb] = "Any cache", [0xc] = "LFB/MAB",
						[0xd] = "RAM", [0xe] = "PMEM", [0xf] = "N/A" };
	static const char *const hops[] = { "N/A", "core, same node", "node, same socket",
					    "socket, same board", "board" };
	u64 m = DS_LVL(d), n = DS_LVL_NUM(d);
	size_t l = 0, printed = 0;

	sz -= 1;
	out[0] = '\0';
	if (DS_REMOTE(d))
		l += scn(out, sz, "Remote ");
	if (DS_HOPS(d)) {
		l += scn(out + l, LEFT(sz, l), "%s ",
			 DS_HOPS(d) < ARRAY_SIZE(hops) ? hops[DS_HOPS(d)] : "");
	} else {	/* (" or " between levels only: "Remote " is not one) */
		printed = bit_names(out + l, LEFT(sz, l), 0,
				    m & ~(u64)(PERF_MEM_LVL_HIT | PERF_MEM_LVL_MISS), lvl,
				    ARRAY_SIZE(lvl));
		l += printed;
	}
	if (n) {
		if (printed)
			l += scn(out + l, LEFT(sz, l), " or ");
		if (lvlnum[n])
			l += scn(out + l, LEFT(sz, l), "%s", lvlnum[n]);
		else
			l += scn(out + l, LEFT(sz, l), "L%d", (int)n);
	}
	if (!l)
		l += scn(out + l, LEFT(sz, l), "N/A");
	if (m & PERF_MEM_LVL_HIT)
		l += scn(out + l, LEFT(sz, l), " hit");
	if (m & PERF_MEM_LVL_MISS)
		l += scn(out + l, LEFT(sz, l), " miss");
	return l;
}

/* perf_mem__snp_scnprintf: the snoop bits, then snoopx's, "N/A" for none */
size_t data_src__snoop(char *out, size_t sz, u64 d)
{
	static const char *const snoop[] = { "N/A", "None", "Hit", "Miss", "HitM" };
	static const char *const snoopx[] = { "Fwd" };
	size_t l;

	sz -= 1;
	out[0] = '\0';
	l = bit_names(out, sz, 0, DS_SNOOP(d), snoop, ARRAY_SIZE(snoop));
	l = bit_names(out, sz, l, DS_SNOOPX(d), snoopx, ARRAY_SIZE(snoopx));
	if (!out[0])
		l += scn(out, LEFT(sz, l), "N/A");
	return l;
}

/* perf_mem__tlb_scnprintf: the TLB bits but hit and miss, "N/A" for none, then those */
size_t data_src__tlb(char *out, size_t sz, u64 d)
{
	static const char *const tlb[] = { "N/A", "HIT", "MISS", "L1", "L2", "Walker", "Fault" };
	u64 m = DS_DTLB(d);
	size_t l;

	sz -= 1;
	out[0] = '\0';
	l = bit_names(out, sz, 0, m & ~(u64)(PERF_MEM_TLB_HIT | PERF_MEM_TLB_MISS), tlb,
		      ARRAY_SIZE(tlb));
	if (!out[0])
		l += scn(out, LEFT(sz, l), "N/A");
	if (m & PERF_MEM_TLB_HIT)
		l += scn(out + l, LEFT(sz, l), " hit");
	if (m & PERF_MEM_TLB_MISS)
		l += scn(out + l, LEFT(sz, l), " miss");
	return l;
}

size_t data_src__blk(char *out, size_t sz, u64 d)
{
	u64 blk = DS_BLK(d);
	size_t l = 0;

	sz -= 1;	/* perf's, for the nul */
	out[0] = '\0';
	if (!blk || (blk & PERF_MEM_BLK_NA))
		return scn(out, sz, " N/A");
	if (blk & PERF_MEM_BLK_DATA)
		l += scn(out + l, LEFT(sz, l), " Data");
	if (blk & PERF_MEM_BLK_ADDR)
		l += scn(out + l, LEFT(sz, l), " Addr");
	return l;
}

const char *data_src__lock(u64 d)
{
	u64 lock = DS_LOCK(d);

	return lock & PERF_MEM_LOCK_NA ? "N/A" : lock & PERF_MEM_LOCK_LOCKED ? "Yes" : "No";
}

size_t page_size__name(char *out, size_t sz, u64 size)
{
	static const char units[] = "BKMG";
	int u = 0;

	if (!size)
		return scn(out, sz, "N/A");
	for (; size / 1024 > 1 && u < 3; u++)	/* unit_number__scnprintf */
		size /= 1024;
	return scn(out, sz, "%llu%c", (unsigned long long)size, units[u]);
}

/*
 * perf_script__meminfo_scnprintf: "|OP ...|LVL ...|SNP ...|TLB ...|LCK ...|BLK ..." in sz
 * bytes, each part in what is left but the level's, given all sz as perf gives it (out has
 * room for that: twice sz).
 */
size_t data_src__meminfo(char *out, size_t sz, u64 d)
{
	u64 op = d & 0x1f;	/* perf_mem_data_src's mem_op */
	size_t i = 0;

	i += scn(out + i, LEFT(sz, i), "|OP ");
	i += scn(out + i, LEFT(sz, i), "%s",
		 op & PERF_MEM_OP_NA ? "N/A" : op & PERF_MEM_OP_LOAD ? "LOAD"
		 : op & PERF_MEM_OP_STORE ? "STORE" : op & PERF_MEM_OP_PFETCH ? "PFETCH"
		 : op & PERF_MEM_OP_EXEC ? "EXEC" : "No");
	i += scn(out + i, LEFT(sz, i), "|LVL ");
	i += data_src__lvl(out + i, sz, d);
	i += scn(out + i, LEFT(sz, i), "|SNP ");
	if (LEFT(sz, i))
		i += data_src__snoop(out + i, sz - i, d);
	i += scn(out + i, LEFT(sz, i), "|TLB ");
	if (LEFT(sz, i))
		i += data_src__tlb(out + i, sz - i, d);
	i += scn(out + i, LEFT(sz, i), "|LCK ");
	i += scn(out + i, LEFT(sz, i), "%s", data_src__lock(d));
	i += scn(out + i, LEFT(sz, i), "|BLK ");
	if (LEFT(sz, i) > 1)
		i += data_src__blk(out + i, sz - i, d);
	return i;
}
