"""Replay's memory does not grow with the archive's length (issue 21).

Two archives of the same width (2,000 columns of counters, instants and
discrete values, a string, a <mark> every 500 records), one 10x longer than
the other (200 and 2,000 records: 6.6 and 66 MB), are replayed by //cmd:mmvlog
with each output: -o csv, -o json, -o text, -o stats, --dump, --plot,
--html, and -t (interpolated) csv and text. The peak RSS of each run (its
ru_maxrss, measured by the small peak_rss program so that no Python image is
counted) must be within 8 MiB of the short archive's for the same output,
and under 64 MiB. Keeping every row of the long archive would cost it about
64 MB more; keeping every value, 32 MB. A second pair has one more metric,
logged in the first record only (no <mark>s), for -t.
"""

import os
import shutil
import subprocess
import unittest

SLACK_KIB = 8 * 1024
CEILING_KIB = 64 * 1024
COLUMNS = ("20", "100")  # metrics x instances
SHORT, LONG = 200, 2000


def runfile(path):
    return os.path.join(os.environ["TEST_SRCDIR"], "mmvlog", path)


MMVLOG = runfile("cmd/mmvlog")
WIDE = runfile("tests/archiver/replay/wide_archive")
PEAK = runfile("tests/archiver/replay/peak_rss")


class ReplayMemoryTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.dir = os.path.join(os.environ.get("TEST_TMPDIR", "/tmp"), "replay_memory")
        shutil.rmtree(cls.dir, ignore_errors=True)
        os.makedirs(cls.dir)
        cls.short = os.path.join(cls.dir, "short")
        cls.long = os.path.join(cls.dir, "long")
        cls.once_short = os.path.join(cls.dir, "once_short")
        cls.once_long = os.path.join(cls.dir, "once_long")
        for base, n, once in ((cls.short, SHORT, []), (cls.long, LONG, []),
                              (cls.once_short, SHORT, ["once"]), (cls.once_long, LONG, ["once"])):
            subprocess.run([WIDE, base, str(n)] + list(COLUMNS) + once, check=True, timeout=300)
        cls.short_size = os.path.getsize(cls.short + ".0")
        cls.long_size = os.path.getsize(cls.long + ".0")

    def peak(self, base, args):
        """(exit status, peak RSS in KiB, stderr) of `mmvlog replay -a base args`."""
        p = subprocess.run([PEAK, MMVLOG, "replay", "-a", base] + args, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True, timeout=600)
        self.assertEqual(p.returncode, 0, p.stderr)
        status, kib = p.stdout.split()
        return int(status), int(kib), p.stderr

    def check(self, args, written=None, bases=None):
        short, long_ = bases or (self.short, self.long)
        peaks = {}
        for name, base in (("short", short), ("long", long_)):
            run_args = [a.replace("{out}", os.path.join(self.dir, name)) for a in args]
            status, kib, err = self.peak(base, run_args)
            self.assertEqual(status, 0, "%s %s: %s" % (name, " ".join(args), err))
            if written:
                path = os.path.join(self.dir, name) + written
                self.assertGreater(os.path.getsize(path), 0, path)
            peaks[name] = kib
        msg = "%s: short %d KiB, long %d KiB" % (" ".join(args), peaks["short"], peaks["long"])
        self.assertLessEqual(peaks["long"], peaks["short"] + SLACK_KIB, msg)
        self.assertLessEqual(peaks["long"], CEILING_KIB, msg)

    def test_archives_are_10x_apart(self):
        self.assertGreaterEqual(self.long_size, 9 * self.short_size)

    def test_csv(self):
        self.check(["-o", "csv"])

    def test_json(self):
        self.check(["-o", "json"])

    def test_text(self):
        self.check(["-o", "text"])

    def test_stats(self):
        self.check(["-o", "stats"])

    def test_dump(self):
        self.check(["--dump"])

    def test_plot(self):
        self.check(["--plot", "{out}.svg"], written=".svg")

    def test_html(self):
        self.check(["--html", "{out}.html"], written=".html")

    def test_interpolated_csv(self):
        self.check(["-t", "2sec", "-o", "csv"])

    def test_interpolated_text(self):
        self.check(["-t", "2sec", "-o", "text"])

    # A metric logged only in the first record (as pmlogger logs hinv.*
    # once): rows wait for its next sample, which never comes, and the
    # Interpolator's look-ahead must find that out rather than keep every
    # sample of every column (2,000 records of 2,000 columns once peaked
    # at 240 MiB; 200 records at 35 MiB).
    def test_interpolated_csv_with_a_metric_logged_once(self):
        self.check(["-t", "2sec", "-o", "csv"], bases=(self.once_short, self.once_long))


if __name__ == "__main__":
    unittest.main()
