#!/usr/bin/env bash
# Golden tests: run analyze on every committed fixture with the options perf was run with
# (tests/fixtures/<name>/cases) and compare with perf 6.1's own output, byte for byte, except
# the text of perf's random "# (Tip: ...)" line. Needs neither perf nor the host's binaries.
# A case whose perf arguments have --tasks is `perf report --tasks`, which analyze report takes
# as well; one with --sorted runs as `analyze tasks` with the other arguments (--sorted is
# analyze's own, not report's: make-fixtures.sh made
# its expected output from perf's). A case whose perf arguments start with `script` is
# `perf script`: analyze runs it as `analyze script` with the arguments after that word. A case
# whose arguments start with `flamegraph` is `analyze flamegraph` with the arguments after that
# word (--folded): make-fixtures.sh folded perf script's output into its expected output. One
# whose arguments start with `annotate` is `perf annotate` (without --kallsyms, which it lacks)
# and `analyze annotate` with the arguments after that word.
# Cases listed in tests/fixtures/PENDING need work not done yet (the file says which): they
# are run and counted, but do not fail the suite. GOLDEN_ONLY="name ..." runs those fixtures only.
# --dlfilter cases load the filters tests/fixtures/build-dlfilters.sh builds here against
# analyze's perf_dlfilter.h (perf's expected outputs: the same sources against perf's); a case's
# argument @NAME.so is one of them.
set -u
cd "$(dirname "$0")/.."
ANALYZE=${ANALYZE:-./analyze}
BYTESWAP=${BYTESWAP:-build/tools/perf-byteswap}
FLIP=${FLIP:-$(dirname "$BYTESWAP")/flip-byte}	# one byte of each index changed (corrupt)
FIX=tests/fixtures
CACHE=$FIX/buildid-cache
export TZ=UTC LC_ALL=C
HOME=$(mktemp -d) && export HOME
trap 'rm -rf "$HOME"' EXIT
unset PERF_BUILDID_DIR
# the host's own debuginfo must not leak in: the fixtures ship every symbol file they need
export ANALYZE_DEBUG_DIR=$HOME/no-debuginfo
. tests/runner.sh	# run_analyze, runner_stop: RUNNER runs the cases in one process
export PERF_EXEC_PATH=$HOME/exec	# where --list-dlfilters and a bare --dlfilter name look
dlfilters_built=1
tests/fixtures/build-dlfilters.sh "$PERF_EXEC_PATH" analyzer/script || dlfilters_built=0

# GOLDEN_ONLY: the fixtures to run (all when unset)
only() { [ -z "${GOLDEN_ONLY:-}" ] || [[ " $GOLDEN_ONLY " == *" ${1##*/} "* ]]; }

tipless() { sed -E 's/^# \((Tip: .*|Cannot load tips\.txt file.*)\)$/# (Tip: <random>)/' "$1"; }

# perf report's arguments of a --tasks case, as analyze tasks takes them
tasks_args() {
	local a
	for a in "$@"; do
		case $a in --stdio | --tasks) ;; *) printf '%s\n' "$a" ;; esac
	done
}

# same EXP OUT: OUT is EXP but for perf's random tip line (one of the last three, or in branch
# mode before perf's branch statistics: one of the last 40) and ours.
# The shell reads and compares them itself: on this kind of machine starting a process costs
# more than the comparison, and the suite runs some 4000 cases.
TIP_RE=$'^# \\((Tip: .*|Cannot load tips\\.txt file.*)\\)\n?$'
same() {
	local -a a b
	local i n IFS=
	mapfile a <"$1" && mapfile b <"$2" || return 1
	n=${#a[@]}
	[ "$n" -eq ${#b[@]} ] || return 1
	for ((i = n > 40 ? n - 40 : 0; i < n; i++)); do
		[[ ${a[i]} == "# ("* && ${a[i]} =~ $TIP_RE ]] && a[i]=tip
		[[ ${b[i]} == "# ("* && ${b[i]} =~ $TIP_RE ]] && b[i]=tip
	done
	[[ "${a[*]}" == "${b[*]}" ]]
}

# run_case DIR CASE ARGS [quiet]: 0 when analyze prints what perf printed, with its exit
# status. $DATA, when set, replaces DIR/perf.data (the opposite-endian copy).
run_case() {
	local dir=$1 case=$2 args=$3 exp="$1/expected/$2.out" out=$HOME/run.out status want=0
	local quiet=${4:-} data=${DATA:-$1/perf.data}
	[ -f "$exp" ] || { echo "FAIL ${DATA:+swapped }${dir##*/}/$case: no expected output"; return 1; }
	args=${args// @/ $PERF_EXEC_PATH/dlfilters/}	# the filters built above
	set -f	# case arguments such as [kernel.kallsyms] are not globs
	case " $args " in
	" script "*)
		# shellcheck disable=SC2086
		run_analyze "$out" "$out.err" --buildid-dir "$CACHE" script -i "$data" \
			--kallsyms "$dir/kallsyms" ${args#script}
		;;
	" annotate "*)	# perf annotate 6.1 has no --kallsyms
		# shellcheck disable=SC2086
		run_analyze "$out" "$out.err" --buildid-dir "$CACHE" annotate -i "$data" \
			${args#annotate}
		;;
	" flamegraph "*)
		# shellcheck disable=SC2086
		run_analyze "$out" "$out.err" --buildid-dir "$CACHE" flamegraph -i "$data" \
			--kallsyms "$dir/kallsyms" ${args#flamegraph}
		;;
	*" --sorted "*)	# analyze's own option: analyze tasks
		# shellcheck disable=SC2086
		run_analyze "$out" "$out.err" tasks -i "$data" $(tasks_args $args)
		;;
	*)
		# shellcheck disable=SC2086
		run_analyze "$out" "$out.err" --buildid-dir "$CACHE" report -i "$data" \
			--kallsyms "$dir/kallsyms" $args
		;;
	esac
	status=$?
	set +f
	case " $args " in *" --per-event-dump "*) event_dumps "$data" >>"$out" ;; esac
	[ ! -f "$dir/expected/$case.status" ] || read -r want <"$dir/expected/$case.status"
	if [ "$status" != "$want" ]; then
		[ -n "$quiet" ] || { echo "FAIL ${DATA:+swapped }${dir##*/}/$case: exit status $status, perf's was $want"
			head -3 "$out.err" | sed 's/^/    /'; }
		return 1
	fi
	if ! same "$exp" "$out"; then
		[ -n "$quiet" ] || { echo "FAIL ${DATA:+swapped }${dir##*/}/$case: output differs from perf's (args: $args)"
			diff -u <(tipless "$exp") <(tipless "$out") | head -20 | sed 's/^/    /'; }
		return 1
	fi
	return 0
}

pass=0 fail=0 pending=0 pending_ok=0 threaded=0 states=0
is_pending() { grep -q "^$1 " "$FIX/PENDING" 2>/dev/null; }

# The symbol index (analyze(1), SYMBOL INDEX) in the four states every case runs in: cold
# (an empty cache: the case's indexes are written), warm (they are mapped), corrupt (each
# with one byte changed, at a place that moves from case to case over header, key, probes,
# symbols and names: each is rejected and rebuilt) and off. Its log says which happened.
# A cold cache is a directory not made yet (analyze makes it), a new one for each case: the
# old ones go 64 at a time, a process for each step costing more than the runs it prepares.
SC="" SCLOG=$HOME/symcache.log flips=0 warm_hits=0 nr_caches=0
symcache_state() {
	local -a files
	case $1 in
	cold) if ((nr_caches % 64 == 0)); then rm -rf "$HOME/symcache"; fi
	      nr_caches=$((nr_caches + 1))
	      SC=$HOME/symcache/$nr_caches ;;
	corrupt) files=("$SC"/*.sym)
		 if [ -f "${files[0]}" ]; then flips=$("$FLIP" "$flips" "${files[@]}") || return 1; fi ;;
	esac
	if [ "$1" = off ]; then export ANALYZE_SYMBOL_CACHE=off; else export ANALYZE_SYMBOL_CACHE=$SC; fi
	: >"$SCLOG"
	export ANALYZE_SYMBOL_CACHE_LOG=$SCLOG
}
# symcache_check STATE CASE: what the log of the run just made says, against the state (a
# run looks up the dsos it resolves samples in: -j1, without workers loading ahead, may
# look up fewer than the cold run wrote). The shell reads the log itself (see same).
symcache_check() {
	local why="" f line hit=0 bad written used
	local -a log
	mapfile -t log <"$SCLOG"
	case $1 in
	warm) for line in "${log[@]}"; do
		case $line in
		"write "* | "bad "*) why="a warm run wrote or rejected an index" ;;
		"miss "*) [ ! -e "${line#miss }" ] || why="a warm run missed an index that is there: ${line#miss }" ;;
		"hit "*) hit=1 ;;
		esac
	      done
	      warm_hits=$((warm_hits + hit)) ;;
	corrupt) for f in "$SC"/*.sym; do
		[ -f "$f" ] || continue
		bad=0 written=0 used=0
		for line in "${log[@]}"; do
			case $line in
			# a run that gave its parallel reading up builds its model again: it may
			# look the index up again, hitting the one it just wrote
			"hit $f"*) [ $written = 1 ] || why="a corrupt index was used: $f" ;;
			"bad $f"*) bad=1 used=1 ;;
			"write $f") written=1 used=1 ;;
			*" $f"*) used=1 ;;
			esac
		done
		if [ $used = 1 ] && [ $((bad & written)) = 0 ] && [ -z "$why" ]; then
			why="a corrupt index was not rejected and rebuilt: $f"
		fi
	      done ;;
	off) [ ${#log[@]} = 0 ] || why="a run without the cache used it" ;;
	esac
	[ -z "$why" ] && return 0
	echo "FAIL ${2}: symbol cache $1: $why"
	return 1
}
for dir in "$FIX"/*/; do
	dir=${dir%/}
	[ -f "$dir/cases" ] || continue
	only "$dir" || continue
	# git does not keep mtimes; perf's "captured on" line prints the file's mtime
	touch -d '2026-01-01 00:00:00 UTC' "$dir/perf.data"
	if [ -d "$dir/perf.data" ]; then touch -d '2026-01-01 00:00:00 UTC' "$dir/perf.data"/*; fi
	while read -r case args; do
		[ -n "$case" ] || continue
		if is_pending "${dir##*/}/$case"; then
			pending=$((pending + 1))
			if run_case "$dir" "$case" "$args" quiet; then
				pending_ok=$((pending_ok + 1))
				echo "note: ${dir##*/}/$case now matches perf: take it off tests/fixtures/PENDING"
			fi
		elif symcache_state cold && run_case "$dir" "$case" "$args -j 2"; then
			pass=$((pass + 1))
			# output is the same at every -j: two threads (cold, above), one (everything
			# inline) and more threads than this machine may have (workers racing to
			# read ahead, load symbols, aggregate), with the symbol index warm and then
			# corrupt
			for jobs_state in 1:warm 8:corrupt; do
				symcache_state "${jobs_state#*:}"
				if run_case "$dir" "$case" "$args -j ${jobs_state%:*}" &&
					symcache_check "${jobs_state#*:}" "${dir##*/}/$case"; then
					threaded=$((threaded + 1))
				else
					fail=$((fail + 1))
				fi
			done
			symcache_state off
			if run_case "$dir" "$case" "$args" && symcache_check off "${dir##*/}/$case"; then
				states=$((states + 1))
			else
				fail=$((fail + 1))
			fi
		else
			fail=$((fail + 1))
		fi
	done <"$dir/cases"
done

# Opposite-endian copies (tools/perf-byteswap) must give the same reports.
swapped=0
for dir in "$FIX"/*/; do
	dir=${dir%/}
	[ -f "$dir/cases" ] || continue
	only "$dir" || continue
	# perf-byteswap handles plain files only: not directories, pipe-mode files (header size
	# 16) or compressed ones (feature bit HEADER_COMPRESSED, 27: byte 72 + 3, bit 3)
	[ -f "$dir/perf.data" ] || continue
	[ "$(od -An -t u8 -j 8 -N 8 "$dir/perf.data" | tr -d ' ')" = 104 ] || continue
	[ $(($(od -An -t u1 -j 75 -N 1 "$dir/perf.data") & 8)) = 0 ] || continue
	DATA=$HOME/swapped.data
	"$BYTESWAP" "$dir/perf.data" "$DATA" || { echo "FAIL ${dir##*/}: perf-byteswap failed"; fail=$((fail + 1)); continue; }
	touch -d '2026-01-01 00:00:00 UTC' "$DATA"
	while read -r case args; do
		[ -n "$case" ] || continue
		case $case in dump*) continue ;; esac	# -D prints the input path
		! is_pending "${dir##*/}/$case" || continue
		if run_case "$dir" "$case" "$args"; then swapped=$((swapped + 1)); else fail=$((fail + 1)); fi
	done <"$dir/cases"
	unset DATA
done
# A reader that goes away: `analyze script | head -1` on more output than analyze buffers
# (1 MB) must end quietly with status 0, as perf script does.
GEN=${GEN:-$(dirname "$BYTESWAP")/gen-perfdata}
if "$GEN" -o "$HOME/pipe.data" --kallsyms "$HOME/pipe.kallsyms" --processes 2 --threads 2 \
	--samples 50000 >/dev/null 2>&1; then
	for jobs in 1 4; do
		st=$( { "$ANALYZE" script -j $jobs -i "$HOME/pipe.data" --kallsyms "$HOME/pipe.kallsyms" \
			2>"$HOME/pipe.err"; echo $? >"$HOME/pipe.status"; } | head -1 >/dev/null
			cat "$HOME/pipe.status")
		if [ "$st" = 0 ] && ! [ -s "$HOME/pipe.err" ]; then
			pass=$((pass + 1))
		else
			echo "FAIL script -j $jobs | head -1: status $st, stderr: $(head -1 "$HOME/pipe.err")"
			fail=$((fail + 1))
		fi
	done
else
	echo "FAIL gen-perfdata ($GEN) could not write the closed-pipe recording"
	fail=$((fail + 1))
fi

runner_stop || fail=$((fail + 1))
[ $dlfilters_built = 1 ] || { echo "FAIL tests/fixtures/build-dlfilters.sh"; fail=$((fail + 1)); }
echo "golden: $threaded cases also match with -j1 (symbol index warm) and -j8 (corrupt); cold runs -j2"
echo "golden: $states cases also match with the symbol index off; $warm_hits warm runs mapped indexes"
if [ -z "${GOLDEN_ONLY:-}" ] && [ "$warm_hits" -eq 0 ]; then
	echo "FAIL no warm run mapped a symbol index"
	fail=$((fail + 1))
fi
echo "golden: $swapped cases also match on opposite-endian copies"
echo "golden: $pending pending cases (tests/fixtures/PENDING), $pending_ok of them already match"
echo "golden: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
