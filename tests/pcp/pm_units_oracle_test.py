"""mmvlog's pmUnits text (format::UnitsToString) against PCP's pmUnitsStr.

Every combination of dimensions -3..3 for space, time and count with every
scale PCP names (space 0..6, time 0..5, count -3..3): 100,842 words, plus
20,000 seeded random 32-bit words (out-of-range scales, dimensions -8..7,
non-zero pad). PCP's text comes from libpcp's pmUnitsStr_r through ctypes;
mmvlog's from tests/pcp/units_text, one line per word.
"""

import ctypes
import itertools
import os
import random
import subprocess
import unittest

LIBPCP = "/usr/lib/libpcp.so.3"


def word(ds, dt, dc, ss, st, sc, pad=0):
    """Packs a pmUnits word (format/pm_units.h gives the layout)."""
    return (((ds & 15) << 28) | ((dt & 15) << 24) | ((dc & 15) << 20) |
            ((ss & 15) << 16) | ((st & 15) << 12) | ((sc & 15) << 8) | pad)


class PcpUnits:
    def __init__(self):
        self.lib = ctypes.CDLL(LIBPCP)
        self.lib.pmUnitsStr_r.restype = ctypes.c_char_p
        self.lib.pmUnitsStr_r.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
        self.buf = ctypes.create_string_buffer(256)

    def text(self, w):
        # pmUnits is a 32-bit bitfield struct whose in-memory word is the
        # packed layout above on this (little-endian) machine.
        u = ctypes.c_uint32(w)
        if self.lib.pmUnitsStr_r(ctypes.byref(u), self.buf, len(self.buf)) is None:
            raise RuntimeError("pmUnitsStr_r failed for 0x%08x" % w)
        return self.buf.value.decode()


def mmvlog_texts(words):
    tool = os.path.join(os.environ["TEST_SRCDIR"], "mmvlog", "tests/pcp/units_text")
    out = subprocess.run([tool], input="".join("%d\n" % w for w in words),
                         check=True, capture_output=True, text=True).stdout
    lines = out.split("\n")
    assert lines[-1] == "", "output must end in a newline"
    return lines[:-1]


def describe(w):
    def s4(v):
        return v - 16 if v & 8 else v
    return ("0x%08x (dim space %d time %d count %d, scale space %d time %d "
            "count %d, pad %d)" % (w, s4(w >> 28), s4((w >> 24) & 15),
                                   s4((w >> 20) & 15), (w >> 16) & 15,
                                   (w >> 12) & 15, s4((w >> 8) & 15), w & 255))


class PmUnitsOracleTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.pcp = PcpUnits()

    def compare(self, words):
        mine = mmvlog_texts(words)
        self.assertEqual(len(mine), len(words))
        diffs = [(w, self.pcp.text(w), m) for w, m in zip(words, mine)
                 if self.pcp.text(w) != m]
        if diffs:
            self.fail("%d of %d pmUnits texts differ from pmUnitsStr, e.g.:\n%s" % (
                len(diffs), len(words),
                "\n".join("  %s: PCP %r, mmvlog %r" % (describe(w), p, m)
                          for w, p, m in diffs[:25])))

    def test_oracle_is_pcp(self):
        """The ctypes binding really returns PCP's texts."""
        self.assertEqual(self.pcp.text(word(1, -1, 0, 1, 3, 0)), "Kbyte / sec")
        self.assertEqual(self.pcp.text(word(0, 0, 1, 0, 0, 3)), "count x 10^3")
        self.assertEqual(self.pcp.text(word(0, 1, 0, 0, 2, 0)), "millisec")
        self.assertEqual(self.pcp.text(0), "")

    def test_named_scales_and_dims_minus3_to_3(self):
        words = [word(ds, dt, dc, ss, st, sc)
                 for ds, dt, dc in itertools.product(range(-3, 4), repeat=3)
                 for ss in range(7) for st in range(6) for sc in range(-3, 4)]
        self.assertEqual(len(words), 343 * 7 * 6 * 7)
        self.assertGreater(len({self.pcp.text(w) for w in words[::97]}), 500)
        self.compare(words)

    def test_random_words(self):
        rng = random.Random(20240601)
        self.compare([rng.getrandbits(32) for _ in range(20000)])

    def test_edges(self):
        words = [word(ds, dt, dc, ss, st, sc, pad)
                 for ds, dt, dc in ((-8, 0, 0), (7, 0, 0), (0, -8, 0), (0, 7, 0),
                                    (0, 0, -8), (0, 0, 7), (0, 0, 0), (1, 1, 1))
                 for ss in (0, 6, 7, 8, 9, 15) for st in (0, 5, 6, 15)
                 for sc in (-8, -1, 0, 1, 7) for pad in (0, 1, 255)]
        self.compare(words)


if __name__ == "__main__":
    unittest.main()
