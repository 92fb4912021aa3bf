# SPDX-License-Identifier: GPL-2.0
# The blktests posting, for scripts/export-series.sh --blktests (sourced).

# bb_blktests_posting CHECKOUT OUTDIR NAME EMAIL PREFIX [REROLL] -- the
# series' blktests cases (blktests/tests/block) as patches on top of the
# blktests git checkout CHECKOUT, one case and its .out file a patch, by
# NAME <EMAIL> (author, Signed-off-by:, the cases' Copyright line), in
# OUTDIR/blktests with the cover letter patches/cover/blktests.txt and
# subject prefix PREFIX.  CHECKOUT is cloned, never written.  Refuses
# when a case's number is taken in CHECKOUT, or when blktests' "make
# check" (shellcheck and its own checks) fails on the result: dies, with
# nothing exported.
bb_blktests_posting() {
	local bt=$1 outdir=$2 name=$3 email=$4 prefix=$5 reroll=${6:-}
	local work c n desc base ident cover

	cover=${BB_PATCHES:-$BB_TOP/patches}/cover/blktests.txt
	work=$(mktemp -d) || die "cannot make a temporary directory"
	# removed on any way out, die included (it exits inside this function)
	trap 'rm -rf "$work"' EXIT
	git clone -q "$bt" "$work/blktests" ||
		{ die "cannot clone $bt"; }
	base=$(git -C "$work/blktests" rev-parse HEAD)
	mkdir -p "$work/blktests/tests/block" || { die "cannot write into the clone of $bt"; }
	ident="$name <$email>"
	for c in "$BB_TOP"/blktests/tests/block/[0-9][0-9][0-9]; do
		n=${c##*/}
		if [ -e "$work/blktests/tests/block/$n" ]; then
			die "block/$n is taken in $bt: number the series' cases after its newest ($(cd "$bt/tests/block" && ls | grep -x '[0-9]*' | tail -n1))"
		fi
		desc=$(sed -n 's/^DESCRIPTION="\(.*\)"$/\1/p' "$c")
		sed "3s/^# Copyright (C) \([0-9]*\) .*/# Copyright (C) \1 $(printf '%s' "$ident" | sed 's/[&/\]/\\&/g')/" \
			"$c" > "$work/blktests/tests/block/$n" &&
			cp "$c.out" "$work/blktests/tests/block/$n.out" &&
			chmod 755 "$work/blktests/tests/block/$n" || { die "cannot write block/$n into the clone"; }
		# the commit message: the case's header comment
		{
			echo "block/$n: add a test: $desc"
			echo
			awk 'NR > 4 && /^#( |$)/ { sub(/^# ?/, ""); print; next } NR > 4 { exit }' "$c"
			echo
			echo "Signed-off-by: $ident"
		} > "$work/msg"
		git -C "$work/blktests" add "tests/block/$n" "tests/block/$n.out" &&
			GIT_AUTHOR_NAME=$name GIT_AUTHOR_EMAIL=$email GIT_COMMITTER_NAME=$name \
			GIT_COMMITTER_EMAIL=$email git -C "$work/blktests" commit -q -F "$work/msg" ||
			{ die "cannot commit block/$n"; }
	done
	if ! make -s -C "$work/blktests" check > "$work/check.log" 2>&1; then
		cat "$work/check.log" >&2
		die "blktests' make check fails on the cases (it runs shellcheck: scripts/install-deps.sh --blktests)"
	fi
	git -C "$work/blktests" checkout -q -B master &&
		git -C "$work/blktests" config branch.master.description "$(cat "$cover")" &&
		rm -rf "$outdir" && mkdir -p "$outdir" &&
		GIT_AUTHOR_NAME=$name GIT_AUTHOR_EMAIL=$email GIT_COMMITTER_NAME=$name \
		GIT_COMMITTER_EMAIL=$email git -C "$work/blktests" format-patch -q \
		-o "$(realpath "$outdir")/blktests" --cover-letter \
		--cover-from-description=subject --thread=shallow --base="$base" \
		--subject-prefix="$prefix" ${reroll:+-v "$reroll"} "$base..master" ||
		{ rm -rf "$outdir"; die "git format-patch failed for the blktests posting"; }
	rm -rf "$work"
	trap - EXIT
	if grep -l -F -e "$BB_PLACEHOLDER_EMAIL" -e "$BB_PLACEHOLDER_NAME" "$outdir"/blktests/*.patch >&2; then
		rm -rf "$outdir"
		die "the placeholder identity is still in the files above; nothing exported"
	fi
	info "exported the blktests posting ($(ls "$outdir"/blktests/*.patch | grep -vc 0000-cover-letter) patches) to $outdir/blktests, from $ident, base-commit $base"
}
