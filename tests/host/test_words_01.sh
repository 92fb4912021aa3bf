#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What is sent speaks only the kernel's words: the series as
# scripts/export-series.sh writes it (each posting's cover letter, commit messages, and the
# lines each patch adds, the new files included) names none of this
# project's own tools, options or planning words: its scripts
# (scripts/test.sh, scripts/run.sh, ...), their options (--load N), its
# mutants, "block-batch" as the name of a project or a
# series (the kselftest directory tools/testing/selftests/block-batch, its
# "selftests: block-batch:" subject prefix and its selftests may be named),
# and "this series" inside an added file.  Fails with PATCH:LINE: TEXT for
# each hit.
#
# BB_WORDS_DIR=DIR checks an exported series in DIR instead of exporting
# one.  Without it, the test also shows that an added line naming
# scripts/test.sh is caught.  Skips (4) when the series cannot be exported
# (no base kernel cached).
#
# The words are assembled from pieces, so that the vocabulary test does not
# match this file.
REAL_CACHE=${BB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/block-batch}
. "$(dirname "$0")/lib.sh"
export BB_CACHE=$REAL_CACHE BB_OUT=$T/out

w() { local IFS=; echo "$*"; }
proj=$(w block - batch)
# the project's scripts, by name
tools="(test|run|build|boot|calibrate|mkinitramfs|mutants|run-litmus|apply-series|export-series|refresh-series|check-series|send-series|fetch-base|install-[a-z0-9]+|install-deps)\\.sh"
pats=(
	"scripts/$tools"
	"scripts/(bench|guest|testlib|sid-tool|herd7|sparse)\\b"
	"tests/(host|mutants)/"
	"(^|[^-a-z])--load\\b"
	"\\b$(w mut ants?)\\b"
	"\\b$(w se eds?) [0-9]+"
	"\\b$(w se ed) [0-9]+'s\\b"
	"\\b$(w ses sions?)\\b"
	"\\b$(w iss ues?) [0-9]+"
	"\\b$(w mis sion)\\b"
)
re=$(IFS='|'; echo "${pats[*]}")
# "block-batch" where it is not the kselftest directory or its tests
proj_ok="(selftests/|selftests: |\\.\\.\\./|TARGETS \\+= |TARGETS=)$proj|$proj(-selftest|-\\\$TID\\.)|$proj (selftests?|kselftests?)\\b"

# scan FILE... -- PATCH:LINE: TEXT for each line that names the project
scan() {
	RE=$re PROJ=$proj OK=$proj_ok perl -ne '
		BEGIN {
			$re = qr/$ENV{RE}/i; $ok = qr/$ENV{OK}/; $proj = $ENV{PROJ};
		}
		if ($cur ne $ARGV) {
			$cur = $ARGV; ($name = $ARGV) =~ s{.*/([^/]+/[^/]+)$}{$1};
			$indiff = 0;
		}
		chomp;
		$indiff = 1 if /^diff --git a\//;
		if ($indiff) {
			# only what the patch adds
			goto done if !/^\+/ || /^\+\+\+ /;
		}
		$hit = 0;
		$hit = 1 if $_ =~ $re;
		($rest = $_) =~ s/$ok//g;
		$hit = 1 if index($rest, $proj) >= 0;
		$hit = 1 if $indiff && /this series/i;
		printf "%s:%d: %s\n", $name, $., substr($_, 0, 160) if $hit;
		done:
		close ARGV if eof;
	' "$@"
}

if [ -n "${BB_WORDS_DIR:-}" ]; then
	dir=$BB_WORDS_DIR
else
	GIT_AUTHOR_NAME="Words Test" GIT_AUTHOR_EMAIL=words@example.com \
	GIT_COMMITTER_NAME="Words Test" GIT_COMMITTER_EMAIL=words@example.com \
		"$TOP/scripts/export-series.sh" -o "$T/series" > "$T/export.out" 2> "$T/export.err" ||
		{ tail -n 5 "$T/export.err"; echo "SKIP: the series cannot be exported"; exit 4; }
	dir=$T/series
fi
ls "$dir"/*/*.patch > /dev/null 2>&1 || fail "no exported patches in $dir"

if [ -z "${BB_WORDS_DIR:-}" ]; then
	# A line naming one of the project's scripts, added to a copy of a
	# patch, is caught and named.
	mkdir -p "$T/bad"
	cp -r "$dir"/. "$T/bad/"
	p=$(ls "$T/bad"/*/0*.patch | sed -n 2p)
	awk -v s="+# run by scripts/test.sh" '
		{ print } /^\+\+\+ / && !done { getline; print; print s; done = 1 }
	' "$p" > "$T/p" && mv "$T/p" "$p"
	scan "$T/bad"/*/*.patch > "$T/badhits"
	grep -q "^$(basename "$(dirname "$p")")/$(basename "$p"):[0-9]*: +# run by scripts/test.sh$" "$T/badhits" ||
		{ cat "$T/badhits"; fail "an added line naming scripts/test.sh was not caught"; }
	echo "ok: caught: $(grep -m1 'scripts/test.sh' "$T/badhits")"
fi

scan "$dir"/*/*.patch > "$T/hits"
if [ -s "$T/hits" ]; then
	sed 's/^/  /' "$T/hits"
	fail "$(wc -l < "$T/hits") line(s) of the exported series name the project's own tools or words (above, PATCH:LINE: TEXT)"
fi
echo "ok: $(ls "$dir"/*/*.patch | wc -l) exported files in $(ls -d "$dir"/*/ | wc -l) postings, none names the project's own tools or words"
