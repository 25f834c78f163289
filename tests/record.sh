#!/usr/bin/env bash
# analyze record: record small workloads of ours at test time (a command, -a, --threads, -z,
# -g, --call-graph dwarf, -c, a tracepoint, -p), then check that perf 6.1 reads every file
# without a warning and that perf report --stdio, perf report --tasks and perf script print
# what analyze report, tasks and script print on it; and that bad options and unavailable
# events fail as perf fails. Skips (exit 0, with the reason) where perf_event_open is not
# allowed; the comparisons skip where perf is not installed.
set -u
cd "$(dirname "$0")/.."
ANALYZE=$(realpath "${ANALYZE:-./analyze}")
export TZ=UTC LC_ALL=C
unset PERF_BUILDID_DIR
T=$(mktemp -d /tmp/analyze-record.XXXXXX)
trap 'rm -rf "$T"' EXIT
BID=$T/buildid-cache
fails=0 passes=0

fail() { echo "FAIL record: $*"; fails=$((fails + 1)); }
pass() { passes=$((passes + 1)); }

paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 3)
if [ "$(id -u)" != 0 ] && [ "$paranoid" -gt 1 ]; then
	echo "SKIP record: perf_event_open is not permitted (not root, perf_event_paranoid=$paranoid)"
	exit 0
fi
# the workloads, built in a neutral directory (their path is stored in the recordings)
cc -O1 -g -fno-omit-frame-pointer -o "$T/burn" tests/fixtures/src/burn.c || exit 1
if ! "$ANALYZE" --buildid-dir "$BID" record -o "$T/probe.data" -- true 2>"$T/probe.err"; then
	if grep -qE 'Access to performance monitoring|Permission denied|Operation not permitted' "$T/probe.err"; then
		echo "SKIP record: perf_event_open is not permitted: $(head -3 "$T/probe.err" | tr '\n' ' ')"
		exit 0
	fi
	echo "FAIL record: cannot record \`true': $(head -3 "$T/probe.err" | tr '\n' ' ')"
	exit 1
fi
have_perf=1
command -v perf >/dev/null || { have_perf=0; echo "SKIP record: perf is not installed: no comparisons with perf"; }
# tracepoints are found in tracefs, which a fresh machine may not have mounted: root mounts it
have_tracefs=1
if [ ! -d /sys/kernel/tracing/events ] && [ ! -d /sys/kernel/debug/tracing/events ]; then
	if [ "$(id -u)" = 0 ] && mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null &&
		[ -d /sys/kernel/tracing/events ]; then
		echo "record: mounted tracefs on /sys/kernel/tracing for the tracepoint cases"
	else
		have_tracefs=0
		echo "SKIP record: no tracefs (not mounted, and it cannot be): no tracepoint cases"
	fi
fi

tipless() { sed -E '/^# \((Tip: .*|Cannot load tips\.txt file.*)\)$/d' "$1"; }

# compare NAME DATA [PERF-COMMANDS]: perf reads DATA without a warning, and agrees with analyze
# (report and script with $FILTER's options added when set); with PIPE=1 both read DATA, a
# pipe-mode stream, on stdin (-i -)
compare() {
	local name=$1 data=$2 pc ac cmds=${3:-report --stdio|report --tasks|script} input
	[ -e "$data" ] || { fail "$name: no $data"; return; }
	input=$data
	[ "${PIPE:-0}" = 1 ] && input=-
	"$ANALYZE" --buildid-dir "$BID" report -i "$input" <"$data" >"$T/a.out" 2>"$T/a.err" ||
		{ fail "$name: analyze report failed: $(head -2 "$T/a.err")"; return; }
	[ $have_perf = 1 ] || { pass; return; }
	local IFS='|'
	for pc in $cmds; do
		IFS=' '
		case $pc in report\ --stdio) ac=report ;; report\ --tasks) ac=tasks ;; *) ac=script ;; esac
		local filter=${FILTER:-}
		[ "$ac" = tasks ] && filter=
		# shellcheck disable=SC2086
		perf --buildid-dir "$BID" $pc $filter -i "$input" <"$data" >"$T/p.out" 2>"$T/p.err"
		# shellcheck disable=SC2086
		"$ANALYZE" --buildid-dir "$BID" $ac $filter -i "$input" <"$data" >"$T/a.out" 2>"$T/a.err"
		if [ -s "$T/p.err" ]; then
			fail "$name: perf $pc warns: $(head -3 "$T/p.err" | tr '\n' ' ')"
		elif ! diff <(tipless "$T/p.out") <(tipless "$T/a.out") >"$T/diff"; then
			fail "$name: perf $pc and analyze $ac differ:"; head -10 "$T/diff"
		elif ! cmp -s "$T/p.err" "$T/a.err"; then
			fail "$name: analyze $ac's stderr differs: $(head -2 "$T/a.err")"
		else
			pass
		fi
	done
}

# rec NAME STATUS ARGS...: analyze record ARGS, expecting exit STATUS and perf's summary lines
rec() {
	local name=$1 want=$2 status
	shift 2
	"$ANALYZE" --buildid-dir "$BID" record "$@" >"$T/rec.out" 2>"$T/rec.err"
	status=$?
	if [ "$status" != "$want" ]; then
		fail "$name: exit $status, want $want: $(head -3 "$T/rec.err" | tr '\n' ' ')"
		return 1
	fi
	if ! grep -q '^\[ perf record: Captured and wrote .* MB ' "$T/rec.err"; then
		fail "$name: no summary line: $(head -3 "$T/rec.err" | tr '\n' ' ')"
		return 1
	fi
	pass
}

rec cmd 0 -o "$T/cmd.data" -- "$T/burn" 2 && compare cmd "$T/cmd.data"
rec status 3 -o "$T/status.data" -- sh -c 'exit 3' && compare status "$T/status.data"
rec freq 0 -F 999 -o "$T/freq.data" -- "$T/burn" 2 && compare freq "$T/freq.data"
rec period 0 -e task-clock -c 100000 -o "$T/period.data" -- "$T/burn" 2 && compare period "$T/period.data"
rec fp 0 -g -o "$T/fp.data" -- "$T/burn" 2 && compare fp "$T/fp.data"
# dwarf: analyze unwinds ld.so's startup frames with other inlined frames than perf (an
# unwinding difference, not the recording's), so only the task list is compared
rec dwarf 0 --call-graph dwarf,4096 -o "$T/dwarf.data" -- "$T/burn" 1 &&
	compare dwarf "$T/dwarf.data" "report --tasks"
# System-wide recordings hold other tasks' samples too. On a busy machine some come well after
# their task's EXIT (a sanitizer build's huge address space takes long to unmap), where
# analyze's model (threads retired 100 ms after EXIT, see README) names them ":tid" and perf by
# their comm: a reading difference, not the recording's. So report and script compare the
# workload's samples (--comms burn, the totals still every sample), tasks everything.
SYSW="--comms burn"
rec all 0 -a -o "$T/all.data" -- "$T/burn" 2 && FILTER=$SYSW compare all "$T/all.data"
rec cpu 0 -C 0 -o "$T/cpu.data" -- "$T/burn" 2 && FILTER=$SYSW compare cpu "$T/cpu.data"
# -C: every task, as perf records them, and only on CPU 0
if [ $have_perf = 1 ] && [ -e "$T/cpu.data" ]; then
	perf script -i "$T/cpu.data" -F cpu 2>/dev/null | sort -u | tr -d ' ' >"$T/cpus"
	[ "$(cat "$T/cpus")" = "[000]" ] && pass || fail "cpu: samples on CPUs $(tr '\n' ' ' <"$T/cpus")"
	perf script -i "$T/cpu.data" -F comm 2>/dev/null | sort -u | grep -qvx burn &&
		pass || fail "cpu: -C with a command recorded only the command"
fi
rec zstd 0 -z -o "$T/zstd.data" -- "$T/burn" 2 && compare zstd "$T/zstd.data"
rec threads 0 --threads -o "$T/threads.data" -- "$T/burn" 2 && compare threads "$T/threads.data"
rec threads_z 0 --threads=core -z 3 -m 16 -o "$T/threads_z.data" -- "$T/burn" 2 &&
	compare threads_z "$T/threads_z.data"
rec threads_all 0 --threads -a -o "$T/threads_all.data" -- "$T/burn" 2 &&
	FILTER=$SYSW compare threads_all "$T/threads_all.data"
# user masks (MAPS/AFFINITY pairs): with two CPUs, each drained by a thread on the other. A
# burn pinned to each CPU: an idle CPU takes no cpu-clock samples here, and its data.N could
# be empty
read -r cpu0 cpu1 < <(tr ',-' '  ' </sys/devices/system/cpu/online | awk '{print $1, $2}')
if [ -n "$cpu1" ]; then
	rec threads_user 0 --threads="$cpu0/$cpu1:$cpu1/$cpu0" -a -o "$T/threads_user.data" -- \
		sh -c 'taskset -c "$1" "$0" 2 & taskset -c "$2" "$0" 2; wait' "$T/burn" "$cpu0" "$cpu1" &&
		FILTER=$SYSW compare threads_user "$T/threads_user.data"
	[ -s "$T/threads_user.data/data.0" ] && [ -s "$T/threads_user.data/data.1" ] &&
		[ ! -e "$T/threads_user.data/data.2" ] && pass ||
		fail "threads_user: not one data.N a mask: $(ls "$T/threads_user.data" | tr '\n' ' ')"
fi
# a mask of one CPU: the others are not recorded (perf opens them and never reads them); a
# burn on each CPU, so that both have samples to record or leave out
rec threads_one 0 --threads="$cpu0/$cpu0" -a -o "$T/threads_one.data" -- \
	sh -c 'taskset -c "$1" "$0" 1 & taskset -c "${2:-$1}" "$0" 1; wait' "$T/burn" "$cpu0" "$cpu1" &&
	FILTER=$SYSW compare threads_one "$T/threads_one.data"
if [ $have_perf = 1 ] && [ -e "$T/threads_one.data" ]; then
	perf script -i "$T/threads_one.data" -F cpu 2>/dev/null | sort -u | tr -d ' []' >"$T/cpus"
	[ "$(cat "$T/cpus")" = "$(printf %03d "$cpu0")" ] && pass ||
		fail "threads_one: samples on CPUs $(tr '\n' ' ' <"$T/cpus")"
fi
[ $have_tracefs = 1 ] &&
	rec tracepoint 0 -e sched:sched_switch -e cpu-clock -a -o "$T/tp.data" -- "$T/burn" 2 &&
	FILTER=$SYSW compare tracepoint "$T/tp.data"
# -a with a command records every task, not only the command's
if [ $have_perf = 1 ] && [ $have_tracefs = 1 ] && [ -e "$T/tp.data" ]; then
	perf script -i "$T/tp.data" -F comm 2>/dev/null | sort -u | grep -qvx -e burn -e 'analyze' &&
		pass || fail "tracepoint: -a recorded only the workload"
fi
rec fallback 0 -e cycles -o "$T/cycles.data" -- true && compare fallback "$T/cycles.data"

# -o -: a pipe-mode stream on stdout (rec sends stdout to rec.out), the workload's stdout on
# stderr as perf sends it
# shellcheck disable=SC2016
rec pipe 0 -o - -- sh -c 'echo marker-$((6 * 7)); exec "$0" 2' "$T/burn" &&
	cp "$T/rec.out" "$T/pipe.data" && PIPE=1 compare pipe "$T/pipe.data"
grep -q marker-42 "$T/rec.err" && ! grep -q marker-42 "$T/pipe.data" && pass ||
	fail "pipe: the workload's stdout is not on stderr"
# tracepoints (their formats in a TRACING_DATA record), -z and -a; perf report --tasks fails
# on a pipe with tracing data (perf 6.1's own too: "failed to process type"), so not compared
[ $have_tracefs = 1 ] &&
	rec pipe_tp 0 -o - -e sched:sched_switch -e cpu-clock -a -z -- "$T/burn" 1 &&
	cp "$T/rec.out" "$T/pipe_tp.data" &&
	PIPE=1 FILTER=$SYSW compare pipe_tp "$T/pipe_tp.data" "report --stdio|script"
# a real pipe into perf script
if [ $have_perf = 1 ]; then
	"$ANALYZE" --buildid-dir "$BID" record -o - -- "$T/burn" 1 2>"$T/rec.err" |
		tee "$T/pipe_live.data" | perf --buildid-dir "$BID" script -i - >"$T/p.out" 2>"$T/p.err"
	"$ANALYZE" --buildid-dir "$BID" script -i - <"$T/pipe_live.data" >"$T/a.out" 2>"$T/a.err"
	if [ -s "$T/p.err" ] || ! [ -s "$T/p.out" ] || ! cmp -s "$T/p.out" "$T/a.out"; then
		fail "pipe_live: perf script -i - and analyze script differ: $(head -2 "$T/p.err")"
	else
		pass
	fi
fi

# -p: a running process, ended by SIGINT
"$T/burn" 20 &
burn=$!
"$ANALYZE" --buildid-dir "$BID" record -p $burn -o "$T/pid.data" 2>"$T/rec.err" &
recorder=$!
sleep 1.5	# the events are enabled after synthesis: slower under the sanitizers
kill -INT $recorder
wait $recorder && pass || fail "pid: exit $?: $(head -2 "$T/rec.err")"
kill $burn 2>/dev/null
wait $burn 2>/dev/null
compare pid "$T/pid.data"

# the build-id cache got the workload and the kernel
bid=$(perf buildid-list -i "$T/cmd.data" 2>/dev/null | awk '/burn/ {print $1}')
if [ $have_perf = 1 ]; then
	[ -n "$bid" ] && [ -e "$BID/.build-id/${bid:0:2}/${bid:2}" ] && pass ||
		fail "buildid cache: no $BID/.build-id entry for burn ($bid)"
fi

# errors: perf's messages and exit status
err() {	# NAME STATUS PATTERN ARGS...
	local name=$1 want=$2 pattern=$3 status
	shift 3
	"$ANALYZE" record "$@" >/dev/null 2>"$T/err"
	status=$?
	if [ "$status" != "$want" ] || ! grep -q -- "$pattern" "$T/err"; then
		fail "$name: exit $status (want $want), stderr: $(head -3 "$T/err" | tr '\n' ' ')"
	else
		pass
	fi
}
err nosuch 129 "event syntax error: 'nosuch'" -e nosuch -o "$T/x.data" true
err notp 129 'unknown tracepoint' -e sched:nosuch -o "$T/x.data" true
err hw 255 'The instructions event is not supported.' -e instructions -o "$T/x.data" true
err badopt 129 "unknown option \`nosuch'" --nosuch -o "$T/x.data" true
err nocmd 255 "Failed to collect 'cpu-clock:ppp' for the 'no-such-command' workload" \
	-o "$T/x.data" no-such-command
err nopid 255 "No such process" -p 999999999 -o "$T/x.data"
err cpulist 129 'invalid CPU list' -C 0,0 -o "$T/x.data" true
err nocpu 237 'Failed to initialize parallel data streaming masks' -C 4096 -o "$T/x.data" true
# --threads user masks: perf's messages and its -errno as the exit status
err mask_syntax 234 'Invalid thread maps or affinity specs' --threads=0 -o "$T/x.data" true
err mask_list 244 'Failed to initialize maps thread mask' --threads=0,0/0 -o "$T/x.data" true
err mask_cpu 237 'Failed to initialize affinity thread mask' --threads=0/4096 -o "$T/x.data" true
err mask_overlap 234 'Intersecting maps mask: 0' --threads=0/0:0/0 -o "$T/x.data" true
err mask_none 234 'Failed to initialize parallel data streaming masks' --threads=: -o "$T/x.data" true
if [ -n "$cpu1" ]; then
	err mask_affinity 234 "Intersecting affinity mask: $cpu0" \
		--threads="$cpu0/$cpu0:$cpu1/$cpu0" -o "$T/x.data" true
	err mask_empty 234 "Empty maps mask: $cpu1" --threads="$cpu1/$cpu0" -C "$cpu0" -o "$T/x.data" true
fi
err pipe_threads 255 'Parallel trace streaming is not available in pipe mode.' --threads -o - true
err callgraph 129 'Unknown --call-graph option value' --call-graph nosuch -o "$T/x.data" true

echo "record: $passes passed, $fails failed"
[ $fails = 0 ]
