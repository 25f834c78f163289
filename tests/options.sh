#!/usr/bin/env bash
# perf's options against analyze's: every option perf 6.1's report, script and annotate list in
# their usage (kept in tests/fixtures/perf-help/, made by make.sh there) has a row in the table of
# perf's options in analyze's manual (analyzer/CMD/analyze-CMD.1.scd), which says what analyze
# does with it, and analyze does that:
#  - taken: analyze's usage lists it, with perf's short letter, and the test the row names
#    covers it (a golden case whose arguments use it, or a test script that runs it);
#  - refused: analyze stops on it with the reason the row gives, status 129.
# No option of perf's is missing from a table, none is taken without a test, none is refused
# without a reason. `tests/options.sh --write` remakes the tables from what analyze does (the
# tests found among the golden cases and the test scripts); the check is that the committed
# tables are what it finds. Bad command lines (perf-help/errors.cases) give perf's error line
# and status.
set -u
cd "$(dirname "$0")/.."
ANALYZE=${ANALYZE:-./analyze}
HELP=tests/fixtures/perf-help
FIX=tests/fixtures
WRITE=false
[ "${1:-}" = --write ] && WRITE=true
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
pass=0 fail=0

# "-X --long" or "- --long" a line: the options of a usage text (perf's or analyze's)
options_of() {
	sed -nE 's/^ {4}(-(.), )? *--([a-z0-9-]+).*/\2 \3/p' "$1" | awk '{ if (NF == 1) print "- " $1; else print }'
}

# Whether argument list ARGS uses option LONG (or SHORT): --long, --long=..., --no-long, -S...
uses() {	# LONG SHORT ARGS...
	local long=$1 short=$2 a
	shift 2
	for a in "$@"; do
		case $a in
		"--$long" | "--$long="* | "--no-$long") return 0 ;;
		--*) ;;
		-"$short"*) [ "$short" != - ] && return 0 ;;
		esac
	done
	return 1
}

# The first golden case of CMD whose arguments use the option, as fixture/case; else the
# first test script that runs it.
find_test() {	# CMD LONG SHORT
	local cmd=$1 long=$2 short=$3 f name args
	for f in "$FIX"/*/cases; do
		while read -r name args; do
			[ -z "$name" ] && continue
			case "$cmd:$args" in
			report:script* | report:flamegraph* | report:annotate* | report:*--sorted*) continue ;;
			script:script*) args=${args#script} ;;
			annotate:annotate*) args=${args#annotate} ;;
			script:* | annotate:*) continue ;;
			esac
			set -f
			# shellcheck disable=SC2086
			if uses "$long" "$short" $args; then
				set +f
				echo "$(basename "$(dirname "$f")")/$name"
				return
			fi
			set +f
		done <"$f"
	done
	for f in tests/*.sh; do
		[ "$f" = tests/options.sh ] && continue
		if grep -qE -- "--$long([ =\"']|$)" "$f" ||
			{ [ "$short" != - ] && grep -qE -- "$cmd .* -$short( |$)" "$f"; }; then
			echo "$f"
			return
		fi
	done
}

# Whether test T (fixture/case or a script) covers the option.
covers() {	# CMD LONG SHORT T
	local cmd=$1 long=$2 short=$3 t=$4 name args
	case $t in
	tests/*.sh)
		[ -f "$t" ] && { grep -qE -- "--$long([ =\"']|$)" "$t" ||
			{ [ "$short" != - ] && grep -qE -- "$cmd .* -$short( |$)" "$t"; }; }
		return ;;
	*/*)
		[ -f "$FIX/${t%%/*}/cases" ] || return 1
		args=$(awk -v n="${t#*/}" '$1 == n { $1 = ""; print; exit }' "$FIX/${t%%/*}/cases")
		[ -n "$args" ] || return 1
		[ "$cmd" = script ] && args=${args# script}
		[ "$cmd" = annotate ] && args=${args# annotate}
		set -f
		# shellcheck disable=SC2086
		uses "$long" "$short" $args
		local r=$?
		set +f
		return $r ;;
	esac
	return 1
}

# scdoc: an underscore or asterisk in a cell would start emphasis
escape() { sed -e 's/_/\\_/g' -e 's/\*/\\*/g'; }
unescape() { sed -e 's/\\_/_/g' -e 's/\\\*/*/g'; }

# The table rows of CMD from what analyze does: option|what|test, one a line.
derive() {	# CMD
	local cmd=$1 short long err what t
	"$ANALYZE" "$cmd" -h >/dev/null 2>"$WORK/usage"
	options_of "$WORK/usage" >"$WORK/ours"
	options_of "$HELP/$cmd.txt" | while read -r short long; do
		if grep -q " $long\$" "$WORK/ours"; then
			if ! grep -qx -- "$short $long" "$WORK/ours"; then
				echo "FAIL options: $cmd --$long: short letter not perf's -$short" >&2
			fi
			what=yes
			t=$(find_test "$cmd" "$long" "$short")
			[ -z "$t" ] && echo "FAIL options: $cmd --$long is taken, but no test covers it" >&2
			t=${t:--}
		else
			"$ANALYZE" "$cmd" "--$long" </dev/null >/dev/null 2>"$WORK/err"
			err=$(head -1 "$WORK/err")
			what=${err#"  Error: --$long: "}
			if [ "$what" = "$err" ]; then
				echo "FAIL options: $cmd --$long: neither taken nor refused ($err)" >&2
				what="?"
			fi
			t=-
		fi
		if [ "$short" = - ]; then echo "--$long|$what|$t"; else echo "-$short, --$long|$what|$t"; fi
	done
}

# The rows as the manual's table holds them (between the two comment lines).
table_rows() {	# PAGE
	awk '/^; perf-options: end/ { on = 0 } on && /^\|/ { row = substr($0, 4) } on && /^: / {
		what = substr($0, 4); t = "-"
		if (what ~ /^yes, tested by /) { t = substr(what, 16); what = "yes"; sub(/ case /, "/", t) }
		print row "|" what "|" t }
		/^; perf-options: begin/ { on = 1 }' "$1" | sed -e 's/\*//g' | unescape
}

# The table, in scdoc, from the rows.
table_text() {	# ROWS-FILE
	echo '; perf-options: begin (tests/options.sh --write makes the rows)'
	echo '[[ *perf'"'"'s option*'
	echo ':[ *analyze*'
	while IFS='|' read -r opt what t; do
		# (a space in it: a table's column breaks there)
		[ "$what" = yes ] && what="yes, tested by $(echo "$t" | sed '/^tests\//!s|^\([^/]*\)/\([^/]*\)$|\1 case \2|')"
		printf '|  *%s*\n:  %s\n' "$opt" "$(echo "$what" | escape)"
	done <"$1"
	echo
	echo '; perf-options: end'
}

for cmd in report script annotate; do
	page=analyzer/$cmd/analyze-$cmd.1.scd
	derive "$cmd" >"$WORK/rows" 2>"$WORK/problems"
	if [ -s "$WORK/problems" ]; then
		cat "$WORK/problems"
		fail=$((fail + $(wc -l <"$WORK/problems")))
	fi
	if $WRITE; then
		table_text "$WORK/rows" >"$WORK/table"
		awk -v table="$WORK/table" '
			/^; perf-options: begin/ { while ((getline l < table) > 0) print l; skip = 1; next }
			/^; perf-options: end/ { skip = 0; next }
			!skip' "$page" >"$WORK/page" && cp "$WORK/page" "$page"
		echo "options: $page: $(wc -l <"$WORK/rows") rows written"
		continue
	fi
	table_rows "$page" >"$WORK/table"
	if ! grep -q '^; perf-options: begin' "$page"; then
		echo "FAIL options: $page has no table of perf's options"
		fail=$((fail + 1))
		continue
	fi
	# each row the manual has, against what analyze does; each test named, against its option
	while IFS='|' read -r opt what t; do
		long=${opt##*--} short=-
		case $opt in -?,*) short=${opt:1:1} ;; esac
		if ! grep -qxF -- "$opt|$what|$t" "$WORK/rows"; then
			echo "FAIL options: $cmd $opt: the manual says '$what' ($t), analyze: $(grep -F -- "--$long|" "$WORK/rows" | head -1)"
			fail=$((fail + 1))
		elif [ "$what" = yes ] && ! covers "$cmd" "$long" "$short" "$t"; then
			echo "FAIL options: $cmd $opt: $t does not use it"
			fail=$((fail + 1))
		else
			pass=$((pass + 1))
		fi
	done <"$WORK/table"
	# every option of perf's has its row
	cut -d'|' -f1 "$WORK/rows" | while read -r opt; do
		grep -q -F -- "$opt|" "$WORK/table" || echo "FAIL options: $cmd $opt: perf has it, the manual's table does not"
	done >"$WORK/missing"
	if [ -s "$WORK/missing" ]; then
		cat "$WORK/missing"
		fail=$((fail + $(wc -l <"$WORK/missing")))
	fi
done

$WRITE && exit 0

# bad command lines: perf's first line of error and status (perf-help/errors.expected)
while read -r cmd args; do
	IFS= read -r want <&3
	set -f
	# shellcheck disable=SC2086
	"$ANALYZE" "$cmd" $args </dev/null >/dev/null 2>"$WORK/err"
	got="$?|$(head -1 "$WORK/err")"
	set +f
	if [ "$got" = "$want" ]; then
		pass=$((pass + 1))
	else
		echo "FAIL options: analyze $cmd $args: '$got', perf: '$want'"
		fail=$((fail + 1))
	fi
done <"$HELP/errors.cases" 3<"$HELP/errors.expected"

echo "options: $pass passed, $fail failed"
[ $fail -eq 0 ]
