"""mmvlog replay's event arrays and aggregates against real pmdumplog 6.0.3.

event_archive_tool writes, with ArchiveWriter, archives (v2 and v3) holding
PM_TYPE_EVENT values (with an instance domain), PM_TYPE_HIGHRES_EVENT values
and PM_TYPE_AGGREGATE values: empty arrays, records with a parameter of every
type, a missed-events record, a record with flags 0, several records. Both
`pmdumplog -a -Z UTC` and `mmvlog replay --dump -Z UTC` read them; their
texts are parsed into the same structure (result times, then per value the
metric, instance, record count text or value, and per record its timestamp,
flags, missed count and each parameter's PMID, name and value) and compared
field by field. --json must give the same records as data.

A damaged event array (a parameter longer than the value) must be a clear
message in the dump (metric, offset, what), never a crash, with the results
before it intact.
"""

import decimal
import json
import os
import re
import shutil
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pcp_oracle as o  # noqa: E402


def runfile(path):
    return os.path.join(os.environ["TEST_SRCDIR"], "mmvlog", path)


MMVLOG = runfile("cmd/mmvlog")
TOOL = runfile("tests/pcp/event_archive_tool")

# pmdumplog -a: a result, a value, an event record, a missed count, a parameter.
PCP_RESULT = re.compile(r"^(\d\d:\d\d:\d\d\.\d+) \d+ metrics?$")
PCP_VALUE = re.compile(r'^    (\S+) \((.+?)(?:\[(\d+) or "(.*)"\])?\): (.*)$')
# mmvlog replay --dump: the same, in its own layout.
OUR_RESULT = re.compile(r"^\d{4}-\d\d-\d\d (\d\d:\d\d:\d\d\.\d+)  \d+ values$")
OUR_VALUE = re.compile(r'^    (\S+) \((.+?)\)(?: inst \[(\d+) or "(.*)"\])? (.*)$')
# Shared by both (ours has a date before the time, pmdumplog a colon after
# the parameter's name).
RECORD = re.compile(r"^        --- event record \[(\d+)\] timestamp (?:\d{4}-\d\d-\d\d )?"
                    r"(\S+)(?: flags (0x[0-9a-f]+)(?: \((.*)\))?)? ---$")
MISSED = re.compile(r"^        ==> (\d+) missed event records$")
PARAM = re.compile(r"^        (\S+) \((.*?)\):? value (.*)$")


def nine_digits(stamp):
    """A time of day with its fraction padded to nanoseconds."""
    whole, frac = stamp.split(".")
    return whole + "." + (frac + "000000000")[:9]


def parse(text, result_re, value_re):
    """[(time, [value])] with value = {pmid, name, inst, text, records}."""
    results = []
    record = None
    for line in text.splitlines():
        m = result_re.match(line)
        if m:
            results.append((nine_digits(m.group(1)), []))
            continue
        if not results:
            continue
        values = results[-1][1]
        m = RECORD.match(line)
        if m and values:
            record = {"index": int(m.group(1)), "timestamp": m.group(2),
                      "flags": m.group(3) or "0x0", "flag_names": m.group(4) or "",
                      "missed": None, "params": []}
            values[-1]["records"].append(record)
            continue
        m = MISSED.match(line)
        if m and record is not None:
            record["missed"] = int(m.group(1))
            continue
        m = PARAM.match(line)
        if m and record is not None:
            record["params"].append((m.group(1), m.group(2), m.group(3)))
            continue
        m = value_re.match(line)
        if m and m.group(1)[0].isdigit():
            record = None
            values.append({"pmid": m.group(1), "name": m.group(2),
                           "inst": m.group(3), "instance": m.group(4),
                           "text": m.group(5), "records": []})
    return results


def write_archive(version, damaged=False):
    d = os.path.join(os.environ["TEST_TMPDIR"], "events_v%d%s" % (version, "_damaged" * damaged))
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    base = os.path.join(d, "arch")
    args = [TOOL, str(version), base] + (["damaged"] if damaged else [])
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise AssertionError("event_archive_tool failed: %s" % p.stderr.decode())
    return base


class EventRecordOracleTest(unittest.TestCase):
    def dumps(self, base):
        rc, pcp, err = o.run(["pmdumplog", "-a", "-Z", "UTC", base])
        self.assertEqual(rc, 0, err)
        rc, ours, err = o.run([MMVLOG, "replay", "--dump", "-Z", "UTC", base])
        self.assertEqual(rc, 0, err)
        return parse(pcp, PCP_RESULT, PCP_VALUE), parse(ours, OUR_RESULT, OUR_VALUE), ours

    def test_dump_matches_pmdumplog(self):
        for version in (2, 3):
            with self.subTest(version=version):
                base = write_archive(version)
                rc, out, err = o.run(["pmlogcheck", base])
                self.assertEqual((rc, out, err), (0, "", ""))
                pcp, ours, _ = self.dumps(base)
                self.assertEqual(len(pcp), 3)
                self.assertEqual(ours, pcp)
                # What the archive holds, seen through pmdumplog: the comparison
                # above covers every kind of content.
                values = [v for _, vs in pcp for v in vs]
                texts = {v["text"] for v in values}
                self.assertIn("No event records", texts)
                self.assertIn("4 (and 7 missed) event records", texts)
                self.assertIn("value \"printable text\" [7072696e7461626c652074657874]", texts)
                records = [r for v in values for r in v["records"]]
                self.assertTrue(any(r["missed"] == 7 for r in records))
                self.assertTrue(any(r["flags"] == "0x0" for r in records))
                params = {p[1] for r in records for p in r["params"]}
                self.assertEqual(len(params), 8, params)
                highres = [r for v in values if v["name"] == "test.hrevents" for r in v["records"]]
                self.assertTrue(highres and all(len(r["timestamp"]) == 18 for r in highres))

    def test_json_holds_the_same_records(self):
        base = write_archive(3)
        pcp, _, _ = self.dumps(base)
        rc, out, err = o.run([MMVLOG, "replay", "--json", "-Z", "UTC", base])
        self.assertEqual(rc, 0, err)
        rows = [json.loads(line, parse_float=decimal.Decimal) for line in out.splitlines()]
        self.assertEqual(len(rows), len(pcp))
        for row, (_, values) in zip(rows, pcp):
            for v in values:
                label = v["name"] + ("[%s]" % v["instance"] if v["instance"] else "")
                got = row["values"][label]
                if not v["text"].endswith("event records") and \
                        not v["text"].endswith("event record"):
                    self.assertEqual("[%s]" % got, v["text"].split()[-1])  # aggregate as hex
                    continue
                self.assertEqual(len(got), len(v["records"]))
                for g, r in zip(got, v["records"]):
                    self.assertEqual(g["flags"], int(r["flags"], 16))
                    self.assertEqual(g.get("missed"), r["missed"])
                    secs = int(g["timestamp"])
                    nsec = int((g["timestamp"] - secs) * 1000000000)
                    self.assertEqual(time.strftime("%H:%M:%S", time.gmtime(secs)) + ".%09d" % nsec,
                                     nine_digits(r["timestamp"]))
                    self.assertEqual([(p["pmid"], p["name"]) for p in g["params"]],
                                     [(p[0], p[1]) for p in r["params"]])
                    for p, (_, _, text) in zip(g["params"], r["params"]):
                        if p["name"] == "test.param.string":
                            self.assertEqual('"%s"' % p["value"], text)
                        elif p["name"] == "test.param.aggregate":
                            self.assertEqual("[%s]" % p["value"], text.split()[-1])
                        else:
                            self.assertAlmostEqual(float(p["value"]), float(text),
                                                   delta=abs(float(p["value"])) * 1e-7)

    def test_damaged_event_array_is_reported_not_fatal(self):
        base = write_archive(3, damaged=True)
        pcp, ours, text = self.dumps(base)
        self.assertEqual(ours[:3], pcp[:3])
        self.assertEqual(len(ours), 4)
        self.assertEqual(ours[3][1][0]["text"],
                         "damaged event array (offsets in its pmValueBlock): event record 0, "
                         "parameter 0: offset 32: need 9 bytes, only 8 left")
        rc, out, err = o.run([MMVLOG, "replay", "--json", "-Z", "UTC", base])
        self.assertEqual(rc, 0, err)
        last = json.loads(out.splitlines()[-1])
        self.assertIn("offset 32", last["values"]["test.events[first]"]["error"])
        rc, out, err = o.run([MMVLOG, "replay", "--csv", "-Z", "UTC", base])
        self.assertEqual(rc, 0, err)
        self.assertIn('{""error""', out.splitlines()[-1])


if __name__ == "__main__":
    unittest.main()
