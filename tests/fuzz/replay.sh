#!/usr/bin/env bash
# Replays every input the fuzzers found a bug with (tests/fuzz/regressions/) through the
# commands that read it: each run must end with status 0, or 1 and one error line naming the
# file and an offset; never a crash or a sanitizer report (make asan runs this too).
set -u
cd "$(dirname "$0")/../.."
ANALYZE=${ANALYZE:-./analyze}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export HOME=$WORK LC_ALL=C
pass=0 fail=0
for f in tests/fuzz/regressions/*; do
	for cmd in "report --stdio --kallsyms /dev/null" "report --header-only -I" \
		"script --show-task-events --show-mmap-events --kallsyms /dev/null" "tasks --mmaps"; do
		# shellcheck disable=SC2086
		timeout 20 "$ANALYZE" --buildid-dir "$WORK/none" $cmd -i "$f" >/dev/null 2>"$WORK/err" </dev/null
		st=$?
		if grep -q -E "Sanitizer|runtime error" "$WORK/err" || { [ $st -ne 0 ] && [ $st -ne 1 ]; } ||
			{ [ $st -eq 1 ] && { [ "$(wc -l <"$WORK/err")" -ne 1 ] || ! grep -q "$f: offset" "$WORK/err" ||
				grep -q -E ': $' "$WORK/err"; }; }; then
			echo "FAIL $f ($cmd): status $st"; head -3 "$WORK/err" | sed 's/^/    /'
			fail=$((fail + 1))
		else
			pass=$((pass + 1))
		fi
	done
done
echo "fuzz regressions: $pass passed, $fail failed"
[ $fail -eq 0 ]
