"""Every record of every archive shape PCP reads, and every wall-clock time
in every zone PCP takes, compared with PCP's own tools.

The corpus (built in setUpClass, nothing recorded live, so every run sees
the same bytes):
  - PCP QA's archives in tests/testdata/pcpqa (README.md there): records of
    sets without values and with PCP errors, singular values stored under
    instance 0, value blocks of type 0, strings without their NUL, UTF-8
    strings, .xz volumes and metadata, zones with daylight-saving rules;
  - LOGIMPORT's (interp_archives.py: every type and semantics, <mark>s, an
    instance domain whose instances come and go; empty_sets_writer.c: sets
    without values and with errors, v2 and v3);
  - those rewritten by pmlogextract (a -S/-T window; two archives joined
    into one) and pmlogrewrite (a metric renamed, a type changed, a metric
    deleted);
  - truncated ones (a volume cut inside a record: a torn tail);
  - compressed ones (.xz, .bz2, .gz volumes);
  - a directory of a v2 and a v3 archive read as one (pmrep, pmval).
Each is dumped by `mmvlog replay --dump` and by pmdumplog 6.0.3 and
pmlogdump 7.2: the same records in the same order (times, <mark>s) holding
the same (metric, instance) values; with -z the same times. The text table
at the records (`replay -o text`) is pmval -U's row for row, "No values
available" lines included.

Zones (zone_archives.py: LOGIMPORT archives whose label carries a POSIX TZ
with M, day-of-year and no rules, zoneinfo names with and without ':', a
fixed offset, UTC, each across a daylight-saving change): `replay -z` CSV
rows (times and values) equal pmrep -z's, the text table pmval -z's (6.0.3
and 7.2), -S/-T given as wall-clock times in the gap and the overlap of a
change included, and -Z ZONE likewise; under $TZ the text table is
pmval's (pmrep's frozen offset is stated as PCP's difference).
"""

import csv
import io
import os
import re
import shutil
import subprocess
import unittest

import pcp7


def runfile(path):
    return os.path.join(os.environ["TEST_SRCDIR"], "mmvlog", path)


MMVLOG = runfile("cmd/mmvlog")
HERE = os.path.dirname(os.path.abspath(__file__))
QA = runfile("tests/testdata/pcpqa")
PY = "/usr/bin/python3"  # Debian's, with python3-pcp
RECORD = re.compile(r"^(\d\d:\d\d:\d\d\.\d+) +(?:(\d+) metrics?|<mark>)")
OUR_RECORD = re.compile(r"^\d{4}-\d\d-\d\d (\d\d:\d\d:\d\d\.\d+) +(?:(\d+) values?|<mark>)")


def run(args, env=None, timeout=300):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          errors="replace", env=env, timeout=timeout)


def pcp6_env(tz="UTC"):
    e = dict(os.environ, TZ=tz, PATH="/usr/bin:" + os.environ.get("PATH", ""))
    e.pop("PCP_CONF", None)
    return e


def pcp_records(text):
    """[(time, is_mark, {(pmid, inst): count})] of a pmdumplog listing."""
    out, pmid = [], None
    for line in text.split("\n"):
        m = RECORD.match(line)
        if m:
            out.append((m.group(1), m.group(2) is None, {}))
            pmid = None
            continue
        if not out:
            continue
        m = re.match(r"^    (\d+\.\d+\.\d+) \(.*?\): ?(.*)$", line)
        if m:
            pmid, rest = m.group(1), m.group(2)
            mi = re.match(r"inst \[(-?\d+) or .*?\] value ", rest)
            key = (pmid, mi.group(1)) if mi else ((pmid, "-") if rest.startswith("value ") else None)
            if key:
                out[-1][2][key] = out[-1][2].get(key, 0) + 1
            continue
        m = re.match(r"^        inst \[(-?\d+) or .*?\] value ", line)
        if m and pmid:
            key = (pmid, m.group(1))
            out[-1][2][key] = out[-1][2].get(key, 0) + 1
    return out


def our_records(text, digits):
    """The same of `replay --dump`, times cut to pmdumplog's `digits`."""
    out = []
    for line in text.split("\n"):
        m = OUR_RECORD.match(line)
        if m:
            out.append((m.group(1)[:9 + digits], m.group(2) is None, {}))
            continue
        m = re.match(r"^    (\d+\.\d+\.\d+) \(.*?\) (?:inst \[(-?\d+) or .*?\] )?value ", line)
        if m and out:
            key = (m.group(1), m.group(2) or "-")
            out[-1][2][key] = out[-1][2].get(key, 0) + 1
    return out


def table_rows(text):
    """[[time, cells...]] of a pmval table, "No values available" lines kept."""
    rows = []
    for line in text.split("\n"):
        if re.match(r"^\d\d:\d\d:\d\d\.\d{3}\s", line):
            rows.append(line.split()[:1] + (["No values available"] if "No values available" in line
                                             else line.split()[1:]))
    return rows


def csv_rows(text):
    """[(time to the second, [numbers])] of pmrep's or replay's CSV."""
    rows = list(csv.reader(io.StringIO(text)))[1:]
    out = []
    for r in rows:
        cells = []
        for c in r[1:]:
            try:
                cells.append(round(float(c), 3))
            except ValueError:
                cells.append(c)
        out.append((r[0][:19], cells))
    return out


class ArchiveCorpusTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.root = os.path.join(os.environ["TEST_TMPDIR"], "corpus")
        shutil.rmtree(cls.root, ignore_errors=True)
        os.makedirs(cls.root)
        cls.archives = {}  # name -> base
        qa = os.path.join(cls.root, "qa")
        shutil.copytree(QA, qa)
        for f in sorted(os.listdir(qa)):
            m = re.match(r"^(.*)\.meta(\.xz)?$", f)
            if m:
                cls.archives["qa/" + m.group(1)] = os.path.join(qa, m.group(1))
        for v in (2, 3):
            d = os.path.join(cls.root, "import%d" % v)
            p = run([PY, os.path.join(HERE, "interp_archives.py"), d, str(v)])
            if p.returncode != 0:
                raise AssertionError("LOGIMPORT: %s" % p.stderr)
            for name in ("basic", "mark", "indom", "subsec"):
                cls.archives["import%d/%s" % (v, name)] = os.path.join(d, name)
            gaps = os.path.join(cls.root, "gaps%d" % v)
            p = run([runfile("tests/pcp/empty_sets_writer"), gaps],
                    env=dict(os.environ, PCP_ARCHIVE_VERSION=str(v)))
            if p.returncode != 0:
                raise AssertionError("empty_sets_writer: %s" % p.stderr)
            cls.archives["gaps%d" % v] = gaps
        cls.rewrite()
        cls.zones = os.path.join(cls.root, "zones")
        p = run([PY, os.path.join(HERE, "zone_archives.py"), cls.zones])
        if p.returncode != 0:
            raise AssertionError("zone_archives: %s" % p.stderr)

    @classmethod
    def rewrite(cls):
        """The corpus's archives as PCP's tools rewrite them."""
        out = os.path.join(cls.root, "rewritten")
        os.makedirs(out)
        env = pcp6_env()

        def tool(args):
            p = run(args, env=env)
            if p.returncode != 0:
                raise AssertionError("%s: %s" % (" ".join(args), p.stderr))

        basic = cls.archives["import3/basic"]
        tool(["pmlogextract", "-S", "+5", "-T", "+25", basic, os.path.join(out, "window")])
        cls.archives["pmlogextract/window"] = os.path.join(out, "window")
        tool(["pmlogextract", os.path.join(cls.root, "import2", "multi", "m1"),
              os.path.join(cls.root, "import2", "multi", "m2"), os.path.join(out, "joined")])
        cls.archives["pmlogextract/joined"] = os.path.join(out, "joined")
        tool(["pmlogextract", cls.archives["qa/960624.08.17_v2"], os.path.join(out, "old")])
        cls.archives["pmlogextract/old"] = os.path.join(out, "old")
        rules = os.path.join(out, "rules")
        with open(rules, "w") as f:
            f.write('metric cnt { name -> renamed.cnt }\n'
                    'metric inst { type -> 64 }\n'
                    'metric disc { delete }\n')
        tool(["/usr/lib/pcp/bin/pmlogrewrite", "-c", rules, basic, os.path.join(out, "rewritten")])
        cls.archives["pmlogrewrite/basic"] = os.path.join(out, "rewritten")
        tool(["/usr/lib/pcp/bin/pmlogrewrite", "-V", "3", cls.archives["qa/bug_v2"], os.path.join(out, "v3")])
        cls.archives["pmlogrewrite/v2-to-v3"] = os.path.join(out, "v3")
        # A volume cut inside its last record (a crash): the records before.
        for name, src in (("torn", cls.archives["import2/indom"]),
                          ("torn-gaps", cls.archives["gaps3"])):
            base = os.path.join(out, name)
            for ext in (".meta", ".index"):
                shutil.copy(src + ext, base + ext)
            data = open(src + ".0", "rb").read()
            open(base + ".0", "wb").write(data[:len(data) - 9])
            cls.archives["truncated/" + name] = base
        # Volumes compressed as pmlogger_daily and people do.
        for prog, ext in (("xz", ".xz"), ("bzip2", ".bz2"), ("gzip", ".gz")):
            base = os.path.join(out, "packed" + ext.replace(".", "-"))
            for e in (".meta", ".index", ".0"):
                shutil.copy(cls.archives["import3/mark"] + e, base + e)
            tool([prog, base + ".0"])
            cls.archives["compressed/" + ext[1:]] = base

    # -- every record ------------------------------------------------------

    def assertSameRecords(self, name, base, theirs, ours):
        self.assertTrue(theirs, "%s: pmdumplog shows no record" % name)
        digits = len(theirs[0][0]) - 9
        ours = our_records(ours, digits)
        self.assertEqual([r[:2] for r in ours], [r[:2] for r in theirs],
                         "%s: records (time, <mark>)" % name)
        for i, (a, b) in enumerate(zip(theirs, ours)):
            self.assertEqual(b[2], a[2], "%s: the values of record %d at %s" % (name, i, a[0]))

    def test_dump_is_every_record_pmdumplog_shows(self):
        for name, base in sorted(self.archives.items()):
            with self.subTest(archive=name):
                p = run(["/usr/bin/pmdumplog", base], env=pcp6_env())
                m = run([MMVLOG, "replay", "--dump", "-a", base], env=pcp6_env())
                self.assertEqual(m.returncode, 0 if "truncated" not in name else m.returncode,
                                 m.stderr)
                self.assertSameRecords(name, base, pcp_records(p.stdout), m.stdout)

    def test_dump_is_every_record_pmlogdump_72_shows(self):
        pcp7.require()
        for name, base in sorted(self.archives.items()):
            with self.subTest(archive=name):
                p = pcp7.run(["pmlogdump", base], env={"TZ": "UTC"})
                m = run([MMVLOG, "replay", "--dump", "-a", base], env=pcp6_env())
                self.assertSameRecords(name, base, pcp_records(p.stdout), m.stdout)

    def test_dump_times_in_the_archives_zone(self):
        for name, base in sorted(self.archives.items()):
            with self.subTest(archive=name):
                p = run(["/usr/bin/pmdumplog", "-z", base], env=pcp6_env())
                m = run([MMVLOG, "replay", "--dump", "-z", "-a", base], env=pcp6_env())
                theirs = pcp_records(p.stdout)
                ours = our_records(m.stdout, len(theirs[0][0]) - 9)
                self.assertEqual([r[0] for r in ours], [r[0] for r in theirs], name)

    def test_a_metric_named_alone_shows_its_records(self):
        # hinv.ncpu (discrete, stored under instance 0) and the records
        # holding only it; disk.all.write's blocks of type 0.
        for name, metric in (("qa/bozo.client_v2", "hinv.ncpu"),
                             ("qa/960624.08.17_v2", "disk.all.write"),
                             ("qa/node_archive", "proc.psinfo.pid")):
            with self.subTest(archive=name, metric=metric):
                base = self.archives[name]
                p = run(["/usr/bin/pmdumplog", base, metric], env=pcp6_env())
                m = run([MMVLOG, "replay", "--dump", "-a", base, metric], env=pcp6_env())
                self.assertEqual(m.returncode, 0, m.stderr)
                self.assertSameRecords(name, base, pcp_records(p.stdout), m.stdout)

    def test_text_at_the_records_is_pmval_U(self):
        cases = [("gaps2", "cnt"), ("gaps3", "cnt"), ("gaps3", "inst"),
                 ("qa/bozo.client_v2", "hinv.ncpu"), ("qa/bozo.client_v2", "disk.all.total"),
                 ("qa/960624.08.17_v2", "disk.all.write"), ("import3/mark", "cnt"),
                 ("pmlogextract/joined", "cnt"), ("truncated/torn-gaps", "cnt")]
        for name, metric in cases:
            for args in ([], ["-s", "3"], ["-s", "6"], ["-r"]):
                with self.subTest(archive=name, metric=metric, args=args):
                    base = self.archives[name]
                    p = run(["/usr/bin/pmval", "-U", base] + args + [metric], env=pcp6_env())
                    m = run([MMVLOG, "replay", "-a", base, "-o", "text"] + args + [metric],
                            env=pcp6_env())
                    self.assertEqual(table_rows(m.stdout), table_rows(p.stdout), name)

    def test_text_on_a_grid_is_pmval_with_no_values_lines(self):
        pcp7.require()
        for name, metric, step in (("gaps3", "cnt", "1sec"), ("gaps3", "inst", "1sec"),
                                   ("import3/mark", "cnt", "1sec"),
                                   ("import3/mark", "inst", "2sec"),
                                   ("pmlogextract/window", "cnt", "3sec")):
            with self.subTest(archive=name, metric=metric):
                base = self.archives[name]
                p = pcp7.run(["pmval", "-a", base, "-t", step, metric], env={"TZ": "UTC"})
                m = run([MMVLOG, "replay", "-a", base, "-o", "text", "-t", step, metric],
                        env=pcp6_env())
                if name == "import3/mark":
                    self.assertIn("No values available", p.stdout)
                self.assertEqual(table_rows(m.stdout), table_rows(p.stdout), name)

    def test_a_mixed_v2_v3_set_as_pmrep_and_pmval_read_it(self):
        # A directory of a v2 archive and a v3 one, read as one (libpcp's
        # multi-archive context): the same rows, a <mark> at the join.
        d = os.path.join(self.root, "mixed")
        os.makedirs(d, exist_ok=True)
        for v, name in ((2, "m1"), (3, "m2")):
            for ext in (".0", ".meta", ".index"):
                shutil.copy(os.path.join(self.root, "import%d" % v, "multi", name + ext), d)
        for args in (["-t", "2sec"], ["-t", "1sec", "-S", "+5"], ["-t", "3sec", "-r"]):
            with self.subTest(args=args):
                p = run([PY, "/usr/bin/pmrep", "-a", d, "-o", "csv"] + args + ["cnt", "disc"],
                        env=pcp6_env())
                m = run([MMVLOG, "replay", "-a", d, "-o", "csv"] + args + ["cnt", "disc"],
                        env=pcp6_env())
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertEqual(csv_rows(m.stdout), csv_rows(p.stdout))
                p = run(["/usr/bin/pmval", "-a", d] + args + ["cnt"], env=pcp6_env())
                m = run([MMVLOG, "replay", "-a", d, "-o", "text"] + args + ["cnt"],
                        env=pcp6_env())
                self.assertEqual(table_rows(m.stdout), table_rows(p.stdout))

    # -- every zone --------------------------------------------------------

    def zone_cases(self):
        for f in sorted(os.listdir(self.zones)):
            if f.endswith(".meta"):
                yield f[:-5], os.path.join(self.zones, f[:-5])

    def test_zone_csv_equals_pmrep(self):
        windows = [["-t", "20min"], ["-t", "7min"], ["-t", "1h", "-S", "@02:30", "-T", "@05:00"],
                   ["-t", "30min", "-S", "@01:30", "-T", "@04:00"], ["-t", "20min", "-A", "1h"]]
        for name, base in self.zone_cases():
            for args in windows:
                for zone in (["-z"], ["-Z", "Europe/London"],
                             ["-Z", "AEST-10AEDT-11,M10.5.0/3,M3.5.0/2"]):
                    with self.subTest(archive=name, args=args, zone=zone):
                        p = run([PY, "/usr/bin/pmrep", "-a", base, "-o", "csv"] + zone + args +
                                ["cnt"], env=pcp6_env())
                        m = run([MMVLOG, "replay", "-a", base, "-o", "csv"] + zone + args +
                                ["cnt"], env=pcp6_env())
                        self.assertEqual(p.returncode, 0, p.stderr)
                        self.assertEqual(m.returncode, 0, m.stderr)
                        self.assertEqual(csv_rows(m.stdout), csv_rows(p.stdout))

    def test_zone_from_tz_is_pmvals_local_time(self):
        # The local zone, $TZ: pmval (libpcp's __pmTimezone) follows a POSIX
        # TZ's rules, as mmvlog does for every $TZ. PCP's own tools differ
        # here, and mmvlog does not copy them: pmrep (pmapi.py
        # get_current_tz) freezes the offset of the report's start, and
        # pmval squashes a $TZ that is unset or ':Area/City' to today's
        # offset, so a summer archive read in winter is an hour off.
        for name, base in self.zone_cases():
            for tz in ("GMT0BST-1,M3.5.0/2,M10.5.0/2", "EST-11EST-10,89/2:00,299/2:00",
                       "AEST-10AEDT-11,M10.5.0/3,M3.5.0/2", "PST8PDT"):
                with self.subTest(archive=name, tz=tz):
                    p = run(["/usr/bin/pmval", "-a", base, "-t", "20min", "cnt"], env=pcp6_env(tz))
                    m = run([MMVLOG, "replay", "-a", base, "-o", "text", "-t", "20min", "cnt"],
                            env=pcp6_env(tz))
                    self.assertEqual(table_rows(m.stdout), table_rows(p.stdout))
        # pmrep's frozen offset, stated: an hour off after the UK change.
        base = os.path.join(self.zones, "posix-uk")
        tz = "GMT0BST-1,M3.5.0/2,M10.5.0/2"
        p = run([PY, "/usr/bin/pmrep", "-a", base, "-o", "csv", "-t", "20min", "cnt"],
                env=pcp6_env(tz))
        m = run([MMVLOG, "replay", "-a", base, "-o", "csv", "-t", "20min", "cnt"], env=pcp6_env(tz))
        self.assertIn("2026-03-29 02:20:00", [r[0] for r in csv_rows(p.stdout)])
        self.assertNotIn("2026-03-29 02:20:00", [r[0] for r in csv_rows(m.stdout)])
        self.assertIn("2026-03-29 03:20:00", [r[0] for r in csv_rows(m.stdout)])

    def test_zone_text_equals_pmval(self):
        for version in ("6.0.3", "7.2"):
            if version == "7.2":
                pcp7.require()
            for name, base in self.zone_cases():
                for args in (["-z", "-t", "20min"], ["-z", "-t", "1h", "-S", "@02:30"],
                             ["-Z", "GMT0BST-1,M3.5.0/2,M10.5.0/2", "-t", "20min"]):
                    with self.subTest(version=version, archive=name, args=args):
                        cmd = ["pmval", "-a", base] + args + ["cnt"]
                        p = (pcp7.run(cmd, env={"TZ": "UTC"}) if version == "7.2"
                             else run(["/usr/bin/pmval"] + cmd[1:], env=pcp6_env()))
                        m = run([MMVLOG, "replay", "-a", base, "-o", "text"] + args + ["cnt"],
                                env=pcp6_env())
                        self.assertEqual(p.returncode, 0, p.stderr)
                        self.assertEqual(table_rows(m.stdout), table_rows(p.stdout))

    def test_a_change_inside_the_archive_moves_the_clock(self):
        # The label's "GMT0BST-1,M3.5.0/2,M10.5.0/2" changes at 02:00 GMT
        # (a POSIX rule's time is local, unlike the UK's real 01:00 UTC):
        # samples 20 minutes apart read 01:40, then 03:00 BST.
        base = os.path.join(self.zones, "posix-uk")
        m = run([MMVLOG, "replay", "-a", base, "-o", "csv", "-z", "val"], env=pcp6_env())
        times = [r[0][11:16] for r in csv_rows(m.stdout)]
        self.assertIn("01:40", times)
        self.assertEqual(times[times.index("01:40") + 1], "03:00")


if __name__ == "__main__":
    unittest.main()
