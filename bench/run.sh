#!/usr/bin/env bash
# Benchmark: time analyze and perf 6.1 on the same large system-wide recording, in one run,
# and write the figures and ratios to bench/RESULTS.md. The recording is made on demand
# (never committed) under bench/work/; BENCH_SECONDS sets its length (default 25 s at -F 20000
# on every CPU, about a million samples). BENCH_REUSE=1 reuses an existing recording.
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=bench/work
DATA=$WORK/sysw.data
SECONDS_TO_RECORD=${BENCH_SECONDS:-25}
RUNS=${BENCH_RUNS:-3}
ANALYZE=${ANALYZE:-./analyze}
mkdir -p "$WORK"

if [ "${BENCH_REUSE:-0}" != 1 ] || [ ! -f "$DATA" ]; then
	echo "bench: recording $SECONDS_TO_RECORD s system-wide at -F 20000 into $DATA" >&2
	# A busy mix on every CPU: compressors, sorting, hashing, and many short-lived processes.
	load() {
		local end=$((SECONDS + SECONDS_TO_RECORD))
		while [ $SECONDS -lt $end ]; do
			gzip -1 -c /usr/bin/perf >/dev/null
			sha256sum /usr/lib/x86_64-linux-gnu/*.so* >/dev/null 2>&1 || true
			for i in $(seq 20); do /bin/true; done
			sort -R /usr/share/dict/words 2>/dev/null | head -1 >/dev/null || seq 100000 | sort -R >/dev/null
		done
	}
	perf record -q -a -F 20000 -e cpu-clock -o "$DATA" -- bash -c "$(declare -f load); SECONDS_TO_RECORD=$SECONDS_TO_RECORD; for c in \$(seq $(nproc)); do load & done; wait" \
		>/dev/null 2>"$WORK/record.log" || { cat "$WORK/record.log" >&2; exit 1; }
fi

size_mb=$(( $(stat -c %s "$DATA") / 1024 / 1024 ))
samples=$(perf report -i "$DATA" --stats 2>/dev/null | awk '/SAMPLE events:/ {print $3; exit}')

# time_cmd NAME CMD...: best wall time and the peak RSS of that run over $RUNS runs
time_cmd() {
	local best_t="" best_m="" t m
	for ((r = 0; r < RUNS; r++)); do
		/usr/bin/time -f '%e %M' -o "$WORK/time.out" "$@" >"$WORK/out.txt" 2>/dev/null
		read -r t m <"$WORK/time.out"
		if [ -z "$best_t" ] || awk "BEGIN{exit !($t < $best_t)}"; then best_t=$t best_m=$m; fi
	done
	echo "$best_t $best_m"
}

read -r p_t p_m < <(time_cmd perf report -i "$DATA" --stdio)
cp "$WORK/out.txt" "$WORK/perf.txt"
read -r a_t a_m < <(time_cmd "$ANALYZE" report -i "$DATA")
cp "$WORK/out.txt" "$WORK/analyze.txt"
read -r p2_t p2_m < <(time_cmd perf report -i "$DATA" --stdio --sort dso,sym)
read -r a2_t a2_m < <(time_cmd "$ANALYZE" report -i "$DATA" --sort dso,sym)

same=no
if diff <(grep -v '^# (Tip' "$WORK/perf.txt") <(grep -v '^# (Tip' "$WORK/analyze.txt") >/dev/null; then same=yes; fi
ratio() { awk "BEGIN{ if ($2 > 0) printf \"%.1f\", $1 / $2; else print \"inf\" }"; }

cat >bench/RESULTS.md <<MD
# Benchmark results

Made by \`make bench\` (bench/run.sh) on $(date -u +%Y-%m-%d), $(nproc) CPUs, $(free -g | awk '/Mem:/ {print $2}') GiB.
Input: a ${SECONDS_TO_RECORD} s system-wide \`perf record -a -F 20000 -e cpu-clock\` of a busy mix
(${size_mb} MB, ${samples} samples). Best of ${RUNS} runs each; peak RSS from /usr/bin/time.
Output identical to perf's (except the random tip line): **${same}**.

| command | perf 6.1 | analyze | speed-up | memory ratio |
| --- | --- | --- | --- | --- |
| \`report --stdio\` (default sort) | ${p_t} s, $((p_m / 1024)) MB | ${a_t} s, $((a_m / 1024)) MB | $(ratio "$p_t" "$a_t")x | $(ratio "$p_m" "$a_m")x less |
| \`report --stdio --sort dso,sym\` | ${p2_t} s, $((p2_m / 1024)) MB | ${a2_t} s, $((a2_m / 1024)) MB | $(ratio "$p2_t" "$a2_t")x | $(ratio "$p2_m" "$a2_m")x less |

Targets (issue 2): at least 3x faster than perf 6.1 with at most half its peak RSS.
MD
cat bench/RESULTS.md
