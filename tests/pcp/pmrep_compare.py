"""What pmrep comparisons share: pmrep's environment (Debian's PCP 6.0.3
first in PATH, no PCP_CONF of PCP 7.2), Debian's metric sets, and the
verdict on a pair of runs (pmrep's, mmvlog's) with the first difference
told as a line and a column. Used by pmrep_sets_test and by the broad
runs by hand (sets_corpus.py, names_corpus.py).
"""

import configparser
import glob
import os
import subprocess

DEBIAN_SETS = "/etc/pcp/pmrep"
VERDICTS = ("equal", "differ", "refused by both", "refused by one")


def pmrep_env():
    env = dict(os.environ)
    env["PATH"] = "/usr/bin:" + env.get("PATH", "")
    for k in ("PCP_CONF", "PCP_DIR", "PYTHONPATH", "PYTHONHOME"):
        env.pop(k, None)
    return env


def debian_sets(directory=DEBIAN_SETS):
    sets = []
    for f in sorted(glob.glob(os.path.join(directory, "*.conf"))):
        c = configparser.ConfigParser(interpolation=None)
        c.optionxform = str
        c.read(f)
        sets += [s for s in c.sections() if s not in ("options", "global")]
    return sets


def run_both(pmrep, mmvlog, args, env):
    """pmrep ARGS and mmvlog replay ARGS, in that order: (p, q)."""
    p = subprocess.run([pmrep] + args, capture_output=True, text=True, env=env, timeout=900)
    q = subprocess.run([mmvlog, "replay"] + args, capture_output=True, text=True, env=env,
                       timeout=900)
    return p, q


def tally(what, where, label, counts):
    """Counts a verdict, printing where a pair parts."""
    if where:
        print("%s: %s" % (label, where))
    counts[what] += 1


def add_up(label, counts, totals):
    """Prints a group's counts and adds them to the totals."""
    print("%s: %s" % (label, ", ".join("%d %s" % (n, k) for k, n in counts.items())), flush=True)
    for k, n in counts.items():
        totals[k] += n


def finish(totals):
    """Prints the totals; the exit status: 1 when any pair parted."""
    print("total: " + ", ".join("%d %s" % (n, k) for k, n in totals.items()))
    return 1 if totals["differ"] or totals["refused by one"] else 0


def verdict(p, q):
    """(one of VERDICTS, a line saying where they part or "") for two
    subprocess results, pmrep's and mmvlog's."""
    if p.returncode != 0 and q.returncode != 0:
        return "refused by both", ""
    if (p.returncode != 0) != (q.returncode != 0):
        return "refused by one", "pmrep rc %d, mmvlog rc %d: %s" % (
            p.returncode, q.returncode, (p.stderr or q.stderr).strip()[-300:])
    if p.stdout == q.stdout:
        return "equal", ""
    pl, ql = p.stdout.splitlines(), q.stdout.splitlines()
    first = next((i for i in range(max(len(pl), len(ql)))
                  if i >= len(pl) or i >= len(ql) or pl[i] != ql[i]), 0)
    pc = pl[first].split(",") if first < len(pl) else []
    qc = ql[first].split(",") if first < len(ql) else []
    col = next((j for j in range(max(len(pc), len(qc)))
                if j >= len(pc) or j >= len(qc) or pc[j] != qc[j]), 0)
    head = pl[0].split(",") if pl else []
    return "differ", "line %d of %d, column %d (%s): pmrep %r, mmvlog %r" % (
        first + 1, len(pl), col, head[col] if col < len(head) else "?",
        pc[col][:200] if col < len(pc) else "(none)", qc[col][:200] if col < len(qc) else "(none)")
