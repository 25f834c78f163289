#!/usr/bin/env bash
# The progress line under a pseudo-terminal (util-linux script): drawn on stderr when it is a
# terminal, cleared before the output when stdout is that terminal too, never written
# otherwise or with --no-progress, and never a byte of difference in the output.
# ANALYZE_PROGRESS_DELAY_MS=0 draws at the first phase, so a small fixture shows it.
set -u
cd "$(dirname "$0")/.."
ANALYZE=$(realpath "${ANALYZE:-./analyze}")
FIX=tests/fixtures
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export HOME=$WORK LC_ALL=C TZ=UTC
unset PERF_BUILDID_DIR
export ANALYZE_DEBUG_DIR=$WORK/no-debuginfo
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL progress: $*"; fail=$((fail + 1)); }

if ! command -v script >/dev/null; then
	echo "progress: 0 passed, 0 failed, 1 skipped (no util-linux script for a pseudo-terminal)"
	exit 0
fi

# ARGS of a command on the callchain fixture, as a shell line
args() {	# COMMAND [ARGS...]
	local cmd=$1
	shift
	if [ "$cmd" = tasks ]; then
		printf '%q ' "$ANALYZE" tasks -i "$FIX/callchain/perf.data" "$@"
	else
		printf '%q ' "$ANALYZE" --buildid-dir "$FIX/buildid-cache" "$cmd" \
			-i "$FIX/callchain/perf.data" --kallsyms "$FIX/callchain/kallsyms" "$@"
	fi
}

# LINE run with the pseudo-terminal as its stdin, stdout and stderr (but for what LINE
# redirects itself); what the terminal showed goes to FILE.
on_tty() {	# FILE LINE
	script -q -e -c "$2" /dev/null </dev/null >"$1" 2>&1
}

CLEAR=$'\r\033[K'
for cmd in report script tasks flamegraph; do
	extra=()
	[ $cmd = flamegraph ] && extra=(--folded -o -)
	line=$(args $cmd "${extra[@]}")
	eval "$line" >"$WORK/$cmd.want" 2>"$WORK/$cmd.err" || bad "$cmd: status $?"

	# stderr a terminal, stdout a file: the line is drawn, then cleared; the output is the same
	ANALYZE_PROGRESS_DELAY_MS=0 on_tty "$WORK/tty" "$line >$WORK/out"
	if grep -q "analyze $cmd: reading" "$WORK/tty" && [ "$(tail -c 4 "$WORK/tty")" = "$CLEAR" ]; then
		ok
	else
		bad "$cmd, stderr a terminal: no progress line drawn and cleared: $(head -c 200 "$WORK/tty" | cat -v)"
	fi
	cmp -s "$WORK/$cmd.want" "$WORK/out" && ok || bad "$cmd: the output differs with the progress line"

	# --no-progress, and the default delay on a run this short: nothing on the terminal
	ANALYZE_PROGRESS_DELAY_MS=0 on_tty "$WORK/tty" "$line --no-progress >$WORK/out"
	[ ! -s "$WORK/tty" ] && cmp -s "$WORK/$cmd.want" "$WORK/out" && ok ||
		bad "$cmd --no-progress: the terminal shows $(head -c 100 "$WORK/tty" | cat -v)"
	on_tty "$WORK/tty" "$line >$WORK/out"
	[ ! -s "$WORK/tty" ] && ok || bad "$cmd: a line within the first half second: $(head -c 100 "$WORK/tty" | cat -v)"

	# stderr not a terminal: not a byte of it
	ANALYZE_PROGRESS_DELAY_MS=0 on_tty "$WORK/tty" "$line >$WORK/out 2>$WORK/err"
	cmp -s "$WORK/$cmd.err" "$WORK/err" && ! grep -q $'\033' "$WORK/err" && ok ||
		bad "$cmd: stderr not a terminal got $(head -c 100 "$WORK/err" | cat -v)"
done

# stdout the same terminal: the line comes first and is cleared before any output, which
# then reads as without it (the terminal turns each \n into \r\n)
line=$(args report)
ANALYZE_PROGRESS_DELAY_MS=0 on_tty "$WORK/tty" "$line"
if grep -q "analyze report: reading" "$WORK/tty"; then ok; else bad "report to the terminal: no line"; fi
# what follows the last clearing of the line
perl -0777 -ne 'my @p = split /\r\e\[K/; print $p[-1]' "$WORK/tty" | tr -d '\r' >"$WORK/after"
if cmp -s "$WORK/report.want" "$WORK/after" && ! grep -q "analyze report: " "$WORK/after"; then
	ok
else
	bad "report to the terminal: the output after the line differs"
	diff "$WORK/report.want" "$WORK/after" | head -5
fi
# and nothing of the output came before the line was cleared
head_bytes=$(perl -0777 -ne 'my @p = split /\r\e\[K/; print join("", @p[0 .. $#p - 1])' "$WORK/tty")
case "$head_bytes" in
"# "* | *"Samples"*) bad "report to the terminal: output before the line was cleared" ;;
*) ok ;;
esac

# script writes as it reads: to the terminal the output is the progress, and no line is drawn
line=$(args script)
ANALYZE_PROGRESS_DELAY_MS=0 on_tty "$WORK/tty" "$line"
tr -d '\r' <"$WORK/tty" >"$WORK/after"
cmp -s "$WORK/script.want" "$WORK/after" && ok || bad "script to the terminal: $(grep -c 'analyze script:' "$WORK/tty") progress lines, or other output"

echo "progress: $pass passed, $fail failed"
[ $fail -eq 0 ]
