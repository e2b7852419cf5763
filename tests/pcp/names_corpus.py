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
    env = dict(os.environ, PATH="/usr/bin:" + os.environ.get("PATH", ""))
    for k in ("PCP_CONF", "PCP_DIR", "PYTHONPATH", "PYTHONHOME"):
        env.pop(k, None)
    empty = tempfile.NamedTemporaryFile(suffix=".conf")
    totals = {"equal": 0, "differ": 0, "refused by both": 0, "refused by one": 0}
    for base in a.archives:
        counts = dict.fromkeys(totals, 0)
        for extra in a.extra or [""]:
            for t in subtrees(base, a.depth, env):
                args = ["-a", base, "-c", empty.name, "-o", "csv", "-s", a.samples, t]
                args += shlex.split(extra)
                p = subprocess.run([a.pmrep] + args, capture_output=True, text=True, env=env,
                                   timeout=900)
                q = subprocess.run([a.mmvlog, "replay"] + args, capture_output=True, text=True,
                                   env=env, timeout=900)
                if p.returncode != 0 and q.returncode != 0:
                    what = "refused by both"
                elif (p.returncode != 0) != (q.returncode != 0):
                    what = "refused by one"
                    print("%s %s %s: pmrep rc %d, mmvlog rc %d: %s" % (
                        os.path.basename(base), t, extra, p.returncode, q.returncode,
                        (p.stderr or q.stderr).strip()[-300:]))
                elif p.stdout == q.stdout:
                    what = "equal"
                else:
                    what = "differ"
                    pl, ql = p.stdout.splitlines(), q.stdout.splitlines()
                    first = next((i for i in range(max(len(pl), len(ql)))
                                  if i >= len(pl) or i >= len(ql) or pl[i] != ql[i]), 0)
                    pc = pl[first].split(",") if first < len(pl) else []
                    qc = ql[first].split(",") if first < len(ql) else []
                    col = next((j for j in range(max(len(pc), len(qc)))
                                if j >= len(pc) or j >= len(qc) or pc[j] != qc[j]), 0)
                    head = pl[0].split(",") if pl else []
                    print("%s %s %s: line %d column %d (%s): pmrep %r, mmvlog %r" % (
                        os.path.basename(base), t, extra, first + 1, col,
                        head[col] if col < len(head) else "?",
                        pc[col] if col < len(pc) else "(none)",
                        qc[col] if col < len(qc) else "(none)"))
                counts[what] += 1
        print("%s: %s" % (os.path.basename(base),
                          ", ".join("%d %s" % (n, k) for k, n in counts.items())), flush=True)
        for k, n in counts.items():
            totals[k] += n
    print("total: " + ", ".join("%d %s" % (n, k) for k, n in totals.items()))
    return 1 if totals["differ"] or totals["refused by one"] else 0


if __name__ == "__main__":
    sys.exit(main())
