#!/usr/bin/env python3
"""Random derived expressions beside pmrep 6.0.3's -e on any archives: the
broad run of pmrep_expr_corpus_test (which keeps five archives in the suite)
to rerun before a stop, counting differences instead of stopping at one.

    python3 tests/pcp/expr_corpus.py --mmvlog bazel-bin/cmd/mmvlog \\
        [--seed 1] [--count 40] ARCHIVE...

Each expression is shown on pmrep's default grid, a 7 s grid, raw (-r) and at the records (-u),
`-c EMPTY -o csv` so both print pmrep's CSV. Needs /opt/pcp7 (the
generator reads each archive's metrics with pminfo). Exits 1 when any
output differs or mmvlog refuses what pmrep reports.
"""

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("TEST_SRCDIR", "/nonexistent")  # the test modules name runfiles they need not here
from derive_desc_test import generate, metrics  # noqa: E402

# libpcp gives uninitialised memory for these (min()/max() over no value,
# ! of a 64-bit or real value): not comparable.
UNKNOWABLE = re.compile(r"\b(min|max)\(|!(?!=)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mmvlog", required=True)
    ap.add_argument("--pmrep", default="/usr/bin/pmrep")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=40)
    ap.add_argument("archives", nargs="+")
    a = ap.parse_args()
    env = dict(os.environ, PATH="/usr/bin:" + os.environ.get("PATH", ""), TZ="UTC",
               PCP_DERIVED_CONFIG="")
    empty = tempfile.NamedTemporaryFile(suffix=".conf")
    bad = 0
    for n, base in enumerate(a.archives):
        ms = metrics(base)
        exprs = [e for e in generate(random.Random(a.seed + n), ms, a.count)
                 if not UNKNOWABLE.search(e)]
        equal = refused = differ = 0
        for e in exprs:
            for extra in ([], ["-t", "7"], ["-r"], ["-u"]):
                args = ["-a", base, "-c", empty.name, "-o", "csv", "-s", "40",
                        "-e", "x.e=" + e, "x.e"] + extra
                p = subprocess.run([a.pmrep] + args, capture_output=True, text=True, env=env,
                                   timeout=300)
                if p.returncode != 0:
                    refused += 1
                    break
                q = subprocess.run([a.mmvlog, "replay"] + args, capture_output=True, text=True,
                                   env=env, timeout=300)
                pout, qout = p.stdout, q.stdout
                if extra == ["-u"] and not any(re.search(r"(?<![\w.])%s(?![\w.])" % re.escape(m), e)
                                               for m in ms):
                    # Constants only: libpcp's fetch of no metric steps
                    # through the records, but after the first row pmrep
                    # 6.0.3 crashes or prints garbage (a 1970 time): only
                    # the header and first row are PCP's.
                    pout = "\n".join(pout.splitlines()[:2])
                    qout = "\n".join(qout.splitlines()[:2])
                if q.returncode == 0 and qout == pout:
                    equal += 1
                    continue
                differ += 1
                pl, ql = pout.splitlines(), qout.splitlines()
                first = next((i for i in range(max(len(pl), len(ql)))
                              if i >= len(pl) or i >= len(ql) or pl[i] != ql[i]), 0)
                print("%s %s %s: differs at line %d\n  pmrep  %s\n  mmvlog %s" % (
                    os.path.basename(base), e, " ".join(extra), first + 1,
                    pl[first][:200] if first < len(pl) else "(end)",
                    (ql[first][:200] if first < len(ql) else "(end)") if q.returncode == 0
                    else "rc %d: %s" % (q.returncode, q.stderr.strip()[-200:])))
        print("%s: %d expressions, %d outputs equal, %d differ, %d refused by pmrep" % (
            os.path.basename(base), len(exprs), equal, differ, refused), flush=True)
        bad += differ
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
