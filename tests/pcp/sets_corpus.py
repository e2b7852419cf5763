#!/usr/bin/env python3
"""Every pmrep metric set of Debian's /etc/pcp/pmrep beside pmrep 6.0.3, on
as many archives as are given: the broad comparison to rerun before a stop
(pmrep_sets_test keeps three archives in the suite; this takes any number,
PCP QA's among them, and each output shape at once).

    python3 tests/pcp/sets_corpus.py --mmvlog bazel-bin/cmd/mmvlog \\
        --shape csv --shape table --shape u-csv ARCHIVE...

A set is "equal" when both print the same bytes, "refused by both" when both
exit non-zero (the archive lacks a metric or an instance domain), and
otherwise it "differs" (the first differing line is printed). Exits 1 when
any differs.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pmrep_compare import (  # noqa: E402
    VERDICTS, add_up, debian_sets, finish, pmrep_env, run_both, tally, verdict)  # noqa: E402

SHAPES = {
    "csv": ["-o", "csv"],
    "table": [],
    "u-csv": ["-u", "-o", "csv"],
    "u-table": ["-u"],
    "r-csv": ["-r", "-o", "csv"],  # raw: 64-bit integers as pmrep's fetchgroup gives them
    "x-table": ["-x"],  # the extended header first
    "x-u-csv": ["-x", "-u", "-o", "csv"],
    "g-table": ["-g"],  # the columns numbered, listed first
    "g-u-table": ["-g", "-u", "-p"],
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mmvlog", required=True)
    ap.add_argument("--pmrep", default="/usr/bin/pmrep")
    ap.add_argument("--sets", default="/etc/pcp/pmrep")
    ap.add_argument("--shape", action="append", choices=sorted(SHAPES))
    ap.add_argument("--samples", default="300", help="-s for both (0: no -s)")
    ap.add_argument("archives", nargs="+")
    a = ap.parse_args()
    env = pmrep_env()
    totals = dict.fromkeys(VERDICTS, 0)
    for shape in a.shape or ["csv"]:
        for archive in a.archives:
            counts = dict.fromkeys(VERDICTS, 0)
            for s in debian_sets(a.sets):
                args = ["-a", archive, ":" + s] + SHAPES[shape]
                if a.samples != "0":
                    args += ["-s", a.samples]
                p, q = run_both(a.pmrep, a.mmvlog, args, env)
                tally(*verdict(p, q), "%s %s %s" % (shape, os.path.basename(archive), s), counts)
            add_up("%s %s" % (shape, os.path.basename(archive)), counts, totals)
    return finish(totals)


if __name__ == "__main__":
    sys.exit(main())
