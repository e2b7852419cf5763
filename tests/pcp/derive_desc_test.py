"""Derived metrics' descriptors (format/derive/derive_desc.h) beside libpcp 7.2's.

For each expression of a corpus, pminfo 7.2 -d (PCP_DERIVED_CONFIG empty, so
only ours are defined) prints the derived metric's type, instance domain,
semantics and units, or its semantic error; tests/pcp:derive_desc_tool
prints ours. They must agree on every expression.

The corpus, over the metrics of PCP QA archives (tests/testdata/pcpqa: a
2019 Linux host's 413 metrics of many units and instance domains, a 1996
IRIX one, a 1997 one): every formula of the pmrep metric sets PCP installs,
and seeded random expressions of every operator and function (+ - * /,
comparisons, && ||, -x, !x, ?: with defined() guards, avg sum count min max,
delta rate instant scalar, metric[instance], matchinst(), mkconst()) over
metrics of one instance domain or of several, counters and instants, strings
among them.
"""

import os
import random
import re
import subprocess
import sys
import unittest

import pcp7
from derive_syntax_test import formulas, write_definitions

TOOL = pcp7.runfile("tests/pcp/derive_desc_tool")
ARCHIVES = ["20190628.06.31", "960624.08.17_v2", "19970807.09.54"]


def archive(name):
    return pcp7.runfile("tests/testdata/pcpqa/" + name)


def pminfo(args, conf=None):
    env = {"PCP_DERIVED_CONFIG": ""}
    cmd = [pcp7.tool("pminfo")] + args
    if conf:
        cmd[1:1] = ["-c", conf]
    return pcp7.run(cmd, env=env)


def metrics(base):
    """{name: (type, indom, semantics, units)} of the archive, by pminfo -d."""
    out, name = {}, None
    for line in pminfo(["-a", base, "-d"]).stdout.split("\n"):
        m = re.match(r"^    Data Type: (.*)  InDom: (\S+) ", line)
        if m and name:
            out[name] = [m.group(1), m.group(2)]
            continue
        m = re.match(r"^    Semantics: (\S+)  Units: (.*)$", line)
        if m and name in out:
            out[name] += [m.group(1), m.group(2)]
            continue
        if line and not line.startswith(" "):
            name = line.strip()
    # libpcp's own derived metrics (PMID domain 511, e.g. event.missed) may
    # not be operands.
    derived = set(re.findall(r"^(\S+) PMID: 511\.", pminfo(["-a", base, "-m"]).stdout, re.M))
    return {k: tuple(v) for k, v in out.items() if len(v) == 4 and k not in derived}


def generate(rnd, ms, count):
    names = sorted(ms)
    numeric = [n for n in names if ms[n][0] not in ("string", "aggregate", "event record array")]
    by_indom = {}
    for n in numeric:
        by_indom.setdefault(ms[n][1], []).append(n)
    groups = [g for g in by_indom.values() if len(g) > 1]

    def gen(pool, depth):
        if depth == 0 or rnd.random() < 0.25:
            r = rnd.random()
            if r < 0.8:
                return rnd.choice(pool if rnd.random() < 0.9 else names)
            if r < 0.92:
                return str(rnd.randrange(0, 1000))
            return "%d.%d" % (rnd.randrange(10), rnd.randrange(100))
        k = rnd.randrange(16)
        sub = lambda: gen(pool, depth - 1)
        if k < 5:
            return "(%s %s %s)" % (sub(), rnd.choice("+-*/"), sub())
        if k == 5:
            return "(%s %s %s)" % (sub(), rnd.choice(["<", "<=", "==", ">=", ">", "!="]), sub())
        if k == 6:
            return "(%s %s %s)" % (sub(), rnd.choice(["&&", "||"]), sub())
        if k == 7:
            return "%s(%s)" % (rnd.choice(["-", "!"]), sub())
        if k == 8:
            return "%s(%s)" % (rnd.choice(["avg", "sum", "count", "min", "max"]),
                               rnd.choice(pool if rnd.random() < 0.9 else names + ["no.such"]))
        if k in (9, 10):
            return "%s(%s)" % (rnd.choice(["delta", "rate", "instant", "scalar"]), sub())
        if k == 11:
            guard = rnd.choice(["defined(%s)" % rnd.choice(pool + ["no.such"]),
                                "!defined(no.such)", sub(), "1", "0"])
            then = rnd.choice([sub(), "novalue()", "no.such"]) if rnd.random() < 0.3 else sub()
            return "(%s ? %s : %s)" % (guard, then, sub())
        if k == 12:
            return "%s[i%d]" % (rnd.choice(pool), rnd.randrange(3))
        if k == 13:
            return "matchinst(%s/^.*%d/, %s)" % (rnd.choice(["", "!"]), rnd.randrange(9), sub())
        if k == 14:
            return "mkconst(%d, type=%s, semantics=%s)" % (
                rnd.randrange(100), rnd.choice(["32", "u32", "64", "u64", "double", "float"]),
                rnd.choice(["counter", "instant", "discrete"]))
        return "(%s)" % sub()

    out = set()
    while len(out) < count:
        pool = rnd.choice(groups) if groups and rnd.random() < 0.7 else numeric
        out.add(gen(pool, rnd.randrange(1, 4)))
    return sorted(out)


def pcp_descs(base, exprs, root):
    conf = os.path.join(root, "derive_desc.conf")
    write_definitions(conf, exprs)
    p = pminfo(["-a", base, "-d", "t"], conf=conf)
    text = p.stdout + p.stderr
    out = {}
    for m in re.finditer(r"^Semantic error: derived metric t\.e(\d+): (.*)$", text, re.M):
        out.setdefault(int(m.group(1)), ("error", m.group(2)))
    for m in re.finditer(r"^t\.e(\d+)\n    Data Type: (.*)  InDom: (\S+) \S+\n"
                         r"    Semantics: (\S+)  Units: (.*)$", text, re.M):
        out[int(m.group(1))] = ("desc", "|".join(m.group(2, 3, 4, 5)))
    for m in re.finditer(r"^Error: pmRegisterDerived\(t\.e(\d+)|^\[.*\] Error: pmRegisterDerived"
                         r"\(t\.e(\d+)", text, re.M):
        out[int(m.group(1) or m.group(2))] = ("syntax",)
    return out, text


def our_descs(base, exprs):
    p = subprocess.run([TOOL, base], input="\n".join(exprs) + "\n", capture_output=True,
                       text=True, check=True)
    out = {}
    for i, line in enumerate(p.stdout.split("\n")[:len(exprs)]):
        kind, _, rest = line.partition(" ")
        out[i] = ("syntax",) if kind == "syntax" else (kind, rest)
    return out


class DeriveDescTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        pcp7.require()
        cls.root = os.environ.get("TEST_TMPDIR", "/tmp")

    def compare(self, base, exprs, what):
        pcp, text = pcp_descs(base, exprs, self.root)
        got = our_descs(base, exprs)
        missing = [exprs[i] for i in range(len(exprs)) if i not in pcp]
        self.assertEqual(missing[:10], [], "pminfo said nothing of these")
        differ = [(exprs[i], pcp[i], got[i]) for i in range(len(exprs)) if pcp[i] != got[i]]
        kinds = {}
        for v in pcp.values():
            kinds[v[0]] = kinds.get(v[0], 0) + 1
        print("%s over %s: %d expressions (%s), %d differ" % (
            what, os.path.basename(base), len(exprs),
            ", ".join("%d %s" % (n, k) for k, n in sorted(kinds.items())), len(differ)),
            file=sys.stderr)
        self.assertEqual(differ[:15], [], "%d of %d differ (expression, libpcp 7.2, ours)"
                         % (len(differ), len(exprs)))
        return kinds

    def test_pmrep_formulas(self):
        kinds = self.compare(archive(ARCHIVES[0]), formulas(), "pmrep formulas")
        self.assertGreater(kinds.get("desc", 0), 30)

    def test_random_expressions(self):
        for n, name in enumerate(ARCHIVES):
            with self.subTest(archive=name):
                base = archive(name)
                exprs = generate(random.Random(20261128 + n), metrics(base), 700)
                kinds = self.compare(base, exprs, "random")
                self.assertGreater(kinds.get("desc", 0), 150)
                self.assertGreater(kinds.get("error", 0), 100)


if __name__ == "__main__":
    unittest.main()
