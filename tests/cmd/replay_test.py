"""`mmvlog replay` end to end, on our archives and on PCP's own.

OurArchivesTest (sandboxed): archives recorded by `mmvlog capture` and
`mmvlog record` from libpcp_mmv files whose counters a thread of this test
advances (and once resets) while they record. Judged by pmdumplog, pminfo
and by arithmetic on replay's own --raw output: the summary (types, units,
value counts), --dump, --json lines, --stats, --raw, --start/--finish,
several archives and a directory read as one timeline with a damaged
archive reported and skipped (exit 0), no negative rate at a counter reset,
and never a rate across a <mark>.

PcpArchiveTest (starts pmcd: tagged no-sandbox and exclusive in BUILD; skips
loudly only when pmcd cannot run here): archives recorded by pmlogger
through a private pmcd and the MMV PMDA, replayed; `replay --csv` must agree
with `pmrep -a ARCHIVE -o csv` on the same metrics, per timestamp and
column, for rates and (with --raw / pmrep -r) raw values.

Run one class alone with: replay_test.py OurArchivesTest
"""

import csv
import decimal
import io
import json
import math
import os
import re
import shutil
import subprocess
import threading
import time
import unittest

import cmdtest
from cmdtest import MMVLOG, PMPYTHON, describe, lines

try:
    from tests.pcp import pcp_stack
except ImportError:  # run by hand with tests/pcp on PYTHONPATH
    import pcp_stack

# Times are shown in local time by both mmvlog and pmrep: use a zone that is
# not UTC (and not a whole hour off) so that a tool using another zone shows.
ZONE = "Asia/Kolkata" if os.path.exists("/usr/share/zoneinfo/Asia/Kolkata") else "UTC"


def replay(*args, env=None, timeout=60):
    env = dict(env or os.environ, TZ=ZONE)
    return cmdtest.run([MMVLOG, "replay"] + list(args), env=env, timeout=timeout)


def json_rows(text):
    """Each line as an object; "ts" is its timestamp exactly (a Decimal)."""
    out = []
    for line in text.split("\n"):
        if line.strip():
            row = json.loads(line)
            row["ts"] = json.loads(line, parse_float=decimal.Decimal)["timestamp"]
            out.append(row)
    return out


def parse_csv(text):
    rows = list(csv.reader(io.StringIO(text)))
    return rows[0], rows[1:]


def column_name(header):
    """"metric[inst] (units)" -> ("metric", "inst" or None)."""
    m = re.match(r"^(\S+?)(?:\[(.*)\])?(?: \(.*\))?$", header)
    return m.group(1), m.group(2)


def close(a, b, rel=1e-9, abs_tol=0.0):
    return abs(a - b) <= max(abs_tol, rel * max(abs(a), abs(b)))


def text_close(a, b):
    """Two printed numbers, one of them rounded to 3 decimals or 6 digits."""
    x, y = float(a), float(b)
    return abs(x - y) <= max(6e-4, 6e-6 * max(abs(x), abs(y)))


class Advancer:
    """Advances counters in MMV files while something records them.

    alpha: requests.total by 7, 14, 21, ... (a varying rate) and reset to 3
    once, after `reset_after` seconds; elapsed by 20 ms a step; cpu.busy[0]
    up by 3 a step. bravo: requests.total by 10 a step, never reset.
    """

    def __init__(self, files, step=0.02, reset_after=None):
        self.files = files
        self.step = step
        self.reset_after = reset_after
        self.reset_done = threading.Event()
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self.thread.join()

    def _run(self):
        n, a, b = 0, 1000, 5000
        start = time.monotonic()
        while not self._stop.is_set():
            n += 1
            a += 7 * (n % 5 + 1)
            b += 10
            if (self.reset_after is not None and not self.reset_done.is_set() and
                    time.monotonic() - start >= self.reset_after):
                a = 3
                self.reset_done.set()
            self.files.set_counter("alpha", a)
            self.files.set_elapsed("alpha", n * 20000)
            self.files.set_busy("alpha", 0, 3 * n)
            if "bravo" in self.files.info:
                self.files.set_counter("bravo", b)
            time.sleep(self.step)


def pminfo_descs(base):
    """{metric: (type text, semantics, units)} from `pminfo -d -a base`."""
    p = cmdtest.run(["pminfo", "-d", "-a", base], env=dict(os.environ, PCP_DERIVED_CONFIG=""))
    if p.returncode != 0:
        raise AssertionError(describe(p))
    out, name = {}, None
    for line in p.stdout.split("\n"):
        if line and not line.startswith(" "):
            name = line.strip()
            continue
        m = re.match(r"^\s+Data Type: (.*?)\s+InDom:", line)
        if m:
            out[name] = [m.group(1)]
        m = re.match(r"^\s+Semantics: (\w+)\s+Units: (.*)$", line)
        if m:
            out[name] += [m.group(1), m.group(2).strip()]
    return {k: tuple(v) for k, v in out.items()}


def dumplog_records(base):
    """[None for a <mark>, or {(pmid, inst): value text}] from pmdumplog -a."""
    norm = pcp_stack.normalize_dumplog(pcp_stack.dump_archive(base), drop_control=False)
    out = []
    for r in norm["records"]:
        if r["mark"]:
            out.append(None)
            continue
        out.append({(pmid, inst): text for pmid, s in r["sets"].items()
                    for inst, _, text in s["values"]})
    return out


def replay_dump_records(text):
    """The same from `mmvlog replay --dump`."""
    out = []
    for line in text.split("\n"):
        if not line.strip():
            continue
        if re.match(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{9}  <mark>$", line):
            out.append(None)
            continue
        m = re.match(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{9}  (\d+) values?$", line)
        if m:
            out.append({})
            continue
        m = re.match(r'^    (\d+\.\d+\.\d+) \((\S+)\)(?: inst \[(\d+) or "(.*)"\])? value (.*)$', line)
        if m is None:
            raise AssertionError("unexpected --dump line: %r" % line)
        inst = int(m.group(3)) if m.group(3) is not None else None
        out[-1][(m.group(1), inst)] = m.group(5)
    # The prologue and epilogue (pmcd.*, domain 2) are shown, as pmdumplog
    # shows them; normalize_dumplog leaves them out of its side.
    return [r for r in out if r is None or not r or
            not all(pmid.startswith("2.") for pmid, _ in r)]


def same_value(ours, theirs):
    if theirs.startswith('"'):
        return json.loads(ours) == json.loads(theirs)
    if re.fullmatch(r"-?\d+", theirs):
        return ours == theirs
    return close(float(ours), float(theirs), rel=1e-6)


class OurArchivesTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        root = cmdtest.fresh_dir("replay_ours")
        cls.root = root
        cls.files = cmdtest.MmvFiles(os.path.join(root, "pcp"))
        env = cls.files.env
        cls.dir = os.path.join(root, "archives")
        os.makedirs(cls.dir)
        cls.a = os.path.join(cls.dir, "a")
        cls.b = os.path.join(cls.dir, "b")
        cls.c = os.path.join(cls.dir, "c")
        resume_dir = os.path.join(root, "resumed")
        cls.r = os.path.join(resume_dir, "r")

        def must(args):
            p = cmdtest.run([MMVLOG] + args, env=env)
            if p.returncode != 0:
                raise AssertionError(describe(p))

        with Advancer(cls.files, reset_after=0.65) as adv:
            time.sleep(0.1)
            must(["capture", "-o", cls.a, "-s", "12", "--interval", "100msec"])
            if not adv.reset_done.is_set():
                raise AssertionError("the counter reset did not happen while recording")
            time.sleep(0.3)
            must(["capture", "-o", cls.b, "-s", "4", "--interval", "100msec"])
            must(["capture", "-o", cls.c, "-s", "2", "--interval", "100msec"])
            # Two runs of record into the same archive: a <mark> between them.
            for _ in range(2):
                must(["record", "--archive-dir", resume_dir, "--archive-name", "r",
                      "-s", "3", "--interval", "100msec"])
        # c is damaged: its metadata torn after 100 bytes.
        with open(cls.c + ".meta", "r+b") as f:
            f.truncate(100)

    # -- summary ---------------------------------------------------------------

    def test_summary(self):
        p = replay(self.a)
        self.assertEqual(p.returncode, 0, describe(p))
        self.assertEqual(p.stderr, "")
        self.assertIn("archives:  %s\n" % self.a, p.stdout)
        self.assertIn("samples:   12, marks (gaps): 0\n", p.stdout)
        rows = {}
        for line in p.stdout.split("\n"):
            m = re.match(r"^  (mmv\.\S+) +(.+?) +(counter|instant|discrete) +(.+?) +(\d+) +(\d+)$",
                         line)
            if m:
                rows[m.group(1)] = m.groups()[1:]
        # (pminfo lists PCP's own event.* metrics for any archive.)
        descs = {k: v for k, v in pminfo_descs(self.a).items() if k.startswith("mmv.")}
        self.assertEqual(set(rows), set(descs))
        self.assertEqual(len(rows), self.files.metrics())
        counts = {}
        for rec in dumplog_records(self.a):
            for (pmid, inst) in rec:
                counts.setdefault(pmid, set()).add(inst)
        for name, (mtype, sem, units, insts, values) in rows.items():
            with self.subTest(metric=name):
                want_type, want_sem, want_units = descs[name]
                self.assertEqual((mtype, sem, units), (want_type, want_sem, want_units or "none"))
        # Instances and values per metric: 12 samples of every instance.
        self.assertEqual(rows["mmv.alpha.cpu.busy"][3:], ("3", "36"))
        self.assertEqual(rows["mmv.alpha.requests.total"][3:], ("1", "12"))
        self.assertEqual(sum(int(r[4]) for r in rows.values()), 12 * self.files.values())

    # -- --dump against pmdumplog -a ------------------------------------------------

    def test_dump_matches_pmdumplog(self):
        for base, marks in ((self.a, 0), (self.r, 1)):
            with self.subTest(archive=base):
                p = replay("--dump", base)
                self.assertEqual(p.returncode, 0, describe(p))
                ours = replay_dump_records(p.stdout)
                theirs = dumplog_records(base)
                self.assertEqual(len(ours), len(theirs))
                self.assertEqual(sum(r is None for r in ours), marks)
                for n, (o, t) in enumerate(zip(ours, theirs)):
                    if t is None:
                        self.assertIsNone(o, "record %d" % n)
                        continue
                    self.assertEqual(sorted(o), sorted(t), "record %d" % n)
                    for key in t:
                        self.assertTrue(same_value(o[key], t[key]),
                                        "record %d %s: %s vs pmdumplog %s" % (n, key, o[key], t[key]))

    # -- --json, --raw, rates, resets ----------------------------------------------------

    def raw_and_rates(self, base, metric):
        raw = json_rows(replay("--json", "--raw", base, metric).stdout)
        rates = json_rows(replay("--json", base, metric).stdout)
        self.assertEqual(len(raw), len(rates))
        self.assertGreater(len(raw), 3)
        return raw, rates

    def test_json_lines(self):
        p = replay("--json", self.a)
        self.assertEqual(p.returncode, 0, describe(p))
        rows = json_rows(p.stdout)  # every line parses
        self.assertEqual(len(rows), 12)
        times = [float(r["timestamp"]) for r in rows]
        self.assertEqual(times, sorted(times))
        for r in rows:
            self.assertRegex(r["time"], r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{9}$")
            self.assertIn("values", r)
        # Instant values are as stored.
        self.assertEqual(rows[3]["values"]["mmv.alpha.cpu.busy[cpu5]"], 300)
        self.assertEqual(rows[3]["values"]["mmv.alpha.signed32"], -42)
        self.assertEqual(rows[3]["values"]["mmv.alpha.version"], "1.2.3-demo")

    def test_rates_are_differences_over_time_and_none_at_a_reset(self):
        for metric in ("mmv.alpha.requests.total", "mmv.alpha.elapsed", "mmv.bravo.requests.total"):
            with self.subTest(metric=metric):
                raw, rates = self.raw_and_rates(self.a, metric)
                resets = 0
                self.assertIsNone(rates[0]["values"][metric])  # no previous sample
                for prev, cur, rate in zip(raw, raw[1:], rates[1:]):
                    v0, v1 = prev["values"][metric], cur["values"][metric]
                    got = rate["values"][metric]
                    if v1 < v0:
                        resets += 1
                        self.assertIsNone(got, "a rate across a counter reset: %s" % rate)
                        continue
                    dt = float(cur["ts"] - prev["ts"])
                    self.assertTrue(close(got, (v1 - v0) / dt, rel=1e-6), (got, v0, v1, dt))
                    self.assertGreaterEqual(got, 0)
                self.assertEqual(resets, 1 if metric == "mmv.alpha.requests.total" else 0)
        # The same in CSV: an empty cell, never a negative number.
        header, rows = parse_csv(replay("--csv", self.a, "mmv.alpha.requests.total").stdout)
        cells = [r[1] for r in rows]
        self.assertEqual(cells[0], "")
        self.assertEqual(cells.count(""), 2, cells)  # the first row and the reset
        self.assertTrue(all(float(c) >= 0 for c in cells if c), cells)
        self.assertEqual(header[1], "mmv.alpha.requests.total (count / sec)")

    def test_raw_shows_counters_as_stored(self):
        header, rows = parse_csv(replay("--csv", "--raw", self.a, "mmv.alpha.requests.total",
                                        "mmv.alpha.cpu.busy").stdout)
        self.assertEqual(header[1], "mmv.alpha.requests.total (count)")
        records = dumplog_records(self.a)
        self.assertEqual(len(rows), len(records))
        for row, rec in zip(rows, records):
            self.assertEqual(row[1], rec[("70.1.1", None)])
            self.assertEqual(row[2:5], [rec[("70.1.2", i)] for i in (0, 1, 5)])

    def test_stats(self):
        p = replay("--stats", self.a, "mmv.alpha.*")
        self.assertEqual(p.returncode, 0, describe(p))
        rows = json_rows(replay("--json", self.a, "mmv.alpha.*").stdout)
        stats = {}
        for line in lines(p.stdout)[1:]:
            f = line.split()
            stats[f[0]] = f[1:6]
        for col in ("mmv.alpha.requests.total", "mmv.alpha.cpu.busy[cpu0]", "mmv.alpha.elapsed",
                    "mmv.alpha.ratio.double", "mmv.alpha.signed64[sda]"):
            with self.subTest(column=col):
                vals = [r["values"][col] for r in rows if r["values"].get(col) is not None]
                lo, mean, hi, last, count = stats[col]
                self.assertEqual(int(count), len(vals))
                for text, want in ((lo, min(vals)), (mean, sum(vals) / len(vals)),
                                   (hi, max(vals)), (last, vals[-1])):
                    self.assertTrue(text_close(text, want), (col, text, want))
        self.assertEqual(stats["mmv.alpha.requests.total"][4], "10")  # 12 - first - reset
        self.assertNotIn("mmv.alpha.version", stats)  # strings have no statistics
        self.assertNotIn("mmv.bravo.signed32", stats)  # not chosen

    def test_start_and_finish(self):
        rows = json_rows(replay("--json", self.a, "mmv.alpha.signed32").stdout)
        t = [float(r["timestamp"]) for r in rows]

        def local(seconds):
            return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(seconds)) + \
                ("%.6f" % (seconds % 1))[1:]

        env = dict(os.environ, TZ=ZONE)
        os.environ["TZ"] = ZONE
        time.tzset()
        try:
            start, finish = local((t[2] + t[3]) / 2), local((t[8] + t[9]) / 2)
        finally:
            os.environ.pop("TZ")
            time.tzset()
        got = json_rows(replay("--json", "--start", start, "--finish", finish, self.a,
                               "mmv.alpha.signed32", env=env).stdout)
        self.assertEqual([r["timestamp"] for r in got], [r["timestamp"] for r in rows[3:9]])
        # PCP's spelling: -S/-T with @datetime, the archive as -a.
        got = json_rows(replay("-o", "json", "-S", "@" + start, "-T", "@" + finish, "-a", self.a,
                               "mmv.alpha.signed32", env=env).stdout)
        self.assertEqual([r["timestamp"] for r in got], [r["timestamp"] for r in rows[3:9]])
        # Relative: +DURATION from the first sample, -DURATION from the last.
        gap = t[3] - t[0] - 0.05
        got = json_rows(replay("--json", "--start", "+%.3fsec" % gap, "--finish",
                               "-%.3fsec" % gap, self.a, "mmv.alpha.signed32").stdout)
        self.assertEqual([r["timestamp"] for r in got], [r["timestamp"] for r in rows[3:-3]])
        bad = replay("--csv", "--start", "yesterday-ish", self.a)
        self.assertEqual(bad.returncode, 2, describe(bad))
        self.assertEqual(len(lines(bad.stderr)), 1)
        self.assertIn("-S yesterday-ish", bad.stderr)

    # -- several archives, a directory, a damaged one, marks ------------------------------

    def test_directory_with_a_damaged_archive(self):
        p = replay(self.dir)
        self.assertEqual(p.returncode, 0, describe(p))
        warnings = lines(p.stderr)
        self.assertEqual(len(warnings), 1, describe(p))
        self.assertIn("warning", warnings[0])
        self.assertIn(self.c, warnings[0])
        self.assertIn("archives:  %s, %s\n" % (self.a, self.b), p.stdout)
        # Two recordings: 12 + 4 samples, and the gap between them is a mark.
        self.assertIn("samples:   16, marks (gaps): 1\n", p.stdout)

    def test_several_archives_as_one_timeline(self):
        # Named in any order, they are read in time order.
        for order in ((self.a, self.b), (self.b, self.a), (self.b, self.c, self.a)):
            with self.subTest(order=[os.path.basename(x) for x in order]):
                p = replay("--json", *order, "mmv.bravo.requests.total")
                self.assertEqual(p.returncode, 0, describe(p))
                self.assertEqual(len(lines(p.stderr)), 1 if self.c in order else 0, p.stderr)
                rows = json_rows(p.stdout)
                self.assertEqual(len(rows), 12 + 1 + 4)
                times = [float(r["timestamp"]) for r in rows]
                self.assertEqual(times, sorted(times))
                self.assertTrue(rows[12].get("mark"), rows[12])
                rates = [r.get("values", {}).get("mmv.bravo.requests.total") for r in rows]
                # bravo's counter only grows: a rate everywhere but at the
                # start of each recording, never across the gap.
                self.assertIsNone(rates[0])
                self.assertIsNone(rates[13], "a rate across the gap between archives")
                self.assertTrue(all(r is not None and r > 0 for r in rates[1:12] + rates[14:]),
                                rates)

    def test_each_archive_read_once(self):
        # A replay reads each archive's label, .meta and .index once, however
        # many passes it makes (the set, the columns, the end, the stream, a
        # look-ahead of -t): counted in the files it opens.
        env = dict(os.environ, TZ=ZONE)
        # Under a tracer, LeakSanitizer cannot run (ASan builds).
        env["ASAN_OPTIONS"] = ":".join(filter(None, [env.get("ASAN_OPTIONS"), "detect_leaks=0"]))
        for args in ((), ("--csv",), ("--csv", "-t", "70msec"), ("--json", "-t", "1sec"),
                     ("--dump",)):
            with self.subTest(args=args):
                trace = os.path.join(self.root, "strace.out")
                p = cmdtest.run(["strace", "-f", "-e", "trace=open,openat", "-o", trace, MMVLOG,
                                 "replay"] + list(args) + [self.a, self.b], env=env)
                self.assertEqual(p.returncode, 0, describe(p))
                with open(trace) as f:
                    opened = re.findall(r'open(?:at)?\(.*?"([^"]+)"', f.read())
                for base in (self.a, self.b):
                    for ext in (".meta", ".index"):
                        self.assertEqual(opened.count(base + ext), 1,
                                         "%s%s opened %d times" % (base, ext,
                                                                  opened.count(base + ext)))
                    self.assertGreaterEqual(opened.count(base + ".0"), 1)

    def test_no_rate_across_a_mark_in_an_archive(self):
        dump = cmdtest.pmdumplog("-a", self.r)
        self.assertEqual(len(re.findall(r"<mark>", dump)), 1)
        rows = json_rows(replay("--json", self.r, "mmv.bravo.requests.total").stdout)
        self.assertEqual([bool(r.get("mark")) for r in rows], [False] * 3 + [True] + [False] * 3)
        rates = [r.get("values", {}).get("mmv.bravo.requests.total") for r in rows]
        self.assertEqual([r is None for r in rates], [True, False, False, True, True, False, False])
        self.assertTrue(all(r > 0 for r in rates if r is not None), rates)
        # CSV shows no row for the mark, and an empty cell after it.
        _, csv_rows = parse_csv(replay("--csv", self.r, "mmv.bravo.requests.total").stdout)
        self.assertEqual([c[1] == "" for c in csv_rows], [True, False, False, True, False, False])

    def test_nothing_to_replay(self):
        # A missing archive is a failure at run time (1), as in PCP's tools.
        p = replay(os.path.join(self.root, "no-such-archive"))
        self.assertEqual(p.returncode, 1, describe(p))
        self.assertEqual(len(lines(p.stderr)), 1, describe(p))
        self.assertIn("no-such-archive: no such archive", p.stderr)
        p = replay(self.a, "no.such.metric")
        self.assertEqual(p.returncode, 1, describe(p))
        self.assertIn("no metric matches no.such.metric", p.stderr)
        p = replay(self.c)
        self.assertNotEqual(p.returncode, 0, describe(p))
        self.assertIn(self.c, p.stderr)


# ---------------------------------------------------------------------------
# PCP's archives: recorded by pmlogger, compared with pmrep


PMREP_METRICS = ["mmv.alpha.requests.total", "mmv.alpha.cpu.busy", "mmv.alpha.elapsed",
                 "mmv.alpha.ratio.double", "mmv.alpha.ratio.float", "mmv.alpha.signed64",
                 "mmv.alpha.sem_zero", "mmv.alpha.unsigned64_gauge", "mmv.alpha.signed32",
                 "mmv.alpha.version"]


def pmrep_csv(base, raw):
    """pmrep -o csv on every record (-u: no interpolation), full precision."""
    cmd = [PMPYTHON, shutil.which("pmrep") or "/usr/bin/pmrep", "-a", base, "-o", "csv", "-u",
           "-P", "9", "-f", "%Y-%m-%d %H:%M:%S.%f"] + (["-r"] if raw else []) + PMREP_METRICS
    p = cmdtest.run(cmd, env=dict(os.environ, TZ=ZONE, PCP_DERIVED_CONFIG=""))
    if p.returncode != 0:
        raise AssertionError("%s\n%s" % (" ".join(cmd), describe(p)))
    return parse_csv(p.stdout)


def seconds(text):
    """Local "YYYY-MM-DD HH:MM:SS[.frac]" -> seconds since midnight (same day)."""
    m = re.match(r"^\d{4}-\d\d-\d\d (\d\d):(\d\d):(\d\d(?:\.\d+)?)$", text)
    return int(m.group(1)) * 3600 + int(m.group(2)) * 60 + float(m.group(3))


class PcpArchiveTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        root = cmdtest.fresh_dir("replay_pcp")
        cls.files = cmdtest.MmvFiles(os.path.join(root, "pcp"), files=(("alpha", "v1", 0, 0),))
        cls.pmcd = pcp_stack.start_pmcd(cls.files.root, os.path.join(root, "pmcd"))
        cls.archives = {}
        try:
            for version in (3, 2):
                base = os.path.join(root, "pmlogger_v%d" % version)
                with Advancer(cls.files, step=0.03, reset_after=1.2) as adv:
                    pcp_stack.record_with_pmlogger(cls.pmcd, base, 12, 0.2, version)
                    if not adv.reset_done.is_set():
                        raise AssertionError("the counter reset did not happen while recording")
                cls.archives[version] = base
        finally:
            pcp_stack.stop_pmcd(cls.pmcd)

    def test_summary_of_a_pmlogger_archive(self):
        for version, base in self.archives.items():
            with self.subTest(version=version):
                p = replay(base)
                self.assertEqual(p.returncode, 0, describe(p))
                self.assertEqual(p.stderr, "")
                descs = pminfo_descs(base)
                for name in ("mmv.alpha.requests.total", "mmv.alpha.cpu.busy",
                             "mmv.alpha.version"):
                    t, sem, units = descs[name]
                    self.assertRegex(p.stdout, r"\n  %s +%s +%s +%s +\d+ +\d+\n" % (
                        re.escape(name), re.escape(t), sem, re.escape(units or "none")))
                # 12 samples; pmlogger's prologue and epilogue records are
                # its own bookkeeping, left out unless asked for.
                self.assertIn("samples:   12, marks (gaps): 0\n", p.stdout)
                self.assertNotIn("pmcd.pmlogger", p.stdout)
                self.assertRegex(p.stdout, r"\n  mmv\.alpha\.cpu\.busy .* 3 +36\n")
                asked = replay(base, "pmcd.pmlogger")
                name = "pmcd.pmlogger.archive"
                t, sem, units = descs[name]
                self.assertRegex(asked.stdout, r"\n  %s +%s +%s +%s +1 +2\n" % (
                    re.escape(name), re.escape(t), sem, re.escape(units or "none")))
                self.assertIn("samples:   2, marks (gaps): 0\n", asked.stdout)

    def compare_with_pmrep(self, base, raw):
        their_header, their_rows = pmrep_csv(base, raw)
        args = ["--csv"] + (["--raw"] if raw else []) + [base] + PMREP_METRICS
        p = replay(*args)
        self.assertEqual(p.returncode, 0, describe(p))
        our_header, our_rows = parse_csv(p.stdout)
        # pmrep names columns "metric" or "metric-instance"; ours
        # "metric[instance] (units)".
        ours_by_name = {}
        for i, h in enumerate(our_header[1:], 1):
            metric, inst = column_name(h)
            ours_by_name[metric if inst is None else "%s-%s" % (metric, inst)] = i
        columns = []
        for j, h in enumerate(their_header[1:], 1):
            self.assertIn(h, ours_by_name, "pmrep column %s not in replay's %s" % (h, our_header))
            columns.append((h, j, ours_by_name[h]))
        self.assertEqual(len(columns), len(our_header) - 1, (their_header, our_header))
        self.assertGreaterEqual(len(columns), 15)
        # pmrep -u shows the records that have one of the metrics: ours has a
        # row for every record, and empty ones for pmlogger's prologue and
        # epilogue (pmcd.* only).
        our_rows = [r for r in our_rows if any(c != "" for c in r[1:])]
        self.assertEqual(len(our_rows), len(their_rows), (our_rows, their_rows))
        self.assertEqual(len(their_rows), 12)
        compared = {"number": 0, "empty": 0, "string": 0}
        for n, (o, t) in enumerate(zip(our_rows, their_rows)):
            # Times: ours to the millisecond, pmrep's to the microsecond.
            self.assertLess(abs(seconds(o[0]) - seconds(t[0])), 0.001, (o[0], t[0]))
            for name, j, i in columns:
                mine, theirs = o[i], t[j]
                where = "row %d (%s), %s: replay %r, pmrep %r" % (n, t[0], name, mine, theirs)
                if theirs == "" or mine == "":
                    self.assertEqual(mine, theirs, where)
                    compared["empty"] += 1
                    continue
                try:
                    x, y = float(mine), float(theirs)
                except ValueError:
                    self.assertEqual(mine, theirs, where)
                    compared["string"] += 1
                    continue
                if raw and re.fullmatch(r"-?\d+", mine):
                    self.assertEqual(int(mine), int(float(theirs)), where)
                else:
                    self.assertTrue(text_close(mine, theirs), where)
                compared["number"] += 1
        return compared

    def test_csv_rates_agree_with_pmrep(self):
        for version, base in self.archives.items():
            with self.subTest(version=version):
                compared = self.compare_with_pmrep(base, raw=False)
                # Rates in the first row are empty in both, and at the reset.
                self.assertGreater(compared["number"], 100, compared)
                self.assertGreaterEqual(compared["empty"], 3, compared)
                self.assertEqual(compared["string"], 12, compared)

    def test_csv_raw_agrees_with_pmrep(self):
        for version, base in self.archives.items():
            with self.subTest(version=version):
                compared = self.compare_with_pmrep(base, raw=True)
                self.assertEqual(compared["empty"], 0, compared)
                self.assertGreater(compared["number"], 150, compared)


if __name__ == "__main__":
    unittest.main()
