#!/usr/bin/env bash
# report's output fields and source-line keys (issue 27) on bench/run.sh's system-wide
# recording (made on demand under bench/out/, reused with BENCH_REUSE=1): perf 6.1 against
# analyze on `report -F overhead,comm,dso,sym -t ,` (best of BENCH_RUNS, in turn) and
# `report --sort srcline`. perf's srcline runs addr2line for each address it meets and can
# take many minutes on a million samples: perf runs that once, killed after
# BENCH_SRCLINE_TIMEOUT seconds (default 1800; its time then reads "> N s" and the ratio is a
# lower bound); analyze runs best of BENCH_RUNS. Writes the section "## Output fields and
# source lines (issue 27)" of bench/RESULTS.md (replacing only that section).
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=bench/out
SECONDS_TO_RECORD=${BENCH_SECONDS:-25}
RUNS=${BENCH_RUNS:-3}
LIMIT=${BENCH_SRCLINE_TIMEOUT:-1800}
HEADING='## Output fields and source lines (issue 27)'
mkdir -p "$WORK"
# shellcheck source=bench/lib.sh
. bench/lib.sh

row() {	# LABEL PERF-TIME PERF-KB ANALYZE-TIME ANALYZE-KB SAME
	echo "| $1 | $2 s, $(($3 / 1024)) MB | $4 s, $(($5 / 1024)) MB | $(ratio "$2" "$4")x | $(ratio "$3" "$5")x less | $6 |"
}

FILE=$WORK/sysw.data
record "$FILE" -a -F 20000 -e cpu-clock
WARM=$FILE

# 1. -F with -t: the fields of the default sort, separated (no column widths to pad)
FIELDS=(--stdio -F overhead,comm,dso,sym -t ,)
read -r p1_t p1_m a1_t a1_m < <(best_pair "$RUNS" "$WORK/perf.txt" "$WORK/analyze.txt" \
	perf report -i "$FILE" "${FIELDS[@]}" ::: "$ANALYZE" report -i "$FILE" "${FIELDS[@]}")
same1=$(same "$WORK/perf.txt" "$WORK/analyze.txt")

# 2. --sort srcline: perf once, bounded; analyze best of RUNS
warm
st=0
# perf 6.1 writes requests to an addr2line that could not open its file (a memfd's deleted
# file here) and dies of SIGPIPE (status 141, no output): ignored, as a user would have it,
# it goes on and prints the report (the same as analyze's)
timed=$(trap '' PIPE; "$TIMEIT" "$WORK/perf-srcline.txt" timeout "$LIMIT" \
	perf report -i "$FILE" --stdio --sort srcline) || st=$?
read -r p2_t p2_m <<<"$timed"
a2_t="" a2_m=""
for ((r = 0; r < RUNS; r++)); do
	warm
	read -r t m < <("$TIMEIT" "$WORK/analyze-srcline.txt" "$ANALYZE" report -i "$FILE" --sort srcline)
	if [ -z "$a2_t" ] || awk "BEGIN{exit !($t < $a2_t)}"; then a2_t=$t a2_m=$m; fi
done
if [ "$st" = 124 ]; then	# timeout's status: perf was killed, its output is partial
	p2_row="| \`report --stdio --sort srcline\` | > ${LIMIT} s (killed), $((p2_m / 1024)) MB | ${a2_t} s, $((a2_m / 1024)) MB | > $(ratio "$LIMIT" "$a2_t")x | | n/a |"
else
	p2_row=$(row '`report --stdio --sort srcline`' "$p2_t" "$p2_m" "$a2_t" "$a2_m" \
		"$(same "$WORK/perf-srcline.txt" "$WORK/analyze-srcline.txt")")
fi

cat >"$WORK/report_keys.md" <<MD
$HEADING

Made by bench/report_keys.sh on $(date -u +%Y-%m-%d), $(nproc) CPUs, perf $(perf version | awk '{print $3}'), $(load_note).
Input: bench/run.sh's recording, $(size_mb "$FILE") MB, $(samples "$FILE") samples. The -F row is the best of ${RUNS}
runs, perf's and analyze's in turn; perf's srcline (addr2line for every address it meets, SIGPIPE
ignored: else perf 6.1 dies of it on this recording, status 141, no output) ran once, analyze's best of ${RUNS}; each run after the input was read into the page cache. The last
column: the outputs are the same but for perf's random tip line.

| command | perf 6.1 | analyze | faster | memory | same |
| --- | --- | --- | --- | --- | --- |
$(row '`report --stdio -F overhead,comm,dso,sym -t ,`' "$p1_t" "$p1_m" "$a1_t" "$a1_m" "$same1")
$p2_row

Target: at least 5x faster than perf 6.1 on both.
MD
replace_section bench/RESULTS.md "$HEADING" "$WORK/report_keys.md"
cat "$WORK/report_keys.md"
