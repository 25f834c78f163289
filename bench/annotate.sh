#!/usr/bin/env bash
# annotate (issue 28): perf annotate --stdio against analyze annotate --stdio on bench/run.sh's
# system-wide recording (bench/out/sysw.data: perf record -a -F 20000 -e cpu-clock of the busy
# mix, BENCH_SECONDS long, default 25 s; made here when missing, kept with BENCH_REUSE=1) and
# on a short one of the same load (BENCH_SHORT_SECONDS, default 2 s: some 150 sampled
# symbols). perf runs objdump once a symbol and takes minutes on the long one: BENCH_RUNS
# (default 1) runs of each, perf's and analyze's in turn, wall time and peak RSS from
# tools/timeit. "same": the outputs identical; else how many lines differ (perf shows the
# source text objdump -S finds on this host, analyze annotate none yet). Writes the section
# "## Annotate (issue 28)" of bench/RESULTS.md (replacing that section only).
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=bench/out
SECONDS_TO_RECORD=${BENCH_SECONDS:-25}
RUNS=${BENCH_RUNS:-1}
mkdir -p "$WORK"
# shellcheck source=bench/lib.sh
. bench/lib.sh

FILE=$WORK/sysw.data
record "$FILE" -a -F 20000 -e cpu-clock
SHORT=$WORK/sysw-short.data
SECONDS_TO_RECORD=${BENCH_SHORT_SECONDS:-2} record "$SHORT" -a -F 20000 -e cpu-clock

# same OUT-A OUT-B: "yes", or the number of lines of either that the other lacks
differ() {
	if cmp -s "$1" "$2"; then echo yes; else echo "no, $(diff "$1" "$2" | grep -c '^[<>]') lines"; fi
}
symbols() { grep -c '^ Percent |' "$1" || true; }

WARM=$FILE
read -r p1_t p1_m a1_t a1_m < <(best_pair "$RUNS" "$WORK/perf-ann.txt" "$WORK/analyze-ann.txt" \
	perf annotate -i "$FILE" --stdio ::: "$ANALYZE" annotate -i "$FILE" --stdio)
same1=$(differ "$WORK/perf-ann.txt" "$WORK/analyze-ann.txt")
syms1=$(symbols "$WORK/perf-ann.txt")
WARM=$SHORT
read -r p2_t p2_m a2_t a2_m < <(best_pair "$RUNS" "$WORK/perf-ann-short.txt" \
	"$WORK/analyze-ann-short.txt" perf annotate -i "$SHORT" --stdio \
	::: "$ANALYZE" annotate -i "$SHORT" --stdio)
same2=$(differ "$WORK/perf-ann-short.txt" "$WORK/analyze-ann-short.txt")
syms2=$(symbols "$WORK/perf-ann-short.txt")

row() {	# LABEL PERF-TIME PERF-KB ANALYZE-TIME ANALYZE-KB SAME
	echo "| $1 | $2 s, $(($3 / 1024)) MB | $4 s, $(($5 / 1024)) MB | $(ratio "$2" "$4")x | $(ratio "$3" "$5")x less | $6 |"
}
section=$(mktemp)
cat >"$section" <<MD
## Annotate (issue 28)

Made by bench/annotate.sh on $(date -u +%Y-%m-%d), $(nproc) CPUs, perf $(perf version | awk '{print $3}'), $(load_note).
Inputs: bench/run.sh's ${BENCH_SECONDS:-25} s system-wide recording, $(size_mb "$FILE") MB, $(samples "$FILE")
samples, $syms1 symbols annotated; and ${BENCH_SHORT_SECONDS:-2} s of the same load, $(size_mb "$SHORT") MB,
$(samples "$SHORT") samples, $syms2 symbols. Best of ${RUNS} run(s), perf's and analyze's in
turn, each after the file was read into the page cache; wall time and peak RSS from
tools/timeit. "same": identical outputs (perf prints the source text objdump -S finds on this
host; analyze annotate does not yet).

| command | perf 6.1 | analyze | faster | memory | same |
| --- | --- | --- | --- | --- | --- |
$(row "\`annotate --stdio\`, ${BENCH_SECONDS:-25} s" "$p1_t" "$p1_m" "$a1_t" "$a1_m" "$same1")
$(row "\`annotate --stdio\`, ${BENCH_SHORT_SECONDS:-2} s" "$p2_t" "$p2_m" "$a2_t" "$a2_m" "$same2")

Targets: at least 50x faster on the long recording with at most half perf's peak RSS, 30x on
the short one.

MD
replace_section bench/RESULTS.md "## Annotate (issue 28)" "$section"
cat "$section"
rm -f "$section"
