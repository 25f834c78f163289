#!/usr/bin/env bash
# The manual pages: each rendered page (build/man/NAME.1) linted by mandoc and by man's
# groff (any warning fails: "can't break line" from a long unbreakable token, a bad macro),
# then `make install DESTDIR=tmp` and man(1) finding the installed page by name through
# MANPATH and rendering it. One pass/fail line a page.
# Usage: tests/man.sh PAGE... (the Makefile's check-man passes every page; MAKE and PREFIX
# from it, so the install is the one `make install` does).
set -u
cd "$(dirname "$0")/.."
MAKE=${MAKE:-make}
PREFIX=${PREFIX:-/usr/local}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export LC_ALL=C.UTF-8 MANPAGER=cat PAGER=cat MANWIDTH=80
pass=0 fail=0

if [ $# -eq 0 ]; then
	echo "usage: tests/man.sh PAGE..." >&2
	exit 2
fi
if ! $MAKE --no-print-directory install DESTDIR="$WORK/root" PREFIX="$PREFIX" \
	>"$WORK/install.log" 2>&1; then
	cat "$WORK/install.log"
	echo "FAIL man: make install DESTDIR=... failed"
	exit 1
fi
mandir=$WORK/root$PREFIX/share/man

for page in "$@"; do
	name=$(basename "$page" .1)
	why=""
	lint=$(mandoc -Tlint -Wwarning "$page" 2>&1)
	[ -n "$lint" ] && why="mandoc -Tlint: $lint"
	groff=$(man --warnings -l -Tutf8 "$page" 2>&1 >/dev/null)
	[ -z "$why" ] && [ -n "$groff" ] && why="man --warnings: $groff"
	found=$(MANPATH=$mandir man -w "$name" 2>&1)
	[ -z "$why" ] && [ "$found" != "$mandir/man1/$name.1" ] &&
		why="man -w $name: '$found', not $mandir/man1/$name.1"
	if [ -z "$why" ]; then
		text=$(MANPATH=$mandir man --warnings "$name" 2>"$WORK/err")
		if [ -s "$WORK/err" ]; then
			why="man $name: $(cat "$WORK/err")"
		elif ! grep -q "^NAME" <<<"$text" || ! grep -q "^ *$name - " <<<"$text"; then
			why="man $name: no NAME section naming $name"
		fi
	fi
	if [ -z "$why" ]; then
		echo "PASS man: $name ($(wc -l <<<"$text") lines)"
		pass=$((pass + 1))
	else
		echo "FAIL man: $name: $why"
		fail=$((fail + 1))
	fi
done
echo "man pages: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
