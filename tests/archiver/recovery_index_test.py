"""Recovery rebuilds a damaged temporal index so that PCP still reads every
record.

PCP positions a reader with the index: when the first entry lies past the
first record, libpcp seeks there and silently skips what came before (a
crash test caught recovery keeping only the final entry after the index was
cut inside its first entry: pmdumplog then showed 1 record of 3). So after
recovery every volume holding records has an entry at its first record, as
pmlogger writes at each volume's start.

An archive of ~40 samples over ~10 volumes (v2 and v3) is recorded by
`mmvlog capture` from a file written by the real libpcp_mmv; then for each
damage (index cut inside its first entry, index holding only its label,
index removed, only the last entry kept) recover_tool runs on a copy, and
pmlogcheck must pass, pmdumplog -a must read every record the framing
reader counts with the same timestamps, and pmdumplog -S from a volume's
first record must start exactly there.
"""

import os
import shutil
import subprocess
import time
import unittest

import archive_check
from archive_check import ArchiveScan, Dump, runfile


class RecoveryIndexTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = os.path.join(os.environ.get("TEST_TMPDIR", "/tmp"), "recovery_index")
        shutil.rmtree(cls.tmp, ignore_errors=True)
        pcp_tmp = os.path.join(cls.tmp, "pcp")
        mmv_dir = os.path.join(pcp_tmp, "mmv")
        os.makedirs(mmv_dir)
        env = dict(os.environ, PCP_TMP_DIR=pcp_tmp)
        subprocess.run([runfile("tests/pcp/pcp_mmv_writer"), "app", "v2", "11"],
                       env=env, check=True, capture_output=True)
        cls.recover = runfile("tests/archiver/recover_tool")
        cls.archives = {}
        for version in ("2", "3"):
            base = os.path.join(cls.tmp, "v" + version, "a")
            os.makedirs(os.path.dirname(base))
            subprocess.run([runfile("cmd/mmvlog"), "capture", "-o", base, "--mmv-dir", mmv_dir,
                            "--interval", "5msec", "-s", "40",
                            "--archive-version", version, "-v", "4"],
                           env=env, check=True, capture_output=True)
            cls.archives[int(version)] = base

    def damaged_copy(self, version, name):
        src = self.archives[version]
        dst = os.path.join(self.tmp, "v%d_%s" % (version, name), "a")
        shutil.rmtree(os.path.dirname(dst), ignore_errors=True)
        os.makedirs(os.path.dirname(dst))
        for f in os.listdir(os.path.dirname(src)):
            shutil.copy(os.path.join(os.path.dirname(src), f), os.path.dirname(dst))
        return dst

    def check_recovered(self, base, want, what):
        rec = subprocess.run([self.recover, base], capture_output=True, text=True)
        self.assertEqual(rec.returncode, 0, "%s: %s%s" % (what, rec.stdout, rec.stderr))
        self.assertIn("index: rewritten", rec.stdout, what)
        after = ArchiveScan(base)
        self.assertEqual([r.stamp for r in after.records], want, what)
        rc, out = archive_check.pmlogcheck(base)
        self.assertEqual((rc, out), (0, ""), "%s: pmlogcheck" % what)
        dump = Dump(base)
        self.assertEqual(dump.rc, 0, "%s: %s" % (what, dump.stderr))
        self.assertEqual(len(dump.records), len(want), "%s: pmdumplog -a read %d of %d records"
                         % (what, len(dump.records), len(want)))
        # Each volume's first record has an entry, and from it PCP reads on.
        entries = archive_check.index_entries(base + ".index", after.version)
        firsts = {}
        for r in after.records:
            firsts.setdefault(r.volume, r)
        for vol, first in sorted(firsts.items()):
            self.assertIn(first.offset, [off for v, _, off in entries if v == vol],
                          "%s: no index entry at volume %d's first record" % (what, vol))
        middle = firsts[sorted(firsts)[len(firsts) // 2]]
        t = time.gmtime(middle.sec)
        start = "@%s.%06d %d" % (time.strftime("%b %d %H:%M:%S", t), middle.nsec // 1000,
                                 t.tm_year)
        p = subprocess.run(["pmdumplog", "-z", "-m", "-S", start, base], capture_output=True,
                           text=True, env=dict(os.environ, TZ="UTC"))
        self.assertEqual(p.returncode, 0, "%s: %s" % (what, p.stderr))
        read = [l for l in p.stdout.splitlines() if archive_check.RECORD_LINE.match(l)]
        self.assertEqual(len(read), sum(1 for r in after.records if r.stamp >= middle.stamp),
                         "%s: pmdumplog -S %s:\n%s" % (what, start, p.stdout[:2000]))
        # Idempotent.
        digest = archive_check.digest(base)
        rec2 = subprocess.run([self.recover, base], capture_output=True, text=True)
        self.assertEqual((rec2.returncode, rec2.stdout), (0, ""), what)
        self.assertEqual(archive_check.digest(base), digest, what)

    def each_damage(self, damage):
        for version in (2, 3):
            with self.subTest(version=version):
                base = self.damaged_copy(version, damage.__name__)
                before = ArchiveScan(base)
                self.assertGreater(len(before.volumes), 5)
                want = [r.stamp for r in before.records]
                self.assertEqual(len(Dump(base).records), len(want))
                damage(base + ".index", version)
                self.check_recovered(base, want, "v%d %s" % (version, damage.__name__))

    def test_index_cut_inside_its_first_entry(self):
        def cut_in_first_entry(path, version):
            os.truncate(path, archive_check.LABEL_SIZE[version] + 7)
        self.each_damage(cut_in_first_entry)

    def test_index_holds_only_its_label(self):
        def label_only(path, version):
            os.truncate(path, archive_check.LABEL_SIZE[version])
        self.each_damage(label_only)

    def test_index_removed(self):
        def removed(path, version):
            os.unlink(path)
        self.each_damage(removed)

    def test_only_the_last_entry_left(self):
        def last_only(path, version):
            with open(path, "rb") as f:
                data = f.read()
            size = archive_check.INDEX_ENTRY_SIZE[version]
            label = archive_check.LABEL_SIZE[version]
            # The final entry, at the last record: earlier volumes have none.
            with open(path, "wb") as f:
                f.write(data[:label] + data[len(data) - size:])
        self.each_damage(last_only)


if __name__ == "__main__":
    unittest.main()
