#!/usr/bin/python3
"""Small archives with exact timestamps, written by PCP's own LOGIMPORT
(pcp.pmi), for judging replay's interpolation against pmval and pmrep.

    interp_archives.py DIR [VERSION]

Writes into DIR (T0 = 2023-11-14 22:00:00 UTC, archive zone UTC, host
"testhost"; t below is seconds after T0; LOGIMPORT's label time is the first
record's):
  basic     records at t = 0, 10, 20, 30 of every type and semantics
  round     integer counters whose interpolation rounds (negative too)
  late      cnt/inst/disc/str only at 2.5 .. 17.5 while `other` runs to 30
  mark      1 s samples 0..5, a <mark>, 10..15
  gap       the same without the <mark>
  indom     instances a (always), b (until 15), c (from 10), every 5 s
  subsec    irregular sub-second timestamps
  frac      samples at 0.4, 1.4, ... (a label time off the whole second)
  multi/m1, multi/m2   two archives, 0..10 and 20..30 every 2 s
  long      21 samples 1 s apart
  stale     disc/inst/str at 0, 10, 20 while `other` runs to 40
  sparse    a counter over 500 instances every 0.1 s for 150 s, a discrete
            value logged once (at 0) and an instant one every 60 s: rows
            wait on the sparse ones longer than replay keeps samples for
            (its look-ahead, interpolator.h)
Each metric's type and semantics are in its table below.
"""

import os
import sys

from pcp import pmi
import cpmapi as c

T0 = 1699999200  # 2023-11-14 22:00:00 UTC
T32, TU32, T64, TU64 = c.PM_TYPE_32, c.PM_TYPE_U32, c.PM_TYPE_64, c.PM_TYPE_U64
TFLOAT, TDOUBLE, TSTRING = c.PM_TYPE_FLOAT, c.PM_TYPE_DOUBLE, c.PM_TYPE_STRING
COUNTER, INSTANT, DISCRETE = c.PM_SEM_COUNTER, c.PM_SEM_INSTANT, c.PM_SEM_DISCRETE


def _units(log, u):
    if u == "none":
        return log.pmiUnits(0, 0, 0, 0, 0, 0)
    if u == "ms":
        return log.pmiUnits(0, 1, 0, 0, c.PM_TIME_MSEC, 0)
    return log.pmiUnits(0, 0, 1, 0, 0, c.PM_COUNT_ONE)


def build(path, metrics, records, version):
    """metrics: (name, type, sem, instances or None[, units]); records:
    (t, {metric: value | {instance: value}}) or 'MARK'."""
    for ext in (".0", ".meta", ".index"):
        if os.path.exists(path + ext):
            os.unlink(path + ext)
    log = pmi.pmiLogImport(path)
    log.pmiSetVersion(version)
    log.pmiSetHostname("testhost")
    log.pmiSetTimezone("UTC")
    for n, m in enumerate(metrics):
        name, typ, sem, insts = m[:4]
        indom = log.pmiInDom(245, n + 1) if insts is not None else c.PM_INDOM_NULL
        log.pmiAddMetric(name, log.pmiID(245, 0, n + 1), typ, indom, sem,
                         _units(log, m[4] if len(m) > 4 else "count"))
        for iid, iname in insts or ():
            log.pmiAddInstance(indom, iname, iid)
    for rec in records:
        if rec == "MARK":
            log.pmiPutMark()
            continue
        t, vals = rec
        for name, v in vals.items():
            for iname, iv in (v.items() if isinstance(v, dict) else [("", v)]):
                log.pmiPutValue(name, iname, str(iv))
        ns = int(round(t * 1e9))
        log.pmiHighResWrite(T0 + ns // 1000000000, ns % 1000000000)
    log.pmiEnd()
    del log


def main():
    d, version = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 3
    os.makedirs(os.path.join(d, "multi"), exist_ok=True)
    a = lambda name: os.path.join(d, name)  # noqa: E731
    build(a("basic"), [
        ("cnt", TU32, COUNTER, None), ("c32s", T32, COUNTER, None), ("c64", TU64, COUNTER, None),
        ("c64s", T64, COUNTER, None), ("cflt", TFLOAT, COUNTER, None), ("cdbl", TDOUBLE, COUNTER, None),
        ("inst", T32, INSTANT, None), ("dins", TDOUBLE, INSTANT, None), ("disc", T32, DISCRETE, None),
        ("ddisc", TDOUBLE, DISCRETE, None), ("str", TSTRING, INSTANT, None, "none"),
        ("strd", TSTRING, DISCRETE, None, "none"), ("cms", TU64, COUNTER, None, "ms"),
    ], [(t, dict(cnt=v, c32s=v, c64=v, c64s=v, cflt=v, cdbl=v, inst=5 + t, dins=1.5 + t / 10,
                 disc=1 + t // 10, ddisc=1.25 + t // 10, str="s%d" % t, strd="d%d" % t, cms=ms))
        for t, v, ms in ((0, 0, 0), (10, 100, 5000), (20, 300, 15000), (30, 600, 15000))], version)
    build(a("round"), [
        ("cnt", TU32, COUNTER, None), ("c32s", T32, COUNTER, None), ("c64", TU64, COUNTER, None),
        ("c64s", T64, COUNTER, None), ("cdbl", TDOUBLE, COUNTER, None), ("inst", T32, INSTANT, None),
    ], [(0, dict(cnt=0, c32s=-10, c64=0, c64s=-10, cdbl=0, inst=0)),
        (3, dict(cnt=10, c32s=0, c64=10, c64s=0, cdbl=10, inst=10)),
        (6, dict(cnt=11, c32s=1, c64=11, c64s=1, cdbl=11, inst=11))], version)
    recs = []
    for t in range(0, 31, 5):
        recs.append((t, dict(other=t)))
        if t + 2.5 <= 17.5:
            k = t // 5
            recs.append((t + 2.5, dict(cnt=100 * k, inst=10 + k, disc=20 + k, strd="s%d" % k)))
    build(a("late"), [("other", T32, INSTANT, None), ("cnt", TU32, COUNTER, None),
                      ("inst", T32, INSTANT, None), ("disc", T32, DISCRETE, None),
                      ("strd", TSTRING, DISCRETE, None, "none")], recs, version)
    recs = [(t, dict(cnt=10 * t, inst=t, disc=t, str="v%d" % t)) for t in range(0, 6)] + ["MARK"]
    recs += [(t, dict(cnt=10 * t, inst=t, disc=t, str="v%d" % t)) for t in range(10, 16)]
    mark_metrics = [("cnt", TU32, COUNTER, None), ("inst", T32, INSTANT, None),
                    ("disc", T32, DISCRETE, None), ("str", TSTRING, INSTANT, None, "none")]
    build(a("mark"), mark_metrics, recs, version)
    build(a("gap"), mark_metrics, [r for r in recs if r != "MARK"], version)
    recs = []
    for t in range(0, 31, 5):
        cv, iv, dv = {"a": 10 * t}, {"a": t}, {"a": t}
        if t <= 15:
            cv["b"], iv["b"], dv["b"] = 20 * t, 100 + t, 100 + t
        if t >= 10:
            cv["c"], iv["c"], dv["c"] = 30 * t, 200 + t, 200 + t
        recs.append((t, dict(icnt=cv, iinst=iv, idisc=dv)))
    insts = [(0, "a"), (1, "b"), (2, "c")]
    build(a("indom"), [("icnt", TU32, COUNTER, insts), ("iinst", T32, INSTANT, insts),
                       ("idisc", T32, DISCRETE, insts)], recs, version)
    build(a("subsec"), [("cnt", TU32, COUNTER, None), ("inst", T32, INSTANT, None),
                        ("disc", T32, DISCRETE, None), ("dins", TDOUBLE, INSTANT, None)],
          [(t, dict(cnt=int(10 * t), inst=int(10 * t), disc=int(10 * t), dins=10 * t))
           for t in (0.0, 0.3, 1.45, 2.0, 2.9, 4.2)], version)
    three = [("cnt", TU32, COUNTER, None), ("inst", T32, INSTANT, None), ("disc", T32, DISCRETE, None)]
    build(a("frac"), three, [(t + 0.4, dict(cnt=10 * t, inst=t, disc=t)) for t in range(0, 6)], version)
    build(a("multi/m1"), three, [(t, dict(cnt=10 * t, inst=t, disc=t)) for t in range(0, 11, 2)], version)
    build(a("multi/m2"), three, [(t, dict(cnt=10 * t, inst=t, disc=t)) for t in range(20, 31, 2)], version)
    build(a("stale"), [("other", T32, INSTANT, None), ("disc", T32, DISCRETE, None),
                       ("inst", T32, INSTANT, None), ("str", TSTRING, INSTANT, None, "none")],
          [(t, dict(other=t, disc=t // 10, inst=t // 10, str="s%d" % (t // 10))) if t <= 20
           else (t, dict(other=t)) for t in range(0, 41, 10)], version)
    inst500 = [(i, "i%d" % i) for i in range(500)]
    build(a("sparse"), [("cnt", TU64, COUNTER, inst500), ("once", T32, DISCRETE, None),
                        ("minute", T32, INSTANT, None)],
          [(k / 10, dict([("cnt", {"i%d" % i: k * (i + 1) for i in range(500)})] +
                         ([("once", 42)] if k == 0 else []) +
                         ([("minute", k)] if k % 600 == 0 else [])))
           for k in range(1500)], version)
    build(a("long"), three, [(t, dict(cnt=t * t, inst=t, disc=t)) for t in range(0, 21)], version)
    print("ok")


if __name__ == "__main__":
    main()
