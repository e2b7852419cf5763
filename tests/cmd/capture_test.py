"""`mmvlog capture` end to end: one-shot captures as a user types them.

MMV files from the real libpcp_mmv in a private PCP_TMP_DIR/mmv; the
archives are judged by pmlogcheck and pmdumplog. Covered: one sample by
default; --samples/--interval; `-- COMMAND ARGS` records while the command
runs and exits with its status; the summary line on stdout; no progress line
when stderr is not a terminal (and one when it is); bad inputs each give one
clear line on stderr, a non-zero status and leave no file behind.
"""

import os
import pty
import re
import select
import subprocess
import time
import unittest

import cmdtest
from cmdtest import MMVLOG, describe, lines

SCHEDULE = re.compile(r" info: schedule: (\d+) ticks, ([\d.]+)% on time \((\d+) missed, (\d+) late\), "
                      r"lateness p50 \S+ p99 \S+ p99\.9 \S+ max \S+$", re.M)
SUMMARY = re.compile(r"^archive (\S+): (\d+) samples, (\d+) metrics, (\d+) values, (\d+) marks, "
                     r"(\d+) bytes$")


def archive_size(base):
    return sum(os.path.getsize(base + ext) for ext in (".meta", ".index", ".0"))


def result_times(base):
    """Seconds (within the day) of each sample, from pmdumplog -a (not the
    prologue and epilogue: records of pmcd.pmlogger.*)."""
    out = []
    lines = cmdtest.pmdumplog("-a", base).split("\n")
    for i, line in enumerate(lines):
        m = re.match(r"^(\d\d):(\d\d):(\d\d\.\d+) \d+ metrics?$", line)
        if m and not (i + 1 < len(lines) and "(pmcd." in lines[i + 1]):
            out.append(int(m.group(1)) * 3600 + int(m.group(2)) * 60 + float(m.group(3)))
    return out


def snapshot(directory):
    """{name: bytes} of every file in a directory."""
    out = {}
    for name in sorted(os.listdir(directory)):
        path = os.path.join(directory, name)
        if os.path.isfile(path):
            with open(path, "rb") as f:
                out[name] = f.read()
        else:
            out[name] = "<dir>"
    return out


class CaptureTest(unittest.TestCase):

    def setUp(self):
        self.root = cmdtest.fresh_dir(self.id().split(".")[-1])
        self.files = cmdtest.MmvFiles(os.path.join(self.root, "pcp"))
        self.out = os.path.join(self.root, "out")
        os.makedirs(self.out)

    def capture(self, *args, timeout=30):
        # The MMV directory comes from PCP_TMP_DIR, as PCP's own tools find it.
        return cmdtest.run([MMVLOG, "capture"] + list(args), env=self.files.env, timeout=timeout)

    def assert_summary(self, p, base, samples):
        """The one line on stdout, checked against the archive itself."""
        self.assertEqual(len(lines(p.stdout)), 1, describe(p))
        m = SUMMARY.match(p.stdout.strip())
        self.assertIsNotNone(m, describe(p))
        self.assertEqual(m.group(1), base)
        self.assertEqual(int(m.group(2)), samples)
        self.assertEqual(int(m.group(3)), self.files.metrics())
        self.assertEqual(int(m.group(4)), samples * self.files.values())
        self.assertEqual(int(m.group(5)), 0)
        self.assertEqual(int(m.group(6)), archive_size(base))
        # How the schedule held, on stderr: every scheduled sample counted.
        sched = SCHEDULE.search(p.stderr)
        self.assertIsNotNone(sched, describe(p))
        ticks, missed, late = int(sched.group(1)), int(sched.group(3)), int(sched.group(4))
        self.assertLessEqual(ticks - missed, samples, describe(p))
        self.assertGreaterEqual(ticks - missed, samples - 1, describe(p))  # a final sample is not scheduled
        self.assertLessEqual(late, ticks - missed, describe(p))
        rc, check = cmdtest.pmlogcheck(base)
        self.assertEqual(rc, 0, check)
        self.assertEqual(cmdtest.sample_results(base, check), samples, check)
        # pmlogger's prologue and epilogue around them.
        self.assertEqual(cmdtest.logue_records(base), 2)

    def assert_no_progress(self, p):
        self.assertNotIn("\r", p.stderr)
        self.assertNotIn("capturing", p.stderr)
        for line in lines(p.stderr):
            self.assertRegex(line, cmdtest.LOG_LINE)

    # -- what a capture records --------------------------------------------------

    def test_one_sample_by_default(self):
        base = os.path.join(self.out, "one")
        p = self.capture("-o", base)
        self.assertEqual(p.returncode, 0, describe(p))
        self.assert_summary(p, base, samples=1)
        self.assert_no_progress(p)
        self.assertEqual(sorted(os.listdir(self.out)), ["one.0", "one.index", "one.meta"])
        dump = cmdtest.pmdumplog("-a", base)
        self.assertIn("70.1.3 (mmv.alpha.signed32): value -42", dump)
        self.assertIn('inst [5 or "cpu5"] value 300', dump)

    def test_samples_and_interval(self):
        base = os.path.join(self.out, "three")
        p = self.capture("--output", base, "-s", "3", "-t", "200msec")
        self.assertEqual(p.returncode, 0, describe(p))
        self.assert_summary(p, base, samples=3)
        self.assert_no_progress(p)
        # The first sample at once, then one per 200 ms: never before its
        # tick (a loaded machine may take one later, so no upper bound).
        times = result_times(base)
        self.assertEqual(len(times), 3)
        for k, t in enumerate(times):
            self.assertGreaterEqual(t - times[0], k * 0.2 - 1e-6, times)

    def test_duration(self):
        base = os.path.join(self.out, "dur")
        p = self.capture("-o", base, "-T", "0.5sec", "-t", "100msec")
        self.assertEqual(p.returncode, 0, describe(p))
        m = SUMMARY.match(p.stdout.strip())
        self.assertIsNotNone(m, describe(p))
        self.assert_summary(p, base, samples=int(m.group(2)))
        # The ticks of 0.5 s at 100 ms (0, 100, ... 400 or 500 ms): counted
        # whether taken or missed, so a loaded machine changes no count.
        self.assertIn(int(SCHEDULE.search(p.stderr).group(1)), (5, 6), describe(p))

    def test_named_files_only(self):
        base = os.path.join(self.out, "named")
        p = self.capture("-o", base, "--no-dir", self.files.path("alpha"))
        self.assertEqual(p.returncode, 0, describe(p))
        m = SUMMARY.match(p.stdout.strip())
        self.assertIsNotNone(m, describe(p))
        self.assertEqual(int(m.group(3)), len(self.files.info["alpha"]["metrics"]))
        dump = cmdtest.pmdumplog("-a", base)
        self.assertIn("mmv.alpha.", dump)
        self.assertNotIn("mmv.bravo.", dump)

    # -- around a command ------------------------------------------------------------

    def test_command_exit_status_is_returned(self):
        base = os.path.join(self.out, "cmd")
        p = self.capture("-o", base, "--interval", "100msec", "--", "sh", "-c", "sleep 0.5; exit 7")
        self.assertEqual(p.returncode, 7, describe(p))
        m = SUMMARY.match(p.stdout.strip())
        self.assertIsNotNone(m, describe(p))
        samples = int(m.group(2))
        # Every 100 ms while the command ran (at least 0.5 s: at least five
        # ticks, taken or missed), and one when it ended.
        self.assertGreaterEqual(int(SCHEDULE.search(p.stderr).group(1)), 5, describe(p))
        self.assertGreaterEqual(samples, 2)
        self.assert_summary(p, base, samples)
        self.assert_no_progress(p)
        # The last sample is taken once the command has exited.
        times = result_times(base)
        self.assertGreaterEqual(times[-1] - times[0], 0.45)

    def test_command_flags_are_the_commands(self):
        # After "--" everything is the command's, flags included.
        base = os.path.join(self.out, "args")
        p = self.capture("-o", base, "--", "sh", "-c", "exit 0", "--samples", "-o")
        self.assertEqual(p.returncode, 0, describe(p))
        self.assertEqual(SUMMARY.match(p.stdout.strip()).group(1), base)
        p = self.capture("-o", os.path.join(self.out, "ok"), "--", "true")
        self.assertEqual(p.returncode, 0, describe(p))

    def test_command_killed_by_a_signal(self):
        base = os.path.join(self.out, "killed")
        p = self.capture("-o", base, "--interval", "100msec", "--", "sh", "-c", "kill -TERM $$")
        self.assertEqual(p.returncode, 128 + 15, describe(p))
        self.assertIsNotNone(SUMMARY.match(p.stdout.strip()), describe(p))

    def test_command_that_cannot_run(self):
        base = os.path.join(self.out, "nocmd")
        p = self.capture("-o", base, "--", os.path.join(self.root, "no-such-command"))
        self.assertEqual(p.returncode, 127, describe(p))
        self.assertIn("cannot run %s" % os.path.join(self.root, "no-such-command"), p.stderr)

    # -- progress line -------------------------------------------------------------------

    def run_on_terminal(self, args):
        """Runs mmvlog with stderr on a pseudo-terminal: (status, stdout, terminal bytes)."""
        master, slave = pty.openpty()
        proc = subprocess.Popen([MMVLOG] + args, env=self.files.env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=slave)
        os.close(slave)
        tty = b""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(master, 4096)
                except OSError:  # EIO: the other end is closed
                    break
                if not chunk:
                    break
                tty += chunk
            elif proc.poll() is not None:
                break
        os.close(master)
        out = proc.communicate(timeout=30)[0].decode()
        return proc.returncode, out, tty

    def test_progress_line_only_on_a_terminal(self):
        args = ["capture", "-s", "3", "-t", "100msec"]
        piped = cmdtest.run([MMVLOG] + args + ["-o", os.path.join(self.out, "piped")],
                            env=self.files.env)
        self.assertEqual(piped.returncode, 0, describe(piped))
        self.assert_no_progress(piped)
        # The same capture with stderr on a terminal shows it...
        tty_base = os.path.join(self.out, "tty")
        rc, out, tty = self.run_on_terminal(args + ["-o", tty_base])
        self.assertEqual(rc, 0, tty)
        self.assertIsNotNone(SUMMARY.match(out.strip()), out)
        self.assertIn(b"\rcapturing %s: 3 samples" % tty_base.encode(), tty)
        # ...unless --no-progress.
        rc, out, tty = self.run_on_terminal(args + ["-o", tty_base + "2", "--no-progress"])
        self.assertEqual(rc, 0, tty)
        self.assertIsNotNone(SUMMARY.match(out.strip()), out)
        self.assertNotIn(b"capturing", tty)
        self.assertIn(b"info: recording to archive", tty)

    # -- bad input: one line, non-zero, nothing left behind --------------------------------

    def assert_refused(self, args, expect_in, status=None):
        before = snapshot(self.out)
        mmv_before = snapshot(self.files.mmv_dir)
        p = self.capture(*args)
        self.assertNotEqual(p.returncode, 0, describe(p))
        if status is not None:
            self.assertEqual(p.returncode, status, describe(p))
        # What is wrong, and for a bad option where to look.
        self.assertIn(len(lines(p.stderr)), (1, 2), "want one or two lines on stderr:\n" +
                      describe(p))
        self.assertIn(expect_in, p.stderr, describe(p))
        self.assertEqual(p.stdout, "")
        self.assertEqual(snapshot(self.out), before, "files left behind or changed")
        self.assertEqual(snapshot(self.files.mmv_dir), mmv_before)
        return p

    def test_unknown_flag(self):
        self.assert_refused(["-o", os.path.join(self.out, "x"), "--bogus_flag"], "bogus_flag")

    def test_bad_interval(self):
        p = self.assert_refused(["-o", os.path.join(self.out, "x"), "--interval", "10parsecs"],
                                "10parsecs", status=2)
        self.assertIn("mmvlog capture:", p.stderr)

    def test_missing_output(self):
        p = self.assert_refused(["-s", "1"], "-o ARCHIVE", status=2)
        self.assertIn("mmvlog capture:", p.stderr)

    def test_bad_archive_version(self):
        self.assert_refused(["-o", os.path.join(self.out, "x"), "--archive-version", "4"],
                            "bad value '4' for --archive-version", status=2)
        self.assert_refused(["-o", os.path.join(self.out, "x"), "--archive-version", "three"],
                            "'three' for --archive-version")

    def test_bad_samples_and_duration(self):
        self.assert_refused(["-o", os.path.join(self.out, "x"), "-s", "-1"], "-s")
        self.assert_refused(["-o", os.path.join(self.out, "x"), "-T", "soon"], "soon")

    def test_refuses_to_overwrite_an_archive(self):
        base = os.path.join(self.out, "exists")
        first = self.capture("-o", base)
        self.assertEqual(first.returncode, 0, describe(first))
        p = self.assert_refused(["-o", base], "already exists")
        self.assertIn(base, p.stderr)
        rc, check = cmdtest.pmlogcheck(base)
        self.assertEqual(rc, 0, check)
        # Any one file of an archive is enough to refuse, and none is added.
        for ext in (".0", ".index", ".meta"):
            with self.subTest(existing=ext):
                other = os.path.join(self.out, "part" + ext.replace(".", "_"))
                with open(other + ext, "w") as f:
                    f.write("not mine\n")
                self.assert_refused(["-o", other], "already exists")

    def test_unreadable_named_mmv_file(self):
        missing = os.path.join(self.root, "no-such-file")
        self.assert_refused(["-o", os.path.join(self.out, "x"), missing], missing)
        # A directory, and a file that is not an MMV file, named as one.
        self.assert_refused(["-o", os.path.join(self.out, "x"), "--no-dir", self.out], self.out)
        garbage = os.path.join(self.root, "garbage")
        with open(garbage, "w") as f:
            f.write("this is not an MMV file\n")
        self.assert_refused(["-o", os.path.join(self.out, "x"), garbage], garbage)
        self.assert_refused(["-o", os.path.join(self.out, "x"), "--no-dir", garbage], garbage)
        if os.geteuid() != 0:  # root reads a mode-000 file anyway
            secret = os.path.join(self.root, "secret")
            with open(self.files.path("alpha"), "rb") as src, open(secret, "wb") as dst:
                dst.write(src.read())
            os.chmod(secret, 0)
            self.assert_refused(["-o", os.path.join(self.out, "x"), secret], secret)

    def test_nothing_to_record(self):
        # An empty (or missing) MMV directory: no archive PCP could not open.
        empty = os.path.join(self.root, "empty")
        os.makedirs(empty)
        for mmv_dir in (empty, os.path.join(self.root, "missing")):
            with self.subTest(mmv_dir=mmv_dir):
                before = snapshot(self.out)
                p = self.capture("-o", os.path.join(self.out, "x"), "--mmv-dir", mmv_dir)
                self.assertEqual(p.returncode, 1, describe(p))
                self.assertEqual(p.stdout, "")
                self.assertIn("mmvlog capture: nothing recorded: no MMV metrics in %s" % mmv_dir,
                              lines(p.stderr)[-1])
                self.assertEqual(snapshot(self.out), before, "files left behind")
        # Around a command, the command's status is still the one returned.
        p = self.capture("-o", os.path.join(self.out, "x"), "--mmv-dir", empty, "--",
                         "sh", "-c", "exit 3")
        self.assertEqual(p.returncode, 3, describe(p))
        self.assertIn("nothing recorded", p.stderr)
        self.assertEqual(os.listdir(self.out), [])

    def test_output_directory_missing(self):
        where = os.path.join(self.out, "no", "such", "dir", "x")
        self.assert_refused(["-o", where], where)


if __name__ == "__main__":
    unittest.main()
