# tests/runner.sh: run_analyze, for the test scripts that make many runs (sourced).
# run_analyze OUT ERR ARG...: $ANALYZE ARG... with stdout in OUT, stderr in ERR, stdin
# /dev/null; its exit status. With RUNNER (tools/batch, the checking builds) the runs are
# made in one process: under ASan its start and LSan's scan at its exit cost as much as a
# run. It gets the symbol index's variables as they are at each run (golden.sh changes
# them); a run that ends it (a sanitizer's report, RUNNER_TIMEOUT's alarm: status 124, as
# timeout(1)'s) gives its exit status, and the next starts it again. runner_stop, at the
# end, says whether its exit found a leak (LSan) or a reference left (refcheck) of any run.
RUNNER=${RUNNER:-} RUNNER_TIMEOUT=${RUNNER_TIMEOUT:-} runner_pid=""
run_analyze() {
	local out=$1 err=$2 var status
	local -a env=()
	shift 2
	if [ -z "$RUNNER" ]; then
		"$ANALYZE" "$@" >"$out" 2>"$err" </dev/null
		return
	fi
	for var in ANALYZE_SYMBOL_CACHE ANALYZE_SYMBOL_CACHE_LOG; do
		if [ -n "${!var+set}" ]; then env+=("$var=${!var}"); else env+=("$var"); fi
	done
	if [ -z "$runner_pid" ]; then
		coproc BATCH { exec "$RUNNER" ${RUNNER_TIMEOUT:+--timeout "$RUNNER_TIMEOUT"}; }
		runner_pid=$BATCH_PID runner_in=${BATCH[1]} runner_out=${BATCH[0]}
	fi
	printf '%s\0' "$out" "$err" ${#env[@]} "${env[@]}" $# "$@" >&"$runner_in"
	read -r status <&"$runner_out" && return "$status"
	wait "$runner_pid"
	status=$?
	runner_pid=""
	return $status
}
# runner_stop: the end of RUNNER's input; 1 (and why) when its exit found leaks
runner_stop() {
	local status
	[ -n "$runner_pid" ] || return 0
	exec {runner_in}>&-
	wait "$runner_pid"
	status=$?
	runner_pid=""
	[ $status = 0 ] && return 0
	echo "FAIL the in-process runs ($RUNNER) exited with status $status: leaks above?"
	return 1
}

# event_dumps DATA: the files --per-event-dump wrote beside DATA (DATA.EVENT.dump), each after a
# line naming it, in name order, on stdout; then gone (make-fixtures.sh appends perf's so)
event_dumps() {
	local - f
	set +f	# (callers may have globbing off for their cases' arguments)
	for f in "$1".*.dump; do
		[ -f "$f" ] || continue
		printf '==> %s <==\n' "${f##*/}"
		cat "$f"
		rm -f "$f"
	done
}
