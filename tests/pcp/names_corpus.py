#!/usr/bin/env python3
"""Every subtree of each archive's namespace (to a depth) beside pmrep 6.0.3:
`pmrep -a ARCH -c EMPTY -o csv SUBTREE` and `mmvlog replay` with the same
arguments, byte for byte; the broad run to rerun before a stop (metric
order, names, derived metrics in the subtree, values at the first rows).

    python3 tests/pcp/names_corpus.py --mmvlog bazel-bin/cmd/mmvlog \\
        [--depth 2] [--extra "-t 7"] [--extra "-u"] ARCHIVE...

Both refusing is agreement (a subtree with a metric pmrep cannot show).
Exits 1 when any output differs or only one refuses.
"""

import argparse
import os
import shlex
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pmrep_compare import (  # noqa: E402
    VERDICTS, add_up, finish, pmrep_env, run_both, tally, verdict)  # noqa: E402


def subtrees(base, depth, env):
    names = subprocess.run(["pminfo", "-a", base], capture_output=True, text=True,
                           env=env).stdout.split()
    out = []
    for d in range(1, depth + 1):
        for n in names:
            parts = n.split(".")
            if len(parts) > d and ".".join(parts[:d]) not in out:
                out.append(".".join(parts[:d]))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mmvlog", required=True)
    ap.add_argument("--pmrep", default="/usr/bin/pmrep")
    ap.add_argument("--depth", type=int, default=2)
    ap.add_argument("--samples", default="20")
    ap.add_argument("--extra", action="append", default=None,
                    help="more arguments for both, one run per --extra ('' for none)")
    ap.add_argument("archives", nargs="+")
    a = ap.parse_args()
    env = pmrep_env()
    empty = tempfile.NamedTemporaryFile(suffix=".conf")
    totals = dict.fromkeys(VERDICTS, 0)
    for base in a.archives:
        counts = dict.fromkeys(VERDICTS, 0)
        for extra in a.extra or [""]:
            for t in subtrees(base, a.depth, env):
                args = ["-a", base, "-c", empty.name, "-o", "csv", "-s", a.samples, t]
                args += shlex.split(extra)
                p, q = run_both(a.pmrep, a.mmvlog, args, env)
                tally(*verdict(p, q), "%s %s %s" % (os.path.basename(base), t, extra), counts)
        add_up(os.path.basename(base), counts, totals)
    return finish(totals)


if __name__ == "__main__":
    sys.exit(main())
