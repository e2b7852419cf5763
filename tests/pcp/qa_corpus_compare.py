#!/usr/bin/python3
"""By hand, against PCP's whole QA collection (not in CI: its 26 MB stay in
PCP's repository): every archive in DIR dumped by pmdumplog 6.0.3 and by
`mmvlog replay --dump`, compared record by record (times, <mark>s, the
(metric, instance) of every value), then again with -z (every time in the
archive's own zone).

    git -C PCP_SOURCE archive HEAD qa/archives | tar -x -C /tmp/qa
    tests/pcp/qa_corpus_compare.py /tmp/qa/qa/archives [MMVLOG]

Prints each archive that differs and a last line "N archives, M differ";
exits 1 when any differs. (2026-11-27, PCP 918d12b68b: 229 archives, 0
differ, both ways.)
"""

import collections
import os
import re
import subprocess
import sys

RECORD = re.compile(r"^(\d\d:\d\d:\d\d\.\d+) +(?:(\d+) metrics?|<mark>)")
OURS = re.compile(r"^\d{4}-\d\d-\d\d (\d\d:\d\d:\d\d\.\d+) +(?:(\d+) values?|<mark>)")


def pcp(text):
    out, pmid = [], None
    for line in text.splitlines():
        m = RECORD.match(line)
        if m:
            out.append([m.group(1), m.group(2) is None, collections.Counter()])
            pmid = None
            continue
        if not out:
            continue
        m = re.match(r"^    (\d+\.\d+\.\d+) \(.*?\): ?(.*)$", line)
        if m:
            pmid, rest = m.groups()
            mi = re.match(r"inst \[(-?\d+) or .*?\] value ", rest)
            if mi:
                out[-1][2][(pmid, mi.group(1))] += 1
            elif rest.startswith("value "):
                out[-1][2][(pmid, "-")] += 1
            continue
        m = re.match(r"^        inst \[(-?\d+) or .*?\] value ", line)
        if m and pmid:
            out[-1][2][(pmid, m.group(1))] += 1
    return out


def ours(text, digits):
    out = []
    for line in text.splitlines():
        m = OURS.match(line)
        if m:
            out.append([m.group(1)[:9 + digits], m.group(2) is None, collections.Counter()])
            continue
        m = re.match(r"^    (\d+\.\d+\.\d+) \(.*?\) (?:inst \[(-?\d+) or .*?\] )?value ", line)
        if m and out:
            out[-1][2][(m.group(1), m.group(2) or "-")] += 1
    return out


def main():
    d = sys.argv[1]
    mmvlog = sys.argv[2] if len(sys.argv) > 2 else "bazel-bin/cmd/mmvlog"
    bases = sorted({re.sub(r"\.meta(\.\w+)?$", "", f) for f in os.listdir(d)
                    if re.search(r"\.meta(\.(xz|gz|bz2|zst|lzma|Z|z|bz))?$", f)})
    env = dict(os.environ, TZ="UTC")
    env.pop("PCP_CONF", None)
    bad = 0
    for b in bases:
        p = os.path.join(d, b)
        for zone in ([], ["-z"]):
            a = subprocess.run(["/usr/bin/pmdumplog"] + zone + [p], capture_output=True,
                               text=True, errors="replace", env=env).stdout
            m = subprocess.run([mmvlog, "replay", "--dump"] + zone + ["-a", p],
                               capture_output=True, text=True, errors="replace", env=env).stdout
            theirs = pcp(a)
            mine = ours(m, len(theirs[0][0]) - 9 if theirs else 6)
            if theirs != mine:
                bad += 1
                first = next((i for i, (x, y) in enumerate(zip(theirs, mine)) if x != y),
                             min(len(theirs), len(mine)))
                print("DIFF %s %s: %d vs %d records, first at %d" %
                      (b, " ".join(zone), len(theirs), len(mine), first))
    print("%d archives, %d differ" % (len(bases), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
