"""Write faults at every call position, on the real binary.

An LD_PRELOAD shim (tests/cmd/fault_shim.c) fails the N-th write-path call
on the archive's files (open for writing, write, fsync/fdatasync, close,
rename), with ENOSPC, EDQUOT and EFBIG, for EVERY position N that a
fault-free run makes (counted by the same shim in a dry run):

  capture -s 20 [-v 7]
                  the fault lasts (a disk that stays full): capture exits 1
                  whenever a call failed, and 0 when none did; stderr says
                  how many of the 20 samples were lost; the samples it
                  reports written are the archive's, no more, no fewer.
  record -s 20 -v 5 --sync
                  the fault clears after three failed calls: record
                  survives (it resumes, after a <mark>), and its last line
                  says how many samples were dropped; written + dropped is
                  every tick, and the archive holds the samples written.

After every run, whatever is left must be an archive that pmlogcheck 6.0.3
(and 7.2, from /opt/pcp7, when built) accepts and pmdumplog reads, or no
archive at all (capture removes one that holds no sample). The MMV files
come from the real libpcp_mmv (tests/pcp/pcp_mmv_writer: v1, v2 and v3
files, several instance domains, string values).

Runs are independent processes in their own directories; a few run at once
(each is mostly asleep between 10 ms ticks).
"""

import concurrent.futures
import errno
import os
import re
import shutil
import subprocess
import unittest

import cmdtest
from cmdtest import MMVLOG, MmvFiles, describe, fresh_dir, run, runfile

SHIM = runfile("tests/cmd/libfault_shim.so")
PCP7_ENV = "/opt/pcp7/env.sh"
ERRNOS = (("ENOSPC", errno.ENOSPC), ("EDQUOT", errno.EDQUOT), ("EFBIG", errno.EFBIG))
SAMPLES = 20
WORKERS = 4

# A result line of plain pmdumplog: "10:00:00.123456  12 metrics" (a <mark>
# reads "<mark>"); the prologue and epilogue hold pmcd.pmlogger.* metrics.
RESULT = re.compile(r"^\d\d:\d\d:\d\d\.\d+\s+\d+ metrics?\s*$", re.M)
LOGUE = re.compile(r"^\s+2\.3\.3 \(pmcd\.pmlogger\.host\):", re.M)
MARK = re.compile(r"<mark>")


def pcp_env():
    """The environment for PCP 6.0.3's tools (no PCP 7 settings)."""
    env = dict(os.environ, PCP_DERIVED_CONFIG="")
    env.pop("PCP_CONF", None)
    return env


def archive_files(base):
    d, stem = os.path.split(base)
    return sorted(f for f in os.listdir(d) if f.startswith(stem + "."))


class Outcome:
    """What one run left, as PCP's tools see it."""

    def __init__(self, base):
        self.base = base
        self.files = archive_files(base)
        self.problems = []
        self.samples = None  # results in the archive, without prologue/epilogue
        self.marks = None
        if not self.files:
            return
        env = pcp_env()
        p = run(["pmlogcheck", base], env=env)
        if p.returncode != 0 or p.stdout.strip() or p.stderr.strip():
            self.problems.append("pmlogcheck 6.0.3: " + describe(p))
        if os.path.exists(PCP7_ENV):
            p = run(["bash", "-c", '. %s && pmlogcheck "$0"' % PCP7_ENV, base], env=env)
            if p.returncode != 0 or p.stdout.strip() or p.stderr.strip():
                self.problems.append("pmlogcheck 7.2: " + describe(p))
        p = run(["pmdumplog", "-a", base], env=env)
        if p.returncode != 0 or p.stderr.strip():
            self.problems.append("pmdumplog -a: " + describe(p))
        p = run(["pmdumplog", base], env=env)
        if p.returncode != 0 or p.stderr.strip():
            self.problems.append("pmdumplog: " + describe(p))
            return
        dump_a = run(["pmdumplog", "-a", base], env=env).stdout
        self.samples = len(RESULT.findall(p.stdout)) - len(LOGUE.findall(dump_a))
        self.marks = len(MARK.findall(p.stdout))


class WriteFaultsTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.root = fresh_dir("write_faults")
        cls.mmv = MmvFiles(os.path.join(cls.root, "pcp"),
                           files=(("alpha", "v1", 0, 0), ("bravo", "v2", 11, 0),
                                  ("charlie", "v3", 12, 0)))

    def mmvlog(self, name, args, at=0, err=0, lasting=0):
        """Runs mmvlog with the shim in a fresh directory: (process, base, calls log)."""
        d = fresh_dir(os.path.join("write_faults", "runs", name))
        base = os.path.join(d, "arch")
        log = os.path.join(d, "calls")
        env = dict(self.mmv.env, LD_PRELOAD=SHIM, FAULT_SHIM_PREFIX=base, FAULT_SHIM_LOG=log,
                   FAULT_SHIM_AT=str(at), FAULT_SHIM_ERRNO=str(err), FAULT_SHIM_FOR=str(lasting))
        # Under ASan the shim comes before the sanitizer's runtime.
        env["ASAN_OPTIONS"] = ":".join(
            o for o in (os.environ.get("ASAN_OPTIONS", ""), "verify_asan_link_order=0") if o)
        p = run([MMVLOG] + args + ["--mmv-dir", self.mmv.mmv_dir, base], env=env, timeout=60)
        calls = []
        if os.path.exists(log):
            with open(log) as f:
                calls = [l.split() for l in f.read().splitlines()]
        return p, base, calls

    def dry_run(self, args):
        p, _, calls = self.mmvlog("dry", args)
        self.assertEqual(p.returncode, 0, describe(p))
        kinds = {c[1] for c in calls}
        # Every kind of call the brief names is among the positions.
        for kind in ("open", "write", "close"):
            self.assertIn(kind, kinds)
        return len(calls)

    def sweep(self, name, args, lasting, judge):
        """Runs `args` failing each call position with each errno; judge(...) -> problems."""
        positions = self.dry_run(args)
        # (Metadata is written in one piece before each record that needs
        # it: a sample describing three files is one write, not one per
        # descriptor, label and instance domain.)
        self.assertGreater(positions, 30, "too few write-path calls to be a test")
        jobs = [(ename, e, n) for ename, e in ERRNOS for n in range(1, positions + 2)]

        def one(job):
            ename, e, n = job
            p, base, calls = self.mmvlog("%s_%s_%d" % (name, ename, n), args, n, e, lasting)
            fired = [c for c in calls if c[-1] == "failed"]
            where = calls[n - 1][1:3] if n <= len(calls) else ["(none)", ""]
            problems = judge(p, Outcome(base), fired)
            shutil.rmtree(os.path.dirname(base), ignore_errors=True)
            return ["%s at call %d of %d (%s %s): %s" % (ename, n, positions, where[0],
                                                       os.path.basename(where[1]), problem)
                    for problem in problems], bool(fired)

        failures, fired_runs = [], 0
        with concurrent.futures.ThreadPoolExecutor(WORKERS) as pool:
            for problems, fired in pool.map(one, jobs):
                failures += problems
                fired_runs += fired
        # The last position of each errno is one past the dry run's: no fault.
        self.assertGreaterEqual(fired_runs, len(ERRNOS) * positions * 9 // 10)
        self.assertEqual(failures, [], "\n".join(failures[:20]) +
                         "\n(%d problems in %d runs)" % (len(failures), len(jobs)))

    def test_capture(self):
        self.capture_sweep([])

    def test_capture_across_volumes(self):
        # Three volumes: a lasting fault at the first write into a.1 or a.2
        # once left an index naming a volume that was not there.
        self.capture_sweep(["-v", "7"])

    def capture_sweep(self, extra):
        args = ["capture", "-s", str(SAMPLES), "-t", "10msec"] + extra

        def judge(p, out, fired):
            problems = list(out.problems)
            summary = re.search(r"archive \S+: (\d+) samples", p.stdout)
            lost = re.search(r"lost (\d+) of (\d+) samples", p.stderr)
            holds = re.search(r" holds (?:the other )?(\d+)(?: samples)?", p.stderr)
            written = int(summary.group(1)) if summary else (
                int(holds.group(1)) if holds else 0)
            if not fired:
                if p.returncode != 0 or written != SAMPLES:
                    problems.append("no fault, yet: " + describe(p))
                return problems
            if p.returncode != 1:
                problems.append("exit %d, want 1 once a write failed\n%s" % (
                    p.returncode, describe(p)))
            if lost:
                if int(lost.group(1)) + written != SAMPLES or int(lost.group(2)) != SAMPLES:
                    problems.append("lost %s of %s, written %d: want %d in all\n%s" % (
                        lost.group(1), lost.group(2), written, SAMPLES, p.stderr))
            elif written != SAMPLES:
                problems.append("%d of %d written, but no loss reported\n%s" % (
                    written, SAMPLES, describe(p)))
            if written == 0:
                if out.files:
                    problems.append("no sample written, yet files left: %s" % out.files)
            elif out.samples != written:
                problems.append("reported %d samples written, the archive holds %s\n%s" % (
                    written, out.samples, describe(p)))
            return problems

        self.sweep("capture" + "".join(extra).replace("-", "_"), args, 0, judge)

    def test_record_resumes(self):
        args = ["record", "-s", str(SAMPLES), "-t", "10msec", "-v", "5", "--sync"]

        def judge(p, out, fired):
            problems = list(out.problems)
            m = re.search(r"stopped(?: on error: .*)?: (\d+) samples, .* (\d+) dropped;", p.stderr)
            if not m:
                return problems + ["no last line with what was dropped\n" + describe(p)]
            written, dropped = int(m.group(1)), int(m.group(2))
            if written + dropped != SAMPLES:
                problems.append("%d written + %d dropped != %d ticks\n%s" % (
                    written, dropped, SAMPLES, p.stderr))
            if not fired and (p.returncode != 0 or dropped):
                problems.append("no fault, yet: " + describe(p))
            if written and out.samples != written:
                problems.append("reported %d samples written, the archive holds %s\n%s" % (
                    written, out.samples, describe(p)))
            if not written and out.files:
                problems.append("no sample written, yet files left: %s" % out.files)
            return problems

        self.sweep("record", args, 3, judge)


if __name__ == "__main__":
    unittest.main()
