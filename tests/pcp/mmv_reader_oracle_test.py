"""mmvlog's MMV reader against real PCP 6.0.3.

For every mode (v1, v2, v3), flag combination and cluster, the real
libpcp_mmv (pcp_mmv_writer) writes an MMV file and states, as JSON, what it
wrote. The test then checks that:

  a. `mmvlog inspect --json` reports every field exactly as written: header,
     indoms, instances, metrics (with PCP's own pmUnitsStr text), labels and
     every value (floats equal to the float32 of the written value);
  b. `mmvlog inspect --json` and PCP's mmvdump agree on the same file: every
     indom, instance, metric, value, label and the header.
"""

import json
import os
import re
import shutil
import struct
import subprocess
import unittest

MODES = ("v1", "v2", "v3")
FLAG_SETS = (0, 1, 2, 4, 7)  # none, NOPREFIX, PROCESS, SENTINEL, all
CLUSTERS = (0, 7, 4095)  # 4095: the largest cluster PCP accepts
MMVDUMP = "/var/lib/pcp/pmdas/mmv/mmvdump"

# MMV types (mmv_stats.h).
I32, U32, I64, U64, FLOAT, DOUBLE, STRING, ELAPSED = 0, 1, 2, 3, 4, 5, 6, 9
INT_TYPES = (I32, U32, I64, U64, ELAPSED)
PM_IN_NULL = 0xFFFFFFFF


def runfile(path):
    return os.path.join(os.environ["TEST_SRCDIR"], "mmvlog", path)


def float32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


class MmvDumpParseError(Exception):
    pass


def parse_mmvdump(text):
    """Parses mmvdump's output (PCP 6.0.3) into a dict.

    Help texts and strings may span lines: a line that matches nothing the
    current section prints is a continuation of the last text field.
    Offsets are kept but never compared (mmvdump uses a wrong stride for v2
    and v3 instances).
    """
    out = {"header": {}, "indoms": [], "instances": [], "metrics": [],
           "values": [], "strings": [], "labels": [], "sections": []}
    section = "header"
    last = None  # (dict, key) of the last text field, for continuations
    blanks = 0
    entry = r"^  \[(\d+)/(-?\d+)\] (.*)$"
    metric_names = {}
    instance_names = {}  # (serial, id) -> name

    def set_text(d, key, value):
        nonlocal last
        d[key] = value
        last = (d, key)

    for line in text.split("\n"):
        if line == "":
            blanks += 1
            continue
        m = re.match(r"^TOC\[(\d+)\]: (?:toc )?offset \d+, (\w+) offset \d+ "
                     r"\((-?\d+) entries\)$", line)
        if m:
            section = m.group(2)
            out["sections"].append((section, int(m.group(3))))
            last, blanks = None, 0
            continue
        structural = True
        if section == "header":
            m = re.match(r"^([A-Za-z0-9 ]+?)\s*= (.*)$", line)
            if m:
                out["header"][m.group(1)] = m.group(2)
            else:
                raise MmvDumpParseError("header line: %r" % line)
        elif section == "indoms":
            m = re.match(r"^  \[(\d+)/(-?\d+)\] (-?\d+) instances, starting at "
                         r"offset (-?\d+)$", line)
            if m:
                out["indoms"].append({"serial": int(m.group(1)),
                                      "count": int(m.group(3))})
            elif re.match(r"^       (short|help)text=", line):
                key, _, value = line.strip().partition("=")
                set_text(out["indoms"][-1], key, value)
            elif line in ("       (no shorttext)", "       (no helptext)"):
                key = line.strip()[4:-1]
                set_text(out["indoms"][-1], key, None)
                last = None
            else:
                structural = False
        elif section == "instances":
            m = re.match(r'^  \[(\d+)/(-?\d+)\] instance = \[(-?\d+) or "(.*)"\]$',
                         line)
            if m:
                inst = {"serial": int(m.group(1)), "id": int(m.group(3)),
                        "name": m.group(4)}
                out["instances"].append(inst)
                instance_names[(inst["serial"], inst["id"])] = inst["name"]
                last = None
            else:
                structural = False
        elif section == "metrics":
            m = re.match(r"^       type=(.*) \(0x([0-9a-f]+)\), sem=(.*) "
                         r"\(0x([0-9a-f]+)\), pad=0x([0-9a-f]+)$", line)
            if m and out["metrics"]:
                out["metrics"][-1].update(
                    type_name=m.group(1), type=int(m.group(2), 16),
                    semantics_name=m.group(3), semantics=int(m.group(4), 16),
                    pad=int(m.group(5), 16))
                last = None
            elif line.startswith("       units="):
                out["metrics"][-1]["units"] = line[len("       units="):]
                last = None
            elif re.match(r"^       indom=(-?\d+)$", line):
                out["metrics"][-1]["indom"] = int(line.split("=")[1])
                last = None
            elif line == "       (no indom)":
                out["metrics"][-1]["indom"] = None
                last = None
            elif re.match(r"^       (short|help)text=", line):
                key, _, value = line.strip().partition("=")
                set_text(out["metrics"][-1], key, value)
            elif line in ("       (no shorttext)", "       (no helptext)"):
                out["metrics"][-1][line.strip()[4:-1]] = None
                last = None
            elif re.match(entry, line):
                m = re.match(entry, line)
                metric = {"item": int(m.group(1))}
                set_text(metric, "name", m.group(3))
                out["metrics"].append(metric)
                metric_names[metric["item"]] = metric
            else:
                structural = False
        elif section == "values":
            m = re.match(entry, line)
            if m:
                item, rest = int(m.group(1)), m.group(3)
                metric = metric_names.get(item)
                if metric is None or not rest.startswith(metric["name"]):
                    raise MmvDumpParseError("value of unknown metric: %r" % line)
                rest = rest[len(metric["name"]):]
                value = {"item": item, "metric": metric["name"],
                         "instance": None, "instance_name": None}
                if metric.get("indom") is not None:
                    im = re.match(r'^\[(-?\d+) or "', rest)
                    if not im:
                        raise MmvDumpParseError("value without instance: %r" % line)
                    iid = int(im.group(1))
                    rest = rest[im.end():]
                    name = instance_names.get((metric["indom"], iid))
                    if name is not None and rest.startswith(name + '"] = '):
                        rest = rest[len(name) + 2:]
                    else:  # fall back on the last '"] = '
                        name, sep, tail = rest.partition('"]')
                        if not sep:
                            raise MmvDumpParseError("bad instance: %r" % line)
                        rest = tail
                    value["instance"], value["instance_name"] = iid, name
                if not rest.startswith(" = "):
                    raise MmvDumpParseError("no value: %r" % line)
                set_text(value, "text", rest[3:])
                out["values"].append(value)
            else:
                structural = False
        elif section == "string":
            m = re.match(entry, line)
            if m:
                s = {}
                set_text(s, "text", m.group(3))
                out["strings"].append(s)
            else:
                structural = False
        elif section == "labels":
            m = re.match(r"^        flags=0x([0-9a-f]+), identity=0x([0-9a-f]+)$", line)
            m2 = re.match(r"^        internal=0x([0-9a-f]+)$", line)
            if m and out["labels"]:
                out["labels"][-1].update(flags=int(m.group(1), 16),
                                         identity=int(m.group(2), 16))
                last = None
            elif m2 and out["labels"]:
                out["labels"][-1]["internal"] = int(m2.group(1), 16)
                last = None
            elif re.match(entry, line):
                label = {}
                set_text(label, "payload", re.match(entry, line).group(3))
                out["labels"].append(label)
            else:
                structural = False
        else:
            raise MmvDumpParseError("unknown section %r" % section)
        if structural:
            blanks = 0
            continue
        if last is None:
            raise MmvDumpParseError("unexpected line in %s: %r" % (section, line))
        d, key = last
        d[key] += "\n" * (blanks + 1) + line
        blanks = 0
    return out


def run(cmd, env):
    """Runs `cmd` and returns its stdout; fails with its stderr if it fails."""
    r = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        raise AssertionError("%s exited %d\nstdout: %s\nstderr: %s" % (
            " ".join(cmd), r.returncode, r.stdout[-2000:], r.stderr[-2000:]))
    return r.stdout


class Case:
    """One MMV file: what the writer says it wrote, mmvlog and mmvdump."""

    def __init__(self, tmp, mode, cluster, flags):
        self.label = "%s cluster=%d flags=%d" % (mode, cluster, flags)
        name = "f_%s_c%d_f%d" % (mode, cluster, flags)
        env = dict(os.environ, PCP_TMP_DIR=tmp)
        env.pop("MMV_WRITER_HOLD", None)
        self.path = os.path.join(tmp, "mmv", name)
        self.written = json.loads(run(
            [runfile("tests/pcp/pcp_mmv_writer"), "--json", name, mode,
             str(cluster), str(flags)], env))
        self.inspect = json.loads(run(
            [runfile("cmd/mmvlog"), "inspect", "--json", self.path], env))
        self.dump = parse_mmvdump(run([MMVDUMP, self.path], env))


def value_sort_key(v):
    return (v["item"], -1 if v["instance"] is None else v["instance"])


def label_sort_key(l):
    return (l["flags"], l["identity"], l["instance"], l["payload"])


class MmvReaderOracleTest(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        cls.tmp = os.path.join(os.environ.get("TEST_TMPDIR", "/tmp"), "pcp_tmp")
        shutil.rmtree(cls.tmp, ignore_errors=True)
        os.makedirs(os.path.join(cls.tmp, "mmv"))
        cls.cases = [Case(cls.tmp, mode, cluster, flags)
                     for mode in MODES for cluster in CLUSTERS for flags in FLAG_SETS]

    # --- a. mmvlog inspect against what libpcp_mmv was asked to write ------

    def check_against_writer(self, case):
        w, got = case.written, case.inspect
        for key in ("version", "cluster", "flags", "process"):
            self.assertEqual(got[key], w[key], key)
        self.assertEqual(got["file"], case.path)

        # Indoms, in the order they were added, with their instances.
        self.assertEqual(len(got["indoms"]), len(w["indoms"]))
        for want, have in zip(w["indoms"], got["indoms"]):
            self.assertEqual({k: have.get(k) for k in want}, want)
            self.assertEqual(set(have), set(want), "indom fields")

        # Metrics: every field (units text is pmUnitsStr from libpcp).
        self.assertEqual(len(got["metrics"]), len(w["metrics"]))
        for want, have in zip(w["metrics"], got["metrics"]):
            self.assertLessEqual(set(want), set(have), want["name"])
            self.assertEqual({k: have[k] for k in want}, want, want["name"])

        # Labels: flags/type, identity, instance, payload, optional.
        self.assertEqual(sorted(got["labels"], key=label_sort_key),
                         sorted(w["labels"], key=label_sort_key))
        self.assertEqual(len(got["labels"]), 7 if w["mode"] == "v3" else 0)

        # Values: every metric and instance, exactly.
        types = {m["item"]: m["type"] for m in w["metrics"]}
        want_values = sorted(w["values"], key=value_sort_key)
        have_values = sorted(got["values"], key=value_sort_key)
        self.assertEqual([value_sort_key(v) for v in have_values],
                         [value_sort_key(v) for v in want_values])
        for want, have in zip(want_values, have_values):
            where = "%s[%s]" % (want["metric"], want["instance"])
            self.assertNotIn("error", have, where)
            for key in ("metric", "item", "instance", "instance_name"):
                self.assertEqual(have[key], want[key], where)
            t = types[want["item"]]
            if t == FLOAT:
                self.assertIsInstance(have["value"], float, where)
                self.assertEqual(have["value"], float32(want["value"]), where)
                self.assertNotEqual(have["value"], want["value"],
                                    where + ": fixture should not be exact in float32")
            elif t == DOUBLE:
                self.assertIsInstance(have["value"], float, where)
                self.assertEqual(have["value"], want["value"], where)
            elif t == STRING:
                self.assertIsInstance(have["value"], str, where)
                self.assertEqual(have["value"], want["value"], where)
            else:
                self.assertIsInstance(have["value"], int, where)
                self.assertEqual(have["value"], want["value"], where)
            if t == ELAPSED:
                self.assertEqual(have.get("extra"), want["extra"], where)
            else:
                self.assertNotIn("extra", have, where)

    def test_inspect_reports_what_libpcp_mmv_wrote(self):
        for case in self.cases:
            with self.subTest(case=case.label):
                self.check_against_writer(case)

    # --- b. mmvlog inspect against PCP's mmvdump on the same file ----------

    def check_against_mmvdump(self, case):
        got, dump = case.inspect, case.dump
        h = dump["header"]
        self.assertEqual(int(h["Version"]), got["version"])
        self.assertEqual(int(h["Generated"]), got["generation"])
        self.assertNotIn("Generated2", h)
        self.assertEqual(int(h["Cluster"]), got["cluster"])
        self.assertEqual(int(h["Process"]), got["process"])
        self.assertEqual(int(h["Flags"].split()[0], 16), got["flags"])
        self.assertEqual(int(h["TOC count"]), len(dump["sections"]))
        counts = dict(dump["sections"])
        self.assertEqual(counts.get("indoms"), len(got["indoms"]))
        self.assertEqual(counts.get("instances"),
                         sum(len(d["instances"]) for d in got["indoms"]))
        self.assertEqual(counts["metrics"], len(got["metrics"]))
        self.assertEqual(counts["values"], len(got["values"]))
        self.assertEqual(counts.get("labels", 0), len(got["labels"]))
        self.assertEqual(counts["string"], len(dump["strings"]))

        # Indoms, in file order.
        self.assertEqual(
            [(d["serial"], d["count"], d["shorttext"] or "", d["helptext"] or "")
             for d in dump["indoms"]],
            [(d["serial"], len(d["instances"]), d["short_help"], d["long_help"])
             for d in got["indoms"]])
        # Instances (mmvdump lists the INSTANCES section; mmvlog by indom).
        self.assertEqual(
            sorted((i["serial"], i["id"], i["name"]) for i in dump["instances"]),
            sorted((d["serial"], i["id"], i["name"])
                   for d in got["indoms"] for i in d["instances"]))

        # Metrics, in file order.
        self.assertEqual(len(dump["metrics"]), len(got["metrics"]))
        for d, m in zip(dump["metrics"], got["metrics"]):
            self.assertEqual(
                (d["item"], d["name"], d["type"], d["type_name"], d["semantics"],
                 d["units"], d["indom"], d["shorttext"] or "", d["helptext"] or ""),
                (m["item"], m["name"], m["type"], m["type_name"], m["semantics"],
                 m["units"], m["indom"], m["short_help"], m["long_help"]),
                m["name"])
            if d["semantics"] != 0:
                self.assertEqual(d["semantics_name"], m["semantics_name"], m["name"])
            self.assertEqual(d["pad"], 0, m["name"])

        # Values, in file order: identity, then value text as mmvdump prints it.
        types = {m["item"]: m["type"] for m in got["metrics"]}
        self.assertEqual(
            [(v["item"], v["metric"], v["instance"], v["instance_name"])
             for v in dump["values"]],
            [(v["item"], v["metric"], v["instance"], v["instance_name"])
             for v in got["values"]])
        for d, v in zip(dump["values"], got["values"]):
            where = "%s[%s]" % (v["metric"], v["instance"])
            t = types[v["item"]]
            if t == ELAPSED:
                em = re.match(r"^(-?\d+) \(value=(-?\d+)/extra=(-?\d+)\)$", d["text"])
                self.assertIsNotNone(em, d["text"])
                self.assertEqual(int(em.group(2)), v["value"], where)
                self.assertEqual(int(em.group(3)), v["extra"], where)
                if v["extra"] == 0:
                    self.assertEqual(int(em.group(1)), v["value"], where)
            elif t in (FLOAT, DOUBLE):
                self.assertEqual(d["text"], "%f" % v["value"], where)
            elif t == STRING:
                self.assertEqual(d["text"], '"%s"' % v["value"], where)
            else:
                self.assertEqual(d["text"], str(v["value"]), where)

        # Labels, in file order.
        self.assertEqual(
            [(l["payload"], l["flags"], l["identity"], l["internal"])
             for l in dump["labels"]],
            [(l["payload"], l["flags"], l["identity"], l["instance"] & 0xFFFFFFFF)
             for l in got["labels"]])

        # Every string mmvlog reports sits in mmvdump's string table.
        strings = {s["text"] for s in dump["strings"]}
        mine = [m[k] for m in got["metrics"] for k in ("short_help", "long_help")]
        mine += [d[k] for d in got["indoms"] for k in ("short_help", "long_help")]
        mine += [v["value"] for v in got["values"] if types[v["item"]] == STRING]
        if got["version"] >= 2:
            mine += [m["name"] for m in got["metrics"]]
            mine += [i["name"] for d in got["indoms"] for i in d["instances"]]
        for s in mine:
            if s:
                self.assertIn(s, strings)

    def test_inspect_agrees_with_mmvdump(self):
        for case in self.cases:
            with self.subTest(case=case.label):
                self.check_against_mmvdump(case)

    # --- the oracles themselves ---------------------------------------------

    def test_fixture_covers_what_it_claims(self):
        """Guards against a writer or parser that silently produces less."""
        for case in self.cases:
            with self.subTest(case=case.label):
                w, dump = case.written, case.dump
                v2 = w["mode"] != "v1"
                self.assertEqual(w["version"], {"v1": 1, "v2": 2, "v3": 3}[w["mode"]])
                self.assertEqual(len(w["indoms"]), 3)
                self.assertEqual(len(w["metrics"]), 12 if v2 else 11)
                self.assertEqual(len(w["values"]), 20 if v2 else 19)
                self.assertEqual({m["type"] for m in w["metrics"]},
                                 {I32, U32, I64, U64, FLOAT, DOUBLE, STRING, ELAPSED})
                self.assertEqual({m["semantics"] for m in w["metrics"]}, {0, 1, 3, 4})
                self.assertIn("Kbyte / sec", [m["units"] for m in w["metrics"]])
                self.assertEqual(len(dump["metrics"]), len(w["metrics"]))
                self.assertEqual(len(dump["values"]), len(w["values"]))
                self.assertEqual(len(dump["instances"]), 6)
                self.assertEqual(len(dump["labels"]), 7 if w["mode"] == "v3" else 0)
                long_help = [m["helptext"] for m in dump["metrics"] if m["item"] == 1]
                self.assertEqual(long_help, ["Total number of requests\nsince start"])
                if v2:
                    self.assertTrue(any(len(m["name"]) > 63 for m in dump["metrics"]))
                    self.assertTrue(any(len(i["name"]) > 63 for i in dump["instances"]))

    def test_parser_keeps_multiline_text_and_blank_lines(self):
        text = ("MMV file   = x\nVersion    = 1\nGenerated  = 5\nTOC count  = 2\n"
                "Cluster    = 0\nProcess    = 1\nFlags      = 0x0 (none)\n\n"
                "TOC[0]: toc offset 40, metrics offset 72 (1 entries)\n"
                "  [1/72] m\n       type=32-bit int (0x0), sem=? (0x0), pad=0x0\n"
                "       units=\n       (no indom)\n       shorttext=a\n\nb\n"
                "       helptext=x\ny\n\n"
                "TOC[1]: offset 56, values offset 176 (1 entries)\n"
                "  [1/176] m = -3\n")
        out = parse_mmvdump(text)
        self.assertEqual(out["metrics"][0]["shorttext"], "a\n\nb")
        self.assertEqual(out["metrics"][0]["helptext"], "x\ny")
        self.assertEqual(out["values"][0]["text"], "-3")
        with self.assertRaises(MmvDumpParseError):
            parse_mmvdump("MMV file   = x\nnonsense\n")


if __name__ == "__main__":
    unittest.main()
