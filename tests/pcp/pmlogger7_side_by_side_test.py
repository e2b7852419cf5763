"""Side by side with PCP 7.2: its `pmlogger -o` against mmvlog.

pmlogger_side_by_side_test's files (alpha v1 auto cluster with poked
all-ones and NaN values, bravo v2 PROCESS cluster 11, charlie v3 auto
cluster SENTINEL with sentinels poked in, delta v3 NOPREFIX cluster 2047),
written here by PCP 7.2's libpcp_mmv (tests/pcp/pcp_mmv_writer.c built
against it), recorded at the same moments by 7.2's `pmlogger -o` (a local
context: the MMV PMDA as a DSO, no pmcd; 7.2 is built without pmcd) and by
`mmvlog capture`, in archive versions 2 and 3. Both archives are dumped with
7.2's pmlogdump, normalised (pcp_stack.normalize_dumplog) and must agree on
every metric name, PMID, descriptor, indom, instance, label, help text and
value, after mmvlog's intended differences are applied to pmlogger's side.

Differences between 6.0.3 and 7.2 met here, and what mmvlog does:
  a. NaN under SENTINEL: 7.2's pmdammv tests isnan() (mmv.c l.1099, l.1104), so
     pmlogger records no value, as mmvlog does: no longer a difference.
  b. Indom help text: 7.2's pmdammv exports it (mmv.c mmv_text l.1332),
     but looks it up by the MMV serial (mmv_lookup_stat_indom l.901-923,
     l.912 compares the file's serial with pmInDom_serial of the PMDA's indom,
     (cluster << 11) | serial), so pmLookupInDomText finds none for any
     cluster but 0 (tried: 70.1 "CPUs", 70.2049 unknown) and pmlogger logs
     none. mmvlog keeps recording each recorded indom's help (as 6.0.3,
     whose pmdammv refused indom text): the file has it, and it is what the
     PMDA means to serve.
  c. Context labels: 7.2's pmlogger -o writes none in its local context;
     mmvlog writes hostname, domainname, machineid and (optional) userid
     and groupid at the first sample, as 6.0.3's local context does: they
     give pmproxy the archive's host (series_identity_test checks that
     pmseries still gives both archives one source and series).
  d. Cluster labels of automatically clustered v3 files: 7.2's pmdammv
     still compares the label's identity (the requested cluster, 0) with the
     assigned one (mmv.c mmv_label_lookup l.1443-1462) and drops them;
     mmvlog keeps them, as for 6.0.3.
  e. mmv.control.* (7.2 adds control.metrics, control.debug became a
     string) and pmlogger's prologue/epilogue: normalised away, as for 6.0.3.
Also: both archives pass 7.2's and 6.0.3's pmlogcheck, and 6.0.3's
pmdumplog and 7.2's pmlogdump read each of them alike (normal forms equal);
mmvlog's ArchiveReader (archive_reader_tool) reads 7.2's pmlogger archive
value for value as 7.2's libpcp does (pcp7_archive_reader).
"""

import json
import os
import shutil
import subprocess
import unittest

import pcp7
import pcp_oracle
import pcp_stack
import pmlogger_side_by_side_test as sbs
from pcp_stack import MMV_FLAG_PROCESS

SAMPLES = sbs.SAMPLES
VERSIONS = sbs.VERSIONS


def dump6(base):
    p = subprocess.run(["pmdumplog", "-a", "-h", "-e", "-Z", "UTC", base],
                       env=pcp7.pcp6_env({"PCP_DERIVED_CONFIG": ""}),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise AssertionError("pmdumplog %s: %s" % (base, p.stderr.decode(errors="replace")))
    return p.stdout.decode("utf-8", "replace")


def expected_mmvlog_view_72(norm, files, ours):
    """expected_mmvlog_view (a, b, d above) plus c: the context labels of
    mmvlog's own archive `ours`, checked for what they must hold."""
    exp, notes = pcp_stack.expected_mmvlog_view(norm, files)
    ctx = ours["labels"].get(("context", ""), [])
    if ("context", "") in exp["labels"]:
        notes.append("UNEXPECTED: 7.2's pmlogger -o wrote context labels")
    if len(ctx) == 1 and set(ctx[0]["labels"]) == {"hostname", "domainname", "machineid",
                                                   "userid", "groupid"} \
            and ctx[0]["labels"]["userid"] == os.getuid() \
            and ctx[0]["labels"]["groupid"] == os.getgid() \
            and ctx[0]["optional"] == ["groupid", "userid"]:
        exp["labels"][("context", "")] = ctx
        notes.append("context labels (mmvlog's; none from 7.2's pmlogger -o)")
    else:
        notes.append("UNEXPECTED: mmvlog's context labels are %r" % ctx)
    return exp, notes


class Pmlogger72SideBySideTest(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        pcp7.require()
        cls.holders = []
        root = os.path.join(os.environ["TEST_TMPDIR"], "side_by_side_72")
        shutil.rmtree(root, ignore_errors=True)
        cls.root = root
        cls.mmv_dir = os.path.join(root, "mmv")
        os.makedirs(cls.mmv_dir)
        try:
            cls._write_files()
            cls._record()
        finally:
            for p in cls.holders:
                p.kill()
                p.wait()
                p.stdout.close()

    @classmethod
    def _write_files(cls):
        env = dict(pcp7.env(), PCP_TMP_DIR=cls.root)
        writer = pcp7.writer("pcp_mmv_writer")
        cls.files = []
        for name, mode, cluster, flags, assigned in sbs.FILES:
            cmd = [writer, "--json", name, mode, str(cluster), str(flags)]
            if flags & MMV_FLAG_PROCESS:
                p = subprocess.Popen(cmd, env=dict(env, MMV_WRITER_HOLD="1"),
                                     stdout=subprocess.PIPE)
                cls.holders.append(p)
                info = json.loads(p.stdout.readline().decode())
            else:
                info = json.loads(subprocess.run(cmd, env=env, check=True,
                                                 stdout=subprocess.PIPE).stdout.decode())
            info["assigned"] = assigned
            info["pokes"] = {}
            pokes = {"alpha": sbs.ALPHA_POKES, "charlie": sbs.CHARLIE_POKES}.get(name)
            if pokes:
                sbs.poke(os.path.join(cls.mmv_dir, name), pokes)
                info["pokes"] = pokes
            cls.files.append(info)

    @classmethod
    def _record(cls):
        mmvlog = sbs.runfile("cmd/mmvlog")
        cfg = os.path.join(cls.root, "pmlogger.conf")
        with open(cfg, "w") as f:
            f.write("log mandatory on every %d msec {\n    mmv\n}\n"
                    % int(sbs.INTERVAL_SEC * 1000))
        cls.bases = {}
        for version in VERSIONS:
            ours = os.path.join(cls.root, "mmvlog_v%d" % version)
            theirs = os.path.join(cls.root, "pmlogger_v%d" % version)
            cmd = sbs.mmvlog_capture_command(mmvlog, ours, cls.mmv_dir, SAMPLES,
                                             sbs.INTERVAL_SEC, version)
            m = subprocess.Popen(cmd, env=dict(os.environ, PCP_TMP_DIR=cls.root),
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            p = pcp7.pmlogger_o(["-c", cfg, "-s", str(SAMPLES), "-V", str(version),
                                 "-l", theirs + ".log", theirs], cls.root, cls.root)
            p_out, _ = p.communicate(timeout=60)
            m_out, m_err = m.communicate(timeout=60)
            if p.returncode != 0:
                raise AssertionError("7.2's pmlogger -o failed: %s" % p_out.decode())
            if m.returncode != 0:
                raise AssertionError("%s failed: %s" % (" ".join(cmd), m_err.decode()))
            cls.bases[version] = (theirs, ours)

    def test_pmlogger_recorded_what_the_writer_wrote(self):
        """The harness: 7.2's pmlogger -o recorded the files as expected
        (a: no NaN under SENTINEL; b: no indom help; c: no context labels)."""
        for version in VERSIONS:
            with self.subTest(version=version):
                norm = pcp_stack.normalize_dumplog(pcp7.dump(self.bases[version][0]))
                self.assertEqual(norm["unparsed"], [])
                self.assertEqual(norm["label"]["version"], version)
                self.assertEqual(len(norm["records"]), SAMPLES)
                self.assertNotIn(("context", ""), norm["labels"])
                self.assertFalse([k for k in norm["help"] if k[0] == "indom"])
                names = {d["name"] for d in norm["descs"].values()}
                self.assertEqual(len(names), 47)
                for n, rec in enumerate(norm["records"]):
                    for pmid, s in rec["sets"].items():
                        for v in s["values"]:
                            if pmid.startswith("70.2."):  # charlie: SENTINEL
                                self.assertNotEqual(v[2], "nan", (n, pmid))
                    # alpha (no SENTINEL) keeps its NaN.
                    self.assertEqual(rec["sets"]["70.1.6"]["values"], [(None, None, "nan")])
                    self.assertEqual(rec["sets"]["70.2.6"]["values"], [])

    def test_mmvlog_archive_matches_pmlogger(self):
        for version in VERSIONS:
            with self.subTest(version=version):
                theirs, ours = self.bases[version]
                t = pcp_stack.normalize_dumplog(pcp7.dump(theirs))
                o = pcp_stack.normalize_dumplog(pcp7.dump(ours))
                self.assertEqual(o["unparsed"], [])
                expected, notes = expected_mmvlog_view_72(t, self.files, o)
                self.assertFalse([n for n in notes if n.startswith("UNEXPECTED")], notes)
                diff = pcp_stack.diff_normalized(expected, o, pair_records=True,
                                                 a_name="pmlogger 7.2+intended", b_name="mmvlog")
                self.assertEqual(diff, [], "\n".join(
                    ["mmvlog's archive differs from 7.2's pmlogger -o's (after the "
                     "intended differences):"] + diff + ["", "intended differences applied:"]
                    + notes))

    def test_intended_differences_are_exactly_these(self):
        """What the expected view changes: d (charlie's cluster labels), b
        (indom help of every file's indoms 1 and 7), c (context labels)."""
        norm = pcp_stack.normalize_dumplog(pcp7.dump(self.bases[3][0]))
        ours = pcp_stack.normalize_dumplog(pcp7.dump(self.bases[3][1]))
        exp, _ = expected_mmvlog_view_72(norm, self.files, ours)
        diff = pcp_stack.diff_normalized(norm, exp, pair_records=True)
        added = sorted(l[1:] for l in diff if l.startswith("+") and not l.startswith("+++"))
        removed = [l for l in diff if l.startswith("-") and not l.startswith("---")]
        self.assertEqual(removed, [])
        self.assertIn('labels cluster 70.2 {"app": "demo", "release": 42} optional=release',
                      added)
        self.assertEqual(len([l for l in added if l.startswith("help indom ")]),
                         3 * len(self.files))
        self.assertEqual(len([l for l in added if l.startswith("labels context ")]), 1)
        self.assertEqual(len(added), 3 * len(self.files) + 2)

    def test_both_pass_pmlogcheck_of_both_versions(self):
        for version in VERSIONS:
            for base in self.bases[version]:
                with self.subTest(version=version, archive=os.path.basename(base)):
                    rc, out = pcp7.pmlogcheck(base, verbose=False)
                    self.assertEqual((rc, out), (0, ""), "7.2")
                    p = subprocess.run(["pmlogcheck", base], env=pcp7.pcp6_env(),
                                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
                    self.assertEqual((p.returncode, p.stdout), (0, b""), "6.0.3")

    def test_pcp6_reads_both_as_pcp7_does(self):
        """6.0.3's pmdumplog and 7.2's pmlogdump: the same normal form, so
        every value reads back alike (an extra-unit word would differ, see
        extra_units_test; these files have none)."""
        for version in VERSIONS:
            for base in self.bases[version]:
                with self.subTest(version=version, archive=os.path.basename(base)):
                    six = pcp_stack.normalize_dumplog(dump6(base))
                    seven = pcp_stack.normalize_dumplog(pcp7.dump(base))
                    self.assertEqual(pcp_stack.diff_normalized(six, seven, a_name="6.0.3",
                                                               b_name="7.2"), [])

    def test_mmvlog_reads_pmlogger72s_archive_as_libpcp72_does(self):
        reader = sbs.runfile("tests/pcp/archive_reader_tool")
        for version in VERSIONS:
            with self.subTest(version=version):
                base = self.bases[version][0]
                ours = json.loads(subprocess.run([reader, base], check=True,
                                                 stdout=subprocess.PIPE).stdout.decode())
                theirs = pcp_oracle.read_with_libpcp7(base)
                self.assertEqual(ours["warnings"], [])
                by_pmid = {d["pmid"]: d for d in theirs["descs"].values()}
                self.assertEqual(sorted(d["pmid"] for d in ours["descs"]), sorted(by_pmid))
                for d in ours["descs"]:
                    t = by_pmid[d["pmid"]]
                    self.assertEqual((d["names"], d["type"], d["sem"], d["indom"], d["units"]),
                                     ([t["name"]], t["type"], t["sem"], t["indom"], t["units"]))
                self.assertEqual(len(ours["results"]), len(theirs["results"]))
                for o, t in zip(ours["results"], theirs["results"]):
                    self.assertEqual(pcp_oracle.parse_stamp(o["t"]), t["t"])
                    want = {(st["pmid"], v["inst"]): v["value"] for st in t["sets"]
                            for v in st.get("values", [])}
                    got = {(st["pmid"], v[0]): v[1] for st in o["sets"]
                           for v in st.get("values", [])}
                    self.assertEqual(set(got), set(want), o["t"])
                    for k, v in want.items():
                        if isinstance(v, bytes):
                            self.assertEqual(got[k].encode("latin-1"), v, k)
                        elif isinstance(v, float) and v != v:
                            self.assertIsNone(got[k], k)  # the tool writes NaN as null
                        else:
                            self.assertEqual(got[k], v, k)


if __name__ == "__main__":
    unittest.main()
