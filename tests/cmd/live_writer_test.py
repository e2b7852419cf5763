"""`mmvlog record` and `mmvlog capture` on a file the real libpcp_mmv keeps
updating, as applications write MMV files (tests/pcp/pcp_mmv_app_writer.c:
U64 counters over two instance domains, two strings, updated every 100 ms).

Both commands take one recording path (archiver/record/recording.h): the
MMV directory watched, values read where they are. Checked for each:
- what was recorded is what the application wrote, judged by pmdumplog:
  counter i (in the file's value order) is i * 1000 + u * (i % 8 + 1) for
  an update u within one of the update the "state" string names, the
  strings are whole, and the values move while the recorder runs;
- pmlogcheck accepts the archive;
- strace: after the file is first read, a tick reads no value with pread
  (the mapped path applies to libpcp_mmv's files, strings and all) and
  looks up neither the directory nor the file by name (the watch): a few of
  each in 40 ticks, where a copy per tick makes 3 preads and an unwatched
  directory 2 stats.
"""

import os
import re
import shutil
import signal
import subprocess
import unittest

import cmdtest
from cmdtest import MMVLOG, describe

APP_WRITER = cmdtest.runfile("tests/pcp/pcp_mmv_app_writer")
TICKS = 40

SAMPLE = re.compile(r"^\d\d:\d\d:\d\d\.\d+ \d+ metrics?$")
VALUE = re.compile(r'^\s+(?:inst \[\d+ or "[^"]*"\] )?value (\S.*)$')
METRIC = re.compile(r"^    \d+\.\d+\.\d+ \((\S+)\):(?: value (\S.*))?$")


def samples(base):
    """[{metric: [values as text]}] of the samples of `base` (pmdumplog -a),
    prologue and epilogue left out."""
    out = []
    current = None
    metric = None
    for line in cmdtest.pmdumplog("-a", base).split("\n"):
        if SAMPLE.match(line):
            current = {}
            out.append(current)
            continue
        if current is None:
            continue
        m = METRIC.match(line)
        if m:
            metric = m.group(1)
            current[metric] = [m.group(2)] if m.group(2) is not None else []
            continue
        m = VALUE.match(line)
        if m and metric is not None:
            current[metric].append(m.group(1))
    return [s for s in out if not any(k.startswith("pmcd.") for k in s)]


class LiveWriterTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.root = cmdtest.fresh_dir("live_writer")
        pcp = os.path.join(cls.root, "pcp")
        cls.mmv_dir = os.path.join(pcp, "mmv")
        os.makedirs(cls.mmv_dir)
        cls.env = dict(os.environ, PCP_TMP_DIR=pcp)
        cls.writer = subprocess.Popen([APP_WRITER, "app", "302", "100"], env=cls.env,
                                      stdout=subprocess.PIPE, universal_newlines=True)
        cls.values = int(cls.writer.stdout.readline())
        assert cls.writer.stdout.readline().strip() == "ready"

    @classmethod
    def tearDownClass(cls):
        cls.writer.send_signal(signal.SIGTERM)
        cls.writer.wait(timeout=10)

    def run_tool(self, tool, trace):
        out = cmdtest.fresh_dir("live_writer_%s" % tool)
        base = os.path.join(out, "arch")
        prefix = []
        env = dict(self.env)
        if trace:
            prefix = ["strace", "-f", "-e", "trace=pread64,newfstatat,stat,lstat,statx", "-o",
                      os.path.join(out, "strace.out")]
            # Under a tracer, LeakSanitizer cannot run (ASan builds).
            env["ASAN_OPTIONS"] = ":".join(filter(None, [env.get("ASAN_OPTIONS"),
                                                         "detect_leaks=0"]))
        p = cmdtest.run(prefix + [MMVLOG, tool, "-t", "20msec", "-s", str(TICKS), "--mmv-dir",
                                  self.mmv_dir, base], env=env, timeout=120)
        self.assertEqual(p.returncode, 0, describe(p))
        return base, os.path.join(out, "strace.out")

    def check_values(self, base):
        got = samples(base)
        self.assertEqual(len(got), TICKS)
        updates = set()
        for n, s in enumerate(got):
            self.assertEqual(s.get("mmv.app.version"), ['"6.0.3-bench"'], "sample %d" % n)
            state = s.get("mmv.app.state")
            self.assertIsNotNone(state, "sample %d: %s" % (n, sorted(s)))
            m = re.match(r'^"(?:serving, update (\d+)|starting)"$', state[0])
            self.assertIsNotNone(m, "sample %d: state %s" % (n, state))
            u = int(m.group(1) or 0)
            updates.add(u)
            counters = []
            for name in sorted(k for k in s if k.startswith("mmv.app.ep.")):
                counters += s[name]
            for name in sorted(k for k in s if k.startswith("mmv.app.pool.")):
                counters += s[name]
            self.assertEqual(len(counters), self.values - 2, "sample %d" % n)
            for i, text in enumerate(counters):
                step = i % 8 + 1
                k, rest = divmod(int(text) - i * 1000, step)
                self.assertEqual(rest, 0, "sample %d counter %d = %s" % (n, i, text))
                self.assertLessEqual(abs(k - u), 1,
                                     "sample %d counter %d at update %d, state %d" % (n, i, k, u))
        # 40 ticks of 20 ms see several updates every 100 ms.
        self.assertGreater(len(updates), 2, updates)

    def test_record_and_capture_record_what_the_application_wrote(self):
        for tool in ("record", "capture"):
            with self.subTest(tool=tool):
                base, _ = self.run_tool(tool, trace=False)
                rc, out = cmdtest.pmlogcheck(base)
                self.assertEqual(rc, 0, out)
                self.check_values(base)

    @unittest.skipUnless(shutil.which("strace"), "strace is not installed")
    def test_record_and_capture_read_values_in_place_from_a_watched_directory(self):
        for tool in ("record", "capture"):
            with self.subTest(tool=tool):
                base, trace = self.run_tool(tool, trace=True)
                with open(trace) as f:
                    calls = f.read()
                preads = len(re.findall(r"\bpread64\(", calls))
                # Lookups by name of the MMV directory or its file (an fstat
                # of an open descriptor names no path).
                lookups = len(re.findall(r'(?:stat|statx)\([^"\n]*"[^"\n]*(?:/mmv|app)"', calls))
                self.assertLess(preads, 20, "%d preads in %d ticks" % (preads, TICKS))
                self.assertLess(lookups, 20, "%d lookups in %d ticks" % (lookups, TICKS))
                self.check_values(base)


if __name__ == "__main__":
    unittest.main()
