"""A recorder killed with SIGKILL at 50 random points: after recovery every
archive passes pmlogcheck and holds every sample completed before the kill.

Setup: three MMV files written by the real libpcp_mmv (pcp_mmv_writer, one
each of v1, v2 and v3); the test itself keeps incrementing one counter in the
v1 file (mmv.app_v1.requests.total, an aligned 8-byte store through the
mapping, as an application does), so it knows every value the file held.

For each of 50 seeded-random kill points, `mmvlog capture` records every
3 ms with a new volume every few samples or kilobytes, archive version 2 or
3, while a fourth MMV file appears at a random moment (metadata written
mid-archive), and is killed with SIGKILL:
  - 12 kills a random 0-1.5 ms after <base>.meta appears (creating the
    archive: labels, then metadata, then the first results);
  - 8 kills 0-0.3 ms after volume N (1-15) appears (a volume switch);
  - 8 kills 3-40 ms after the start; 22 log-uniform 40 ms to 1.5 s after
    volume 0 appears (recording: counted from there, so a slow start, under
    ASan or on a loaded machine, does not move them before the first result).
Then:

  1. before recovery: the complete records are counted by an independent
     framing reader (archive_check.py) and, where it can open the archive,
     by pmdumplog -a (which reads up to the last complete record); the two
     counts must agree. On some trials a torn tail is simulated (the last
     volume cut inside its last record, the index cut inside an entry), as
     power loss or a kill inside a write could leave;
  2. recover_tool runs; then pmlogcheck must exit 0 with no output, the
     records read after recovery (pmdumplog -a and the framing reader) must
     equal the complete records before it, timestamps strictly increase,
     and every recorded value of the counter is one the file held, never
     decreasing;
  3. a second recovery reports nothing and changes no byte (idempotent).

A kill before the first sample completes leaves an archive with no result
(maybe only labels, maybe an empty .meta): there is nothing to lose, and PCP
6.0.3 itself refuses such an archive ("Empty archive log file"), so for
those the test requires only that recovery does no harm and is idempotent,
and counts them in the summary.
"""

import ctypes
import math
import mmap
import os
import random
import shutil
import signal
import struct
import subprocess
import sys
import threading
import time
import unittest

import archive_check
from archive_check import ArchiveScan, Dump, runfile

SEED = 20261122
KILLS = 50
COUNTER = "mmv.app_v1.requests.total"
COUNTER_START = 1234567890123  # what pcp_mmv_writer writes


class Bumper(threading.Thread):
    """Increments the counter in the mapped MMV file until stopped."""

    @staticmethod
    def find(path):
        """The offset of the counter's value: the one place that holds the
        value pcp_mmv_writer wrote."""
        with open(path, "rb") as f:
            data = f.read()
        needle = struct.pack("<Q", COUNTER_START)
        offset = data.find(needle)
        assert offset >= 0 and data.find(needle, offset + 1) < 0, path
        assert offset % 8 == 0, "value not 8-byte aligned"
        return offset

    def __init__(self, path, offset, period):
        super().__init__(daemon=True)
        self.offset = offset
        self.fd = os.open(path, os.O_RDWR)
        self.map = mmap.mmap(self.fd, 0)
        self.cell = ctypes.c_uint64.from_buffer(self.map, self.offset)
        self.period = period
        self.stop_flag = threading.Event()
        self.low = self.cell.value

    def run(self):
        while not self.stop_flag.is_set():
            self.cell.value += 1
            time.sleep(self.period)

    def stop(self):
        self.stop_flag.set()
        self.join()
        return self.cell.value

    def close(self):
        del self.cell
        self.map.close()
        os.close(self.fd)


class CrashTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.mmvlog = runfile("cmd/mmvlog")
        cls.recover = runfile("tests/archiver/recover_tool")
        cls.writer = runfile("tests/pcp/pcp_mmv_writer")
        cls.tmp = os.path.join(os.environ.get("TEST_TMPDIR", "/tmp"), "crash")
        shutil.rmtree(cls.tmp, ignore_errors=True)
        cls.pcp_tmp = os.path.join(cls.tmp, "pcp")
        cls.mmv_dir = os.path.join(cls.pcp_tmp, "mmv")
        os.makedirs(cls.mmv_dir)
        cls.env = dict(os.environ, PCP_TMP_DIR=cls.pcp_tmp)
        cls.logs = os.path.join(cls.tmp, "logs")
        os.makedirs(cls.logs)
        for cluster, mode in ((11, "v1"), (12, "v2"), (13, "v3")):
            cls.write_mmv("app_" + mode, mode, cluster)
        cls.counter_file = os.path.join(cls.mmv_dir, "app_v1")
        cls.counter_offset = Bumper.find(cls.counter_file)

    @classmethod
    def write_mmv(cls, name, mode, cluster):
        p = subprocess.run([cls.writer, name, mode, str(cluster)], env=cls.env,
                           capture_output=True, text=True)
        if p.returncode != 0:
            raise AssertionError("pcp_mmv_writer %s: %s" % (name, p.stderr))

    def kill_plans(self, rng):
        """(trigger, argument, extra seconds). A "time" kill comes `argument`
        seconds after the start; a "file" kill `extra` seconds after the
        archive file with suffix `argument` appears (.meta: the archive is
        being created, labels and metadata written; a volume number: a
        volume switch; volume 0 with a longer `extra`: recording)."""
        plans = [("file", "meta", rng.choice((0, rng.uniform(0, 0.0015)))) for _ in range(12)]
        plans += [("file", str(rng.randint(1, 15)), rng.choice((0, rng.uniform(0, 0.0003))))
                  for _ in range(8)]
        plans += [("time", rng.uniform(0.003, 0.040), 0) for _ in range(8)]
        plans += [("file", "0", math.exp(rng.uniform(math.log(0.040), math.log(1.5))))
                  for _ in range(KILLS - len(plans))]
        rng.shuffle(plans)
        return plans

    def test_sigkill_then_recover(self):
        rng = random.Random(SEED)
        summary = {"kills": 0, "no_files": 0, "no_results": 0, "with_results": 0,
                   "records_before": 0, "records_after": 0, "volumes": 0,
                   "torn_simulated": 0, "recovery_actions": 0,
                   "pmdumplog_opened_before": 0, "max_records": 0, "phases": {},
                   "kill_ms": []}
        began = time.monotonic()
        for i, plan in enumerate(self.kill_plans(rng)):
            with self.subTest(kill=i, plan=plan):
                self.one_kill(i, plan, rng, summary)
        summary["seconds"] = round(time.monotonic() - began, 1)
        kill_ms = sorted(summary.pop("kill_ms"))
        summary["kill_ms_min_median_max"] = (kill_ms[0], kill_ms[len(kill_ms) // 2], kill_ms[-1])
        sys.stderr.write("crash_test summary: %s\n" % summary)
        self.assertEqual(summary["kills"], KILLS)
        # The spread reached both ends: kills before any result, and kills
        # after many volumes.
        self.assertGreater(summary["with_results"], KILLS // 2)

    def one_kill(self, i, plan, rng, summary):
        base = os.path.join(self.tmp, "k%02d" % i)
        trigger, argument, extra = plan
        version = rng.choice(("2", "3"))
        if trigger == "file" and argument not in ("meta", "0"):
            volume = ["-v", str(rng.randint(1, 3))]
        elif rng.random() < 0.5:
            volume = ["-v", str(rng.randint(1, 6))]
        else:
            volume = ["-v", rng.choice(("2K", "4K", "8K"))]
        late_mode = rng.choice(("v1", "v2", "v3"))
        late_at = rng.uniform(0, argument if trigger == "time" else
                              extra if argument == "0" else 0.02)
        tear = rng.random() < 0.3
        late_name = "late_%02d" % i

        bumper = Bumper(self.counter_file, self.counter_offset, 0.0003)
        bumper.start()
        log_path = os.path.join(self.logs, "k%02d.log" % i)
        with open(log_path, "w") as log:
            proc = subprocess.Popen(
                [self.mmvlog, "capture", "-o", base, "--mmv-dir", self.mmv_dir,
                 "--interval", "3msec", "-T", "60sec",
                 "--archive-version", version] + volume,
                stdout=log, stderr=log, env=self.env)
            start = time.monotonic()
            late = None
            kill_at = start + argument if trigger == "time" else None
            watch = base + "." + argument if trigger == "file" else None
            while True:
                now = time.monotonic()
                if late is None and now >= start + late_at:
                    late = subprocess.Popen([self.writer, late_name, late_mode, str(20 + i)],
                                            env=self.env, stdout=subprocess.DEVNULL)
                if kill_at is None and (os.path.exists(watch) or now > start + 3):
                    kill_at = now + extra
                if kill_at is not None and now >= kill_at:
                    break
                if kill_at is not None and kill_at - now > 0.002:
                    time.sleep(min(kill_at - now - 0.001, start + late_at - now
                                   if late is None else 1.0))
            proc.send_signal(signal.SIGKILL)
            actual = time.monotonic() - start
            proc.wait()
            if late is None:
                late = subprocess.Popen([self.writer, late_name, late_mode, str(20 + i)],
                                        env=self.env, stdout=subprocess.DEVNULL)
            self.assertEqual(late.wait(), 0, "pcp_mmv_writer " + late_name)
        high = bumper.stop()
        bumper.close()
        os.unlink(os.path.join(self.mmv_dir, late_name))
        summary["kills"] += 1
        summary["kill_ms"].append(round(actual * 1000, 1))
        with open(log_path) as f:
            log_text = f.read()
        self.assertEqual(proc.returncode, -signal.SIGKILL,
                         "capture ended by itself before the kill:\n" + log_text)
        what = "kill %d at %.1f ms, %s (v%s, %s)" % (i, actual * 1000, plan, version, " ".join(volume))

        before = ArchiveScan(base)
        if not before.files:
            summary["no_files"] += 1  # killed before it created anything
            return
        self.assertEqual(before.problems, [], what)
        phase = self.phase(before)
        summary["phases"][phase] = summary["phases"].get(phase, 0) + 1
        what += " [%s]" % phase
        if tear:
            self.simulate_torn_tail(before, rng)
            summary["torn_simulated"] += 1
            before = ArchiveScan(base)
        n_before = len(before.records)
        dump_before = Dump(base)
        if dump_before.opened():
            summary["pmdumplog_opened_before"] += 1
            self.assertEqual(len(dump_before.records), n_before,
                             "%s: pmdumplog -a read %d records, framing says %d\n%s" % (
                                 what, len(dump_before.records), n_before,
                                 dump_before.stderr))
        elif n_before:
            self.fail("%s: pmdumplog cannot open an archive with %d complete records: %s"
                      % (what, n_before, dump_before.stderr))

        rec = subprocess.run([self.recover, base], capture_output=True, text=True)
        meta = before.files.get("meta")
        if meta is None or meta.label_version() is None:
            # No complete .meta label: killed while creating the archive, so
            # nothing complete was there to lose (results come after the
            # label); recovery removes the debris.
            self.assertEqual(n_before, 0, what)
            self.assertEqual(rec.returncode, 0, "%s: %s" % (what, rec.stderr))
            self.assertIn("removed its files", rec.stdout, what)
            self.assertFalse([f for f in os.listdir(os.path.dirname(base))
                              if f.startswith(os.path.basename(base) + ".")], what)
            sys.stderr.write("%s: no .meta label; recovery: %s\n" % (what, rec.stdout.strip()))
            summary["no_results"] += 1
            return
        self.assertEqual(rec.returncode, 0, "%s: recover_tool: %s%s" % (
            what, rec.stdout, rec.stderr))
        if not os.path.exists(base + ".meta"):
            # Nothing was recorded at all (only the .meta label): removed.
            self.assertEqual(n_before, 0, what)
            self.assertIn("removed the empty archive", rec.stdout, what)
            self.assertFalse([f for f in os.listdir(os.path.dirname(base))
                              if f.startswith(os.path.basename(base) + ".")], what)
            summary["no_results"] += 1
            return
        summary["recovery_actions"] += len(rec.stdout.splitlines())
        sys.stderr.write("%s: %d complete records; recovery: %s\n" % (
            what, n_before, "; ".join(l.rsplit("/", 1)[-1] for l in rec.stdout.splitlines())
            or "nothing to do"))
        after = ArchiveScan(base)
        self.assertEqual(after.problems, [], what)
        self.assertEqual(after.torn(), {}, "%s: torn tails left: %s" % (what, after.torn()))
        self.assertEqual(after.extra, [], "%s: stray files" % what)

        # Idempotent: a second recovery finds nothing to do.
        digest = archive_check.digest(base)
        rec2 = subprocess.run([self.recover, base], capture_output=True, text=True)
        self.assertEqual((rec2.returncode, rec2.stdout, rec2.stderr), (0, "", ""),
                         "%s: second recovery" % what)
        self.assertEqual(archive_check.digest(base), digest, "%s: second recovery changed files" % what)

        if n_before == 0:
            # Killed before the first result: with metadata, recovery adds
            # one <mark> at the start time so PCP can open the archive at
            # all; with nothing recorded at all, it removes the files.
            summary["no_results"] += 1
            if not os.path.exists(base + ".meta"):
                self.assertIn("removed", rec.stdout, what)
                self.assertFalse([f for f in os.listdir(os.path.dirname(base))
                                  if f.startswith(os.path.basename(base) + ".")], what)
                return
            self.assertEqual([r.mark for r in after.records], [True], what)
            rc, out = archive_check.pmlogcheck(base)
            self.assertEqual((rc, out), (0, ""), "%s: pmlogcheck after recovery" % what)
            return

        summary["with_results"] += 1
        summary["records_before"] += n_before
        summary["max_records"] = max(summary["max_records"], n_before)
        summary["volumes"] += len(after.volumes)
        rc, out = archive_check.pmlogcheck(base)
        self.assertEqual((rc, out), (0, ""), "%s: pmlogcheck after recovery" % what)
        # Nothing complete lost, nothing added.
        self.assertEqual([r.stamp for r in after.records],
                         [r.stamp for r in before.records], what)
        dump = Dump(base)
        self.assertEqual(dump.rc, 0, "%s: pmdumplog -a: %s" % (what, dump.stderr))
        self.assertEqual(len(dump.records), n_before, what)
        summary["records_after"] += len(dump.records)
        self.assertEqual(archive_check.time_order_problems(after.records), [], what)
        # Counter values: each one the file held at some point, never going
        # backwards.
        values = [int(v[COUNTER]) for v in dump.values if COUNTER in v]
        self.assertEqual(len(values), len(after.results), what)
        self.assertEqual(values, sorted(values), "%s: counter went backwards" % what)
        if values:
            self.assertGreaterEqual(values[0], bumper.low, what)
            self.assertLessEqual(values[-1], high, what)

    def test_new_volume_before_first_result(self):
        """SIGHUP (new volume) before anything was recorded must not leave
        an empty volume in front: PCP cannot open an archive whose first
        volume holds no record ("Empty archive log file")."""
        pcp_tmp = os.path.join(self.tmp, "pcp_hup")
        mmv_dir = os.path.join(pcp_tmp, "mmv")
        os.makedirs(mmv_dir)
        base = os.path.join(self.tmp, "hup")
        proc = subprocess.Popen(
            [self.mmvlog, "capture", "-o", base, "--mmv-dir", mmv_dir, "--interval", "20msec",
             "-T", "60sec"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 10
            while not os.path.exists(base + ".0") and time.monotonic() < deadline:
                time.sleep(0.01)
            for _ in range(2):
                time.sleep(0.1)
                proc.send_signal(signal.SIGHUP)
            time.sleep(0.1)
            p = subprocess.run([self.writer, "app", "v1"], capture_output=True, text=True,
                               env=dict(os.environ, PCP_TMP_DIR=pcp_tmp))
            self.assertEqual(p.returncode, 0, p.stderr)
            time.sleep(0.2)
            proc.send_signal(signal.SIGHUP)  # after results: a real new volume
            time.sleep(0.2)
        finally:
            proc.send_signal(signal.SIGTERM)
            _, err = proc.communicate(timeout=10)
        self.assertEqual(proc.returncode, 0, err)
        rc, out = archive_check.pmlogcheck(base)
        self.assertEqual((rc, out), (0, ""))
        scan = ArchiveScan(base)
        self.assertEqual(scan.volumes, [0, 1])
        self.assertGreater(len(scan.results), 0)

    @staticmethod
    def phase(scan):
        """Where the kill landed, from what it left."""
        meta = scan.files.get("meta")
        if meta is None or meta.label_version() is None:
            return "creating .meta"
        if "index" not in scan.files or scan.files["index"].label_version() is None:
            return "creating .index"
        if not scan.volumes or scan.files[str(scan.volumes[0])].label_version() is None:
            return "creating .0"
        if not scan.records:
            return "metadata before the first result"
        last = scan.files[str(scan.volumes[-1])]
        if len(scan.volumes) > 1 and (last.label_version() is None or len(last.records) == 1):
            return "volume switch"
        if any(f.torn for f in scan.files.values()):
            return "torn write"
        return "recording"

    def simulate_torn_tail(self, scan, rng):
        """Cuts the last volume inside its last record (or label), and the
        index inside its last entry: what a write cut short leaves."""
        if scan.volumes:
            f = scan.files[str(scan.volumes[-1])]
            if f.records:
                offset, length, _ = f.records[-1]
                os.truncate(f.path, offset + rng.randint(1, length - 1))
        index = scan.files.get("index")
        if index is not None and len(index.records) and index.size > 140 and rng.random() < 0.5:
            os.truncate(index.path, index.size - rng.randint(1, 8))


if __name__ == "__main__":
    unittest.main()
