#!/usr/bin/python3
"""Archives whose label carries each kind of time zone PCP takes, with
samples across a daylight-saving change, written by PCP's LOGIMPORT
(pcp.pmi: pmiSetTimezone writes any zone, pmiWrite any time).

    zone_archives.py DIR

Writes DIR/<name> for each (name, zone, first sample) below: a U32 counter
`cnt` (+60 a sample) and a 32-bit instant `val` (the sample number), one
sample every 20 minutes for 8 hours from two hours before a transition.
"""

import os
import sys

from pcp import pmi
import cpmapi as c

# name, the label's timezone, a transition of that zone (UTC seconds).
ZONES = [
    ("posix-uk", "GMT0BST-1,M3.5.0/2,M10.5.0/2", 1774746000),      # 2026-03-29 01:00 UTC
    ("posix-au", "AEST-10AEDT-11,M10.5.0/3,M3.5.0/2", 1775318400),  # 2026-04-04 16:00 UTC
    ("posix-doy", "EST-11EST-10,89/2:00,299/2:00", 859651200),      # 1997-03-29 16:00 UTC
    ("name-ny", "America/New_York", 1773039600),                    # 2026-03-09 07:00 UTC
    ("colon-name", ":Europe/Berlin", 1792803600),                   # 2026-10-25 01:00 UTC
    ("pst8pdt", "PST8PDT", 1793523600),                             # 2026-11-01 09:00 UTC
    ("fixed", "IST-5:30", 1774746000),
    ("utc", "UTC", 1774746000),
]


def write(path, zone, t0):
    for ext in (".0", ".meta", ".index"):
        if os.path.exists(path + ext):
            os.unlink(path + ext)
    log = pmi.pmiLogImport(path)
    log.pmiSetHostname("zonehost")
    log.pmiSetTimezone(zone)
    log.pmiAddMetric("cnt", log.pmiID(245, 0, 1), c.PM_TYPE_U32, c.PM_INDOM_NULL,
                     c.PM_SEM_COUNTER, log.pmiUnits(0, 0, 1, 0, 0, c.PM_COUNT_ONE))
    log.pmiAddMetric("val", log.pmiID(245, 0, 2), c.PM_TYPE_32, c.PM_INDOM_NULL,
                     c.PM_SEM_INSTANT, log.pmiUnits(0, 0, 0, 0, 0, 0))
    for k in range(25):
        log.pmiPutValue("cnt", "", str(60 * k))
        log.pmiPutValue("val", "", str(k))
        log.pmiWrite(t0 - 7200 + 1200 * k, 0)
    del log


def main():
    d = sys.argv[1]
    os.makedirs(d, exist_ok=True)
    for name, zone, t in ZONES:
        write(os.path.join(d, name), zone, t)


if __name__ == "__main__":
    main()
