"""`mmvlog replay -o text` with pmval's options, side by side with pmval itself.

A version 2 archive is written by PCP's own LOGIMPORT (pcp.pmi, in a child
/usr/bin/python3): ten minutes of irregularly spaced samples (a counter that
grows at varying rates, a double gauge, an instance domain of three), from a
host whose time zone is not the machine's (AEST-10). For each set of pmval
options (-t, -S, -T, -O, -A, -z, -Z, -i, -r, -s; PCP's time syntax: @datetime,
+interval, -interval, bare intervals, ctime dates) both tools run on the
archive, and replay's text table must be pmval's: the same rows (pmval's
"No values available" lines left out), the same timestamps and the same
values (rates for counters) as pmval prints them, "?" where it has none.

The pmval is PCP 7.2's (tests/pcp/pcp7.py): it takes the nearest sample for
instant and discrete values (PCP 6.3.2 and later); 6.0.3's takes the one
before. replay runs with --interpolation=nearest, 7.2's rule. CSV against pmrep is tests/pcp:replay_oracle_test.
"""

import os
import re
import subprocess
import sys
import unittest

import cmdtest
from cmdtest import MMVLOG, describe, lines

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pcp"))
import pcp7  # noqa: E402

START = 1763989200  # 2025-11-24 13:00:00 UTC = 23:00:00 AEST
SAMPLES = 600


def logimport(base):
    """Writes the archive with real LOGIMPORT (run under /usr/bin/python3)."""
    code = r'''
import sys
from pcp import pmi
import cpmapi as c
log = pmi.pmiLogImport(sys.argv[1])
log.pmiSetHostname("windowhost")
log.pmiSetTimezone("AEST-10")
D = 245
ind = log.pmiInDom(D, 1)
log.pmiAddMetric("win.counter", log.pmiID(D, 0, 1), c.PM_TYPE_U64, c.PM_INDOM_NULL,
                 c.PM_SEM_COUNTER, log.pmiUnits(0, 0, 1, 0, 0, 0))
log.pmiAddMetric("win.gauge", log.pmiID(D, 0, 2), c.PM_TYPE_DOUBLE, c.PM_INDOM_NULL,
                 c.PM_SEM_INSTANT, log.pmiUnits(0, 0, 0, 0, 0, 0))
log.pmiAddMetric("win.disk", log.pmiID(D, 0, 3), c.PM_TYPE_U32, ind,
                 c.PM_SEM_INSTANT, log.pmiUnits(1, 0, 0, 0, 0, 0))
for i, name in enumerate(("sda", "sdb", "nvme0n1")):
    log.pmiAddInstance(ind, name, i)
start, n = int(sys.argv[2]), int(sys.argv[3])
total = 0
for k in range(n):
    # Irregular spacing: a second, give or take up to 0.3 s.
    usec = k * 1000000 + (k * 7919) % 600001
    sec, usec = start + usec // 1000000, usec % 1000000
    total += (k * 37) % 101 + (500 if 200 <= k < 260 else 0)
    log.pmiPutValue("win.counter", None, str(total))
    log.pmiPutValue("win.gauge", None, "%.6f" % ((k % 17) * 1.25 - 3))
    for i, name in enumerate(("sda", "sdb", "nvme0n1")):
        if not (name == "sdb" and 100 <= k < 120):  # an instance missing for a while
            log.pmiPutValue("win.disk", name, str((k * (i + 3)) % 1000))
    log.pmiWrite(sec, usec)
log.pmiEnd()
'''
    env = dict(os.environ, PCP_ARCHIVE_VERSION="2")
    p = subprocess.run(["/usr/bin/python3", "-c", code, base, str(START), str(SAMPLES)],
                       env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    if p.returncode != 0:
        raise AssertionError("LOGIMPORT failed: %s" % p.stderr)


TIME = re.compile(r"^(\d\d):(\d\d):(\d\d)\.(\d{3,4})\s")


def table_rows(text):
    """[(HH:MM:SS.mmm, [cells as printed])] of a pmval-style table."""
    rows = []
    for line in text.split("\n"):
        m = TIME.match(line)
        if not m or "No values available" in line:
            continue
        # libpcp leaves a nanosecond field of exactly 1e9 unnormalised and
        # pmval prints "x.1000": carry it, to compare times, not that bug.
        h, mi, sec, ms = (int(g) for g in m.groups())
        total = ((h * 60 + mi) * 60 + sec) * 1000 + ms
        time_text = "%02d:%02d:%02d.%03d" % (total // 3600000 % 24, total // 60000 % 60,
                                             total // 1000 % 60, total % 1000)
        rows.append((time_text, line.split()[1:]))
    return rows


def pmval_rows(base, metric, args):
    p = pcp7.run(["pmval", "-a", base] + args + [metric], env={"TZ": os.environ.get("TZ", "UTC")})
    if p.returncode != 0:
        raise AssertionError(describe(p))
    return table_rows(p.stdout)


def our_rows(base, metric, args):
    p = cmdtest.run([MMVLOG, "replay", "-o", "text", "--interpolation=nearest", "-a", base] +
                    args + [metric])
    if p.returncode != 0:
        raise AssertionError(describe(p))
    return table_rows(p.stdout)


class ReplayWindowTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.dir = cmdtest.fresh_dir("window")
        cls.base = os.path.join(cls.dir, "win")
        logimport(cls.base)
        label = cmdtest.archive_label(cls.base)
        assert label["version"] == 2, label

    def compare(self, metric, args, ours_args=None, min_rows=3):
        """pmval ARGS vs replay ARGS (or OURS_ARGS) on METRIC: the same table."""
        pcp7.require()
        theirs = pmval_rows(self.base, metric, args)
        ours = our_rows(self.base, metric, ours_args if ours_args is not None else args)
        what = "pmval %s %s" % (" ".join(args), metric)
        self.assertGreaterEqual(len(theirs), min_rows, what)
        self.assertEqual([t for t, _ in ours], [t for t, _ in theirs], what)
        for (time_text, mine), (_, pcp) in zip(ours, theirs):
            self.assertEqual(mine, pcp, "%s at %s" % (what, time_text))
        return theirs

    def test_interval_whole_archive(self):
        for metric in ("win.gauge", "win.counter", "win.disk"):
            with self.subTest(metric=metric):
                rows = self.compare(metric, ["-z", "-t", "7sec"], min_rows=80)

    def test_absolute_start_and_relative_finish(self):
        # 23:02:00 AEST is two minutes in; -T is relative to -S.
        for metric, first in (("win.gauge", "23:02:00.000"), ("win.counter", "23:02:02.000")):
            with self.subTest(metric=metric):
                rows = self.compare(metric, ["-z", "-t", "2sec", "-S", "@23:02:00", "-T", "+1min"])
                # A rate needs two points: the counter's table starts one step later.
                self.assertEqual(rows[0][0], first)
                self.assertEqual(rows[-1][0], "23:03:00.000")

    def test_offsets_from_start_and_end(self):
        self.compare("win.counter", ["-z", "-t", "5sec", "-S", "+30sec", "-T", "-1min"])
        self.compare("win.gauge", ["-z", "-t", "1.5sec", "-S", "10sec", "-T", "40sec"])
        self.compare("win.gauge", ["-z", "-t", "250msec", "-S", "-20sec"])

    def test_ctime_and_iso_dates(self):
        self.compare("win.gauge", ["-z", "-t", "3sec", "-S", "@Nov 24 23:05:00 2025",
                                   "-T", "@Mon Nov 24 23:06:30 2025"])
        # An ISO date: the same window as pmval's ctime form.
        theirs = pmval_rows(self.base, "win.gauge",
                            ["-z", "-t", "3sec", "-S", "@Nov 24 23:05:00 2025", "-T", "+90sec"])
        ours = our_rows(self.base, "win.gauge",
                           ["-z", "-t", "3sec", "-S", "@2025-11-24 23:05:00", "-T", "+90sec"])
        self.assertEqual([t for t, _ in ours], [t for t, _ in theirs])

    def test_time_zones(self):
        # -Z: another zone for reading and showing times; UTC shows 13:xx.
        rows = self.compare("win.gauge", ["-Z", "UTC", "-t", "2sec", "-S", "@13:01:00",
                                          "-T", "@13:01:30"])
        self.assertEqual(rows[0][0], "13:01:00.000")
        self.compare("win.gauge", ["-Z", "Asia/Kolkata", "-t", "4sec", "-S", "@18:31:00",
                                   "-T", "+20sec"])

    def test_align_and_origin(self):
        self.compare("win.gauge", ["-z", "-t", "10sec", "-A", "10sec", "-T", "+2min"])
        self.compare("win.counter", ["-z", "-t", "2sec", "-S", "+1min", "-O", "+20sec",
                                     "-T", "+1min"])

    def test_instances_raw_and_samples(self):
        self.compare("win.disk", ["-z", "-t", "2sec", "-i", "sdb,nvme0n1", "-S", "+1min",
                                  "-T", "+1min"])
        self.compare("win.counter", ["-z", "-r", "-t", "3sec", "-s", "12"])

    def test_zero_samples(self):
        # pmval -s 0: its header and no row, on a grid or not; pmrep -s 0 is
        # every sample, and so is replay's CSV.
        self.compare("win.counter", ["-z", "-t", "3sec", "-s", "0"], min_rows=0)
        self.compare("win.counter", ["-z", "-s", "0"], min_rows=0)
        every = cmdtest.run([MMVLOG, "replay", "-o", "csv", "-a", self.base, "-t", "3sec",
                             "win.counter"])
        zero = cmdtest.run([MMVLOG, "replay", "-o", "csv", "-a", self.base, "-t", "3sec",
                            "-s", "0", "win.counter"])
        self.assertEqual(zero.stdout, every.stdout)
        self.assertGreater(len(every.stdout.splitlines()), 10)
        text = our_rows(self.base, "win.counter", ["-z", "-t", "3sec"])
        self.assertGreater(len(text), 10, "without -s: every row")


if __name__ == "__main__":
    unittest.main()
