# SPDX-License-Identifier: GPL-2.0
#
# The benchmark table, from the BENCH and LOCKSTAT lines of
# scripts/bench/guest-bench.sh (kernel=base|patched, one line per case and
# round): mean IOPS per kernel, patched/base, each as % of 'none', merges,
# and lock_stat acquisitions/contentions per I/O.
# usage: awk [-v scheds="none mq-deadline bfq"] [-v jobs="1 4 16"] -f table.awk RESULTS
# Without -v, schedulers and job counts are listed in the order they appear.
function kv(s, k,   a, i, n) { n = split(s, a, " "); for (i = 1; i <= n; i++) if (a[i] ~ "^" k "=") return substr(a[i], length(k) + 2); return "" }
{
	k = kv($0, "kernel"); s = kv($0, "sched"); j = kv($0, "jobs"); v = kv($0, "iops"); m = kv($0, "merges")
	if (!(s in seen_s)) { seen_s[s] = 1; all_s = all_s (all_s == "" ? "" : " ") s }
	if (!(j in seen_j)) { seen_j[j] = 1; all_j = all_j (all_j == "" ? "" : " ") j }
	if ($1 == "LOCKSTAT") {
		c = kv($0, "class"); ios = kv($0, "ios")
		if (ios > 0) { acq[k, s, j, c] += kv($0, "acq") / ios; con[k, s, j, c] += kv($0, "con") / ios; nl[k, s, j, c]++; classes[c] = 1 }
		next
	}
	if (v == "NA") next
	sum[k, s, j] += v; n[k, s, j]++; mer[k, s, j] += m
}
END {
	printf "| sched | jobs | base IOPS | patched IOPS | patched/base | base %% of none | patched %% of none | merges base/patched |\n"
	printf "|---|---|---|---|---|---|---|---|\n"
	ns = split(scheds != "" ? scheds : all_s, S, " "); nj = split(jobs != "" ? jobs : all_j, J, " ")
	for (a = 1; a <= ns; a++) for (b = 1; b <= nj; b++) {
		s = S[a]; j = J[b]
		if (!n["base", s, j] || !n["patched", s, j]) { printf "| %s | %s | n/a | n/a | | | | |\n", s, j; continue }
		bi = sum["base", s, j] / n["base", s, j]; pi = sum["patched", s, j] / n["patched", s, j]
		bn = n["base", "none", j] ? sum["base", "none", j] / n["base", "none", j] : 0
		pn = n["patched", "none", j] ? sum["patched", "none", j] / n["patched", "none", j] : 0
		printf "| %s | %s | %.0f | %.0f | %.3f | %s | %s | %.0f/%.0f |\n", s, j, bi, pi, pi / bi,
			bn ? sprintf("%.0f%%", 100 * bi / bn) : "-", pn ? sprintf("%.0f%%", 100 * pi / pn) : "-",
			mer["base", s, j] / n["base", s, j], mer["patched", s, j] / n["patched", s, j]
	}
	for (c in classes) {
		printf "\nlock_stat %s, per I/O (acquisitions / contentions):\n\n", c
		printf "| sched | jobs | base acq | base con | patched acq | patched con |\n|---|---|---|---|---|---|\n"
		for (a = 1; a <= ns; a++) for (b = 1; b <= nj; b++) {
			s = S[a]; j = J[b]
			printf "| %s | %s | %s | %s | %s | %s |\n", s, j,
				f3(acq, "base", s, j, c), f3(con, "base", s, j, c),
				f3(acq, "patched", s, j, c), f3(con, "patched", s, j, c)
		}
	}
}
function f3(arr, k, s, j, c) { return nl[k, s, j, c] ? sprintf("%.3f", arr[k, s, j, c] / nl[k, s, j, c]) : "-" }
