#!/usr/bin/python3
"""An application instrumented with PCP's own python MMV API (pcp.mmv over
libpcp_mmv): writes $PCP_TMP_DIR/mmv/NAME and updates it every PERIOD
seconds for SECONDS seconds, then exits (the file stays).

    live_mmv_writer.py NAME PERIOD SECONDS

What it exports (cluster 321; values are functions of the update number k,
so that recordings of it differ only in when they sampled):
  requests  U64 counter over indom 1 {"a", "b", "c"}: k*(k+i+1) for instance i
  bytes     U32 counter: 1000*k + (k*k) % 777
  errors    I64 counter: 3*k, except it drops back to 0 at k = 25 (a reset)
  latency   DOUBLE instant (millisec): 10 + (k % 7) * 1.25
  queue     I32 instant over indom 1: (k*(i+2)) % 11
  state     I32 discrete: k // 6
  phase     STRING discrete: "phase-<k // 9>"
Prints "ready" once the file exists.
"""

import sys
import time

from pcp import mmv
import cpmapi as c


def main():
    name, period, seconds = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
    m = mmv.MemoryMappedValues(name, cluster=321)
    insts = [mmv.mmv_instance(0, "a"), mmv.mmv_instance(1, "b"), mmv.mmv_instance(2, "c")]
    indom = mmv.mmv_indom(serial=1, shorttext="letters", helptext="three letters")
    indom.set_instances(insts)
    m.add_indoms([indom])
    count = mmv.pmUnits(0, 0, 1, 0, 0, c.PM_COUNT_ONE)
    space = mmv.pmUnits(1, 0, 0, c.PM_SPACE_BYTE, 0, 0)
    msec = mmv.pmUnits(0, 1, 0, 0, c.PM_TIME_MSEC, 0)
    none = mmv.pmUnits(0, 0, 0, 0, 0, 0)
    metrics = []
    for name, item, typ, sem, units, ind in [
            ("requests", 1, c.PM_TYPE_U64, c.PM_SEM_COUNTER, count, 1),
            ("bytes", 2, c.PM_TYPE_U32, c.PM_SEM_COUNTER, space, 0),
            ("errors", 3, c.PM_TYPE_64, c.PM_SEM_COUNTER, count, 0),
            ("latency", 4, c.PM_TYPE_DOUBLE, c.PM_SEM_INSTANT, msec, 0),
            ("queue", 5, c.PM_TYPE_32, c.PM_SEM_INSTANT, count, 1),
            ("state", 6, c.PM_TYPE_32, c.PM_SEM_DISCRETE, none, 0),
            ("phase", 7, c.PM_TYPE_STRING, c.PM_SEM_DISCRETE, none, 0)]:
        metric = mmv.mmv_metric(name, item, typ, sem, units, ind, name)
        # pcp.mmv's constructor (6.0.3) leaves these two fields unset.
        metric.semantics = sem
        metric.dimension = units
        metrics.append(metric)
    m.add_metrics(metrics)
    m.start()
    maps = {n: m.lookup_mapping(n, None) for n in ("bytes", "errors", "latency", "state", "phase")}
    per = {(n, i.external.decode() if isinstance(i.external, bytes) else i.external):
           m.lookup_mapping(n, i.external) for n in ("requests", "queue") for i in insts}

    def update(k):
        for (n, inst), mp in per.items():
            i = "abc".index(inst)
            m.set(mp, k * (k + i + 1) if n == "requests" else (k * (i + 2)) % 11)
        m.set(maps["bytes"], 1000 * k + (k * k) % 777)
        m.set(maps["errors"], 0 if k >= 25 and k < 26 else 3 * k)
        m.set(maps["latency"], 10 + (k % 7) * 1.25)
        m.set(maps["state"], k // 6)
        m.set_string(maps["phase"], "phase-%d" % (k // 9))

    update(0)
    print("ready", flush=True)
    start = time.monotonic()
    k = 0
    while time.monotonic() - start < seconds:
        k += 1
        time.sleep(period)
        update(k)


if __name__ == "__main__":
    main()
