"""pmrep.conf as pmrep reads it: format::ParseIni and format::ReadSet
(tests/pcp/pmrep_conf_tool) beside Python's configparser (pmrep's reader,
values as pmrep gets them) and pmrep's own pmconfig.parse_metric_info, over
Debian's /etc/pcp/pmrep/*.conf and crafted files: the same sections, keys
and values; the same metrics with the same label, instances, unit, type,
width, precision, limit and formula; both refuse what configparser refuses.
"""

import configparser
import glob
import json
import os
import subprocess
import sys
import unittest
from collections import OrderedDict

sys.path.insert(0, "/usr/lib/python3/dist-packages")
try:
    from pcp import pmconfig  # noqa: E402
except ImportError:  # pragma: no cover
    pmconfig = None

TOOL = os.path.join(os.environ["TEST_SRCDIR"], "mmvlog", "tests/pcp/pmrep_conf_tool")
KEYS = ('source', 'output', 'derived', 'header', 'globals', 'samples', 'interval', 'type',
        'precision', 'daemonize', 'timestamp', 'unitinfo', 'colxrow', 'separate_header',
        'fixed_header', 'delay', 'width', 'delimiter', 'extcsv', 'width_force', 'extheader',
        'repeat_header', 'timefmt', 'interpol', 'dynamic_header', 'overall_rank',
        'overall_rank_alt', 'sort_metric', 'count_scale', 'space_scale', 'time_scale', 'version',
        'count_scale_force', 'space_scale_force', 'time_scale_force', 'type_prefer',
        'precision_force', 'limit_filter', 'limit_filter_force', 'live_filter', 'rank',
        'invert_filter', 'predicate', 'names_change', 'speclocal', 'instances', 'ignore_incompat',
        'ignore_unknown', 'omit_flat', 'instinfo', 'include_labels', 'include_texts')

CRAFTED = {
    "continued.conf": "[s]\nm.a = x,,,\nf = d.f\nf.formula =\n  1 +\n  2\n# c\n; c\n",
    "quoted.conf": "[s]\ndisk.dev.read = r,\"sda,sdb\",,,8\nm.b = b,'x y',KB\nm.c = c,z,,raw,,2,10\n",
    "percent.conf": "[s]\nm.a = %%a,,,\nm.b = %(x)s,,\nx = lab\n",
    "colon.conf": "[s]\nm.a: l,,,\nm.b : l2,,,\n",
    "attrs.conf": "[s]\nk = m.k\nk.label = K\nk.instances = a|b\nk.unit = MB\nk.type = raw\n"
                  "k.width = 9\nk.precision = 1\nk.limit = 5\nm.k = again,,,\n",
    "dup-key.conf": "[s]\nm.a = x,,,\nm.a = y,,,\n",
    "dup-section.conf": "[s]\nm.a = x,,,\n[s]\nm.b = y,,,\n",
    "no-section.conf": "m.a = x,,,\n",
    "bad-percent.conf": "[s]\nm.a = 50%,,,\n",
    "no-equals.conf": "[s]\njust a line\n",
    "undeclared.conf": "[s]\nk.label = K\n",
}


def configparser_view(path):
    c = configparser.ConfigParser()
    c.optionxform = str
    try:
        c.read(path)
        return [[s, [[k, v] for k, v in c.items(s)]] for s in c.sections()], c
    except configparser.Error:
        return None, None


class Util(object):
    derived = None
    keys = KEYS


def pmconfig_sets(c):
    out = {}
    util = Util()
    pc = pmconfig.pmConfig(util)
    for s in c.sections():
        if s == "options":
            continue
        parsed = OrderedDict()
        try:
            for key in c.options(s):
                if key in KEYS:
                    continue
                pc.parse_metric_info(parsed, key, c.get(s, key))
        except ValueError as e:
            out[s] = str(e)
            util.derived = None
            continue
        formulas = dict(d.split("=", 1) for d in filter(None, (util.derived or "").split(";")))
        util.derived = None
        metrics = OrderedDict()
        for key, m in parsed.items():
            m = list(m) + [None] * (8 - len(m))
            metrics[m[0]] = [m[0], m[1] or "", m[2] or [], m[3] or "", m[4] or "", m[5] or "",
                             m[6] or "", m[7] or "", formulas.get(m[0], "")]
        out[s] = list(metrics.values())
    return out


class PmrepConfOracleTest(unittest.TestCase):

    def test_files(self):
        if pmconfig is None:
            raise unittest.SkipTest("python3-pcp is not installed")
        root = os.environ.get("TEST_TMPDIR", "/tmp")
        files = sorted(glob.glob("/etc/pcp/pmrep/*.conf"))
        for name, text in CRAFTED.items():
            path = os.path.join(root, name)
            with open(path, "w") as f:
                f.write(text)
            files.append(path)
        sets = 0
        for path in files:
            mine = json.loads(subprocess.run([TOOL, path], capture_output=True, text=True,
                                             check=True).stdout)
            theirs, c = configparser_view(path)
            if theirs is None:
                self.assertIn("error", mine, path)
                continue
            self.assertNotIn("error", mine, path)
            self.assertEqual(mine["sections"], theirs, path)
            expected = pmconfig_sets(c)
            for s, m in expected.items():
                if isinstance(m, str):
                    self.assertIsInstance(mine["sets"][s], str, "%s [%s]" % (path, s))
                else:
                    self.assertEqual(mine["sets"][s], m, "%s [%s]" % (path, s))
                    sets += 1
        print("%d files, %d sets read alike" % (len(files), sets))
        self.assertGreater(sets, 70)


if __name__ == "__main__":
    unittest.main()
