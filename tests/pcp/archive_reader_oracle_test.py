"""mmvlog's ArchiveReader against real PCP 6.0.3.

archive_reader_tool reads an archive with archiver::ArchiveReader and prints
everything it read as JSON. The test checks it on:

  a. archives written by PCP's own LOGIMPORT (pcp.pmi), versions 2 and 3
     (PCP_ARCHIVE_VERSION in the environment; checked with pmdumplog -l),
     holding every value type (32, U32, 64, U64, FLOAT, DOUBLE, STRING,
     including the empty string), two instance domains that grow, records
     with missing metrics and missing instances, a <mark>, labels of every
     type and help text for metrics and an instance domain. What the reader
     returns must equal, field by field and value by value (floats exactly,
     v3 timestamps to the nanosecond), what libpcp returns (python3-pcp),
     and agree with the text of pmdumplog -a -h -e;
  b. a 3-volume archive written by archive_writer_tool (v2 and v3): every
     record from every volume, in order, equal to what the tool wrote and to
     what libpcp reads;
  c. the same archive with a few bytes cut off its last volume (a torn tail):
     the reader returns every complete record, reports a warning naming the
     volume and the offset of the torn record, and does not fail; libpcp
     reads the same complete records.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pcp_oracle as o  # noqa: E402

RUNFILES = os.path.join(os.environ.get("TEST_SRCDIR", ""), "mmvlog/tests/pcp")
READER = os.path.join(RUNFILES, "archive_reader_tool")
WRITER = os.path.join(RUNFILES, "archive_writer_tool")

DOMAIN = 245
BASE_SEC = 1700000100


# ---------------------------------------------------------------------------
# The LOGIMPORT archive. Run in a child process (see __main__) so that
# PCP_ARCHIVE_VERSION is in its environment before libpcp_import starts.

def logimport_main(version, base):
    from pcp import pmi
    import cpmapi as c_api

    log = pmi.pmiLogImport(base)
    log.pmiSetHostname("importhost.example")
    log.pmiSetTimezone("UTC")
    A = log.pmiInDom(DOMAIN, 1)
    B = log.pmiInDom(DOMAIN, 2)
    none = log.pmiUnits(0, 0, 0, 0, 0, 0)
    metrics = [
        ("imp.i32", 1, c_api.PM_TYPE_32, c_api.PM_INDOM_NULL, c_api.PM_SEM_INSTANT, none),
        ("imp.u32", 2, c_api.PM_TYPE_U32, c_api.PM_INDOM_NULL, c_api.PM_SEM_COUNTER,
         log.pmiUnits(0, 0, 1, 0, 0, 0)),
        ("imp.i64", 3, c_api.PM_TYPE_64, c_api.PM_INDOM_NULL, c_api.PM_SEM_INSTANT,
         log.pmiUnits(1, 0, 0, 0, 0, 0)),
        ("imp.u64", 4, c_api.PM_TYPE_U64, A, c_api.PM_SEM_COUNTER,
         log.pmiUnits(1, -1, 0, 1, 3, 0)),
        ("imp.float", 5, c_api.PM_TYPE_FLOAT, A, c_api.PM_SEM_INSTANT, none),
        ("imp.double", 6, c_api.PM_TYPE_DOUBLE, B, c_api.PM_SEM_INSTANT,
         log.pmiUnits(0, 1, 0, 0, 2, 0)),
        ("imp.string", 7, c_api.PM_TYPE_STRING, c_api.PM_INDOM_NULL, c_api.PM_SEM_DISCRETE, none),
        ("imp.strings", 8, c_api.PM_TYPE_STRING, B, c_api.PM_SEM_INSTANT, none),
    ]
    for name, item, typ, indom, sem, units in metrics:
        log.pmiAddMetric(name, log.pmiID(DOMAIN, 0, item), typ, indom, sem, units)
    log.pmiAddInstance(A, "cpu0", 0)
    log.pmiAddInstance(A, "cpu1", 1)
    log.pmiAddInstance(B, "eth0", 10)

    u64 = log.pmiID(DOMAIN, 0, 4)
    log.pmiPutText(c_api.PM_TEXT_PMID, c_api.PM_TEXT_ONELINE, u64, "bytes per second")
    log.pmiPutText(c_api.PM_TEXT_PMID, c_api.PM_TEXT_HELP, u64,
                   "Bytes moved per second.\nPer CPU.")
    log.pmiPutText(c_api.PM_TEXT_PMID, c_api.PM_TEXT_ONELINE, log.pmiID(DOMAIN, 0, 7),
                   "a string")
    log.pmiPutText(c_api.PM_TEXT_INDOM, c_api.PM_TEXT_ONELINE, A, "the CPUs")
    log.pmiPutText(c_api.PM_TEXT_INDOM, c_api.PM_TEXT_HELP, A, "Every CPU.\nOne per line.")

    log.pmiPutLabel(c_api.PM_LABEL_CONTEXT, 0, c_api.PM_IN_NULL, "site", "lab")
    log.pmiPutLabel(c_api.PM_LABEL_DOMAIN, DOMAIN, c_api.PM_IN_NULL, "agent", "imp")
    log.pmiPutLabel(c_api.PM_LABEL_CLUSTER, log.pmiCluster(DOMAIN, 0), c_api.PM_IN_NULL,
                    "tier", "gold")
    log.pmiPutLabel(c_api.PM_LABEL_ITEM, u64, c_api.PM_IN_NULL, "unit", "bytes")
    log.pmiPutLabel(c_api.PM_LABEL_ITEM, u64, c_api.PM_IN_NULL, "hot", "true")
    log.pmiPutLabel(c_api.PM_LABEL_INDOM, A, c_api.PM_IN_NULL, "device_type", "cpu")
    log.pmiPutLabel(c_api.PM_LABEL_INSTANCES, A, 1, "numa", "node1")

    a_insts = [(0, "cpu0"), (1, "cpu1")]
    b_insts = [(10, "eth0")]
    for k in range(7):
        if k == 2:
            log.pmiAddInstance(B, "eth1 wide", 11)
            b_insts.append((11, "eth1 wide"))
        if k == 3:
            log.pmiAddInstance(A, "cpu2", 2)
            a_insts.append((2, "cpu2"))
        if k == 5:
            log.pmiAddInstance(B, "lo", 12)
            b_insts.append((12, "lo"))
        log.pmiPutValue("imp.i32", None, str(-1000 * k - 7))
        log.pmiPutValue("imp.u32", None, str(4000000000 + k))
        if k != 1:  # a metric missing from a record
            log.pmiPutValue("imp.i64", None, str(-(2 ** 62) + k))
        for inst, name in a_insts:
            if k == 4 and inst == 1:
                continue  # an instance missing from a record
            log.pmiPutValue("imp.u64", name, str(2 ** 63 + 10 * k + inst))
            log.pmiPutValue("imp.float", name, repr(1.1 * k + 0.1 * inst))
        for inst, name in b_insts:
            log.pmiPutValue("imp.double", name, repr(k / 3.0 + inst))
            log.pmiPutValue("imp.strings", name, "%s at %d" % (name, k))
        log.pmiPutValue("imp.string", None, "" if k == 2 else "value %d" % k)
        if version == 3:
            log.pmiHighResWrite(BASE_SEC + 2 * k, 987654321 - 111 * k)
        else:
            log.pmiWrite(BASE_SEC + 2 * k, 987654 - k)
        if k == 3:
            log.pmiPutMark()
    log.pmiEnd()


def make_logimport_archive(version):
    d = os.path.join(os.environ["TEST_TMPDIR"], "logimport_v%d" % version)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    base = os.path.join(d, "imp")
    env = o.pcp_env()
    env["PCP_ARCHIVE_VERSION"] = str(version)
    p = subprocess.run([sys.executable, os.path.abspath(__file__), "--logimport",
                        str(version), base], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, env=env)
    if p.returncode != 0:
        raise AssertionError("LOGIMPORT v%d: %s" % (version, p.stderr.decode()))
    return base


def read_with_reader(base):
    p = subprocess.run([READER, base], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        js = json.loads(p.stdout.decode())
    except ValueError:
        raise AssertionError("archive_reader_tool %s: rc %d, stdout %r, stderr %r" %
                             (base, p.returncode, p.stdout[:2000], p.stderr))
    return p.returncode, js


def libpcp_texts(texts):
    """What pmLookupText/pmLookupInDomText give for the texts an archive holds:
    asked for PM_TEXT_HELP where there is none, libpcp returns the one-line
    text (seen with LOGIMPORT 6.0.3 archives)."""
    out = dict(texts)
    if o.PM_TEXT_HELP not in out and o.PM_TEXT_ONELINE in out:
        out[o.PM_TEXT_HELP] = out[o.PM_TEXT_ONELINE]
    return out


def reader_value(vtype, v):
    return o.typed_value(vtype, v)


class ReaderView:
    """archive_reader_tool's JSON, indexed."""

    def __init__(self, js):
        self.js = js
        self.descs = {d["pmid"]: d for d in js["descs"]}
        self.results = [dict(r, t=o.parse_stamp(r["t"])) for r in js["results"]]

    def indom_at(self, indom, t):
        best = None
        first = None
        for d in self.js["indoms"]:
            if d["indom"] != indom:
                continue
            if first is None:
                first = d
            if o.parse_stamp(d["t"]) <= t:
                best = d
        d = best or first
        return sorted((i, n) for i, n in d["instances"]) if d else None


class ArchiveReaderOracleTest(unittest.TestCase):
    maxDiff = None

    # -- shared comparisons --------------------------------------------------

    def compare_with_libpcp(self, base, rv, pcp, results_prefix=False):
        """Reader output `rv` vs libpcp's view `pcp` of the same archive."""
        js = rv.js
        lab, plab = js["label"], pcp["label"]
        self.assertEqual(lab["version"], plab["version"])
        self.assertEqual(lab["pid"], plab["pid"])
        self.assertEqual(o.parse_stamp(lab["start"]), plab["start"])
        self.assertEqual(lab["hostname"], plab["hostname"])
        self.assertEqual(lab["timezone"], plab["timezone"])
        self.assertEqual(lab["zoneinfo"], plab["zoneinfo"])
        self.assertEqual(lab["volume"], -1)  # the .meta label

        # Descriptors.
        self.assertEqual(sorted(n for d in js["descs"] for n in d["names"]),
                         sorted(pcp["descs"]))
        for d in js["descs"]:
            for n in d["names"]:
                g = pcp["descs"][n]
                self.assertEqual((d["pmid"], d["type"], d["sem"], d["indom"], d["units"]),
                                 (g["pmid"], g["type"], g["sem"], g["indom"], g["units"]), n)

        # Help text.
        by_pmid = {g["pmid"]: g for g in pcp["descs"].values()}
        by_indom = {g["indom"]: g for g in pcp["descs"].values() if g["indom"] != o.PM_INDOM_NULL}
        want_pmid, want_indom = {}, {}
        for t in js["texts"]:
            kind = t["type"] & (o.PM_TEXT_ONELINE | o.PM_TEXT_HELP)
            target = want_pmid if t["type"] & o.PM_TEXT_PMID else want_indom
            target.setdefault(t["ident"], {})[kind] = t["text"].encode("latin-1")
        for pmid, g in by_pmid.items():
            self.assertEqual(libpcp_texts(want_pmid.get(pmid, {})), g["texts"], g["name"])
        for indom, g in by_indom.items():
            self.assertEqual(libpcp_texts(want_indom.get(indom, {})), g["indom_texts"],
                             o.indom_str(indom))

        # Labels: the latest record per (type, ident) against libpcp's sets.
        latest = {}
        for rec in js["labels"]:
            latest[(rec["type"], rec["ident"])] = rec

        def mine(rec):
            out = []
            for s in rec["sets"] if rec else []:
                self.assertEqual(s["error"], 0, s)
                self.assertEqual(json.loads(s["json"]),
                                 {e["name"]: json.loads(e["value"]) for e in s["labels"]}, s)
                out.append((s["inst"], json.loads(s["json"]),
                            {e["name"]: e["flags"] for e in s["labels"]}))
            return sorted(out, key=repr)

        def theirs(sets):
            return sorted(((s["inst"], s["labels"], s["flags"]) for s in sets), key=repr)

        L = pcp["labels"]
        context = [r for r in js["labels"] if r["type"] == o.PM_LABEL_CONTEXT]
        self.assertEqual(mine(context[-1] if context else None), theirs(L["context"]))
        for dom, sets in L["domain"].items():
            self.assertEqual(mine(latest.get((o.PM_LABEL_DOMAIN, dom))), theirs(sets), dom)
        for pmid, sets in L["cluster"].items():
            ident = pmid & ~0x3FF
            self.assertEqual(mine(latest.get((o.PM_LABEL_CLUSTER, ident))), theirs(sets),
                             o.pmid_str(pmid))
        for pmid, sets in L["item"].items():
            self.assertEqual(mine(latest.get((o.PM_LABEL_ITEM, pmid))), theirs(sets),
                             o.pmid_str(pmid))
        for indom, sets in L["indom"].items():
            self.assertEqual(mine(latest.get((o.PM_LABEL_INDOM, indom))), theirs(sets),
                             o.indom_str(indom))
        for indom, sets in L["instances"].items():
            # libpcp gives one set per labelled instance; the archive may
            # hold them in one record (pmlogger) or one per set (LOGIMPORT).
            recs = [r for r in js["labels"] if r["type"] == o.PM_LABEL_INSTANCES and r["ident"] == indom]
            latest_per_inst = {}
            for r in recs:
                for s in r["sets"]:
                    latest_per_inst[s["inst"]] = s
            mine_sets = sorted(((s["inst"], json.loads(s["json"]),
                                 {e["name"]: e["flags"] for e in s["labels"]})
                                for s in latest_per_inst.values()), key=repr)
            self.assertEqual(mine_sets, theirs(sets), o.indom_str(indom))
        # Every label record the reader found is one libpcp knows.
        known_types = {o.PM_LABEL_CONTEXT, o.PM_LABEL_DOMAIN, o.PM_LABEL_CLUSTER,
                       o.PM_LABEL_ITEM, o.PM_LABEL_INDOM, o.PM_LABEL_INSTANCES}
        for rec in js["labels"]:
            self.assertIn(rec["type"], known_types, rec)

        # Records.
        res = pcp["results"]
        if results_prefix:
            self.assertLessEqual(len(rv.results), len(res))
            res = res[:len(rv.results)]
        else:
            self.assertEqual(len(rv.results), len(res))
        version = lab["version"]
        for mr, pr in zip(rv.results, res):
            c = (mr["t"], pr["t"])
            self.assertEqual(mr["t"], pr["t"], c)
            self.assertEqual(mr["mark"], pr["numpmid"] == 0, c)
            self.assertEqual(len(mr["sets"]), pr["numpmid"], c)
            for ms, ps in zip(mr["sets"], pr["sets"]):
                c2 = (c, ms["pmid"])
                self.assertEqual(ms["pmid"], ps["pmid"], c2)
                self.assertEqual(ms["numval"], ps["numval"], c2)
                if ps["numval"] < 0:
                    self.assertEqual(ms["error"], ps["numval"], c2)
                    continue
                if ps["numval"] > 0:
                    self.assertEqual(ms["valfmt"], ps["valfmt"], c2)
                d = rv.descs[ms["pmid"]]
                self.assertEqual(len(ms["values"]), len(ps["values"]), c2)
                for (inst, val), pv in zip(ms["values"], ps["values"]):
                    self.assertEqual(inst, pv["inst"], c2)
                    mv = reader_value(d["type"], val)
                    self.assertEqual(mv, pv["value"], (c2, inst))
                    self.assertEqual(type(mv), type(pv["value"]), (c2, inst))
            # Instance domains in force at this record, as libpcp has them.
            for indom, insts in pr["indoms"].items():
                self.assertEqual(rv.indom_at(indom, mr["t"]), insts,
                                 (c, o.indom_str(indom)))
        if version == 2:
            for mr in rv.results:
                self.assertEqual(mr["t"][1] % 1000, 0, mr["t"])

    def compare_with_pmdumplog(self, base, rv):
        rc, out, err = o.run(["pmdumplog", "-a", "-h", "-e", "-Z", "UTC", "-xxx", base])
        self.assertEqual(rc, 0, err)
        p = o.parse_pmdumplog(out)
        self.assertEqual(p["unparsed"], [], out)
        js = rv.js
        self.assertEqual(p["label"]["version"], js["label"]["version"])
        self.assertEqual(p["label"]["hostname"], js["label"]["hostname"])
        self.assertEqual(p["label"]["timezone"], js["label"]["timezone"])
        self.assertEqual(p["label"]["pid"], js["label"]["pid"])
        self.assertEqual(p["label"]["commencing"], o.parse_stamp(js["label"]["start"]))
        # Descriptors.
        names = {n: d for d in js["descs"] for n in d["names"]}
        self.assertEqual(sorted(p["descs"]), sorted(names))
        for n, g in p["descs"].items():
            d = names[n]
            self.assertEqual(g["pmid"], o.pmid_str(d["pmid"]), n)
            self.assertEqual(g["type"], o.TYPE_TEXT[d["type"]], n)
            self.assertEqual(g["sem"], o.SEM_TEXT[d["sem"]], n)
            self.assertEqual(g["indom"], d["indom"], n)
            self.assertEqual(g["units"], d["units"] or "none", n)
        # Instance domain history.
        got = sorted((x["indom"], x["t"], tuple(sorted(x["instances"]))) for x in p["indoms"])
        mine = sorted((o.indom_str(d["indom"]), o.parse_stamp(d["t"]),
                       tuple(sorted((i, n) for i, n in d["instances"]))) for d in js["indoms"])
        self.assertEqual(mine, got, out)
        # Help text.
        section = out.split("Metric Help Text in the Log ...\n", 1)[1]
        section = section.split("\nInstance Domains in the Log ...", 1)[0]
        for t in js["texts"]:
            head = ("PMID: " + o.pmid_str(t["ident"]) if t["type"] & o.PM_TEXT_PMID
                    else "InDom: " + o.indom_str(t["ident"]))
            if t["type"] & o.PM_TEXT_ONELINE:
                self.assertIn("%s [%s]\n" % (head, t["text"]), section, t)
            else:
                self.assertIn("%s\n%s\n" % (head, t["text"]), section, t)
        self.assertEqual(section.count("PMID: ") + section.count("InDom: "), len(js["texts"]),
                         section)
        # Labels: every set pmdumplog prints, with its timestamp.
        got = sorted((x["t"], json.dumps(json.loads(x["json"]), sort_keys=True))
                     for x in p["labels"])
        mine = sorted((o.parse_stamp(r["t"]), json.dumps(json.loads(s["json"]), sort_keys=True))
                      for r in js["labels"] for s in r["sets"])
        self.assertEqual(mine, got, out)
        # Records.
        self.assertEqual(len(rv.results), len(p["records"]), out)
        for mr, pr in zip(rv.results, p["records"]):
            c = (mr["t"], pr["t"])
            self.assertEqual(mr["t"], pr["t"], c)
            self.assertEqual(mr["mark"], pr["mark"], c)
            if mr["mark"]:
                continue
            self.assertEqual(len(mr["sets"]), pr["numpmid"], c)
            self.assertEqual(len(mr["sets"]), len(pr["sets"]), c)
            for ms, ps in zip(mr["sets"], pr["sets"]):
                d = rv.descs[ms["pmid"]]
                self.assertEqual(o.pmid_str(ms["pmid"]), ps["pmid"], c)
                self.assertEqual(d["names"][0], ps["name"], c)
                if ms["numval"] < 0:
                    self.assertEqual(ps["error"], o.pmapi.pmContext.pmErrStr(ms["numval"]), c)
                    continue
                self.assertEqual(len(ms["values"]), len(ps["values"]), (c, ms, ps))
                insts = dict(rv.indom_at(d["indom"], mr["t"]) or [])
                for (inst, val), (pinst, pname, pval) in zip(ms["values"], ps["values"]):
                    self.assertEqual(inst, pinst, c)
                    if d["indom"] != o.PM_INDOM_NULL:
                        self.assertEqual(insts.get(inst), o.dumplog_instance_name(pname), c)
                    self.assertTrue(o.values_close(d["type"], reader_value(d["type"], val), pval),
                                    (c, ms["pmid"], inst, val, pval))

    # -- a. LOGIMPORT archives ----------------------------------------------

    def test_logimport_archives(self):
        for version in (2, 3):
            with self.subTest(version=version):
                base = make_logimport_archive(version)
                rc, out, err = o.run(["pmdumplog", "-l", base])
                self.assertIn("(Log Format Version %d)" % version, out)
                # What pmlogcheck -v prints for a good archive (the lines the
                # writer oracle test accepts) holds for LOGIMPORT's own.
                rc, out, unexpected, counts = o.run_pmlogcheck(base)
                self.assertEqual((rc, unexpected), (0, []), out)
                self.assertEqual((counts["results"], counts["marks"]), (8, 1), out)
                rc, js = read_with_reader(base)
                self.assertEqual(rc, 0, js)
                self.assertEqual(js["warnings"], [])
                self.assertEqual(js["label"]["version"], version)
                self.assertEqual(js["volumes"], [base + ".0"])
                rv = ReaderView(js)
                pcp = o.read_with_libpcp(base)
                self.compare_with_libpcp(base, rv, pcp)
                self.compare_with_pmdumplog(base, rv)
                self.check_logimport_content(version, rv)

    def check_logimport_content(self, version, rv):
        """What logimport_main put in, as the reader sees it."""
        js = rv.js
        self.assertEqual(js["label"]["hostname"], "importhost.example")
        self.assertEqual(len(js["descs"]), 8)
        self.assertEqual({d["type"] for d in js["descs"]}, set(range(7)))
        self.assertEqual(len(rv.results), 8)  # 7 records and a <mark>
        self.assertTrue(rv.results[4]["mark"])
        for k, r in enumerate(rv.results[:4] + rv.results[5:]):
            want_t = (BASE_SEC + 2 * k, 987654321 - 111 * k if version == 3
                      else (987654 - k) * 1000)
            self.assertEqual(r["t"], want_t)
            self.assertFalse(r["mark"])
            by_name = {rv.descs[s["pmid"]]["names"][0]: s for s in r["sets"]}
            self.assertEqual("imp.i64" in by_name, k != 1)
            self.assertEqual(by_name["imp.i32"]["values"], [[-1, -1000 * k - 7]])
            self.assertEqual(by_name["imp.u64"]["values"][0], [0, 2 ** 63 + 10 * k])
            self.assertEqual(len(by_name["imp.u64"]["values"]),
                             (2 if k < 3 else 3) - (1 if k == 4 else 0))
            self.assertEqual(by_name["imp.string"]["values"],
                             [[-1, "" if k == 2 else "value %d" % k]])
            self.assertEqual(by_name["imp.float"]["values"][0][1], o.float32(1.1 * k))
        # LOGIMPORT stamps a <mark> 1 ms after the record before it.
        self.assertLess(rv.results[3]["t"], rv.results[4]["t"])
        self.assertLess(rv.results[4]["t"], rv.results[5]["t"])
        kinds = sorted({r["type"] for r in js["labels"]})
        self.assertEqual(kinds, [o.PM_LABEL_CONTEXT, o.PM_LABEL_DOMAIN, o.PM_LABEL_INDOM,
                                 o.PM_LABEL_CLUSTER, o.PM_LABEL_ITEM, o.PM_LABEL_INSTANCES])
        self.assertEqual(len(js["texts"]), 5)
        hist = [d for d in js["indoms"] if d["indom"] == (DOMAIN << 22 | 2)]
        self.assertEqual([len(d["instances"]) for d in hist], [1, 2, 3])

    # -- b, c. archive_writer_tool archives: 3 volumes, then a torn tail ------

    def write_tool_archive(self, version, name):
        d = os.path.join(os.environ["TEST_TMPDIR"], "tool_v%d_%s" % (version, name))
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        base = os.path.join(d, "arch")
        p = subprocess.run([WRITER, str(version), base], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
        self.assertEqual(p.returncode, 0, p.stderr)
        return base, json.loads(p.stdout.decode())

    def compare_with_tool(self, version, rv, tool, nresults=None):
        js = rv.js
        self.assertEqual(js["label"]["hostname"], tool["hostname"])
        self.assertEqual(js["label"]["timezone"], tool["timezone"])
        start = o.parse_stamp(tool["start"])
        if version == 2:
            start = o.to_usec_precision(start)
        self.assertEqual(o.parse_stamp(js["label"]["start"]), start)
        self.assertEqual([(d["pmid"], d["names"], d["type"], d["sem"], d["indom"], d["units"])
                          for d in js["descs"]],
                         [(d["pmid"], [d["name"]], d["type"], d["sem"], d["indom"], d["units"])
                          for d in tool["descs"]])
        self.assertEqual([(t["type"], t["ident"], t["text"]) for t in js["texts"]],
                         [(t["type"], t["ident"], t["text"]) for t in tool["texts"]])
        self.assertEqual([(r["type"], r["ident"], [(s["inst"], s["json"],
                                                     [e["flags"] for e in s["labels"]])
                                                    for s in r["sets"]])
                          for r in js["labels"]],
                         [(r["type"], r["ident"], [(s["inst"], s["json"], s["flags"])
                                                   for s in r["sets"]])
                          for r in tool["labels"]])
        want_hist = [(o.parse_stamp(d["t"]), sorted(map(tuple, d["instances"])))
                     for d in tool["indoms"]]
        if version == 2:
            want_hist = [(o.to_usec_precision(t), i) for t, i in want_hist]
        self.assertEqual([(o.parse_stamp(d["t"]), sorted(map(tuple, d["instances"])))
                          for d in js["indoms"]], want_hist)
        want = tool["results"] if nresults is None else tool["results"][:nresults]
        self.assertEqual(len(rv.results), len(want))
        types = {d["pmid"]: d["type"] for d in tool["descs"]}
        for mr, tr in zip(rv.results, want):
            t = o.parse_stamp(tr["t"])
            if version == 2:
                t = o.to_usec_precision(t)
            self.assertEqual(mr["t"], t)
            self.assertEqual(mr["mark"], bool(tr.get("mark")))
            if tr.get("mark"):
                continue
            self.assertEqual(len(mr["sets"]), len(tr["sets"]))
            for ms, ts in zip(mr["sets"], tr["sets"]):
                self.assertEqual(ms["pmid"], ts["pmid"])
                if "error" in ts:
                    self.assertEqual(ms.get("error"), ts["error"])
                    continue
                typ = types[ts["pmid"]]
                self.assertEqual([(i, reader_value(typ, v)) for i, v in ms["values"]],
                                 [(i, o.typed_value(typ, v)) for i, v in ts["values"]],
                                 (mr["t"], ts["pmid"]))

    def test_multi_volume(self):
        for version in (2, 3):
            with self.subTest(version=version):
                base, tool = self.write_tool_archive(version, "multi")
                self.assertEqual(tool["volumes"], 3)
                rc, js = read_with_reader(base)
                self.assertEqual(rc, 0, js)
                self.assertEqual(js["warnings"], [])
                self.assertEqual(js["volumes"], ["%s.%d" % (base, v) for v in range(3)])
                # Open by the name of any of its files works the same.
                for name in (base + ".meta", base + ".1", base + ".index"):
                    rc2, js2 = read_with_reader(name)
                    self.assertEqual(rc2, 0, js2)
                    self.assertEqual(js2["results"], js["results"], name)
                rv = ReaderView(js)
                self.compare_with_tool(version, rv, tool)
                pcp = o.read_with_libpcp(base)
                self.compare_with_libpcp(base, rv, pcp)
                # The temporal index as pmdumplog -t reads it.
                rc, out, err = o.run(["pmdumplog", "-t", "-Z", "UTC", "-xxx", base])
                p = o.parse_pmdumplog(out)
                self.assertEqual([(o.parse_stamp(e["t"]), e["volume"], e["meta"], e["data"])
                                  for e in js["index"]],
                                 [(e["t"], e["volume"], e["meta"], e["data"])
                                  for e in p["index"]])

    def test_torn_tail(self):
        for version in (2, 3):
            for cut in (1, 5, 12):
                with self.subTest(version=version, cut=cut):
                    base, tool = self.write_tool_archive(version, "torn%d" % cut)
                    last = "%s.%d" % (base, tool["volumes"] - 1)
                    with open(last, "rb") as f:
                        data = f.read()
                    # The last record's length is its trailing 4 bytes.
                    last_len = int.from_bytes(data[-4:], "big")
                    torn_at = len(data) - last_len
                    self.assertGreater(last_len, cut)
                    with open(last, "r+b") as f:
                        f.truncate(len(data) - cut)
                    rc, js = read_with_reader(base)
                    self.assertEqual(rc, 0, js)
                    self.assertNotIn("error", js)
                    rv = ReaderView(js)
                    self.compare_with_tool(version, rv, tool, nresults=len(tool["results"]) - 1)
                    self.assertEqual(len(js["warnings"]), 1, js["warnings"])
                    w = js["warnings"][0]
                    self.assertIn(last, w)
                    self.assertTrue(re.search(r"\b%d\b" % torn_at, w), (w, torn_at))
                    # libpcp reads the same complete records first.
                    pcp = o.read_with_libpcp(base)
                    self.compare_with_libpcp(base, rv, pcp, results_prefix=True)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--logimport":
        logimport_main(int(sys.argv[2]), sys.argv[3])
        sys.exit(0)
    unittest.main()
