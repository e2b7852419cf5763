"""`mmvlog replay --interval`, `--follow` and `--to-mmv`, end to end.

- --interval: resampling with interpolation is judged against real PCP's
  pmval -t on the same archive (an archive written by the writer test tool,
  whose values are a known function of time, with a <mark> in the middle):
  instant values must agree with pmval's to its printed precision, counters
  as rates likewise, and no value may appear across the <mark>.
- --follow: an archive still being written by `mmvlog capture` is followed;
  every sample written while following is printed once, in order.
- --to-mmv: values recorded from libpcp_mmv files are played back into MMV
  files; `mmvlog inspect` and PCP's mmvdump read the recorded values back.
"""

import json
import os
import re
import subprocess
import sys
import time
import unittest

import cmdtest
from cmdtest import MMVLOG, describe, lines

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pcp"))
import pcp7  # noqa: E402

TOOL = cmdtest.runfile("tests/pcp/archive_writer_tool")
MMVDUMP = "/var/lib/pcp/pmdas/mmv/mmvdump"


def pmval(base, metric, step, pcp72=False):
    """{seconds since start: [values per instance column]} from pmval -t
    (PCP 6.0.3's, or 7.2's: the nearest sample for instant values)."""
    args = ["pmval", "-z", "-f", "6", "-t", step, "-a", base, metric]
    p = pcp7.run(args, env={"TZ": "UTC"}) if pcp72 else cmdtest.run(args, env=dict(os.environ, TZ="UTC"))
    if p.returncode != 0:
        raise AssertionError(describe(p))
    rows = []
    for line in p.stdout.split("\n"):
        m = re.match(r"^(\d\d):(\d\d):(\d\d\.\d+)\s+(.*)$", line)
        if m:
            secs = int(m.group(1)) * 3600 + int(m.group(2)) * 60 + float(m.group(3))
            rows.append((secs, m.group(4).split()))
    return rows


class IntervalTest(unittest.TestCase):
    def setUp(self):
        self.dir = cmdtest.fresh_dir("interval")
        self.base = os.path.join(self.dir, "a")
        p = cmdtest.run([TOOL, "3", self.base])
        self.assertEqual(p.returncode, 0, describe(p))
        self.expected = json.loads(p.stdout)

    def replay_json(self, *args, step="500msec"):
        # 7.2's pmval is the oracle: its interpolation rule.
        p = cmdtest.run([MMVLOG, "replay", "--json", "-Z", "UTC", "--interval", step,
                         "--interpolation=nearest", self.base] + list(args),
                        env=dict(os.environ, TZ="UTC"))
        self.assertEqual(p.returncode, 0, describe(p))
        return [json.loads(l) for l in lines(p.stdout)]

    def test_instant_values_agree_with_pmval(self):
        ours = [r for r in self.replay_json("--raw", "test.i32", step="750msec")
                if not r.get("mark")]
        # 0.75 s puts grid times nearer the next sample than the previous
        # one: PCP 6.3.2 and later show the nearer (6.0.3 the previous): so
        # must we.
        pcp7.require()
        theirs = pmval(self.base, "test.i32", "0.75sec", pcp72=True)
        self.assertGreater(len(theirs), 10)
        by_time = {}
        for r in ours:
            hms = r["time"].split(" ")[1]
            h, m, s = hms.split(":")
            by_time[round(int(h) * 3600 + int(m) * 60 + float(s), 3)] = r["values"].get("test.i32")
        compared = 0
        for secs, cols in theirs:
            key = round(secs, 3)
            if key not in by_time:
                continue
            if cols[0] == "?" or cols[0] == "No":  # pmval: no value here
                # pmval starts at the label's time, truncated to microseconds,
                # just before the first record: the one place it has none.
                if secs != theirs[0][0]:
                    self.assertIsNone(by_time[key], "pmval has no value at %s, we do" % key)
                continue
            self.assertIsNotNone(by_time[key], "no value at %s; pmval has %s" % (key, cols[0]))
            self.assertAlmostEqual(float(by_time[key]), float(cols[0]), places=3)
            compared += 1
        self.assertGreater(compared, 5, "too few common grid points with pmval")

    def test_counter_rates_agree_with_pmval_and_stop_at_the_mark(self):
        rows = self.replay_json("test.u32")
        # A grid has no <mark> rows (pmrep prints none): the gap is grid
        # times without a rate, where pmval says "No values available".
        self.assertFalse([r for r in rows if r.get("mark")])
        ours = {}
        for r in rows:
            if r.get("mark"):
                continue
            h, m, sec = r["time"].split(" ")[1].split(":")
            ours[round(int(h) * 3600 + int(m) * 60 + float(sec), 3)] = r["values"].get("test.u32")
        theirs = pmval(self.base, "test.u32", "0.5sec")
        compared = gaps = 0
        # pmval's grid starts a hair before the first record: its first two
        # rows have no value (no prior sample, then no prior rate).
        for secs, cols in theirs[2:]:
            key = round(secs, 3)
            self.assertIn(key, ours)
            if cols[0] == "No":
                self.assertIsNone(ours[key], "pmval has no rate at %s, we do" % key)
                gaps += 1
                continue
            self.assertIsNotNone(ours[key], "no rate at %s; pmval has %s" % (key, cols[0]))
            self.assertAlmostEqual(ours[key], float(cols[0]), places=5)
            compared += 1
        self.assertGreater(compared, 8)
        self.assertGreater(gaps, 0, "no rate across the <mark>")


class FollowTest(unittest.TestCase):
    def test_follows_a_growing_archive(self):
        mmv = cmdtest.MmvFiles(cmdtest.fresh_dir("follow_mmv"), files=(("app", "v1", 0, 0),))
        base = os.path.join(cmdtest.fresh_dir("follow"), "a")
        cap = subprocess.Popen([MMVLOG, "capture", "-o", base, "--mmv-dir", mmv.mmv_dir,
                                "--interval", "200msec", "-T", "3sec", "--no-progress"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=mmv.env)
        try:
            deadline = time.time() + 5
            while not os.path.exists(base + ".0") and time.time() < deadline:
                time.sleep(0.05)
            time.sleep(0.3)
            f = subprocess.Popen([MMVLOG, "replay", "--follow", "--json", "--raw", base,
                                  "mmv.app.signed32"], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, universal_newlines=True)
            cap.wait(timeout=20)
            time.sleep(2.5)  # at least one more poll after the last sample
            f.terminate()
            out, err = f.communicate(timeout=10)
        finally:
            if cap.poll() is None:
                cap.kill()
        self.assertEqual(cap.returncode, 0)
        rows = [json.loads(l) for l in lines(out)]
        stamps = [r["timestamp"] for r in rows]
        self.assertEqual(stamps, sorted(set(stamps)), "rows repeated or out of order")
        # Every sample the capture wrote is printed exactly once.
        dump = cmdtest.run([MMVLOG, "replay", "--json", "--raw", base, "mmv.app.signed32"])
        all_rows = [json.loads(l) for l in lines(dump.stdout)]
        self.assertGreaterEqual(len(all_rows), 10)
        self.assertEqual(stamps, [r["timestamp"] for r in all_rows], err)
        for r in rows:
            self.assertEqual(r["values"]["mmv.app.signed32"], -42)


class ToMmvTest(unittest.TestCase):
    def test_played_back_values_read_as_recorded(self):
        mmv = cmdtest.MmvFiles(cmdtest.fresh_dir("tommv_src"), files=(("app", "v3", 0, 0),))
        base = os.path.join(cmdtest.fresh_dir("tommv_arch"), "a")
        p = cmdtest.run([MMVLOG, "capture", "-o", base, "--mmv-dir", mmv.mmv_dir,
                         "-s", "3", "--interval", "100msec"], env=mmv.env)
        self.assertEqual(p.returncode, 0, describe(p))
        out = cmdtest.fresh_dir("tommv_out")
        p = cmdtest.run([MMVLOG, "replay", "--to-mmv", out, "--speed", "50", base])
        self.assertEqual(p.returncode, 0, describe(p))
        self.assertEqual(os.listdir(out), ["app"])
        src = json.loads(cmdtest.run([MMVLOG, "inspect", "--json",
                                      os.path.join(mmv.mmv_dir, "app")]).stdout)
        got = json.loads(cmdtest.run([MMVLOG, "inspect", "--json", os.path.join(out, "app")]).stdout)

        def values(doc):
            out = {}
            for v in doc["values"]:
                out[(v["metric"], v["instance_name"])] = v["value"]
            return out
        want = values(src)
        have = values(got)
        # ELAPSED is recorded as a 64-bit counter (microseconds): same number.
        self.assertEqual(have, want)
        names = {m["name"]: m for m in got["metrics"]}
        for m in src["metrics"]:
            if m["type_name"] == "elapsed":
                continue
            self.assertEqual(names[m["name"]]["type"], m["type"], m["name"])
            self.assertEqual(names[m["name"]]["units"], m["units"], m["name"])
        # PCP's own reader agrees.
        dump = cmdtest.run([MMVDUMP, os.path.join(out, "app")])
        self.assertEqual(dump.returncode, 0, describe(dump))
        self.assertIn("1.2.3-demo", dump.stdout)


if __name__ == "__main__":
    unittest.main()
