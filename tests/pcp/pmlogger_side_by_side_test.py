"""Side by side with real PCP: pmlogger + pmcd + MMV PMDA against mmvlog.

The acceptance test of the recorder. MMV files written by the real
libpcp_mmv (pcp_mmv_writer: every MMV type, three indoms, help, labels) are
recorded twice, at the same moments:

  - by pmlogger, through a private pmcd running the MMV PMDA
    (pcp_stack.start_pmcd: it reads $TEST_TMPDIR/.../mmv, never the system
    directory), in archive formats v2 and v3;
  - by `mmvlog capture`, from the same directory, same sample count,
    interval and format.

Both archives are dumped with `pmdumplog -a -h -e`, normalised
(pcp_stack.normalize_dumplog: no hosts, times, PIDs, temporal index,
pmcd.* prologue/epilogue or mmv.control.*; order-free) and must agree on
every metric name, PMID, descriptor, indom, instance, label, help text and
value, after mmvlog's intended differences are applied to pmlogger's side.

The files (alphabetical order decides pmdammv's automatic clusters):
  alpha    v1, cluster 0 (auto: 1), no flags; after writing, its U32
           sem_zero is set to all-0xff and its DOUBLE to NaN: without
           SENTINEL both are ordinary values (4294967295 and nan)
  bravo    v2, cluster 11 (pinned), PROCESS (its writer stays alive)
  charlie  v3, cluster 0 (auto: 2), SENTINEL; sentinel values poked in:
           all-0xff I32, ELAPSED and one U64 instance, one empty string
           instance, NaN DOUBLE and one NaN FLOAT instance
  delta    v3, cluster 2047 (pinned; the largest cluster whose indoms fit
           pmdammv's 22-bit indom serial), NOPREFIX (names mmv.<metric>)
The values never change while both record, so every record's values match.

Known, intended differences between pmlogger's archive and mmvlog's
(shared/notes/PCP-BEHAVIOUR.md section 4), applied to pmlogger's side by
pcp_stack.expected_mmvlog_view, and nothing else:
  1. Cluster labels of automatically clustered v3 files (charlie): pmdammv
     drops them (it compares the label's identity, the requested cluster 0,
     with the assigned cluster; PCP-BEHAVIOUR 1.11, E1). mmvlog keeps them,
     under the assigned cluster.
  2. Indom help text: pmlogger never logs it (E1); mmvlog records each
     indom's one-line and long help for the indoms of recorded metrics.
  3. NaN under SENTINEL (charlie's DOUBLE and one FLOAT instance): pmdammv
     6.0.3 never detects NaN and pmlogger records "nan" (1.7, E3); mmvlog
     records no value. All-0xff integers/ELAPSED and empty strings under
     SENTINEL are "no value" in both.
Normalised away on both sides (not differences in content):
  4. pmlogger's prologue and epilogue records (pmcd.pid, pmcd.seqnum,
     pmcd.pmlogger.*) with their descs and indom 2.1: mmvlog writes none
     (or surrogates, PCP-BEHAVIOUR 4 "Prologue/epilogue").
  5. mmv.control.* (70.0.*): the MMV PMDA's own metrics, logged by a
     subtree config (1.1, E1); mmvlog has no PMDA.
  6. Host, pmlogger PID, start/end times, record timestamps, the temporal
     index (layout), empty per-instance label sets (pmlogger logs one per
     instance that has no labels; they carry no label).
Kept and compared: the archive version, timezone and zoneinfo (the same
machine), context labels hostname/domainname/machineid (mmvlog copies what
pmcd reports), the domain label {"agent":"mmv"}, every PMID, indom id and
instance, help text, label (with its OPTIONAL flag) and value.

Until `mmvlog capture` exists, the mmvlog comparison skips with a message;
the pmlogger half always runs and checks that pmlogger recorded exactly
what the writer wrote (so the harness itself is proven). If pmcd cannot run
on the machine, everything skips with a loud banner on stderr.
"""

import json
import math
import os
import re
import shutil
import struct
import subprocess
import unittest

import pcp_stack
from pcp_stack import MMV_FLAG_NOPREFIX, MMV_FLAG_PROCESS, MMV_FLAG_SENTINEL

SAMPLES = 3
INTERVAL_SEC = 0.5
VERSIONS = (2, 3)

# name, mode, requested cluster, flags, assigned cluster (pmdammv, 1.3)
FILES = (
    ("alpha", "v1", 0, 0, 1),
    ("bravo", "v2", 11, MMV_FLAG_PROCESS, 11),
    ("charlie", "v3", 0, MMV_FLAG_SENTINEL, 2),
    ("delta", "v3", 2047, MMV_FLAG_NOPREFIX, 2047),
)

# MMV types (mmv_stats.h) as pmdumplog prints the PCP type; ELAPSED is
# exported as a 64-bit counter in microseconds (PCP-BEHAVIOUR 1.4).
I32, U32, I64, U64, FLOAT, DOUBLE, STRING, ELAPSED = 0, 1, 2, 3, 4, 5, 6, 9
TYPE_TEXT = {I32: "32-bit int", U32: "32-bit unsigned int", I64: "64-bit int",
             U64: "64-bit unsigned int", FLOAT: "float", DOUBLE: "double",
             STRING: "string", ELAPSED: "64-bit int"}
SEM_TEXT = {0: "counter", 1: "counter", 3: "instant", 4: "discrete"}

NO_VALUE = object()  # the expected "value" of an instance that has none
NAN = object()


def runfile(path):
    return os.path.join(os.environ["TEST_SRCDIR"], "mmvlog", path)


def float32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


# ---------------------------------------------------------------------------
# Changing values in a written MMV file (before any reader maps it)


def mmv_values(data):
    """[(byte offset of the value, item, MMV type, instance id or None, extra)]."""
    version, = struct.unpack_from("<I", data, 4)
    tocs, = struct.unpack_from("<i", data, 24)
    sections = {}
    for i in range(tocs):
        kind, count, offset = struct.unpack_from("<iiQ", data, 40 + 16 * i)
        sections[kind] = (count, offset)
    count, offset = sections[4]  # VALUES
    out = []
    for k in range(count):
        at = offset + 32 * k
        _, extra, moff, ioff = struct.unpack_from("<QqQQ", data, at)
        item, mtype = struct.unpack_from("<Ii", data, moff + (64 if version == 1 else 8))
        inst = struct.unpack_from("<i", data, ioff + 12)[0] if ioff else None
        out.append((at, item, mtype, inst, extra))
    return out


def poke(path, changes):
    """changes: {(item, inst): "ones" | "nan" | "empty"}; edits the file."""
    with open(path, "rb") as f:
        data = bytearray(f.read())
    done = set()
    for at, item, mtype, inst, extra in mmv_values(data):
        what = changes.get((item, inst))
        if what is None:
            continue
        if what == "ones":
            data[at:at + 8] = b"\xff" * 8
        elif what == "nan" and mtype == DOUBLE:
            struct.pack_into("<d", data, at, math.nan)
        elif what == "nan" and mtype == FLOAT:
            struct.pack_into("<f", data, at, math.nan)
        elif what == "empty" and mtype == STRING:
            data[extra] = 0
        else:
            raise ValueError("cannot poke %s into item %d type %d" % (what, item, mtype))
        done.add((item, inst))
    if done != set(changes):
        raise ValueError("values not found: %s" % sorted(set(changes) - done))
    with open(path, "r+b") as f:
        f.write(data)


# What is poked into alpha (no SENTINEL) and charlie (SENTINEL), and what
# pmlogger 6.0.3 records for it.
ALPHA_POKES = {(10, 100): "ones", (6, None): "nan"}
CHARLIE_POKES = {(3, None): "ones", (9, None): "ones", (11, 1): "ones",
                 (8, 20): "empty", (6, None): "nan", (5, 5): "nan"}


def expected_after_poke(what, mtype, sentinel):
    if what == "nan":
        return NAN  # pmlogger records nan even under SENTINEL (E3)
    if sentinel:
        return NO_VALUE
    if what == "ones":
        return {I32: -1, U32: 0xFFFFFFFF, I64: -1, U64: (1 << 64) - 1, ELAPSED: -1}[mtype]
    raise ValueError(what)


# ---------------------------------------------------------------------------
# mmvlog side: the only code that knows the recorder's command line (flags of
# cmd/capture.cc as of this writing). ADAPT HERE if they change.


def mmvlog_capture_help(mmvlog):
    """`mmvlog capture --help`, or None while the subcommand does not exist."""
    p = subprocess.run([mmvlog, "capture", "--help"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    text = p.stdout.decode("utf-8", "replace")
    if "unknown command" in text:
        return None
    return text


def mmvlog_capture_command(mmvlog, base, mmv_dir, samples, interval_sec, version):
    """Records `samples` samples of every file in mmv_dir into archive `base`."""
    return [mmvlog, "capture", "--output=" + base, "--mmv-dir=" + mmv_dir,
            "--samples=%d" % samples,
            "--interval=%dmsec" % int(round(interval_sec * 1000)),  # PCP interval syntax
            "--archive-version=%d" % version, "--no-progress"]


# ---------------------------------------------------------------------------


class PmloggerSideBySideTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.holders = []
        cls.pmcd = None
        root = os.path.join(os.environ.get("TEST_TMPDIR", "/tmp"), "side_by_side")
        shutil.rmtree(root, ignore_errors=True)
        cls.root = root
        cls.pcp_tmp = os.path.join(root, "pcp_tmp")
        cls.mmv_dir = os.path.join(cls.pcp_tmp, "mmv")
        os.makedirs(cls.mmv_dir)
        try:
            cls._write_files()
            cls.pmcd = pcp_stack.start_pmcd(cls.pcp_tmp, os.path.join(root, "pmcd"))
            cls._record()
        except BaseException:
            cls._cleanup()
            raise

    @classmethod
    def tearDownClass(cls):
        cls._cleanup()

    @classmethod
    def _cleanup(cls):
        if cls.pmcd is not None:
            pcp_stack.stop_pmcd(cls.pmcd)
            cls.pmcd = None
        for p in cls.holders:
            if p.poll() is None:
                p.kill()
            p.wait()
            p.stdout.close()
        cls.holders = []

    @classmethod
    def _write_files(cls):
        env = dict(os.environ, PCP_TMP_DIR=cls.pcp_tmp)
        writer = runfile("tests/pcp/pcp_mmv_writer")
        cls.files = []
        for name, mode, cluster, flags, assigned in FILES:
            cmd = [writer, "--json", name, mode, str(cluster), str(flags)]
            if flags & MMV_FLAG_PROCESS:
                # PROCESS: the file counts only while its writer lives.
                p = subprocess.Popen(cmd, env=dict(env, MMV_WRITER_HOLD="1"),
                                     stdout=subprocess.PIPE)
                cls.holders.append(p)
                info = json.loads(p.stdout.readline().decode())
            else:
                info = json.loads(subprocess.run(cmd, env=env, check=True,
                                                 stdout=subprocess.PIPE).stdout.decode())
            info["assigned"] = assigned
            info["pokes"] = {}
            path = os.path.join(cls.mmv_dir, name)
            pokes = {"alpha": ALPHA_POKES, "charlie": CHARLIE_POKES}.get(name)
            if pokes:
                poke(path, pokes)
                info["pokes"] = pokes
            cls.files.append(info)

    @classmethod
    def _record(cls):
        """pmlogger and mmvlog record each version at the same moments."""
        mmvlog = runfile("cmd/mmvlog")
        cls.capture_help = mmvlog_capture_help(mmvlog)
        cls.pmlogger_dumps, cls.mmvlog_runs = {}, {}
        for version in VERSIONS:
            base = os.path.join(cls.root, "pmlogger_v%d" % version)
            ours = os.path.join(cls.root, "mmvlog_v%d" % version)
            proc, cmd = None, None
            if cls.capture_help is not None:
                # Started first, so both sample the same files at nearly the
                # same moments.
                cmd = mmvlog_capture_command(mmvlog, ours, cls.mmv_dir, SAMPLES,
                                             INTERVAL_SEC, version)
                env = dict(os.environ, PCP_TMP_DIR=cls.pcp_tmp)
                proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE)
            pcp_stack.record_with_pmlogger(cls.pmcd, base, SAMPLES, INTERVAL_SEC, version)
            cls.pmlogger_dumps[version] = pcp_stack.dump_archive(base)
            run = {"base": ours, "cmd": cmd}
            if proc is not None:
                try:
                    out, err = proc.communicate(timeout=60 + SAMPLES * INTERVAL_SEC * 4)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    out, err = proc.communicate()
                run.update(rc=proc.returncode, stdout=out.decode(errors="replace"),
                           stderr=err.decode(errors="replace"))
            cls.mmvlog_runs[version] = run

    # -- what the writer wrote, as pmlogger should show it --------------------

    def metric_name(self, f, m):
        if f["flags"] & MMV_FLAG_NOPREFIX:
            return "mmv." + m["name"]
        return "mmv.%s.%s" % (f["name"], m["name"])

    def expected_descs(self):
        out = {}
        for f in self.files:
            for m in f["metrics"]:
                pmid = "70.%d.%d" % (f["assigned"], m["item"])
                units = m["units"] or "none"
                if m["type"] == ELAPSED:
                    units = "microsec"
                out[pmid] = {
                    "name": self.metric_name(f, m),
                    "type": TYPE_TEXT[m["type"]],
                    "indom": (pcp_stack.indom_ident(f["assigned"], m["indom"])
                              if m["indom"] else pcp_stack.PM_INDOM_NULL_TEXT),
                    "sem": "counter" if m["type"] == ELAPSED else SEM_TEXT[m["semantics"]],
                    "units": units,
                }
        return out

    def expected_values(self):
        """{pmid: {inst or None: value | NO_VALUE | NAN}}."""
        out = {}
        for f in self.files:
            types = {m["item"]: m["type"] for m in f["metrics"]}
            sentinel = bool(f["flags"] & MMV_FLAG_SENTINEL)
            for v in f["values"]:
                pmid = "70.%d.%d" % (f["assigned"], v["item"])
                what = f["pokes"].get((v["item"], v["instance"]))
                value = v["value"]
                if what is not None:
                    value = expected_after_poke(what, types[v["item"]], sentinel)
                out.setdefault(pmid, {})[v["instance"]] = (value, v["instance_name"])
        return out

    def expected_labels(self):
        """Labels as pmdammv exports them (cluster labels only when pinned)."""
        out = {("context", ""): None, ("domain", "70"): {"agent": "mmv"}}
        optional = {}
        for f in self.files:
            c = f["assigned"]
            for lb in f["labels"]:
                if lb["type"] == "cluster":
                    if f["cluster"] == 0:
                        continue  # lost by pmdammv (1.11, E1)
                    key = ("cluster", "70.%d" % c)
                elif lb["type"] == "item":
                    key = ("item", "70.%d.%d" % (c, lb["identity"]))
                elif lb["type"] == "indom":
                    key = ("indom", pcp_stack.indom_ident(c, lb["identity"]))
                else:
                    key = ("instances", "%s[%d]" % (pcp_stack.indom_ident(c, lb["identity"]),
                                                    lb["instance"]))
                payload = json.loads(lb["payload"])
                out.setdefault(key, {}).update(payload)
                if lb["optional"]:
                    optional.setdefault(key, []).extend(payload)
        return out, optional

    def expected_help(self):
        out = {}
        for f in self.files:
            for m in f["metrics"]:
                pmid = "70.%d.%d" % (f["assigned"], m["item"])
                if m["short_help"]:
                    out[("pmid", pmid, "oneline")] = m["short_help"]
                if m["long_help"]:
                    out[("pmid", pmid, "help")] = m["long_help"]
        return out  # and no indom help: pmlogger never logs it (E1)

    def assert_value(self, where, mtype, expected, text):
        if expected is NAN:
            self.assertEqual(text, "nan", where)
        elif mtype in (FLOAT, DOUBLE):
            want = float32(expected) if mtype == FLOAT else float(expected)
            got = float(text)
            tol = 1e-6 if mtype == FLOAT else 1e-15
            self.assertLessEqual(abs(got - want), tol * max(1.0, abs(want)),
                                 "%s: %s vs %r" % (where, text, want))
        elif mtype == STRING:
            self.assertEqual(text, '"%s"' % expected, where)
        else:
            self.assertEqual(int(text), int(expected), where)

    # -- the pmlogger half: always runs -----------------------------------

    def test_pmlogger_recorded_what_the_writer_wrote(self):
        descs = self.expected_descs()
        types = {}
        for f in self.files:
            for m in f["metrics"]:
                types["70.%d.%d" % (f["assigned"], m["item"])] = m["type"]
        values = self.expected_values()
        labels, optional = self.expected_labels()
        helps = self.expected_help()
        for version in VERSIONS:
            with self.subTest(version=version):
                norm = pcp_stack.normalize_dumplog(self.pmlogger_dumps[version])
                self.assertEqual(norm["unparsed"], [])
                self.assertEqual(norm["label"]["version"], version)
                self.assertTrue(norm["label"].get("timezone"))
                if version == 3:
                    self.assertIn("zoneinfo", norm["label"])
                # Every metric of every file: name, PMID, type, sem, units, indom.
                self.assertEqual(norm["descs"], descs)
                # Indoms and their instances.
                want_indoms = {}
                for f in self.files:
                    for ind in f["indoms"]:
                        want_indoms[pcp_stack.indom_ident(f["assigned"], ind["serial"])] = [
                            sorted((i["id"], i["name"]) for i in ind["instances"])]
                self.assertEqual(norm["indoms"], want_indoms)
                # Help: metric help only.
                self.assertEqual(norm["help"], helps)
                # Labels.
                got = {k: v for k, v in norm["labels"].items()}
                self.assertEqual(set(got), set(labels))
                ctx = got[("context", "")]
                self.assertEqual(len(ctx), 1)
                self.assertEqual(set(ctx[0]["labels"]), {"hostname", "domainname", "machineid"})
                for key, want in labels.items():
                    if want is None:
                        continue
                    self.assertEqual(got[key], [{"labels": want,
                                                 "optional": sorted(optional.get(key, []))}],
                                     key)
                # Values: SAMPLES records, each with every value written.
                self.assertEqual(len(norm["records"]), SAMPLES)
                for n, rec in enumerate(norm["records"]):
                    self.assertFalse(rec["mark"])
                    self.assertEqual(set(rec["sets"]), set(descs), "record %d" % n)
                    for pmid, s in rec["sets"].items():
                        self.assertIsNone(s["error"], pmid)
                        self.assertEqual(s["name"], descs[pmid]["name"])
                        want = {i: v for i, v in values[pmid].items() if v[0] is not NO_VALUE}
                        got_insts = {v[0] for v in s["values"]}
                        self.assertEqual(got_insts, set(want), "record %d %s" % (n, pmid))
                        for inst, name, text in s["values"]:
                            value, iname = want[inst]
                            if inst is not None:
                                self.assertEqual(name, '"%s"' % iname)
                            self.assert_value("record %d %s[%s]" % (n, pmid, inst),
                                              types[pmid], value, text)

    def test_pmlogger_archives_pass_pmlogcheck(self):
        for version in VERSIONS:
            with self.subTest(version=version):
                base = os.path.join(self.root, "pmlogger_v%d" % version)
                p = subprocess.run(["pmlogcheck", base], stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT)
                self.assertEqual(p.returncode, 0, p.stdout.decode(errors="replace"))

    def test_normaliser_applies_exactly_the_intended_differences(self):
        """expected_mmvlog_view on pmlogger's archive changes just the 3 items."""
        norm = pcp_stack.normalize_dumplog(self.pmlogger_dumps[3])
        exp, notes = pcp_stack.expected_mmvlog_view(norm, self.files)
        self.assertFalse([n for n in notes if n.startswith("UNEXPECTED")], notes)
        diff = pcp_stack.diff_normalized(norm, exp, pair_records=True)
        added = sorted(l[1:] for l in diff if l.startswith("+") and not l.startswith("+++"))
        removed = sorted(l[1:] for l in diff if l.startswith("-") and not l.startswith("---"))
        # 1. charlie's cluster labels under its assigned cluster 2.
        self.assertIn('labels cluster 70.2 {"app": "demo", "release": 42} optional=release',
                      added)
        # 2. indom help for every file's indoms 1 and 7 (3 has none).
        for f in self.files:
            c = f["assigned"]
            self.assertIn('help indom %s oneline "CPUs"' % pcp_stack.indom_ident(c, 1), added)
            self.assertIn('help indom %s help "Per-CPU instances\\nof the demo"'
                          % pcp_stack.indom_ident(c, 1), added)
            self.assertIn('help indom %s oneline "Disks"' % pcp_stack.indom_ident(c, 7), added)
        self.assertEqual(len([l for l in added if l.startswith("help ")]), 3 * len(self.files))
        # ... and 4. the context labels with a local context's userid/groupid.
        self.assertEqual(len([l for l in added if l.startswith("labels ")]), 2)
        context = [l for l in added if l.startswith("labels context ")]
        self.assertEqual(len(context), 1, added)
        self.assertIn('"userid": %d' % os.getuid(), context[0])
        self.assertIn("optional=groupid,userid", context[0])
        self.assertEqual(len([l for l in removed if l.startswith("labels context ")]), 1)
        removed = [l for l in removed if not l.startswith("labels context ")]
        # 3. charlie's NaNs become no value; alpha's NaN (no SENTINEL) stays.
        self.assertEqual(sorted(l for l in removed), sorted(
            ["record %d 70.2.5 (mmv.charlie.ratio.float) inst 5 \"cpu5\" value nan" % n
             for n in range(SAMPLES)] +
            ["record %d 70.2.6 (mmv.charlie.ratio.double) value nan" % n
             for n in range(SAMPLES)]))
        self.assertEqual(len([l for l in added if l.startswith("record ")]), SAMPLES)
        for l in added:
            if l.startswith("record "):
                self.assertRegex(l, r"^record \d 70\.2\.6 \(mmv\.charlie\.ratio\.double\) "
                                    r"no values$")

    def test_normaliser_sees_every_kind_of_change(self):
        """A one-token change anywhere that matters gives a diff; times do not."""
        text = self.pmlogger_dumps[3]
        base = pcp_stack.normalize_dumplog(text)
        changes = {
            "value": ("value 1234567890123", "value 1234567890124"),
            "instance name": ('"cpu5"', '"cpu6"'),
            "instance id": ("   5 or ", "   6 or "),
            "metric name": ("(mmv.alpha.signed32)", "(mmv.alpha.signed33)"),
            "pmid": ("PMID: 70.1.3 ", "PMID: 70.1.13 "),
            "type": ("(mmv.alpha.signed32)\n    Data Type: 32-bit int ",
                     "(mmv.alpha.signed32)\n    Data Type: 64-bit int "),
            "units": ("Units: millisec", "Units: microsec"),
            "semantics": ("(mmv.alpha.version)\n    Data Type: string  InDom: PM_INDOM_NULL "
                          "0xffffffff\n    Semantics: discrete",
                          "(mmv.alpha.version)\n    Data Type: string  InDom: PM_INDOM_NULL "
                          "0xffffffff\n    Semantics: instant"),
            "indom of a metric": ("InDom: 70.2049 0x", "InDom: 70.2050 0x"),
            "label value": ('{"hot":true}', '{"hot":false}'),
            "optional flag": ("[instances,optional]", "[instances]"),
            "help text": ("[Busy time]", "[Idle time]"),
            "long help": ("since start", "since boot"),
            "archive version": ("Log Format Version 3", "Log Format Version 2"),
            "timezone": ("Archive timezone: UTC", "Archive timezone: EST"),
        }
        for what, (old, new) in changes.items():
            with self.subTest(change=what):
                self.assertIn(old, text)
                changed = pcp_stack.normalize_dumplog(text.replace(old, new, 1))
                self.assertNotEqual(pcp_stack.diff_normalized(base, changed), [], what)
        # Dropping a record is a count difference; values of the paired ones agree.
        fewer = dict(base, records=base["records"][:-1])
        self.assertEqual(pcp_stack.diff_normalized(base, fewer),
                         ["record count differs: pmlogger %d, mmvlog %d" % (SAMPLES, SAMPLES - 1)])
        # What is normalised away makes no difference.
        same = re.sub(r"\d\d:\d\d:\d\d\.\d+", "01:02:03.000000000", text)
        same = same.replace("Performance metrics from host ", "Performance metrics from host x")
        same = re.sub(r"PID for pmlogger: \d+", "PID for pmlogger: 1", same)
        self.assertEqual(pcp_stack.diff_normalized(base, pcp_stack.normalize_dumplog(same)), [])

    # -- the mmvlog half: skips until `mmvlog capture` exists --------------

    def test_mmvlog_archive_matches_pmlogger(self):
        if self.capture_help is None:
            self.skipTest("`mmvlog capture` does not exist yet (mmvlog capture --help: "
                          "unknown command); the pmlogger half ran and passed")
        for version in VERSIONS:
            with self.subTest(version=version):
                run = self.mmvlog_runs[version]
                self.assertEqual(run["rc"], 0, "%s\nstdout:\n%s\nstderr:\n%s" % (
                    " ".join(run["cmd"]), run["stdout"], run["stderr"]))
                p = subprocess.run(["pmlogcheck", run["base"]], stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT)
                self.assertEqual(p.returncode, 0, p.stdout.decode(errors="replace"))
                theirs = pcp_stack.normalize_dumplog(self.pmlogger_dumps[version])
                ours = pcp_stack.normalize_dumplog(pcp_stack.dump_archive(run["base"]))
                self.assertEqual(ours["unparsed"], [])
                expected, notes = pcp_stack.expected_mmvlog_view(theirs, self.files)
                diff = pcp_stack.diff_normalized(expected, ours, pair_records=True,
                                                 a_name="pmlogger+intended", b_name="mmvlog")
                self.assertEqual(diff, [], "\n".join(
                    ["mmvlog's archive differs from pmlogger's (after the intended "
                     "differences):"] + diff + ["", "intended differences applied:"] + notes))


if __name__ == "__main__":
    unittest.main()
