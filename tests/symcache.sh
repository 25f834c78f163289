#!/usr/bin/env bash
# The symbol index end to end (analyze(1), SYMBOL INDEX): concurrent cold runs into one cache,
# changed bytes, cut, empty and foreign files and a directory where an index goes, a cache that
# cannot be written, `analyze symbol-cache`, the variables and defaults that say where it is,
# and a tiny size cap. The output is perf's, byte for byte (but the tip line, as golden.sh),
# whatever the cache holds; ANALYZE_SYMBOL_CACHE_LOG says what the cache did.
set -u
cd "$(dirname "$0")/.." || exit 1
ANALYZE=$(realpath "${ANALYZE:-./analyze}")
FIX=tests/fixtures
BIDS=$FIX/buildid-cache
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export HOME=$WORK/home LC_ALL=C TZ=UTC
mkdir -p "$HOME"
unset PERF_BUILDID_DIR XDG_CACHE_HOME ANALYZE_SYMBOL_CACHE ANALYZE_SYMBOL_CACHE_MAX \
	ANALYZE_SYMBOL_CACHE_LOG
export ANALYZE_DEBUG_DIR=$WORK/no-debuginfo
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL symcache: $*"; fail=$((fail + 1)); }

# Two fixtures whose reports resolve kernel, program and library symbols (callchains too)
C1=callchain/default C2=datafp/default
CASES="$C1 $C2"
for c in $CASES; do
	touch -d '2026-01-01 00:00:00 UTC' "$FIX/${c%/*}/perf.data"	# as golden.sh: git keeps no mtime
done
tipless() { sed -E 's/^# \((Tip: .*|Cannot load tips\.txt file.*)\)$/# (Tip: <random>)/' "$1"; }

# report FIXTURE/CASE OUT [GLOBAL OPTIONS...]: analyze report as golden.sh runs the case, with
# the global options before the command; stdout to OUT, stderr to OUT.err; its status
report() {
	local fx=${1%/*} case=${1#*/} out=$2 args
	shift 2
	args=$(grep "^$case " "$FIX/$fx/cases" | cut -d' ' -f2-)
	# shellcheck disable=SC2086
	"$ANALYZE" "$@" --buildid-dir "$BIDS" report -i "$FIX/$fx/perf.data" \
		--kallsyms "$FIX/$fx/kallsyms" $args >"$out" 2>"$out.err" </dev/null
}
# same FIXTURE/CASE OUT: OUT is what perf printed
same() { cmp -s <(tipless "$FIX/${1%/*}/expected/${1#*/}.out") <(tipless "$2"); }
# check WHAT FIXTURE/CASE OUT STATUS: status 0 and perf's output
check() {
	if [ "$4" -ne 0 ]; then
		bad "$1: ${2}: status $4: $(head -2 "$3.err")"
	elif ! same "$2" "$3"; then
		bad "$1: ${2}: the output differs from perf's"
		diff <(tipless "$FIX/${2%/*}/expected/${2#*/}.out") <(tipless "$3") | head -6 | sed 's/^/    /'
	else
		ok
	fi
}
indexes() { find "$1" -maxdepth 1 -type f -name '*.sym' 2>/dev/null | sort; }
count() { indexes "$1" | wc -l; }

# ---- 8 cold runs at once into one fresh cache, then a warm run that only maps ----
SC=$WORK/cache LOG=$WORK/log
pids=() cases=()
for i in 0 1 2 3 4 5 6 7; do
	c=$C1
	[ $((i % 2)) = 1 ] && c=$C2
	report "$c" "$WORK/cold.$i" --symbol-cache "$SC" &
	pids+=($!) cases+=("$c")
done
for i in 0 1 2 3 4 5 6 7; do
	wait "${pids[$i]}"
	check "cold run $i of 8 at once" "${cases[$i]}" "$WORK/cold.$i" $?
	[ -s "$WORK/cold.$i.err" ] && bad "cold run $i: stderr: $(head -2 "$WORK/cold.$i.err")"
done
leftover=$(find "$SC" -type f ! -name '*.sym')
[ -z "$leftover" ] && ok || bad "cold runs left files behind: $leftover"
[ "$(count "$SC")" -ge 4 ] && ok || bad "cold runs wrote $(count "$SC") indexes"
: >"$LOG"
for c in $CASES; do
	ANALYZE_SYMBOL_CACHE_LOG=$LOG report "$c" "$WORK/warm" --symbol-cache "$SC"
	check "warm run" "$c" "$WORK/warm" $?
done
if grep -qv '^hit ' "$LOG"; then
	bad "a warm run after concurrent writers did not only map: $(grep -v '^hit ' "$LOG" | head -3)"
else
	ok
fi
for f in $(indexes "$SC"); do	# every index was whole and valid, and used
	grep -q "^hit $f\$" "$LOG" || { bad "index $f was not used by a warm run"; break; }
done

# ---- one byte changed, at 64 places over a small index: rejected, rebuilt, same output ----
SC=$WORK/flip
report "$C1" "$WORK/out" --symbol-cache "$SC"
check "flip sweep, cold" "$C1" "$WORK/out" $?
# the smallest index this case uses
victim=$(for f in $(indexes "$SC"); do echo "$(stat -c %s "$f") $f"; done | sort -n | head -1 | cut -d' ' -f2)
cp "$victim" "$WORK/victim"
size=$(stat -c %s "$victim")
flip_fail=0
for ((k = 0; k < 64; k++)); do
	off=$((size * k / 64 + k % 3))
	[ "$off" -lt "$size" ] || off=$((size - 1))
	cp "$WORK/victim" "$victim"
	b=$(od -An -tu1 -j "$off" -N1 "$victim" | tr -d ' ')
	# shellcheck disable=SC2059
	printf "\\$(printf %o $(((b ^ (1 << (k % 8))) & 255)))" |
		dd of="$victim" bs=1 seek="$off" conv=notrunc status=none
	: >"$LOG"
	ANALYZE_SYMBOL_CACHE_LOG=$LOG report "$C1" "$WORK/out" --symbol-cache "$SC"
	status=$?
	first_bad=$(grep -n "^bad $victim: " "$LOG" | head -1 | cut -d: -f1)
	first_write=$(grep -n "^write $victim\$" "$LOG" | head -1 | cut -d: -f1)
	if [ "$status" -ne 0 ] || ! same "$C1" "$WORK/out"; then
		bad "flip at byte $off of $size: status $status or another output"
		flip_fail=1
	elif [ -z "$first_bad" ] || [ -z "$first_write" ] || [ "$first_bad" -gt "$first_write" ]; then
		bad "flip at byte $off of $size: the log does not say bad, then write: $(grep "$victim" "$LOG" | head -3)"
		flip_fail=1
	fi
	[ $flip_fail = 0 ] || break
done
[ $flip_fail = 0 ] && ok

# ---- damaged cache files: a cut index, an empty one, a directory in its place, foreign ----
damaged() {	# WHAT: run the case on the damaged cache, same output, no crash
	: >"$LOG"
	ANALYZE_SYMBOL_CACHE_LOG=$LOG report "$C1" "$WORK/out" --symbol-cache "$SC"
	check "$1" "$C1" "$WORK/out" $?
}
cp "$WORK/victim" "$victim"
head -c $((size / 2)) "$WORK/victim" >"$victim"
damaged "a cut index"
grep -q "^bad $victim: " "$LOG" && grep -q "^write $victim\$" "$LOG" && ok ||
	bad "a cut index was not rejected and rebuilt: $(grep "$victim" "$LOG")"
: >"$victim"
damaged "an empty index"
grep -q "^write $victim\$" "$LOG" && ok || bad "an empty index was not rebuilt"
head -c 100 "$WORK/victim" >"$victim"
damaged "an index cut inside its header"
grep -q "^write $victim\$" "$LOG" && ok || bad "an index cut in its header was not rebuilt"
rm -f "$victim" && mkdir "$victim"
damaged "a directory where an index goes"
[ -d "$victim" ] && ok || bad "the directory in an index's place was removed"
[ "$(wc -l <"$WORK/out.err")" -le 1 ] && ok || bad "a directory in an index's place: $(cat "$WORK/out.err")"
rmdir "$victim"
head -c 4096 /dev/urandom >"$SC/0123456789abcdef0123456789abcdef.sym"
printf 'ANZSYMIX but not an index\n' >"$SC/notes.sym"
cp "$WORK/victim" "$SC/fedcba9876543210fedcba9876543210.sym"	# an index under a name not its key's
damaged "foreign files with index names"
[ -f "$SC/notes.sym" ] && ok || bad "a foreign file was removed"
grep -q '^bad ' "$LOG" && bad "a foreign file was looked at: $(grep '^bad ' "$LOG" | head -2)" || ok

# ---- a cache that cannot be written (below a regular file: root ignores modes) ----
printf 'a file\n' >"$WORK/file"
report "$C1" "$WORK/out" --symbol-cache "$WORK/file/cache"
status=$?
if [ "$status" -ne 0 ] || ! same "$C1" "$WORK/out"; then
	bad "unwritable cache: status $status or another output"
elif [ "$(wc -l <"$WORK/out.err")" -ne 1 ] || ! grep -q "symbol cache $WORK/file/cache" "$WORK/out.err"; then
	bad "unwritable cache: not one warning: $(head -3 "$WORK/out.err")"
else
	ok
fi

# ---- analyze symbol-cache: where, how many, how big; --clear leaves foreign files ----
SC=$WORK/cache
n=$(count "$SC")
kib=$(find "$SC" -maxdepth 1 -type f -name '*.sym' -printf '%b\n' | awk '{ s += $1 * 512 } END { print int((s + 1023) / 1024) }')
"$ANALYZE" --symbol-cache "$SC" symbol-cache >"$WORK/sc" 2>&1
if grep -qx "symbol cache: $SC" "$WORK/sc" && grep -Eq "^indexes: +$n\$" "$WORK/sc" &&
	grep -Eq "^size: +$kib KiB of at most 1024 MiB\$" "$WORK/sc"; then
	ok
else
	bad "symbol-cache does not say $SC, $n indexes, $kib KiB: $(cat "$WORK/sc")"
fi
printf 'mine\n' >"$SC/README"
printf 'mine\n' >"$SC/notes.sym"
"$ANALYZE" --symbol-cache "$SC" symbol-cache --clear >"$WORK/sc" 2>&1 || bad "symbol-cache --clear: status $?"
if [ "$(count "$SC")" = 1 ] && [ -f "$SC/README" ] && [ -f "$SC/notes.sym" ] &&
	grep -Eq '^indexes: +0$' "$WORK/sc"; then
	ok
else
	bad "symbol-cache --clear left $(find "$SC" -type f | tr '\n' ' '): $(cat "$WORK/sc")"
fi
ANALYZE_SYMBOL_CACHE=$SC "$ANALYZE" symbol-cache | grep -qx "symbol cache: $SC" && ok ||
	bad "symbol-cache does not follow ANALYZE_SYMBOL_CACHE"
ANALYZE_SYMBOL_CACHE=off "$ANALYZE" symbol-cache | grep -q '^symbol cache: off' && ok ||
	bad "symbol-cache with ANALYZE_SYMBOL_CACHE=off does not say off"
"$ANALYZE" --no-symbol-cache symbol-cache | grep -q '^symbol cache: off' && ok ||
	bad "symbol-cache --no-symbol-cache does not say off"

# ---- off writes nothing; the defaults go where the manual says ----
for how in env option; do
	rm -rf "$HOME/.cache" "$WORK/env"
	if [ $how = env ]; then
		ANALYZE_SYMBOL_CACHE=off report "$C1" "$WORK/out"
	else
		ANALYZE_SYMBOL_CACHE=$WORK/env report "$C1" "$WORK/out" --no-symbol-cache
	fi
	check "cache off ($how)" "$C1" "$WORK/out" $?
	if [ -e "$HOME/.cache" ] || [ -e "$WORK/env" ]; then
		bad "cache off ($how) wrote: $(find "$HOME/.cache" "$WORK/env" 2>/dev/null | head -3)"
	else
		ok
	fi
done
where() {	# WHAT DIR [VAR=VALUE...]: the case, run with the variables, writes indexes to DIR
	local what=$1 dir=$2
	shift 2
	rm -rf "$HOME/.cache" "$WORK/xdg" "$WORK/env" "$WORK/opt"
	(
		# shellcheck disable=SC2163	# VAR=VALUE pairs
		[ $# -eq 0 ] || export "$@"
		"$ANALYZE" symbol-cache | grep -qx "symbol cache: $dir"
	) || bad "$what: symbol-cache does not say $dir"
	(
		# shellcheck disable=SC2163	# VAR=VALUE pairs
		[ $# -eq 0 ] || export "$@"
		report "$C1" "$WORK/out"
	)
	check "$what" "$C1" "$WORK/out" $?
	[ "$(count "$dir")" -gt 0 ] && ok || bad "$what: no index in $dir: $(find "$WORK" -name '*.sym' | head -3)"
}
where "the default" "$HOME/.cache/analyze"
where "XDG_CACHE_HOME" "$WORK/xdg/analyze" XDG_CACHE_HOME="$WORK/xdg"
where "a relative XDG_CACHE_HOME" "$HOME/.cache/analyze" XDG_CACHE_HOME=relative
where "ANALYZE_SYMBOL_CACHE" "$WORK/env" XDG_CACHE_HOME="$WORK/xdg" ANALYZE_SYMBOL_CACHE="$WORK/env"
[ -e "$WORK/xdg" ] && bad "ANALYZE_SYMBOL_CACHE: XDG_CACHE_HOME was written too" || ok
rm -rf "$WORK/env" "$WORK/opt"
ANALYZE_SYMBOL_CACHE=$WORK/env report "$C1" "$WORK/out" --symbol-cache "$WORK/opt"
check "--symbol-cache over ANALYZE_SYMBOL_CACHE" "$C1" "$WORK/out" $?
[ "$(count "$WORK/opt")" -gt 0 ] && [ ! -e "$WORK/env" ] && ok ||
	bad "--symbol-cache did not win over ANALYZE_SYMBOL_CACHE"
ANALYZE_SYMBOL_CACHE=off report "$C1" "$WORK/out" --symbol-cache "$WORK/opt2"
[ "$(count "$WORK/opt2")" -gt 0 ] && ok || bad "--symbol-cache did not win over ANALYZE_SYMBOL_CACHE=off"

# ---- a tiny cap: at most the newest index stays, the output is perf's ----
SC=$WORK/tiny
for round in cold warm; do
	for c in $CASES; do
		ANALYZE_SYMBOL_CACHE_MAX=1K report "$c" "$WORK/out" --symbol-cache "$SC"
		check "ANALYZE_SYMBOL_CACHE_MAX=1K, $round" "$c" "$WORK/out" $?
		[ "$(count "$SC")" -le 1 ] && ok ||
			bad "ANALYZE_SYMBOL_CACHE_MAX=1K: $(count "$SC") indexes kept ($round $c)"
	done
done
ANALYZE_SYMBOL_CACHE_MAX=1K "$ANALYZE" --symbol-cache "$SC" symbol-cache | grep -q 'of at most 1 KiB$' && ok ||
	bad "symbol-cache does not show ANALYZE_SYMBOL_CACHE_MAX=1K"

echo "symcache: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
