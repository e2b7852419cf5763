"""mmvlog's ArchiveWriter against real PCP, 6.0.3 and 7.2.

For archive versions 2 and 3, archive_writer_tool writes a deterministic
archive with ArchiveWriter (every value type, an instance domain that grows
and shrinks, labels of every kind, help text, a <mark>, an error value set
and a new volume every 4 results) and prints, as JSON, exactly what it
wrote. The test then checks that real PCP, Debian's 6.0.3 and 7.2 (its
pmlogcheck, pmlogdump and libpcp, tests/pcp/pcp7.py), reads back exactly
that:

  a. pmlogcheck -v exits 0 and prints nothing beyond what it prints for a
     good archive written by PCP's own LOGIMPORT; its record counts match;
  b. pmdumplog -l/-L, -t, and -a -h -e succeed, and their text lists the
     same label, descriptors, instance domains, labels, help text, temporal
     index and records (every value, error, instance name and the <mark>);
  c. libpcp itself (python3-pcp) reports every field exactly: the archive
     label, each descriptor (pmLookupName/pmLookupDesc/pmNameID/pmUnitsStr),
     help text (pmLookupText/pmLookupInDomText), labels of every type with
     their OPTIONAL flag, and every record from pmFetchHighResArchive
     (nanoseconds for v3, microseconds for v2) and pmFetchArchive, with
     every value bit-exact (floats as float32), the value encoding PCP uses
     (INSITU for 32-bit types, typed pmValueBlocks with a NUL after strings),
     error codes, marks, and the instance names in force at each record.
"""

import json
import os
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pcp7  # noqa: E402
import pcp_oracle as o  # noqa: E402

TOOL = os.path.join(os.environ.get("TEST_SRCDIR", ""), "mmvlog/tests/pcp/archive_writer_tool")

# Set by archive_writer_tool (ArchiveOptions) but not in its JSON.
TOOL_PID = 4242
TOOL_ZONEINFO = ":Etc/UTC"
LABEL_SIZE = {2: 132, 3: 808}

KIND_TYPE = {
    "context": o.PM_LABEL_CONTEXT, "domain": o.PM_LABEL_DOMAIN,
    "cluster": o.PM_LABEL_CLUSTER, "item": o.PM_LABEL_ITEM,
    "indom": o.PM_LABEL_INDOM, "instances": o.PM_LABEL_INSTANCES,
}


def write_archive(version, name):
    d = os.path.join(os.environ["TEST_TMPDIR"], "writer_v%d_%s" % (version, name))
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    base = os.path.join(d, "arch")
    p = subprocess.run([TOOL, str(version), base], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise AssertionError("archive_writer_tool %d failed: %s" % (version, p.stderr.decode()))
    return base, json.loads(p.stdout.decode())


class Expected:
    """The tool's JSON, indexed."""

    def __init__(self, js):
        self.js = js
        self.version = js["version"]
        self.descs = {d["name"]: d for d in js["descs"]}
        self.by_pmid = {d["pmid"]: d for d in js["descs"]}
        self.results = []
        for r in js["results"]:
            t = o.parse_stamp(r["t"])
            if self.version == 2:
                t = o.to_usec_precision(t)
            self.results.append(dict(r, t=t))
        self.indoms = []
        for d in js["indoms"]:
            t = o.parse_stamp(d["t"])
            if self.version == 2:
                t = o.to_usec_precision(t)
            self.indoms.append((t, [(i, n) for i, n in d["instances"]]))
        self.start = o.parse_stamp(js["start"])
        if self.version == 2:
            self.start = o.to_usec_precision(self.start)

    def indom_at(self, t):
        """Instances in force at t (the tool has one instance domain)."""
        best = None
        for when, insts in self.indoms:
            if when <= t:
                best = insts
        return sorted(best if best is not None else self.indoms[0][1])

    def all_instances(self):
        seen = {}
        for _, insts in self.indoms:
            for i, n in insts:
                seen[i] = n
        return sorted(seen.items())

    def value(self, pmid, v):
        return o.typed_value(self.by_pmid[pmid]["type"], v)


def need(pcp):
    """PCP 7.2 is there, or the subtest skips (fails in CI) saying why."""
    if pcp == "7":
        pcp7.require()


class ArchiveWriterOracleTest(unittest.TestCase):
    maxDiff = None

    def cases(self):
        """(pcp, archive version, base, expected): each archive read by PCP
        6.0.3 and by 7.2, which must read back the same."""
        return [(pcp, version, base, exp) for pcp in ("6", "7")
                for version, (base, exp) in self.archives.items()]

    @classmethod
    def setUpClass(cls):
        cls.archives = {}
        for version in (2, 3):
            base, js = write_archive(version, "main")
            cls.archives[version] = (base, Expected(js))

    # -- a. pmlogcheck -------------------------------------------------------

    def test_pmlogcheck(self):
        for pcp, version, base, exp in self.cases():
            with self.subTest(pcp=pcp, version=version):
                need(pcp)
                rc, out, unexpected, counts = o.run_pmlogcheck(base, pcp)
                self.assertEqual(rc, 0, out)
                self.assertEqual(unexpected, [], out)
                nres = len(exp.results)
                nmarks = sum(1 for r in exp.results if r.get("mark"))
                # pmlogcheck counts a <mark> as a pmResult too (seen with a
                # LOGIMPORT archive: 2 results + 1 mark -> "Processed 3").
                self.assertEqual(counts.get("results"), nres, out)
                self.assertEqual(counts.get("marks", 0), nmarks, out)
                nvol = exp.js["volumes"]
                vol_records = sum(counts.get("%s.%d" % (base, v), 0) for v in range(nvol))
                self.assertEqual(vol_records, nres + nvol, out)  # + a label each
                meta = 1 + len(exp.js["descs"]) + len(exp.js["texts"]) + \
                    len(exp.js["labels"]) + len(exp.js["indoms"])
                self.assertEqual(counts.get(base + ".meta"), meta, out)
                self.assertNotIn("%s.%d" % (base, nvol), counts, out)

    def test_files(self):
        for version, (base, exp) in self.archives.items():
            with self.subTest(version=version):
                d = os.path.dirname(base)
                want = {"arch.meta", "arch.index"} | {"arch.%d" % v for v in range(exp.js["volumes"])}
                self.assertEqual(set(os.listdir(d)), want)
                self.assertEqual(exp.js["volumes"], 3)

    # -- b. pmdumplog --------------------------------------------------------

    def test_pmdumplog_label(self):
        for pcp, version, base, exp in self.cases():
            with self.subTest(pcp=pcp, version=version):
                need(pcp)
                for flag in ("-l", "-L"):
                    rc, out, err = o.run(["pmdumplog", flag, "-Z", "UTC", "-xxx", base], pcp)
                    self.assertEqual(rc, 0, err)
                    self.assertEqual(err, "")
                    p = o.parse_pmdumplog(out)
                    self.assertEqual(p["unparsed"], [], out)
                    lab = p["label"]
                    self.assertEqual(lab["version"], version, out)
                    self.assertEqual(lab["hostname"], exp.js["hostname"], out)
                    self.assertEqual(lab["commencing"], exp.start, out)
                    self.assertEqual(lab["ending"], exp.results[-1]["t"], out)
                    if flag == "-L":
                        self.assertEqual(lab["timezone"], exp.js["timezone"], out)
                        self.assertEqual(lab["pid"], TOOL_PID, out)

    def test_pmdumplog_index(self):
        for pcp, version, base, exp in self.cases():
            with self.subTest(pcp=pcp, version=version):
                need(pcp)
                rc, out, err = o.run(["pmdumplog", "-t", "-Z", "UTC", "-xxx", base], pcp)
                self.assertEqual(rc, 0, err)
                p = o.parse_pmdumplog(out)
                self.assertEqual(p["unparsed"], [], out)
                index = p["index"]
                self.assertTrue(index, out)
                nvol = exp.js["volumes"]
                sizes = [os.path.getsize("%s.%d" % (base, v)) for v in range(nvol)]
                meta_size = os.path.getsize(base + ".meta")
                for e in index:
                    self.assertTrue(0 <= e["volume"] < nvol, out)
                    self.assertTrue(LABEL_SIZE[version] <= e["data"] <= sizes[e["volume"]], out)
                    self.assertTrue(LABEL_SIZE[version] <= e["meta"] <= meta_size, out)
                for a, b in zip(index, index[1:]):
                    self.assertLessEqual(a["t"], b["t"], out)
                    self.assertLessEqual(a["volume"], b["volume"], out)
                # Every volume is indexed at its first record (pmlogger's
                # rule), the first entry is at the first result, the last at
                # the last result.
                for v in range(nvol):
                    self.assertIn((v, LABEL_SIZE[version]),
                                  [(e["volume"], e["data"]) for e in index], out)
                self.assertEqual(index[0]["t"], exp.results[0]["t"], out)
                self.assertEqual(index[-1]["t"], exp.results[-1]["t"], out)
                self.assertEqual(index[-1]["volume"], nvol - 1, out)
                # Each entry's timestamp is a record's.
                stamps = {r["t"] for r in exp.results}
                for e in index:
                    self.assertIn(e["t"], stamps, out)

    def test_pmdumplog_all(self):
        for pcp, version, base, exp in self.cases():
            with self.subTest(pcp=pcp, version=version):
                need(pcp)
                rc, out, err = o.run(["pmdumplog", "-a", "-h", "-e", "-Z", "UTC", "-xxx", base], pcp)
                self.assertEqual(rc, 0, err)
                self.assertEqual(err, "")
                p = o.parse_pmdumplog(out)
                self.assertEqual(p["unparsed"], [], out)
                self.check_dumplog_descs(exp, p, out)
                self.check_dumplog_indoms(exp, p, out)
                self.check_dumplog_texts(exp, out)
                self.check_dumplog_labels(exp, p, out)
                self.check_dumplog_records(exp, p, out)

    def check_dumplog_descs(self, exp, p, out):
        self.assertEqual(sorted(p["descs"]), sorted(exp.descs), out)
        for name, d in exp.descs.items():
            got = p["descs"][name]
            self.assertEqual(got["pmid"], o.pmid_str(d["pmid"]), name)
            self.assertEqual(got["type"], o.TYPE_TEXT[d["type"]], name)
            self.assertEqual(got["sem"], o.SEM_TEXT[d["sem"]], name)
            self.assertEqual(got["indom"], d["indom"], name)
            self.assertEqual(got["units"], d["units"] or "none", name)

    def check_dumplog_indoms(self, exp, p, out):
        got = [(x["t"], sorted(x["instances"])) for x in p["indoms"]]
        want = [(t, sorted(insts)) for t, insts in exp.indoms]
        self.assertEqual(got, want, out)
        for x in p["indoms"]:
            self.assertEqual(x["count"], len(x["instances"]), out)

    def check_dumplog_texts(self, exp, out):
        section = out.split("Metric Help Text in the Log ...\n", 1)[1]
        section = section.split("\nInstance Domains in the Log ...", 1)[0]
        for t in exp.js["texts"]:
            if t["type"] & o.PM_TEXT_PMID:
                head = "PMID: " + o.pmid_str(t["ident"])
            else:
                head = "InDom: " + o.indom_str(t["ident"])
            if t["type"] & o.PM_TEXT_ONELINE:
                self.assertIn("%s [%s]\n" % (head, t["text"]), section, t)
            else:
                self.assertIn("%s\n%s\n" % (head, t["text"]), section, t)

    def check_dumplog_labels(self, exp, p, out):
        got = [(x["t"], json.loads(x["json"])) for x in p["labels"]]
        for rec in exp.js["labels"]:
            for s in rec["sets"]:
                # Every label set the tool wrote, stamped with the archive's
                # start (the tool stamps labels with it).
                self.assertIn((exp.start, json.loads(s["json"])), got, (rec, out))
        self.assertEqual(len(p["labels"]), sum(len(r["sets"]) for r in exp.js["labels"]), out)
        # Each label's flags as pmdumplog -e names them: the label type
        # ("pmid" for item labels), plus "optional".
        flag_words = {"context": "context", "domain": "domain", "cluster": "cluster",
                      "item": "pmid", "indom": "indom", "instances": "instances"}
        want_flags = {}
        for rec in exp.js["labels"]:
            for s in rec["sets"]:
                words = flag_words[rec["kind"]]
                if rec["kind"] == "item":
                    words += ",optional"
                want_flags[json.dumps(json.loads(s["json"]), sort_keys=True)] = \
                    [words] * len(json.loads(s["json"]))
        for x in p["labels"]:
            key = json.dumps(json.loads(x["json"]), sort_keys=True)
            self.assertEqual(x["flags"], want_flags[key], (x, out))

    def check_dumplog_records(self, exp, p, out):
        recs = p["records"]
        self.assertEqual(len(recs), len(exp.results), out)
        for want, got in zip(exp.results, recs):
            self.assertEqual(got["t"], want["t"], (want, got))
            if want.get("mark"):
                self.assertTrue(got["mark"], got)
                self.assertEqual(got["sets"], [], got)
                continue
            self.assertFalse(got["mark"], got)
            self.assertEqual(got["numpmid"], len(want["sets"]), got)
            self.assertEqual(len(got["sets"]), len(want["sets"]), got)
            names = dict(exp.indom_at(want["t"]))
            for ws, gs in zip(want["sets"], got["sets"]):
                d = exp.by_pmid[ws["pmid"]]
                self.assertEqual(gs["pmid"], o.pmid_str(ws["pmid"]), gs)
                self.assertEqual(gs["name"], d["name"], gs)
                if "error" in ws:
                    self.assertEqual(gs["error"], o.pmapi.pmContext.pmErrStr(ws["error"]), gs)
                    self.assertEqual(gs["values"], [], gs)
                    continue
                self.assertIsNone(gs["error"], gs)
                self.assertEqual(len(gs["values"]), len(ws["values"]), (ws, gs))
                for (winst, wval), (ginst, gname, gval) in zip(ws["values"], gs["values"]):
                    self.assertEqual(ginst, winst, (ws, gs))
                    if d["indom"] != o.PM_INDOM_NULL:
                        self.assertEqual(o.dumplog_instance_name(gname), names[winst], (ws, gs))
                    wv = exp.value(ws["pmid"], wval)
                    self.assertTrue(o.values_close(d["type"], wv, gval),
                                    (d["name"], want["t"], wv, gval))

    # -- c. libpcp -----------------------------------------------------------

    def test_libpcp(self):
        for pcp, version, base, exp in self.cases():
            with self.subTest(pcp=pcp, version=version):
                need(pcp)
                got = o.read_with_libpcp7(base) if pcp == "7" else o.read_with_libpcp(base)
                self.check_label(exp, got)
                self.check_descs(exp, got)
                self.check_texts(exp, got)
                self.check_labels(exp, got)
                self.check_results(exp, got)

    def check_label(self, exp, got):
        lab = got["label"]
        self.assertEqual(lab["magic"], 0x50052600 | exp.version)
        self.assertEqual(lab["version"], exp.version)
        self.assertEqual(lab["pid"], TOOL_PID)
        self.assertEqual(lab["hostname"], exp.js["hostname"])
        self.assertEqual(lab["v2_hostname"], exp.js["hostname"])
        self.assertEqual(lab["timezone"], exp.js["timezone"])
        self.assertEqual(lab["v2_timezone"], exp.js["timezone"])
        self.assertEqual(lab["start"], exp.start)
        self.assertEqual(lab["start_usec"], (exp.start[0], exp.start[1] // 1000))
        self.assertEqual(lab["zoneinfo"], TOOL_ZONEINFO if exp.version == 3 else "")
        self.assertEqual(got["end"], exp.results[-1]["t"])

    def check_descs(self, exp, got):
        self.assertEqual(sorted(got["descs"]), sorted(exp.descs))
        for name, d in exp.descs.items():
            g = got["descs"][name]
            self.assertEqual(g["pmid"], d["pmid"], name)
            self.assertEqual(g["name_of_pmid"], name)
            self.assertEqual(g["all_names"], [name])
            self.assertEqual(g["type"], d["type"], name)
            self.assertEqual(g["sem"], d["sem"], name)
            self.assertEqual(g["indom"], d["indom"], name)
            self.assertEqual(g["units"], d["units"], name)
            if d["indom"] != o.PM_INDOM_NULL:
                self.assertEqual(g["indom_all"], exp.all_instances(), name)

    def check_texts(self, exp, got):
        by_pmid = {g["pmid"]: g for g in got["descs"].values()}
        by_indom = {g["indom"]: g for g in got["descs"].values() if g["indom"] != o.PM_INDOM_NULL}
        want_pmid, want_indom = {}, {}
        for t in exp.js["texts"]:
            kind = t["type"] & (o.PM_TEXT_ONELINE | o.PM_TEXT_HELP)
            if t["type"] & o.PM_TEXT_PMID:
                want_pmid.setdefault(t["ident"], {})[kind] = t["text"].encode()
            else:
                want_indom.setdefault(t["ident"], {})[kind] = t["text"].encode()
        for pmid, g in by_pmid.items():
            self.assertEqual(g["texts"], want_pmid.get(pmid, {}), g["name"])
        for indom, g in by_indom.items():
            self.assertEqual(g["indom_texts"], want_indom.get(indom, {}), o.indom_str(indom))

    def check_labels(self, exp, got):
        """libpcp's label sets of every type, with each label's flags."""
        L = got["labels"]
        want = {rec["kind"]: rec for rec in exp.js["labels"]}
        self.assertEqual(sorted(KIND_TYPE), sorted(want))
        for kind, rec in want.items():
            self.assertEqual(rec["type"], KIND_TYPE[kind], kind)
            for s in rec["sets"]:
                # As LOGIMPORT and pmlogger write them: the label type, plus
                # OPTIONAL where the tool asked for it (only the item labels).
                optional = o.PM_LABEL_OPTIONAL if kind == "item" else 0
                self.assertEqual(s["flags"], [KIND_TYPE[kind] | optional] * len(json.loads(s["json"])),
                                 (kind, s))

        def sets_of(rec):
            out = []
            for s in rec["sets"] if rec else []:
                names = sorted(json.loads(s["json"]))
                out.append((s["inst"], json.loads(s["json"]), dict(zip(names, s["flags"]))))
            return sorted(out, key=repr)

        def got_sets(sets):
            return sorted(((s["inst"], s["labels"], s["flags"]) for s in sets), key=repr)

        self.assertEqual(got_sets(L["context"]), sets_of(want["context"]))
        for dom, sets in L["domain"].items():
            w = want["domain"] if want["domain"]["ident"] == dom else None
            self.assertEqual(got_sets(sets), sets_of(w), dom)
        self.assertIn(want["domain"]["ident"], L["domain"])
        for ident, sets in L["cluster"].items():
            w = want["cluster"] if ident == want["cluster"]["ident"] else None
            self.assertEqual(got_sets(sets), sets_of(w), o.pmid_str(ident))
        self.assertIn(want["cluster"]["ident"], L["cluster"])
        for pmid, sets in L["item"].items():
            w = want["item"] if pmid == want["item"]["ident"] else None
            self.assertEqual(got_sets(sets), sets_of(w), o.pmid_str(pmid))
        self.assertIn(want["item"]["ident"], L["item"])
        for indom, sets in L["indom"].items():
            w = want["indom"] if indom == want["indom"]["ident"] else None
            self.assertEqual(got_sets(sets), sets_of(w), o.indom_str(indom))
        self.assertIn(want["indom"]["ident"], L["indom"])
        for indom, sets in L["instances"].items():
            w = want["instances"] if indom == want["instances"]["ident"] else None
            self.assertEqual(got_sets(sets), sets_of(w), o.indom_str(indom))
        self.assertIn(want["instances"]["ident"], L["instances"])

    def check_results(self, exp, got):
        res = got["results"]
        self.assertEqual(got["fetch_end"], o.c_api.PM_ERR_EOL)
        self.assertEqual(len(res), len(exp.results))
        usec = [(r["t"][0], r["t"][1] // 1000, 0 if r.get("mark") else len(r["sets"]))
                for r in exp.results]
        self.assertEqual(got["results_usec"], usec)
        self.assertEqual(got["fetch_end_usec"], o.c_api.PM_ERR_EOL)
        for want, g in zip(exp.results, res):
            ctx = (want["t"], g["t"])
            self.assertEqual(g["t"], want["t"], ctx)
            if want.get("mark"):
                self.assertEqual(g["numpmid"], 0, ctx)
                continue
            self.assertEqual(g["numpmid"], len(want["sets"]), ctx)
            insts = exp.indom_at(want["t"])
            for indom, now in g["indoms"].items():
                self.assertEqual(now, insts, (ctx, o.indom_str(indom)))
            names = dict(insts)
            for ws, gs in zip(want["sets"], g["sets"]):
                d = exp.by_pmid[ws["pmid"]]
                c = (ctx, d["name"])
                self.assertEqual(gs["pmid"], ws["pmid"], c)
                if "error" in ws:
                    self.assertEqual(gs["numval"], ws["error"], c)
                    continue
                self.assertEqual(gs["numval"], len(ws["values"]), c)
                insitu = d["type"] in (o.PM_TYPE_32, o.PM_TYPE_U32)
                self.assertEqual(gs["valfmt"], 0 if insitu else 1, c)
                for (winst, wval), gv in zip(ws["values"], gs["values"]):
                    self.assertEqual(gv["inst"], winst, c)
                    wv = exp.value(ws["pmid"], wval)
                    self.assertEqual(gv["value"], wv, c)
                    self.assertEqual(type(gv["value"]), type(wv), c)
                    if d["indom"] != o.PM_INDOM_NULL:
                        self.assertEqual(gv["name"], names[winst], c)
                    if not insitu:
                        vtype, vlen, data = gv["raw"]
                        self.assertEqual(vtype, d["type"], c)
                        size = {o.PM_TYPE_64: 8, o.PM_TYPE_U64: 8, o.PM_TYPE_DOUBLE: 8,
                                o.PM_TYPE_FLOAT: 4}.get(d["type"])
                        if d["type"] == o.PM_TYPE_STRING:
                            # As PCP's __pmStuffValue: the string and its NUL.
                            self.assertEqual(data, wv + b"\0", c)
                            self.assertEqual(vlen, 4 + len(wv) + 1, c)
                        else:
                            self.assertEqual(vlen, 4 + size, c)


if __name__ == "__main__":
    unittest.main()
