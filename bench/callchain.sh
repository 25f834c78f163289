#!/usr/bin/env bash
# Call graphs (issue 6): a system-wide -g recording of the busy load (perf record -a -g
# -F 20000 -e cpu-clock, BENCH_SECONDS long, default 25 s: about a million samples, made into
# bench/out/, never committed; BENCH_REUSE=1 keeps it), perf report --stdio against analyze
# report in its default children view with call graphs, and both with -g folded; then the
# same recording made while this project is compiled over and over (gcc's deep and varied
# stacks, without frame pointers: far more distinct chains a sample), its default report.
# The best of BENCH_RUNS runs (default 3) of each, perf's and analyze's in turn, wall time
# and peak RSS from tools/timeit. Checks that the outputs are identical but for perf's random
# tip line and writes the section "## Call graphs (issue 6)" of bench/RESULTS.md (replacing
# that section only).
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=bench/out
SECONDS_TO_RECORD=${BENCH_SECONDS:-25}
RUNS=${BENCH_RUNS:-3}
mkdir -p "$WORK"
# shellcheck source=bench/lib.sh
. bench/lib.sh

FILE=$WORK/sysw-g.data
record "$FILE" -a -g -F 20000 -e cpu-clock
WARM=$FILE	# read before every run (lib.sh)

read -r p1_t p1_m a1_t a1_m < <(best_pair "$RUNS" "$WORK/perf-g.txt" "$WORK/analyze-g.txt" \
	perf report -i "$FILE" --stdio ::: "$ANALYZE" report -i "$FILE")
same1=$(same "$WORK/perf-g.txt" "$WORK/analyze-g.txt")
read -r p2_t p2_m a2_t a2_m < <(best_pair "$RUNS" "$WORK/perf-folded.txt" \
	"$WORK/analyze-folded.txt" perf report -i "$FILE" --stdio -g folded \
	::: "$ANALYZE" report -i "$FILE" -g folded)
same2=$(same "$WORK/perf-folded.txt" "$WORK/analyze-folded.txt")

# the compile: make of this tree into a scratch build folder, again and again
CFILE=$WORK/compile-g.data
if [ "${BENCH_REUSE:-0}" != 1 ] || [ ! -e "$CFILE" ]; then
	echo "bench: recording $SECONDS_TO_RECORD s of compiles into $CFILE" >&2
	rm -rf "$CFILE"
	perf record -q -a -g -F 20000 -e cpu-clock -o "$CFILE" -- bash -c "end=\$((SECONDS + $SECONDS_TO_RECORD)); while [ \$SECONDS -lt \$end ]; do rm -rf $WORK/cc-build; make O=$WORK/cc-build -j$(nproc) all >/dev/null 2>&1 || true; done" \
		>/dev/null 2>"$WORK/record.log" || { cat "$WORK/record.log" >&2; exit 1; }
	rm -rf "$WORK/cc-build"
fi
WARM=$CFILE
read -r p3_t p3_m a3_t a3_m < <(best_pair "$RUNS" "$WORK/perf-cc.txt" "$WORK/analyze-cc.txt" \
	perf report -i "$CFILE" --stdio ::: "$ANALYZE" report -i "$CFILE")
same3=$(same "$WORK/perf-cc.txt" "$WORK/analyze-cc.txt")

row() {	# LABEL PERF-TIME PERF-KB ANALYZE-TIME ANALYZE-KB SAME
	echo "| $1 | $2 s, $(($3 / 1024)) MB | $4 s, $(($5 / 1024)) MB | $(ratio "$2" "$4")x | $(ratio "$3" "$5")x less | $6 |"
}
section=$(mktemp)
cat >"$section" <<MD
## Call graphs (issue 6)

Made by bench/callchain.sh on $(date -u +%Y-%m-%d), $(nproc) CPUs, perf $(perf version | awk '{print $3}').
Input: ${SECONDS_TO_RECORD} s of \`perf record -a -g -F 20000 -e cpu-clock\` of the busy mix on every
CPU, $(size_mb "$FILE") MB, $(samples "$FILE") samples. Best of ${RUNS} runs, perf's and
analyze's in turn, each after the file was read into the page cache; wall time and peak RSS
from tools/timeit. "same": the outputs are identical but for perf's random tip line.

| command | perf 6.1 | analyze | faster | memory | same |
| --- | --- | --- | --- | --- | --- |
$(row '`report --stdio` (children, graph)' "$p1_t" "$p1_m" "$a1_t" "$a1_m" "$same1")
$(row '`report --stdio -g folded`' "$p2_t" "$p2_m" "$a2_t" "$a2_m" "$same2")

The compile recording: ${SECONDS_TO_RECORD} s of the same \`perf record\` while this project was
built with \`make -j$(nproc)\` over and over, $(size_mb "$CFILE") MB, $(samples "$CFILE") samples.

| command | perf 6.1 | analyze | faster | memory | same |
| --- | --- | --- | --- | --- | --- |
$(row '`report --stdio` (children, graph)' "$p3_t" "$p3_m" "$a3_t" "$a3_m" "$same3")

Target: at least 10x faster than perf 6.1 with at most 1/10 of its peak RSS.

MD
replace_section bench/RESULTS.md "## Call graphs (issue 6)" "$section"
cat "$section"
rm -f "$section"
