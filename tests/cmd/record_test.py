"""`mmvlog record` end to end: the daemon as a user (or systemd) runs it.

MMV files written by the real libpcp_mmv into a private PCP_TMP_DIR/mmv are
recorded by the built binary into a temporary archive directory; signals are
real (SIGHUP: a new volume, SIGTERM: close and exit 0); what it wrote is
judged by PCP 6.0.3's pmlogcheck and pmdumplog. Covered:
  - SIGHUP starts a new volume (and says so in the log), SIGTERM closes the
    archive: exit 0, pmlogcheck passes, the final temporal index entry is
    the archive's end
  - the per-directory lock: a second recorder fails with one clear line
  - --pidfile written while running, removed at exit
  - every log line has a time and a level
  - --compress: finished volumes become .N.zst (while recording, too), and
    `zstd -d` gives volumes pmlogcheck accepts
  - a restart into the same directory within the same minute continues the
    same archive, with a <mark> where the gap is
  - the end conditions --samples, --duration, --until
  - bazel/deb/mmvlog.service (the package's unit): its ExecStart command
    line runs as written, with its defaults
"""

import datetime
import os
import re
import shlex
import shutil
import signal
import subprocess
import time
import unittest

import cmdtest
from cmdtest import MMVLOG, describe, lines

UNIT_FILE = cmdtest.runfile("bazel/deb/mmvlog.service")


def wait_for(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError("timed out after %.0f s waiting for %s" % (timeout, what))


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


class Recorder:
    """A `mmvlog record` process with its stderr in a file."""

    def __init__(self, args, env, log_path):
        self.log_path = log_path
        self.log_file = open(log_path, "w")
        self.proc = subprocess.Popen([MMVLOG, "record"] + args, env=env,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=self.log_file)

    def log(self):
        return read(self.log_path)

    def stop(self, sig=signal.SIGTERM, timeout=20):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            self.proc.wait(timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            self.proc.stdout.close()
            self.log_file.close()
        return self.proc.returncode


class RecordTest(unittest.TestCase):

    def setUp(self):
        self.root = cmdtest.fresh_dir(self.id().split(".")[-1])
        self.files = cmdtest.MmvFiles(os.path.join(self.root, "pcp"))
        self.env = self.files.env
        self.recorders = []

    def tearDown(self):
        for r in self.recorders:
            if r.proc.poll() is None:
                r.proc.kill()
                r.proc.wait()

    def start(self, *args, name="record"):
        r = Recorder(list(args), self.env, os.path.join(self.root, name + ".log"))
        self.recorders.append(r)
        return r

    def record(self, *args, timeout=30):
        """Runs `mmvlog record ARGS` to its end."""
        return cmdtest.run([MMVLOG, "record"] + list(args), env=self.env, timeout=timeout)

    def assert_log_lines(self, text):
        got = lines(text)
        self.assertTrue(got, "no log lines")
        for line in got:
            self.assertRegex(line, cmdtest.LOG_LINE, "log line without time and level")

    def assert_archive_ok(self, base, results=None):
        rc, out = cmdtest.pmlogcheck(base)
        self.assertEqual(rc, 0, "pmlogcheck %s:\n%s" % (base, out))
        self.assertIsNotNone(cmdtest.processed_results(out), out)
        # Prologue and epilogue apart: the count is of samples.
        if results is not None:
            self.assertEqual(cmdtest.sample_results(base, out), results, out)
        return cmdtest.sample_results(base, out)

    def assert_final_index_entry(self, base, volumes):
        """The last temporal index entry is the archive's end, as pmlogger writes it."""
        label = cmdtest.archive_label(base)
        index = cmdtest.temporal_index(base)
        self.assertTrue(index, "no temporal index entries")
        when, vol, meta_end, log_end = index[-1]
        self.assertEqual(when, label["ending"], "last index entry is not the end of the archive")
        self.assertEqual(vol, volumes - 1, "last index entry not in the last volume")
        # Where the last record starts, and the metadata written before it.
        self.assertLessEqual(meta_end, os.path.getsize(base + ".meta"))
        self.assertLess(log_end, os.path.getsize("%s.%d" % (base, vol)))
        # Every volume is in the index.
        self.assertEqual(sorted({e[1] for e in index}), list(range(volumes)))

    # -- one recorder through its life: pidfile, lock, SIGHUP, SIGTERM, log ----

    def test_signals_lock_pidfile_and_log(self):
        archive_dir = os.path.join(self.root, "archives")
        pidfile = os.path.join(self.root, "run", "mmvlog.pid")
        os.makedirs(os.path.dirname(pidfile))
        r = self.start("--archive-dir", archive_dir, "--mmv-dir", self.files.mmv_dir,
                       "--interval", "100msec", "--pidfile", pidfile)
        # --pidfile holds our pid while running.
        wait_for(lambda: read(pidfile).strip() == str(r.proc.pid), 20,
                 "pidfile %s with pid %d (log: %s)" % (pidfile, r.proc.pid, r.log()))
        self.assertEqual(read(pidfile), "%d\n" % r.proc.pid)
        bases = wait_for(lambda: cmdtest.archive_bases(archive_dir), 10, "an archive")
        self.assertEqual(len(bases), 1, bases)
        base = bases[0]
        self.assertRegex(os.path.basename(base), r"^\d{8}\.\d\d\.\d\d$")  # YYYYMMDD.HH.MM
        # Samples arrive in volume 0 (about 5 in half a second).
        wait_for(lambda: os.path.exists(base + ".0"), 10, "volume 0")
        time.sleep(0.5)

        # A second recorder on the same directory: one clear line, non-zero.
        before = sorted(os.listdir(archive_dir))
        second = self.record("--archive-dir", archive_dir, "--mmv-dir", self.files.mmv_dir,
                             "--interval", "100msec", "--pidfile", pidfile + ".2")
        self.assertNotEqual(second.returncode, 0, describe(second))
        self.assertEqual(len(lines(second.stderr)), 1, describe(second))
        self.assertIn("another mmvlog record (pid %d) is writing to %s" % (r.proc.pid, archive_dir),
                      second.stderr)
        self.assertEqual(second.stdout, "")
        self.assertEqual(sorted(os.listdir(archive_dir)), before)
        self.assertFalse(os.path.exists(pidfile + ".2"))
        self.assertEqual(read(pidfile), "%d\n" % r.proc.pid)
        self.assertIsNone(r.proc.poll(), "the first recorder died: " + r.log())

        # SIGHUP: a new volume, and a log line saying so.
        r.proc.send_signal(signal.SIGHUP)
        wait_for(lambda: "SIGHUP: new volume" in r.log(), 10, "the SIGHUP log line")
        wait_for(lambda: os.path.exists(base + ".1"), 10, "volume 1")
        time.sleep(0.5)
        self.assertIsNone(r.proc.poll(), r.log())
        self.assertFalse(os.path.exists(base + ".2"))

        # SIGTERM: the archive is closed and the exit status is 0.
        self.assertEqual(r.stop(signal.SIGTERM), 0, r.log())
        self.assertFalse(os.path.exists(pidfile), "pidfile left behind")
        log = r.log()
        self.assert_log_lines(log)
        m = re.search(r" info: stopped: (\d+) samples, \d+ values, 0 marks, .*; last archive (\S+)$",
                      lines(log)[-1])
        self.assertIsNotNone(m, log)
        self.assertEqual(m.group(2), base)
        samples = int(m.group(1))
        self.assertGreaterEqual(samples, 6, log)
        sched = re.search(r" info: schedule: (\d+) ticks, [\d.]+% on time \((\d+) missed, \d+ late\), "
                          r"lateness p50 \S+ p99 \S+ p99\.9 \S+ max \S+$", lines(log)[-2])
        self.assertIsNotNone(sched, log)
        self.assertEqual(int(sched.group(1)) - int(sched.group(2)), samples, log)
        self.assert_archive_ok(base, results=samples)
        self.assert_final_index_entry(base, volumes=2)
        self.assertEqual(cmdtest.archive_label(base)["version"], 3)

        # The lock is free again: a new recorder in the same directory runs.
        third = self.record("--archive-dir", archive_dir, "--mmv-dir", self.files.mmv_dir,
                            "--interval", "100msec", "-s", "1", "--archive-name", "again")
        self.assertEqual(third.returncode, 0, describe(third))
        self.assert_archive_ok(os.path.join(archive_dir, "again"), results=1)

    def test_sigint_also_closes_the_archive(self):
        archive_dir = os.path.join(self.root, "archives")
        r = self.start("--archive-dir", archive_dir, "--mmv-dir", self.files.mmv_dir,
                       "--interval", "100msec", "--archive-name", "int")
        base = os.path.join(archive_dir, "int")
        wait_for(lambda: os.path.exists(base + ".0"), 20, "volume 0")
        time.sleep(0.5)
        self.assertEqual(r.stop(signal.SIGINT), 0, r.log())
        self.assert_archive_ok(base)
        self.assert_final_index_entry(base, volumes=1)

    # -- --compress -------------------------------------------------------------

    def test_compress_finished_volumes(self):
        archive_dir = os.path.join(self.root, "archives")
        r = self.start("--archive-dir", archive_dir, "--mmv-dir", self.files.mmv_dir,
                       "--interval", "100msec", "--compress=zstd", "--archive-name", "z")
        base = os.path.join(archive_dir, "z")
        wait_for(lambda: os.path.exists(base + ".0"), 20, "volume 0")
        time.sleep(0.3)
        r.proc.send_signal(signal.SIGHUP)
        # Volume 0 is finished: compressed while the recorder goes on in volume 1.
        wait_for(lambda: os.path.exists(base + ".0.zst") and not os.path.exists(base + ".0"), 20,
                 "z.0.zst in place of z.0 (log: %s)" % r.log())
        self.assertTrue(os.path.exists(base + ".1"))
        self.assertFalse(os.path.exists(base + ".1.zst"))
        self.assertIsNone(r.proc.poll(), r.log())
        r.proc.send_signal(signal.SIGHUP)
        wait_for(lambda: os.path.exists(base + ".1.zst"), 20, "z.1.zst")
        wait_for(lambda: os.path.exists(base + ".2"), 20, "volume 2")
        time.sleep(0.3)
        self.assertEqual(r.stop(signal.SIGTERM), 0, r.log())
        self.assert_log_lines(r.log())
        # At exit every volume is finished, so every one is compressed; the
        # metadata and the index are not (as pmlogger_daily -x leaves them).
        names = sorted(os.listdir(archive_dir))
        self.assertEqual([n for n in names if n.startswith("z.")],
                         ["z.0.zst", "z.1.zst", "z.2.zst", "z.index", "z.meta"])
        for n in range(3):
            self.assertIn("compressed %s.%d to %s.%d.zst" % (base, n, base, n), r.log())
        # zstd -d gives volumes PCP 6.0.3 (which cannot read .zst) accepts.
        plain = os.path.join(self.root, "decompressed")
        os.makedirs(plain)
        for n in names:
            if n.startswith("z."):
                shutil.copy(os.path.join(archive_dir, n), plain)
        for n in range(3):
            p = cmdtest.run(["zstd", "-q", "-d", "--rm", os.path.join(plain, "z.%d.zst" % n)])
            self.assertEqual(p.returncode, 0, describe(p))
        self.assertEqual(sorted(os.listdir(plain)), ["z.0", "z.1", "z.2", "z.index", "z.meta"])
        self.assert_archive_ok(os.path.join(plain, "z"))
        self.assert_final_index_entry(os.path.join(plain, "z"), volumes=3)

    # -- a restart continues the archive ------------------------------------------

    def test_restart_within_the_minute_resumes_the_archive(self):
        # Archives are named by the minute they start in: both runs must fall
        # in the same one.
        now = datetime.datetime.now()
        if now.second >= 45:
            time.sleep(60.5 - now.second - now.microsecond / 1e6)
        archive_dir = os.path.join(self.root, "archives")
        args = ["--archive-dir", archive_dir, "--mmv-dir", self.files.mmv_dir,
                "--interval", "100msec", "-s", "3"]
        first = self.record(*args)
        self.assertEqual(first.returncode, 0, describe(first))
        bases = cmdtest.archive_bases(archive_dir)
        self.assertEqual(len(bases), 1)
        base = bases[0]
        self.assertIn("recording to archive %s" % base, first.stderr)
        self.assert_archive_ok(base, results=3)

        second = self.record(*args)
        self.assertEqual(second.returncode, 0, describe(second))
        self.assert_log_lines(second.stderr)
        self.assertEqual(cmdtest.archive_bases(archive_dir), [base], "a new archive was started")
        self.assertIn("continuing archive %s in volume 1" % base, second.stderr)
        self.assertIn("1 marks", lines(second.stderr)[-1])
        self.assertTrue(os.path.exists(base + ".1"))
        self.assert_archive_ok(base)
        dump = cmdtest.pmdumplog("-a", base)
        marks = re.findall(r"^\d\d:\d\d:\d\d\.\d+\s+<mark>$", dump, re.M)
        self.assertEqual(len(marks), 1, dump)
        results = re.findall(r"^\d\d:\d\d:\d\d\.\d+ \d+ metrics?$", dump, re.M)
        # Samples: not the prologue (first run) and the two epilogues.
        self.assertEqual(cmdtest.logue_records(base), 3, dump)
        self.assertEqual(len(results) - 3, 6, dump)
        # The mark is between the runs: after the prologue, the first three
        # results and the epilogue.
        order = re.findall(r"^\d\d:\d\d:\d\d\.\d+\s+(<mark>|\d+ metric)", dump, re.M)
        self.assertEqual(order.index("<mark>"), 5, order)
        self.assert_final_index_entry(base, volumes=2)

    # -- end conditions ------------------------------------------------------------

    def test_samples_ends_the_recording(self):
        archive_dir = os.path.join(self.root, "archives")
        p = self.record("--archive-dir", archive_dir, "--mmv-dir", self.files.mmv_dir,
                        "--interval", "100msec", "-s", "4", "--archive-name", "s")
        self.assertEqual(p.returncode, 0, describe(p))
        self.assert_log_lines(p.stderr)
        self.assertRegex(lines(p.stderr)[-1], r"stopped: 4 samples, %d values, 0 marks"
                         % (4 * self.files.values()))
        self.assert_archive_ok(os.path.join(archive_dir, "s"), results=4)

    def test_duration_ends_the_recording(self):
        archive_dir = os.path.join(self.root, "archives")
        t0 = time.monotonic()
        p = self.record("--archive-dir", archive_dir, "--mmv-dir", self.files.mmv_dir,
                        "--interval", "100msec", "-T", "1sec", "--archive-name", "d")
        took = time.monotonic() - t0
        self.assertEqual(p.returncode, 0, describe(p))
        self.assertGreaterEqual(took, 0.85)  # never stops early (load only delays)
        results = self.assert_archive_ok(os.path.join(archive_dir, "d"))
        # The ticks at 0, 0.1, ... 0.9 or 1.0 s, counted whether taken or
        # missed (a loaded machine changes no count), each taken one written.
        ticks = re.search(r"schedule: (\d+) ticks, .*\((\d+) missed", p.stderr)
        self.assertIsNotNone(ticks, describe(p))
        self.assertIn(int(ticks.group(1)), (10, 11), describe(p))
        self.assertEqual(results, int(ticks.group(1)) - int(ticks.group(2)), describe(p))

    def test_finish_time_ends_the_recording(self):
        archive_dir = os.path.join(self.root, "archives")
        # Whole seconds: at least 1.5 s ahead.
        until = datetime.datetime.now().replace(microsecond=0) + datetime.timedelta(seconds=3)
        # PCP's -T @datetime forms (PCPIntro(1) TIME WINDOW SPECIFICATION).
        for form, fmt in (("date", "@%Y-%m-%d %H:%M:%S"), ("time of day", "@%H:%M:%S")):
            with self.subTest(form=form):
                text = until.strftime(fmt)
                name = form.replace(" ", "_")
                p = self.record("--archive-dir", archive_dir, "--mmv-dir", self.files.mmv_dir,
                                "--interval", "100msec", "-T", text, "--archive-name", name)
                done = datetime.datetime.now()
                self.assertEqual(p.returncode, 0, describe(p))
                # Never stops early (load only delays; the run's timeout
                # catches one that does not stop).
                self.assertGreaterEqual(done, until - datetime.timedelta(seconds=0.2))
                self.assert_archive_ok(os.path.join(archive_dir, name))
                until = max(until, datetime.datetime.now().replace(microsecond=0)) + \
                    datetime.timedelta(seconds=2)
        p = self.record("--archive-dir", archive_dir, "-T", "25:99")
        self.assertEqual(p.returncode, 2, describe(p))
        self.assertEqual(len(lines(p.stderr)), 1, describe(p))
        self.assertIn("-T", p.stderr)
        self.assertIn("25:99", p.stderr)

    # -- the systemd unit in docs/ -----------------------------------------------

    def test_systemd_unit_execstart_runs(self):
        env_defaults, exec_start = parse_unit(UNIT_FILE)
        for name in ("MMVLOG_INTERVAL", "MMVLOG_COMPRESS", "MMVLOG_RETAIN_AGE",
                     "MMVLOG_SPACELIMIT", "MMVLOG_OPTIONS"):
            self.assertIn(name, env_defaults)
        archive_dir = os.path.join(self.root, "var", "log", "pcp", "mmvlog", "host")
        # A drop-in's MMVLOG_OPTIONS: the test's directories.
        variables = dict(env_defaults, MMVLOG_OPTIONS="--archive-dir=%s --mmv-dir=%s" % (
            archive_dir, self.files.mmv_dir))
        argv = systemd_command_line(exec_start, variables)
        self.assertTrue(os.path.basename(argv[0]) == "mmvlog" and argv[1] == "record", argv)
        self.assertIn("--archive-dir=" + archive_dir, argv)
        argv = [MMVLOG] + argv[1:] + ["-s", "2"]
        # The unit's interval (10 s) is kept: two samples take 10 s.
        p = cmdtest.run(argv, env=self.env, timeout=50)
        self.assertEqual(p.returncode, 0, "%s\n%s" % (argv, describe(p)))
        self.assert_log_lines(p.stderr)
        bases = cmdtest.archive_bases(archive_dir)
        self.assertEqual(len(bases), 1, os.listdir(archive_dir))
        self.assertIn("stopped: 2 samples", lines(p.stderr)[-1])
        # --compress=auto: what the PCP here reads (6.0.3: xz).
        self.assertTrue(os.path.exists(bases[0] + ".0.xz"), os.listdir(archive_dir))
        self.assertTrue(os.path.exists(bases[0] + ".index"))
        # And the unit file itself is valid for systemd, with our binary in it.
        analyze = shutil.which("systemd-analyze")
        if analyze:
            unit = os.path.join(self.root, "mmvlog.service")
            with open(UNIT_FILE) as f:
                text = f.read()
            with open(unit, "w") as f:
                # Not installed here: verify would look for mmvlog(1) in
                # man's path (tests/pcp:deb_package_test verifies it installed).
                text = re.sub(r"(?m)^Documentation=.*$", "", text)
                f.write(text.replace(exec_start.split()[0], MMVLOG))
            v = cmdtest.run([analyze, "verify", unit])
            self.assertEqual(v.returncode, 0, describe(v))

def parse_unit(path):
    """({variable: value} from Environment=, the ExecStart= command line)."""
    env, exec_start, section = {}, None, None
    with open(path) as f:
        text = f.read().replace("\\\n", " ")
    for line in text.split("\n"):
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line
            continue
        if section != "[Service]" or "=" not in line:
            continue
        key, value = line.split("=", 1)
        if key == "Environment":
            for assignment in shlex.split(value):
                name, _, v = assignment.partition("=")
                env[name] = v
        elif key == "ExecStart":
            if exec_start is not None:
                raise AssertionError("more than one ExecStart= in %s" % path)
            exec_start = value
    if exec_start is None:
        raise AssertionError("no ExecStart= in [Service] of %s" % path)
    return env, exec_start


def systemd_command_line(line, variables):
    """ExecStart= as systemd runs it: ${VAR} and $VAR expanded, then split."""
    if line[:1] in "@-:+!":
        raise AssertionError("ExecStart prefixes are not handled: %s" % line)

    def expand(m):
        name = m.group(1) or m.group(2)
        if name not in variables:
            raise AssertionError("ExecStart uses $%s, which the unit does not set" % name)
        return variables[name]

    return shlex.split(re.sub(r"\$\{(\w+)\}|\$(\w+)", expand, line))


if __name__ == "__main__":
    unittest.main()
