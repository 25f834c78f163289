#!/usr/bin/env bash
# Help as perf gives it: `analyze CMD -h` prints the usage on stderr with status 129;
# `analyze CMD --help` and `analyze help CMD` show the manual page through man(1) when man
# finds it (here: the pages rendered by the build, installed in a scratch MANPATH), else the
# usage on stdout, status 0; `analyze --version`. MAN_DIR: the rendered pages.
set -u
cd "$(dirname "$0")/.."
ANALYZE=$(realpath "${ANALYZE:-./analyze}")
MAN_DIR=${MAN_DIR:-build/man}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL help: $*"; fail=$((fail + 1)); }

mkdir -p "$WORK/man/man1"
cp "$MAN_DIR"/*.1 "$WORK/man/man1/" 2>/dev/null
for cmd in report script tasks flamegraph annotate record symbol-cache; do
	"$ANALYZE" $cmd -h >"$WORK/out" 2>"$WORK/err"
	st=$?
	[ $st -eq 129 ] && [ ! -s "$WORK/out" ] && grep -q "^ Usage: analyze $cmd " "$WORK/err" &&
		grep -q -- "--" "$WORK/err" && ok || bad "$cmd -h: status $st, $(head -2 "$WORK/err")"

	# no manual page to be found: the usage on stdout
	MANPATH=$WORK/none "$ANALYZE" $cmd --help >"$WORK/out" 2>"$WORK/err"
	st=$?
	[ $st -eq 0 ] && grep -q "^ Usage: analyze $cmd " "$WORK/out" && [ ! -s "$WORK/err" ] && ok ||
		bad "$cmd --help without a page: status $st, $(head -2 "$WORK/out" "$WORK/err")"

	if ! command -v man >/dev/null; then
		skip=$((skip + 1))
		continue
	fi
	# the page, through man (not a terminal: man prints it whole)
	for how in "$cmd --help" "help $cmd"; do
		MANPATH=$WORK/man MANWIDTH=80 "$ANALYZE" $how >"$WORK/out" 2>"$WORK/err"
		st=$?
		name=$(echo "analyze-$cmd" | tr a-z A-Z)
		[ $st -eq 0 ] && head -1 "$WORK/out" | grep -q "^$name(1)" &&
			grep -q "^NAME" "$WORK/out" && ok ||
			bad "analyze $how: status $st, $(head -2 "$WORK/out" "$WORK/err")"
	done
done
"$ANALYZE" --version >"$WORK/out"
grep -q -E '^analyze version [0-9a-z.-]+$' "$WORK/out" && ok || bad "--version: $(cat "$WORK/out")"
"$ANALYZE" -h >"$WORK/out"
grep -q "report" "$WORK/out" && grep -q "help" "$WORK/out" && ok || bad "-h: no command list"
"$ANALYZE" nonsense >/dev/null 2>"$WORK/err"
[ $? -eq 1 ] && grep -q "'nonsense' is not an analyze command" "$WORK/err" && ok ||
	bad "an unknown command"

echo "help: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
