#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""callgrind_self.py -- instructions spent inside librpma, from callgrind output.

  callgrind_self.py dump FILE
      per object: self Ir; per librpma function: self Ir; per rpma_* function
      called from outside librpma: calls and inclusive Ir
  callgrind_self.py diff FILE1 N1 FILE2 N2 [KEY=VALUE...]
      one "INSTR KEY=VALUE... self_per_op=.. poll_per_op=.. incl_per_op=..
      api=NAME:CALLS:INCL,..." line with (cost at N2 - cost at N1) / (N2 - N1)
      (poll_per_op: the part of self_per_op in librpma's rpma_cq_get_wc path;
      api: per op, the calls and inclusive Ir of each rpma_* function the
      program called), then "INSTRFN" lines for the librpma functions costing
      at least 1 instruction per op (15 at most, or RPMA_BENCH_MAX_FN)
  callgrind_self.py check FILE
      compares this parser's per-object self cost with callgrind_annotate's
      (exit status 1 when they differ)

"self" = Ir executed in object librpma.so* itself (not libibverbs, the rxe
provider, libc or the kernel). "incl" = inclusive Ir of the rpma_* calls the
program makes (librpma + what it calls in user space).
"""
import collections
import os
import re
import subprocess
import sys


# librpma's own functions on the rpma_cq_get_wc path: C has only
# rpma_cq_get_wc itself; ours may add rpma::cq::Cq::get_wc where it is not
# inlined
POLL_PATH = re.compile(r"get_wc|poll_cq")
# INSTRFN lines per diff (RPMA_BENCH_MAX_FN: more, to profile one case)
MAX_FN = int(os.environ.get("RPMA_BENCH_MAX_FN", "15"))


def is_rpma(obj):
    return os.path.basename(obj or "").startswith("librpma.so")


def parse(path):
    """returns (self_by_obj, self_by_fn_in_librpma, api_calls, api_incl, totals)"""
    names = {"ob": {}, "fn": {}, "fl": {}}
    kind_of = {"ob": "ob", "cob": "ob", "fn": "fn", "cfn": "fn", "fl": "fl",
               "fi": "fl", "fe": "fl", "cfi": "fl", "cfl": "fl"}
    self_obj = collections.Counter()
    self_fn = collections.Counter()
    self_all = collections.Counter()   # (obj, fn) -> Ir, every object
    api_calls = collections.Counter()
    api_incl = collections.Counter()
    npos = 1
    ev_index = 0
    cur_ob = cur_fn = None
    call_ob = call_fn = None
    pending_call = None   # (count) when the next cost line is a call's cost
    totals = 0

    def name(kind, val):
        m = re.match(r"\((\d+)\)(?: (.*))?$", val)
        if not m:
            return val
        ident, text = m.group(1), m.group(2)
        table = names[kind_of[kind]]
        if text is not None:
            table[ident] = text
            return text
        return table[ident]

    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            c = line[0]
            if c.isdigit() or c in "+-*":
                parts = line.split()
                costs = parts[npos:]
                ir = int(costs[ev_index]) if len(costs) > ev_index else 0
                if pending_call is not None:
                    count = pending_call
                    pending_call = None
                    if (call_fn or "").startswith("rpma_") and not is_rpma(cur_ob):
                        api_calls[call_fn] += count
                        api_incl[call_fn] += ir
                    call_ob = None
                    continue
                self_obj[cur_ob] += ir
                self_all[(cur_ob, cur_fn)] += ir
                if is_rpma(cur_ob):
                    self_fn[cur_fn] += ir
                continue
            if line.startswith("positions:"):
                npos = len(line.split()[1:])
                continue
            if line.startswith("events:"):
                evs = line.split()[1:]
                ev_index = evs.index("Ir")
                continue
            if line.startswith("totals:") or line.startswith("summary:"):
                totals = int(line.split()[1 + ev_index])
                continue
            key, eq, val = line.partition("=")
            if not eq:
                continue  # version:, cmd:, ...
            if key == "calls":
                pending_call = int(val.split()[0])
                if call_ob is None:
                    call_ob = cur_ob
                continue
            if key not in kind_of:
                continue  # jump=, jcnd=, ...
            n = name(key, val)
            if key == "ob":
                cur_ob = n
            elif key == "fn":
                cur_fn = n
            elif key == "cob":
                call_ob = n
            elif key == "cfn":
                call_fn = n
    parse.self_all = self_all
    return self_obj, self_fn, api_calls, api_incl, totals


def rpma_self(self_obj):
    return sum(v for k, v in self_obj.items() if is_rpma(k))


def cmd_dump(path):
    so, sf, ac, ai, tot = parse(path)
    print("TOTAL %d" % tot)
    for k, v in sorted(so.items(), key=lambda kv: -kv[1]):
        print("OBJ %d %s" % (v, k))
    for k, v in sorted(sf.items(), key=lambda kv: -kv[1]):
        print("FN %d %s" % (v, k))
    for k in sorted(ac):
        print("API %s calls=%d incl=%d" % (k, ac[k], ai[k]))


def cmd_diff(f1, n1, f2, n2, extra):
    n1, n2 = int(n1), int(n2)
    a, b = parse(f1), parse(f2)
    d = float(n2 - n1)
    self_op = (rpma_self(b[0]) - rpma_self(a[0])) / d
    calls = {k: (b[2][k] - a[2][k]) / d for k in set(a[2]) | set(b[2])}
    incl = {k: (b[3][k] - a[3][k]) / d for k in set(a[3]) | set(b[3])}
    incl_op = sum(incl.values())
    api = ",".join("%s:%.2f:%.0f" % (k, calls[k], incl[k])
                   for k in sorted(calls) if abs(calls[k]) >= 0.005)
    kv = " ".join(extra)
    fns = {k: (b[1][k] - a[1][k]) / d for k in set(a[1]) | set(b[1])}
    poll = sum(v for k, v in fns.items() if POLL_PATH.search(k or ""))
    print("INSTR %s self_per_op=%.1f poll_per_op=%.1f incl_per_op=%.1f api=%s"
          % (kv, self_op, poll, incl_op, api or "-"))
    for k, v in sorted(fns.items(), key=lambda kv: -abs(kv[1]))[:MAX_FN]:
        if abs(v) < 1.0:
            break
        print("INSTRFN %s per_op=%.1f fn=%s" % (kv, v, k))


def cmd_check(path):
    """per-function self cost against callgrind_annotate --inclusive=no"""
    so, _, _, _, tot = parse(path)
    mine_fn = collections.Counter()
    for (obj, fn), v in parse.self_all.items():
        mine_fn[fn] += v
    out = subprocess.run(["callgrind_annotate", "--inclusive=no", "--threshold=100",
                          "--auto=no", path], capture_output=True, text=True, check=True).stdout
    theirs = collections.Counter()
    # lines: "  1,234 (12.34%)  file:function [object]" ([object] is left out
    # for code inlined from another file, hence the comparison by function)
    body = False
    for line in out.splitlines():
        if "file:function" in line:
            body = True
            continue
        if body and not line.strip():
            break
        m = re.match(r"\s*([\d,]+)\s+\([^)]*\)\s+[^:]*:(.*?)(?: \[.*\])?\s*$", line)
        if body and m:
            theirs[m.group(2)] += int(m.group(1).replace(",", ""))
    bad = [fn for fn in set(mine_fn) | set(theirs) if mine_fn[fn] != theirs[fn]]
    for fn in sorted(bad, key=str)[:20]:
        print("CHECK DIFF fn=%s mine=%d callgrind_annotate=%d" % (fn, mine_fn[fn], theirs[fn]))
    for obj, v in sorted(so.items(), key=lambda kv: -kv[1]):
        print("CHECK object self=%d %s" % (v, obj))
    print("CHECK %d functions compared, %d differ; total mine=%d file=%d"
          % (len(set(mine_fn) | set(theirs)), len(bad), sum(so.values()), tot))
    ok = not bad and sum(so.values()) == tot
    print("CHECK %s" % ("ok" if ok else "FAILED"))
    return 0 if ok else 1


def main(argv):
    if len(argv) >= 3 and argv[1] == "dump":
        cmd_dump(argv[2])
        return 0
    if len(argv) >= 6 and argv[1] == "diff":
        cmd_diff(argv[2], argv[3], argv[4], argv[5], argv[6:])
        return 0
    if len(argv) == 3 and argv[1] == "check":
        return cmd_check(argv[2])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
