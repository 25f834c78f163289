#!/usr/bin/env bash
# Bad input: truncated and corrupted copies of a fixture. Every one must end with exit status
# 1 and one error line naming the file and a byte offset: no crash, no hang, no silent output.
set -u
cd "$(dirname "$0")/.."
ANALYZE=${ANALYZE:-./analyze}
SRC=tests/fixtures/burn/perf.data
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export HOME=$WORK LC_ALL=C
unset PERF_BUILDID_DIR
pass=0 fail=0

# u64_at FILE OFFSET, u16_at FILE OFFSET: little-endian words. The record walks below read
# thousands of them from a fixture: words_of FIXTURE (in the shell that walks, not in a $(...))
# reads it once into an array of 16-bit words, and words of that file then come from the
# array without a process each. A fixture is never changed; the copies the cases change are
# read with od.
WORDS_FILE=""
WORDS=()
words_of() { mapfile -t WORDS < <(od -An -v -t u2 -w2 "$1" | tr -d ' '); WORDS_FILE=$1; }
# first_record TYPE FILE FROM END: the offset of the first record of TYPE at or after FROM,
# records stepping by header.size (nothing when none before END)
first_record() {
	local off=$3 WORDS_FILE WORDS
	words_of "$2"	# its own copy of the words, whatever the file
	while [ "$off" -lt "$4" ]; do
		if [ "${WORDS[off / 2]}" = "$1" ]; then echo "$off"; return; fi
		off=$((off + WORDS[(off + 6) / 2]))
	done
}
u16_at() {
	if [ "$1" = "$WORDS_FILE" ] && ! (($2 % 2)); then
		echo $((${WORDS[$2 / 2]:-0}))
	else
		od -An -t u2 -j "$2" -N 2 "$1" | tr -d ' '
	fi
}
u64_at() {
	local i=$(($2 / 2))
	# (a top word from 0x8000 on is past bash's signed 64 bits: od says it)
	if [ "$1" = "$WORDS_FILE" ] && ! (($2 % 2)) && ((${WORDS[i + 3]:-0} < 0x8000)); then
		echo $((${WORDS[i]:-0} + (${WORDS[i + 1]:-0} << 16) + (${WORDS[i + 2]:-0} << 32) +
			(${WORDS[i + 3]:-0} << 48)))
	else
		od -An -t u8 -j "$2" -N 8 "$1" | tr -d ' '
	fi
}
# put_le FILE OFFSET NBYTES VALUE: write VALUE little-endian
put_le() {
	local f=$1 off=$2 n=$3 v=$4 bytes="" byte i
	for ((i = 0; i < n; i++)); do	# printf -v: no subshell per byte
		printf -v byte '\\x%02x' $(((v >> (8 * i)) & 255))
		bytes+=$byte
	done
	printf "$bytes" | dd of="$f" bs=1 seek="$off" conv=notrunc status=none
}

# limited CMD...: CMD under a memory limit of 1 GB (section 14): an allocation sized from a
# hostile field fails it. ASan reserves terabytes of address space, so its builds are limited
# by ASan's own options instead of `ulimit -v`.
LIMITED=0
if ldd "$ANALYZE" 2>/dev/null | grep -q libasan; then
	limited() {
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}hard_rss_limit_mb=1024:max_allocation_size_mb=1024" "$@"
	}
else
	limited() {
		(ulimit -v 1048576 && "$@")
	}
fi

# run_cmd's limit on a run: a hang fails the case
TIMEOUT=20

# CMD=tasks: the same checks of `analyze tasks --mmaps` (section 10); CMD=script: of
# `analyze script` with task and mmap lines (section 11)
CMD=report
cmd_args() {	# FILE: the arguments of $CMD's run on FILE, in ARGS
	case $CMD in
	header) ARGS=(--buildid-dir "$WORK/none" report -i "$1" --header-only -I) ;;
	tasks) ARGS=(tasks -i "$1" --mmaps) ;;
	annotate) ARGS=(--buildid-dir tests/fixtures/buildid-cache annotate --stdio -i "$1") ;;
	script) ARGS=(--buildid-dir "$WORK/none" script -i "$1" --kallsyms /dev/null
		--show-task-events --show-mmap-events) ;;
	*) ARGS=(--buildid-dir "$WORK/none" report -i "$1" --kallsyms /dev/null) ;;
	esac
}
run_cmd() {	# FILE
	local -a ARGS
	if [ "$LIMITED" = 1 ]; then
		LIMITED=0 limited run_cmd "$@"
		return
	fi
	cmd_args "$1"
	timeout "$TIMEOUT" "$ANALYZE" "${ARGS[@]}"
}
# run_timed OUT ERR ARG...: analyze ARG... >OUT 2>ERR </dev/null, a hang failing it; with
# RUNNER (the checking builds) in one process for all (tests/runner.sh), but for the runs
# under a memory limit (LIMITED, which is a process's) or a longer TIMEOUT than its own
. tests/runner.sh
RUNNER_TIMEOUT=$TIMEOUT
run_timed() {
	if [ -n "$RUNNER" ] && [ "$LIMITED" = 0 ] && [ "$TIMEOUT" = "$RUNNER_TIMEOUT" ]; then
		run_analyze "$@"
		return
	fi
	local out=$1 err=$2
	shift 2
	timeout "$TIMEOUT" "$ANALYZE" "$@" >"$out" 2>"$err" </dev/null
}
run_cmd_to() {	# OUT ERR FILE: run_cmd FILE >OUT 2>ERR </dev/null
	local -a ARGS
	if [ "$LIMITED" = 1 ]; then
		run_cmd "$3" >"$1" 2>"$2" </dev/null
		return
	fi
	cmd_args "$3"
	run_timed "$1" "$2" "${ARGS[@]}"
}

# The error output read by the shell itself: on this kind of machine a process (wc, grep)
# costs more than the check, and the sweeps below make thousands of runs.
expect_error() {	# NAME FILE
	local name=$1 f=$2 status re
	local -a err
	[ "$CMD" = report ] || name="$CMD: $name"
	run_cmd_to "$WORK/out" "$WORK/err" "$f"
	status=$?
	mapfile err <"$WORK/err"	# each line with its newline: one line means one "\n"
	re="$f(/[^:]*)?: offset (0x[0-9a-f]+|[0-9])"
	if [ "$status" -ne 1 ]; then
		echo "FAIL $name: exit status $status (want 1)"; head -3 "$WORK/err" | sed 's/^/    /'
		fail=$((fail + 1))
	elif [ ${#err[@]} -ne 1 ] || [[ ${err[0]} != *$'\n' ]] || ! [[ ${err[0]} =~ $re ]]; then
		echo "FAIL $name: want one error line naming the file and offset, got:"
		head -3 "$WORK/err" | sed 's/^/    /'
		fail=$((fail + 1))
	else
		pass=$((pass + 1))
	fi
}

[ -f "$SRC" ] || { echo "bad-input: missing $SRC"; exit 1; }
size=$(stat -c %s "$SRC")
data_off=$(u64_at "$SRC" 40)
data_size=$(u64_at "$SRC" 48)

# 1. Truncated in the header and attrs, then in the records. Every byte of the header and
#    every 97th of the records is cut by check-sweep (tools/sweep.c, the same checks in-process,
#    for every fixture): here, as a process would meet them, every 3rd and every 499th.
for ((cut = 0; cut < size; cut += (cut < data_off + 64 ? 3 : 499))); do
	head -c "$cut" "$SRC" >"$WORK/t.data"
	expect_error "truncated at $cut" "$WORK/t.data"
done

# 2. Wrong magic.
cp "$SRC" "$WORK/m.data"; printf 'NOTPERF!' | dd of="$WORK/m.data" conv=notrunc status=none
expect_error "bad magic" "$WORK/m.data"

# 3. Sections pointing outside the file.
cp "$SRC" "$WORK/a.data"; put_le "$WORK/a.data" 24 8 $((size + 100))
expect_error "attrs offset past the end" "$WORK/a.data"
cp "$SRC" "$WORK/d.data"; put_le "$WORK/d.data" 48 8 $((size * 4))
expect_error "data size past the end" "$WORK/d.data"
cp "$SRC" "$WORK/d2.data"; put_le "$WORK/d2.data" 40 8 0x7ffffffffffffff0
expect_error "data offset near 2^63" "$WORK/d2.data"

# 4. An attr count that does not fit: attrs size claiming a million attrs, or a bad attr_size.
cp "$SRC" "$WORK/n.data"; put_le "$WORK/n.data" 32 8 $((1000000 * $(u64_at "$SRC" 16)))
expect_error "attr count does not fit" "$WORK/n.data"
cp "$SRC" "$WORK/z.data"; put_le "$WORK/z.data" 16 8 0
expect_error "attr_size 0" "$WORK/z.data"
cp "$SRC" "$WORK/z2.data"; put_le "$WORK/z2.data" 16 8 $(($(u64_at "$SRC" 16) + 8))
expect_error "attr_size not dividing the attrs section" "$WORK/z2.data"

# 5. Record sizes: 0, and one pointing past the end of the data section.
cp "$SRC" "$WORK/r0.data"; put_le "$WORK/r0.data" $((data_off + 6)) 2 0
expect_error "record of size 0" "$WORK/r0.data"
cp "$SRC" "$WORK/r1.data"; put_le "$WORK/r1.data" $((data_off + 6)) 2 4
expect_error "record of size 4" "$WORK/r1.data"
# walk to the last record and make it claim more than is left
words_of "$SRC"
off=$data_off end=$((data_off + data_size)) last=$data_off
while [ "$off" -lt "$end" ]; do last=$off; off=$((off + WORDS[(off + 6) / 2])); done
cp "$SRC" "$WORK/r2.data"; put_le "$WORK/r2.data" $((last + 6)) 2 65528
expect_error "last record past the data section" "$WORK/r2.data"

# 6. A feature section pointing outside the file.
cp "$SRC" "$WORK/f.data"; put_le "$WORK/f.data" $((data_off + data_size)) 8 $((size * 8))
expect_error "feature section past the end" "$WORK/f.data"

# 7. Not a file at all, and an empty file.
: >"$WORK/empty.data"
expect_error "empty file" "$WORK/empty.data"

# 8. Unknown but well-formed records are skipped and counted, and the report still comes out:
#    every FINISHED_ROUND (68) becomes type 99; without them everything is ordered at the end.
cp "$SRC" "$WORK/u.data"
off=$data_off n=0
while [ "$off" -lt "$end" ]; do
	if [ "${WORDS[off / 2]}" = 68 ]; then put_le "$WORK/u.data" "$off" 4 99; n=$((n + 1)); fi
	off=$((off + WORDS[(off + 6) / 2]))
done
"$ANALYZE" --buildid-dir "$WORK/none" report -i "$SRC" --kallsyms /dev/null >"$WORK/want" 2>/dev/null
"$ANALYZE" --buildid-dir "$WORK/none" report -i "$WORK/u.data" --kallsyms /dev/null >"$WORK/got" 2>"$WORK/err"
status=$?
if [ "$n" -gt 0 ] && [ $status -eq 0 ] && cmp -s "$WORK/want" "$WORK/got" &&
	grep -q "Found $n unknown events" "$WORK/err"; then
	pass=$((pass + 1))
else
	echo "FAIL unknown record types: status $status, $n patched"; head -3 "$WORK/err" | sed 's/^/    /'
	fail=$((fail + 1))
fi

# 9. Data directories and compressed records.
expect_ok_same() {	# NAME DIR-OR-FILE WANT-FILE
	"$ANALYZE" --buildid-dir "$WORK/none" report -i "$2" --kallsyms /dev/null >"$WORK/got" 2>"$WORK/err"
	if [ $? -eq 0 ] && cmp -s "$3" "$WORK/got"; then
		pass=$((pass + 1))
	else
		echo "FAIL $1: want the same report as the intact input"; head -3 "$WORK/err" | sed 's/^/    /'
		fail=$((fail + 1))
	fi
}
DIR=tests/fixtures/dir_none/perf.data
ZF=tests/fixtures/zfile/perf.data
"$ANALYZE" --buildid-dir "$WORK/none" report -i "$DIR" --kallsyms /dev/null >"$WORK/dir.want" 2>/dev/null
# an extra file that is not data.N is ignored, as perf ignores it
cp -r "$DIR" "$WORK/dir1.data"; echo "notes" >"$WORK/dir1.data/README"
expect_ok_same "extra file in a directory" "$WORK/dir1.data" "$WORK/dir.want"
# A data file left out: perf 6.1 reports what the other files hold, silently; analyze does
# too, with one warning naming the file: WANT-ERR is the pattern of the whole of stderr. The
# report is WANT-FILE, or without it one that differs from the intact directory's.
expect_left_out() {	# NAME DIR WANT-ERR [WANT-FILE]
	"$ANALYZE" --buildid-dir "$WORK/none" report -i "$2" --kallsyms /dev/null >"$WORK/got" 2>"$WORK/err"
	local status=$?
	if [ $status -eq 0 ] && [ "$(wc -l <"$WORK/err")" -eq 1 ] && grep -q -E "^$3\$" "$WORK/err" &&
		grep -q "^# Samples" "$WORK/got" &&
		if [ -n "${4:-}" ]; then cmp -s "$4" "$WORK/got"; else ! cmp -s "$WORK/dir.want" "$WORK/got"; fi; then
		pass=$((pass + 1))
	else
		echo "FAIL $1: want the report of the rest and one warning, got status $status:"
		head -3 "$WORK/err" | sed 's/^/    /'; fail=$((fail + 1))
	fi
}
# a missing data.N (a gap in the numbers): its number is named
cp -r "$DIR" "$WORK/dir2.data"; rm "$WORK/dir2.data/data.0"
expect_left_out "missing data.N" "$WORK/dir2.data" \
	"Warning: $WORK/dir2.data/data.0: missing \(the directory has data.1\): .*"
# an unreadable data.N (a link to nowhere): left out with the reason
cp -r "$DIR" "$WORK/dir5.data"; rm "$WORK/dir5.data/data.0"; ln -s nowhere "$WORK/dir5.data/data.0"
expect_left_out "unreadable data.N" "$WORK/dir5.data" \
	"Warning: $WORK/dir5.data/data.0: No such file or directory: .*"
# a directory without its data file
mkdir -p "$WORK/dir3.data"; cp "$DIR"/data.* "$WORK/dir3.data/"
timeout 20 "$ANALYZE" report -i "$WORK/dir3.data" >"$WORK/out" 2>"$WORK/err"
if [ $? -eq 1 ] && [ "$(wc -l <"$WORK/err")" -eq 1 ] && grep -q "dir3.data/data" "$WORK/err"; then
	pass=$((pass + 1))
else
	echo "FAIL directory without data: $(head -1 "$WORK/err")"; fail=$((fail + 1))
fi
# a data.N cut inside a record: the records before it are read, as from a file cut where
# that record starts (the offset the warning names), which gives no warning
cp -r "$DIR" "$WORK/dir4.data"; f=$(ls -S "$WORK/dir4.data"/data.* | head -1)
head -c $(($(stat -c %s "$f") - 5)) "$f" >"$f.cut" && mv "$f.cut" "$f"
"$ANALYZE" --buildid-dir "$WORK/none" report -i "$WORK/dir4.data" --kallsyms /dev/null >/dev/null 2>"$WORK/err"
at=$(sed -n 's/.*inside the record at offset \(0x[0-9a-f]*\).*/\1/p' "$WORK/err")
cp -r "$DIR" "$WORK/dir6.data"; g="$WORK/dir6.data/${f##*/}"
head -c $((${at:-0})) "$g" >"$g.cut" && mv "$g.cut" "$g"
"$ANALYZE" --buildid-dir "$WORK/none" report -i "$WORK/dir6.data" --kallsyms /dev/null >"$WORK/dir6.want" 2>"$WORK/err6"
if [ -n "$at" ] && [ ! -s "$WORK/err6" ]; then
	expect_left_out "data.N cut inside a record" "$WORK/dir4.data" \
		"Warning: $f: cut short inside the record at offset $at: its last [0-9]+ bytes are not in the output" \
		"$WORK/dir6.want"
else
	echo "FAIL data.N cut inside a record: no offset in the warning, or a warning for a file cut between records"
	head -2 "$WORK/err" "$WORK/err6" | sed 's/^/    /'; fail=$((fail + 1))
fi

# compressed records: find the first COMPRESSED (81) record of the -z file
zoff=$(u64_at "$ZF" 40)
first=$(first_record 81 "$ZF" "$zoff" $((zoff + $(u64_at "$ZF" 48))))
[ -n "$first" ] || { echo "FAIL: no COMPRESSED record in $ZF"; fail=$((fail + 1)); }
zsize=$(u16_at "$ZF" $((first + 6)))
# a truncated frame: the data section ends inside the first COMPRESSED record's payload
cp "$ZF" "$WORK/z1.data"; put_le "$WORK/z1.data" 48 8 $((first + zsize / 2 - zoff))
expect_error "truncated zstd frame" "$WORK/z1.data"
# a corrupt frame: garbage over the frame header
cp "$ZF" "$WORK/z2.data"; printf 'GARBAGE!GARBAGE!' | dd of="$WORK/z2.data" bs=1 seek=$((first + 8)) conv=notrunc status=none
expect_error "corrupt zstd frame" "$WORK/z2.data"
# a COMPRESSED record claiming more than the file holds
cp "$ZF" "$WORK/z3.data"; put_le "$WORK/z3.data" $((first + 6)) 2 65535
expect_error "compressed record claiming a huge size" "$WORK/z3.data"

# The truncations and corrupt files above, for another command ($CMD): the same errors.
sweep_as_report() {
	for ((cut = 0; cut < size; cut += (cut < data_off + 64 ? 7 : 1009))); do
		head -c "$cut" "$SRC" >"$WORK/t.data"
		expect_error "truncated at $cut" "$WORK/t.data"
	done
	for f in m a d d2 n z z2 r0 r1 r2 f empty; do
		expect_error "corrupt $f.data" "$WORK/$f.data"
	done
	# a data.N cut short: the rest is read, with the warning report gives
	run_cmd "$WORK/dir4.data" >"$WORK/out" 2>"$WORK/err" </dev/null
	local st=$?
	if [ $st -eq 0 ] && grep -q "^Warning: $WORK/dir4.data/data.[0-9]*: cut short inside the record at offset 0x" "$WORK/err"; then
		pass=$((pass + 1))
	else
		echo "FAIL $CMD: data.N cut inside a record: status $st"; head -3 "$WORK/err" | sed 's/^/    /'
		fail=$((fail + 1))
	fi
	for f in z1 z2 z3; do
		expect_error "corrupt compressed $f.data" "$WORK/$f.data"
	done
}

# 10. analyze tasks reads the same records (samples only for their time).
CMD=tasks
sweep_as_report

# 11. analyze script prints every sample as it comes, and its frames; also a recording with
#     callchains cut anywhere.
CMD=script
sweep_as_report
CC=tests/fixtures/callchain/perf.data
cc_data_off=$(u64_at "$CC" 40)
for ((cut = cc_data_off; cut < $(stat -c %s "$CC"); cut += 997)); do
	head -c "$cut" "$CC" >"$WORK/cc.data"
	expect_error "callchain recording truncated at $cut" "$WORK/cc.data"
done

# 12. Tracing data (the TRACING_DATA feature, libtraceevent's input): cut short anywhere, or
#     with garbage over its structure, analyze script fails with one error line naming the
#     file and offset; garbage inside a format's text may still parse (as in perf), but
#     never crashes or hangs.
TP=tests/fixtures/tracepoint/perf.data
feat_tab=$(($(u64_at "$TP" 40) + $(u64_at "$TP" 48)))	# bit 1 (TRACING_DATA) is the first
td_off=$(u64_at "$TP" "$feat_tab") td_size=$(u64_at "$TP" $((feat_tab + 8)))
for ((cut = 0; cut < td_size; cut += (cut < 64 ? 1 : 211))); do
	cp "$TP" "$WORK/td.data"; put_le "$WORK/td.data" $((feat_tab + 8)) 8 "$cut"
	expect_error "tracing data cut to $cut bytes" "$WORK/td.data"
done
cp "$TP" "$WORK/td.data"; printf 'NOTTRACE' | dd of="$WORK/td.data" bs=1 seek="$td_off" conv=notrunc status=none
expect_error "tracing data without its magic" "$WORK/td.data"
cp "$TP" "$WORK/td.data"; put_le "$WORK/td.data" $((td_off + 16)) 4 0
expect_error "tracing data with page size 0" "$WORK/td.data"
# magic (10 bytes), "0.6\0", endianness, long size, page size (u32); then "header_page\0",
# its size (u64) and bytes, "header_event\0", its size and bytes; then the ftrace format count
hp_size=$(u64_at "$TP" $((td_off + 32)))
he_size=$(u64_at "$TP" $((td_off + 40 + hp_size + 13)))
count_off=$((td_off + 40 + hp_size + 21 + he_size))
cp "$TP" "$WORK/td.data"; put_le "$WORK/td.data" "$count_off" 4 0x7fffffff
expect_error "tracing data with a huge format count" "$WORK/td.data"
cp "$TP" "$WORK/td.data"; put_le "$WORK/td.data" $((count_off + 4)) 8 0x7fffffffffff
expect_error "tracing data with a format larger than the section" "$WORK/td.data"
for ((at = 0; at < td_size; at += 97)); do
	cp "$TP" "$WORK/td.data"
	printf '\xff\xff\xff\xff\xff\xff\xff\xff' | dd of="$WORK/td.data" bs=1 seek=$((td_off + at)) \
		conv=notrunc status=none
	run_cmd "$WORK/td.data" >"$WORK/out" 2>"$WORK/err" </dev/null
	status=$?
	if [ $status = 0 ] || { [ $status = 1 ] && [ "$(wc -l <"$WORK/err")" = 1 ] &&
		grep -q -E "td.data: offset 0x[0-9a-f]+" "$WORK/err"; }; then
		pass=$((pass + 1))
	else
		echo "FAIL script: garbage at tracing data byte $at: status $status"
		head -3 "$WORK/err" | sed 's/^/    /'
		fail=$((fail + 1))
	fi
done
# the same in pipe mode: the bytes after the HEADER_TRACING_DATA (66) record
PT=tests/fixtures/pipe_trace/perf.data
tdrec=$(first_record 66 "$PT" 16 "$(stat -c %s "$PT")")
if [ -z "$tdrec" ]; then
	echo "FAIL: no TRACING_DATA record in $PT"; fail=$((fail + 1))
else
	cp "$PT" "$WORK/ptd.data"; printf 'NOTTRACE' | dd of="$WORK/ptd.data" bs=1 \
		seek=$((tdrec + 16)) conv=notrunc status=none
	expect_error "pipe: tracing data without its magic" "$WORK/ptd.data"
	cp "$PT" "$WORK/ptd.data"; put_le "$WORK/ptd.data" $((tdrec + 8)) 4 0x7ffffff0
	expect_error "pipe: tracing data larger than the file" "$WORK/ptd.data"
	head -c $((tdrec + 600)) "$PT" >"$WORK/ptd.data"
	expect_error "pipe: file cut inside the tracing data" "$WORK/ptd.data"
fi
CMD=report

# 13. --call-graph dwarf samples (user registers and stack): a stack dump claiming more than
#     it holds (perf: "user stack dump failure") or more than the record, registers without
#     the ip or the stack pointer (perf's unwinding fails: script prints those samples
#     without frames, report stops), garbage stacks and registers (whatever they unwind to,
#     never a crash or a hang).
DW=tests/fixtures/deep_dwarf/perf.data
DWK=tests/fixtures/deep_dwarf/kallsyms
DWC=tests/fixtures/buildid-cache
dw_attr=$(u64_at "$DW" 24)
dw_type=$(u64_at "$DW" $((dw_attr + 24)))
dw_regs=$(u64_at "$DW" $((dw_attr + 80)))
# dw_samples FILE: "offset-of-stack-size-field stack-size" of every sample
dw_samples() {
	local off end nregs=0 m=$dw_regs p size WORDS_FILE WORDS
	words_of "$1"	# its own copy of the words, whatever the file
	off=$(u64_at "$1" 40) end=$(($(u64_at "$1" 40) + $(u64_at "$1" 48)))
	while [ "$m" != 0 ]; do nregs=$((nregs + (m & 1))); m=$((m >> 1)); done
	while [ "$off" -lt "$end" ]; do
		if [ "${WORDS[off / 2]}" = 9 ]; then
			p=$((off + 8))
			for bit in 0x10000 0x1 0x2 0x4 0x8 0x40 0x200 0x80 0x100; do	# IDENTIFIER..PERIOD
				[ $((dw_type & bit)) = 0 ] || p=$((p + 8))
			done
			[ $((dw_type & 0x20)) = 0 ] || p=$((p + 8 + 8 * $(u64_at "$1" "$p")))	# CALLCHAIN
			[ "$(u64_at "$1" "$p")" = 0 ] && p=$((p + 8)) || p=$((p + 8 + 8 * nregs))	# REGS_USER
			echo "$p $(u64_at "$1" "$p")"
		fi
		off=$((off + WORDS[(off + 6) / 2]))
	done
}
dw_expect() {	# NAME WANT-STATUS CMD FILE [ARGS...]: that status; with 1, one line naming file and offset
	local name=$1 want=$2 cmd=$3 f=$4 status
	shift 4
	run_timed "$WORK/out" "$WORK/err" --buildid-dir "$DWC" "$cmd" -i "$f" --kallsyms "$DWK" "$@"
	status=$?
	if [ "$status" != "$want" ]; then
		echo "FAIL dwarf $cmd: $name: exit status $status (want $want)"; head -3 "$WORK/err" | sed 's/^/    /'
		fail=$((fail + 1))
	elif [ "$want" = 1 ] && { [ "$(wc -l <"$WORK/err")" -ne 1 ] || ! grep -q -E "$f: offset 0x[0-9a-f]+" "$WORK/err"; }; then
		echo "FAIL dwarf $cmd: $name: want one error line naming the file and offset, got:"
		head -3 "$WORK/err" | sed 's/^/    /'
		fail=$((fail + 1))
	else
		pass=$((pass + 1))
	fi
}
if [ "$((dw_type & 0x3000))" != $((0x3000)) ]; then
	echo "FAIL: $DW has no user registers and stack (sample_type $dw_type)"; fail=$((fail + 1))
else
	dw_samples "$DW" >"$WORK/dw.samples"
	read -r first_stack first_size <"$WORK/dw.samples"
	# the dump's dyn_size (after its bytes) larger than its size
	cp "$DW" "$WORK/dw1.data"; put_le "$WORK/dw1.data" $((first_stack + 8 + first_size)) 8 $((first_size + 8))
	dw_expect "dyn_size beyond the dump" 1 script "$WORK/dw1.data"
	dw_expect "dyn_size beyond the dump" 1 report "$WORK/dw1.data"
	# a dump size larger than the record
	cp "$DW" "$WORK/dw2.data"; put_le "$WORK/dw2.data" "$first_stack" 8 $((first_size * 64))
	dw_expect "stack size beyond the record" 1 script "$WORK/dw2.data"
	dw_expect "stack size beyond the record" 1 report "$WORK/dw2.data" --no-children -g none
	# registers without the ip (bit 8; bit 12, DS, instead keeps their number), then without
	# the stack pointer (bit 7; bit 13): perf's unwinding fails
	for swap in "$((1 << 8)) $((1 << 12)) ip" "$((1 << 7)) $((1 << 13)) sp"; do
		read -r clear set what <<<"$swap"
		cp "$DW" "$WORK/dw3.data"; put_le "$WORK/dw3.data" $((dw_attr + 80)) 8 $(((dw_regs & ~clear) | set))
		dw_expect "registers without the $what" 0 script "$WORK/dw3.data"
		if grep -q -P '^\t' "$WORK/out"; then
			echo "FAIL dwarf script: registers without the $what: frames printed"; fail=$((fail + 1))
		fi
		dw_expect "registers without the $what" 1 report "$WORK/dw3.data"
		dw_expect "registers without the $what, no call graphs" 0 report "$WORK/dw3.data" --no-children -g none
	done
	# garbage stacks: another sample's stack (shifted by a word), the file's own bytes, zeros
	cp "$DW" "$WORK/dw4.data"; cp "$DW" "$WORK/dw5.data"; cp "$DW" "$WORK/dw6.data"
	prev=""
	while read -r at size; do
		[ "$size" -gt 16 ] || continue
		if [ -n "$prev" ]; then
			dd if="$DW" of="$WORK/dw4.data" bs=64K skip=$((prev + 16)) seek=$((at + 8)) \
				count=$((size - 8)) iflag=skip_bytes,count_bytes oflag=seek_bytes \
				conv=notrunc status=none
		fi
		dd if="$DW" of="$WORK/dw5.data" bs=64K skip=$(u64_at "$DW" 40) seek=$((at + 8)) \
			count="$size" iflag=skip_bytes,count_bytes oflag=seek_bytes conv=notrunc status=none
		dd if=/dev/zero of="$WORK/dw6.data" bs=64K seek=$((at + 8)) count="$size" \
			iflag=count_bytes oflag=seek_bytes conv=notrunc status=none
		prev=$at
	done <"$WORK/dw.samples"
	for f in dw4 dw5 dw6; do
		for args in "" "-F ip,sym,dso,symoff"; do
			# shellcheck disable=SC2086
			dw_expect "garbage stack ($f) $args" 0 script "$WORK/$f.data" $args
		done
		dw_expect "garbage stack ($f)" 0 report "$WORK/$f.data" --no-children --sort sym
	done
	# garbage registers: every sampled register (but the abi word) set to the dump's first word
	cp "$DW" "$WORK/dw7.data"
	nregs=0 m=$dw_regs
	while [ "$m" != 0 ]; do nregs=$((nregs + (m & 1))); m=$((m >> 1)); done
	while read -r at size; do
		w=$(u64_at "$DW" $((at + 8)))
		for ((r = 1; r <= nregs; r++)); do put_le "$WORK/dw7.data" $((at - 8 * r)) 8 "$w"; done
	done < <(head -20 "$WORK/dw.samples")
	dw_expect "garbage registers" 0 script "$WORK/dw7.data"
	dw_expect "garbage registers" 0 report "$WORK/dw7.data" --no-children --sort sym
	# cut anywhere
	for ((cut = $(u64_at "$DW" 40); cut < $(stat -c %s "$DW"); cut += 16411)); do
		head -c "$cut" "$DW" >"$WORK/dw8.data"
		dw_expect "truncated at $cut" 1 script "$WORK/dw8.data"
	done
fi

# first_auxtrace FILE FROM END: the first AUXTRACE (71) record after FROM (no trace bytes
# come before it, so records step by header.size up to it)
first_auxtrace() { first_record 71 "$@"; }

# 14. AUX-area traces (tests/fixtures/bts: AUXTRACE_INFO first, then side band and AUXTRACE
#     records whose trace bytes follow them outside header.size): script decodes them.
AUX=tests/fixtures/bts/perf.data
if [ -f "$AUX" ]; then
	CMD=script
	aux_off=$(u64_at "$AUX" 40) aux_end=$(($(u64_at "$AUX" 40) + $(u64_at "$AUX" 48)))
	[ "$(u16_at "$AUX" "$aux_off")" = 70 ] || { echo "FAIL bts: AUXTRACE_INFO is not first"; fail=$((fail + 1)); }
	trace=$(first_auxtrace "$AUX" "$aux_off" "$aux_end")
	cp "$AUX" "$WORK/x1.data"; put_le "$WORK/x1.data" $((trace + 8)) 8 $((1 << 40))
	expect_error "AUXTRACE size past the end of the file" "$WORK/x1.data"
	cp "$AUX" "$WORK/x2.data"; put_le "$WORK/x2.data" $((trace + 8)) 8 $((aux_end - trace))
	expect_error "AUXTRACE size past the end of the data" "$WORK/x2.data"
	cp "$AUX" "$WORK/x3.data"; put_le "$WORK/x3.data" $((aux_off + 8)) 4 99
	expect_error "unknown AUX area type" "$WORK/x3.data"
	cp "$AUX" "$WORK/x4.data"; put_le "$WORK/x4.data" $((aux_off + 16 + 16)) 8 0
	expect_error "zero time multiplier (perf 6.1: SIGFPE)" "$WORK/x4.data"
	cp "$AUX" "$WORK/x5.data"; put_le "$WORK/x5.data" $((aux_off + 16 + 8)) 8 64
	expect_error "time shift of 64" "$WORK/x5.data"
	cp "$AUX" "$WORK/x6.data"; put_le "$WORK/x6.data" $((aux_off + 6)) 2 24
	expect_error "AUXTRACE_INFO too short for Intel BTS" "$WORK/x6.data"
	# the AUXTRACE feature (bit 18): its first entry pointing past the file, or elsewhere
	feats=$(u64_at "$AUX" 72) nth=0
	for ((b = 0; b < 18; b++)); do nth=$((nth + ((feats >> b) & 1))); done
	sec=$(u64_at "$AUX" $((aux_end + 16 * nth)))
	cp "$AUX" "$WORK/x7.data"; put_le "$WORK/x7.data" $((sec + 8)) 8 $((1 << 40))
	expect_error "AUXTRACE index entry past the end" "$WORK/x7.data"
	cp "$AUX" "$WORK/x8.data"; put_le "$WORK/x8.data" $((sec + 16)) 8 40
	expect_error "AUXTRACE index entry of the wrong size" "$WORK/x8.data"
	cp "$AUX" "$WORK/x9.data"; put_le "$WORK/x9.data" "$sec" 8 $((1 << 60))
	expect_error "AUXTRACE index count past its section" "$WORK/x9.data"
	# cut anywhere in the data (in trace bytes too)
	for ((cut = aux_off + 1; cut < aux_end; cut += 13)); do
		head -c "$cut" "$AUX" >"$WORK/x10.data"
		expect_error "bts truncated at $cut" "$WORK/x10.data"
	done
	# the reader steps over the trace bytes: report (no decoding) reads the file through
	if "$ANALYZE" --buildid-dir "$WORK/none" report -i "$AUX" --kallsyms /dev/null --stats \
		>"$WORK/out" 2>"$WORK/err" && grep -q "AUXTRACE events: *2" "$WORK/out"; then
		pass=$((pass + 1))
	else
		echo "FAIL bts: report --stats does not count its 2 AUXTRACE records"
		head -3 "$WORK/err" | sed 's/^/    /'
		fail=$((fail + 1))
	fi
	CMD=report
fi
# Intel PT (tests/fixtures/pt): its AUXTRACE_INFO's time fields, and trace bytes changed one
# at a time: perf's error samples ("instruction trace error"), never a crash.
PT=tests/fixtures/pt/perf.data
if [ -f "$PT" ]; then
	CMD=script
	pt_off=$(u64_at "$PT" 40) pt_end=$(($(u64_at "$PT" 40) + $(u64_at "$PT" 48)))
	[ "$(u16_at "$PT" "$pt_off")" = 70 ] || { echo "FAIL pt: AUXTRACE_INFO is not first"; fail=$((fail + 1)); }
	cp "$PT" "$WORK/p1.data"; put_le "$WORK/p1.data" $((pt_off + 16 + 16)) 8 0
	expect_error "PT: zero time multiplier (perf 6.1: SIGFPE)" "$WORK/p1.data"
	cp "$PT" "$WORK/p2.data"; put_le "$WORK/p2.data" $((pt_off + 16 + 8)) 8 64
	expect_error "PT: time shift of 64" "$WORK/p2.data"
	cp "$PT" "$WORK/p3.data"; put_le "$WORK/p3.data" $((pt_off + 6)) 2 64
	expect_error "PT: AUXTRACE_INFO too short for Intel PT" "$WORK/p3.data"
	cp "$PT" "$WORK/p4.data"; put_le "$WORK/p4.data" $((pt_off + 8)) 4 3
	expect_error "PT: unknown AUX area type 3" "$WORK/p4.data"
	trace=$(first_auxtrace "$PT" "$pt_off" "$pt_end")
	tsize=$(u64_at "$PT" $((trace + 8))) tdata=$((trace + 48))
	pt_decode() {	# NAME FILE: status 0, no sanitizer report, every line a sample or an error
		local status
		run_timed "$WORK/out" "$WORK/err" --buildid-dir tests/fixtures/buildid-cache script \
			-i "$2" --kallsyms /dev/null --itrace=ibe
		status=$?
		if [ "$status" = 0 ] && ! grep -q -E "Sanitizer|runtime error" "$WORK/err" &&
			! grep -v -E "(branches|instructions):u:|^ instruction trace error type 1 " "$WORK/out" |
			grep -q .; then
			pass=$((pass + 1))
		else
			echo "FAIL PT: $1: status $status"; head -3 "$WORK/err" | sed 's/^/    /'
			fail=$((fail + 1))
		fi
	}
	# every trace byte in turn: 0xff (bad opcodes), its bits flipped
	errors=0
	for ((i = 0; i < tsize; i++)); do
		orig=$(od -An -t u1 -j $((tdata + i)) -N 1 "$PT")
		for v in 255 $((255 - orig)); do
			cp "$PT" "$WORK/p5.data"; put_le "$WORK/p5.data" $((tdata + i)) 1 "$v"
			pt_decode "trace byte $i set to $v" "$WORK/p5.data"
			grep -q "^ instruction trace error" "$WORK/out" && errors=$((errors + 1))
		done
	done
	# perf's error samples come with corrupt packets: most of these runs have some
	if [ "$errors" -gt "$tsize" ]; then
		pass=$((pass + 1))
	else
		echo "FAIL PT: corrupt packets gave error samples in $errors runs only"; fail=$((fail + 1))
	fi
	CMD=report
fi

# 15. Hostile sizes (tests/FUZZING.md, "Hostile sizes"): sizes, counts and lengths that claim
#     gigabytes. Every run here is under a 1 GB memory limit (limited), so an allocation sized
#     from such a field fails the case. Each case ends in one error line naming the file and an
#     offset (status 1) or, where perf goes on, in perf's behaviour (features: perf stops
#     reading the features at the first it cannot read, and goes on with the report).
LIMITED=1
expect_ok_or_error() {	# NAME FILE: status 0, or 1 with one line naming the file and an offset
	local name="$CMD: $1" f=$2 status
	run_cmd "$f" >"$WORK/out" 2>"$WORK/err" </dev/null
	status=$?
	if [ "$status" = 0 ] || { [ "$status" = 1 ] && [ "$(wc -l <"$WORK/err")" = 1 ] &&
		grep -q -E "$f: offset (0x[0-9a-f]+|[0-9])" "$WORK/err"; }; then
		pass=$((pass + 1))
	else
		echo "FAIL $name: status $status"; head -3 "$WORK/err" | sed 's/^/    /'
		fail=$((fail + 1))
	fi
}
# records FILE TYPE [IDS]: the offsets of the records of TYPE in FILE's data section; with
# IDS (a comma-separated list of ids below 2^32), only those whose first word is one of them
records() {
	local f=$1 off end
	off=$(u64_at "$f" 40) end=$(($(u64_at "$f" 40) + $(u64_at "$f" 48)))
	od -An -v -t u2 -w2 "$f" | awk -v off="$off" -v end="$end" -v t="$2" -v ids="${3:-}" '
		{ w[NR - 1] = $1 }
		END {
			n = split(ids, list, ",")
			for (i = 1; i <= n; i++) want[list[i]] = 1
			while (off < end) {
				o = off / 2
				id = w[o + 4] + 65536 * w[o + 5]
				if (w[o] == t && (!n || (!w[o + 6] && !w[o + 7] && (id in want)))) print off
				s = w[o + 3]
				if (s < 8) break
				off += s
			}
		}'
}
# feat_entry FILE BIT: where BIT's {offset, size} is in the feature table (empty: no such bit)
feat_entry() {
	local f=$1 bit=$2 off b bits
	off=$(($(u64_at "$f" 40) + $(u64_at "$f" 48))) bits=$(u64_at "$f" 72)
	for ((b = 1; b < bit; b++)); do off=$((off + ((bits >> b) & 1) * 16)); done
	[ $(((bits >> bit) & 1)) = 1 ] && echo "$off"
}
feat_off() { u64_at "$1" "$(feat_entry "$1" "$2")"; }	# FILE BIT: the section's offset
# relabel FILE FROM TO: feature bit FROM's section becomes feature TO's (no bit set between)
relabel() {
	local bits
	bits=$(u64_at "$1" 72)
	put_le "$1" 72 8 $(((bits & ~(1 << $2)) | (1 << $3)))
}
hostile() {	# NAME PATCH...: a copy of $SRC with PATCH (put_le's OFFSET NBYTES VALUE) applied
	local name=$1
	shift
	cp "$SRC" "$WORK/h.data"
	while [ $# -ge 3 ]; do put_le "$WORK/h.data" "$1" "$2" "$3"; shift 3; done
	for CMD in report header; do expect_ok_or_error "$name" "$WORK/h.data"; done
	CMD=report
}
hostile_error() {	# NAME FILE: status 1 and one line naming the file and an offset, as report, tasks and script
	for CMD in report tasks script; do expect_error "$1" "$2"; done
	CMD=report
}

# file header: attr_size, and attrs, data and feature section sizes
cp "$SRC" "$WORK/h1.data"; put_le "$WORK/h1.data" 16 8 $((1 << 40))
hostile_error "attr_size 2^40" "$WORK/h1.data"
cp "$SRC" "$WORK/h1.data"; put_le "$WORK/h1.data" 32 8 $((1 << 62))
hostile_error "attrs section size 2^62" "$WORK/h1.data"
cp "$SRC" "$WORK/h1.data"; put_le "$WORK/h1.data" 48 8 $((1 << 62))
hostile_error "data section size 2^62" "$WORK/h1.data"
cp "$SRC" "$WORK/h1.data"; put_le "$WORK/h1.data" $(($(feat_entry "$SRC" 3) + 8)) 8 $((1 << 62))
hostile_error "feature section size 2^62 (HOSTNAME)" "$WORK/h1.data"
# attrs: an attr's own size field, its ids section's size, and ids sections that overlap:
# 300 attrs sharing one misaligned 4 MB ids section (copied per attr: 1.2 GB)
attrs_off=$(u64_at "$SRC" 24) attr_size=$(u64_at "$SRC" 16)
cp "$SRC" "$WORK/h1.data"; put_le "$WORK/h1.data" $((attrs_off + 4)) 4 0xfffffff8
hostile_error "attr size field 0xfffffff8" "$WORK/h1.data"
cp "$SRC" "$WORK/h1.data"; put_le "$WORK/h1.data" $((attrs_off + attr_size - 8)) 8 $((1 << 62))
hostile_error "attr ids section size 2^62" "$WORK/h1.data"
cp "$SRC" "$WORK/h1.data"
ids_off=$(($(stat -c %s "$SRC") | 7))	# 8n + 7: misaligned
head -c $((ids_off + 4194304)) /dev/zero | tail -c +$(($(stat -c %s "$SRC") + 1)) >>"$WORK/h1.data"
new_attrs=$(stat -c %s "$WORK/h1.data")
dd if="$SRC" bs=1 skip="$attrs_off" count="$attr_size" status=none >"$WORK/attr"
put_le "$WORK/attr" $((attr_size - 16)) 8 "$ids_off"
put_le "$WORK/attr" $((attr_size - 8)) 8 4194304
for ((i = 0; i < 300; i++)); do cat "$WORK/attr"; done >>"$WORK/h1.data"
put_le "$WORK/h1.data" 24 8 "$new_attrs"
put_le "$WORK/h1.data" 32 8 $((300 * attr_size))
hostile_error "300 attrs sharing a misaligned 4 MB ids section" "$WORK/h1.data"

# records: a size past the end of a stream (record sizes are u16: 64 KB at most)
PP=tests/fixtures/pipe/perf.data
last=16
words_of "$PP"
for ((off = 16; off < ${#WORDS[@]} * 2; off += WORDS[(off + 6) / 2])); do last=$off; done
cp "$PP" "$WORK/h1.data"; put_le "$WORK/h1.data" $((last + 6)) 2 65535
hostile_error "pipe: last record of size 65535" "$WORK/h1.data"
# string lengths: a COMM's comm and an MMAP2's filename not NUL-terminated in the record
for type in 3 10; do
	at=$(records "$SRC" $type | head -1)
	[ "$type" = 3 ] && from=16 || from=72	# comm after pid, tid; filename after the fixed fields
	cp "$SRC" "$WORK/h1.data"
	head -c $(($(u16_at "$SRC" $((at + 6))) - from)) /dev/zero | tr '\0' A |
		dd of="$WORK/h1.data" bs=1 seek=$((at + from)) conv=notrunc status=none
	hostile_error "record type $type: string not NUL-terminated" "$WORK/h1.data"
done
# callchain length (nr = 2^62), and branch-stack count: the callchain fixture's CALLCHAIN
# bit (0x20) made BRANCH_STACK (0x800) with nr 0x5555555555555556 (3 * nr wraps to 2); in
# the first 20 samples, among which is the first delivered
CC=tests/fixtures/callchain/perf.data
cc_attr=$(u64_at "$CC" 24) cc_type=$(u64_at "$CC" $(($(u64_at "$CC" 24) + 24)))
cp "$CC" "$WORK/h1.data"; cp "$CC" "$WORK/h2.data"
put_le "$WORK/h2.data" $((cc_attr + 24)) 8 $(((cc_type & ~0x20) | 0x800))
for at in $(records "$CC" 9 | head -20); do	# IP TID TIME PERIOD, then nr
	put_le "$WORK/h1.data" $((at + 40)) 8 $((1 << 62))
	put_le "$WORK/h2.data" $((at + 40)) 8 0x5555555555555556
done
hostile_error "callchain nr 2^62" "$WORK/h1.data"
hostile_error "branch stack nr 0x5555555555555556" "$WORK/h2.data"
# a RAW field's size (the tracepoint event's samples: IDENTIFIER IP TID TIME CPU PERIOD, then
# RAW), in the first 20 samples of its first attr (its ids: that attr's ids section)
tp_attr=$(u64_at "$TP" 24) tp_attr_size=$(u64_at "$TP" 16)
tp_ids=$(od -An -v -t u8 -j "$(u64_at "$TP" $((tp_attr + tp_attr_size - 16)))" \
	-N "$(u64_at "$TP" $((tp_attr + tp_attr_size - 8)))" "$TP" | xargs | tr ' ' ,)
cp "$TP" "$WORK/h1.data"
for at in $(records "$TP" 9 "$tp_ids" | head -20); do put_le "$WORK/h1.data" $((at + 56)) 4 0xfffffff0; done
hostile_error "raw size 0xfffffff0" "$WORK/h1.data"

# compressed sizes: a file whose data section is one COMPRESSED record of the given payload
# (a zstd frame, then a skippable frame to the record's end)
zrecord() {	# OUT SIZE FRAME-FILE
	local out=$1 size=$2 frame=$3 zend bits at pad b table=0
	zend=$(($(u64_at "$ZF" 40) + $(u64_at "$ZF" 48))) bits=$(u64_at "$ZF" 72)
	for ((b = 1; b < 64; b++)); do table=$((table + ((bits >> b) & 1) * 16)); done
	cp "$ZF" "$out"
	at=$(stat -c %s "$ZF")
	at=$(((at + 7) / 8 * 8)) pad=$((size - 8 - $(stat -c %s "$frame") - 8))
	truncate -s "$at" "$out"
	head -c "$size" /dev/zero >>"$out"
	put_le "$out" "$at" 4 81
	put_le "$out" $((at + 6)) 2 "$size"
	dd if="$frame" of="$out" bs=64K seek=$((at + 8)) oflag=seek_bytes conv=notrunc status=none
	put_le "$out" $((at + 8 + $(stat -c %s "$frame"))) 4 0x184d2a50
	put_le "$out" $((at + 12 + $(stat -c %s "$frame"))) 4 "$pad"
	dd if="$ZF" bs=1 skip="$zend" count="$table" status=none >>"$out"
	put_le "$out" 40 8 "$at"
	put_le "$out" 48 8 "$size"
}
# a bomb: 16,000 RLE blocks of 128 KB (2 GB) in one 64 KB record
{ printf '\x28\xb5\x2f\xfd\x00\x38'; for ((i = 0; i < 16000; i++)); do printf '\x02\x00\x10\x41'; done
  printf '\x03\x00\x10\x41'; } >"$WORK/frame"
zrecord "$WORK/h1.data" 65528 "$WORK/frame"
TIMEOUT=120	# 64 MB are inflated before the bound: 20 s and more under ASan on a loaded machine
hostile_error "compressed record inflating to 2 GB" "$WORK/h1.data"
TIMEOUT=20
# a frame content size of 16 GB (then one 128 KB block)
printf '\x28\xb5\x2f\xfd\xc0\x38\x00\x00\x00\x00\x04\x00\x00\x00\x03\x00\x10\x41' >"$WORK/frame"
zrecord "$WORK/h1.data" 1024 "$WORK/frame"
hostile_error "zstd frame content size 16 GB" "$WORK/h1.data"
# a single-segment frame, whose window is its content size: 16 GB
printf '\x28\xb5\x2f\xfd\xe0\x00\x00\x00\x00\x04\x00\x00\x00\x03\x00\x10\x41' >"$WORK/frame"
zrecord "$WORK/h1.data" 1024 "$WORK/frame"
hostile_error "zstd single-segment frame of 16 GB" "$WORK/h1.data"
# a window of 2^41 bytes
printf '\x28\xb5\x2f\xfd\x00\xf8\x03\x00\x10\x41' >"$WORK/frame"
zrecord "$WORK/h1.data" 1024 "$WORK/frame"
hostile_error "zstd window 2^41" "$WORK/h1.data"

# feature counts and lengths (report, and report --header-only -I which reads every feature)
o() { feat_off "$SRC" "$1"; }
hostile "HOSTNAME string length 0xffffffff" "$(o 3)" 4 0xffffffff
hostile "NRCPUS nr_cpus_avail 0xffffffff (sizes CPU_TOPOLOGY's ids)" "$(o 7)" 4 0xffffffff
hostile "CMDLINE count 0xffffffff" "$(o 11)" 4 0xffffffff
hostile "CMDLINE string length 0xfffffff0" $(($(o 11) + 4)) 4 0xfffffff0
hostile "EVENT_DESC count 0xffffffff" "$(o 12)" 4 0xffffffff
hostile "EVENT_DESC attr size 0xffffffff" $(($(o 12) + 4)) 4 0xffffffff
ed_sz=$(od -An -t u4 -j $(($(o 12) + 4)) -N 4 "$SRC" | tr -d ' ')
hostile "EVENT_DESC nr_ids 0xffffffff" $(($(o 12) + 8 + ed_sz)) 4 0xffffffff
hostile "CPU_TOPOLOGY sibling list count 0xffffffff" "$(o 13)" 4 0xffffffff
hostile "NUMA_TOPOLOGY count 0xffffffff" "$(o 14)" 4 0xffffffff
hostile "PMU_MAPPINGS count 0xffffffff" "$(o 16)" 4 0xffffffff
hostile "CACHE count 0xffffffff" $(($(o 20) + 4)) 4 0xffffffff
hostile "MEM_TOPOLOGY count 2^62" $(($(o 22) + 16)) 8 $((1 << 62))
hostile "MEM_TOPOLOGY node bits 2^63" $(($(o 22) + 40)) 8 $((1 << 63))
hostile "BUILD_ID entry size 65535" $(($(o 2) + 6)) 2 65535
hostile "BPF_PROG_INFO count 0xffffffff" "$(o 25)" 4 0xffffffff
hostile "BPF_BTF count 0xffffffff" "$(o 26)" 4 0xffffffff
hostile "PMU_CAPS count 0xffffffff" "$(o 31)" 4 0xffffffff
# features the fixture lacks: another section relabelled as one (the bits between unset)
relabelled() {	# NAME FROM TO COUNT-NBYTES COUNT-VALUE: FROM's section read as TO's, its count set
	local off
	off=$(o "$2")
	cp "$SRC" "$WORK/h.data"; relabel "$WORK/h.data" "$2" "$3"
	put_le "$WORK/h.data" "$off" "$4" "$5"
	for CMD in report header; do expect_ok_or_error "$1" "$WORK/h.data"; done
	CMD=report
}
relabelled "GROUP_DESC count 0xffffffff" 16 17 4 0xffffffff
relabelled "AUXTRACE count 2^62" 16 18 8 $((1 << 62))
relabelled "CPU_PMU_CAPS count 0xffffffff" 26 28 4 0xffffffff
relabelled "HYBRID_TOPOLOGY count 0xffffffff" 26 30 4 0xffffffff
LIMITED=0

# 16. analyze annotate reads the same records: cut short anywhere, one error line; a binary
#     whose code is garbage is disassembled as objdump would ("(bad)"), without a crash.
CMD=annotate
data_off=$(u64_at "$SRC" 40)
for ((cut = 0; cut < $(stat -c %s "$SRC"); cut += 4999)); do
	[ "$cut" -lt "$data_off" ] && [ "$cut" -gt 200 ] && continue
	head -c "$cut" "$SRC" >"$WORK/a.data"
	expect_error "truncated at $cut" "$WORK/a.data"
done
CMD=report
cp -R tests/fixtures/buildid-cache "$WORK/badcache"
for elf in "$WORK"/badcache/tmp/analyze-fixtures/burn/*/elf; do
	# .text (readelf: its file offset and size) overwritten with 0xff
	read -r off size < <(readelf -SW "$elf" | awk '$2 == ".text" { print $5, $6 }')
	off=$((16#$off)) size=$((16#$size))
	head -c "$size" /dev/zero | tr '\0' '\377' | dd of="$elf" bs=1 seek="$off" conv=notrunc status=none
done
run_timed "$WORK/out" "$WORK/err" --buildid-dir "$WORK/badcache" annotate -i "$SRC" --stdio burn_half
st=$?
if [ $st -eq 0 ] && grep -q '(bad)' "$WORK/out"; then
	pass=$((pass + 1))
else
	echo "FAIL annotate: a binary of garbage: status $st"; head -3 "$WORK/err" | sed 's/^/    /'
	fail=$((fail + 1))
fi

runner_stop || fail=$((fail + 1))
echo "bad-input: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
