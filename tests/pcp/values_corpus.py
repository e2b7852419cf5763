#!/usr/bin/env python3
"""Random derived expressions beside libpcp 7.2's pmFetch on any archives:
the broad run of derive_values_test (which keeps three archives in the
suite), counting differences instead of stopping at one.

    python3 tests/pcp/values_corpus.py --mmvlog bazel-bin/cmd/mmvlog \\
        [--seed 1] [--count 40] ARCHIVE...

For each archive, up to COUNT expressions libpcp 7.2 accepts (pminfo -d),
compared at every record and on a 7 s grid by derive_values_test.compare
(tests/pcp/derive_fetch.c against `mmvlog replay --json -r`): every (time,
metric, instance) value to 1e-9 and to the last bit. Needs /opt/pcp7.
Exits 1 when any value differs.
"""

import argparse
import os
import random
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mmvlog", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=40)
    ap.add_argument("archives", nargs="+")
    a = ap.parse_args()
    # The test modules find their files as runfiles: the checkout is one.
    runfiles = tempfile.mkdtemp()
    os.symlink(os.path.dirname(os.path.dirname(HERE)), os.path.join(runfiles, "mmvlog"))
    os.environ["TEST_SRCDIR"] = runfiles
    os.environ["TEST_TMPDIR"] = tempfile.mkdtemp()
    sys.path.insert(0, HERE)
    import derive_values_test as d  # noqa: E402
    import pcp7  # noqa: E402
    from derive_desc_test import generate, metrics  # noqa: E402
    from derive_syntax_test import write_definitions  # noqa: E402
    d.MMVLOG = os.path.abspath(a.mmvlog)
    d.DeriveValuesTest.setUpClass()
    t = d.DeriveValuesTest()
    t.root = os.environ["TEST_TMPDIR"]
    cells = differ = 0
    for n, base in enumerate(a.archives):
        pool = generate(random.Random(a.seed + n), metrics(base), 300)
        conf = os.path.join(t.root, "values.conf")
        write_definitions(conf, pool, prefix="v.e")
        p = pcp7.run([pcp7.tool("pminfo"), "-a", base, "-c", conf, "-d", "v"],
                     env={"PCP_DERIVED_CONFIG": ""})
        ok = set(int(m) for m in re.findall(r"^v\.e(\d+)\n    Data Type", p.stdout, re.M))
        # libpcp's !x of a 64-bit or real value is garbage (derive_values_test).
        exprs = [e for i, e in enumerate(pool)
                 if i in ok and not re.search(r"!(?!=)", e)][:a.count]
        for grid in ("", "7"):
            t.unknowable, t.inexact = 0, []
            try:
                c, diff = t.compare(base, exprs, grid)
            except AssertionError as e:  # libpcp 7.2 crashes on some (double frees)
                print("%s %s: not compared: %s" % (base, grid or "records", str(e)[:200]))
                continue
            cells += c
            differ += len(diff) + len(t.inexact)
            print("%s %s: %d expressions, %d values, %d differ, %d not to the last bit %s" % (
                base, grid + " s grid" if grid else "records", len(exprs), c, len(diff),
                len(t.inexact), (diff + t.inexact)[:2]))
    print("total: %d values, %d differ" % (cells, differ))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
