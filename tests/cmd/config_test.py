"""mmvlog record/capture -c CONFIG and -C, end to end.

  - A table of broken configurations: each one's exact message
    (FILE:LINE:COL: what is wrong), exit status 2, and no archive created,
    for -C and for a capture.
  - -C prints the schedule (metric, instances, interval) and exits 0,
    warning about names that match nothing.
  - Metrics that appear later (an MMV file created after the start, below a
    configured subtree) are logged from when they appear, all instances.
  - `record` reads the configuration again on SIGHUP: a good new one takes
    over, a broken one is reported and the running schedule kept, with
    nothing lost; both archives pass pmlogcheck.
The side by side with pmlogger -o -c is tests/pcp/pmlogger_config_test.
"""

import collections
import os
import re
import signal
import subprocess
import time
import unittest

import cmdtest
from cmdtest import MMVLOG, WRITER, MmvFiles, describe, fresh_dir, pmdumplog, pmlogcheck, run

# (configuration, the whole first line of stderr after "mmvlog capture: ").
BROKEN = [
    ("log mandatory on every 10 parsecs mmv.alpha.cpu.busy\n",
     "CFG:1:27: expected a time unit after 10 (msec, sec, min or hour), found 'parsecs'"),
    ("log mandatory on 1 sec {\n  mmv.alpha.cpu.busy\n",
     "CFG:1:24: '{' is never closed (expected '}')"),
    ("# a comment\nlog sometimes on 1 sec mmv.alpha\n",
     "CFG:2:5: expected a logging specification ('log mandatory on ...', 'log advisory off "
     "...'), found 'sometimes'"),
    ("log mandatory on 1 sec mmv.alpha\n%ifdef X\nlog mandatory on 2 sec mmv.bravo\n",
     "CFG:2: %ifdef has no matching %endif"),
    ("%endif\n", "CFG:1:1: %endif without %ifdef or %ifndef"),
    ("%include \"missing.part\"\n",
     "CFG:1:11: cannot find %include file \"missing.part\" (looked for DIR/missing.part, "),
    ("%include \"loop.part\"\n",
     "DIR/loop.part:2:11: %include loop: CFG -> DIR/loop.part -> DIR/loop.part"),
    ("%define A 1\n%define A 2\n", "CFG:2:1: macro A redefined (defined before at CFG:1; %undef "
     "it first)"),
    ("log mandatory on 75 hours mmv.alpha\n",
     "CFG:1:18: interval too long: pmlogger's limit is 268435455 msec (about 74 hours)"),
    ("log advisory maybe mmv.alpha\n",
     "CFG:1:14: 'maybe' needs 'mandatory' before it (log mandatory maybe ...)"),
    ("log mandatory on 1 sec { mmv.alpha.cpu.busy [ eth-0 ] }\n",
     "CFG:1:47: expected an instance name (quote names with spaces or '-') or number, or ']', "
     "found 'eth-0'"),
    ("log mandatory on 1 sec mmv.alpha\n[access]\nallow * : everything;\n",
     "CFG:3:11: unknown access operation 'everything' (advisory, mandatory, enquire, all, all "
     "except ...)"),
    ("%shell \"echo log mandatory on 1 sec mmv\"\n",
     "CFG:1:1: %shell is not supported: mmvlog never runs commands named in its configuration"),
]


def records_per_metric(base):
    """{(metric, inst or None): records} from pmdumplog -a."""
    c = collections.Counter()
    metric = None
    for line in pmdumplog("-a", base).splitlines():
        m = re.match(r"^    \S+ \((\S+)\):(.*)$", line)
        rest = m.group(2) if m else line
        if m:
            metric = m.group(1)
        elif not line.startswith("        "):
            metric = None
        v = re.match(r"^\s*(?:inst \[(\d+) or \"[^\"]*\"\] )?value ", rest)
        if v and metric and not metric.startswith("pmcd."):  # not the prologue/epilogue
            c[(metric, int(v.group(1)) if v.group(1) else None)] += 1
    return c


class ConfigTest(unittest.TestCase):

    def setUp(self):
        self.dir = fresh_dir("config_" + self._testMethodName)
        self.files = MmvFiles(os.path.join(self.dir, "tmp"))

    def write(self, name, text):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_broken_configurations(self):
        self.write("loop.part", "# includes itself\n%include \"loop.part\"\n")
        for text, want in BROKEN:
            cfg = self.write("cfg", text)
            want = want.replace("CFG", cfg).replace("DIR", self.dir)
            for extra in (["-C"], [os.path.join(self.dir, "archive")]):
                p = run([MMVLOG, "capture", "-c", cfg, "--mmv-dir", self.files.mmv_dir] + extra)
                self.assertEqual(p.returncode, 2, describe(p))
                first = p.stderr.split("\n")[0]
                self.assertTrue(first.startswith("mmvlog capture: " + want), "%s\nwant: %s" % (
                    describe(p), want))
                self.assertFalse(any(n.startswith("archive") for n in os.listdir(self.dir)),
                                 "an archive was created: " + text)
        # The same for record, which must not even create its directory.
        cfg = self.write("cfg", BROKEN[0][0])
        p = run([MMVLOG, "record", "-c", cfg, "--mmv-dir", self.files.mmv_dir,
                 os.path.join(self.dir, "never", "a")])
        self.assertEqual(p.returncode, 2, describe(p))
        self.assertFalse(os.path.exists(os.path.join(self.dir, "never")))

    def test_missing_configuration_and_check_without_config(self):
        p = run([MMVLOG, "capture", "-c", "no-such-config", "-C"],
                env=dict(self.files.env, PCP_VAR_DIR=self.dir))
        self.assertEqual(p.returncode, 2, describe(p))
        self.assertIn("-c: cannot find configuration no-such-config (nor %s/config/pmlogger/"
                      "no-such-config)" % self.dir, p.stderr)
        p = run([MMVLOG, "capture", "-C"])
        self.assertEqual(p.returncode, 2, describe(p))
        self.assertIn("-C checks the configuration given with -c CONFIG", p.stderr)

    def test_config_found_in_pcp_var_dir_with_includes_there(self):
        conf_dir = os.path.join(self.dir, "config", "pmlogger")
        os.makedirs(conf_dir)
        with open(os.path.join(conf_dir, "config.mine"), "w") as f:
            f.write("%include \"parts/fast\"\n")
        os.makedirs(os.path.join(conf_dir, "parts"))
        with open(os.path.join(conf_dir, "parts", "fast"), "w") as f:
            f.write("log mandatory on 100 msec mmv.alpha.requests.total\n")
        p = run([MMVLOG, "capture", "-c", "config.mine", "-C", "--mmv-dir", self.files.mmv_dir],
                env=dict(self.files.env, PCP_VAR_DIR=self.dir), cwd=self.dir)
        self.assertEqual(p.returncode, 0, describe(p))
        self.assertEqual(p.stdout, "mandatory on every 100 msec:\n"
                                   "    mmv.alpha.requests.total  (no instances)\n")

    def test_check_prints_the_schedule(self):
        cfg = self.write("cfg", """\
log mandatory on once mmv.bravo.version
log mandatory on 10 sec { mmv.alpha.cpu.busy [ "cpu0" 5 ] mmv.alpha.requests.total }
log advisory on 2 min mmv.bravo.cpu
log mandatory off mmv.alpha.signed32
log mandatory on 1 sec { mmv.later }
""")
        p = run([MMVLOG, "record", "-C", "-c", cfg, "--mmv-dir", self.files.mmv_dir])
        self.assertEqual(p.returncode, 0, describe(p))
        self.assertEqual(p.stdout, """\
mandatory on once:
    mmv.bravo.version  (no instances)
mandatory on every 10 sec:
    mmv.alpha.cpu.busy  [0 "cpu0", 5 "cpu5"]
    mmv.alpha.requests.total  (no instances)
advisory on every 2 min:
    mmv.bravo.cpu.busy  all instances
mandatory off:
    mmv.alpha.signed32
logged as they appear, below:
    mmv.bravo.cpu (every 2 min)
    mmv.later (every 1 sec)
""")
        self.assertIn("%s:5:26: mmv.later matches no metric yet; it is logged if it appears"
                      % cfg, p.stderr)
        self.assertFalse([n for n in os.listdir(self.dir) if n.endswith(".meta")])

    def test_metrics_that_appear_later_are_logged_when_they_appear(self):
        cfg = self.write("cfg", "log mandatory on 100 msec { mmv.alpha.requests.total mmv.late }\n"
                                "log mandatory on 200 msec mmv.late.cpu.busy [ cpu0 ]\n")
        base = os.path.join(self.dir, "a")
        cap = subprocess.Popen([MMVLOG, "capture", "-c", cfg, "-T", "2sec", "--mmv-dir",
                                self.files.mmv_dir, "--no-progress", base],
                               env=self.files.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(1.0)
        subprocess.run([WRITER, "late", "v3", "0"], env=self.files.env, check=True,
                       stdout=subprocess.DEVNULL)
        out, err = cap.communicate(timeout=30)
        self.assertEqual(cap.returncode, 0, err.decode())
        rc, text = pmlogcheck(base)
        self.assertEqual(rc, 0, text)
        c = records_per_metric(base)
        total = c[("mmv.alpha.requests.total", None)]
        self.assertGreaterEqual(total, 18)
        late = c[("mmv.late.requests.total", None)]
        self.assertTrue(5 <= late <= total - 5, "%d of %d\n%s" % (late, total, c))
        # Below the root mmv.late, in the root's group: every instance, even
        # of the metric whose own clause named one (it did not exist then).
        for inst in (0, 1, 5):
            self.assertEqual(c[("mmv.late.cpu.busy", inst)], late)

    def test_sighup_reads_the_configuration_again(self):
        cfg = self.write("cfg", "log mandatory on 100 msec mmv.alpha.requests.total\n")
        d = os.path.join(self.dir, "archives")
        log = os.path.join(self.dir, "log")
        rec = subprocess.Popen([MMVLOG, "record", "-c", cfg, "--mmv-dir", self.files.mmv_dir,
                                "-l", log, os.path.join(d, "a")], env=self.files.env)
        try:
            time.sleep(1.0)
            self.write("cfg", "log mandatory on 100 msec mmv.alpha.signed32\n")
            rec.send_signal(signal.SIGHUP)
            time.sleep(1.0)
            self.write("cfg", "log mandatory on every 10 parsecs mmv.bravo\n")
            rec.send_signal(signal.SIGHUP)
            time.sleep(1.0)
        finally:
            rec.send_signal(signal.SIGTERM)
            rec.wait(timeout=30)
        self.assertEqual(rec.returncode, 0)
        with open(log) as f:
            text = f.read()
        self.assertIn("SIGHUP: configuration %s read again" % cfg, text)
        self.assertIn("SIGHUP: %s:1:27: expected a time unit after 10 (msec, sec, min or hour), "
                      "found 'parsecs'; the configuration read before stays in force" % cfg, text)
        base = os.path.join(d, "a")
        rc, out = pmlogcheck(base)
        self.assertEqual(rc, 0, out)
        c = records_per_metric(base)
        # The first configuration for a second, the second for two (the
        # broken third changed nothing), one record every 100 msec.
        self.assertTrue(7 <= c[("mmv.alpha.requests.total", None)] <= 13, c)
        self.assertTrue(16 <= c[("mmv.alpha.signed32", None)] <= 23, c)
        self.assertEqual(set(k[0] for k in c), {"mmv.alpha.requests.total", "mmv.alpha.signed32"})

    def test_without_a_configuration_everything_is_recorded_as_before(self):
        base = os.path.join(self.dir, "a")
        p = run([MMVLOG, "capture", "--mmv-dir", self.files.mmv_dir, "-s", "2", "-t", "100msec",
                 base], env=self.files.env)
        self.assertEqual(p.returncode, 0, describe(p))
        c = records_per_metric(base)
        self.assertEqual(len(set(k[0] for k in c)), self.files.metrics())
        self.assertEqual(set(c.values()), {2})


if __name__ == "__main__":
    unittest.main()
