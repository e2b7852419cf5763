"""`mmvlog capture` and `mmvlog record` with pmlogger's options, doing what
pmlogger(1) does with them, judged by real PCP (pmlogcheck, pmdumplog):

  -s ENDSIZE   samples, bytes (10K) or a duration (1.5sec)
  -T ENDTIME   an interval from now, or @ a time
  -v VOLSIZE   new volumes after samples, bytes or a duration
  -l LOGFILE   log lines there (- for stdout), none on stderr
  -H HOST      the archive label's host name
  -p PID       stop when that process has exited
  -m NOTE      in the first log line
  -V 2|3       the archive version
  ARCHIVE      the last argument, with strftime(3) conversions for record
  -c, -C       not supported yet: a usage error that says so
"""

import datetime
import os
import re
import subprocess
import time
import unittest

import cmdtest
from cmdtest import MMVLOG, describe, lines


def ticks(p):
    """The scheduled ticks of a run (taken or missed) from its schedule line."""
    m = re.search(r"schedule: (\d+) ticks, ", p.stderr)
    if m is None:
        raise AssertionError("no schedule line:\n" + describe(p))
    return int(m.group(1))


def missed(p):
    return int(re.search(r"\((\d+) missed, ", p.stderr).group(1))


def records(base):
    rc, out = cmdtest.pmlogcheck(base)
    if rc != 0:
        raise AssertionError("pmlogcheck %s:\n%s" % (base, out))
    return cmdtest.sample_results(base, out)


def volumes(base):
    d, name = os.path.split(base)
    return sorted(int(f[len(name) + 1:]) for f in os.listdir(d)
                  if re.fullmatch(re.escape(name) + r"\.\d+", f))


class PmloggerOptionsTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.root = cmdtest.fresh_dir("pmlogger_options")
        cls.files = cmdtest.MmvFiles(os.path.join(cls.root, "pcp"))

    def setUp(self):
        self.out = cmdtest.fresh_dir("pmlogger_options_out/%s" % self._testMethodName)

    def mmvlog(self, *args, timeout=60):
        return cmdtest.run([MMVLOG] + list(args), env=self.files.env, timeout=timeout)

    def must(self, *args):
        p = self.mmvlog(*args)
        self.assertEqual(p.returncode, 0, describe(p))
        return p

    def test_samples_and_archive_as_last_argument(self):
        base = os.path.join(self.out, "a")
        self.must("capture", "-t", "50msec", "-s", "5", base)
        self.assertEqual(records(base), 5)

    def test_size_in_bytes(self):
        base = os.path.join(self.out, "b")
        self.must("capture", "-t", "10msec", "-s", "12K", base)
        total = sum(os.path.getsize(os.path.join(self.out, f)) for f in os.listdir(self.out)
                    if f.startswith("b."))
        n = records(base)
        self.assertGreater(n, 3)
        # Stopped at the first record past 12 KiB of archive data, not much later.
        self.assertGreaterEqual(total, 12 * 1024)
        self.assertLess(total, 12 * 1024 + 4096)

    def test_size_as_a_duration_and_finish_as_an_interval(self):
        for opt in ("-s", "-T"):
            with self.subTest(option=opt):
                base = os.path.join(self.out, "d" + opt[1])
                t0 = time.monotonic()
                p = self.must("capture", "-t", "100msec", opt, "1.5sec", base)
                took = time.monotonic() - t0
                self.assertGreaterEqual(took, 1.4)  # never stops early (load only delays)
                # The ticks of 1.5 s at 100 ms, counted whether taken or
                # missed; every one taken is in the archive.
                self.assertIn(ticks(p), (15, 16), describe(p))
                self.assertEqual(records(base), ticks(p) - missed(p), describe(p))

    def test_finish_at_a_time_of_day(self):
        until = datetime.datetime.now().replace(microsecond=0) + datetime.timedelta(seconds=2)
        base = os.path.join(self.out, "t")
        p = self.must("capture", "-t", "200msec", "-T", until.strftime("@%H:%M:%S"), base)
        # Never stops early (load only delays).
        self.assertGreaterEqual(datetime.datetime.now(), until - datetime.timedelta(seconds=0.3))
        # At least a second at 200 ms: five ticks or more, taken or missed.
        self.assertGreaterEqual(ticks(p), 5, describe(p))
        self.assertEqual(records(base), ticks(p) - missed(p), describe(p))

    def test_volumes_by_samples_bytes_and_time(self):
        cases = (("-v", "3", "-s", "7", [0, 1, 2]),
                 ("-v", "6K", "-s", "12", None),
                 ("-v", "450msec", "-s", "12", None))
        for vopt, vsize, sopt, n, want in cases:
            with self.subTest(volsize=vsize):
                base = os.path.join(self.out, "v" + re.sub(r"\W", "", vsize))
                self.must("capture", "-t", "100msec", vopt, vsize, sopt, n, base)
                self.assertEqual(records(base), int(n))
                got = volumes(base)
                if want is not None:
                    self.assertEqual(got, want)
                else:
                    self.assertGreaterEqual(len(got), 2, got)
                    self.assertLessEqual(len(got), 6, got)
                # Every volume reads back: all records, in order.
                dump = cmdtest.pmdumplog("-a", base)
                self.assertEqual(len(re.findall(r"^\d\d:\d\d:\d\d\.\d+ +\d+ metrics?$", dump,
                                                re.M)) - cmdtest.logue_records(base), int(n),
                                 dump[:2000])

    def test_log_file_and_note(self):
        base = os.path.join(self.out, "l")
        log = os.path.join(self.out, "mmvlog.log")
        p = self.must("capture", "-t", "50msec", "-s", "2", "-l", log, "-m", "nightly run", base)
        self.assertNotRegex(p.stderr, cmdtest.LOG_LINE)
        with open(log) as f:
            logged = f.read()
        self.assertTrue(lines(logged))
        for line in lines(logged):
            self.assertRegex(line, cmdtest.LOG_LINE)
        # record writes its first line with the note.
        log2 = os.path.join(self.out, "record.log")
        self.must("record", "-t", "50msec", "-s", "2", "-l", log2, "-m", "nightly run",
                  os.path.join(self.out, "rec"))
        with open(log2) as f:
            self.assertIn("note: nightly run", lines(f.read())[0])
        # "-l -": standard output.
        p = self.must("record", "-t", "50msec", "-s", "2", "-l", "-",
                      os.path.join(self.out, "rec2"))
        self.assertRegex(p.stdout, cmdtest.LOG_LINE)
        self.assertNotRegex(p.stderr, cmdtest.LOG_LINE)

    def test_label_host(self):
        base = os.path.join(self.out, "h")
        self.must("capture", "-s", "1", "-H", "labelled.example", base)
        label = cmdtest.pmdumplog("-L", base)
        self.assertIn("Performance metrics from host labelled.example", label)
        # As pmlogger -H: the context labels keep the real host name.
        labels = cmdtest.pmdumplog("-e", base)
        self.assertNotIn('"hostname":"labelled.example"', labels)

    def test_pid(self):
        sleeper = subprocess.Popen(["sleep", "1"])
        try:
            base = os.path.join(self.out, "p")
            self.must("capture", "-t", "100msec", "-p", str(sleeper.pid), base)
            # It stopped once the process had gone, not before.
            self.assertIsNotNone(sleeper.poll())
        finally:
            sleeper.wait()
        # The first sample at once, the last after the process exited.
        self.assertGreaterEqual(records(base), 2)
        p = self.mmvlog("capture", "-p", "999999999", os.path.join(self.out, "p2"))
        self.assertEqual(p.returncode, 2, describe(p))

    def test_archive_version(self):
        for v in ("2", "3"):
            base = os.path.join(self.out, "V" + v)
            self.must("capture", "-s", "1", "-V", v, base)
            self.assertEqual(cmdtest.archive_label(base)["version"], int(v))

    def test_mmv_files_before_the_archive(self):
        base = os.path.join(self.out, "f")
        self.must("capture", "--no-dir", self.files.path("alpha"), "-s", "1", base)
        dump = cmdtest.pmdumplog("-m", base)
        self.assertIn("mmv.alpha.", dump)
        self.assertNotIn("mmv.bravo.", dump)

    def test_record_archive_name_with_strftime(self):
        d = os.path.join(self.out, "daily")
        before = datetime.datetime.now()
        self.must("record", "-t", "50msec", "-s", "2", os.path.join(d, "%Y%m%d.%H.%M"))
        after = datetime.datetime.now()
        names = {os.path.basename(b) for b in cmdtest.archive_bases(d)}
        self.assertEqual(len(names), 1, names)
        self.assertIn(names.pop(), {before.strftime("%Y%m%d.%H.%M"), after.strftime("%Y%m%d.%H.%M")})
        # Without conversions the name is used as it is.
        self.must("record", "-t", "50msec", "-s", "2", os.path.join(d, "fixed"))
        self.assertEqual(records(os.path.join(d, "fixed")), 2)

    def test_config_options_as_pmlogger_spells_them(self):
        # -c /dev/null: an empty configuration logs nothing, as pmlogger's;
        # -C without -c is a usage error. Nothing is created either way.
        p = self.mmvlog("capture", "-c", "/dev/null", "-C")
        self.assertEqual(p.returncode, 0, describe(p))
        self.assertEqual(p.stdout, "nothing to log\n")
        p = self.mmvlog("capture", "-C", os.path.join(self.out, "x"))
        self.assertEqual(p.returncode, 2, describe(p))
        self.assertIn("-C checks the configuration given with -c CONFIG", p.stderr)
        self.assertEqual(os.listdir(self.out), [])

if __name__ == "__main__":
    unittest.main()
