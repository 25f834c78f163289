#!/usr/bin/env bash
# analyze annotate's disassembler against objdump: every executable section of every ELF file
# in the fixtures' build-id cache (the fixtures' programs, libc, ld.so) disassembled by
# build/tools/disasm-text (capstone, spelled as objdump) and by `objdump -d
# --no-show-raw-insn`; the lines of objdump's that ours lacks (address and text) are counted.
# The fixtures' own programs must have none; the system libraries no more than LIMIT (what
# capstone 4 cannot decode or decodes wrongly: AVX-512 EVEX forms in libc's string functions).
# Needs objdump (binutils): skipped without it.
set -u
cd "$(dirname "$0")/.."
DISASM=${DISASM:-build/tools/disasm-text}
CACHE=tests/fixtures/buildid-cache
LIMIT=1524	# lines of the system libraries' (libc.so.6 2.36: 1509 AVX-512 lines, 15 GOT names)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
if ! command -v objdump >/dev/null; then
	echo "annotate-spelling: SKIP (no objdump)"
	exit 0
fi
fail=0 total=0 system=0
while read -r elf; do
	objdump -d --no-show-raw-insn "$elf" |
		sed -nE 's/^ +([0-9a-f]+):\t(.*[^ ])? *$/\1:\2/p' | sort -u >"$WORK/objdump"
	"$DISASM" "$elf" | sed -E 's/ +$//' | sort -u >"$WORK/ours" ||
		{ echo "FAIL annotate-spelling: $DISASM $elf"; fail=$((fail + 1)); continue; }
	n=$(comm -23 "$WORK/objdump" "$WORK/ours" | wc -l)
	all=$(wc -l <"$WORK/objdump")
	total=$((total + n))
	case $elf in
	*/usr/lib/*) system=$((system + n)) ;;
	*) if [ "$n" -gt 0 ]; then
		echo "FAIL annotate-spelling: $elf: $n of $all lines differ from objdump's:"
		comm -23 "$WORK/objdump" "$WORK/ours" | head -5 | sed 's/^/    /'
		fail=$((fail + 1))
	   fi ;;
	esac
	echo "annotate-spelling: ${elf#"$CACHE"/}: $n of $all lines differ"
done < <(find "$CACHE" -name elf -type f | sort)
if [ "$system" -gt "$LIMIT" ]; then
	echo "FAIL annotate-spelling: the system libraries have $system lines that differ (limit $LIMIT)"
	fail=$((fail + 1))
fi
echo "annotate-spelling: $total lines differ in all ($system in the system libraries), $fail failed"
[ "$fail" -eq 0 ]
