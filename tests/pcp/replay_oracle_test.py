"""`mmvlog replay -t` side by side with PCP's pmval and pmrep: the same grid,
the same rows, the same values.

Archives, v2 and v3:
  - written by PCP's LOGIMPORT with exact timestamps (interp_archives.py:
    every type and semantics, <mark>s, gaps, late and sparse metrics, an
    instance domain whose instances come and go, two archives read as one);
  - recorded live, from an application using PCP's own MMV API
    (live_mmv_writer.py, restarted halfway: a new generation, counters
    reset), by `pmlogger -o` (the prologue first, so the label time is
    before the first sample) and by `mmvlog record`: one recording, kept
    in tests/testdata/live (README.md there), so every run sees the same.

What must hold, for every archive and option set (-t -s -S -T -O -A -z -Z
-i -r):
  - CSV (-o csv) equals `pmrep -o csv` row for row: the same times (to the
    second pmrep prints) and every cell (integers exactly, rates to pmrep's
    3 decimals, empty where pmrep's is). pmrep is 6.0.3's (7.2's has no
    Python here): compared on counters (rates and raw) and on discrete
    values where 6.0.3's rule and 7.2's give the same value (grid times on
    the samples), which checks pmrep's carrying of discrete values;
  - the text table (-o text) equals PCP 7.2's pmval token for token, every
    metric; and 6.0.3's pmval on counters.
  - the grid starts at the label time: on pmlogger's archives that is
    before the first record, and the first CSV row is at it.

Where PCP is wrong mmvlog is not, and each case is stated here, so that a
change in either shows:
  - PCP 6.0.3 took the value before a grid time for instant and discrete
    metrics; 6.3.2 and later take the nearest (interp.c, f19ad303ce):
    mmvlog follows the PCP installed ($PCP_CONF's PCP_VERSION), or
    --interpolation (test_instants_as_each_version);
  - libpcp caches interpolation bounds, so a string at a grid time that is
    exactly a sample time can come out as the sample before (both
    versions): mmvlog shows the sample's string (test_string_at_a_sample);
  - 7.2's discrete value after an instance's last sample can be a stale,
    older one (its nearest test reads a `next` left behind): mmvlog carries
    the last value, as 6.0.3 does (test_discrete_after_its_last_sample);
  - libpcp leaves a grid time's nanoseconds at exactly 1e9 (-t 2.5 from a
    whole second): pmval prints "22:00:04.1000" for 22:00:05, 6.0.3's
    pmrep dies on it; mmvlog prints the time (test_grid_times_near_a_second);
  - 64-bit counters above 2^53 pass through doubles in pmrep's rates and
    U64 counters above 2^63 are held signed in interp.c: mmvlog is exact
    (not compared here).
"""

import csv
import io
import os
import re
import shutil
import subprocess
import sys
import time
import unittest

import pcp7


def runfile(path):
    return os.path.join(os.environ["TEST_SRCDIR"], "mmvlog", path)


MMVLOG = runfile("cmd/mmvlog")
HERE = os.path.dirname(os.path.abspath(__file__))
PY = "/usr/bin/python3"  # Debian's, with python3-pcp
COUNTERS = {"basic": ["cnt", "c32s", "c64", "c64s", "cflt", "cdbl", "cms"],
            "round": ["cnt", "c32s", "c64", "c64s", "cdbl"], "late": ["cnt"], "mark": ["cnt"],
            "gap": ["cnt"], "indom": ["icnt"], "subsec": ["cnt"], "frac": ["cnt"],
            "multi": ["cnt"], "long": ["cnt"], "sparse": ["cnt"]}
OTHERS = {"basic": ["inst", "dins", "disc", "ddisc"], "round": ["inst"],
          "late": ["inst", "disc", "other"], "mark": ["inst", "disc"], "gap": ["inst", "disc"],
          "indom": ["iinst", "idisc"], "subsec": ["inst", "disc", "dins"], "frac": ["inst", "disc"],
          "multi": ["inst", "disc"], "long": ["inst", "disc"], "sparse": ["once", "minute"]}
LIVE = ["mmv.app.requests", "mmv.app.bytes", "mmv.app.errors"]
LIVE_OTHERS = ["mmv.app.latency", "mmv.app.queue", "mmv.app.state"]
OPTIONS = [["-t", "1sec"], ["-t", "3sec"], ["-t", "1.234567"], ["-t", "2sec", "-S", "+5"],
           ["-t", "1sec", "-S", "+4.5", "-T", "+8"], ["-t", "1sec", "-T", "-5"],
           ["-t", "2sec", "-O", "+3"], ["-t", "4sec", "-A", "4sec"], ["-t", "1sec", "-s", "6"],
           ["-t", "1sec", "-S", "+2", "-s", "4", "-T", "+9"], ["-t", "1sec", "-Z", "Asia/Kolkata"],
           ["-t", "3sec", "-z"]]
LIVE_OPTIONS = [["-t", "250msec"], ["-t", "100msec"], ["-t", "1sec"], ["-t", "330msec", "-S", "+0.5"],
                ["-t", "200msec", "-T", "+2"], ["-t", "1sec", "-A", "1sec"], ["-t", "250msec", "-s", "5"],
                ["-t", "200msec", "-O", "+0.7"], ["-t", "70msec", "-T", "-1"]]


def run(args, env=None, timeout=120):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          env=env, timeout=timeout)


def pcp6_env():
    # PCP 6.0.3's tools: Debian's python (with the pcp module) first.
    return dict(os.environ, TZ="UTC", PATH="/usr/bin:" + os.environ.get("PATH", ""))


def mmvlog_env(version):
    """mmvlog's environment beside PCP `version`'s tools: a 7.2 user's
    $PCP_CONF names 7.2's pcp.conf, and replay's interpolation rule (auto)
    follows it, as it follows /etc/pcp.conf (6.0.3) otherwise."""
    if version == "7.2":
        return dict(pcp6_env(), PCP_CONF=os.path.join(pcp7.PREFIX, "etc", "pcp.conf"))
    return pcp6_env()


def csv_table(text):
    rows = list(csv.reader(io.StringIO(text)))
    return (rows[0], rows[1:]) if rows else ([], [])


def column_key(header_cell, ours):
    """(metric, instance or None) of a CSV header cell: pmrep's "m-inst",
    ours "m[inst] (units)"."""
    if ours:
        h = re.sub(r" \([^()]*\)$", "", header_cell)
        m = re.match(r"^(.*)\[(.*)\]$", h)
        return (m.group(1), m.group(2)) if m else (h, None)
    return header_cell


def compare_csv(archive, args, metrics):
    """Differences between `pmrep -o csv` and `mmvlog replay -o csv`."""
    p = run(["pmrep", "-a", archive, "-o", "csv"] + args + metrics, env=pcp6_env())
    m = run([MMVLOG, "replay", "-a", archive, "-o", "csv"] + args + metrics, env=pcp6_env())
    if p.returncode != 0 or m.returncode != 0:
        return ["exit: pmrep %d %s, mmvlog %d %s" % (p.returncode, p.stderr[-300:], m.returncode,
                                                    m.stderr[-300:])]
    ph, prow = csv_table(p.stdout)
    mh, mrow = csv_table(m.stdout)
    ours = {column_key(h, True): j for j, h in enumerate(mh) if j}
    cols = []
    for j, h in enumerate(ph):
        if j == 0:
            continue
        k = [v for (name, inst), v in ours.items()
             if (inst is None and h == name) or (inst is not None and h == "%s-%s" % (name, inst))]
        if len(k) != 1:
            return ["no column of ours for pmrep's %r (ours: %s)" % (h, mh)]
        cols.append((j, k[0], h))
    diffs = []
    if len(prow) != len(mrow):
        diffs.append("rows: pmrep %d, mmvlog %d" % (len(prow), len(mrow)))
    for a, b in zip(prow, mrow):
        if a[0] != b[0][:19]:
            diffs.append("time: pmrep %s, mmvlog %s" % (a[0], b[0]))
        for j, k, h in cols:
            x, y = a[j], b[k]
            if x == y:
                continue
            try:
                if x and y and abs(float(x) - float(y)) <= 0.0005 + 1e-12 * abs(float(x)):
                    continue
            except ValueError:
                pass
            diffs.append("%s %s: pmrep %r, mmvlog %r" % (a[0], h, x, y))
    return diffs


TIME = re.compile(r"^(\d\d):(\d\d):(\d\d)\.(\d{3,4})\s")


def table_rows(text):
    """[[time, cells...]] of a pmval-style table ("No values available"
    lines as one cell), a "x.1000" time (libpcp's unnormalised 1e9 ns)
    carried."""
    rows = []
    for line in text.split("\n"):
        m = TIME.match(line)
        if not m:
            continue
        h, mi, s, ms = (int(g) for g in m.groups())
        total = ((h * 60 + mi) * 60 + s) * 1000 + ms
        rows.append(["%02d:%02d:%02d.%03d" % (total // 3600000 % 24, total // 60000 % 60,
                                              total // 1000 % 60, total % 1000)] +
                    (["No values available"] if "No values available" in line
                     else line.split()[1:]))
    return rows


def suspended(text):
    """The times of pmval's "Archive logging suspended" lines."""
    return re.findall(r"^(\d\d:\d\d:\d\d\.\d{3})\s+Archive logging suspended$", text, re.M)


def pmval(version, archive, args, metric):
    cmd = ["pmval", "-a", archive] + args + [metric]
    if version == "7.2":
        return pcp7.run(cmd, env={"TZ": "UTC"})
    return run(["/usr/bin/pmval"] + cmd[1:], env=pcp6_env())


def compare_text(version, archive, args, metric, keep=None):
    """Differences between pmval (6.0.3 or 7.2) and `replay -o text`; `keep`
    filters the rows compared (by time text)."""
    p = pmval(version, archive, args, metric)
    m = run([MMVLOG, "replay", "-a", archive, "-o", "text"] + args + [metric],
            env=mmvlog_env(version))
    if p.returncode != 0 or m.returncode != 0:
        return ["exit: pmval %d %s, mmvlog %d %s" % (p.returncode, p.stderr[-300:], m.returncode,
                                                    m.stderr[-300:])]
    a, b = table_rows(p.stdout), table_rows(m.stdout)
    if keep:
        a = [r for r in a if keep(r[0])]
        b = [r for r in b if keep(r[0])]
    diffs = []
    if [r[0] for r in a] != [r[0] for r in b]:
        diffs.append("times: pmval %s, mmvlog %s" % ([r[0] for r in a], [r[0] for r in b]))
    for x, y in zip(a, b):
        if x != y:
            diffs.append("pmval %s, mmvlog %s" % (x, y))
    return diffs


class ReplayOracleTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.root = os.path.join(os.environ["TEST_TMPDIR"], "replay_oracle")
        shutil.rmtree(cls.root, ignore_errors=True)
        os.makedirs(cls.root)
        cls.made = {}
        for version in (2, 3):
            d = os.path.join(cls.root, "import%d" % version)
            p = run([PY, os.path.join(HERE, "interp_archives.py"), d, str(version)])
            if p.returncode != 0:
                raise AssertionError("LOGIMPORT: %s" % p.stderr)
            cls.made[version] = d
        cls.live = cls.record_live()

    @classmethod
    def record_live(cls):
        """pmlogger -o (v2, v3) and mmvlog (v2, v3) of one live application,
        restarted halfway: one recording, kept in tests/testdata/live, so
        that every run compares the same records (recorded at each run,
        where the restart fell moved what was compared)."""
        d = runfile("tests/testdata/live")
        return {"pmlogger-v2": os.path.join(d, "pl2"), "pmlogger-v3": os.path.join(d, "pl3"),
                "mmvlog-v2": os.path.join(d, "ml2"), "mmvlog-v3": os.path.join(d, "ml3")}

    def archives(self):
        """(name, archive) of every LOGIMPORT archive, both versions."""
        for version, d in sorted(self.made.items()):
            for name in COUNTERS:
                yield name, os.path.join(d, name), version

    def assertNoDiffs(self, diffs, what):
        self.assertEqual(diffs, [], "%s:\n  %s" % (what, "\n  ".join(diffs[:12])))

    def test_grid_starts_at_the_label_time(self):
        for name, base in sorted(self.live.items()):
            with self.subTest(archive=name):
                label = run(["pmdumplog", "-L", base], env=pcp6_env()).stdout
                m = re.search(r"commencing \S+ \S+ +\d+ (\d\d:\d\d:\d\d\.\d+)", label)
                self.assertTrue(m, label)
                records = run(["pmdumplog", base, "mmv.app.bytes"], env=pcp6_env()).stdout
                first_record = re.search(r"^(\d\d:\d\d:\d\d\.\d+) ", records, re.M).group(1)
                # pmlogger's prologue is the label time; the first sample
                # comes after it (mmvlog's prologue is 1 us before its first).
                self.assertLess(m.group(1), first_record)
                out = run([MMVLOG, "replay", "-a", base, "-o", "csv", "-t", "100msec"] + LIVE,
                          env=pcp6_env())
                self.assertEqual(out.returncode, 0, out.stderr)
                first_row = out.stdout.split("\n")[1].split(",")[0]
                self.assertEqual(first_row.split(" ")[1], m.group(1)[:12])

    def test_counters_csv_equal_pmrep(self):
        for name, base, version in self.archives():
            for args in OPTIONS:
                for raw in ([], ["-r"]):
                    with self.subTest(archive=name, version=version, args=args + raw):
                        self.assertNoDiffs(compare_csv(base, args + raw, COUNTERS[name]),
                                           "%s v%d %s" % (name, version, " ".join(args + raw)))

    def test_live_counters_csv_equal_pmrep(self):
        for name, base in sorted(self.live.items()):
            for args in LIVE_OPTIONS:
                for raw in ([], ["-r"]):
                    with self.subTest(archive=name, args=args + raw):
                        self.assertNoDiffs(compare_csv(base, args + raw, LIVE),
                                           "%s %s" % (name, " ".join(args + raw)))

    def test_discrete_carried_as_pmrep_does(self):
        # Grid times on the samples (or halfway, where the nearest is the
        # one before): 6.0.3's value is 7.2's, and across the gap pmrep
        # repeats the last discrete value it printed.
        for version, d in sorted(self.made.items()):
            for name, args in (("mark", ["-t", "1sec"]), ("mark", ["-t", "1sec", "-S", "+0.5"]),
                               ("multi", ["-t", "1sec"]),
                               ("indom", ["-t", "5sec"])):
                with self.subTest(archive=name, version=version, args=args):
                    metrics = [m for m in OTHERS[name] if "disc" in m]
                    self.assertNoDiffs(compare_csv(os.path.join(d, name), args, metrics),
                                       "%s v%d" % (name, version))

    def test_text_equals_pmval_72(self):
        pcp7.require()
        for name, base, version in self.archives():
            for args in OPTIONS:
                for metric in COUNTERS[name] + OTHERS[name]:
                    keep = None
                    if "disc" in metric:
                        # 7.2's stale value after the last sample is a bug
                        # (test_discrete_after_its_last_sample).
                        keep = LAST_DISCRETE.get(name, lambda t: True)
                    with self.subTest(archive=name, version=version, args=args, metric=metric):
                        self.assertNoDiffs(compare_text("7.2", base, args, metric, keep),
                                           "%s v%d %s %s" % (name, version, " ".join(args), metric))

    def test_live_text_equals_pmval_72(self):
        pcp7.require()
        for name, base in sorted(self.live.items()):
            for args in LIVE_OPTIONS:
                for metric in LIVE + LIVE_OTHERS:
                    with self.subTest(archive=name, args=args, metric=metric):
                        keep = None
                        if metric == "mmv.app.state":
                            keep = self.before_last_sample(base, metric)
                        self.assertNoDiffs(compare_text("7.2", base, args, metric, keep),
                                           "%s %s %s" % (name, " ".join(args), metric))

    def test_records_text_equals_pmval_U(self):
        # Without -t the text table is pmval -U's: a rate's first record is
        # only its previous value (no line), a counter that went down is
        # "!", a <mark> is "Archive logging suspended" (and rates start
        # again after it), and -s counts the lines printed.
        for version in ("6.0.3", "7.2"):
            if version == "7.2":
                pcp7.require()
            for name, base in sorted(self.live.items()):
                for args in ([], ["-s", "7"], ["-s", "25"]):
                    for metric in LIVE + LIVE_OTHERS:
                        with self.subTest(version=version, archive=name, args=args, metric=metric):
                            cmd = ["pmval", "-U", base] + args + [metric]
                            if version == "7.2":
                                p = pcp7.run(cmd, env={"TZ": "UTC"})
                            else:
                                p = run(["/usr/bin/pmval"] + cmd[1:], env=pcp6_env())
                            m = run([MMVLOG, "replay", "-a", base, "-o", "text"] + args + [metric],
                                    env=mmvlog_env(version))
                            self.assertEqual(p.returncode, 0, p.stderr)
                            self.assertEqual(m.returncode, 0, m.stderr)
                            self.assertEqual(table_rows(m.stdout), table_rows(p.stdout))
                            self.assertEqual(suspended(m.stdout), suspended(p.stdout))
                            if name.startswith("mmvlog") and not args:
                                # mmvlog marks the application's restart.
                                self.assertEqual(len(suspended(m.stdout)), 1)
                            if (metric == "mmv.app.errors" and not args and
                                    name.startswith("pmlogger")):
                                # The restart takes errors back to 0, with
                                # no <mark> from pmlogger: a reset.
                                self.assertIn("!", [c for r in table_rows(m.stdout) for c in r])

    def before_last_sample(self, base, metric):
        """A filter of grid times up to the last sample of `metric`."""
        dump = run(["pmdumplog", base, metric], env=pcp6_env()).stdout
        times = re.findall(r"^(\d\d:\d\d:\d\d\.\d{3})", dump, re.M)
        return lambda t: t <= times[-1]

    def test_counters_text_equal_pmval_603(self):
        for name, base, version in self.archives():
            # 6.0.3's pmval steps in whole milliseconds (7.2's, and pmrep,
            # in microseconds): only intervals of whole milliseconds.
            for args in [a for a in OPTIONS if "1.234567" not in a]:
                for metric in COUNTERS[name]:
                    with self.subTest(archive=name, version=version, args=args, metric=metric):
                        self.assertNoDiffs(compare_text("6.0.3", base, args, metric),
                                           "%s v%d %s %s" % (name, version, " ".join(args), metric))

    # -- where PCP is wrong -------------------------------------------------

    def test_instants_as_each_version(self):
        # PCP 6.3.2 changed the rule (the nearer sample, not the prior one);
        # replay follows the installed PCP's, or --interpolation.
        pcp7.require()
        base = os.path.join(self.made[3], "basic")

        def ours(version, *rule):
            return table_rows(run([MMVLOG, "replay", "-a", base, "-o", "text", "-t", "3sec"] +
                                  list(rule) + ["inst"], env=mmvlog_env(version)).stdout)
        old = table_rows(pmval("6.0.3", base, ["-t", "3sec"], "inst").stdout)
        new = table_rows(pmval("7.2", base, ["-t", "3sec"], "inst").stdout)
        # inst is 5, 15, 25, 35 at 0, 10, 20, 30: at 6 s the nearest is 15.
        self.assertIn(["22:00:06.000", "15"], new)
        self.assertIn(["22:00:06.000", "5"], old)
        self.assertEqual(ours("7.2"), new)
        self.assertEqual(ours("6.0.3"), old)
        self.assertEqual(ours("6.0.3", "--interpolation=nearest"), new)
        self.assertEqual(ours("7.2", "--interpolation=prior"), old)

    def test_string_at_a_sample(self):
        base = os.path.join(self.made[3], "basic")
        ours = table_rows(run([MMVLOG, "replay", "-a", base, "-o", "text", "-t", "3sec", "str"],
                              env=pcp6_env()).stdout)
        for version in ("6.0.3", "7.2"):
            if version == "7.2":
                pcp7.require()
            theirs = table_rows(pmval(version, base, ["-t", "3sec"], "str").stdout)
            # 30 s is the sample "s30": libpcp's cached bounds (from 27 s,
            # between the samples at 20 and 30) give the one before.
            self.assertIn(["22:00:30.000", '"s20"'], theirs, version)
        self.assertIn(["22:00:30.000", '"s30"'], ours)

    def test_discrete_after_its_last_sample(self):
        pcp7.require()
        base = os.path.join(self.made[3], "stale")
        ours = table_rows(run([MMVLOG, "replay", "-a", base, "-o", "text", "-t", "25sec", "disc"],
                              env=pcp6_env()).stdout)
        old = table_rows(pmval("6.0.3", base, ["-t", "25sec"], "disc").stdout)
        new = table_rows(pmval("7.2", base, ["-t", "25sec"], "disc").stdout)
        # disc is 0, 1, 2 at 0, 10, 20; `other` runs on to 40.
        self.assertEqual(ours, old)
        self.assertIn(["22:00:25.000", "2"], ours)
        self.assertIn(["22:00:25.000", "0"], new)

    def test_grid_times_near_a_second(self):
        base = os.path.join(self.made[3], "basic")
        p = pmval("6.0.3", base, ["-t", "2.5sec", "-r"], "cnt")
        self.assertIn("22:00:04.1000", p.stdout)
        m = run([MMVLOG, "replay", "-a", base, "-o", "csv", "-t", "2.5sec", "-r", "cnt"],
                env=pcp6_env())
        times = [line.split(",")[0] for line in m.stdout.split("\n")[1:] if line]
        self.assertIn("2023-11-14 22:00:05.000", times)
        self.assertEqual(len(times), 13)

    def test_sparse_columns(self):
        # Rows wait for the discrete value logged once and the instant one
        # a minute apart: the look-ahead finds their next samples (or none).
        pcp7.require()
        for version, d in sorted(self.made.items()):
            base = os.path.join(d, "sparse")
            for args in (["-t", "1sec"], ["-t", "7sec", "-S", "+20"]):
                with self.subTest(version=version, args=args):
                    self.assertNoDiffs(compare_csv(base, args, ["cnt", "once"]), " ".join(args))
                    for metric in ("once", "minute"):
                        self.assertNoDiffs(compare_text("7.2", base, args, metric), metric)

    def test_instance_selection_and_zones(self):
        pcp7.require()
        base = os.path.join(self.made[3], "indom")
        for args in (["-t", "5sec", "-i", "a,c"], ["-t", "2sec", "-i", "b"],
                     ["-t", "5sec", "-z", "-i", "c"]):
            with self.subTest(args=args):
                self.assertNoDiffs(compare_csv(base, args, ["icnt"]), " ".join(args))
                self.assertNoDiffs(compare_text("7.2", base, args, "iinst"), " ".join(args))
        # An instance no chosen metric has: pmrep shows the others; pmval
        # ignores -i for a metric without instances.
        self.assertNoDiffs(compare_csv(base, ["-t", "5sec", "-i", "a,nope"], ["icnt"]), "-i a,nope")
        basic = os.path.join(self.made[3], "basic")
        self.assertNoDiffs(compare_text("7.2", basic, ["-t", "5sec", "-i", "a"], "cnt"), "-i a")

    def test_hostzone_is_the_labels_timezone(self):
        # -z: libpcp's pmNewContextZone takes the label's timezone (the
        # recorder's $TZ), not the v3 label's zoneinfo (the host's
        # /etc/localtime). Recorded under TZ=Asia/Kathmandu (+05:45), read
        # under TZ=UTC: the rows' times must be Kathmandu's, as pmrep's and
        # pmval's are.
        d = os.path.join(self.root, "zone")
        os.makedirs(os.path.join(d, "mmv"))
        env = dict(os.environ, PCP_TMP_DIR=d, TZ="Asia/Kathmandu")
        app = subprocess.Popen([PY, os.path.join(HERE, "live_mmv_writer.py"), "app", "0.1", "3"],
                               env=env, stdout=subprocess.PIPE, text=True)
        self.assertEqual(app.stdout.readline().strip(), "ready")
        cfg = os.path.join(d, "cfg")
        with open(cfg, "w") as f:
            f.write("log mandatory on 100 msec { mmv.app }\n")
        bases = {"pmlogger": os.path.join(d, "pl"), "mmvlog": os.path.join(d, "ml")}
        procs = [subprocess.Popen(["pmlogger", "-o", "-c", cfg, "-T", "2sec", "-l",
                                   os.path.join(d, "pl.log"), bases["pmlogger"]],
                                  env=env, cwd=d, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.STDOUT),
                 subprocess.Popen([MMVLOG, "capture", "-t", "100msec", "-T", "2sec", "--mmv-dir",
                                   os.path.join(d, "mmv"), bases["mmvlog"]],
                                  env=env, cwd=d, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)]
        for p in procs:
            p.wait(timeout=60)
            self.assertEqual(p.returncode, 0, p.args)
        app.wait(timeout=30)
        for name, base in sorted(bases.items()):
            with self.subTest(archive=name):
                utc = run([MMVLOG, "replay", "-a", base, "-o", "csv", "-t", "500msec"] + LIVE,
                          env=pcp6_env()).stdout.split("\n")[1].split(",")[0]
                local = run([MMVLOG, "replay", "-a", base, "-o", "csv", "-t", "500msec", "-z"] +
                            LIVE, env=pcp6_env()).stdout.split("\n")[1].split(",")[0]
                self.assertNotEqual(utc[11:16], local[11:16], "-z gave UTC's times")
                args = ["-t", "500msec", "-z"]
                self.assertNoDiffs(compare_csv(base, args, LIVE), "%s -z" % name)
                self.assertNoDiffs(compare_text("6.0.3", base, args, "mmv.app.bytes"),
                                   "%s -z" % name)


# Discrete metrics whose last sample comes before their archive's end: rows
# after it are 7.2's stale-value bug.
LAST_DISCRETE = {"late": lambda t: t <= "22:00:17.500"}


def load_tests(loader, standard_tests, pattern):
    """Bazel's test sharding (shard_count in BUILD): shard k of n runs every
    n-th test by name, each shard recording its own archives in setUpClass.
    Under ASan the whole test outgrew one timeout on two cores."""
    total = int(os.environ.get("TEST_TOTAL_SHARDS", "1"))
    index = int(os.environ.get("TEST_SHARD_INDEX", "0"))
    if "TEST_SHARD_STATUS_FILE" in os.environ:
        open(os.environ["TEST_SHARD_STATUS_FILE"], "w").close()
    names = sorted(loader.getTestCaseNames(ReplayOracleTest))
    return unittest.TestSuite(ReplayOracleTest(n) for i, n in enumerate(names)
                              if i % total == index)


if __name__ == "__main__":
    unittest.main()
