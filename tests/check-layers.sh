#!/usr/bin/env bash
# check-layers: fails when a source file includes a header its layer may not (the rules are
# the Makefile's LAYERS). Usage: check-layers.sh [-C DIR] RULE...; a RULE is
# FOLDER:ALLOWED,ALLOWED... where FOLDER "analyzer/*" stands for every command folder (any
# folder under analyzer/ with no rule of its own); a folder without a rule takes its parent's,
# and ALLOWED covers its sub-folders. A file may always include its own folder's headers; a
# *_internal.h only from its own folder. With --self-test, checks that the rules
# catch a planted violation of each kind in a scratch tree.
set -euo pipefail

root=.
if [ "${1:-}" = -C ]; then root=$2; shift 2; fi

if [ "${1:-}" = --self-test ]; then
	shift
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	mkdir -p "$tmp"/{lib/sub,readers/sub,machine,symtab,analyzer/cli,analyzer/report,analyzer/script}
	echo '#include "lib/a.h"' >"$tmp/lib/b.c"
	echo '#include "readers/r.h"' >"$tmp/machine/m.c"
	echo '#include "analyzer/cli/options.h"' >"$tmp/analyzer/report/report.c"
	self=$0
	"$self" -C "$tmp" "$@" >/dev/null || { echo "check-layers: self-test: a clean tree failed" >&2; exit 1; }
	fails=0
	for bad in 'lib/x.c:#include "readers/r.h"' \
		   'readers/x.c:#include "machine/machine.h"' \
		   'machine/x.c:#include "analyzer/hist/hist.h"' \
		   'symtab/x.c:#include "analyzer/cli/options.h"' \
		   'analyzer/script/x.c:#include "analyzer/report/report.h"' \
		   'analyzer/report/x.c:#include "machine/machine_internal.h"' \
		   'lib/sub/x.c:#include "readers/r.h"' \
		   'readers/sub/x.c:#include "machine/machine.h"'; do
		file=${bad%%:*}
		echo "${bad#*:}" >"$tmp/$file"
		if "$self" -C "$tmp" "$@" >/dev/null 2>&1; then
			echo "check-layers: self-test: not caught: $file: ${bad#*:}" >&2
			fails=$((fails + 1))
		fi
		rm "$tmp/$file"
	done
	[ $fails = 0 ] && echo "check-layers: self-test passed"
	exit $((fails > 0))
fi

declare -A allowed
for rule in "$@"; do
	allowed[${rule%%:*}]=${rule#*:}
done

# the rule of a file's folder: its own, else a command folder's, else its parent folder's
rule_of() {
	local dir=$1
	while :; do
		if [ -n "${allowed[$dir]+x}" ]; then
			echo "${allowed[$dir]}"
		elif [[ $dir == analyzer/* && $dir != */*/* && -n "${allowed[analyzer/*]+x}" ]]; then
			echo "${allowed[analyzer/*]}"
		elif [[ $dir == */* ]]; then
			dir=${dir%/*}
			continue
		else
			echo "-"
		fi
		return
	done
}

bad=0
cd "$root"
while IFS= read -r file; do
	dir=${file%/*}
	rule=$(rule_of "$dir")
	if [ "$rule" = - ]; then
		echo "check-layers: $file: its folder $dir has no rule in the Makefile's LAYERS" >&2
		bad=1
		continue
	fi
	while IFS= read -r inc; do
		hdir=${inc%/*}
		[ "$hdir" = "$inc" ] && continue	# a header beside it, by its bare name
		if [ "$hdir" = "$dir" ]; then
			continue
		fi
		if [[ $inc == *_internal.h ]]; then
			echo "check-layers: $file includes $inc: internal to $hdir" >&2
			bad=1
			continue
		fi
		ok=0
		IFS=, read -ra list <<<"$rule"
		for a in "${list[@]}"; do
			if [ "$inc" = "$a" ] || [[ $inc == "$a"/* ]]; then
				ok=1
				break
			fi
		done
		if [ $ok = 0 ]; then
			echo "check-layers: $file includes $inc: $dir may include only $rule" >&2
			bad=1
		fi
	done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$file")
done < <(find lib readers machine symtab analyzer -name '*.[ch]' 2>/dev/null | sort)
[ $bad = 0 ] && echo "check-layers: every include within its layer"
exit $bad
