# SPDX-License-Identifier: GPL-2.0
#
# The benchmark's figures, from the BENCH and LOCKSTAT lines of
# scripts/bench/guest-bench.sh (kernel=base|patched, one line per case, with
# round=R appended by run-guests.sh).  Per scheduler and job count: mean IOPS
# per kernel, patched/base as the mean of the per-round ratios (each round
# boots base then patched: a pair that shares the host's drift) with its
# spread, each kernel as % of 'none', merges, and a verdict.
#
# The spread: a 95% interval (Student's t over the per-round ratios) from 3
# rounds on, min-max below that (and then no verdict, and no control).  'none' is the control: where its own
# patched/base interval excludes 1 at a job count, every row of that job
# count says "too noisy to judge" instead of a verdict, as the host's drift
# moved even the path the series barely touches.
#
# usage: awk [-v fmt=md|csv|json|raw|plot|lockplot] [-v scheds="none mq-deadline bfq"]
#            [-v jobs="1 4 16"] -f table.awk RESULTS
#   md (default) the Markdown tables (IOPS, then lock_stat if any: per I/O
#                acquisitions and contentions, averaged over rounds, and the
#                longest hold over all rounds)
#   csv, json    the same figures, one record per scheduler and job count
#   raw          every BENCH line as CSV (kernel, sched, jobs, round, iops, merges)
#   plot         gnuplot data: label, base, patched, ratio, low, high
#   lockplot     gnuplot data: label, base acq/IO, patched acq/IO (scheduler lock)
#   holdplot     gnuplot data: label, base and patched hold time per I/O (us,
#                scheduler lock, lock_stat's holdtime-total)
#   siteplot     gnuplot data: label (sched/jobs kernel), then the scheduler
#                lock's hold time per I/O in us at each call site (SITES)
#   sitecsv      the HOLDSITE figures as CSV: kernel, sched, jobs, site,
#                acquisitions and hold time (us) per I/O, averaged over
#                rounds, and the traced time per I/O it was taken from
#   holdcsv      the HOLD lines (run.sh --holds) per case, as CSV
# HOLD lines (run.sh --holds: the longest section with interrupts or
# preemption disabled, from the irqsoff and preemptoff tracers) make a table
# of their own in md: per scheduler, nr_requests and tracer, the maximum and
# the median over the rounds for each kernel, and where the longest section
# of each kernel started and ended.
# IRQBLK lines (run.sh --disk on PREEMPT_RT: the time interrupt threads
# spent blocked) add a table to md: per 1000 I/Os, the mean over rounds of
# the blocked time, of the blocked periods and of all the interrupt threads'
# switch-outs (0: the trace saw none of them), beside MB/s (mean IOPS x
# 4 KiB, the benchmark's block size), and the trace events lost in all rounds.
# LOCKSTAT lines with htot= (lock_stat's holdtime-total, us) add a table per
# lock class: the hold time per I/O and the ceiling it implies, I/Os per
# second of lock time (1 / hold per I/O): what one lock could serve if it
# were held back to back.  Under lockdep and QEMU TCG its absolute value
# says little; its ratio patched/base is the figure.  HOLDSITE lines (the
# scheduler lock's hold time traced per call site, in a second run of each
# case) add a table that splits it: per call site, acquisitions per I/O
# (counted) and hold time per I/O (lock_stat's total per I/O times the
# site's share of the traced time, see site_us).
# Without -v scheds/jobs, they are listed in the order they appear.
function kv(s, k,   a, i, n) { n = split(s, a, " "); for (i = 1; i <= n; i++) if (a[i] ~ "^" k "=") return substr(a[i], length(k) + 2); return "" }
function tq(df) {	# two-sided 95% quantile of Student's t
	if (df < 1) return 0
	if (df <= 30) return T[df]
	return 1.96
}
function f3(x) { return x == "" ? "" : sprintf("%.3f", x) }
BEGIN {
	nsites = split("insert dispatch finish merge depth other", SITES, " ")
	split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228 " \
	      "2.201 2.179 2.160 2.145 2.131 2.120 2.110 2.101 2.093 2.086 " \
	      "2.080 2.074 2.069 2.064 2.060 2.056 2.052 2.048 2.045 2.042", T, " ")
	if (fmt == "") fmt = "md"
	if (fmt == "raw") print "kernel,sched,jobs,round,iops,merges"
}
$1 == "HOLD" {
	k = kv($0, "kernel"); hk = kv($0, "sched") SUBSEP kv($0, "nr") SUBSEP kv($0, "tracer")
	if (!(hk in hseen)) { hseen[hk] = 1; hkeys[++nh] = hk }
	u = kv($0, "us")
	if (u == "NA" || u == "") next
	hn[k, hk]++; hv[k, hk, hn[k, hk]] = u + 0
	if (!((k, hk) in hmax) || u + 0 > hmax[k, hk]) { hmax[k, hk] = u + 0; hwhere[k, hk] = kv($0, "where") }
	if (fmt == "holdcsv") hrows = hrows sprintf("%s,%s,%s,%s,%s,%s,%s,\"%s\"\n", k, kv($0, "sched"), kv($0, "nr"),
		kv($0, "tracer"), kv($0, "round") == "" ? 1 : kv($0, "round"), u, kv($0, "resets"), kv($0, "where"))
	next
}
$1 == "IRQBLK" {
	k = kv($0, "kernel"); ios = kv($0, "ios"); bk = k SUBSEP kv($0, "sched") SUBSEP kv($0, "jobs")
	if (ios > 0) { ibus[bk] += 1000 * kv($0, "us") / ios; ibn[bk] += 1000 * kv($0, "n") / ios; ibsw[bk] += 1000 * kv($0, "sw") / ios; ibc[bk]++ }
	iblost[bk] += kv($0, "lost"); nirq++
	next
}
$1 == "HOLDSITE" {
	k = kv($0, "kernel"); s = kv($0, "sched"); j = kv($0, "jobs"); r = kv($0, "round"); ios = kv($0, "ios")
	if (r == "") r = 1
	if (ios <= 0) next
	c = kv($0, "site")
	if (c == "dropped") { hsdrop[k, s, j] += kv($0, "n"); next }
	hsus[k, s, j, c] += kv($0, "ns") / 1000 / ios; hsacq[k, s, j, c] += kv($0, "n") / ios
	# the rounds: the most lines of one site (a site a round did not
	# see counts 0 in that round)
	if (++hsc[k, s, j, c] > hsn[k, s, j]) hsn[k, s, j] = hsc[k, s, j, c]
	nsite++
	next
}
$1 != "BENCH" && $1 != "LOCKSTAT" { next }
{ nbench++ }
{
	k = kv($0, "kernel"); s = kv($0, "sched"); j = kv($0, "jobs"); r = kv($0, "round")
	if (r == "") r = 1
	if (!(s in seen_s)) { seen_s[s] = 1; all_s = all_s (all_s == "" ? "" : " ") s }
	if (!(j in seen_j)) { seen_j[j] = 1; all_j = all_j (all_j == "" ? "" : " ") j }
	if ($1 == "LOCKSTAT") {
		c = kv($0, "class"); ios = kv($0, "ios")
		if (ios > 0) { acq[k, s, j, c] += kv($0, "acq") / ios; con[k, s, j, c] += kv($0, "con") / ios; nl[k, s, j, c]++; classes[c] = 1 }
		if (ios > 0 && kv($0, "htot") != "") {
			hpi[k, s, j, c] += kv($0, "htot") / ios; nhpi[k, s, j, c]++; hclasses[c] = 1
			# the share of the run's time the lock was held
			if (kv($0, "iops") + 0 > 0) { busy[k, s, j, c] += 100 * kv($0, "htot") / 1e6 / (ios / kv($0, "iops")); nbusy[k, s, j, c]++ }
		}
		h = kv($0, "hold")
		if (h != "" && (!((k, s, j, c) in hold) || h + 0 > hold[k, s, j, c])) hold[k, s, j, c] = h + 0
		next
	}
	v = kv($0, "iops"); m = kv($0, "merges")
	if (fmt == "raw") { printf "%s,%s,%s,%s,%s,%s\n", k, s, j, r, v, m; next }
	if (v == "NA" || v == "") { na[k, s, j]++; next }
	sum[k, s, j] += v; n[k, s, j]++; mer[k, s, j] += m
	val[k, s, j, r] = v
	if (!((s, j, r) in seen_r)) { seen_r[s, j, r] = 1; rounds[s, j] = rounds[s, j] " " r }
}
# ratio_stats S J -- per-round patched/base ratios of rounds that have both:
# sets RN, RMEAN, RLO, RHI (interval, or min-max when RN < 3), RKIND
function ratio_stats(s, j,   a, i, nr, r, x, ss, mn, mx) {
	RN = 0; RMEAN = ""; RLO = ""; RHI = ""; RKIND = ""
	nr = split(rounds[s, j], a, " ")
	for (i = 1; i <= nr; i++) {
		r = a[i]
		if (!(("base", s, j, r) in val) || !(("patched", s, j, r) in val) || val["base", s, j, r] == 0) continue
		x = val["patched", s, j, r] / val["base", s, j, r]
		RN++; X[RN] = x
	}
	if (RN == 0) return
	ss = 0; for (i = 1; i <= RN; i++) ss += X[i]
	RMEAN = ss / RN
	mn = mx = X[1]; for (i = 2; i <= RN; i++) { if (X[i] < mn) mn = X[i]; if (X[i] > mx) mx = X[i] }
	if (RN < 3) { RLO = mn; RHI = mx; RKIND = "min-max"; return }
	ss = 0; for (i = 1; i <= RN; i++) ss += (X[i] - RMEAN) ^ 2
	hw = tq(RN - 1) * sqrt(ss / (RN - 1)) / sqrt(RN)
	RLO = RMEAN - hw; RHI = RMEAN + hw; RKIND = "95%"
}
function jstr(x) { return x == "" ? "null" : x }
# median K HK -- the median of kernel K's HOLD values for case HK
function median(k, hk,   m, i, j, t, a) {
	m = hn[k, hk]
	if (!m) return ""
	for (i = 1; i <= m; i++) a[i] = hv[k, hk, i]
	for (i = 2; i <= m; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
}
function holds_md(   i, hk, f) {
	printf "\nLongest section with interrupts (irqsoff) or preemption (preemptoff) disabled, in us, over all rounds:\n\n"
	printf "| sched | nr_requests | tracer | base max | base median | patched max | patched median | base longest: start, end | patched longest: start, end |\n"
	printf "|---|---|---|---|---|---|---|---|---|\n"
	for (i = 1; i <= nh; i++) {
		hk = hkeys[i]; split(hk, f, SUBSEP)
		printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", f[1], f[2], f[3],
			dash(hmax["base", hk]), dash(median("base", hk)), dash(hmax["patched", hk]),
			dash(median("patched", hk)), dash(hwhere["base", hk]), dash(hwhere["patched", hk])
	}
}
END {
	if (fmt == "raw") exit 0
	if (fmt == "holdcsv") { print "kernel,sched,nr_requests,tracer,round,us,resets,where"; printf "%s", hrows; exit 0 }
	if (!nbench) { if (fmt == "md" && nh) holds_md(); exit 0 }
	ns = split(scheds != "" ? scheds : all_s, S, " "); nj = split(jobs != "" ? jobs : all_j, J, " ")
	# the control: does 'none' differ between the kernels at this job count?
	for (b = 1; b <= nj; b++) {
		j = J[b]; noisy[j] = ""
		ratio_stats("none", j)
		# only an interval can say the control moved: min-max of one or
		# two rounds almost never holds 1
		if (RN > 0 && RKIND == "95%" && (RLO > 1 || RHI < 1))
			noisy[j] = sprintf("none %.3f (%.3f-%.3f)", RMEAN, RLO, RHI)
	}
	if (fmt == "md") {
		printf "| sched | jobs | base IOPS | patched IOPS | patched/base | spread | rounds | base %% of none | patched %% of none | merges base/patched | verdict |\n"
		printf "|---|---|---|---|---|---|---|---|---|---|---|\n"
	} else if (fmt == "csv") {
		print "sched,jobs,base_iops,patched_iops,ratio,low,high,spread,rounds,base_pct_none,patched_pct_none,base_merges,patched_merges,base_sched_hold_us_per_io,patched_sched_hold_us_per_io,sched_ceiling_ratio,verdict"
	} else if (fmt == "json") {
		printf "["
	} else if (fmt == "sitecsv") {
		print "kernel,sched,jobs,site,acq_per_io,hold_us_per_io,traced_us_per_io"
	}
	first = 1
	for (a = 1; a <= ns; a++) for (b = 1; b <= nj; b++) {
		s = S[a]; j = J[b]
		bi = n["base", s, j] ? sum["base", s, j] / n["base", s, j] : ""
		pi = n["patched", s, j] ? sum["patched", s, j] / n["patched", s, j] : ""
		bn = n["base", "none", j] ? sum["base", "none", j] / n["base", "none", j] : 0
		pn = n["patched", "none", j] ? sum["patched", "none", j] / n["patched", "none", j] : 0
		bpn = (bi != "" && bn) ? 100 * bi / bn : ""
		ppn = (pi != "" && pn) ? 100 * pi / pn : ""
		bm = n["base", s, j] ? mer["base", s, j] / n["base", s, j] : ""
		pm = n["patched", s, j] ? mer["patched", s, j] / n["patched", s, j] : ""
		ratio_stats(s, j)
		if (RN == 0) verdict = "no figures" (na["base", s, j] + na["patched", s, j] ? " (NA: a case failed or hung)" : "")
		else if (s != "none" && noisy[j] != "") verdict = "too noisy to judge: " noisy[j]
		else if (RN < 3) verdict = "too few rounds for an interval"
		else if (RLO > 1) verdict = "faster"
		else if (RHI < 1) verdict = "slower"
		else verdict = "no difference resolved"
		if (s == "none" && RN > 0 && noisy[j] != "") verdict = "control differs: too noisy to judge"
		else if (s == "none" && RN >= 3) verdict = "control: " verdict
		if (fmt == "md") {
			printf "| %s | %s | %s | %s | %s | %s | %d | %s | %s | %s | %s |\n", s, j,
				bi == "" ? "n/a" : sprintf("%.0f", bi), pi == "" ? "n/a" : sprintf("%.0f", pi),
				f3(RMEAN), RN ? sprintf("%.3f-%.3f (%s)", RLO, RHI, RKIND) : "",
				RN, bpn == "" ? "-" : sprintf("%.0f%%", bpn), ppn == "" ? "-" : sprintf("%.0f%%", ppn),
				bm == "" || pm == "" ? "-" : sprintf("%.0f/%.0f", bm, pm), verdict
		} else if (fmt == "csv") {
			printf "%s,%s,%s,%s,%s,%s,%s,%s,%d,%s,%s,%s,%s,%s,%s,%s,\"%s\"\n", s, j,
				bi == "" ? "" : sprintf("%.0f", bi), pi == "" ? "" : sprintf("%.0f", pi),
				f3(RMEAN), f3(RLO), f3(RHI), RKIND, RN,
				bpn == "" ? "" : sprintf("%.1f", bpn), ppn == "" ? "" : sprintf("%.1f", ppn),
				bm == "" ? "" : sprintf("%.0f", bm), pm == "" ? "" : sprintf("%.0f", pm),
				hp("base", s, j, "sched-lock"), hp("patched", s, j, "sched-lock"),
				ceilratio(s, j, "sched-lock"), verdict
		} else if (fmt == "json") {
			printf "%s\n  {\"sched\": \"%s\", \"jobs\": %s, \"base_iops\": %s, \"patched_iops\": %s, " \
				"\"ratio\": %s, \"low\": %s, \"high\": %s, \"spread\": \"%s\", \"rounds\": %d, " \
				"\"base_pct_none\": %s, \"patched_pct_none\": %s, \"verdict\": \"%s\"",
				first ? "" : ",", s, j, jstr(bi == "" ? "" : sprintf("%.0f", bi)),
				jstr(pi == "" ? "" : sprintf("%.0f", pi)), jstr(f3(RMEAN)), jstr(f3(RLO)),
				jstr(f3(RHI)), RKIND, RN, jstr(bpn == "" ? "" : sprintf("%.1f", bpn)),
				jstr(ppn == "" ? "" : sprintf("%.1f", ppn)), verdict
			lk = ""
			for (c in classes)
				lk = lk sprintf("%s\"%s\": {\"base_acq\": %s, \"base_con\": %s, \"base_hold_us\": %s, " \
					"\"patched_acq\": %s, \"patched_con\": %s, \"patched_hold_us\": %s",
					lk == "" ? "" : ", ", c, jstr(fl(acq, "base", s, j, c)), jstr(fl(con, "base", s, j, c)),
					jstr(hl("base", s, j, c)), jstr(fl(acq, "patched", s, j, c)),
					jstr(fl(con, "patched", s, j, c)), jstr(hl("patched", s, j, c))) \
					(nhpi["base", s, j, c] || nhpi["patched", s, j, c] ? \
					sprintf(", \"base_hold_us_per_io\": %s, \"patched_hold_us_per_io\": %s, \"ceiling_ratio\": %s",
						jstr(hp("base", s, j, c)), jstr(hp("patched", s, j, c)), jstr(ceilratio(s, j, c))) : "") "}"
			if (lk != "") printf ", \"lock_stat\": {%s}", lk
			printf "}"
			first = 0
		} else if (fmt == "plot") {
			if (RN > 0) printf "\"%s/%s\" %.0f %.0f %.4f %.4f %.4f\n", s, j, bi, pi, RMEAN, RLO, RHI
		} else if (fmt == "holdplot") {
			if (hp("base", s, j, "sched-lock") != "" && hp("patched", s, j, "sched-lock") != "")
				printf "\"%s/%s\" %s %s\n", s, j, hp("base", s, j, "sched-lock"), hp("patched", s, j, "sched-lock")
		} else if (fmt == "siteplot") {
			for (q = 1; q <= 2; q++) {
				kk = q == 1 ? "base" : "patched"
				if (!hsn[kk, s, j]) continue
				printf "\"%s/%s %s\"", s, j, kk
				for (i = 1; i <= nsites; i++) printf " %s", site_usn(kk, s, j, SITES[i]) == "" ? 0 : site_usn(kk, s, j, SITES[i])
				printf "\n"
			}
		} else if (fmt == "sitecsv") {
			for (q = 1; q <= 2; q++) {
				kk = q == 1 ? "base" : "patched"
				if (!hsn[kk, s, j]) continue
				for (i = 1; i <= nsites; i++)
					printf "%s,%s,%s,%s,%s,%s,%s\n", kk, s, j, SITES[i],
						hs(hsacq, kk, s, j, SITES[i], "%.3f", 0),
						site_usn(kk, s, j, SITES[i]) == "" ? 0 : site_usn(kk, s, j, SITES[i]),
						hs(hsus, kk, s, j, SITES[i], "%.3f", 0)
			}
		} else if (fmt == "lockplot") {
			if (fl(acq, "base", s, j, "sched-lock") != "" && fl(acq, "patched", s, j, "sched-lock") != "")
				printf "\"%s/%s\" %s %s\n", s, j, fl(acq, "base", s, j, "sched-lock"), fl(acq, "patched", s, j, "sched-lock")
		}
	}
	if (fmt == "sitecsv" || fmt == "siteplot" || fmt == "holdplot") exit 0
	if (fmt == "json") { printf "\n]\n"; exit 0 }
	if (fmt != "md") exit 0
	if (nh) holds_md()
	if (nirq) irqblk_md()
	for (c in classes) {
		printf "\nlock_stat %s: acquisitions and contentions per I/O, longest hold in us:\n\n", c
		printf "| sched | jobs | base acq | base con | base hold | patched acq | patched con | patched hold |\n"
		printf "|---|---|---|---|---|---|---|---|\n"
		for (a = 1; a <= ns; a++) for (b = 1; b <= nj; b++) {
			s = S[a]; j = J[b]
			printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", s, j,
				dash(fl(acq, "base", s, j, c)), dash(fl(con, "base", s, j, c)), dash(hl("base", s, j, c)),
				dash(fl(acq, "patched", s, j, c)), dash(fl(con, "patched", s, j, c)), dash(hl("patched", s, j, c))
		}
	}
	holdtime_md()
	if (nsite) holdsites_md()
}
# hpn K S J C -- kernel K's hold time per I/O (us) of class C, mean over
#   rounds, as a number (-1: none); hp: the same formatted ("": none)
function hpn(k, s, j, c) { return nhpi[k, s, j, c] ? hpi[k, s, j, c] / nhpi[k, s, j, c] : -1 }
function hp(k, s, j, c,   h) { h = hpn(k, s, j, c); return h >= 0 ? sprintf("%.3f", h) : "" }
# ceiling K S J C -- the ceiling that hold time implies, in thousands of I/Os
#   per second of lock time
function ceiling(k, s, j, c,   h) { h = hpn(k, s, j, c); return h > 0 ? sprintf("%.1f", 1000 / h) : "" }
function ceilratio(s, j, c,   b, p) {
	b = hpn("base", s, j, c); p = hpn("patched", s, j, c)
	return b > 0 && p > 0 ? sprintf("%.3f", b / p) : ""
}
# busyp K S J C -- the percentage of the run's time the lock was held
function busyp(k, s, j, c) { return nbusy[k, s, j, c] ? sprintf("%.1f", busy[k, s, j, c] / nbusy[k, s, j, c]) : "" }
# hs ARR K S J SITE FMT DEF -- a HOLDSITE figure per I/O, mean over rounds
function hs(arr, k, s, j, c, f, d) {
	if (!hsn[k, s, j]) return ""
	return ((k, s, j, c) in arr) ? sprintf(f, arr[k, s, j, c] / hsn[k, s, j]) : d
}
function holdtime_md(   a, b, s, j, c) {
	for (c in hclasses) {
		printf "\nlock_stat %s: hold time per I/O (holdtime-total / I/Os, us), the ceiling it implies (thousands of I/Os per second of lock time), and the share of the run's time the lock was held.  lock_stat's hold time includes lockdep's own work at each acquisition and for each lock taken inside: fewer acquisitions shrink it by themselves, and the ceiling ratio follows the lockdep kernels' speed; the busy share is the steadier figure:\n\n", c
		printf "| sched | jobs | base hold/IO | patched hold/IO | base ceiling | patched ceiling | ceiling patched/base | base busy %% | patched busy %% |\n"
		printf "|---|---|---|---|---|---|---|---|---|\n"
		for (a = 1; a <= ns; a++) for (b = 1; b <= nj; b++) {
			s = S[a]; j = J[b]
			if (!nhpi["base", s, j, c] && !nhpi["patched", s, j, c]) continue
			printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", s, j, dash(hp("base", s, j, c)),
				dash(hp("patched", s, j, c)), dash(ceiling("base", s, j, c)),
				dash(ceiling("patched", s, j, c)), dash(ceilratio(s, j, c)),
				dash(busyp("base", s, j, c)), dash(busyp("patched", s, j, c))
		}
	}
}
# site_us K S J SITE -- the hold time per I/O at SITE: lock_stat's total
#   per I/O times the site's share of the traced hold time (the trace's own
#   cost inflates every traced hold, so only its shares are used where
#   lock_stat has a total), else the traced time itself
function site_us(k, s, j, c,   v) {
	v = site_usn(k, s, j, c)
	return v == "" || !SU_TRACED ? v : v " (traced)"
}
# site_usn K S J SITE -- the same, unlabelled; SU_TRACED says whether it
#   is the traced time
function site_usn(k, s, j, c,   i, t, h) {
	SU_TRACED = 0
	if (!((k, s, j, c) in hsus)) return ""
	t = 0
	for (i = 1; i <= nsites; i++) if ((k, s, j, SITES[i]) in hsus) t += hsus[k, s, j, SITES[i]]
	h = hpn(k, s, j, "sched-lock")
	if (h <= 0 || t <= 0) { SU_TRACED = 1; return sprintf("%.3f", hsus[k, s, j, c] / hsn[k, s, j]) }
	return sprintf("%.3f", h * hsus[k, s, j, c] / t)
}
function holdsites_md(   a, b, q, i, s, j, kk, t, line, d, h) {
	printf "\nScheduler lock by call site: hold time per I/O in us (acquisitions per I/O).  Both are taken in a second, much slower run of each case, the time traced from lock_acquired to lock_release; the tracing inflates every hold, so each site's time is its share of the traced time applied to lock_stat's hold time per I/O (\"traced\" where there is no lock_stat figure).  An estimate: the trace's fixed cost per hold weighs most on sites with many short holds.  Traced/lock_stat: the traced hold time per I/O over lock_stat's:\n\n"
	printf "| sched | jobs | kernel |"
	for (i = 1; i <= nsites; i++) printf " %s |", SITES[i]
	printf " lock_stat hold/IO | traced/lock_stat |\n|---|---|---|"
	for (i = 1; i <= nsites; i++) printf "---|"
	printf "---|---|\n"
	for (a = 1; a <= ns; a++) for (b = 1; b <= nj; b++) for (q = 1; q <= 2; q++) {
		s = S[a]; j = J[b]; kk = q == 1 ? "base" : "patched"
		if (!hsn[kk, s, j]) continue
		line = sprintf("| %s | %s | %s |", s, j, kk); t = 0
		for (i = 1; i <= nsites; i++) {
			if ((kk, s, j, SITES[i]) in hsus) {
				t += hsus[kk, s, j, SITES[i]] / hsn[kk, s, j]
				line = line sprintf(" %s (%s) |", site_us(kk, s, j, SITES[i]),
					hs(hsacq, kk, s, j, SITES[i], "%.3f", ""))
			} else
				line = line " - |"
		}
		h = hpn(kk, s, j, "sched-lock")
		d = hsdrop[kk, s, j] ? sprintf(" (%d stacks dropped)", hsdrop[kk, s, j]) : ""
		printf "%s %s | %s%s |\n", line, dash(hp(kk, s, j, "sched-lock")), (h > 0 ? sprintf("%.2f", t / h) : "-"), d
	}
}
function ib(arr, k, s, j,   bk) { bk = k SUBSEP s SUBSEP j; return ibc[bk] ? sprintf("%.1f", arr[bk] / ibc[bk]) : "" }
function mbs(k, s, j) { return n[k, s, j] ? sprintf("%.1f", sum[k, s, j] / n[k, s, j] * 4096 / 1e6) : "" }
function irqblk_md(   a, b, s, j) {
	printf "\nInterrupt threads blocked (from a switch out in state D, which under PREEMPT_RT includes a wait for a spinlock_t, to the wakeup), per 1000 I/Os, mean over rounds:\n\n"
	printf "| sched | jobs | base MB/s | patched MB/s | base blocked us | patched blocked us | base blocked periods | patched blocked periods | switch-outs base/patched | trace events lost |\n"
	printf "|---|---|---|---|---|---|---|---|---|---|\n"
	for (a = 1; a <= ns; a++) for (b = 1; b <= nj; b++) {
		s = S[a]; j = J[b]
		printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s/%s | %d |\n", s, j, dash(mbs("base", s, j)),
			dash(mbs("patched", s, j)), dash(ib(ibus, "base", s, j)), dash(ib(ibus, "patched", s, j)),
			dash(ib(ibn, "base", s, j)), dash(ib(ibn, "patched", s, j)),
			dash(ib(ibsw, "base", s, j)), dash(ib(ibsw, "patched", s, j)),
			iblost["base" SUBSEP s SUBSEP j] + iblost["patched" SUBSEP s SUBSEP j]
	}
}
function fl(arr, k, s, j, c) { return nl[k, s, j, c] ? sprintf("%.3f", arr[k, s, j, c] / nl[k, s, j, c]) : "" }
function hl(k, s, j, c) { return ((k, s, j, c) in hold) ? sprintf("%.2f", hold[k, s, j, c]) : "" }
function dash(x) { return x == "" ? "-" : x }
