# Helpers shared by the bench scripts (sourced): the busy load, recording, timing.
# Expects WORK (output folder), SECONDS_TO_RECORD and RUNS to be set by the script.
# shellcheck shell=bash
TIMEIT=${TIMEIT:-build/tools/timeit}
ANALYZE=${ANALYZE:-./analyze}

# A busy mix on every CPU: compressors, hashing, sorting, and many short-lived processes.
LOAD='load() { end=$((SECONDS + T)); while [ $SECONDS -lt $end ]; do
	gzip -1 -c /usr/bin/perf >/dev/null
	sha256sum /usr/lib/x86_64-linux-gnu/*.so* >/dev/null 2>&1 || true
	for i in $(seq 20); do /bin/true; done
	seq 100000 | sort -R >/dev/null
done; }'

# record OUTPUT PERF-RECORD-ARGS...: the load on every CPU for SECONDS_TO_RECORD seconds
# (BENCH_REUSE=1 keeps an existing recording)
record() {
	local out=$1
	shift
	if [ "${BENCH_REUSE:-0}" = 1 ] && [ -e "$out" ]; then return; fi
	echo "bench: recording $SECONDS_TO_RECORD s into $out ($*)" >&2
	rm -rf "$out"
	perf record -q "$@" -o "$out" -- bash -c "T=$SECONDS_TO_RECORD; $LOAD; for c in \$(seq $(nproc)); do load & done; wait" \
		>/dev/null 2>"$WORK/record.log" || { cat "$WORK/record.log" >&2; exit 1; }
}

# warm: read the files and directories named in $WARM into the page cache. This VM's page
# cache holds about 2.7 GB and drops pages of files read minutes ago, so a timed run could
# otherwise read part of its input from the disk (a run of 0.2 s took 2.9 s so); every timed
# run is preceded by this, perf's and analyze's alike.
warm() {
	local f
	for f in ${WARM:-}; do
		if [ -d "$f" ]; then cat "$f"/* >/dev/null 2>&1 || true; else cat "$f" >/dev/null 2>&1 || true; fi
	done
}

# best_pair RUNS OUT_A OUT_B CMD_A... ::: CMD_B...: the two commands run in turn (A, B, A,
# B...), so that both meet the machine as it is at that moment (on a shared VM it can be half
# again slower for minutes); "tA kbA tB kbB" of the best run of each, their outputs (the same
# every run) in OUT_A and OUT_B
best_pair() {
	local n=$1 out_a=$2 out_b=$3 ta="" ma="" tb="" mb="" t m r
	local -a a=() b=()
	shift 3
	while [ "$1" != ":::" ]; do a+=("$1"); shift; done
	shift
	b=("$@")
	for ((r = 0; r < n; r++)); do
		warm
		read -r t m < <("$TIMEIT" "$out_a" "${a[@]}")
		if [ -z "$ta" ] || awk "BEGIN{exit !($t < $ta)}"; then ta=$t ma=$m; fi
		warm
		read -r t m < <("$TIMEIT" "$out_b" "${b[@]}")
		if [ -z "$tb" ] || awk "BEGIN{exit !($t < $tb)}"; then tb=$t mb=$m; fi
	done
	echo "$ta $ma $tb $mb"
}

ratio() { awk "BEGIN{ if ($2 > 0) printf \"%.2f\", $1 / $2; else print \"inf\" }"; }

# same A B: "yes" when the two outputs are the same but for perf's random tip line
same() {
	if diff <(grep -v '^# (Tip' "$1") <(grep -v '^# (Tip' "$2") >/dev/null
	then echo yes; else echo no; fi
}

# load_note: the machine's load when a bench began, for the text under its table
load_note() { awk '{printf "load average %s when it began", $1}' /proc/loadavg; }

samples() { perf report -i "$1" --stats 2>/dev/null | awk '/SAMPLE events:/ {print $3; exit}'; }
size_mb() { du -sm "$1" | cut -f1; }

# replace_section FILE HEADING SECTION-FILE: FILE's section from HEADING to the next "## "
# heading (or the end) becomes SECTION-FILE's text, followed by one blank line when another
# section follows; appended when FILE has no such section
replace_section() {
	local file=$1 heading=$2 section=$3 tmp
	tmp=$(mktemp)
	if [ -f "$file" ] && grep -qxF "$heading" "$file"; then
		awk -v h="$heading" -v s="$section" '
			$0 == h {
				last = "x"
				while ((getline line < s) > 0) { print line; last = line }
				skip = 1; next
			}
			skip && /^## / { if (last != "") print ""; skip = 0 }
			!skip { print }' "$file" >"$tmp"
	else
		{ [ -f "$file" ] && cat "$file" && echo; cat "$section"; } >"$tmp"
	fi
	mv "$tmp" "$file"
}

# merge_sections FILE NEW: every "## " section of NEW replaces its namesake in FILE (see
# replace_section), and NEW's text before its first section replaces FILE's; FILE's other
# sections are kept
merge_sections() {
	local file=$1 new=$2 dir heading f
	dir=$(mktemp -d)
	awk -v d="$dir" '
		/^## / { n++ }
		{ print > (d "/" sprintf("%03d", n)) }' "$new"
	[ -f "$dir/000" ] || : >"$dir/000"
	if [ -f "$file" ]; then
		awk '/^## / { found = 1 } found { print }' "$file" >"$dir/rest"
		cat "$dir/000" "$dir/rest" >"$file"
	else
		cp "$dir/000" "$file"
	fi
	for f in "$dir"/[0-9][0-9][0-9]; do
		[ "$f" = "$dir/000" ] && continue
		heading=$(head -1 "$f")
		# the section without its trailing blank lines
		awk '{ l[NR] = $0 } END { n = NR; while (n > 0 && l[n] == "") n--; for (i = 1; i <= n; i++) print l[i] }' \
			"$f" >"$f.trim"
		replace_section "$file" "$heading" "$f.trim"
	done
	rm -rf "$dir"
}
