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
import configparser
import glob
import os
import subprocess
import sys

SHAPES = {
    "csv": ["-o", "csv"],
    "table": [],
    "u-csv": ["-u", "-o", "csv"],
    "u-table": ["-u"],
}


def debian_sets(directory):
    sets = []
    for f in sorted(glob.glob(os.path.join(directory, "*.conf"))):
        c = configparser.ConfigParser(interpolation=None)
        c.optionxform = str
        c.read(f)
        sets += [s for s in c.sections() if s not in ("options", "global")]
    return sets


def pmrep_env():
    env = dict(os.environ)
    env["PATH"] = "/usr/bin:" + env.get("PATH", "")
    for k in ("PCP_CONF", "PCP_DIR", "PYTHONPATH", "PYTHONHOME"):
        env.pop(k, None)
    return env


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
    totals = {"equal": 0, "differ": 0, "refused by both": 0, "refused by one": 0}
    for shape in a.shape or ["csv"]:
        for archive in a.archives:
            counts = dict.fromkeys(totals, 0)
            for s in debian_sets(a.sets):
                args = ["-a", archive, ":" + s] + SHAPES[shape]
                if a.samples != "0":
                    args += ["-s", a.samples]
                p = subprocess.run([a.pmrep] + args, capture_output=True, text=True, env=env,
                                   timeout=900)
                q = subprocess.run([a.mmvlog, "replay"] + args, capture_output=True, text=True,
                                   env=env, timeout=900)
                if p.returncode != 0 and q.returncode != 0:
                    what = "refused by both"
                elif (p.returncode != 0) != (q.returncode != 0):
                    what = "refused by one"
                    print("%s %s %s: pmrep rc %d, mmvlog rc %d: %s" % (
                        shape, os.path.basename(archive), s, p.returncode, q.returncode,
                        (p.stderr or q.stderr).strip()[-300:]))
                elif p.stdout == q.stdout:
                    what = "equal"
                else:
                    what = "differ"
                    pl, ql = p.stdout.splitlines(), q.stdout.splitlines()
                    first = next((i for i in range(max(len(pl), len(ql)))
                                  if i >= len(pl) or i >= len(ql) or pl[i] != ql[i]), 0)
                    print("%s %s %s differs at line %d of %d:\n  pmrep  %s\n  mmvlog %s" % (
                        shape, os.path.basename(archive), s, first + 1, len(pl),
                        pl[first][:300] if first < len(pl) else "(end)",
                        ql[first][:300] if first < len(ql) else "(end)"))
                counts[what] += 1
            print("%s %s: %s" % (shape, os.path.basename(archive),
                                 ", ".join("%d %s" % (n, k) for k, n in counts.items())),
                  flush=True)
            for k, n in counts.items():
                totals[k] += n
    print("total: " + ", ".join("%d %s" % (n, k) for k, n in totals.items()))
    return 1 if totals["differ"] or totals["refused by one"] else 0


if __name__ == "__main__":
    sys.exit(main())
