#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""limit_report.py FILE... [--plots DIR] -- the tables and plots of `cargo xtask bench limit`

Reads RESULT lines (lib=verbs|c|ours|rust round= case= size= qd= ops_s= mb_s=
cpu_us_op= [p50_us= p99_us=]) and LAT lines (lib=verbs round= case= size=
p50_us= p99_us=), pooling the rounds of every file, and prints one table
per case: for each size and QD the median bandwidth of each contender, the
median of the per-round ratios ours/verbs and ours/C, the CPU time per
operation, and at QD 1 the latency (p50/p99) of each. With --plots DIR it
writes DIR/latency-<case>.png (p50 at QD 1 against size) and
DIR/bandwidth-<case>.png (MB/s at QD 16 against size), three lines each,
with gnuplot. The scale rows (scale_write, scale_srq: QD is the number of
connections) get a table of throughput and set-up time per connection
against the number of connections, and DIR/connections.png. The Rust
API's client (lib=rust) gets a table of its own beside the C face. Each
report ends with the rows where ours is behind C (and the Rust API behind
the C face) at p < 0.05, by the one-sided sign test. --compact prints one table for all
of write, read, send and flush instead (a row per case and size, QD 1 and
16 side by side), as BENCHMARKS.md shows it.
"""
import os
import statistics
import subprocess
import sys

# report.py, beside this file: the line parser and the table printer
from report import fields, fmt_num, sign_p, table

LIBS = ("verbs", "c", "ours")


def load(paths):
    runs, lat = {}, {}
    for path in paths:
        with open(path) as f:
            for line in f:
                if line.startswith("RESULT "):
                    d = fields(line)
                    key = (d["case"], int(d["size"]), int(d["qd"]))
                    runs.setdefault(key, {}).setdefault(d["lib"], {})[d["round"] + "@" + path] = d
                elif line.startswith("LAT "):
                    d = fields(line)
                    key = (d["case"], int(d["size"]), 1)
                    lat.setdefault(key, []).append(d)
    return runs, lat


def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def ratio(rounds, a, b, field):
    """The median over the rounds both contenders ran of a/b."""
    got = []
    for r in rounds.get(a, {}):
        x, y = rounds[a][r].get(field), rounds.get(b, {}).get(r, {}).get(field)
        if x is not None and y is not None and float(y) > 0:
            got.append(float(x) / float(y))
    return med(got)


def fmt(x):
    return "-" if x is None else fmt_num(x)


def median_of(rounds, lib, field):
    return med([float(d[field]) for d in rounds.get(lib, {}).values() if field in d])


def size_name(s):
    for unit, div in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if s >= div:
            return "%d %s" % (s // div, unit)
    return "%d B" % s


def scale(runs):
    """The rows of the libraries alone: registration and connection set-up."""
    keys = sorted(k for k in runs if k[0] in ("mr", "conn"))
    if not keys:
        return
    print("\nregistration (reg + dereg) and connection set-up (connect to delete)\n")
    head = ["case", "size", "C us/op", "ours us/op", "ours/C time"]
    rows = []
    for key in keys:
        r = runs[key]
        per_op = [median_of(r, lib, "ops_s") for lib in ("c", "ours")]
        us = [None if not x else 1e6 / x for x in per_op]
        inv = ratio(r, "c", "ours", "ops_s")
        rows.append([key[0], size_name(key[1]), fmt(us[0]), fmt(us[1]), fmt(inv)])
    table(head, rows)


SCALE_CASES = ("scale_write", "scale_srq")


def connections(runs):
    """The scale rows: throughput and set-up time against connections."""
    for case in [c for c in SCALE_CASES if any(k[0] == c for k in runs)]:
        size = min(k[1] for k in runs if k[0] == case)
        print("\n%s (%s per operation, one in flight per connection)\n" % (case, size_name(size)))
        head = ["connections", "C ops/s", "ours ops/s", "ours/C", "set-up us/conn C/ours",
                "p50 us C/ours", "p99 us C/ours"]
        rows = []
        for key in sorted(k for k in runs if k[0] == case):
            r = runs[key]
            pair = lambda field: "/".join(fmt(median_of(r, lib, field)) for lib in ("c", "ours"))
            rows.append([key[2], fmt(median_of(r, "c", "ops_s")), fmt(median_of(r, "ours", "ops_s")),
                         fmt(ratio(r, "ours", "c", "ops_s")), pair("setup_us"), pair("p50_us"),
                         pair("p99_us")])
        table(head, rows)


def plot_connections(runs, outdir):
    """DIR/connections.png: ops/s of both libraries against connections."""
    cases = [c for c in SCALE_CASES if any(k[0] == c for k in runs)]
    if not cases:
        return
    lines = []
    for case in cases:
        dat = os.path.join(outdir, "connections-%s.dat" % case)
        with open(dat, "w") as f:
            f.write("# connections c ours (ops/s)\n")
            for key in sorted(k for k in runs if k[0] == case):
                vals = [median_of(runs[key], lib, "ops_s") for lib in ("c", "ours")]
                f.write("%d %s\n" % (key[2], " ".join("NaN" if v is None else "%g" % v for v in vals)))
        lines += ['"%s" using 1:2 with linespoints title "%s, C librpma"' % (dat, case),
                  '"%s" using 1:3 with linespoints title "%s, ours"' % (dat, case)]
    gp = os.path.join(outdir, "connections.gp")
    with open(gp, "w") as f:
        f.write('set terminal pngcairo size 800,500 noenhanced\nset output "%s"\nset logscale x 2\n'
                'set title "throughput against connections (one operation in flight on each)"\n'
                'set xlabel "connections"\nset ylabel "operations per second"\nset yrange [0:*]\n'
                'set key bottom right\nset grid\nplot %s\n'
                % (os.path.join(outdir, "connections.png"), ", ".join(lines)))
    subprocess.run(["gnuplot", gp], check=True)
    print("plot: %s/connections.png" % outdir)


def report(runs, lat):
    cases = [c for c in ("write", "read", "send", "flush") if any(k[0] == c for k in runs)]
    for case in cases:
        print("\n%s\n" % case)
        head = ["size", "QD", "verbs MB/s", "C MB/s", "ours MB/s", "ours/verbs", "ours/C",
                "CPU us/op verbs/C/ours", "p50 us verbs/C/ours", "p99 us verbs/C/ours"]
        rows = []
        for key in sorted(k for k in runs if k[0] == case):
            _, size, qd = key
            r = runs[key]
            cpu = "/".join(fmt(median_of(r, lib, "cpu_us_op")) for lib in LIBS)
            p50 = p99 = "-"
            if qd == 1:
                v50 = med([float(d["p50_us"]) for d in lat.get(key, [])])
                v99 = med([float(d["p99_us"]) for d in lat.get(key, [])])
                p50 = "/".join(fmt(x) for x in (v50, median_of(r, "c", "p50_us"), median_of(r, "ours", "p50_us")))
                p99 = "/".join(fmt(x) for x in (v99, median_of(r, "c", "p99_us"), median_of(r, "ours", "p99_us")))
            rows.append([size_name(size), qd] +
                        [fmt(median_of(r, lib, "mb_s")) for lib in LIBS] +
                        [fmt(ratio(r, "ours", "verbs", "mb_s")), fmt(ratio(r, "ours", "c", "mb_s")),
                         cpu, p50, p99])
        table(head, rows)


def ahead(rounds, a, b, field):
    """How many of the rounds both ran a was ahead of b in, of how many."""
    both = [r for r in rounds.get(a, {}) if r in rounds.get(b, {})]
    won = sum(float(rounds[a][r][field]) > float(rounds[b][r][field]) for r in both)
    return won, len(both)


def behind(runs, a, b):
    """The rows where a was slower than b (ops/s) in so many rounds that
    equal speed would explain it only with p < 0.05 (one-sided sign test)."""
    flagged = []
    for key in sorted(runs):
        won, n = ahead(runs[key], a, b, "ops_s")
        if n and sign_p(won, n) < 0.05:
            flagged.append("%s %s QD %d (%d of %d ahead, p %.3f)"
                           % (key[0], size_name(key[1]), key[2], won, n, sign_p(won, n)))
    names = {"c": "C", "ours": "ours (C face)", "rust": "the Rust API", "verbs": "raw verbs"}
    print("\nrows where %s is behind %s at p < 0.05 (one-sided sign test over the "
          "rounds; fewer than 5 rounds can never show it): %s"
          % (names[a], names[b], ", ".join(flagged) or "none"))


def compact(runs, lat):
    """One table: per case and size, QD 1 and QD 16 side by side."""
    head = ["case", "size", "ours MB/s QD 1 / 16", "ours/verbs QD 1 / 16", "ours/C QD 1 / 16",
            "rounds ours ahead of C", "p50 us QD 1 verbs / C / ours"]
    rows = []
    for case in [c for c in ("write", "read", "send", "flush") if any(k[0] == c for k in runs)]:
        for size in sorted({k[1] for k in runs if k[0] == case}):
            per_qd = [runs.get((case, size, qd), {}) for qd in (1, 16)]
            pair = lambda f: " / ".join(f(r) for r in per_qd)
            won = [ahead(r, "ours", "c", "ops_s") for r in per_qd]
            r1 = per_qd[0]
            p50 = [med([float(d["p50_us"]) for d in lat.get((case, size, 1), [])]),
                   median_of(r1, "c", "p50_us"), median_of(r1, "ours", "p50_us")]
            rows.append([case, size_name(size), pair(lambda r: fmt(median_of(r, "ours", "mb_s"))),
                         pair(lambda r: fmt(ratio(r, "ours", "verbs", "mb_s"))),
                         pair(lambda r: fmt(ratio(r, "ours", "c", "mb_s"))),
                         " / ".join("%d of %d" % w for w in won),
                         " / ".join(fmt(x) for x in p50)])
    table(head, rows)


def plots(runs, lat, outdir):
    os.makedirs(outdir, exist_ok=True)
    script = []
    for case in [c for c in ("write", "read", "send", "flush") if any(k[0] == c for k in runs)]:
        for what, qd, ylabel in (("latency", 1, "p50 latency at QD 1 (us)"),
                                 ("bandwidth", 16, "bandwidth at QD 16 (MB/s)")):
            keys = sorted(k for k in runs if k[0] == case and k[2] == qd)
            if not keys:
                continue
            dat = os.path.join(outdir, "%s-%s.dat" % (what, case))
            with open(dat, "w") as f:
                f.write("# size verbs c ours\n")
                for key in keys:
                    r = runs[key]
                    if what == "latency":
                        vals = [med([float(d["p50_us"]) for d in lat.get(key, [])]),
                                median_of(r, "c", "p50_us"), median_of(r, "ours", "p50_us")]
                    else:
                        vals = [median_of(r, lib, "mb_s") for lib in LIBS]
                    f.write("%d %s\n" % (key[1], " ".join("NaN" if v is None else "%g" % v for v in vals)))
            png = os.path.join(outdir, "%s-%s.png" % (what, case))
            script.append(
                'set output "%s"\nset title "%s: %s against size"\nset ylabel "%s"\n'
                'plot "%s" using 1:2 with linespoints title "raw verbs", '
                '"" using 1:3 with linespoints title "C librpma", '
                '"" using 1:4 with linespoints title "ours"\n' % (png, case, what, ylabel, dat))
    if not script:
        return
    gp = os.path.join(outdir, "plots.gp")
    with open(gp, "w") as f:
        f.write('set terminal pngcairo size 800,500 noenhanced\nset logscale x 2\nset logscale y\n'
                'set xlabel "operation size"\nset key top left\nset grid\n'
                'set xtics ("64 B" 64, "256 B" 256, "1 KiB" 1024, "4 KiB" 4096, "16 KiB" 16384, '
                '"64 KiB" 65536, "256 KiB" 262144, "1 MiB" 1048576)\n')
        f.write("".join(script))
    subprocess.run(["gnuplot", gp], check=True)
    print("\nplots: %s/{latency,bandwidth}-<case>.png" % outdir)


def rust_api(runs):
    """The Rust API's client (lib=rust) beside the C face of the same library
    (ours), C and raw verbs: a table for every row it ran."""
    keys = sorted(k for k in runs if "rust" in runs[k])
    if not keys:
        return
    print("\nthe Rust API (rust) beside the C face (ours)\n")
    head = ["case", "size", "QD", "rust MB/s", "ours MB/s", "rust/ours", "rust/C", "rust/verbs",
            "rounds rust ahead of ours", "p50 us ours/rust"]
    rows = []
    for key in keys:
        case, size, qd = key
        r = runs[key]
        won, n = ahead(r, "rust", "ours", "ops_s")
        rows.append([case, size_name(size), qd, fmt(median_of(r, "rust", "mb_s")),
                     fmt(median_of(r, "ours", "mb_s")), fmt(ratio(r, "rust", "ours", "ops_s")),
                     fmt(ratio(r, "rust", "c", "ops_s")), fmt(ratio(r, "rust", "verbs", "mb_s")),
                     "%d of %d" % (won, n),
                     "/".join(fmt(median_of(r, lib, "p50_us")) for lib in ("ours", "rust"))])
    table(head, rows)


def main(argv):
    args, outdir, short = [], None, False
    it = iter(argv[1:])
    for a in it:
        if a == "--plots":
            outdir = next(it, None)
        elif a == "--compact":
            short = True
        else:
            args.append(a)
    if not args:
        sys.stderr.write(__doc__)
        return 2
    runs, lat = load(args)
    if short:
        compact(runs, lat)
    else:
        report(runs, lat)
    behind(runs, "ours", "c")
    if any("rust" in r for r in runs.values()):
        behind(runs, "rust", "ours")
    rust_api(runs)
    scale(runs)
    connections(runs)
    if outdir:
        plots(runs, lat, outdir)
        plot_connections(runs, outdir)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
