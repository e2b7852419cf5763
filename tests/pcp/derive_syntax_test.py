"""The derived metric language's syntax (format/derive) beside libpcp 7.2's.

For each expression of a corpus, pminfo 7.2 loads "t.eN = EXPR" lines
(pmLoadDerivedConfig, as PCP_DERIVED_CONFIG and pmrep do) and says, for each
it refuses, where its caret goes and its message; tests/pcp:derive_parse_tool
says the same of ours. They must agree on every expression: parsed or
refused, the caret's place, the message (or none).

The corpus: every formula of the pmrep metric sets installed with PCP
(/etc/pcp/pmrep/*.conf, 6.0.3's and 7.2's), a list of mistakes and forms
written here, and mutations of the formulas (a token removed, doubled or
moved, an operator put in, the text cut short: seeded, so the same each
run). Where 6.0.3's pminfo says otherwise than 7.2's, 7.2 is followed (the
count of such expressions is printed).

libpcp's lexer keeps "inside matchinst()" across expressions when one fails
there (a '/' in every later expression is then a pattern); each expression
that names matchinst is followed by one that ends it, so each is judged
alone, as ours are. Not yet compared: the units string of rescale() and
mkconst(units=...) (pmParseUnitsStr(3) is not written yet; any string is
taken).
"""

import configparser
import glob
import os
import random
import re
import subprocess
import sys
import unittest

import pcp7

TOOL = pcp7.runfile("tests/pcp/derive_parse_tool")
ARCHIVE = pcp7.runfile("tests/testdata/pcpqa/19970807.09.54")

HAND = r"""
3 + * 4
3 +
a b
a + b c
3 4
(a
(a + b
a + (*
avg(a
sum(sample.bin
sum(3)
delta(
delta(+)
rate(a
instant(3)
-
- +
!
! +
a ? b
a ? b :
a ? : b
a &&
a || *
a[foo
a[foo] b
+ 3
* a
) a
a )
a ( b
a ==
a = b
a & b
a $ b
99999999999
4294967295
4294967296
"abc"
rescale(a, b)
rescale(a
rescale(a, "Kbyte") + 1
matchinst(/abc, a)
matchinst(/a/ a)
matchinst(/a/,
matchinst(a, b)
matchinst(!/^(lo)|(vbir)/, network.interface.in.bytes)
matchinst(/a/, b/c)
matchinst(/(/, b)
mkconst(3, type=foo)
mkconst(3)
mkconst(3.5, type=u32)
mkconst(3.5, type=double, semantics=counter)
mkconst(3, units="bytes")
mkconst(3, semantics=bogus)
mkconst(3, indom=29.2)
mkconst(3, indom=511.2)
mkconst(3, indom=null, meta=kernel.all.load)
mkconst(3, meta=3)
mkconst(a)
novalue(type=u32) ? a : b
a ? novalue() : novalue()
a ? novalue() : b
a ? b : novalue(type=u64, semantics=counter)
a ? novalue( : b
a ? novalue() + 1 : b
defined(3)
defined(a) ? a : b
scalar(
scalar(a[x]) + scalar(a[y])
count()
a.b.c + 1.5.6
type + 1
1 + 2 * 3 -
a < b < c
-a*b
!a>b||c<d
a?b:c?d:e
a ? b ? c : d : e
(a + b)[eth0]
a[x][y]
a[a\]b]
a[x
instant(a + b)
delta(a) / delta(b)
100 * rate(a) / hinv.ncpu
a &&& b
a ||| b
a !== b
a <== b
a >= = b
.5 + 5.
1..2
avg ( a )
avg(a) ) 
avg(a) b
(a)) 
((a)
a , b
a : b
a @ b
a ? b : c d
a + novalue()
anon(PM_TYPE_U32)
sum(a) + count(b) * max(c) - min(d) / avg(e)
rescale(rate(a), "Mbyte / sec")
""".strip("\n").split("\n")


def formulas():
    """Every formula of the pmrep metric sets PCP installs (pmrep.conf(5):
    a value may go on over indented lines), joined onto one line."""
    out = set()
    for conf in sorted(glob.glob("/etc/pcp/pmrep/*.conf") +
                       glob.glob(os.path.join(pcp7.PREFIX, "etc/pcp/pmrep/*.conf"))):
        parser = configparser.ConfigParser(interpolation=None, strict=False)
        parser.optionxform = str
        parser.read(conf, encoding="utf-8")
        for section in parser.sections():
            for key, value in parser.items(section, raw=True):
                if key.endswith(".formula"):
                    out.add(" ".join(value.split()))
    return sorted(out)


TOKEN = re.compile(r'\s+|[A-Za-z][\w.]*\(?|\d+\.?\d*|\.\d+|"[^"]*"|\[[^\]]*\]|&&|\|\||[<>=!]=|.')


def mutations(exprs, seed=20261128):
    rnd = random.Random(seed)
    inserts = ["+", "*", "/", "(", ")", "?", ":", ",", "<", "==", "&&", "!", "-", "3", "x.y",
               "[i]", '"s"', "avg(", "rate(", "=", "&"]
    out = []
    for e in exprs:
        tokens = [t for t in TOKEN.findall(e) if t.strip()]
        if len(tokens) < 2:
            continue
        for _ in range(12):
            t = list(tokens)
            kind = rnd.randrange(5)
            i = rnd.randrange(len(t))
            if kind == 0:
                del t[i]
            elif kind == 1:
                t.insert(i, t[i])
            elif kind == 2:
                t.insert(i, rnd.choice(inserts))
            elif kind == 3:
                t = t[:i + 1]
            else:
                j = rnd.randrange(len(t))
                t[i], t[j] = t[j], t[i]
            m = " ".join(t)
            if m != e and not m.startswith("#") and not m.endswith("\\") and "=" not in m.split()[0]:
                out.append(m)
    return sorted(set(out))


def write_definitions(path, exprs, prefix="t.e"):
    """A pmLoadDerivedConfig file defining PREFIX<i> = exprs[i]. libpcp's
    lexer stays "in matchinst" after an expression fails there (a '/' in
    every later one is then a pattern): each expression naming matchinst is
    followed by one that ends it, so each is judged alone."""
    with open(path, "w") as f:
        for i, e in enumerate(exprs):
            f.write("%s%d = %s\n" % (prefix, i, e))
            if "matchinst" in e:
                f.write("%sreset%d = matchinst(/r/, r)\n" % (prefix, i))


def pcp_verdicts(exprs, env=None, pminfo="pminfo"):
    """{expression index: ("ok",) or ("error", position, message)} from libpcp."""
    root = os.environ.get("TEST_TMPDIR", "/tmp")
    conf = os.path.join(root, "derive_syntax.conf")
    write_definitions(conf, exprs)
    p = subprocess.run([pminfo, "-a", ARCHIVE, "-c", conf, "no.such.metric"], env=env,
                       capture_output=True, text=True)
    lines = (p.stdout + p.stderr).split("\n")
    out = {i: ("ok",) for i in range(len(exprs))}
    k = 0
    while k < len(lines):
        m = re.match(r"^\[.*:(\d+)\] Error: pmRegisterDerived\(t\.e(\d+), \.\.\.\) syntax error$",
                     lines[k])
        if not m:
            k += 1
            continue
        i = int(m.group(2))
        caret = lines[k + 2]
        message = lines[k + 3] if k + 3 < len(lines) else ""
        if message.startswith("[") or message.startswith("no.such.metric") or not message:
            message = ""
            k += 3
        else:
            k += 4
        # The text after "=": one space, then the expression.
        out[i] = ("error", caret.index("^") - 1, message)
    return out


def ours(exprs):
    p = subprocess.run([TOOL], input="\n".join(exprs) + "\n", capture_output=True, text=True,
                       check=True)
    out = {}
    for i, line in enumerate(p.stdout.split("\n")[:len(exprs)]):
        if line == "ok":
            out[i] = ("ok",)
        else:
            _, pos, message = line.split(" ", 2)
            out[i] = ("error", int(pos), message)
    return out


class DeriveSyntaxTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        pcp7.require()
        cls.formulas = formulas()

    def compare(self, exprs, what):
        pcp = pcp_verdicts(exprs, env=pcp7.env(), pminfo=pcp7.tool("pminfo"))
        got = ours(exprs)
        differ = [(exprs[i], pcp[i], got[i]) for i in range(len(exprs)) if pcp[i] != got[i]]
        refused = sum(1 for v in pcp.values() if v[0] == "error")
        pcp6 = pcp_verdicts(exprs, env=pcp7.pcp6_env())
        older = sum(1 for i in range(len(exprs)) if pcp6[i] != pcp[i])
        print("%s: %d expressions, %d refused by libpcp 7.2, %d differ from ours; "
              "6.0.3 says otherwise on %d" % (what, len(exprs), refused, len(differ), older),
              file=sys.stderr)
        self.assertEqual(differ[:20], [], "%d of %d differ (expression, libpcp 7.2, ours)"
                         % (len(differ), len(exprs)))
        return refused

    def test_pmrep_formulas(self):
        self.assertGreater(len(self.formulas), 100)  # 183 in 6.0.3, 107 different
        self.assertEqual(self.compare(self.formulas, "pmrep formulas"), 0)

    def test_mistakes_and_forms(self):
        self.assertGreater(self.compare(HAND, "hand-written"), 60)

    def test_mutated_formulas(self):
        exprs = mutations(self.formulas)
        self.assertGreater(len(exprs), 900)
        self.assertGreater(self.compare(exprs, "mutations"), 700)


if __name__ == "__main__":
    unittest.main()
