#!/usr/bin/env bash
# Benchmarks: time analyze and perf 6.1 on the same large system-wide recordings, in one run,
# and write the figures and ratios to bench/RESULTS.md (its opening and its three sections;
# the other benchmarks' sections are kept). The recordings are made on demand
# (never committed) under bench/out/: a plain file (perf record -a -F 20000) and a
# --threads -z data directory of the same busy workload. BENCH_SECONDS sets their length
# (default 25 s each, about a million samples); BENCH_REUSE=1 reuses existing recordings;
# BENCH_RUNS sets the runs per command (best one kept); BENCH_SCALING_RUNS the runs of the
# -j1/-j2 comparison. Each pair (perf and analyze, -j1 and -j2) runs in turn, so that both
# meet the same machine, the input read into the page cache before every run (lib.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=bench/out
SECONDS_TO_RECORD=${BENCH_SECONDS:-25}
RUNS=${BENCH_RUNS:-5}
SCALING_RUNS=${BENCH_SCALING_RUNS:-25}
INFLATE=${INFLATE:-build/tools/perf-inflate}
mkdir -p "$WORK"
# shellcheck source=bench/lib.sh
. bench/lib.sh

row() {	# LABEL PERF-TIME PERF-KB ANALYZE-TIME ANALYZE-KB
	echo "| $1 | $2 s, $(($3 / 1024)) MB | $4 s, $(($5 / 1024)) MB | $(ratio "$2" "$4")x | $(ratio "$3" "$5")x less |"
}

FILE=$WORK/sysw.data
DIR=$WORK/sysw-threads-z.data
record "$FILE" -a -F 20000 -e cpu-clock
record "$DIR" -a -F 20000 -e cpu-clock --threads -z

# 1. The plain file (issue 2)
WARM=$FILE
read -r p1_t p1_m a1_t a1_m < <(best_pair "$RUNS" "$WORK/perf.txt" "$WORK/analyze.txt" \
	perf report -i "$FILE" --stdio ::: "$ANALYZE" report -i "$FILE")
same1=$(same "$WORK/perf.txt" "$WORK/analyze.txt")
read -r p2_t p2_m a2_t a2_m < <(best_pair "$RUNS" /dev/null /dev/null \
	perf report -i "$FILE" --stdio --sort dso,sym ::: "$ANALYZE" report -i "$FILE" --sort dso,sym)

# 2. The --threads -z directory (issue 3)
WARM=$DIR
read -r p3_t p3_m a3_t a3_m < <(best_pair "$RUNS" "$WORK/perf.txt" "$WORK/analyze.txt" \
	perf report -i "$DIR" --stdio ::: "$ANALYZE" report -i "$DIR")
same3=$(same "$WORK/perf.txt" "$WORK/analyze.txt")
read -r j1_t j1_m j2_t j2_m < <(best_pair "$SCALING_RUNS" /dev/null /dev/null \
	"$ANALYZE" report -j 1 -i "$DIR" ::: "$ANALYZE" report -j 2 -i "$DIR")

# 3. perf script's text (issue 5), timed into /dev/null; one more run of each into a file to
# compare them byte for byte and count the bytes
script_same() {	# INPUT: "yes|no MB"
	perf script -i "$1" >"$WORK/perf.txt" 2>/dev/null
	"$ANALYZE" script -i "$1" >"$WORK/analyze.txt" 2>/dev/null
	cmp -s "$WORK/perf.txt" "$WORK/analyze.txt" && echo -n "yes " || echo -n "no "
	awk "BEGIN{printf \"%.0f\\n\", $(stat -c %s "$WORK/perf.txt") / 1048576}"
}
WARM=$FILE
read -r p5_t p5_m a5_t a5_m < <(best_pair "$RUNS" /dev/null /dev/null \
	perf script -i "$FILE" ::: "$ANALYZE" script -i "$FILE")
read -r same5 script_mb < <(script_same "$FILE")
WARM=$DIR
read -r p6_t p6_m a6_t a6_m < <(best_pair "$RUNS" /dev/null /dev/null \
	perf script -i "$DIR" ::: "$ANALYZE" script -i "$DIR")
read -r same6 dir_script_mb < <(script_same "$DIR")
WARM=
rate() { awk "BEGIN{printf \"%.0f\", $1 / $2}"; }

# 4. Inflating: analyze's reader on one thread against zstd -d on the same payloads
rm -f "$WORK"/payload.*.zst
read -r zin zout zt < <("$INFLATE" -x "$WORK/payload" "$DIR")
zt_best=$zt
for ((r = 1; r < RUNS; r++)); do
	read -r _ _ t < <("$INFLATE" "$DIR"); awk "BEGIN{exit !($t < $zt_best)}" && zt_best=$t
done
zstd_best=""
for ((r = 0; r < RUNS; r++)); do
	s=$(date +%s.%N)
	for f in "$WORK"/payload.*.zst; do [ -s "$f" ] && { zstd -q -d -c "$f" 2>/dev/null || true; }; done >/dev/null
	t=$(awk "BEGIN{print $(date +%s.%N) - $s}")
	if [ -z "$zstd_best" ] || awk "BEGIN{exit !($t < $zstd_best)}"; then zstd_best=$t; fi
done
mbps() { awk "BEGIN{ printf \"%.0f\", $1 / 1048576 / $2 }"; }

cat >"$WORK/results.md" <<MD
# Benchmark results

Made by \`make bench\` (bench/run.sh) on $(date -u +%Y-%m-%d), $(nproc) CPUs, $(free -g | awk '/Mem:/ {print $2}') GiB,
perf $(perf version | awk '{print $3}'). Each figure is the best of ${RUNS} runs, perf's and analyze's in
turn, each run after the input was read into the page cache; wall time and peak RSS from
tools/timeit.
Both recordings: ${SECONDS_TO_RECORD} s, \`perf record -a -F 20000 -e cpu-clock\` of a busy mix on every CPU.

## A perf.data file (issue 2)

Input: $(size_mb "$FILE") MB, $(samples "$FILE") samples. analyze's output is identical to perf's (but for
the random tip line): **${same1}**.

| command | perf 6.1 | analyze | faster | memory |
| --- | --- | --- | --- | --- |
$(row '`report --stdio`' "$p1_t" "$p1_m" "$a1_t" "$a1_m")
$(row '`report --stdio --sort dso,sym`' "$p2_t" "$p2_m" "$a2_t" "$a2_m")

Target: at least 3x faster than perf 6.1 with at most half its peak RSS.

## A \`--threads -z\` data directory (issue 3)

Input: $(size_mb "$DIR") MB on disk, $(awk "BEGIN{printf \"%.0f\", $zout / 1048576}") MB of records once inflated, $(samples "$DIR") samples.
Identical to perf's output: **${same3}**.

| command | perf 6.1 | analyze | faster | memory |
| --- | --- | --- | --- | --- |
$(row '`report --stdio`' "$p3_t" "$p3_m" "$a3_t" "$a3_m")

| reader scaling (best of ${SCALING_RUNS}, alternating) | wall | peak RSS |
| --- | --- | --- |
| \`analyze report -j1\` | ${j1_t} s | $((j1_m / 1024)) MB |
| \`analyze report -j2\` | ${j2_t} s | $((j2_m / 1024)) MB |
| -j2 against -j1 | $(ratio "$j1_t" "$j2_t")x faster | |

The two are run alternately and the best of each kept: on this shared 2-CPU machine one run
of -j2 can take a third longer than the next when a neighbour takes a core.

| inflating the same zstd payloads, one thread | time | rate (inflated bytes) |
| --- | --- | --- |
| \`zstd -d\` | ${zstd_best} s | $(mbps "$zout" "$zstd_best") MB/s |
| analyze's reader (tools/perf-inflate) | ${zt_best} s | $(mbps "$zout" "$zt_best") MB/s |
| analyze against zstd -d | $(awk "BEGIN{printf \"%.0f%%\", 100 * $zstd_best / $zt_best}") of its rate | |

Bounded memory: analyze's peak RSS on this directory is $((a3_m / 1024)) MB for
$(awk "BEGIN{printf \"%.0f\", $zout / 1048576}") MB of inflated records (perf: $((p3_m / 1024)) MB); the plain file above, read
from a mapping released behind the ordering window, takes $((a1_m / 1024)) MB for $(size_mb "$FILE") MB.

Targets: at least 4x faster than perf 6.1 with at most half its peak RSS; -j2 at least 1.7x
faster than -j1; inflating within 80% of zstd -d's rate per core.

## \`analyze script\` (issue 5)

Timed with the output to \`/dev/null\`; one more run of each into a file says whether they
are the same, byte for byte, and how much text they write.

| input | perf script | analyze script | faster | memory | output | analyze's rate | same |
| --- | --- | --- | --- | --- | --- | --- | --- |
| the file above | ${p5_t} s, $((p5_m / 1024)) MB | ${a5_t} s, $((a5_m / 1024)) MB | $(ratio "$p5_t" "$a5_t")x | $(ratio "$p5_m" "$a5_m")x less | ${script_mb} MB | $(rate "$script_mb" "$a5_t") MB/s | ${same5} |
| the directory above | ${p6_t} s, $((p6_m / 1024)) MB | ${a6_t} s, $((a6_m / 1024)) MB | $(ratio "$p6_t" "$a6_t")x | $(ratio "$p6_m" "$a6_m")x less | ${dir_script_mb} MB | $(rate "$dir_script_mb" "$a6_t") MB/s | ${same6} |

Target: at least 5x faster than perf 6.1 (over 500 MB/s of output) with a peak RSS no higher
than perf's.
MD
merge_sections bench/RESULTS.md "$WORK/results.md"
cat "$WORK/results.md"
