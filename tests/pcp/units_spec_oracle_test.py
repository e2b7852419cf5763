"""Units strings as users type them (pmrep.conf's unit fields, -b/-y/-q,
mkconst(units=), rescale()): format::ParseUnitsSpec beside libpcp 6.0.3's
pmParseUnitsStr (python3-pcp), string for string: the same dimension and
scales and multiplier, or both refuse.

The corpus: every keyword libpcp knows in several cases, with exponents,
numbers, a divisor, pmUnitsStr's own texts, the units Debian's pmrep sets
use, and broken strings.
"""

import itertools
import os
import subprocess
import sys
import unittest

sys.path.insert(0, "/usr/lib/python3/dist-packages")
try:
    from pcp import pmapi  # noqa: E402
except ImportError:  # pragma: no cover
    pmapi = None

TOOL = os.path.join(os.environ["TEST_SRCDIR"], "mmvlog", "tests/pcp/units_spec_tool")

WORDS = ["ns", "nanosec", "nanoseconds", "us", "microsecond", "ms", "millisec", "milliseconds",
         "s", "sec", "second", "seconds", "min", "minute", "hour", "hours", "hr", "h",
         "byte", "bytes", "KB", "kB", "Kbyte", "KiB", "Kilobytes", "MB", "Mbyte", "mib", "GB",
         "Gbytes", "TB", "PB", "EB", "count", "counts", "count x 10", "count x 10^3",
         "count x 10^-2", "count x 10^6"]

HAND = ["", "none", "KB/s", "ms/s", "/s", "s / s", "KB / count", "kbyte / count",
        "2 count", "count / 7.5 nanosecond", "10 kilobytes / 2.5e2 count x 10^3",
        "millisecond / second^2", "mib/s", "Kbyte / sec", "count / sec", "byte^2 / sec",
        "millisec / sec", "sec^-1", "MB/min", "GB / hour", "1000 count", "0.5 KB",
        "count x 10^3 / sec", "byte count", "ms kb count x 10^3", "count x 10^3 kb ms",
        "KB KB", "s ms", "bogus", "KB/", "/", "KB / s / s", "x 10^3", "-1 s", ".5 s",
        "KB^2", "KB^-1", "s^9", "count^0", "time-2", "space-3", "Byte", "BYTES", "Sec"]


class UnitsSpecOracleTest(unittest.TestCase):

    def test_against_pmparseunitsstr(self):
        if pmapi is None:
            raise unittest.SkipTest("python3-pcp is not installed")
        corpus = list(HAND) + WORDS
        corpus += ["%s / %s" % (a, b) for a, b in itertools.product(WORDS, ["s", "ms", "count"])]
        corpus += ["%s^2" % w for w in WORDS] + ["3 %s" % w for w in WORDS]
        p = subprocess.run([TOOL], input="\n".join(corpus) + "\n", capture_output=True,
                           text=True, check=True)
        ours = p.stdout.splitlines()
        self.assertEqual(len(ours), len(corpus))
        differ = []
        for text, mine in zip(corpus, ours):
            try:
                u, mult = pmapi.pmContext.pmParseUnitsStr(text)
                theirs = "%d %d %d %d %d %d %r" % (u.dimSpace, u.dimTime, u.dimCount,
                                                   u.scaleSpace, u.scaleTime, u.scaleCount,
                                                   float(mult))
            except pmapi.pmErr:
                theirs = "error"
            if mine != "error" and theirs != "error":
                m = mine.split()
                t = theirs.split()
                same = m[:6] == t[:6] and abs(float(m[6]) - float(t[6])) <= 1e-12 * abs(float(t[6]))
            else:
                same = mine == theirs
            if not same:
                differ.append((text, mine, theirs))
        print("%d units strings, %d differ" % (len(corpus), len(differ)))
        self.assertEqual(differ, [])


if __name__ == "__main__":
    unittest.main()
