#!/usr/bin/env bash
# Symbol tables on short recordings (issue 25): where a recording is small, loading symbols is
# most of a report's cost, so analyze keeps a persistent symbol index. Recordings made here
# (bench/out/symbols/, never committed; BENCH_REUSE=1 keeps them): 1 s of a small program
# (kernel symbols from /proc/kallsyms), a clang compile (libLLVM), and the same program calling
# into generated shared objects of 10k, 100k and 1M functions. perf report and perf script against
# analyze with a warm index, a cold one and none, the best of BENCH_RUNS runs (default 5) each,
# in turn (tools/timeit); the index's size on disk. Writes the section "## Symbol tables: short
# recordings (issue 25)" of bench/RESULTS.md (replacing only that section).
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=bench/out/symbols
RUNS=${BENCH_RUNS:-5}
ANALYZE=${ANALYZE:-./analyze}
TIMEIT=${TIMEIT:-build/tools/timeit}
HEADING='## Symbol tables: short recordings (issue 25)'
WARMC=$WORK/cache-warm	# filled by one run on each recording, then only read
COLD=$WORK/cache-cold	# emptied before every timed run (turns, below)
SIZES="10000 100000 1000000"
# a run given neither option must not touch the user's ~/.cache: it lands here instead
export ANALYZE_SYMBOL_CACHE=$PWD/$WORK/cache-stray
unset ANALYZE_SYMBOL_CACHE_LOG
mkdir -p "$WORK"
# shellcheck source=bench/lib.sh
. bench/lib.sh

fresh() { [ "${BENCH_REUSE:-0}" != 1 ] || [ ! -s "$1" ]; }	# FILE: to be (re)made
# rec OUT ARGS...: perf record ARGS into OUT. --no-buildid-cache: the generated objects (up to
# 70 MB) stay out of ~/.debug; both tools read every dso at its recorded path, build-id checked
rec() {
	local out=$1
	shift
	echo "bench: recording $out" >&2
	rm -rf "$out"
	perf record -q --no-buildid-cache -o "$out" "$@" >/dev/null 2>"$WORK/record.log" ||
		{ cat "$WORK/record.log" >&2; exit 1; }
}

# the programs recorded: spin, 1 s of user work mixed with dup/close (so that there are kernel
# samples); spin DSO SYMBOL, 0.3 s of calls to one function of a generated dso (section 4)
if fresh "$WORK/spin"; then
	cat >"$WORK/spin.c" <<'C'
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}
__attribute__((noinline)) static unsigned long work(unsigned long x)
{
	for (int i = 0; i < 2000; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}
int main(int argc, char **argv)
{
	void *h = argc == 3 ? dlopen(argv[1], RTLD_NOW) : NULL;
	void (*f)(void) = h ? (void (*)(void))dlsym(h, argv[2]) : NULL;
	volatile unsigned long x = 1;

	if (argc == 1) {
		for (double end = now() + 1; now() < end;)
			for (int i = 0; i < 100; i++, close(dup(0)))
				x = work(x);
		return 0;
	}
	if (!f)
		return fprintf(stderr, "spin [DSO SYMBOL]: %s\n", h ? dlerror() : "cannot open"), 1;
	for (double end = now() + 0.3; now() < end;)
		for (int i = 0; i < 1000000; i++)
			f();
	return 0;
}
C
	gcc -O1 -o "$WORK/spin" "$WORK/spin.c"
fi

# 1a. small: kernel symbols from /proc/kallsyms, no --kallsyms: reading it is part of the cost
SMALL=$WORK/small.data
fresh "$SMALL" && rec "$SMALL" -e cpu-clock -- "$WORK/spin"

# 1b. clang: compiling a generated file of small functions with loops and structs (about 2 s on
# this machine), most of its time in libLLVM-14.so.1
CLANG=$WORK/clang.data
NFUNCS=220
if fresh "$CLANG"; then
	{
		printf '#include <stddef.h>\nstruct vec { double x, y, z; };\n'
		printf 'struct rec { int id; unsigned flags; struct vec pos, vel; char name[24]; };\n'
		for ((i = 0; i < NFUNCS; i++)); do
			cat <<C
struct rec *step$i(struct rec *r, size_t n, double dt)
{
	for (size_t k = 0; k < n; k++) {
		struct rec *p = &r[k];
		if (p->flags & (1u << ($i % 32)))
			continue;
		p->pos.x += p->vel.x * dt; p->pos.y += p->vel.y * dt; p->pos.z += p->vel.z * dt;
		switch ((p->id + $i) % 4) {
		case 0: p->vel.x = -p->vel.x; break;
		case 1: p->vel.y *= 0.5 + $i; break;
		case 2: p->name[k % 24] = (char)('a' + k % 26); break;
		default: p->flags ^= p->id * $((i + 1))u;
		}
	}
	return n ? &r[n / 2] : NULL;
}
C
		done
	} >"$WORK/big.c"
	rec "$CLANG" -g -- clang -O2 -c "$WORK/big.c" -o /dev/null
fi

# 4. (made here, with the others) shared objects of N one-instruction functions; spin calls
# the middle one
for n in $SIZES; do
	so=$PWD/$WORK/libf$n.so
	fresh "$WORK/gen-$n.data" || continue
	echo "bench: generating $so" >&2
	awk -v n="$n" 'BEGIN { print "\t.text"
		for (i = 0; i < n; i++)
			printf "\t.globl f%d\n\t.type f%d,@function\nf%d:\tret\n\t.size f%d,1\n", i, i, i, i }' \
		>"$WORK/f$n.s"
	gcc -shared -nostdlib -o "$so" "$WORK/f$n.s"
	rm -f "$WORK/f$n.s"	# 70 MB at 1M
	rec "$WORK/gen-$n.data" -e cpu-clock:u -- "$WORK/spin" "$so" "f$((n / 2))"
done

if ! "$ANALYZE" --no-symbol-cache report -i "$SMALL" >/dev/null 2>&1; then
	echo "bench: recordings made; $ANALYZE has no --symbol-cache yet (issue 25)" >&2
	exit 1
fi

# warm_list DATA [CACHE]: what a run on DATA reads, for lib.sh's warm: the recording, the dsos
# it has samples in (perf buildid-list), the cache's files
warm_list() {
	echo "$1"
	perf buildid-list -i "$1" 2>/dev/null | awk '$2 !~ /^\[/ { print $2 }'
	[ -z "${2:-}" ] || find "$2" -type f 2>/dev/null || true
}

# turns RUNS CMD ::: CMD...: lib.sh's best_pair for any number of commands, run in turn, each
# after warm and after $COLD was emptied (outside the timing; only a command given
# --symbol-cache $COLD uses it); "t kb" of each command's best run, the output of command i in
# $WORK/turn-i.txt
turns() {
	local n=$1 a i r t m k
	local -a args=() from=(0) bt=() bm=()
	shift
	for a in "$@"; do
		if [ "$a" = ::: ]; then from+=("${#args[@]}"); else args+=("$a"); fi
	done
	from+=("${#args[@]}")
	k=$((${#from[@]} - 1))
	for ((r = 0; r < n; r++)); do
		for ((i = 0; i < k; i++)); do
			rm -rf "$COLD"
			warm
			read -r t m < <("$TIMEIT" "$WORK/turn-$i.txt" "${args[@]:from[i]:from[i+1]-from[i]}")
			if [ -z "${bt[i]:-}" ] || awk "BEGIN{exit !($t < ${bt[i]})}"; then bt[i]=$t bm[i]=$m; fi
		done
	done
	for ((i = 0; i < k; i++)); do nonempty "$WORK/turn-$i.txt"; echo -n "${bt[i]} ${bm[i]} "; done
	echo
}
# nonempty OUT: a command that failed (timeit does not say) leaves its output empty; stop there
nonempty() { [ -s "$1" ] || { echo "bench: $1 is empty: a command failed" >&2; exit 1; }; }

# index_of DATA NAME: "KB HOW" of the index file a cold run of analyze report on DATA writes
# for the dso NAME: of the files the log says were written, the one whose header (its first
# 4 KB) names NAME, else the largest (HOW says which)
index_of() {
	local log=$WORK/cold.log f how="its header names it"
	rm -rf "$COLD" "$log"
	ANALYZE_SYMBOL_CACHE_LOG=$log "$ANALYZE" --symbol-cache "$COLD" report -i "$1" >/dev/null 2>&1
	grep '^bad ' "$log" >&2 || true
	for f in $(awk '$1 == "write" { print $2 }' "$log") ""; do
		[ -n "$f" ] && grep -aqF "$2" < <(head -c 4096 "$f") && break
	done
	if [ -z "$f" ]; then
		f=$(awk '$1 == "write" { print $2 }' "$log" | xargs -r ls -S 2>/dev/null | head -1)
		how="the largest written"
	fi
	if [ -n "$f" ]; then echo "$(($(stat -c %s "$f") / 1024)) $how"; else echo "- none written"; fi
}

mb() { awk "BEGIN{printf \"%.1f\", $1 / 1024}"; }
met() { if awk "BEGIN{exit !($1)}"; then echo met; else echo "**NOT met**"; fi; }	# AWK-CONDITION
row() {	# LABEL PERF-T PERF-KB ANALYZE-T ANALYZE-KB SAME FASTER-TARGET
	echo "| $1 | $2 s, $(mb "$3") MB | $4 s, $(mb "$5") MB | $(ratio "$2" "$4")x | $(ratio "$3" "$5")x less | $6 |" \
	     "$7x: $(met "$2 >= $7 * $4"), ½ RSS: $(met "$5 <= $3 / 2") |"
}

# "today": analyze as it was before the index (BENCH_BASE, the commit before issue 25), built
# once into $WORK/base from a clean checkout of that commit; cold runs are held to it
BASE_COMMIT=${BENCH_BASE:-9f160fe}
BASE=$WORK/base/analyze
if [ ! -x "$BASE" ] || [ "$(cat "$WORK/base/.commit" 2>/dev/null)" != "$BASE_COMMIT" ]; then
	echo "bench: building analyze at $BASE_COMMIT (today's, before the index) in $WORK/base" >&2
	rm -rf "$WORK/base" && mkdir -p "$WORK/base"
	git archive "$BASE_COMMIT" | tar -x -C "$WORK/base"
	make -C "$WORK/base" -j"$(nproc)" analyze >"$WORK/base.log" 2>&1 ||
		{ tail -20 "$WORK/base.log" >&2; exit 1; }
	echo "$BASE_COMMIT" >"$WORK/base/.commit"
fi

began=$(load_note)	# as the timings begin
# the warm index: one run on each recording fills it; a second, logged, must only hit
rm -rf "$WARMC" "$COLD" "$WORK/cache-stray"
for f in "$SMALL" "$CLANG" "$WORK"/gen-*.data; do
	"$ANALYZE" --symbol-cache "$WARMC" report -i "$f" >/dev/null
done
: >"$WORK/warm.log"
for f in "$SMALL" "$CLANG"; do
	ANALYZE_SYMBOL_CACHE_LOG=$WORK/warm.log "$ANALYZE" --symbol-cache "$WARMC" report -i "$f" >/dev/null
done
warm_hits=$(grep -c '^hit ' "$WORK/warm.log" || true)
warm_other=$(grep -vc '^hit ' "$WORK/warm.log" || true)

# 2. report and script, perf against analyze with the warm index
declare -A T M S
pair() {	# KEY OUT-NAME PERF-CMD... ::: ANALYZE-CMD...: the best of RUNS into T, M, S
	local key=$1 out=$2
	shift 2
	read -r "T[$key,p]" "M[$key,p]" "T[$key,a]" "M[$key,a]" < <(best_pair "$RUNS" \
		"$WORK/perf-$out.txt" "$WORK/analyze-$out.txt" "$@")
	S[$key]=$(same "$WORK/perf-$out.txt" "$WORK/analyze-$out.txt")
	nonempty "$WORK/analyze-$out.txt"
}
WARM=$(warm_list "$SMALL" "$WARMC")
echo "bench: small" >&2
pair rs report-small perf report -i "$SMALL" --stdio \
	::: "$ANALYZE" --symbol-cache "$WARMC" report -i "$SMALL"
pair ss script-small perf script -i "$SMALL" ::: "$ANALYZE" --symbol-cache "$WARMC" script -i "$SMALL"
cold() {	# KEY DATA REPORT-ARGS...: perf, today's analyze, analyze without an index and
	# with a cold one
	local key=$1 data=$2
	shift 2
	read -r "T[$key,p]" "M[$key,p]" "T[$key,base]" "M[$key,base]" "T[$key,off]" "M[$key,off]" \
		"T[$key,a]" "M[$key,a]" < <(turns "$RUNS" \
		perf report -i "$data" --stdio "$@" \
		::: "$BASE" report -i "$data" "$@" \
		::: "$ANALYZE" --no-symbol-cache report -i "$data" "$@" \
		::: "$ANALYZE" --symbol-cache "$COLD" report -i "$data" "$@")
	if cmp -s "$WORK/turn-2.txt" "$WORK/turn-3.txt" && cmp -s "$WORK/turn-1.txt" "$WORK/turn-3.txt"; then
		S[$key]=$(same "$WORK/turn-0.txt" "$WORK/turn-3.txt")
	else S[$key]="no (cold differs from off or today's)"; fi
}
WARM=$(warm_list "$SMALL")
cold rc "$SMALL"

echo "bench: clang" >&2
WARM=$(warm_list "$CLANG" "$WARMC")
pair rl report-clang perf report -i "$CLANG" --stdio --no-children -g none \
	::: "$ANALYZE" --symbol-cache "$WARMC" report -i "$CLANG" --no-children -g none
pair sl script-clang perf script -i "$CLANG" ::: "$ANALYZE" --symbol-cache "$WARMC" script -i "$CLANG"
WARM=$(warm_list "$CLANG")
cold lc "$CLANG" --no-children -g none

# 3. the index on disk: the kernel's and libLLVM's
read -r kernel_kb kernel_how < <(index_of "$SMALL" kallsyms)
read -r llvm_kb llvm_how < <(index_of "$CLANG" libLLVM-14.so.1)
kernel_syms=$(wc -l </proc/kallsyms)
llvm_so=$(perf buildid-list -i "$CLANG" 2>/dev/null | awk '$2 ~ /libLLVM/ { print $2; exit }')
llvm_syms=$(nm -D --defined-only "$llvm_so" | wc -l)

# 4. growth with the symbol count
declare -A G
for n in $SIZES; do
	echo "bench: $n symbols" >&2
	data=$WORK/gen-$n.data
	read -r "G[$n,kb]" _ < <(index_of "$data" "libf$n.so")
	WARM=$(warm_list "$data" "$WARMC")
	read -r "G[$n,p]" "G[$n,pm]" "G[$n,c]" "G[$n,cm]" "G[$n,w]" "G[$n,wm]" < <(turns "$RUNS" perf report -i "$data" --stdio \
		::: "$ANALYZE" --symbol-cache "$COLD" report -i "$data" \
		::: "$ANALYZE" --symbol-cache "$WARMC" report -i "$data")
	G[$n,same]=$(same "$WORK/turn-0.txt" "$WORK/turn-2.txt")
	G[$n,mb]=$(size_mb "$WORK/libf$n.so")
done
grow() {	# N: its table row
	local label=$(($1 / 1000))k
	[ "$1" -lt 1000000 ] || label=$(($1 / 1000000))M
	echo "| $label | ${G[$1,mb]} MB | ${G[$1,kb]} KB |" \
	     "${G[$1,c]} s, $(mb "${G[$1,cm]}") MB | ${G[$1,w]} s, $(mb "${G[$1,wm]}") MB |" \
	     "${G[$1,p]} s, $(mb "${G[$1,pm]}") MB | ${G[$1,same]} |"
}
growth=$(ratio "${G[1000000,w]}" "${G[10000,w]}")

# the rows where analyze's peak RSS is over half of perf's; and the cold rows where it is over
# today's analyze's
rss_bad="" rss_cold_half="" rss_cold_today=""
declare -A LABEL=([rs]="warm report on small" [rl]="warm report on clang" [ss]="warm script on small"
	[sl]="warm script on clang" [rc]="cold report on small" [lc]="cold report on clang")
for k in rs rl ss sl; do
	awk "BEGIN{exit !(${M[$k,a]} <= ${M[$k,p]} / 2)}" || rss_bad="$rss_bad; ${LABEL[$k]}"
done
for k in rc lc; do
	awk "BEGIN{exit !(${M[$k,a]} <= ${M[$k,p]} / 2)}" || rss_cold_half="$rss_cold_half; ${LABEL[$k]}"
	awk "BEGIN{exit !(${M[$k,a]} <= ${M[$k,base]})}" || rss_cold_today="$rss_cold_today; ${LABEL[$k]}"
done
cold_row() {	# LABEL KEY
	local k=$2
	echo "| $1 | ${T[$k,p]} s, $(mb "${M[$k,p]}") MB | ${T[$k,base]} s, $(mb "${M[$k,base]}") MB |" \
	     "${T[$k,off]} s, $(mb "${M[$k,off]}") MB |" \
	     "${T[$k,a]} s, $(mb "${M[$k,a]}") MB | $(ratio "${T[$k,base]}" "${T[$k,a]}")x |" \
	     "$(ratio "${T[$k,off]}" "${T[$k,a]}")x |" \
	     "$(ratio "${T[$k,p]}" "${T[$k,a]}")x | $(ratio "${M[$k,p]}" "${M[$k,a]}")x less | ${S[$k]} |" \
	     "$(met "${T[$k,a]} <= ${T[$k,base]}") |"
}
section=$WORK/section.md
{
cat <<MD
$HEADING

Made by bench/symbols.sh on $(date -u +%Y-%m-%d), $(nproc) CPUs, $(free -g | awk '/Mem:/ {print $2}') GiB, perf $(perf version | awk '{print $3}'),
analyze built from $(git rev-parse --short HEAD); $began. Best of ${RUNS} runs, the commands
in turn, each run after the recording, the dsos it has samples in and the index were read into
the page cache; wall time and peak RSS from tools/timeit. analyze's index: "warm", a cache
filled by an earlier run; "cold", a cache emptied before every run (outside the timing), so
that the run builds and writes it; "off", \`--no-symbol-cache\`; "today", analyze built from
$BASE_COMMIT, the commit before the index (what "no slower than analyze is today" is held to;
"off" has this work's faster table builds and no index to write, so a cold run, which builds
the same table and writes it, is a little slower than it).

- small: 1 s of \`perf record -e cpu-clock\` of a loop of user work and dup/close,
  $(samples "$SMALL") samples; kernel symbols from /proc/kallsyms (no --kallsyms).
- clang: \`perf record -g\` of \`clang -O2 -c big.c\` ($NFUNCS generated functions),
  $(samples "$CLANG") samples, reported with \`--no-children -g none\`.

| warm index | perf 6.1 | analyze | faster | memory | same | targets |
| --- | --- | --- | --- | --- | --- | --- |
$(row 'report, small' "${T[rs,p]}" "${M[rs,p]}" "${T[rs,a]}" "${M[rs,a]}" "${S[rs]}" 8)
$(row 'report, clang' "${T[rl,p]}" "${M[rl,p]}" "${T[rl,a]}" "${M[rl,a]}" "${S[rl]}" 6)
$(row 'script, small' "${T[ss,p]}" "${M[ss,p]}" "${T[ss,a]}" "${M[ss,a]}" "${S[ss]}" 8)
$(row 'script, clang' "${T[sl,p]}" "${M[sl,p]}" "${T[sl,a]}" "${M[sl,a]}" "${S[sl]}" 8)

| report, cold index | perf 6.1 | analyze today | analyze, off | analyze, cold | cold against today | cold against off | cold against perf | memory (cold) | same | cold no slower than today |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
$(cold_row small rc)
$(cold_row clang lc)

A logged second run with the warm index on both recordings: $warm_hits hits, $warm_other other
lines (misses, writes, bad indexes; 0 expected).

| index on disk | symbols | size | told apart by |
| --- | --- | --- | --- |
| the kernel's | $kernel_syms lines of /proc/kallsyms | $kernel_kb KB | $kernel_how |
| libLLVM-14.so.1 | $llvm_syms defined dynamic symbols (nm -D) | $llvm_kb KB | $llvm_how |

Growth with the symbol count: generated shared objects of one-instruction functions, spin
calling the middle one for 0.3 s (\`perf record -e cpu-clock:u\`); \`report\`, the best of
${RUNS} runs each.

| function symbols | .so | index | analyze, cold | analyze, warm | perf report | same |
| --- | --- | --- | --- | --- | --- | --- |
MD
for n in $SIZES; do grow "$n"; done
cat <<MD

Targets: warm report at least 8x faster than perf 6.1 on small, 6x on clang; warm script 8x
on both; a cold index no slower than today's analyze; peak RSS at most half of perf's in the
warm rows: $(if [ -z "$rss_bad" ]; then echo met; else echo "**NOT met** (${rss_bad#; })"; fi).
The cold rows' peak RSS: at most today's analyze's $(if [ -z "$rss_cold_today" ]; then echo "(met)"; else echo "(**NOT met**: ${rss_cold_today#; })"; fi);
at most half of perf's $(if [ -z "$rss_cold_half" ]; then echo "(met)"; else echo "(**NOT met**: ${rss_cold_half#; }: building a table holds the table and the tree perf's fixups replay on at once, and on clang two of them build at once, the kernel's and libLLVM's)"; fi). A warm
report does not grow with the symbol count: warm(1M)/warm(10k) = ${growth}, $(met "$growth <= 1.25")
(1.25 allowed for noise).
MD
} >"$section"
replace_section bench/RESULTS.md "$HEADING" "$section"
cat "$section"
