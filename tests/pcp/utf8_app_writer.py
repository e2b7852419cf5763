#!/usr/bin/python3
"""An application on PCP's python MMV API (pcp.mmv over libpcp_mmv) whose
text is not ASCII, as people's is: $PCP_TMP_DIR/mmv/utf8app with

  hits      U32 instant over indom 1: "café" 10, "東京" 11, and b"bad\\xff\\xfe"
            (bytes that are not UTF-8, as libpcp_mmv stores whatever it is given) 12
  greeting  STRING discrete: "¡Hola, señor! 東京"

    utf8_app_writer.py SECONDS     (prints "ready", holds the file SECONDS)
"""

import sys
import time

from pcp import mmv
import cpmapi as c

INSTANCES = ["café", "東京", b"bad\xff\xfe"]
GREETING = "¡Hola, señor! 東京"


def main():
    m = mmv.MemoryMappedValues("utf8app", cluster=322)
    indom = mmv.mmv_indom(serial=1, shorttext="places", helptext="places")
    indom.set_instances([mmv.mmv_instance(i, name) for i, name in enumerate(INSTANCES)])
    m.add_indoms([indom])
    none = mmv.pmUnits(0, 0, 0, 0, 0, 0)
    metrics = []
    for name, item, typ, sem, ind in [("hits", 1, c.PM_TYPE_U32, c.PM_SEM_INSTANT, 1),
                                      ("greeting", 2, c.PM_TYPE_STRING, c.PM_SEM_DISCRETE, 0)]:
        metric = mmv.mmv_metric(name, item, typ, sem, none, ind, name)
        metric.semantics = sem  # pcp.mmv 6.0.3 leaves these unset
        metric.dimension = none
        metrics.append(metric)
    m.add_metrics(metrics)
    m.start()
    for i, inst in enumerate(INSTANCES):
        m.set(m.lookup_mapping("hits", inst), 10 + i)
    m.set_string(m.lookup_mapping("greeting", None), GREETING)
    print("ready", flush=True)
    time.sleep(float(sys.argv[1]))


if __name__ == "__main__":
    main()
