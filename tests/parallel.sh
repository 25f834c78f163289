#!/usr/bin/env bash
# Which way report and script read a file (analyzer/passes), as ANALYZE_BUSY tells it:
# the parallel run where it can answer as the streaming path would, the streaming path where
# it cannot (and why), and the same output either way at every -j. golden.sh checks the
# output against perf's; this checks that the parallel run is the one that made it.
set -u
cd "$(dirname "$0")/.."
ANALYZE=$(realpath "${ANALYZE:-./analyze}")
FIX=tests/fixtures
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export HOME=$WORK LC_ALL=C TZ=UTC ANALYZE_SYMBOL_CACHE=$WORK/symcache
export ANALYZE_DEBUG_DIR=$WORK/no-debuginfo	# the host's debuginfo stays out, as in golden.sh
unset PERF_BUILDID_DIR
pass=0 fail=0
. tests/runner.sh	# event_dumps
# the --dlfilter cases' filters, as golden.sh builds them (@NAME.so in a case)
export PERF_EXEC_PATH=$WORK/exec
tests/fixtures/build-dlfilters.sh "$PERF_EXEC_PATH" analyzer/script ||
	{ echo "FAIL parallel: tests/fixtures/build-dlfilters.sh"; fail=$((fail + 1)); }

# path FIXTURE ARGS...: the "busy: path" line of a run of $cmd (report, then script) on
# FIXTURE
cmd=report
path() {
	local fix=$1
	shift
	ANALYZE_BUSY=1 "$ANALYZE" --buildid-dir "$FIX/buildid-cache" "$cmd" -i "$FIX/$fix/perf.data" \
		--kallsyms "$FIX/$fix/kallsyms" "$@" 2>&1 >/dev/null | sed -n 's/^busy: path //p'
}

# expect FIXTURE WANT ARGS...: the run goes the way WANT says
expect() {
	local fix=$1 want=$2 got
	shift 2
	got=$(path "$fix" "$@")
	if [ "$got" = "$want" ]; then
		pass=$((pass + 1))
	else
		echo "FAIL parallel: $cmd $fix $*: path '$got', want '$want'"
		fail=$((fail + 1))
	fi
}

# pieces FIXTURE CASE BYTES J ARGS...: the run of ARGS (a command and its options) with the
# file cut in pieces and chunks of BYTES bytes (ANALYZE_PARALLEL_BYTES), at -jJ, prints
# perf's output for CASE
tipless() { sed -E 's/^# \(Tip: .*\)$/# (Tip: <random>)/' "$1"; }
pieces() {
	local fix=$1 name=$2 bytes=$3 j=$4
	shift 4
	ANALYZE_PARALLEL_BYTES=$bytes "$ANALYZE" --buildid-dir "$FIX/buildid-cache" "$@" -j "$j" \
		-i "$FIX/$fix/perf.data" --kallsyms "$FIX/$fix/kallsyms" >"$WORK/out" 2>/dev/null
	case " $* " in *" --per-event-dump "*) event_dumps "$FIX/$fix/perf.data" >>"$WORK/out" ;; esac
	if cmp -s <(tipless "$WORK/out") <(tipless "$FIX/$fix/expected/$name.out"); then
		pass=$((pass + 1))
	else
		echo "FAIL parallel: $fix/$name in pieces of $bytes bytes at -j$j: not perf's output"
		fail=$((fail + 1))
	fi
}

# same FIXTURE ARGS...: the output at -j1, -j2 and -j8 is one
same() {
	local fix=$1 j
	shift
	for j in 1 2 8; do
		"$ANALYZE" --buildid-dir "$FIX/buildid-cache" report -j $j -i "$FIX/$fix/perf.data" \
			--kallsyms "$FIX/$fix/kallsyms" --stdio "$@" 2>&1 | grep -v '^# (Tip' >"$WORK/out.$j"
	done
	if cmp -s "$WORK/out.1" "$WORK/out.2" && cmp -s "$WORK/out.1" "$WORK/out.8"; then
		pass=$((pass + 1))
	else
		echo "FAIL parallel: $fix $*: the output differs between -j1, -j2 and -j8"
		fail=$((fail + 1))
	fi
}

# flat reports of files the model answers for
for fix in sysw sysw_exit threads tasktree twoev tracepoint gen_small gen_churn gen_turnover gen_lost; do
	expect "$fix" parallel --no-children
	same "$fix" --no-children
done
expect sysw parallel --sort pid,dso -j 4
expect gen_dsos parallel --sort dso,sym
expect sysw_g parallel --no-children -g none
# a --threads directory: a file a worker, in both passes (compressed too)
for fix in dir_sysw dir_z dir_core dir_cpu dir_none; do
	expect "$fix" parallel --no-children
	same "$fix" --no-children
done
# not such a run: call graphs, a lookup through perf's first tree, filters, a pipe
expect sysw_g streaming
expect sysw streaming --sort sym
expect sysw streaming --comms perf
expect sysw streaming --no-children --stats
expect twoev streaming --no-children --switch-on task-clock
# samples of threads perf record never saw start: pass 1 notes where they make them
expect gen_unannounced parallel --no-children
# given up, and read again the streaming way
expect gen_late "streaming, the parallel run given up: records out of order" --no-children
expect bts_late "streaming, the parallel run given up: an AUX-area trace"
same gen_unannounced --no-children
# branch mode (perf's default on branch stacks): an entry a branch, not the parallel run's
expect gen_branch streaming
same gen_branch --sort mispredict,in_tx,abort
# memory mode (--mem-mode): an entry of the sample's weight, not the parallel run's either
expect gen_mem streaming --mem-mode --sort mem
same gen_mem --mem-mode --sort sym,mem
same gen_late --no-children

# perf's warnings on stderr, either way: lost records (gen_lost, parallel), records out of
# order (gen_late, given up); golden.sh compares stdout only
for fix in gen_lost gen_late; do
	touch -d '2026-01-01 00:00:00 UTC' "$FIX/$fix/perf.data"
	"$ANALYZE" --buildid-dir "$FIX/buildid-cache" report -i "$FIX/$fix/perf.data" \
		--kallsyms "$FIX/$fix/kallsyms" --stdio >/dev/null 2>"$WORK/err"
	if cmp -s "$WORK/err" "$FIX/$fix/expected/default.err"; then
		pass=$((pass + 1))
	else
		echo "FAIL parallel: $fix: stderr is not perf's"
		diff "$FIX/$fix/expected/default.err" "$WORK/err" | head -5
		fail=$((fail + 1))
	fi
done

# pieces and chunks cut small (ANALYZE_PARALLEL_BYTES): many pieces falling in step, many
# partials folded; perf's output all the same, for every report case of these fixtures
for fix in sysw sysw_exit threads twoev gen_churn gen_lost gen_late gen_unannounced; do
	touch -d '2026-01-01 00:00:00 UTC' "$FIX/$fix/perf.data"	# perf's "captured on", as golden.sh
	while read -r name args; do
		case " $args " in *" script "* | *" annotate "* | *" -D "* | *" --stats "* | *" --header-only "* | *" --tasks "*) continue ;; esac
		for bytes in 64 4096; do
			set -f
			# shellcheck disable=SC2086
			pieces "$fix" "$name" $bytes 3 report $args
			set +f
		done
	done <"$FIX/$fix/cases"
done

# script: the same ways (analyzer/script/script_parallel.c), its lines merged by key
cmd=script
for fix in sysw sysw_exit threads twoev gen_small gen_churn gen_turnover gen_lost; do
	expect "$fix" parallel
done
expect twoev parallel -F sw:comm,tid,event,period
expect sysw streaming -C 1
expect sysw streaming --tid 24033
expect twoev streaming -d
expect tracepoint streaming
expect sysw_g streaming
expect dir_sysw streaming
expect gen_lost streaming --show-lost-events
expect gen_small streaming --dlfilter "$PERF_EXEC_PATH/dlfilters/dlfilter_test.so"
expect gen_unannounced parallel
expect gen_late "streaming, the parallel run given up: records out of order"

# every script case in pieces and chunks cut small, at -j1 and -j3: a run given up after
# it wrote some lines (gen_late) leaves the rest to the streaming path
for fix in sysw sysw_exit threads twoev gen_small gen_churn gen_turnover gen_lost gen_late \
	gen_unannounced tracepoint; do
	touch -d '2026-01-01 00:00:00 UTC' "$FIX/$fix/perf.data"
	while read -r name args; do
		case "$args " in "script "*) ;; *) continue ;; esac
		case " $args " in *" -D "*) continue ;; esac
		args=${args// @/ $PERF_EXEC_PATH/dlfilters/}
		for bytes in 64 4096; do
			for j in 1 3; do
				set -f
				# shellcheck disable=SC2086
				pieces "$fix" "$name" $bytes $j $args
				set +f
			done
		done
	done <"$FIX/$fix/cases"
done

echo "parallel: $pass passed, $fail failed"
[ "$fail" = 0 ]
