#!/usr/bin/env bash
# DWARF unwinding (issue 6): a `perf record --call-graph dwarf` recording (made on demand under
# bench/out/dwarf/, never committed) of tests/fixtures/src/deep.c and a compressor/sort load
# with real libraries on every CPU; perf script against analyze script and perf report
# --no-children against analyze's on it, the best of BENCH_RUNS runs each, perf's and
# analyze's in turn (tools/timeit), whether the outputs are the same; writes the section
# "## DWARF unwinding (issue 6)" of bench/RESULTS.md (replacing only that section). BENCH_SECONDS: the recording's length
# (default 20); BENCH_REUSE=1 keeps an existing recording.
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=bench/out/dwarf
SECONDS_TO_RECORD=${BENCH_SECONDS:-20}
RUNS=${BENCH_RUNS:-3}
ANALYZE=${ANALYZE:-./analyze}
TIMEIT=${TIMEIT:-build/tools/timeit}
DATA=$WORK/dwarf.data
HEADING='## DWARF unwinding (issue 6)'
mkdir -p "$WORK"
# shellcheck source=bench/lib.sh
. bench/lib.sh

# deep call paths and recursion (our binary, frame pointers and CFI), and bench/run.sh's busy
# mix: gzip, sha256sum and sort spend their time in their own code and in libc
cc -O1 -g -fno-omit-frame-pointer -o "$WORK/deep" tests/fixtures/src/deep.c
LOAD='load() { end=$((SECONDS + T)); while [ $SECONDS -lt $end ]; do
	gzip -1 -c /usr/bin/perf >/dev/null
	sha256sum /usr/lib/x86_64-linux-gnu/*.so* >/dev/null 2>&1 || true
	seq 100000 | sort -R >/dev/null
	'"$WORK"'/deep 1
done; }'

if [ "${BENCH_REUSE:-0}" != 1 ] || ! [ -s "$DATA" ]; then
	echo "bench: recording $SECONDS_TO_RECORD s into $DATA (--call-graph dwarf -F 1000)" >&2
	rm -f "$DATA"
	perf record -q --call-graph dwarf -F 1000 -e cpu-clock -o "$DATA" -- \
		bash -c "T=$SECONDS_TO_RECORD; $LOAD; for c in \$(seq $(nproc)); do load & done; wait" \
		>/dev/null 2>"$WORK/record.log" || { cat "$WORK/record.log" >&2; exit 1; }
fi

same() {	# PERF-OUT ANALYZE-OUT: byte for byte, but for perf report's random tip
	if cmp -s <(grep -v '^# (Tip' "$1") <(grep -v '^# (Tip' "$2"); then echo yes; else echo no; fi
}
ratio() { awk "BEGIN{ if ($2 > 0) printf \"%.2f\", $1 / $2; else print \"inf\" }"; }
row() {	# LABEL PERF-T PERF-KB ANALYZE-T ANALYZE-KB SAME
	echo "| $1 | $2 s, $(($3 / 1024)) MB | $4 s, $(($5 / 1024)) MB | $(ratio "$2" "$4")x | $(ratio "$3" "$5")x less | $6 |"
}

WARM=$DATA	# read before every run (lib.sh)
read -r ps_t ps_m as_t as_m < <(best_pair "$RUNS" "$WORK/perf-script.txt" \
	"$WORK/analyze-script.txt" perf script -i "$DATA" ::: "$ANALYZE" script -i "$DATA")
same_s=$(same "$WORK/perf-script.txt" "$WORK/analyze-script.txt")
read -r pr_t pr_m ar_t ar_m < <(best_pair "$RUNS" "$WORK/perf-report.txt" \
	"$WORK/analyze-report.txt" perf report -i "$DATA" --stdio --no-children \
	::: "$ANALYZE" report -i "$DATA" --no-children)
same_r=$(same "$WORK/perf-report.txt" "$WORK/analyze-report.txt")
nr_samples=$(perf report -i "$DATA" --stats 2>/dev/null | awk '/SAMPLE events:/ {print $3; exit}')
frames=$(grep -c $'^\t' "$WORK/perf-script.txt" || true)

section=$WORK/section.md
cat >"$section" <<MD
$HEADING

Input: $(du -m "$DATA" | cut -f1) MB, ${nr_samples} samples of \`perf record --call-graph dwarf -F 1000 -e cpu-clock\`
(8 KB of stack a sample), ${SECONDS_TO_RECORD} s of tests/fixtures/src/deep.c and a gzip/sha256sum/sort load on
every CPU; perf script shows ${frames} frames. Best of ${RUNS} runs (perf's and analyze's in turn), on $(date -u +%Y-%m-%d).

| command | perf 6.1 | analyze | faster | memory | same output |
| --- | --- | --- | --- | --- | --- |
$(row '`script`' "$ps_t" "$ps_m" "$as_t" "$as_m" "$same_s")
$(row '`report --stdio --no-children`' "$pr_t" "$pr_m" "$ar_t" "$ar_m" "$same_r")

perf 6.1 (Debian's, with libunwind) builds its unwinding state per sample; analyze keeps each
dso's file, its CFI and the compiled rules of every pc met for the whole run, so a sample costs
a few map lookups and the rules' arithmetic. Target: dwarf unwinding at least 3x faster than
perf 6.1; "same output" compares the whole text, call graphs included.
MD
replace_section bench/RESULTS.md "$HEADING" "$section"
cat "$section"
