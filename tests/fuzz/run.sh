#!/usr/bin/env bash
# Runs every libFuzzer target built by `make fuzz-build` for FUZZ_SECONDS each (default 60),
# from seed corpora made of the fixtures, with tests/fuzz/perf.dict; FUZZ_RUNS caps the
# executions instead (e.g. FUZZ_RUNS=10000000). Corpora grow under build/fuzz/corpus/<target>
# and are kept between runs. Prints, per target: executions, coverage (edges) and features,
# corpus size, and how many inputs it found a bug with in this run (build/fuzz/crashes/<target>/;
# the log of each target: build/fuzz/logs/<target>.log).
# FUZZ_JOBS runs that many targets at once (default 1). FUZZ_TARGETS picks some. FUZZ_TIMEOUT
# is the seconds one input may take before it counts as a hang (default 20; raise it on a
# loaded machine, where an input that takes a second alone can take half a minute).
set -euo pipefail
cd "$(dirname "$0")/../.."
SECONDS_EACH=${FUZZ_SECONDS:-60}
RUNS=${FUZZ_RUNS:--1}
TIMEOUT=${FUZZ_TIMEOUT:-20}
JOBS=${FUZZ_JOBS:-1}
OUT=build/fuzz
FIX=tests/fixtures
MAX_LEN=131072
mkdir -p "$OUT/corpus" "$OUT/crashes" "$OUT/logs"
touch "$OUT/logs/start"	# findings: crash inputs written after this

# seed FILES...: the fixtures' recordings no bigger than MAX_LEN
seeds() {	# TARGET FILE...
	local dir=$OUT/corpus/$1 f
	shift
	mkdir -p "$dir"
	for f in "$@"; do
		if [ ! -f "$f" ] || [ "$(stat -c %s "$f")" -gt $MAX_LEN ]; then continue; fi
		cp "$f" "$dir/seed-$(echo "$f" | tr / _)"
	done
}
pipe_seeds() {	# pipe fixtures without their 16-byte header (fuzz_pipe adds it)
	local dir=$OUT/corpus/fuzz_pipe f
	mkdir -p "$dir"
	for f in $FIX/pipe*/perf.data; do
		tail -c +17 "$f" >"$dir/seed-$(echo "$f" | tr / _)"
	done
}
FILES=$(find $FIX -path '*/perf.data' -type f -o -path '*/perf.data/data*' -type f | sort)
seeds fuzz_header $FILES
seeds fuzz_report $FILES
seeds fuzz_script $FILES
seeds fuzz_compressed $FIX/zfile*/perf.data $FIX/dir_z/perf.data/data*
pipe_seeds
# ELF seeds: the workloads' binaries and the small libraries of the build-id cache
ELFS=$(find $FIX/buildid-cache -type f -name elf -size -$((MAX_LEN / 1024))k | head -20)
seeds fuzz_elf $ELFS
# symbol index seeds: the indexes analyze writes (kallsyms and user dsos) for a few small
# fixtures, made in a scratch cache each time (an index is the writer's byte order and
# version: old ones would only be rejected)
symcache_seeds() {
	local dir=$OUT/corpus/fuzz_symcache cache x f
	local analyze=${ANALYZE:-./analyze}
	mkdir -p "$dir"
	if [ ! -x "$analyze" ]; then
		echo "note: no $analyze: fuzz_symcache starts from its corpus only" >&2
		return 0
	fi
	cache=$(mktemp -d)
	for x in callchain symsplit datafp; do
		ANALYZE_DEBUG_DIR=$cache/no-debuginfo "$analyze" --symbol-cache "$cache" \
			--buildid-dir $FIX/buildid-cache report -i $FIX/$x/perf.data \
			--kallsyms $FIX/$x/kallsyms >/dev/null 2>&1 || true
	done
	for f in "$cache"/*.sym; do
		[ -f "$f" ] && [ "$(stat -c %s "$f")" -le $MAX_LEN ] || continue
		cp "$f" "$dir/seed-index-${f##*/}"
	done
	rm -rf "$cache"
}
symcache_seeds

TARGETS=${FUZZ_TARGETS:-fuzz_header fuzz_report fuzz_compressed fuzz_pipe fuzz_script fuzz_elf fuzz_symcache}
run_one() {
	local t=$1 bin=$OUT/$1 log=$OUT/logs/$1.log
	[ "$t" = fuzz_compressed ] && bin=$OUT/fuzz_report
	mkdir -p "$OUT/crashes/$t"
	"$bin" "$OUT/corpus/$t" -dict=tests/fuzz/perf.dict -max_len=$MAX_LEN -timeout="$TIMEOUT" \
		-rss_limit_mb=2048 -max_total_time="$SECONDS_EACH" -runs="$RUNS" -close_fd_mask=3 \
		-print_final_stats=1 -artifact_prefix="$OUT/crashes/$t/" >"$log" 2>&1 || true
	local execs cov ft corp found
	execs=$(grep -a -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
	cov=$(grep -a -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo 0)
	ft=$(grep -a -o 'ft: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo 0)
	corp=$(find "$OUT/corpus/$t" -type f | wc -l)
	found=$(find "$OUT/crashes/$t" -type f -newer "$OUT/logs/start" | wc -l)
	printf '%-16s %12s execs  cov %6s  ft %6s  corpus %5s  findings %s\n' \
		"$t" "$execs" "$cov" "$ft" "$corp" "$found"
}
# libtraceevent leaks on some garbled event formats: its leak, not ours (as make asan)
export LSAN_OPTIONS=suppressions=$PWD/tests/lsan-suppressions.txt:print_suppressions=0
export -f run_one
export OUT MAX_LEN SECONDS_EACH RUNS
printf '%s\n' $TARGETS | xargs -P "$JOBS" -I{} bash -c 'run_one {}'
