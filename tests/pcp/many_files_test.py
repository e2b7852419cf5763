"""A host full of applications (issue 32): hundreds of MMV files written by
the real libpcp_mmv (tests/pcp/pcp_mmv_many_writer.c), recorded by mmvlog
beside PCP's own recorder, `pmlogger -o` (6.0.3: the MMV PMDA as a DSO, no
pmcd), on the same directory.

- System calls: a tick over 1, 200 or 1,000 files holding the same 10,000
  values makes the same calls (strace -c of a 70-sample capture less a
  20-sample one, per tick): no stat of each file, one write of the record.
- Descriptors: 1,000 files under a soft limit of 256 open files are all
  recorded (the recorder takes its hard limit).
- Churn while 200 files are recorded: an application that starts, one that
  stops (its file removed), one that restarts (libpcp_mmv makes a new file,
  a new generation): the same metrics as pmlogger's archive, the same
  sequence of which applications are present (two recorders sampling apart
  see a change at the same record or one later), every one of the 200
  files in every record, and mmvlog's <mark>s (pmlogger writes none) where
  the gone file's counters stop and the restarted file's start again, each
  change logged once.
- A file cut short in place while mapped (a hostile writer; pmdammv 6.0.3
  dies of SIGBUS on it, shared/notes/PCP-BEHAVIOUR.md section 1.10, so
  mmvlog alone): never a value read past its end (the writer's values are
  never 0), the others recorded in every record, a <mark> where it left and
  where it came back.
"""

import os
import re
import resource
import shutil
import signal
import subprocess
import time
import unittest

import pcp_stack

RUNFILES = os.path.join(os.environ["TEST_SRCDIR"], "mmvlog")
MMVLOG = os.path.join(RUNFILES, "cmd/mmvlog")
WRITER = os.path.join(RUNFILES, "tests/pcp/pcp_mmv_many_writer")


def no_leak_check(env):
    """`env` with LeakSanitizer off (under the ASan build): it cannot run
    under strace (ptrace), and the writer leaves libpcp_mmv's registries to
    the exit."""
    env["ASAN_OPTIONS"] = ":".join(filter(None, [env.get("ASAN_OPTIONS"), "detect_leaks=0"]))
    return env


def start_writer(pcp_tmp, prefix, files, values, update_ms=1000, cluster=1):
    """The writer of `files` files PREFIX0 .. of `values` values each; returns
    once they are complete."""
    p = subprocess.Popen([WRITER, prefix, str(files), str(values), str(update_ms), "0",
                          str(cluster)], stdout=subprocess.PIPE, text=True,
                         env=no_leak_check(dict(os.environ, PCP_TMP_DIR=pcp_tmp)))
    p.stdout.readline()
    if p.stdout.readline().strip() != "ready":
        raise AssertionError("pcp_mmv_many_writer %s did not start" % prefix)
    return p


def stop(p):
    if p.poll() is None:
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=30)
    p.stdout.close()


def strace_counts(path):
    """{syscall: calls} from `strace -c -o path`."""
    out = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 5 and parts[-1] != "total" and parts[3].isdigit():
                out[parts[-1]] = int(parts[3])
    return out


def records(base, prefix="mmv."):
    """[(mark, {metric: [values as text]})] of pmdumplog -a, pmcd.* and
    mmv.control.* left out, only the metrics with values."""
    norm = pcp_stack.normalize_dumplog(pcp_stack.dump_archive(base))
    out = []
    for r in norm["records"]:
        # A metric whose application went away stays in pmlogger's records
        # as a set without values (an error or none): not present.
        sets = {s["name"]: [v[2] for v in s["values"]] for s in r["sets"].values()
                if s["name"].startswith(prefix) and s["values"]}
        out.append((r["mark"], sets))
    return out


def app_of(metric):
    """mmv.APP.metric -> APP."""
    return metric.split(".")[1]


def collapse(seq):
    out = []
    for x in seq:
        if not out or out[-1] != x:
            out.append(x)
    return out


class SystemCallsTest(unittest.TestCase):
    """The calls a tick makes do not grow with the number of files."""

    def test_a_tick_makes_the_same_calls_for_1_200_and_1000_files(self):
        root = os.path.join(os.environ["TEST_TMPDIR"], "calls")
        per_tick = {}
        for files in (1, 200, 1000):
            tmp = os.path.join(root, "pcp%d" % files)
            os.makedirs(os.path.join(tmp, "mmv"))
            w = start_writer(tmp, "app", files, 10000 // files)
            try:
                counts = {}
                for n in (20, 70):
                    trace = os.path.join(root, "strace-%d-%d" % (files, n))
                    p = subprocess.run(
                        ["strace", "-f", "-c", "-o", trace, MMVLOG, "capture", "-t", "20msec",
                         "-s", str(n), "--mmv-dir", os.path.join(tmp, "mmv"),
                         os.path.join(root, "a%d-%d" % (files, n))],
                        env=no_leak_check(dict(os.environ, PCP_TMP_DIR=tmp)),
                        capture_output=True, text=True)
                    self.assertEqual(p.returncode, 0, p.stderr)
                    self.assertIn(": %d samples, 1000 metrics, %d values" % (n, n * 10000),
                                  p.stdout)
                    counts[n] = strace_counts(trace)
                per_tick[files] = {k: (counts[70].get(k, 0) - counts[20].get(k, 0)) / 50.0
                                   for k in set(counts[70]) | set(counts[20])}
            finally:
                stop(w)
        for files, calls in per_tick.items():
            with self.subTest(files=files):
                stats = sum(calls.get(k, 0) for k in ("newfstatat", "fstat", "statx", "stat"))
                # One look at the directory a second (two calls): 0.04 a tick.
                self.assertLessEqual(stats, 0.1, calls)
                self.assertLessEqual(calls.get("write", 0), 2.5, calls)
                self.assertLessEqual(calls.get("pread64", 0), 0.1, calls)
                self.assertEqual(calls.get("kill", 0), 0, calls)
                self.assertEqual(calls.get("openat", 0), 0, calls)
                total = sum(calls.values())
                self.assertLessEqual(total, sum(per_tick[1].values()) + 1.0,
                                     "%d files: %s\n1 file: %s" % (files, calls, per_tick[1]))


class DescriptorLimitTest(unittest.TestCase):

    def test_a_thousand_files_under_a_soft_limit_of_256(self):
        root = os.path.join(os.environ["TEST_TMPDIR"], "limit")
        os.makedirs(os.path.join(root, "mmv"))
        w = start_writer(root, "app", 1000, 10)
        try:
            _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
            if hard != resource.RLIM_INFINITY and hard < 4096:
                self.skipTest("hard limit of open files %d: no room for 1,000 files" % hard)

            def low():
                resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))

            base = os.path.join(root, "a")
            p = subprocess.run([MMVLOG, "capture", "-t", "50msec", "-s", "3", "--mmv-dir",
                                os.path.join(root, "mmv"), base], preexec_fn=low,
                               env=dict(os.environ, PCP_TMP_DIR=root), capture_output=True,
                               text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("archive %s: 3 samples, 1000 metrics, 30000 values" % base, p.stdout)
            self.assertNotIn("Too many open files", p.stderr)
            check = subprocess.run(["pmlogcheck", base], capture_output=True, text=True)
            self.assertEqual((check.returncode, check.stdout), (0, ""))
        finally:
            stop(w)


class ChurnTest(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        root = os.path.join(os.environ["TEST_TMPDIR"], "churn")
        shutil.rmtree(root, ignore_errors=True)
        mmv = os.path.join(root, "mmv")
        os.makedirs(mmv)
        cls.root = root
        writers = [start_writer(root, "app", 200, 10)]
        cfg = os.path.join(root, "cfg")
        with open(cfg, "w") as f:
            f.write("log mandatory on every 100 msec { mmv }\n")
        # Not root/pmlogger: pmlogger keeps its control files in the
        # directory $PCP_TMP_DIR/pmlogger.
        cls.bases = {k: os.path.join(root, k + "-archive") for k in ("pmlogger", "mmvlog")}
        env = dict(os.environ, PCP_TMP_DIR=root, PCP_DERIVED_CONFIG="")
        try:
            a = start_writer(root, "churn_a", 1, 10, cluster=301)
            b = start_writer(root, "churn_b", 1, 10, cluster=302)
            writers += [a, b]
            procs = {
                "mmvlog": subprocess.Popen(
                    [MMVLOG, "capture", "-t", "100msec", "-T", "5sec", "--mmv-dir", mmv,
                     "--no-progress", cls.bases["mmvlog"]], env=env, cwd=root,
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True),
                "pmlogger": subprocess.Popen(
                    ["pmlogger", "-o", "-c", cfg, "-T", "5sec", "-l",
                     os.path.join(root, "pmlogger-log.txt"), cls.bases["pmlogger"]], env=env,
                    cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True),
            }
            # The changes, between samples (where each falls is not asserted:
            # the comparison follows them wherever they fall).
            time.sleep(1.2)
            # A new application: pmlogger resolved `mmv` to names when it
            # started and never logs it; pmdammv exports it (pminfo below).
            writers.append(start_writer(root, "churn_c", 1, 10, cluster=303))
            time.sleep(1.0)
            stop(a)  # the application stops; its file goes with it
            os.unlink(os.path.join(mmv, "churn_a0"))
            time.sleep(1.0)
            stop(b)  # restarts: libpcp_mmv removes the old file, makes a new one
            writers.append(start_writer(root, "churn_b", 1, 10, cluster=302))
            cls.pminfo = subprocess.run(
                ["pminfo", "-L", "-f", "mmv.churn_c0"], env=env, capture_output=True,
                text=True).stdout
            cls.outputs = {}
            for k, p in procs.items():
                out, err = p.communicate(timeout=60)
                cls.outputs[k] = out + err
                if p.returncode != 0:
                    raise AssertionError("%s failed: %s" % (k, cls.outputs[k]))
        finally:
            for w in writers:
                stop(w)
        cls.records = {k: records(b) for k, b in cls.bases.items()}

    def test_both_pass_pmlogcheck(self):
        for k, base in self.bases.items():
            with self.subTest(archive=k):
                p = subprocess.run(["pmlogcheck", base], capture_output=True, text=True)
                self.assertEqual((p.returncode, p.stdout), (0, ""))

    def sequence(self, k, apps):
        """Which of `apps` each data record of archive k holds, repeats
        collapsed (two recorders sampling apart see a change at the same
        record or one later)."""
        return collapse([tuple(sorted({app_of(m) for m in sets} & set(apps)))
                         for mark, sets in self.records[k] if not mark and sets])

    def test_the_same_metrics_and_the_same_sequence_of_applications(self):
        names = {k: sorted({m for _, sets in recs for m in sets})
                 for k, recs in self.records.items()}
        self.assertEqual(sorted(set(names["mmvlog"]) - set(names["pmlogger"])),
                         ["mmv.churn_c0.requests0"])
        self.assertEqual(len(names["pmlogger"]), 202)
        both = ("churn_a0", "churn_b0")
        self.assertEqual(self.sequence("mmvlog", both), self.sequence("pmlogger", both))
        self.assertEqual(self.sequence("mmvlog", both), [both, ("churn_b0",)])
        self.assertEqual(self.sequence("mmvlog", both + ("churn_c0",)),
                         [both, both + ("churn_c0",), ("churn_b0", "churn_c0")])

    def test_the_new_application_as_pmdammv_exports_it(self):
        """What mmvlog recorded of churn_c0 is what pmdammv gives (pminfo -L:
        the MMV PMDA as a DSO): its instances, with values of the writer."""
        want = sorted(re.findall(r'inst \[(\d+) or "(w\d+)"\]', self.pminfo))
        self.assertEqual(len(want), 10, self.pminfo)
        norm = pcp_stack.normalize_dumplog(pcp_stack.dump_archive(self.bases["mmvlog"]))
        got = set()
        for r in norm["records"]:
            for s in r["sets"].values():
                if s["name"] == "mmv.churn_c0.requests0":
                    got.add(tuple(sorted((str(i), n.strip('"')) for i, n, _ in s["values"])))
        self.assertEqual(got, {tuple(want)})

    def test_every_one_of_the_200_files_in_every_record(self):
        for k, recs in self.records.items():
            data = [sets for mark, sets in recs if not mark and sets]
            self.assertGreater(len(data), 30, k)
            for n, sets in enumerate(data):
                apps = {app_of(m): v for m, v in sets.items() if not app_of(m).startswith("churn")}
                self.assertEqual(len(apps), 200, "%s record %d" % (k, n))
                self.assertTrue(all(len(v) == 10 for v in apps.values()), "%s %d" % (k, n))

    def test_marks_where_the_counters_stop_and_start_again(self):
        self.assertFalse(any(mark for mark, _ in self.records["pmlogger"]))
        recs = self.records["mmvlog"]
        marks = [n for n, (mark, _) in enumerate(recs) if mark]
        self.assertEqual(len(marks), 2, [sorted({app_of(m) for m in s}) for _, s in recs])
        gone, restarted = marks
        self.assertIn("mmv.churn_a0.requests0", recs[gone - 1][1])
        self.assertNotIn("mmv.churn_a0.requests0", recs[gone + 1][1])
        before = [int(v) for v in recs[restarted - 1][1]["mmv.churn_b0.requests0"]]
        after = [int(v) for v in recs[restarted + 1][1]["mmv.churn_b0.requests0"]]
        # The new generation starts from the writer's first values again.
        self.assertEqual(after[0], 302 * 100000 + 1)
        self.assertGreater(before[0], after[0])
        # Every other record holds churn_b0's counters going up.
        log = self.outputs["mmvlog"]
        self.assertEqual(len(re.findall(r"churn_a0: file is gone", log)), 1, log)


class CutShortTest(unittest.TestCase):

    def test_a_file_cut_short_while_mapped_is_never_read_past_its_end(self):
        root = os.path.join(os.environ["TEST_TMPDIR"], "cut")
        mmv = os.path.join(root, "mmv")
        os.makedirs(mmv)
        writers = [start_writer(root, "app", 200, 10, update_ms=50)]
        try:
            writers.append(start_writer(root, "cut", 1, 10, update_ms=50, cluster=401))
            path = os.path.join(mmv, "cut0")
            with open(path, "rb") as f:
                whole = f.read()
            base = os.path.join(root, "a")
            p = subprocess.Popen([MMVLOG, "capture", "-t", "20msec", "-T", "3sec", "--mmv-dir",
                                  mmv, "--no-progress", base],
                                 env=dict(os.environ, PCP_TMP_DIR=root),
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            time.sleep(1.0)
            # Cut to its header, in place (the same inode, the same
            # generation): the values' page still mapped, read as zeros.
            os.truncate(path, 40)
            time.sleep(0.8)
            with open(path, "r+b") as f:  # put back as it was, in place
                f.write(whole)
            out, err = p.communicate(timeout=60)
            self.assertEqual(p.returncode, 0, err)
        finally:
            for w in writers:
                stop(w)
        recs = records(base)
        present = []
        for mark, sets in recs:
            if mark:
                present.append("mark")
                continue
            self.assertEqual(len({app_of(m) for m in sets if m.startswith("mmv.app")}), 200)
            values = sets.get("mmv.cut0.requests0")
            if values is not None:
                self.assertNotIn("0", values)
                self.assertTrue(all(int(v) > 401 * 100000 for v in values), values)
            present.append(values is not None)
        self.assertEqual(collapse(present), [True, "mark", False, "mark", True], present)
        self.assertEqual(len(re.findall(r"cut0: .*not recorded until it recovers", err)), 1, err)
        self.assertEqual(len(re.findall(r"cut0: readable again", err)), 1, err)
        check = subprocess.run(["pmlogcheck", base], capture_output=True, text=True)
        self.assertEqual((check.returncode, check.stdout), (0, ""))


if __name__ == "__main__":
    unittest.main()
