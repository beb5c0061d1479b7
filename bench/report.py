#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""report.py -- tables from the raw output of `cargo xtask bench run|instructions|rotate`

  report.py perf FILE... RESULT lines (lib=ours|c round=N case=.. size=.. qd=..
                         ops_s=.. p50_us=.. p99_us=..) -> one row per case/size/qd:
                         medians over the rounds; ours/C = median of the
                         per-round ratios (range: min..max of them); the
                         rounds of several files are pooled; "ours ahead":
                         rounds in which ours was at least as fast, and the
                         one-sided sign-test p of seeing that few if the two
                         libraries were equally fast
  report.py instr FILE   INSTR lines of bench instructions -> instructions per
                         operation in librpma.so.0 itself, C against ours
  report.py rotate BASE FILE...
                         RESULT lines of bench rotate (lib=NAME
                         round=N case= size= qd= ops_s=) -> per row and
                         contender: the median ops/s, the median of the
                         per-round ratios to contender BASE and the ratio
                         of their means, the rounds it was ahead of BASE,
                         and the one-sided sign-test p of being behind
                         BASE in that many rounds if the two were equally
                         fast
  report.py phases FILE... PHASES lines of the conn case (lib= round=
                         req_new_us= established_us= closed_us= delete_us=)
                         -> per step: the median time of each library and the
                         median of the per-round ratios ours/C, with the
                         rounds in which ours took no longer
"""
import math
import re
import statistics
import sys


def fields(line):
    out = {}
    for tok in line.split()[1:]:
        k, eq, v = tok.partition("=")
        if eq:
            out[k] = v
    return out


def fmt_num(x):
    if x >= 100:
        return "%.0f" % x
    if x >= 10:
        return "%.1f" % x
    return "%.2f" % x


def table(head, rows):
    widths = [max(len(str(r[i])) for r in [head] + rows) for i in range(len(head))]
    line = lambda r: "| " + " | ".join(str(c).rjust(w) for c, w in zip(r, widths)) + " |"
    print(line(head))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows:
        print(line(r))


def sign_p(ahead, n):
    """P(at most `ahead` of `n` fair coin flips come up heads)."""
    return sum(math.comb(n, k) for k in range(ahead + 1)) / 2 ** n


def rounds_of(paths):
    """The RESULT lines of the files, as {(case, size, qd): {(file, round):
    {lib: fields}}} with the rows in the order first seen, and the FAIL lines."""
    runs, order, fails = {}, [], []
    for i, path in enumerate(paths):
        with open(path) as f:
            for line in f:
                if line.startswith("FAIL "):
                    fails.append(line.strip())
                if not line.startswith("RESULT "):
                    continue
                d = fields(line)
                key = (d["case"], int(d["size"]), int(d["qd"]))
                if key not in runs:
                    runs[key] = {}
                    order.append(key)
                runs[key].setdefault((i, int(d["round"])), {})[d["lib"]] = d
    return runs, order, fails


def perf(paths):
    runs, order, fails = rounds_of(paths)
    rows = []
    ratios_all = []
    behind = []
    for key in order:
        per_round = runs[key]
        def med(lib, field):
            v = [float(r[lib][field]) for r in per_round.values() if lib in r]
            return statistics.median(v) if v else float("nan")
        ratios = [float(r["ours"]["ops_s"]) / float(r["c"]["ops_s"])
                  for r in per_round.values()
                  if "ours" in r and "c" in r and float(r["c"]["ops_s"]) > 0]
        ratio = statistics.median(ratios) if ratios else float("nan")
        ahead = sum(1 for x in ratios if x >= 1.0)
        p = sign_p(ahead, len(ratios)) if ratios else float("nan")
        if ratios:
            ratios_all.append(ratio)
        case, size, qd = key
        if p < 0.05:
            behind.append("%s/%s/%s (%d/%d, p %.3f)" % (case, size, qd, ahead, len(ratios), p))
        rows.append([case, size, qd if case not in ("conn", "mr") else "-",
                     fmt_num(med("c", "ops_s")), fmt_num(med("ours", "ops_s")),
                     "%.2f" % ratio,
                     "%.2f..%.2f" % (min(ratios), max(ratios)) if ratios else "-",
                     "%d/%d, p %.2f" % (ahead, len(ratios), p),
                     "%s / %s" % (fmt_num(med("c", "p50_us")), fmt_num(med("c", "p99_us"))),
                     "%s / %s" % (fmt_num(med("ours", "p50_us")), fmt_num(med("ours", "p99_us")))])
    table(["case", "size", "qd", "C ops/s", "ours ops/s", "ours/C", "ours/C range",
           "ours ahead", "C p50/p99 us", "ours p50/p99 us"], rows)
    if ratios_all:
        gm = statistics.geometric_mean(ratios_all)
        print("\ngeometric mean of ours/C over %d rows: %.3f; rows with ours/C < 0.90: %s"
              % (len(ratios_all), gm,
                 ", ".join("%s/%s/%s (%s)" % (r[0], r[1], r[2], r[5]) for r in rows
                           if r[5] != "nan" and float(r[5]) < 0.90) or "none"))
        print("rows where ours was behind in so many rounds that equal speed would "
              "explain it only with p < 0.05 (one-sided sign test; chance alone "
              "gives about %d of %d rows): %s"
              % (round(0.05 * len(ratios_all)), len(ratios_all), ", ".join(behind) or "none"))
    if fails:
        print("\n%d failed runs:" % len(fails))
        for x in fails:
            print("  " + x)


def rotate(base, paths):
    """Every contender of bench rotate's rows against the contender `base`."""
    runs, order, _ = rounds_of(paths)
    rows = []
    for key in order:
        rounds = [{lib: float(d["ops_s"]) for lib, d in r.items()} for r in runs[key].values()]
        rounds = [r for r in rounds if base in r and r[base] > 0]
        names = sorted({n for r in rounds for n in r}, key=lambda n: (n != base, n))
        for name in names:
            both = [r for r in rounds if name in r]
            ratios = [r[name] / r[base] for r in both]
            mean = statistics.mean(r[name] for r in both) / statistics.mean(r[base] for r in both)
            ahead = sum(1 for x in ratios if x >= 1.0)
            rows.append(list(key) + [name, fmt_num(statistics.median(r[name] for r in both)),
                                     "%.2f" % statistics.median(ratios), "%.2f" % mean,
                                     "%d of %d" % (ahead, len(ratios)),
                                     "-" if name == base else "%.3f" % sign_p(ahead, len(ratios))])
    table(["case", "size", "qd", "contender", "ops/s", "/%s median" % base, "/%s of means" % base,
           "rounds ahead", "p behind"], rows)


POLL_PATH = re.compile(r"get_wc|poll_cq")


def api_calls(d, name):
    return api_cost(d, name)[0]


def api_cost(d, name):
    """(calls per op, inclusive Ir per op) of the rpma_* function name"""
    for item in d.get("api", "-").split(","):
        parts = item.split(":")
        if len(parts) == 3 and parts[0] == name:
            return float(parts[1]), float(parts[2])
    return 0.0, 0.0


def instr(path):
    data = {}
    order = []
    fns = {}
    with open(path) as f:
        for line in f:
            if line.startswith("INSTR "):
                d = fields(line)
                key = (d["case"], int(d["size"]))
                if key not in data:
                    data[key] = {}
                    order.append(key)
                data[key][d["lib"]] = d
            elif line.startswith("INSTRFN "):
                head, _, fn = line.rstrip("\n").partition(" fn=")
                d = fields(head)
                fns.setdefault((d["case"], int(d["size"]), d["lib"]), []).append(
                    (float(d["per_op"]), fn))

    def poll_cost(key, lib, d):
        if "poll_per_op" in d:
            return float(d["poll_per_op"])
        # older output: from the INSTRFN lines
        return sum(n for n, fn in fns.get((key[0], key[1], lib), []) if POLL_PATH.search(fn))

    rows = []
    per_call = {"c": [], "ours": []}
    for key in order:
        v = data[key]
        if "c" not in v or "ours" not in v:
            continue
        c, o = v["c"], v["ours"]
        cs, os_ = float(c["self_per_op"]), float(o["self_per_op"])
        ci, oi = float(c["incl_per_op"]), float(o["incl_per_op"])
        cp, op = poll_cost(key, "c", c), poll_cost(key, "ours", o)
        cn, on = api_calls(c, "rpma_cq_get_wc"), api_calls(o, "rpma_cq_get_wc")
        for lib, p, n in (("c", cp, cn), ("ours", op, on)):
            if n > 0:
                per_call[lib].append((key, p / n, n))
        cw, ow = cs - cp, os_ - op
        rows.append([key[0], key[1], fmt_num(cs), fmt_num(os_),
                     "%.2f" % (os_ / cs) if cs > 0 else "-",
                     "%.1f / %.1f" % (cn, on),
                     fmt_num(cw), fmt_num(ow), "%.2f" % (ow / cw) if cw > 0 else "-",
                     fmt_num(ci), fmt_num(oi), "%.2f" % (oi / ci) if ci > 0 else "-"])
    table(["case", "size", "C instr/op", "ours instr/op", "ours/C",
           "get_wc calls/op C / ours", "C w/o get_wc", "ours w/o get_wc", "ours/C",
           "C incl", "ours incl", "ours/C"], rows)
    print("\ninstr/op: Ir executed in librpma.so.0 itself per operation, "
          "(N2 run - N1 run) / (N2 - N1); includes every busy-poll call, so it "
          "varies from run to run where polls/op > 1")
    print("get_wc calls/op: rpma_cq_get_wc calls per operation (busy polling: "
          "the empty ones depend on timing)")
    print("w/o get_wc: instr/op minus librpma's own rpma_cq_get_wc path "
          "(functions matching get_wc|poll_cq)")
    print("incl: inclusive Ir of the rpma_* calls (librpma + libibverbs/provider + libc; "
          "no kernel)")
    for lib in ("c", "ours"):
        if per_call[lib]:
            print("instr per rpma_cq_get_wc call, %s: %s" % (lib, ", ".join(
                "%s/%s %.1f" % (k[0], k[1], x) for k, x, n in per_call[lib])))
    wait_rows = []
    for key in order:
        v = data[key]
        if not key[0].endswith("_wait") or "c" not in v or "ours" not in v:
            continue
        (cn, ci), (on, oi) = api_cost(v["c"], "rpma_cq_wait"), api_cost(v["ours"], "rpma_cq_wait")
        if cn > 0 and on > 0:
            cw, ow = ci / cn, oi / on
            wait_rows.append([key[0], key[1], "%.2f / %.2f" % (cn, on), fmt_num(cw), fmt_num(ow),
                              "%.2f" % (ow / cw) if cw > 0 else "-"])
    if wait_rows:
        print()
        table(["case", "size", "waits/op C / ours", "C Ir per rpma_cq_wait",
               "ours Ir per rpma_cq_wait", "ours/C"], wait_rows)
        print("Ir per rpma_cq_wait: inclusive, in user space: librpma, libibverbs "
              "(ibv_get_cq_event, ibv_ack_cq_events, ibv_req_notify_cq), the provider, libc")
    for lib, name in (("ours", "ours"), ("c", "C")):
        print("\nlibrpma functions costing >= 1 instr/op (%s):" % name)
        for key in order:
            lst = fns.get((key[0], key[1], lib), [])
            if lst:
                print("  %s/%s: %s" % (key[0], key[1], ", ".join(
                    "%s %.0f" % (fn, n) for n, fn in lst[:8])))


PHASE_STEPS = ("req_new_us", "established_us", "closed_us", "delete_us")


def phases(paths):
    # (file, round) -> lib -> fields: a round pairs the two libraries' runs
    rounds = {}
    for i, path in enumerate(paths):
        with open(path) as f:
            for line in f:
                if line.startswith("PHASES "):
                    p = fields(line)
                    rounds.setdefault((i, p["round"]), {})[p["lib"]] = p
    pairs = [r for r in rounds.values() if "c" in r and "ours" in r]
    if not pairs:
        sys.stderr.write("report.py phases: no round with PHASES lines of both libraries\n")
        return 1
    rows = []
    for step in PHASE_STEPS:
        c = [float(r["c"][step]) for r in pairs]
        ours = [float(r["ours"][step]) for r in pairs]
        ratios = [o / x for o, x in zip(ours, c) if x > 0]
        quicker = sum(o <= x for o, x in zip(ours, c))
        rows.append([step[:-3], fmt_num(statistics.median(c)), fmt_num(statistics.median(ours)),
                     "%.2f" % statistics.median(ratios), "%d/%d" % (quicker, len(pairs))])
    table(["step", "C us", "ours us", "ours/C", "ours no slower"], rows)
    return 0


def main(argv):
    if len(argv) >= 3 and argv[1] == "perf":
        perf(argv[2:])
    elif len(argv) >= 4 and argv[1] == "rotate":
        rotate(argv[2], argv[3:])
    elif len(argv) >= 3 and argv[1] == "phases":
        return phases(argv[2:])
    elif len(argv) == 3 and argv[1] == "instr":
        instr(argv[2])
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
