"""Label sets as PCP 7.2's libpcp builds them, against mmvlog's.

pmdammv builds the label set of one identifier (a cluster, an item, an
indom, an instance) with one __pmAddLabels call per MMV label payload, in
file order, into a set that starts empty; a payload libpcp refuses is left
out. tests/pcp/pcp_labels_tool does exactly that with PCP 7.2's libpcp
(built against it at test time), tests/pcp/label_set_tool with mmvlog's
format::MakeLabelSet and format::MergeLabelSets; their JSON and label
entries (name and value offsets and lengths, flags) must be equal.

What 7.2 changed (labels.c), checked here:
  - a label name may begin with '_' or a digit: [A-Za-z0-9_] anywhere
    (verify_label_name l.489-512; 6.0.3 wanted a letter first);
  - an invalid name is skipped with its value, not the whole payload
    refused (labels_token_callback l.745-761), unless no name was valid
    (__pmParseLabels l.856-865);
and what both versions do (tests/pcp/archive_meta_oracle_test checks the
single payloads against 6.0.3): a payload alone keeps a nested object as
written, with one compound entry per innermost name; merging payloads
writes every label flat, a compound one under its dotted name
("item_label3.a"), sorted by those names (__pmMergeLabelSets l.892-970);
an empty object is a label of its own, value {}.

Known differences, where PCP's merge goes wrong and mmvlog does not follow
(stated below): an object nested two deep is merged as "a.c" for a.b.c
(mmvlog: "a.b.c"), sometimes with garbage names; once a set holds compound
labels, a third payload makes PCP write their names wrongly (a name twice,
another lost); a name given first as a value and then as an object is lost;
arrays keep the whitespace they were written with (PCP then writes
"a"::[..]). A set from libpcp_mmv's payloads (one name each, an object at
most one deep) meets none of these.
"""

import os
import random
import subprocess
import unittest

import pcp7

TOOL = pcp7.runfile("tests/pcp/label_set_tool")

TYPE_ITEM, TYPE_CLUSTER, TYPE_INSTANCES, OPTIONAL = 16, 8, 32, 128


def run(tool, lines):
    out = subprocess.run([tool], input="".join(l + "\n" for l in lines), capture_output=True,
                         text=True, check=True, env=dict(pcp7.env()) if tool != TOOL else None)
    got = out.stdout.split("\n")
    assert got[-1] == ""
    assert len(got) - 1 == len(lines), (len(got), len(lines))
    return got[:-1]


class LabelJsonOracleTest(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        pcp7.require()
        cls.pcp = pcp7.compile_c(pcp7.runfile("tests/pcp/pcp_labels_tool.c"), "pcp_labels_tool")

    def compare(self, lines):
        theirs, ours = run(self.pcp, lines), run(TOOL, lines)
        diffs = [(l, t, o) for l, t, o in zip(lines, theirs, ours) if t != o]
        if diffs:
            self.fail("%d of %d label sets differ from PCP 7.2's, e.g.:\n%s" % (
                len(diffs), len(lines), "\n".join(
                    "  input  %r\n  pcp    %r\n  mmvlog %r" % d for d in diffs[:10])))

    def test_table(self):
        cases = [
            '{"b":1,"a":"x"}',
            '{"agent":"mmv","hostname":"x"}',
            ' { "b" : [1,2,"a b"] ,\n\t"a" : "x y" } '.replace("\n", " ").replace("\t", " "),
            '{"a":null}', '{"a":true,"B":false,"c9_":1}', '{"a":1e5,"b":-0.5E+3,"c":1.50}',
            '{}',
            # 7.2: names beginning with '_' or a digit.
            '{"_x":1}', '{"1x":1}', '{"_":2}', '{"_private":"p"}',
            # 7.2: invalid names skipped, alone refused.
            '{"a-b":1}', '{"a-b":1,"c":2}', '{"a.b":1}', '{"c":2,"é":3}',
            '{"bad-key":[1,2],"ok":{"x":1}}',
            # Compound labels, alone: kept nested.
            '{"svc":{"name":"web","tier":{"z":2,"a":1}}}',
            '{"svc":{"_hidden":1,"bad-key":2,"ok":3}}',
            '{"a":{"bad-key":1}}', '{"a":{}}', '{"a":{},"b":1}', '{"a-b":{"c":1},"d":2}',
            '{"a":{"b-c":{"d":1},"e":2}}',
        ]
        lines = ["%d\t%s" % (f, c) for c in cases
                 for f in (TYPE_ITEM, TYPE_CLUSTER, TYPE_INSTANCES | OPTIONAL)]
        # Several payloads for one identifier, as pmdammv merges them.
        lines += [
            '32\t{"item_label3":{"a":1}}\t{"item_label3":{"b":2}}',
            '32\t{"role":"lead"}\t{"item_label3":{"a":1}}\t{"item_label3":{"b":2}}',
            '16\t{"bad-key":1}\t{"ok2":true}',
            '16\t{"b":1}\t{"a":2}\t{"b":3}',
            '144\t{"x":1}\t{"y":{"z":2}}',
            '16\t{"a":{"b":1}}\t{"a":{"b":3}}',
            '16\t{"a":{"b":1},"c":1}\t{"a":{"b":3}}',
            '16\t{"a":{"b":1}}\t{"a":{"c":3}}\t{"x":1}',
            '16\t{"a":{"b":1}}\t{"a":5}',
            '16\t{"x":1}\t{"x":2,"y":{"a":1}}',
            '16\t{"_a":1}\t{"a-b":2}\t{"9":3}',
            '8\t{"a-b":1}\t{"c-d":2}',
        ]
        self.compare(lines)
        # Stated, so both cannot be wrong alike.
        ours = run(TOOL, ['32\t{"item_label3":{"a":1}}\t{"item_label3":{"b":2}}',
                          '8\t{"svc":{"_hidden":1,"bad-key":2,"ok":3}}', '8\t{"a-b":1}'])
        self.assertEqual(ours, ['{"item_label3.a":1,"item_label3.b":2}\t2,13,96,17,1;20,13,96,35,1',
                                '{"svc":{"_hidden":1,"ok":3}}\t9,7,72,18,1;21,2,72,25,1',
                                'refused'])

    def test_known_differences(self):
        """Where PCP's merge goes wrong; what mmvlog writes instead."""
        cases = {
            '16\t{"a":{"b":{"c":1}}}\t{"d":2}':
                ('{"a.c":1,"d":2}', '{"a.b.c":1,"d":2}\t2,5,80,9,1;12,1,16,15,1'),
            '16\t{"a":{"b":1}}\t{"a":{"c":2}}\t{"a":{"b":3}}':
                ('{"a.b":3,"a.b":1,"a.c":2}', '{"a.b":3,"a.c":2}\t2,3,80,7,1;10,3,80,15,1'),
            '16\t{"a":5}\t{"a":{"b":1}}':
                ('{"a.b":1}', '{"a":5,"a.b":1}\t2,1,16,5,1;8,3,80,13,1'),
            '16\t{"a":[1, 2]}\t{"b":1}':
                ('{"a"::[1,2],"b":1}', '{"a":[1,2],"b":1}\t2,1,16,5,5;12,1,16,15,1'),
            # Found by the sweep: a third payload after two with compound
            # labels; PCP writes "mc18ay.iC8_Aa10" twice, iYxC00_y's value
            # under the second.
            '8\t{"vC":74357,"mc18ay":{"iYxC00_y":".-1cz ba ","iC8_Aa10":88269,"iYc":-33480},'
            '"v0xB8B":[7]}\t{"vXz_Y90C":"bbyccyaxb","mc1c":{"iYyC1":true}}\t{"vxcca0Xb":197}':
                ('{"mc18ay.iC8_Aa10":88269,"mc18ay.iYc":-33480,"mc18ay.iC8_Aa10":".-1cz ba ",'
                 '"mc1c.iYyC1":true,"v0xB8B":[7],"vC":74357,"vXz_Y90C":"bbyccyaxb",'
                 '"vxcca0Xb":197}',
                 '{"mc18ay.iC8_Aa10":88269,"mc18ay.iYc":-33480,"mc18ay.iYxC00_y":".-1cz ba ",'
                 '"mc1c.iYyC1":true,"v0xB8B":[7],"vC":74357,"vXz_Y90C":"bbyccyaxb",'
                 '"vxcca0Xb":197}\t2,15,72,19,5;26,10,72,38,6;46,15,72,63,11;76,10,72,88,4;'
                 '94,6,8,102,3;107,2,8,111,5;118,8,8,128,11;141,8,8,151,3'),
        }
        lines = list(cases)
        for line, theirs, ours in zip(lines, run(self.pcp, lines), run(TOOL, lines)):
            self.assertEqual(theirs.split("\t")[0], cases[line][0], line)
            self.assertEqual(ours, cases[line][1], line)

    def test_seeded_random_sweep(self):
        rng = random.Random(20260723)
        first = "abcxyzABCXYZ019_"
        rest = "abcxyzABCXYZ0189_"

        def name(pool):
            n = pool + rng.choice(first) + "".join(rng.choice(rest)
                                                   for _ in range(rng.randint(0, 6)))
            r = rng.random()
            if r < 0.04:
                n += "-"       # invalid: skipped
            elif r < 0.06:
                n += "."       # invalid outside a merge
            return n

        def scalar():
            k = rng.randint(0, 5)
            if k == 0:
                return rng.choice(["true", "false", "null"])
            if k == 1:
                return str(rng.randint(-100000, 100000))
            if k == 2:
                return "%d.%de%d" % (rng.randint(-99, 99), rng.randint(0, 999),
                                     rng.randint(-5, 5))
            if k == 3:
                return "[%s]" % ",".join(str(rng.randint(0, 9)) for _ in range(rng.randint(0, 3)))
            s = "".join(rng.choice("abc xyz019._-") for _ in range(rng.randint(0, 12)))
            return '"%s"' % s

        lines = []
        for _ in range(3000):
            flags = rng.choice([TYPE_ITEM, TYPE_CLUSTER, TYPE_INSTANCES, TYPE_ITEM | OPTIONAL])
            payloads = []
            count = rng.randint(1, 3)
            for p in range(count):
                members = {}
                for _ in range(rng.randint(1, 5)):
                    # Objects (one level deep) only where no third payload
                    # follows, and under names of their own ("m..."): see the
                    # known differences.
                    if count < 3 and rng.random() < 0.3:
                        inner = {name("i"): scalar() for _ in range(rng.randint(0, 3))}
                        members[name("m")] = "{%s}" % ",".join('"%s":%s' % kv
                                                               for kv in inner.items())
                    else:
                        members[name("v")] = scalar()
                payloads.append("{%s}" % ",".join('"%s":%s' % kv for kv in members.items()))
            lines.append("%d\t%s" % (flags, "\t".join(payloads)))
        # The sweep reaches what it is for: invalid names skipped and sets
        # refused, merges, compound labels.
        ours = run(TOOL, lines)
        self.assertGreater(sum(1 for r in ours if r == "refused"), 5)
        self.assertGreater(sum(1 for l in lines if '-"' in l or '."' in l), 300)
        self.assertGreater(sum(1 for l in lines if l.count("\t") > 1), 1000)
        self.assertGreater(sum(1 for r in ours if ",96," in r or ",80," in r or ",72," in r), 300)
        self.compare(lines)


if __name__ == "__main__":
    unittest.main()
