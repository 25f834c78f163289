#!/usr/bin/env bash
# The machine model at scale (issue 4): generated recordings (tools/gen-perfdata) of many
# threads, mmaps and dsos, and of thread churn; analyze report and analyze tasks against perf
# report --stdio and perf report --tasks on the same file, the best of MODEL_RUNS runs each (one
# for the largest). Writes the section "The machine model at scale" of bench/RESULTS.md (replacing
# it in place). MODEL_SIZES=small runs a tenth of every size, for a try.
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=bench/out/model
. bench/lib.sh	# replace_section; the helpers below are this script's own
GEN=${GEN:-build/tools/gen-perfdata}
ANALYZE=${ANALYZE:-./analyze}
TIMEIT=${TIMEIT:-build/tools/timeit}
mkdir -p "$WORK"
scale=1
[ "${MODEL_SIZES:-full}" = small ] && scale=10

# gen NAME FLAGS...: bench/out/model/NAME.data, made once (BENCH_REUSE=1 keeps it)
gen() {
	local name=$1 out=$WORK/$1.data
	shift
	if [ "${BENCH_REUSE:-0}" = 1 ] && [ -s "$out" ]; then return; fi
	echo "bench: generating $out ($*)" >&2
	"$GEN" -o "$out" --kallsyms "$WORK/$name.kallsyms" "$@" >/dev/null
}
# timed CMD...: "seconds peak-KB" of one run (tools/timeit), its output in $WORK/out.txt
timed() {
	"$TIMEIT" "$WORK/out.txt" "$@" || true
}
# best N CMD...: the best of N runs ("seconds peak-KB", the peak RSS of that run), its output
# in $WORK/out.txt
best() {
	local n=$1 bt="" bm="" t m r
	shift
	for ((r = 0; r < n; r++)); do
		read -r t m < <(timed "$@")
		if [ -z "$bt" ] || awk "BEGIN{exit !($t < $bt)}"; then
			bt=$t bm=$m
			cp "$WORK/out.txt" "$WORK/best.txt"
		fi
	done
	mv "$WORK/best.txt" "$WORK/out.txt"
	echo "$bt $bm"
}
same() { if diff <(grep -v '^# (Tip' "$1") <(grep -v '^# (Tip' "$2") >/dev/null; then echo yes; else echo no; fi; }
mb() { awk "BEGIN{printf \"%.0f\", $1 / 1024}"; }
ratio() { awk "BEGIN{ if ($2 > 0) printf \"%.1f\", $1 / $2; else print \"inf\" }"; }
n() { echo $(($1 / scale)); }	# a size, scaled down for a try

declare -A T M S	# wall, peak KB and "same as perf" per name and command
run_all() {	# NAME RUNS: the four commands on NAME.data, the best of RUNS runs each
	local name=$1 n=$2 f=$WORK/$1.data k=$WORK/$1.kallsyms
	read -r T[$name,pr] M[$name,pr] < <(best "$n" perf report -i "$f" --stdio --kallsyms "$k")
	cp "$WORK/out.txt" "$WORK/perf-report.txt"
	read -r T[$name,ar] M[$name,ar] < <(best "$n" "$ANALYZE" report -i "$f" --kallsyms "$k")
	S[$name,r]=$(same "$WORK/perf-report.txt" "$WORK/out.txt")
	read -r T[$name,pt] M[$name,pt] < <(best "$n" perf report -i "$f" --tasks)
	cp "$WORK/out.txt" "$WORK/perf-tasks.txt"
	read -r T[$name,at] M[$name,at] < <(best "$n" "$ANALYZE" tasks -i "$f")
	S[$name,t]=$(same "$WORK/perf-tasks.txt" "$WORK/out.txt")
}
row() {	# LABEL NAME
	local x=$2
	echo "| $1 | ${T[$x,pr]} s, $(mb "${M[$x,pr]}") MB | ${T[$x,ar]} s, $(mb "${M[$x,ar]}") MB |" \
	     "$(ratio "${T[$x,pr]}" "${T[$x,ar]}")x, $(ratio "${M[$x,pr]}" "${M[$x,ar]}")x less | ${S[$x,r]} |" \
	     "${T[$x,pt]} s, $(mb "${M[$x,pt]}") MB | ${T[$x,at]} s, $(mb "${M[$x,at]}") MB |" \
	     "$(ratio "${T[$x,pt]}" "${T[$x,at]}")x, $(ratio "${M[$x,pt]}" "${M[$x,at]}")x less | ${S[$x,t]} |"
}
# growth exponent of analyze report's wall time from size a to size b (n_a, n_b objects)
expo() { awk "BEGIN{printf \"%.2f\", log($2 / $1) / log($4 / $3)}"; }
# bytes per object: the peak-RSS slope of analyze report between two sizes
per() { awk "BEGIN{printf \"%.0f\", ($2 - $1) * 1024 / ($4 - $3)}"; }

SAMPLES=$(n 1000000)
# threads: 10 per process, 2 mmaps per process
for t in 10000 100000 1000000; do
	gen "threads-$t" --processes "$(n $((t / 10)))" --threads 10 --mmaps 2 --dsos 100 \
		--samples "$SAMPLES"
done
# mmaps: 1000 per process
for m in 1000000 10000000; do
	gen "mmaps-$m" --processes "$(n $((m / 1000)))" --threads 1 --mmaps 1000 --dsos 1000 \
		--samples "$SAMPLES"
done
# dsos: the same 100k mmaps over 1k or 100k distinct dsos, few samples (so that the
# histogram does not grow with the dsos)
for d in 1000 100000; do
	gen "dsos-$d" --processes "$(n 100)" --threads 1 --mmaps 1000 --dsos "$(n "$d")" \
		--samples 10000
done
# churn: 1000 processes of 10 live threads; 1M threads come and go (and none, for the base)
gen churn-0 --processes "$(n 1000)" --threads 10 --mmaps 2 --dsos 100 --samples "$SAMPLES"
gen churn-1M --processes "$(n 1000)" --threads 10 --mmaps 2 --dsos 100 --samples "$SAMPLES" \
	--churn "$(n 1000000)"

for x in threads-10000 threads-100000 threads-1000000 mmaps-1000000 mmaps-10000000 \
	 dsos-1000 dsos-100000 churn-0 churn-1M; do
	# the largest take perf a quarter of a minute a run: one run; the rest, the best of
	# MODEL_RUNS (on a shared 2-CPU machine one run of a short command can be half again
	# slower than the next)
	case $x in threads-1000000 | mmaps-10000000 | churn-1M) runs=1 ;; *) runs=${MODEL_RUNS:-5} ;; esac
	echo "bench: $x ($runs runs)" >&2
	run_all "$x" "$runs"
done

th_a=$(n 100000) th_b=$(n 1000000) mm_a=$(n 1000000) mm_b=$(n 10000000)
section=$WORK/section.md
cat >"$section" <<MD
## The machine model at scale (issue 4)

Generated by tools/gen-perfdata (bench/model.sh), $(printf "%'d" "$SAMPLES") samples each, kernel
symbols from the generator's kallsyms file; the best of ${MODEL_RUNS:-5} runs per command (one
run for 1M threads, 10M mmaps and the churn, which take perf 12-17 s a run). perf's columns are
\`perf report --stdio\` and \`perf report --tasks\`; "same" says whether analyze's output is
identical to perf's (report: but for the tip line).

| recording | perf report | analyze report | faster, memory | same | perf --tasks | analyze tasks | faster, memory | same |
| --- | --- | --- | --- | --- | --- | --- | --- | --- |
$(row "$(n 10000) threads" threads-10000)
$(row "$(n 100000) threads" threads-100000)
$(row "$(n 1000000) threads" threads-1000000)
$(row "$(n 1000000) mmaps" mmaps-1000000)
$(row "$(n 10000000) mmaps" mmaps-10000000)
$(row "$(n 1000) dsos ($(n 100000) mmaps, 10k samples)" dsos-1000)
$(row "$(n 100000) dsos ($(n 100000) mmaps, 10k samples)" dsos-100000)
$(row "$(n 10000) live threads" churn-0)
$(row "same, $(n 1000000) threads come and go" churn-1M)

Growth of analyze report's wall time (exponent of n, 1 is linear): threads
$(expo "${T[threads-100000,ar]}" "${T[threads-1000000,ar]}" "$th_a" "$th_b") from $th_a to $th_b;
mmaps $(expo "${T[mmaps-1000000,ar]}" "${T[mmaps-10000000,ar]}" "$mm_a" "$mm_b") from $mm_a to $mm_b.
perf's: threads $(expo "${T[threads-100000,pr]}" "${T[threads-1000000,pr]}" "$th_a" "$th_b"),
mmaps $(expo "${T[mmaps-1000000,pr]}" "${T[mmaps-10000000,pr]}" "$mm_a" "$mm_b").

analyze's bytes per live object (peak-RSS slope of analyze report): per thread
$(per "${M[threads-100000,ar]}" "${M[threads-1000000,ar]}" "$th_a" "$th_b") (with its share of
its process: 2 mmaps per 10 threads), per mmap $(per "${M[mmaps-1000000,ar]}" "${M[mmaps-10000000,ar]}" "$mm_a" "$mm_b"),
per dso $(per "${M[dsos-1000,ar]}" "${M[dsos-100000,ar]}" "$(n 1000)" "$(n 100000)") (names included).
perf's: per thread $(per "${M[threads-100000,pr]}" "${M[threads-1000000,pr]}" "$th_a" "$th_b"),
per mmap $(per "${M[mmaps-1000000,pr]}" "${M[mmaps-10000000,pr]}" "$mm_a" "$mm_b").

Churn: with $(n 1000000) threads coming and going (10 live per process), analyze report's peak
RSS is $(mb "${M[churn-1M,ar]}") MB against $(mb "${M[churn-0,ar]}") MB with none (exited
threads are retired); perf's grows from $(mb "${M[churn-0,pr]}") MB to $(mb "${M[churn-1M,pr]}") MB.

Targets: at every size at most 1/4 of perf's peak RSS and at least 5x faster; cost linear in
the input; with churn, analyze's RSS stays flat while perf's grows.
MD
replace_section bench/RESULTS.md "## The machine model at scale (issue 4)" "$section"
cat "$section"
