#!/usr/bin/env bash
# analyze flamegraph end to end: the SVG of a -g fixture opened in a real browser (headless
# Chromium: its script runs, its DOM is dumped), checked against the tool's own folded stacks
# (which the golden tests check against perf): the top frames are drawn with their samples
# and a width, and `#zoom=NAME&search=REGEX` in the URL zooms and searches on load. Also the
# command's errors: no samples, nothing left by a filter, an output it cannot write.
# CHROMIUM=0 skips the browser (the sanitizer builds: the SVG is still written and checked).
set -u
cd "$(dirname "$0")/.."
ANALYZE=${ANALYZE:-./analyze}
CHROMIUM=${CHROMIUM:-chromium}
FIX=tests/fixtures
CACHE=$FIX/buildid-cache
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export HOME=$WORK LC_ALL=C TZ=UTC
unset PERF_BUILDID_DIR
export ANALYZE_DEBUG_DIR=$WORK/no-debuginfo
pass=0 fail=0

ok() { pass=$((pass + 1)); }
bad() { echo "FAIL flamegraph: $*"; fail=$((fail + 1)); }

flamegraph() {	# FIXTURE ARGS...: analyze flamegraph on a fixture
	local fix=$1
	shift
	"$ANALYZE" --buildid-dir "$CACHE" flamegraph -i "$FIX/$fix/perf.data" \
		--kallsyms "$FIX/$fix/kallsyms" "$@" </dev/null
}

# the frame of NAME with the most samples in a DOM dump: "samples width class"
frame_of() {	# DUMP NAME
	awk -v name="$2" '
	index($0, "<title>" name " (") {
		t = $0; sub(/.*<title>/, "", t); sub(/ samples.*/, "", t); sub(/.* \(/, "", t)
		gsub(/,/, "", t)
		w = $0; sub(/.*<rect[^>]* width="/, "", w); sub(/".*/, "", w)
		c = $0; sub(/^[^"]*class="/, "", c); sub(/".*/, "", c); gsub(/ /, "+", c)
		if (t + 0 > best) { best = t + 0; out = t " " w " " c }
	}
	END { print out }' "$1"
}

# --- the SVG of fg_deep (deep paths, recursion) and what its folded stacks say ---------------
FG=fg_deep
if ! flamegraph $FG --folded >"$WORK/folded" 2>"$WORK/err"; then
	bad "--folded on $FG failed: $(head -1 "$WORK/err")"
fi
if ! flamegraph $FG -o "$WORK/fg.svg" --title 'deep <paths> & "recursion"' 2>"$WORK/err" ||
	[ -s "$WORK/err" ]; then
	bad "SVG of $FG: $(head -1 "$WORK/err")"
fi
total=$(awk '{ n += $NF } END { print n + 0 }' "$WORK/folded")
# every comm (the root's children) and its samples
awk '{ split($1, f, ";"); n[f[1]] += $NF } END { for (c in n) print c, n[c] }' "$WORK/folded" |
	sort >"$WORK/comms"
# samples under a frame called work (each stack once), and under path_b
work=$(awk '$1 ~ /;work(;|$)/ { n += $NF } END { print n + 0 }' "$WORK/folded")
path_b=$(awk '$1 ~ /;path_b(;|$)/ { n += $NF } END { print n + 0 }' "$WORK/folded")
[ "$total" -gt 100 ] && [ "$work" -gt 0 ] && [ "$path_b" -gt 0 ] ||
	bad "$FG's folded stacks: $total samples, $work under work, $path_b under path_b"

grep -q '<title>deep &lt;paths&gt; &amp; &quot;recursion&quot;</title>\|>deep &lt;paths&gt; &amp; &quot;recursion&quot;</text>' \
	"$WORK/fg.svg" && ok || bad "the title is not in the SVG, escaped"
# self-contained: nothing fetched (the namespace name is not a fetch)
if grep -v 'xmlns="http://www.w3.org/2000/svg"' "$WORK/fg.svg" | grep -q -i -E 'href|@import|url\([^#]|https?:'; then
	bad "the SVG refers to something outside itself"
else
	ok
fi
# deterministic: the same input, the same bytes (with any number of threads)
flamegraph $FG -j 1 -o "$WORK/fg1.svg" --title 'deep <paths> & "recursion"' 2>/dev/null
cmp -s "$WORK/fg.svg" "$WORK/fg1.svg" && ok || bad "the SVG differs between -j 1 and the default"

# --- in the browser -----------------------------------------------------------------------
dump() {	# URL OUT
	timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
		--no-first-run --disable-extensions --user-data-dir="$WORK/profile" \
		--dump-dom "$1" >"$2" 2>"$WORK/chromium.err"
}
if [ "$CHROMIUM" = 0 ]; then
	echo "flamegraph: browser checks skipped (CHROMIUM=0)"
elif ! command -v "$CHROMIUM" >/dev/null; then
	bad "no $CHROMIUM to open the SVG in: install Debian's chromium (make deps does, as root)"
else
	if ! dump "file://$WORK/fg.svg" "$WORK/dom" || ! grep -q '<g class="f"' "$WORK/dom"; then
		bad "chromium did not render the SVG: $(grep -v -i 'dbus\|fontconfig' "$WORK/chromium.err" | head -2)"
	else
		# the root and every comm: their samples, drawn with a width
		read -r n w c <<<"$(frame_of "$WORK/dom" all)"
		[ "${n:-}" = "$total" ] && [ "${w:-}" = 1180.0 ] && ok ||
			bad "the root frame: '$n' samples, width '$w' (want $total, 1180.0)"
		while read -r comm want; do
			read -r n w c <<<"$(frame_of "$WORK/dom" "$comm")"
			[ "${n:-}" = "$want" ] && awk -v w="${w:-0}" 'BEGIN { exit !(w > 0) }' && ok ||
				bad "comm $comm: '$n' samples, width '$w' (want $want samples)"
		done <"$WORK/comms"
		read -r n w c <<<"$(frame_of "$WORK/dom" work)"
		[ "${n:-0}" -gt 0 ] && awk -v w="${w:-0}" 'BEGIN { exit !(w > 0) }' && ok ||
			bad "no frame of work drawn"
		# no box without a width; labels were set
		grep -q '<rect[^>]* width="0\.0"' "$WORK/dom" && bad "a box of width 0" || ok
		grep -q '<text x="13.0" y="[0-9.]*">all</text>' "$WORK/dom" && ok ||
			bad "the root's label is not 'all'"
		grep -q 'id="unzoom" class="hide"' "$WORK/dom" && ok || bad "Reset Zoom shown before a zoom"
	fi
	# zoom on path_b, search for work: the script ran on load
	if ! dump "file://$WORK/fg.svg#zoom=path_b&search=%5Ework%24" "$WORK/zoomed" ||
		! grep -q '<g class="f' "$WORK/zoomed"; then
		bad "chromium did not render the zoomed SVG: $(head -2 "$WORK/chromium.err")"
	else
		grep -q 'data-zoomed="path_b"' "$WORK/zoomed" && ok || bad "#zoom=path_b did not zoom"
		read -r n w c <<<"$(frame_of "$WORK/zoomed" path_b)"
		[ "${n:-}" = "$path_b" ] && [ "${w:-}" = 1180.0 ] && ok ||
			bad "zoomed path_b: '$n' samples, width '$w' (want $path_b, 1180.0)"
		read -r n w c <<<"$(frame_of "$WORK/zoomed" all)"
		[ "${c:-}" = f+parent ] && [ "${w:-}" = 1180.0 ] && ok ||
			bad "zoomed: the root is '$c', width '$w' (want a dimmed parent)"
		read -r n w c <<<"$(frame_of "$WORK/zoomed" walk)"
		[ "${c:-}" = f+hide ] && ok || bad "zoomed: walk is '$c' (want hidden)"
		grep -q 'id="unzoom" class=""\|id="unzoom" x=' "$WORK/zoomed" && ok ||
			bad "zoomed: Reset Zoom is not shown"
		grep -q "data-matched=\"$work\"" "$WORK/zoomed" && ok ||
			bad "search ^work\$: $(grep -o 'data-matched="[0-9]*"' "$WORK/zoomed") (want $work samples)"
		grep -q '<text id="matched"[^>]*>Matched: [0-9.]*%</text>' "$WORK/zoomed" && ok ||
			bad "search: no 'Matched: N%' line"
		grep -q '<title>work ([^<]*</title><rect[^>]*fill="rgb(230,0,230)"' "$WORK/zoomed" &&
			ok || bad "search: work is not highlighted"
	fi
fi

# --- a recording without callchains: comm and leaf ------------------------------------------
flamegraph burn -o "$WORK/burn.svg" 2>"$WORK/err" && grep -q '<title>burn_half (' "$WORK/burn.svg" &&
	ok || bad "burn (no callchains): no burn_half frame ($(head -1 "$WORK/err"))"

# --- errors -----------------------------------------------------------------------------------
expect_fail() {	# NAME WANT-STATUS GREP-PATTERN ARGS...
	local name=$1 want=$2 pattern=$3 st
	shift 3
	"$ANALYZE" --buildid-dir "$CACHE" flamegraph "$@" >"$WORK/out" 2>"$WORK/err" </dev/null
	st=$?
	if [ "$st" != "$want" ] || ! grep -q -- "$pattern" "$WORK/err"; then
		bad "$name: status $st (want $want), stderr: $(head -1 "$WORK/err")"
	else
		ok
	fi
}
expect_fail "no samples" 1 "gen_nosamples/perf.data has no samples: no flame graph written" \
	-i $FIX/gen_nosamples/perf.data -o "$WORK/none.svg"
[ -e "$WORK/none.svg" ] && bad "no samples: an SVG was written" || ok
expect_fail "no samples, pipe" 1 "has no samples" -i $FIX/pipe_nosamples/perf.data --folded
expect_fail "nothing left by --comms" 1 "has no samples left by --comms, --pid and --tid" \
	-i $FIX/$FG/perf.data --kallsyms $FIX/$FG/kallsyms --comms nosuchcomm
expect_fail "unwritable output" 1 "cannot write $WORK/no/such/dir.svg" \
	-i $FIX/$FG/perf.data --kallsyms $FIX/$FG/kallsyms -o "$WORK/no/such/dir.svg"
expect_fail "bad --width" 129 "width" --width 5
expect_fail "unknown option" 129 "unknown option" --no-such-option
expect_fail "missing input" 1 "no/such/perf.data" -i "$WORK/no/such/perf.data"

echo "flamegraph: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
