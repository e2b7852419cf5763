"""`mmvlog replay -S` enters an archive at its .index, plain or compressed.

An archive is written by PCP's own LOGIMPORT (pcp.pmi, under
/usr/bin/python3): 4000 samples over about an hour, a U64 counter, a double
gauge, an instance domain of 16, and a metric that first appears halfway.
LOGIMPORT puts an index entry every ~100 KB. Copies are compressed as
pmlogcompress does (xz in blocks: 64 KiB here, so the small volume has many;
pmlogcompress uses 10 MiB) and with gzip, bzip2 and zstd.

- Every window (-S alone, -S -T, -S from the end, -S -t grids, -r, a metric
  first seen after the window's start, --dump) shows what the same archive
  without its .index shows: there, nothing can be skipped, the archive is
  read whole. Plain and compressed alike.
- One window against pmval: the same timestamps and values (rates for the
  counter) as PCP's own reading of the window.
- The seek is real: a copy whose volume is damaged early (a record's length
  in the plain volume, a byte of an early xz block) fails when read whole
  (exit 1, the damage named) but reads a late window cleanly, with the same
  output as the undamaged archive: the bytes before the window were never
  decoded.
"""

import os
import re
import shutil
import subprocess
import unittest


def runfile(path):
    return os.path.join(os.environ["TEST_SRCDIR"], "mmvlog", path)


MMVLOG = runfile("cmd/mmvlog")
SAMPLES = 4000
START = 1763989200  # 2025-11-24 13:00:00 UTC

GENERATE = r'''
import sys
from pcp import pmi
import cpmapi as c
base, n, start = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
log = pmi.pmiLogImport(base)
log.pmiSetHostname("seekhost")
log.pmiSetTimezone("UTC")
D = 245
ind = log.pmiInDom(D, 1)
log.pmiAddMetric("seek.counter", log.pmiID(D, 0, 1), c.PM_TYPE_U64, c.PM_INDOM_NULL,
                 c.PM_SEM_COUNTER, log.pmiUnits(0, 0, 1, 0, 0, 0))
log.pmiAddMetric("seek.gauge", log.pmiID(D, 0, 2), c.PM_TYPE_DOUBLE, c.PM_INDOM_NULL,
                 c.PM_SEM_INSTANT, log.pmiUnits(0, 0, 0, 0, 0, 0))
log.pmiAddMetric("seek.disk", log.pmiID(D, 0, 3), c.PM_TYPE_U32, ind,
                 c.PM_SEM_INSTANT, log.pmiUnits(1, 0, 0, 0, 0, 0))
log.pmiAddMetric("seek.late", log.pmiID(D, 0, 4), c.PM_TYPE_U32, c.PM_INDOM_NULL,
                 c.PM_SEM_INSTANT, log.pmiUnits(0, 0, 0, 0, 0, 0))
names = ["d%02d" % i for i in range(16)]
for i, name in enumerate(names):
    log.pmiAddInstance(ind, name, i)
total = 0
for k in range(n):
    total += (k * 37) % 101
    log.pmiPutValue("seek.counter", None, str(total))
    log.pmiPutValue("seek.gauge", None, "%.6f" % ((k % 17) * 1.25 - 3))
    for i, name in enumerate(names):
        log.pmiPutValue("seek.disk", name, str((k * (i + 3)) % 1000))
    if k >= n // 2:
        log.pmiPutValue("seek.late", None, str(k))
    log.pmiWrite(start + k, (k * 7919) % 500000)
log.pmiEnd()
'''

SEEKABLE = ["seek.counter", "seek.gauge", "seek.disk"]

WINDOWS = (
    (["-S", "@13:50:00"], SEEKABLE),
    (["-S", "30min", "-T", "50min"], SEEKABLE),
    (["-S", "-10min"], SEEKABLE),
    (["-S", "@13:40:00", "-T", "@13:45:00", "-t", "7s"], SEEKABLE),
    (["-S", "@13:40:00", "-T", "@13:45:00", "-t", "10s", "-A", "1min"], SEEKABLE),
    (["-S", "@13:55:00", "-r", "-s", "40"], SEEKABLE),
    (["-S", "@13:50:00"], []),               # seek.late begins at 13:33: read whole
    (["-S", "@13:50:00"], ["seek.late"]),
    (["-S", "@13:20:00", "-T", "@13:40:00"], ["seek.late"]),  # before it begins
)

CODECS = (
    ("xz", ["xz", "-2", "--block-size=64KiB"], ".xz"),
    ("gzip", ["gzip"], ".gz"),
    ("bzip2", ["bzip2"], ".bz2"),
    ("zstd", ["zstd", "-q", "--rm"], ".zst"),
)


def run(args, **kw):
    return subprocess.run([str(a) for a in args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, errors="replace", timeout=300, **kw)


class WindowSeekTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.root = os.path.join(os.environ["TEST_TMPDIR"], "seek")
        shutil.rmtree(cls.root, ignore_errors=True)
        cls.plain = cls.archive("plain")
        p = run(["/usr/bin/python3", "-c", GENERATE, cls.plain, SAMPLES, START],
                env=dict(os.environ, PCP_ARCHIVE_VERSION="2"))
        assert p.returncode == 0, "LOGIMPORT failed: " + p.stderr
        index = run(["pmdumplog", "-t", cls.plain]).stdout
        assert len(re.findall(r"^\d\d:\d\d:\d\d\.\d+\s+0\s", index, re.M)) >= 8, index
        cls.noindex = cls.archive("noindex")
        for ext in (".0", ".meta"):
            shutil.copy(cls.plain + ext, cls.noindex + ext)

    @classmethod
    def archive(cls, name):
        d = os.path.join(cls.root, name)
        os.makedirs(d, exist_ok=True)
        return os.path.join(d, "s")

    def copy(self, name, codec=None):
        base = self.archive(name)
        for ext in (".0", ".meta", ".index"):
            shutil.copy(self.plain + ext, base + ext)
        if codec:
            _, cmd, suffix = codec
            p = run(cmd + [base + ".0"])
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertTrue(os.path.exists(base + ".0" + suffix))
        return base

    def replay(self, base, window, metrics, what="--csv"):
        p = run([MMVLOG, "replay", what, "-Z", "UTC", "-a", base] + window + metrics)
        # (The copy without a .index is told so.)
        err = "".join(l for l in p.stderr.splitlines(True) if not l.endswith(".index: missing\n"))
        return p.returncode, p.stdout, err

    def test_windows_equal_a_whole_read(self):
        copies = [("plain", self.plain)] + [(c[0], self.copy(c[0], c)) for c in CODECS]
        for window, metrics in WINDOWS:
            want = self.replay(self.noindex, window, metrics)
            self.assertEqual(want[0], 0, want[2])
            self.assertGreater(len(want[1].splitlines()), 2, (window, metrics))
            for name, base in copies:
                with self.subTest(copy=name, window=window, metrics=metrics):
                    self.assertEqual(self.replay(base, window, metrics), want)
        # The dump too (every record in the window, as pmdumplog shows it).
        window = ["-S", "@13:58:00", "-T", "@13:59:00"]
        want = self.replay(self.noindex, window, SEEKABLE, "--dump")
        self.assertEqual(want[0], 0, want[2])
        self.assertIn("13:58:0", want[1])
        for name, base in copies:
            with self.subTest(copy=name, dump=True):
                got = self.replay(base, window, SEEKABLE, "--dump")
                self.assertEqual(got[0], 0, got[2])
                self.assertEqual(got[1].replace(os.path.dirname(base), "DIR"),
                                 want[1].replace(os.path.dirname(self.noindex), "DIR"))

    def test_window_as_pmval_reads_it(self):
        window = ["-S", "@13:51:00", "-T", "@13:52:00"]
        for metric in ("seek.counter", "seek.disk"):
            # -U: the values as recorded (replay without -t shows them so).
            p = run(["pmval", "-z", "-f", "4", "-U", self.plain] + window + [metric])
            self.assertEqual(p.returncode, 0, p.stderr)
            theirs = []
            for line in p.stdout.splitlines():
                m = re.match(r"^(\d\d:\d\d:\d\d\.\d{3})\d*\s+(.*)$", line)
                if m and not m.group(2).startswith("No values"):
                    theirs.append((m.group(1), [float(v) for v in m.group(2).split()]))
            rc, out, err = self.replay(self.plain, window, [metric])
            self.assertEqual(rc, 0, err)
            ours = []
            for line in out.splitlines()[1:]:
                cells = line.split(",")
                if all(c == "" for c in cells[1:]):
                    continue
                ours.append((cells[0].split(" ")[1], [float(c) for c in cells[1:]]))
            self.assertGreater(len(theirs), 30, p.stdout)
            # pmval -U gives a counter's first record in the window no rate,
            # and neither does replay: rates start inside the window.
            self.assertEqual([t for t, _ in ours], [t for t, _ in theirs], metric)
            for (t, a), (_, b) in zip(ours, theirs):
                self.assertEqual(len(a), len(b), (metric, t))
                for x, y in zip(a, b):
                    self.assertAlmostEqual(x, y, delta=6e-4 + 1e-6 * abs(y), msg=(metric, t))

    def test_bytes_before_the_window_are_not_decoded(self):
        window = ["-S", "@13:55:00"]
        want = self.replay(self.noindex, window, SEEKABLE)
        # Plain: the length of the record at the index entry of ~200 KB (the
        # entries' offsets are where records begin) made absurd.
        index = run(["pmdumplog", "-t", self.plain]).stdout
        offsets = [int(m) for m in re.findall(r"^\d\d:\d\d:\d\d\.\d+\s+0\s+\d+\s+(\d+)$",
                                                index, re.M)]
        early = [o for o in offsets if 150000 < o < 300000][0]
        plain = self.copy("damaged-plain")
        with open(plain + ".0", "r+b") as f:
            f.seek(early)
            f.write(b"\x00\x00\x00\x05")
        # xz: a byte of compressed data a fifth of the way in (an early block).
        xz = self.copy("damaged-xz", CODECS[0])
        size = os.path.getsize(xz + ".0.xz")
        with open(xz + ".0.xz", "r+b") as f:
            f.seek(size // 5)
            b = f.read(1)
            f.seek(size // 5)
            f.write(bytes([b[0] ^ 0x55]))
        for base in (plain, xz):
            with self.subTest(base=base):
                rc, _, err = self.replay(base, [], SEEKABLE)
                self.assertEqual(rc, 1, err)
                self.assertIn(os.path.basename(base) + ".0", err)
                self.assertIn("offset", err)
                self.assertEqual(self.replay(base, window, SEEKABLE), want)


if __name__ == "__main__":
    unittest.main()
