#!/usr/bin/env bash
# Intel PT (issue 8): a generated PT trace of the bts fixture workload (tests/fixtures/src/bts.c,
# built into bench/out/pt/, never committed), written by tools/gen-auxtrace --pt: buffers of
# BENCH_PT_BUFFER_MB (default 4) MB, each a PSB+ and a run of main's loop whose returns are
# TIPs, BENCH_PT_MB (default 100) MB in all, and a quarter of that for the memory comparison.
# Times `perf script --itrace=b > /dev/null` against `analyze script --itrace=b > /dev/null`,
# the best of BENCH_RUNS runs (default 3, perf's and analyze's in turn), wall time and peak
# RSS from tools/timeit; checks on a 1 MB trace that the two print the same lines. Writes the section "## Intel PT (issue
# 8)" of bench/RESULTS.md (replacing that section only).
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=bench/out/pt
RUNS=${BENCH_RUNS:-3}
MB=${BENCH_PT_MB:-100}
BUF_MB=${BENCH_PT_BUFFER_MB:-4}
GEN=${GEN:-build/tools/gen-auxtrace}
mkdir -p "$WORK"
# shellcheck source=bench/lib.sh
. bench/lib.sh

cc -O1 -g -fno-omit-frame-pointer -no-pie -o "$WORK/bts" tests/fixtures/src/bts.c
BIN=$(cd "$WORK" && pwd)/bts

# script MB: gen-auxtrace's script of MB megabytes of trace in BUF_MB buffers
script() {
	python3 - "$BIN" "$1" "$BUF_MB" tests/fixtures/src <<'PY'
import sys
binary, mb, buf_mb = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[4])
import bts_disasm
b = bts_disasm.Binary(binary)
funcs, find, after, bid = b.funcs, b.find, b.after, b.build_id
call_twice = find('main', 'call', '<twice>')[0]
calls_leaf = find('twice', 'call', '<leaf>')
rets = [after('twice', c) for c in calls_leaf] + [after('main', call_twice)]
iteration = ['tip %x' % r for r in rets]   # 3 TIPs of 7 bytes and a TNT: 22 bytes
buf_mb = min(buf_mb, mb)
per_buffer = buf_mb * 1024 * 1024 // 22
L = ['thread 4242 4242', 'comm bts', 'mmap 401000 1000 1000 %s %s' % (bid, binary),
     'itrace_start']
t = 1000000000
for b in range(max(1, mb // buf_mb)):
    t += 1000000
    L += ['psb', 'time %d' % t, 'tsc', 'cbr 24', 'mode64', 'psbend', 'mode64',
          'tip.pge %x' % funcs['main'][0][0], 'tnt 0', 'mark'] + iteration + ['tnt 1',
          'repeat %d' % (per_buffer - 1)] + iteration + ['tnt 0', 'tip.pgd 7f0000029d90',
          'time %d' % (t + 500000), 'buffer 0 -1', 'round']
L += ['exit']
print('\n'.join(L))
PY
}

# make MB FILE
make_trace() {
	if [ "${BENCH_REUSE:-0}" = 1 ] && [ -e "$2" ]; then return; fi
	echo "bench: writing a ${1} MB PT trace into $2" >&2
	script "$1" >"$WORK/script.txt"
	"$GEN" --pt -o "$2" "$WORK/script.txt"
}

make_trace 1 "$WORK/pt-1.data"
perf script -i "$WORK/pt-1.data" --itrace=b >"$WORK/perf-1.txt" 2>/dev/null
"$ANALYZE" script -i "$WORK/pt-1.data" --itrace=b >"$WORK/analyze-1.txt" 2>/dev/null
same1=$(same "$WORK/perf-1.txt" "$WORK/analyze-1.txt")

SMALL=$((MB / 4 > 0 ? MB / 4 : 1))
make_trace "$SMALL" "$WORK/pt-small.data"
make_trace "$MB" "$WORK/pt.data"
WARM=$WORK/pt-small.data	# read before every run (lib.sh)
read -r ps_t ps_m as_t as_m < <(best_pair "$RUNS" /dev/null /dev/null \
	perf script -i "$WORK/pt-small.data" --itrace=b ::: \
	"$ANALYZE" script -i "$WORK/pt-small.data" --itrace=b)
WARM=$WORK/pt.data
read -r p_t p_m a_t a_m < <(best_pair "$RUNS" /dev/null /dev/null \
	perf script -i "$WORK/pt.data" --itrace=b ::: "$ANALYZE" script -i "$WORK/pt.data" --itrace=b)
lines=$(wc -l <"$WORK/analyze-1.txt")

row() {	# LABEL PERF-TIME PERF-KB ANALYZE-TIME ANALYZE-KB
	echo "| $1 | $2 s, $(($3 / 1024)) MB | $4 s, $(($5 / 1024)) MB | $(ratio "$2" "$4")x | $(ratio "$3" "$5")x less |"
}
section=$(mktemp)
cat >"$section" <<MD
## Intel PT (issue 8)

Made by bench/pt.sh on $(date -u +%Y-%m-%d), $(nproc) CPUs, perf $(perf version | awk '{print $3}').
Input: Intel PT traces written by tools/gen-auxtrace --pt (libipt's encoder) of the bts
fixture workload's loop, returns as TIPs, in ${BUF_MB} MB buffers: $(size_mb "$WORK/pt.data") MB and
$(size_mb "$WORK/pt-small.data") MB files (a 1 MB trace makes ${lines} branch samples). Best of ${RUNS} runs of
\`script --itrace=b > /dev/null\`; wall time and peak RSS from tools/timeit. Same lines as perf
on the 1 MB trace: ${same1}.

| input | perf 6.1 | analyze | faster | memory |
| --- | --- | --- | --- | --- |
$(row "${MB} MB of trace" "$p_t" "$p_m" "$a_t" "$a_m")
$(row "${SMALL} MB of trace" "$ps_t" "$ps_m" "$as_t" "$as_m")

Target: at least 3x faster than perf 6.1, peak RSS independent of the trace size.

MD
replace_section bench/RESULTS.md "## Intel PT (issue 8)" "$section"
cat "$section"
rm -f "$section"
