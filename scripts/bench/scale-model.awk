# SPDX-License-Identifier: GPL-2.0
#
# What the scheduler lock's figures say about scaling, in two models, from
# the lock_stat guests' LOCKSTAT lines (htot=, iops=, acq=: scripts/bench/
# guest-bench.sh on lock_stat kernels, the lockstat/results.txt of
# scripts/run.sh), per scheduler:
#
# 1. Hold time alone.  A closed queueing model, solved by exact mean value
#    analysis (MVA), of n jobs, each on a CPU of its own, that spend Z per
#    I/O outside the lock and D holding it (one server, first come first
#    served):  R(i) = D (1 + Q(i-1)),  X(i) = i / (Z + R(i)),  Q(i) = X(i) R(i)
#    D is lock_stat's hold time per I/O, Z + D one job's time per I/O
#    (1 / IOPS), both from the 1-job case.  R - D is the wait per I/O, put
#    beside lock_stat's measured waittime-total per I/O at
#    min(jobs, guest_cpus): the model checked on the run it came from.
#
# 2. Hold time and lock transfers: the Universal Scalability Law,
#    X(n) / X(1) = n / (1 + s (n - 1) + k n (n - 1)), with the serial
#    fraction s = D / (Z + D) of each kernel as above, and the coherency
#    cost k, which hold time does not see (the lock and the data under it
#    moving between CPUs, paid per acquisition), fitted on the base
#    kernel's measured scaling (-v scaling) by least squares, and taken
#    for the patched kernel in proportion to its acquisitions per I/O:
#    k_patched = k_base * acq_patched / acq_base (1-job case).
#
# Each model prints the factor by which the lock would move the IOPS ratio
# patched/base from its 1-job value at each n of -v cpus:
# (X_patched(n) / X_patched(1)) / (X_base(n) / X_base(1)).  With
# -v measured (patched/base ratios of a run, n=1 included), the predicted
# ratio (the measured 1-job ratio times the factor) and its error.
#
# usage: awk [-v cpus="8 16 64"] [-v guest_cpus=2]
#            [-v scaling="SCHED:N=X(N)/X(1),N=... SCHED:..."]
#            [-v measured="SCHED:1=R,N=R,... SCHED:..."]
#            -f scale-model.awk RESULTS...
function kv(s, k,   a, i, n) { n = split(s, a, " "); for (i = 1; i <= n; i++) if (a[i] ~ "^" k "=") return substr(a[i], length(k) + 2); return "" }
# mva D Z N -- sets MX (I/Os per us) and MW (wait per I/O, us) at N jobs
function mva(d, z, n,   i, q, r, x) {
	q = 0
	for (i = 1; i <= n; i++) { r = d * (1 + q); x = i / (z + r); q = x * r }
	MX = x; MW = r - d
}
function usl(s, k, n) { return n / (1 + s * (n - 1) + k * n * (n - 1)) }
# pairs STR SCHED ARR -- ARR[N] = value from "SCHED:N=V,N=V ..."; count
function pairs(str, s, arr,   a, b, i, m, c, p, e) {
	m = split(str, a, " "); c = 0
	for (i = 1; i <= m; i++) {
		if (index(a[i], s ":") != 1) continue
		p = split(substr(a[i], length(s) + 2), b, ",")
		for (e = 1; e <= p; e++) { split(b[e], kvp, "="); arr[kvp[1] + 0] = kvp[2] + 0; c++ }
	}
	return c
}
# factors NAME -- print the row of factors F[n] and, with measured ratios,
#   the predicted ratios and their errors
function factors(name,   i, n, r) {
	printf "| %s, factor |", name
	for (i = 1; i <= nc; i++) printf " %.3f |", F[C[i]]
	printf "\n"
	if (!(1 in MEAS)) return
	printf "| %s, predicted ratio |", name
	for (i = 1; i <= nc; i++) printf " %.3f |", MEAS[1] * F[C[i]]
	printf "\n| %s, error |", name
	for (i = 1; i <= nc; i++) {
		n = C[i]
		printf " %s |", (n in MEAS) && n != 1 ? sprintf("%+.0f%%", 100 * (MEAS[1] * F[n] / MEAS[n] - 1)) : "-"
	}
	printf "\n"
}
BEGIN { if (cpus == "") cpus = "8 16 64"; if (guest_cpus == "") guest_cpus = 2 }
$1 == "LOCKSTAT" && kv($0, "class") == "sched-lock" {
	k = kv($0, "kernel"); s = kv($0, "sched"); j = kv($0, "jobs") + 0
	ios = kv($0, "ios") + 0; iops = kv($0, "iops"); htot = kv($0, "htot")
	if (ios <= 0 || htot == "" || iops == "" || iops == "NA" || iops <= 0) next
	if (!(s in seen)) { seen[s] = 1; order[++ns] = s }
	if (!((k, s, j) in n)) { jl[k, s] = jl[k, s] " " j }
	n[k, s, j]++; d[k, s, j] += htot / ios; w[k, s, j] += kv($0, "wtot") / ios
	t[k, s, j] += 1e6 * j / iops	# us per I/O of one job
	acq[k, s, j] += kv($0, "acq") / ios
}
END {
	nc = split(cpus, C, " ")
	for (a = 1; a <= ns; a++) {
		s = order[a]
		if (!n["base", s, 1] || !n["patched", s, 1]) {
			printf "\n%s: no 1-job case of both kernels: no model\n", s
			continue
		}
		for (q = 1; q <= 2; q++) {
			k = q == 1 ? "base" : "patched"
			D[k] = d[k, s, 1] / n[k, s, 1]; T[k] = t[k, s, 1] / n[k, s, 1]
			A[k] = acq[k, s, 1] / n[k, s, 1]; SF[k] = D[k] / T[k]
		}
		printf "\n%s, 1 job: hold time D and one job's time per I/O (us), serial fraction, acquisitions per I/O\n\n", s
		printf "| kernel | D | Z + D | serial fraction | ceiling 1/D, kIOPS | acquisitions/IO |\n|---|---|---|---|---|---|\n"
		for (q = 1; q <= 2; q++) {
			k = q == 1 ? "base" : "patched"
			printf "| %s | %.3f | %.3f | %.4f | %.1f | %.3f |\n", k, D[k], T[k], SF[k], 1000 / D[k], A[k]
		}
		printf "\n%s, model 1 checked on its own run: wait for the lock per I/O (us) at n = min(jobs, %d)\n\n", s, guest_cpus
		printf "| kernel | jobs | n | model | lock_stat |\n|---|---|---|---|---|\n"
		for (q = 1; q <= 2; q++) {
			k = q == 1 ? "base" : "patched"
			m = split(jl[k, s], J, " ")
			for (b = 1; b <= m; b++) {
				j = J[b] + 0
				if (j < 2) continue
				nn = j < guest_cpus ? j : guest_cpus
				mva(D[k], T[k] - D[k], nn)
				printf "| %s | %d | %d | %.3f | %.3f |\n", k, j, nn, MW, w[k, s, j] / n[k, s, j]
			}
		}
		delete MEAS; pairs(measured, s, MEAS)
		printf "\n%s: patched/base factor from the lock at n CPUs\n\n| model |", s
		for (i = 1; i <= nc; i++) printf " n=%s |", C[i]
		printf "\n|---|"
		for (i = 1; i <= nc; i++) printf "---|"
		printf "\n"
		if (1 in MEAS) {
			printf "| measured ratio |"
			for (i = 1; i <= nc; i++) printf " %s |", (C[i] in MEAS) ? sprintf("%.3f", MEAS[C[i]]) : "-"
			printf "\n"
		}
		for (i = 1; i <= nc; i++) {
			mva(D["base"], T["base"] - D["base"], C[i]); xb = MX
			mva(D["base"], T["base"] - D["base"], 1); xb1 = MX
			mva(D["patched"], T["patched"] - D["patched"], C[i]); xp = MX
			mva(D["patched"], T["patched"] - D["patched"], 1); xp1 = MX
			F[C[i]] = (xp / xp1) / (xb / xb1)
		}
		factors("1 (hold time)")
		delete SC
		if (!pairs(scaling, s, SC)) continue
		# least squares for k: n/S - 1 - s (n - 1) = k n (n - 1)
		num = den = 0
		for (nn in SC) {
			y = nn / SC[nn] - 1 - SF["base"] * (nn - 1); x = nn * (nn - 1)
			num += x * y; den += x * x
		}
		kb = den > 0 ? num / den : 0
		kp = kb * A["patched"] / A["base"]
		for (i = 1; i <= nc; i++)
			F[C[i]] = usl(SF["patched"], kp, C[i]) / usl(SF["base"], kb, C[i])
		factors(sprintf("2 (k = %.4f base, %.4f patched)", kb, kp))
		printf "\n(model 2's fit on the base:"
		for (nn in SC) printf " X(%d)/X(1) %.3f measured, %.3f fitted;", nn, SC[nn], usl(SF["base"], kb, nn)
		printf ")\n"
	}
}
