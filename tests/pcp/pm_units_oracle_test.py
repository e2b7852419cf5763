"""mmvlog's pmUnits text against PCP's own pmUnitsStr, 6.0.3 and 7.2.

format::UnitsToString prints PCP 7.2's text (extra units: temperature,
voltage, current, power; "count x 10^N" for a count scale with no
dimension); format::UnitsToStringPcp6 prints 6.0.3's (the low byte was a
pad, ignored; "x 10^N"). Each is compared with its version's libpcp,
loaded through ctypes (7.2 has no python bindings, but its libpcp.so.4 is an
ordinary shared library): 6.0.3's pmUnitsStr_r, 7.2's pmUnitsStr (the
function with the 60-byte buffer, whose cut mmvlog reproduces).

Words: every combination of dimensions -3..3 for space, time and count with
every scale PCP names (space 0..6, time 0..5, count -3..3): 100,842 words;
20,000 seeded random 32-bit words (out-of-range scales, dimensions -8..7,
every extra-unit byte); every extra-unit byte (0..255) over a few units;
and the boundaries. mmvlog's texts come from tests/pcp/units_text.
"""

import ctypes
import itertools
import os
import random
import subprocess
import unittest

import pcp7

LIBPCP6 = "/usr/lib/libpcp.so.3"


def word(ds, dt, dc, ss, st, sc, low=0):
    """Packs a pmUnits word (format/pm_units.h gives the layout)."""
    return (((ds & 15) << 28) | ((dt & 15) << 24) | ((dc & 15) << 20) |
            ((ss & 15) << 16) | ((st & 15) << 12) | ((sc & 15) << 8) | low)


class PcpUnits:
    """pmUnitsStr of one libpcp. pmUnits is a 32-bit bitfield struct whose
    in-memory word is the packed layout above on this little-endian machine."""

    def __init__(self, path, reentrant):
        self.lib = ctypes.CDLL(path)
        self.reentrant = reentrant
        if reentrant:
            self.lib.pmUnitsStr_r.restype = ctypes.c_char_p
            self.lib.pmUnitsStr_r.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
            self.buf = ctypes.create_string_buffer(256)
        else:
            self.lib.pmUnitsStr.restype = ctypes.c_char_p
            self.lib.pmUnitsStr.argtypes = [ctypes.c_void_p]

    def text(self, w):
        u = ctypes.c_uint32(w)
        if self.reentrant:
            out = self.lib.pmUnitsStr_r(ctypes.byref(u), self.buf, len(self.buf))
        else:
            out = self.lib.pmUnitsStr(ctypes.byref(u))
        if out is None:
            raise RuntimeError("pmUnitsStr failed for 0x%08x" % w)
        return out.decode()


def mmvlog_texts(words):
    """[(7.2 text, 6.0.3 text, rate text)] for each word."""
    tool = os.path.join(os.environ["TEST_SRCDIR"], "mmvlog", "tests/pcp/units_text")
    out = subprocess.run([tool], input="".join("%d\n" % w for w in words),
                         check=True, capture_output=True, text=True).stdout
    lines = out.split("\n")
    assert lines[-1] == "", "output must end in a newline"
    return [tuple(l.split("\t")) for l in lines[:-1]]


def describe(w):
    def s(v, bits):
        return v - (1 << bits) if v & (1 << (bits - 1)) else v
    return ("0x%08x (dim space %d time %d count %d, scale space %d time %d "
            "count %d, extra unit %d scale %d)" % (
                w, s(w >> 28, 4), s((w >> 24) & 15, 4), s((w >> 20) & 15, 4),
                (w >> 16) & 15, (w >> 12) & 15, s((w >> 8) & 15, 4),
                s((w >> 3) & 31, 5), w & 7))


def named_words():
    return [word(ds, dt, dc, ss, st, sc)
            for ds, dt, dc in itertools.product(range(-3, 4), repeat=3)
            for ss in range(7) for st in range(6) for sc in range(-3, 4)]


def edge_words():
    return [word(ds, dt, dc, ss, st, sc, low)
            for ds, dt, dc in ((-8, 0, 0), (7, 0, 0), (0, -8, 0), (0, 7, 0),
                               (0, 0, -8), (0, 0, 7), (0, 0, 0), (1, 1, 1), (-8, -8, -8))
            for ss in (0, 6, 7, 8, 9, 15) for st in (0, 5, 6, 15)
            for sc in (-8, -1, 0, 1, 7) for low in (0, 1, 9, 0x22, 0xb9, 0xf8, 255)]


def extra_words():
    """Every extra-unit byte, alone and with a few dimensions."""
    return [word(ds, dt, dc, ss, st, sc, low) for low in range(256)
            for ds, dt, dc, ss, st, sc in ((0, 0, 0, 0, 0, 0), (0, 1, 0, 0, 5, 0),
                                           (1, -1, 0, 1, 3, 0), (0, 0, 0, 0, 0, 3),
                                           (-2, -3, -1, 15, 15, 7))]


class PmUnitsOracleTest(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        cls.pcp6 = PcpUnits(LIBPCP6, reentrant=True)

    def compare(self, pcp, words, column, what):
        mine = mmvlog_texts(words)
        self.assertEqual(len(mine), len(words))
        diffs = [(w, pcp.text(w), m[column]) for w, m in zip(words, mine)
                 if pcp.text(w) != m[column]]
        if diffs:
            self.fail("%d of %d pmUnits texts differ from %s's pmUnitsStr, e.g.:\n%s" % (
                len(diffs), len(words), what,
                "\n".join("  %s: PCP %r, mmvlog %r" % (describe(w), p, m)
                          for w, p, m in diffs[:25])))

    def pcp7(self):
        pcp7.require()
        return PcpUnits(os.path.join(pcp7.PREFIX, "lib", "libpcp.so.4"), reentrant=False)

    # -- PCP 6.0.3 ----------------------------------------------------------

    def test_oracle_is_pcp6(self):
        """The ctypes binding really returns PCP's texts."""
        self.assertEqual(self.pcp6.text(word(1, -1, 0, 1, 3, 0)), "Kbyte / sec")
        self.assertEqual(self.pcp6.text(word(0, 0, 1, 0, 0, 3)), "count x 10^3")
        self.assertEqual(self.pcp6.text(word(0, 1, 0, 0, 2, 0)), "millisec")
        self.assertEqual(self.pcp6.text(word(0, 0, 0, 0, 0, 3)), "x 10^3")
        self.assertEqual(self.pcp6.text(9), "")  # no extra units in 6.0.3
        self.assertEqual(self.pcp6.text(0), "")

    def test_pcp6_named_scales_and_dims_minus3_to_3(self):
        words = named_words()
        self.assertEqual(len(words), 343 * 7 * 6 * 7)
        self.assertGreater(len({self.pcp6.text(w) for w in words[::97]}), 500)
        self.compare(self.pcp6, words, 1, "PCP 6.0.3")

    def test_pcp6_random_words(self):
        rng = random.Random(20240601)
        self.compare(self.pcp6, [rng.getrandbits(32) for _ in range(20000)], 1, "PCP 6.0.3")

    def test_pcp6_edges_and_extra_bytes(self):
        self.compare(self.pcp6, edge_words() + extra_words(), 1, "PCP 6.0.3")

    # -- PCP 7.2 ------------------------------------------------------------

    def test_oracle_is_pcp7(self):
        p = self.pcp7()
        self.assertEqual(p.text(word(1, -1, 0, 1, 3, 0)), "Kbyte / sec")
        self.assertEqual(p.text(word(0, 0, 0, 0, 0, 3)), "count x 10^3")
        self.assertEqual(p.text(0x9), "temperature (C)")
        self.assertEqual(p.text(0x1005022), "power (W) hour")

    def test_pcp7_named_scales_and_dims_minus3_to_3(self):
        self.compare(self.pcp7(), named_words(), 0, "PCP 7.2")

    def test_pcp7_random_words(self):
        rng = random.Random(20260723)
        self.compare(self.pcp7(), [rng.getrandbits(32) for _ in range(20000)], 0, "PCP 7.2")

    def test_pcp7_edges_and_extra_bytes(self):
        self.compare(self.pcp7(), edge_words() + extra_words(), 0, "PCP 7.2")

    def test_rate_units_are_pcp7_text_of_the_lowered_time(self):
        """RateUnitsToString: 7.2's pmUnitsStr of the units pmval converts a
        counter to (pmval.c:459-466: dimTime - 1, sec when there was none),
        or "time utilisation" when nothing is left."""
        p = self.pcp7()
        words = named_words()[::7] + extra_words()
        for w, (_, _, rate) in zip(words, mmvlog_texts(words)):
            dt = ((w >> 24) & 15) - (16 if (w >> 24) & 8 else 0)
            low = w
            if dt == 0:
                low = (low & ~(15 << 12)) | (3 << 12)
            rated = (low & ~(15 << 24)) | (((dt - 1) & 15) << 24)
            dims = [(rated >> 28) & 15, (rated >> 24) & 15, (rated >> 20) & 15]
            extra = (rated >> 3) & 31
            want = "time utilisation" if dims == [0, 0, 0] and extra == 0 else p.text(rated)
            self.assertEqual(rate, want, describe(w))


if __name__ == "__main__":
    unittest.main()
