#!/usr/bin/env bash
# Scaling with cores (issue 26): the 25 s system-wide recordings of bench/run.sh (a file, a
# --threads -z directory) and bench/callchain.sh (-g), made on demand under bench/out/ and
# reused with BENCH_REUSE=1. perf 6.1 against analyze on the flat report, the call-graph
# report and script; analyze at -j1 against -j2, alternating, best of BENCH_SCALING_RUNS;
# each thread's busy time (ANALYZE_BUSY) and from it the critical path and the speed-up
# projected at 8 and 16 workers. Writes the section "## Scaling with cores (issue 26)" of
# bench/RESULTS.md (replacing only that section).
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=bench/out
SECONDS_TO_RECORD=${BENCH_SECONDS:-25}
RUNS=${BENCH_RUNS:-3}
SCALING_RUNS=${BENCH_SCALING_RUNS:-9}
HEADING='## Scaling with cores (issue 26)'
mkdir -p "$WORK"
# shellcheck source=bench/lib.sh
. bench/lib.sh

FILE=$WORK/sysw.data
DIR=$WORK/sysw-threads-z.data
GFILE=$WORK/sysw-g.data
record "$FILE" -a -F 20000 -e cpu-clock
record "$DIR" -a -F 20000 -e cpu-clock --threads -z
record "$GFILE" -a -g -F 20000 -e cpu-clock

# busy_run OUT-BUSY ARGS...: one run of analyze with ANALYZE_BUSY, its busy lines in OUT-BUSY;
# prints its wall time (the run's own, from busy)
busy_run() {
	local out=$1
	shift
	warm
	ANALYZE_BUSY=1 "$ANALYZE" "$@" 2>"$out" >/dev/null
	awk '$2 == "wall" {print $3}' "$out"
}

# best_busy RUNS TAG-A ARGS-A ::: TAG-B ARGS-B: A and B in turn; the busy lines of the fastest
# run of each in $WORK/busy.TAG
best_busy() {
	local n=$1 ta=$2 tb t best_a="" best_b="" r
	local -a a=() b=()
	shift 2
	while [ "$1" != ":::" ]; do a+=("$1"); shift; done
	shift
	tb=$1
	shift
	b=("$@")
	for ((r = 0; r < n; r++)); do
		t=$(busy_run "$WORK/busy.try" "${a[@]}")
		if [ -z "$best_a" ] || awk "BEGIN{exit !($t < $best_a)}"; then best_a=$t; cp "$WORK/busy.try" "$WORK/busy.$ta"; fi
		t=$(busy_run "$WORK/busy.try" "${b[@]}")
		if [ -z "$best_b" ] || awk "BEGIN{exit !($t < $best_b)}"; then best_b=$t; cp "$WORK/busy.try" "$WORK/busy.$tb"; fi
	done
}

# busy TAG WHAT: a figure of a kept run: wall, main (the main thread's CPU), agg (the
# aggregator's), workers (every other thread's CPU, the aggregator's included), cpu (all),
# pwall and pcpu (report's parallel passes: their wall time, all threads' CPU in them),
# fold (its partial histograms folded into one)
busy() {
	awk -v what="$2" '
		$2 == "wall" { wall = $3 }
		$2 == "thread" && $3 == "main" { main = $4 }
		$2 == "thread" && $3 != "main" { workers += $4 }
		$2 == "stage" && $3 == "aggregate" { agg = $4 }
		$2 == "stage" && $3 == "parallel-wall" { pwall = $4 }
		$2 == "stage" && $3 == "parallel-cpu" { pcpu = $4 }
		$2 == "stage" && $3 == "fold" { fold = $4 }
		END {
			if (what == "wall") v = wall
			else if (what == "main") v = main
			else if (what == "agg") v = agg
			else if (what == "workers") v = workers
			else if (what == "pwall") v = pwall
			else if (what == "pcpu") v = pcpu
			else if (what == "fold") v = fold
			else v = main + workers
			printf "%.3f", v
		}' "$WORK/busy.$1"
}

# way TAG: which way the run went (busy: path)
way() { sed -n 's/^busy: path //p' "$WORK/busy.$1"; }

# project TAG-J1 TAG-J2 N: the speed-up at N workers, against the -j1 run's wall time.
# report's parallel run (busy: path parallel): its two passes spread over the workers; all
# else counts as serial (startup, the side band into the model, the fold, whose shards are
# merged on the workers but whose last step is not, the output):
# T(N) = (wall - passes' wall) + passes' CPU / N. The streaming path: the reading thread
# (reading, ordering, the model, resolving: "main" at -j2, where the aggregator runs
# elsewhere) and the aggregator (one at a time) are serial, the rest (inflating, symbol
# tables) spreads: T(N) = max(main, aggregator, all CPU / N).
project() {
	local m a c
	m=$(busy "$2" main) a=$(busy "$2" agg) c=$(busy "$2" cpu)
	awk -v w1="$(busy "$1" wall)" -v w2="$(busy "$2" wall)" -v pw="$(busy "$2" pwall)" \
	    -v pc="$(busy "$2" pcpu)" -v m="$m" -v a="$a" -v c="$c" -v n="$3" 'BEGIN {
		if (pw > 0) { t = w2 - pw + pc / n }
		else { t = c / n; if (m > t) t = m; if (a > t) t = a }
		printf "%.2f", w1 / t }'
}

path() {	# TAG: the serial part that bounds the run, and its time
	local m a
	if [ "$(way "$1")" = parallel ]; then
		awk -v w="$(busy "$1" wall)" -v pw="$(busy "$1" pwall)" \
			'BEGIN{printf "serial (outside the parallel passes), %.3f s", w - pw}'
		return
	fi
	m=$(busy "$1" main) a=$(busy "$1" agg)
	if awk "BEGIN{exit !($m >= $a)}"; then echo "the reading thread, $m s"; else echo "the aggregator, $a s"; fi
}

# 1. -j1 against -j2, with each thread's busy time
WARM=$FILE
best_busy "$SCALING_RUNS" f1 report -j 1 -i "$FILE" ::: f2 report -j 2 -i "$FILE"
WARM=$DIR
best_busy "$SCALING_RUNS" d1 report -j 1 -i "$DIR" ::: d2 report -j 2 -i "$DIR"
WARM=$FILE
best_busy "$SCALING_RUNS" s1 script -j 1 -i "$FILE" ::: s2 script -j 2 -i "$FILE"

# 2. against perf (analyze at its default -j: one thread a CPU)
WARM=$FILE
read -r pf_t pf_m af_t af_m < <(best_pair "$RUNS" /dev/null /dev/null \
	perf report -i "$FILE" --stdio --no-children -g none ::: "$ANALYZE" report -i "$FILE" --no-children -g none)
WARM=$DIR
read -r pd_t pd_m ad_t ad_m < <(best_pair "$RUNS" /dev/null /dev/null \
	perf report -i "$DIR" --stdio --no-children -g none ::: "$ANALYZE" report -i "$DIR" --no-children -g none)
WARM=$GFILE
read -r pg_t pg_m ag_t ag_m < <(best_pair "$RUNS" /dev/null /dev/null \
	perf report -i "$GFILE" --stdio ::: "$ANALYZE" report -i "$GFILE")
WARM=$FILE
read -r ps_t ps_m as_t as_m < <(best_pair "$RUNS" /dev/null /dev/null \
	perf script -i "$FILE" ::: "$ANALYZE" script -i "$FILE")
WARM=
nf=$(samples "$FILE")

row() {	# LABEL PERF-TIME PERF-KB ANALYZE-TIME ANALYZE-KB TARGET
	echo "| $1 | $2 s, $(($3 / 1024)) MB | $4 s, $(($5 / 1024)) MB | $(ratio "$2" "$4")x | $6 |"
}
srow() {	# LABEL TAG-J1 TAG-J2: no projection (script writes its lines one chunk at a time)
	echo "| $1 | $(way "$3") | $(busy "$2" wall) s | $(busy "$3" wall) s | $(ratio "$(busy "$2" wall)" "$(busy "$3" wall)")x | $(busy "$3" main) s | $(busy "$3" workers) s | $(busy "$3" pwall) s, $(busy "$3" pcpu) s | | | |"
}
jrow() {	# LABEL TAG-J1 TAG-J2
	echo "| $1 | $(way "$3") | $(busy "$2" wall) s | $(busy "$3" wall) s | $(ratio "$(busy "$2" wall)" "$(busy "$3" wall)")x | $(busy "$3" main) s | $(busy "$3" workers) s | $(busy "$3" pwall) s, $(busy "$3" pcpu) s | $(path "$3") | $(project "$2" "$3" 8)x | $(project "$2" "$3" 16)x |"
}

section=$(mktemp)
cat >"$section" <<MD
$HEADING

Made by \`bench/scaling.sh\` on $(date -u +%Y-%m-%d), $(nproc) CPUs, $(load_note). The recordings of
bench/run.sh and bench/callchain.sh: ${SECONDS_TO_RECORD} s of \`perf record -a -F 20000 -e cpu-clock\`
of the busy mix, as a file ($nf samples), as a \`--threads -z\` directory, and with \`-g\`.
perf and analyze in turn, best of ${RUNS}; analyze at its default \`-j\` (one thread a CPU).

| command | perf 6.1 | analyze | faster | target |
| --- | --- | --- | --- | --- |
$(row '`report --no-children -g none`, file' "$pf_t" "$pf_m" "$af_t" "$af_m" "8x")
$(row '`report --no-children -g none`, directory' "$pd_t" "$pd_m" "$ad_t" "$ad_m" "8x")
$(row '`report` (children, call graphs), -g file' "$pg_t" "$pg_m" "$ag_t" "$ag_m" "15x")
$(row '`script`, file' "$ps_t" "$ps_m" "$as_t" "$as_m" "10x")

\`report\` at -j1 and -j2, alternating, the fastest of ${SCALING_RUNS} each; the busy times are the -j2
run's (\`ANALYZE_BUSY=1\`: each thread's CPU time; for the parallel run, the wall time of its
two passes and all threads' CPU time in them). CPU time per sample at -j1: $(awk -v c="$(busy f1 cpu)" -v n="$nf" 'BEGIN{printf "%.0f", c * 1e9 / n}') ns on the file.

| input | way | -j1 | -j2 | -j2 against -j1 (target 1.8x) | main thread | other threads | parallel passes (wall, CPU) | bound | projected at 8 workers (target 6x) | at 16 |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
$(jrow 'file' f1 f2)
$(jrow 'directory' d1 d2)
$(srow 'file, script' s1 s2)

A file goes the parallel way (\`analyze(1)\`, HOW THE ENGINE READS): pass 1 walks the file in
pieces on every worker and keeps the side-band records; they build the model, which knows
each thread's, comm's and map's time of validity; pass 2 resolves the samples of stretches
of whole rounds on every worker into per-worker histograms, folded in the order of their
entries' first samples. What is left serial is the side band into the model, the fold (its
shards merge and sort on the workers, the entries are copied to their places on them, the
shards' orders merge on one thread; all of it counted serial here), the output and the
start. The projection: T(N) = serial + CPU of the two passes / N, against the -j1 run's
wall time. \`script\` of the file goes the same two passes, its lines printed on every
worker and merged in delivery order as they are written (under a lock, one chunk at a
time: no projection for it).
A directory goes the same two passes a file a worker (each file's zstd stream read from its
start, in both passes). This one has $(ls "$DIR" | wc -l) files, so no more than that many
workers are busy at once; the projection is for a directory of 16 such files, whose passes'
CPU time spreads over up to 16 workers: T(N) = serial + CPU of the two passes / N, as for
the file. Where a run goes the streaming way (every sample through the reading thread, then
the one aggregator), T(N) = max(reading thread, aggregator, CPU / N).
MD
replace_section bench/RESULTS.md "$HEADING" "$section"
cat "$section"
rm -f "$section"
