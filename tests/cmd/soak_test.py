"""The two-minute CI run of bench/soak.py: `mmvlog record` every 100 ms over
a directory of 200 MMV files created, rewritten, truncated, replaced,
scribbled on and deleted all the while, next to ten stable ones. What
cannot be noise must hold: open descriptors, mapped MMV files and RSS stay
flat, no stray file appears beside the archive, every tick taken wrote a
sample and the archive holds them all, no sample of a stable file is lost,
and pmlogcheck is clean (bench/soak.py says how). CPU per sample is printed
as a trend, never checked: it belongs to the benchmark (bench/README.md).
"""

import os
import subprocess
import unittest

import cmdtest

SOAK = cmdtest.runfile("bench/soak.py")
CHURN = cmdtest.runfile("bench/soak_churn")


class SoakTest(unittest.TestCase):

    def test_two_minute_soak(self):
        work = cmdtest.fresh_dir("soak")
        p = subprocess.run(["/usr/bin/python3", SOAK, "--minutes", "2", "--mmvlog",
                            cmdtest.MMVLOG, "--churn", CHURN, "--dir", work],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True, timeout=400)
        print(p.stdout)
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertIn("soak: ok", p.stdout)
        self.assertIn("0 records missing a stable value", p.stdout)
        self.assertIn("0 dropped", p.stdout)


if __name__ == "__main__":
    unittest.main()
