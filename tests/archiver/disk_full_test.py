"""A disk-full test: `mmvlog capture` records into a 256 KiB tmpfs the test
mounts (as root; a loop-mounted ext2 image if tmpfs cannot be mounted; the
test is skipped, loudly, if neither can).

The test first fills most of the file system with a filler file, then
records every 20 ms (MMV files from the real libpcp_mmv, outside the small
file system) until a write fails with ENOSPC. While the disk is full the
recorder must keep running, log an error naming the file it could not write,
and drop samples (its files stop growing); a new MMV file appears and a
SIGHUP asks for a new volume meanwhile; one error is logged per outage, and
nothing claims the archive is writable while it is not. Then the filler is
deleted: the recorder must say the archive is writable again and continue,
with a <mark> record at the gap. On a clean stop (SIGTERM) capture exits 1 and
says how many samples of how many it lost (those dropped while full), and
the archive must pass
pmlogcheck as it is, without recover_tool (which must then find nothing to
do); the records must be in time order with the mark between the last
result before the gap and the first after it, which is at least the time
the disk was full later, and the new file's metrics must be in the results
after the gap.

Scenarios: v3 and v2 with one volume; small volumes (--volume_samples 3,
--volume_size 6K), so the disk also fills while a volume is started; and
"full before metadata": the archive is created before any MMV file exists,
the disk is filled to the last byte, then the files appear, so the first
write to fail is their metadata in .meta (no result precedes the gap, so no
mark is expected there).

Runs unsandboxed (mount needs the real file system): tags = ["no-sandbox"].
"""

import os
import re
import shutil
import signal
import subprocess
import sys
import time
import unittest

import archive_check
from archive_check import ArchiveScan, Dump, runfile

FS_SIZE_KIB = 256
FILLER_KIB = 192
INTERVAL_MS = 20


def wait_for(predicate, timeout, step=0.01):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    return predicate()


class DiskFullTest(unittest.TestCase):

    def setUp(self):
        self.mmvlog = runfile("cmd/mmvlog")
        self.recover = runfile("tests/archiver/recover_tool")
        self.writer = runfile("tests/pcp/pcp_mmv_writer")
        self.tmp = os.path.join(os.environ.get("TEST_TMPDIR", "/tmp"), self.id().split(".")[-1])
        shutil.rmtree(self.tmp, ignore_errors=True)
        self.pcp_tmp = os.path.join(self.tmp, "pcp")
        self.mmv_dir = os.path.join(self.pcp_tmp, "mmv")
        os.makedirs(self.mmv_dir)
        self.env = dict(os.environ, PCP_TMP_DIR=self.pcp_tmp)
        for cluster, mode in ((11, "v1"), (12, "v2"), (13, "v3")):
            self.write_mmv("app_" + mode, mode, cluster)
        self.mnt = os.path.join(self.tmp, "small")
        os.makedirs(self.mnt)
        self.mounted = False
        self.proc = None
        self.fs_kind = self.mount_small_fs()

    def tearDown(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self.mounted:
            p = subprocess.run(["umount", self.mnt], capture_output=True, text=True)
            if p.returncode != 0:
                subprocess.run(["umount", "-l", self.mnt], capture_output=True)
            self.mounted = False

    def mount_small_fs(self):
        errors = []
        p = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%dk" % FS_SIZE_KIB, "tmpfs",
                            self.mnt], capture_output=True, text=True)
        if p.returncode == 0:
            self.mounted = True
            return "tmpfs"
        errors.append("mount -t tmpfs: " + (p.stderr.strip() or "exit %d" % p.returncode))
        image = os.path.join(self.tmp, "small.img")
        with open(image, "wb") as f:
            f.truncate(FS_SIZE_KIB * 1024)
        p = subprocess.run(["mkfs.ext2", "-q", "-F", "-m", "0", "-b", "1024", image],
                           capture_output=True, text=True)
        if p.returncode == 0:
            p = subprocess.run(["mount", "-o", "loop", image, self.mnt], capture_output=True,
                               text=True)
            if p.returncode == 0:
                self.mounted = True
                return "ext2 loop image"
            errors.append("mount -o loop: " + p.stderr.strip())
        else:
            errors.append("mkfs.ext2: " + p.stderr.strip())
        msg = ("SKIPPED: disk_full_test cannot make a small file system (needs root and "
               "no sandbox): %s" % "; ".join(errors))
        sys.stderr.write("\n" + "!" * 72 + "\n" + msg + "\n" + "!" * 72 + "\n")
        self.skipTest(msg)

    def write_mmv(self, name, mode, cluster):
        p = subprocess.run([self.writer, name, mode, str(cluster)], env=self.env,
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, "pcp_mmv_writer %s: %s" % (name, p.stderr))

    def archive_sizes(self, base):
        out = {}
        for name in os.listdir(self.mnt):
            # An index being rewritten (<base>.index.tmp.PID) comes and goes
            # while the recorder runs: not a file of the archive.
            if name.startswith(os.path.basename(base) + ".") and ".tmp." not in name:
                try:
                    out[name] = os.path.getsize(os.path.join(self.mnt, name))
                except FileNotFoundError:
                    pass
        return out

    def test_v3(self):
        self.full_disk_scenario("3", [])

    def test_v2(self):
        self.full_disk_scenario("2", [])

    def test_v3_small_volumes(self):
        # The disk also fills while starting a volume (every 3 samples).
        self.full_disk_scenario("3", ["-v", "3"])

    def test_v2_volume_size(self):
        self.full_disk_scenario("2", ["-v", "6K"])

    def test_v3_full_before_metadata(self):
        # The archive is created while no MMV file exists; the disk is then
        # filled to the last byte and the MMV files appear: the first write
        # to fail is their metadata, to .meta.
        self.full_disk_scenario("3", [], metadata_first=True)

    def fill_completely(self, path):
        chunk = b"\xff" * 4096
        with open(path, "wb", buffering=0) as f:
            try:
                while True:
                    f.write(chunk)
            except OSError:
                pass

    def full_disk_scenario(self, version, extra_flags, metadata_first=False):
        filler = os.path.join(self.mnt, "filler")
        mmv_dir = self.mmv_dir
        if metadata_first:
            pcp_tmp = os.path.join(self.tmp, "pcp_later")
            mmv_dir = os.path.join(pcp_tmp, "mmv")
            os.makedirs(mmv_dir)
        else:
            with open(filler, "wb") as f:
                f.write(b"\xff" * (FILLER_KIB * 1024))
        base = os.path.join(self.mnt, "arch")
        log_path = os.path.join(self.tmp, "capture.log")
        out_path = os.path.join(self.tmp, "capture.out")
        log = open(log_path, "w")
        out = open(out_path, "w")
        self.proc = subprocess.Popen(
            [self.mmvlog, "capture", "-o", base, "--mmv-dir", mmv_dir,
             "--interval", "%dmsec" % INTERVAL_MS, "-T", "60sec",
             "--archive-version", version] + extra_flags,
            stdout=out, stderr=log, env=self.env)
        if metadata_first:
            # No MMV file yet: the recorder creates no archive until there is
            # something to record, which will be after the disk is full.
            time.sleep(0.3)
            self.assertFalse(os.path.exists(base + ".meta"))
            self.fill_completely(filler)
            # The three files appear together (renamed in from where they
            # were written), so one sample needs all their metadata.
            for mode in ("v1", "v2", "v3"):
                os.rename(os.path.join(self.mmv_dir, "app_" + mode),
                          os.path.join(mmv_dir, "app_" + mode))

        def log_text():
            with open(log_path) as f:
                return f.read()

        enospc = re.compile(r"error: (?:write|create) (\S+?)(?: at offset \d+)?: "
                            r"No space left on device")
        m = wait_for(lambda: enospc.search(log_text()), 20)
        self.assertIsNotNone(m, "the disk never filled up:\n" + log_text())
        full_at = time.monotonic()
        failed_file = m.group(1)
        failed_error = m.group(0)
        self.assertTrue(failed_file.startswith(base + "."),
                        "the error should name the archive file: " + m.group(0))
        if metadata_first:
            self.assertEqual(failed_file, base + ".meta", m.group(0))
        self.assertIsNone(self.proc.poll(), "mmvlog exited when the disk filled:\n" + log_text())

        # While full: keep running, drop samples (no file grows); a new MMV
        # file appears and a new volume is asked for.
        time.sleep(0.1)
        sizes_full = self.archive_sizes(base)
        p = subprocess.run([self.writer, "late_app", "v3", "30"], capture_output=True, text=True,
                           env=dict(self.env, PCP_TMP_DIR=os.path.dirname(mmv_dir)))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.proc.send_signal(signal.SIGHUP)
        time.sleep(0.6)
        self.assertIsNone(self.proc.poll(), "mmvlog exited while the disk was full:\n"
                          + log_text())
        sizes_still_full = self.archive_sizes(base)
        for name, size in sizes_full.items():
            if size == 0 and name not in sizes_still_full:
                # A volume whose creation failed for want of space, seen
                # before the recorder removed it (a slow run, ASan).
                continue
            self.assertEqual(sizes_still_full.get(name), size,
                             "%s changed while the disk was full" % name)
        errors_while_full = [l for l in log_text().splitlines() if " error: " in l]
        # One error per outage, not one per dropped sample.
        self.assertEqual(len(errors_while_full), 1, log_text())

        # Free the space: recording must continue.
        os.unlink(filler)
        freed_at = time.monotonic()
        self.assertNotIn("writable again", log_text(), "said writable while the disk was full")
        again = wait_for(lambda: "writable again" in log_text(), 5)
        self.assertTrue(again, "no 'writable again' after space was freed:\n" + log_text())
        time.sleep(0.5)
        self.assertIsNone(self.proc.poll(), log_text())
        self.proc.send_signal(signal.SIGTERM)
        rc = self.proc.wait(timeout=10)
        log.close()
        out.close()
        with open(out_path) as f:
            summary_line = f.read().strip()
        text = log_text()
        # Samples were lost: a capture that did not get them all says so and
        # fails (the archive it leaves is still whole, below).
        self.assertEqual(rc, 1, "capture: exit %d\n%s\n%s" % (rc, summary_line, text))
        m = re.search(r"(\d+) samples, \d+ metrics, \d+ values, (\d+) marks", summary_line)
        self.assertIsNotNone(m, summary_line)
        samples, marks = int(m.group(1)), int(m.group(2))
        self.assertGreaterEqual(marks, 0 if metadata_first else 1, summary_line)
        m = re.search(r"writable again; continuing in volume (\d+) after (\d+) dropped samples",
                      text)
        self.assertIsNotNone(m, text)
        dropped = int(m.group(2))
        lost = re.search(r"^mmvlog capture: lost (\d+) of (\d+) samples \(.*No space left on "
                         r"device\); \S+ holds the other (\d+)$", text, re.M)
        self.assertIsNotNone(lost, text)
        self.assertEqual((int(lost.group(1)), int(lost.group(2)), int(lost.group(3))),
                         (dropped, dropped + samples, samples), text)
        full_seconds = freed_at - full_at
        # Counts, not a rate: every tick taken wrote a sample or dropped it
        # (a loaded machine misses ticks, which are neither), but for those
        # before any MMV file existed (full before metadata), which have
        # nothing to write.
        self.assertGreater(dropped, 0, text)
        sched = re.search(r"schedule: (\d+) ticks, .*\((\d+) missed", text)
        self.assertIsNotNone(sched, text)
        taken = int(sched.group(1)) - int(sched.group(2))
        if metadata_first:
            self.assertLessEqual(samples + dropped, taken, text)
        else:
            self.assertEqual(samples + dropped, taken, text)

        # The archive as capture left it: pmlogcheck, with no recovery.
        rc, check = archive_check.pmlogcheck(base)
        self.assertEqual((rc, check), (0, ""), "pmlogcheck right after capture")
        scan = ArchiveScan(base)
        self.assertEqual(scan.problems, [])
        self.assertEqual(scan.torn(), {})
        self.assertEqual(scan.extra, [], "stray files in the archive's directory")
        self.assertEqual(sorted(os.listdir(self.mnt)),
                         sorted(os.path.basename(f.path) for f in scan.files.values()),
                         "stray files on the small file system")
        self.assertEqual(archive_check.time_order_problems(scan.records), [])
        dump = Dump(base)
        self.assertEqual(dump.rc, 0, dump.stderr)
        self.assertEqual(len(dump.records), len(scan.records))
        self.assertEqual(len(scan.results), samples)
        self.assertEqual(len(scan.marks), marks)
        if metadata_first and not scan.marks:
            # Nothing was recorded before the gap, so there is nothing to
            # mark it from: results only. (Should the files be seen one at a
            # time after all, a result before the gap needs its mark: below.)
            self.assertTrue(scan.results)
            first_mark, gap = -1, 0.0
        else:
            self.assertGreaterEqual(dump.marks, 1, "pmdumplog -a shows no <mark>")
            # The first mark sits at the gap: results on both sides, and the
            # gap is at least as long as the disk was full.
            first_mark = next(i for i, r in enumerate(scan.records) if r.mark)
            self.assertGreater(first_mark, 0, "mark before any result")
            self.assertLess(first_mark, len(scan.records) - 1, "no result after the mark")
            before, after = scan.records[first_mark - 1], scan.records[first_mark + 1]
            self.assertFalse(before.mark or after.mark)
            gap = (after.sec - before.sec) + (after.nsec - before.nsec) / 1e9
            self.assertGreaterEqual(gap, 0.8 * full_seconds,
                                    "gap %.3f s, disk full %.3f s" % (gap, full_seconds))
        # The file that appeared while the disk was full is recorded after.
        late = [i for i, v in enumerate(dump.values) if "mmv.late_app.requests.total" in v]
        self.assertTrue(late, "the MMV file added while the disk was full was never recorded")
        self.assertGreater(late[0], first_mark)
        # recover_tool finds nothing to repair.
        digest = archive_check.digest(base)
        rec = subprocess.run([self.recover, base], capture_output=True, text=True)
        self.assertEqual((rec.returncode, rec.stdout, rec.stderr), (0, "", ""),
                         "recover_tool on the closed archive")
        self.assertEqual(archive_check.digest(base), digest)
        sys.stderr.write(
            "disk_full_test v%s %s%s on %s: first error %r; %d error lines while full; full "
            "%.2f s, %d samples dropped; %d results, %d marks, %d volumes; gap %.3f s\n" % (
                version, " ".join(extra_flags), " (full before metadata)" if metadata_first else "",
                self.fs_kind, failed_error, len(errors_while_full), full_seconds,
                dropped, len(scan.results), len(scan.marks), len(scan.volumes), gap))


if __name__ == "__main__":
    unittest.main()
