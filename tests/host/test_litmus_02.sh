#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The litmus tests in Documentation/litmus-tests/block model kernel functions
# that still have the shape the models assume.  Each .litmus header names
# what it relies on in "Models:" entries:
#
#    * Models: FILE FUNCTION(): STATEMENT
#    *	STATEMENT, continued
#
# "Models:" is checked against the series applied (patches/0*.patch on the
# base), "Models v7.3:" against the base kernel (the code before the series).
# FUNCTION's body (a C function up to its closing brace, or a macro) is taken
# from FILE, comments dropped and white space squeezed; STATEMENT, squeezed
# the same way, must occur in it.  A missing function or statement fails,
# naming the litmus file, the function and the statement.  Every litmus file
# has at least one "Models:" entry.
#
# BB_LITMUS_TREE=DIR checks against DIR (a kernel tree, the series applied)
# instead and BB_LITMUS_BASE_TREE=DIR the "Models v7.3:" entries; with
# BB_LITMUS_TREE set only that check runs.  Without it, the test also shows
# that a scratch copy of the tree with the smp_mb() of blk_mq_run_hw_queue(),
# or the rcu_read_lock() of __blk_mq_run_dispatch_ops(), removed fails.
# Skips (4) when the base kernel is not cached and cannot be fetched.
REAL_CACHE=${BB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/block-batch}
. "$(dirname "$0")/lib.sh"
export BB_CACHE=$REAL_CACHE
ldir=${BB_LITMUS_DIR:-$TOP/Documentation/litmus-tests/block}

# body FILE FUNCTION -- FUNCTION's definition in FILE, comments removed and
# white space squeezed to single blanks; nothing when it is not there
body() {
	perl -e '
		my ($file, $fn) = @ARGV;
		open(my $fh, "<", $file) or exit 0;
		my @l = <$fh>;
		my $out = "";
		for (my $i = 0; $i < @l; $i++) {
			if ($l[$i] =~ /^#\s*define\s+\Q$fn\E\(/) {
				# a macro: up to the first line without a backslash
				while ($i < @l) {
					$out .= $l[$i];
					last if $l[$i] !~ /\\\s*$/;
					$i++;
				}
				last;
			}
			next unless $l[$i] =~ /^[A-Za-z_].*\b\Q$fn\E\(/ ||
				    ($l[$i] =~ /^\Q$fn\E\(/);
			# a declaration or a call, not a definition
			my $j = $i;
			my $head = "";
			while ($j < @l && $l[$j] !~ /^\{/) {
				$head .= $l[$j];
				last if $l[$j] =~ /;\s*$/ && $head !~ /\{/;
				$j++;
			}
			next if $j >= @l || $l[$j] !~ /^\{/;
			for (my $k = $i; $k < @l; $k++) {
				$out .= $l[$k];
				last if $l[$k] =~ /^\}/;
			}
			last;
		}
		$out =~ s/\\\n/ /g;
		$out =~ s{/\*.*?\*/}{ }gs;
		$out =~ s{//[^\n]*}{ }g;
		$out =~ s/\s+/ /g;
		print $out;
	' "$1" "$2"
}

# entries LITMUS -- "KIND<TAB>FILE<TAB>FUNCTION<TAB>STATEMENT" per entry
entries() {
	awk '
		function flush() {
			if (kind != "") {
				gsub(/[ \t]+/, " ", stmt)
				sub(/^ /, "", stmt); sub(/ $/, "", stmt)
				printf "%s\t%s\t%s\t%s\n", kind, file, fn, stmt
			}
			kind = ""
		}
		/^ \* Models( v7\.3)?: / {
			flush()
			kind = ($0 ~ /^ \* Models v7\.3: /) ? "base" : "series"
			line = $0
			sub(/^ \* Models( v7\.3)?: /, "", line)
			file = line; sub(/ .*/, "", file)
			sub(/^[^ ]+ /, "", line)
			fn = line; sub(/\(\):.*/, "", fn)
			stmt = line; sub(/^[^(]*\(\):/, "", stmt)
			next
		}
		kind != "" && /^ \*\t/ { line = $0; sub(/^ \*\t/, "", line); stmt = stmt " " line; next }
		{ flush() }
		END { flush() }
	' "$1"
}

# check TREE BASE_TREE -- every entry of every litmus file; prints what is
# missing and returns 1 when something is
check() {
	local tree=$1 base=$2 f name kind file fn stmt dir b bad=0 n
	for f in "$ldir"/*.litmus; do
		name=${f#"$TOP"/}
		n=0
		while IFS=$'\t' read -r kind file fn stmt; do
			n=$((n + 1))
			dir=$tree
			[ "$kind" = base ] && dir=$base
			if [ -z "$fn" ] || [ -z "$stmt" ] || [ -z "$file" ]; then
				echo "FAIL: $name: a Models entry without a file, function or statement"
				bad=1
				continue
			fi
			if [ ! -f "$dir/$file" ]; then
				echo "FAIL: $name: $file: no such file in $dir"
				bad=1
				continue
			fi
			b=$(body "$dir/$file" "$fn")
			if [ -z "$b" ]; then
				echo "FAIL: $name: $file: no function $fn() ($kind)"
				bad=1
			elif [[ "$b" != *"$stmt"* ]]; then
				echo "FAIL: $name: $file $fn(): missing: $stmt ($kind)"
				bad=1
			fi
		done < <(entries "$f")
		if [ $n -eq 0 ]; then
			echo "FAIL: $name: no \"Models:\" entry in its header"
			bad=1
		else
			echo "ok: $name: $n Models entries"
		fi
	done
	return $bad
}

files="block include/linux"

if [ -n "${BB_LITMUS_TREE:-}" ]; then
	base=${BB_LITMUS_BASE_TREE:-}
	if [ -z "$base" ]; then
		tree=$("$TOP/scripts/fetch-base.sh" 2> "$T/fetch.err") ||
			{ tail -n 3 "$T/fetch.err"; echo "SKIP: no base kernel"; exit 4; }
		base=$T/base
		mkdir -p "$base"
		git -C "$tree" archive block-batch-base $files | tar -x -C "$base" ||
			fail "git archive of the base"
	fi
	check "$BB_LITMUS_TREE" "$base" || fail "a litmus model no longer matches the code in $BB_LITMUS_TREE"
	exit 0
fi

tree=$("$TOP/scripts/fetch-base.sh" 2> "$T/fetch.err") ||
	{ tail -n 3 "$T/fetch.err"; echo "SKIP: the base kernel is not cached and cannot be fetched"; exit 4; }

# The base's block/ and include/linux/, and the same with the series applied
# (patches/0*.patch, the source, not the cached tree's branch).
mkdir -p "$T/base" "$T/applied"
git -C "$tree" archive block-batch-base $files | tar -x -C "$T/base" ||
	fail "git archive of the base"
cp -a "$T/base/." "$T/applied/"
for p in "$TOP"/patches/0*.patch; do
	(cd "$T/applied" && git apply -p1 --include='block/*' \
		--include='include/linux/*' "$p") 2> "$T/err" ||
		{ cat "$T/err"; fail "$(basename "$p") does not apply to block/ and include/linux/"; }
done
echo "ok: the series applied to the base's block/ and include/linux/"

check "$T/applied" "$T/base" > "$T/out" || { cat "$T/out"; fail "a litmus model no longer matches the code"; }
cat "$T/out"
echo "ok: every litmus model matches the code it names"

# break FILE PERL-EXPR -- a scratch copy of the applied tree with EXPR run
# over FILE (which must change it)
break_tree() {
	rm -rf "$T/scratch"
	cp -a "$T/applied" "$T/scratch"
	cp "$T/scratch/$1" "$T/orig"
	perl -0pi -e "$2" "$T/scratch/$1"
	! cmp -s "$T/orig" "$T/scratch/$1" || fail "could not break $1 with $2"
}

# caught FILE PERL LITMUS WHERE STATEMENT -- FILE broken with PERL: the
#   test must fail, naming LITMUS, WHERE (file and function) and STATEMENT
caught() {
	local msg="FAIL: Documentation/litmus-tests/block/$3: $4: missing: $5"

	break_tree "$1" "$2"
	BB_LITMUS_TREE=$T/scratch BB_LITMUS_BASE_TREE=$T/base bash "$0" > "$T/out" 2>&1 &&
		{ cat "$T/out"; fail "a tree without the $5 of $4 passed"; }
	grep -qF -- "$msg" "$T/out" ||
		{ cat "$T/out"; fail "the missing $5 was not named"; }
	echo "ok: without $5: $(grep -m1 -F "$msg" "$T/out")"
}

# Remove the smp_mb() from blk_mq_run_hw_queue(): caught, named.
caught block/blk-mq.c 's{\t\tsmp_mb\(\);\t/\* pairs with blk_mq_unquiesce_queue\(\) \*/\n}{}' \
	blk-mq-quiesce-unquiesce-vs-run.litmus "block/blk-mq.c blk_mq_run_hw_queue()" "smp_mb();"
# Remove the rcu_read_lock() of __blk_mq_run_dispatch_ops(): caught, named.
caught block/blk-mq.h 's/\t\trcu_read_lock\(\);\s*\\\n//' \
	blk-mq-quiesce-fast-path-vs-dispatch.litmus "block/blk-mq.h __blk_mq_run_dispatch_ops()" \
	"rcu_read_lock();"
