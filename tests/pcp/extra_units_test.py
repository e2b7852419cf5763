"""PCP 7.2's extra units (temperature, voltage, current, power) end to end.

pmUnits' old pad byte is extraUnit (5 bits) and extraScale (3 bits) in PCP
7.2 (include/pcp/pmapi.h l.105-175). mmvlog must read them from MMV files,
write them to archives, and print them as 7.2's pmUnitsStr does.

  a. PCP QA's archive of extra units (tests/testdata/extra.*, from PCP
     7.2.0's qa/archives) read by mmvlog's ArchiveReader
     (archive_reader_tool): every descriptor's units word and text equal
     what 7.2's libpcp (pcp7_archive_reader) and pmlogdump report, and
     every value equals libpcp 7.2's; `mmvlog replay` lists the units as
     7.2's pminfo prints them.
  b. An MMV file written by 7.2's libpcp_mmv with MMV_EXTRAUNITS
     (pcp_mmv_extra_writer: the writer states the word and 7.2's own
     pmUnitsStr text for each metric) recorded by `mmvlog capture` and by
     7.2's `pmlogger -o` at the same time: 7.2's pminfo shows each metric's
     units as the writer stated, in both archives alike; both archives pass
     7.2's and 6.0.3's pmlogcheck; 6.0.3's pmdumplog reads mmvlog's archive
     and, not knowing extra units, shows what it always showed for those
     bits (format::UnitsToStringPcp6: "none", "hour").
  c. One difference, decided: a units word whose extra bits 7.2 does not
     know (extraUnit 9, what an old writer's uninitialised pad byte looks
     like) is copied by pmdammv (mmv.c create_metric copies the word), and
     7.2's `pminfo -v` then calls pmlogger's descriptor "Questionable
     metadata" (extraunits.c __pmCheckDesc l.454-460); mmvlog records the
     word without those bits and says so, so its archive has no
     questionable descriptor.
  d. Counter rates: format::RateUnitsToString gives "power (W)" for the
     energy counter in "power (W) hour" (pmUnitsStr of dimTime - 1, as
     pmval.c l.459-466 lowers it). pmval 7.2 itself says "converting to time
     utilization" there: its test (l.463) leaves out extraUnit, which
     pmrep's (pmconfig.py is_extra) does not; mmvlog follows pmrep. Checked
     here through tests/pcp/units_text, against pmval's text for the other
     counter and for this one.
"""

import json
import os
import re
import shutil
import subprocess
import unittest

import pcp7
import pcp_oracle

MMVLOG = pcp7.runfile("cmd/mmvlog")
READER = pcp7.runfile("tests/pcp/archive_reader_tool")
UNITS_TEXT = pcp7.runfile("tests/pcp/units_text")
REFERENCE = pcp7.runfile("tests/testdata/extra")


def units_texts(words):
    """{word: (7.2 text, 6.0.3 text, rate text)} from tests/pcp/units_text."""
    out = subprocess.run([UNITS_TEXT], input="".join("%d\n" % w for w in words),
                         check=True, capture_output=True, text=True).stdout
    return dict(zip(words, (tuple(l.split("\t")) for l in out.splitlines())))


def pminfo_units(base):
    """{metric: Units text} from 7.2's `pminfo -d -a base`."""
    out = pcp7.run([pcp7.tool("pminfo"), "-d", "-a", base]).stdout
    return dict(re.findall(r"^(\S+)\n    Data Type: .*\n    Semantics: \S+  Units: (.*)$",
                           out, re.M))


def dump_units(text):
    """{metric: Units text} from pmdumplog -d / pmlogdump -d output."""
    return {m.group(1): m.group(2) for m in re.finditer(
        r"^PMID: \S+ \((\S+)\)\n    Data Type: .*\n    Semantics: \S+  Units: (.*)$", text, re.M)}


class ExtraUnitsTest(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        pcp7.require()

    # -- a. PCP QA's archive --------------------------------------------

    def test_reference_archive_read_by_mmvlog_as_pcp72_reads_it(self):
        ours = json.loads(subprocess.run([READER, REFERENCE], check=True,
                                         capture_output=True, text=True).stdout)
        theirs = pcp_oracle.read_with_libpcp7(REFERENCE)
        by_pmid = {d["pmid"]: d for d in theirs["descs"].values()}
        self.assertEqual(sorted(d["pmid"] for d in ours["descs"]), sorted(by_pmid))
        extra = 0
        for d in ours["descs"]:
            t = by_pmid[d["pmid"]]
            self.assertEqual(d["names"], [t["name"]])
            self.assertEqual(d["units_word"], t["units_word"], t["name"])
            self.assertEqual(d["units"], t["units"], t["name"])
            extra += t["units_word"] & 0xff != 0
        self.assertEqual(extra, 13)
        # pmlogdump 7.2's text, metric by metric.
        want = dump_units(pcp7.dump(REFERENCE, ("-d",)))
        got = {d["names"][0]: d["units"] or "none" for d in ours["descs"]}
        self.assertEqual(got, want)
        self.assertEqual(want["sample.temperature.celsius"], "temperature (C)")
        self.assertEqual(want["sample.power.microwatt"], "power (uW)")
        # Value for value, as libpcp 7.2 reads them.
        self.assertEqual(len(ours["results"]), len(theirs["results"]))
        for o, t in zip(ours["results"], theirs["results"]):
            self.assertEqual(pcp_oracle.parse_stamp(o["t"]), t["t"])
            tv = {(s["pmid"], v["inst"]): v["value"] for s in t["sets"]
                  for v in s.get("values", [])}
            ov = {(s["pmid"], v[0]): v[1] for s in o["sets"] for v in s.get("values", [])}
            for k, v in tv.items():
                if by_pmid[k[0]]["type"] == pcp_oracle.PM_TYPE_STRING:
                    continue  # the prologue's strings: compared by archive_reader_oracle_test
                self.assertEqual(ov[k], v, k)

    def test_replay_lists_the_units_as_pminfo_does(self):
        out = subprocess.run([MMVLOG, "replay", REFERENCE], check=True, capture_output=True,
                             text=True).stdout
        for metric, units in pminfo_units(REFERENCE).items():
            if not metric.startswith("sample."):
                continue
            line = [l for l in out.splitlines() if l.split()[:1] == [metric]]
            self.assertEqual(len(line), 1, (metric, out))
            self.assertIn(" %s " % units, line[0])

    def test_pcp6_shows_them_as_none(self):
        """6.0.3 reads the archive; the low byte means nothing to it."""
        out = subprocess.run(["pmdumplog", "-d", REFERENCE], env=pcp7.pcp6_env(),
                             check=True, capture_output=True, text=True).stdout
        units = dump_units(out)
        self.assertEqual({u for m, u in units.items() if m.startswith("sample.")}, {"none"})

    # -- b, c. An MMV file in extra units, recorded ----------------------

    def record(self):
        root = os.path.join(os.environ["TEST_TMPDIR"], "extra_units")
        shutil.rmtree(root, ignore_errors=True)
        os.makedirs(os.path.join(root, "mmv"))
        writer = pcp7.compile_c(pcp7.runfile("tests/pcp/pcp_mmv_extra_writer.c"),
                                "pcp_mmv_extra_writer", libs=("pcp_mmv", "pcp"))
        stated = json.loads(subprocess.run([writer], env=dict(pcp7.env(), PCP_TMP_DIR=root),
                                           check=True, capture_output=True, text=True).stdout)
        cfg = os.path.join(root, "cfg")
        with open(cfg, "w") as f:
            f.write("log mandatory on every 250 msec { mmv.extra }\n")
        p_base, m_base = os.path.join(root, "p_arch"), os.path.join(root, "m_arch")
        p = pcp7.pmlogger_o(["-c", cfg, "-T", "1sec", "-l", p_base + ".log", p_base], root, root)
        m = subprocess.Popen([MMVLOG, "capture", "-c", cfg, "-T", "1sec", "--mmv-dir",
                              os.path.join(root, "mmv"), "--no-progress", m_base],
                             env=dict(os.environ, PCP_TMP_DIR=root), cwd=root,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        p_out, _ = p.communicate(timeout=60)
        _, m_err = m.communicate(timeout=60)
        self.assertEqual(p.returncode, 0, p_out)
        self.assertEqual(m.returncode, 0, m_err)
        return {x["name"]: x for x in stated["metrics"]}, p_base, m_base, m_err

    def test_recorded_units_are_what_the_writer_wrote(self):
        stated, p_base, m_base, log = self.record()
        self.assertEqual(stated["temp.celsius"]["units_word"], 0x9)
        self.assertEqual(stated["energy"]["units"], "power (W) hour")
        self.assertEqual(stated["energy"]["units_word"], 0x1005022)
        ours, theirs = pminfo_units(m_base), pminfo_units(p_base)
        for name, s in stated.items():
            metric = "mmv.extra." + name
            with self.subTest(metric=metric):
                self.assertEqual(theirs[metric], s["units"])
                if name == "unknown":
                    # c: the bits 7.2 does not know are dropped, saying so.
                    self.assertEqual(s["units"], "extra-9 count")
                    self.assertEqual(ours[metric], "count")
                    continue
                self.assertEqual(ours[metric], s["units"])
        self.assertIn("mmv.extra.unknown: units word 0x0010004a has extra-unit bits PCP 7.2 "
                      "does not know (unit 9, scale 2); recorded without them", log)
        # pminfo -v (__pmCheckDesc): pmlogger's descriptor is questionable,
        # mmvlog's none.
        for base, questionable in ((p_base, ["mmv.extra.unknown"]), (m_base, [])):
            out = pcp7.run([pcp7.tool("pminfo"), "-v", "-a", base, "mmv.extra"]).stdout
            self.assertEqual(re.findall(r"^(\S+): Questionable metadata", out, re.M),
                             questionable, out)
        # Values: the same in both archives, as the writer wrote them.
        o, t = pcp_oracle.read_with_libpcp7(m_base), pcp_oracle.read_with_libpcp7(p_base)
        for name, s in stated.items():
            metric = "mmv.extra." + name
            for view in (o, t):
                d = view["descs"][metric]
                last = [v["value"] for r in view["results"] for st in r["sets"]
                        if st["pmid"] == d["pmid"] for v in st.get("values", [])]
                self.assertTrue(last, metric)
                self.assertEqual(sorted(set(last)), sorted(set(s["values"])), metric)

    def test_both_archives_pass_pmlogcheck_and_pcp6_reads_them(self):
        stated, p_base, m_base, _ = self.record()
        texts = units_texts([s["units_word"] for s in stated.values()])
        for base in (p_base, m_base):
            rc, out = pcp7.pmlogcheck(base, verbose=False)
            self.assertEqual((rc, out), (0, ""), base)
            p = subprocess.run(["pmlogcheck", base], env=pcp7.pcp6_env(), capture_output=True,
                               text=True)
            self.assertEqual((p.returncode, p.stdout, p.stderr), (0, "", ""), base)
        out = subprocess.run(["pmdumplog", "-d", m_base], env=pcp7.pcp6_env(), check=True,
                             capture_output=True, text=True).stdout
        units = dump_units(out)
        for name, s in stated.items():
            if name == "unknown":
                continue
            want = texts[s["units_word"]][1] or "none"
            self.assertEqual(units["mmv.extra." + name], want, name)
        self.assertEqual(units["mmv.extra.temp.celsius"], "none")
        self.assertEqual(units["mmv.extra.energy"], "hour")

    # -- d. Rates -----------------------------------------------------------

    def test_counter_rate_units(self):
        texts = units_texts([0x1005022, 0x100000, 0x1002000])
        self.assertEqual(texts[0x1005022][2], "power (W)")
        self.assertEqual(texts[0x100000][2], "count / sec")
        self.assertEqual(texts[0x1002000][2], "time utilisation")
        # pmval 7.2 on the energy counter of an archive: the rate's units as
        # it prints them, and its own words for them.
        stated, _, m_base, _ = self.record()
        out = pcp7.run([pcp7.tool("pmval"), "-a", m_base, "-s", "1", "mmv.extra.energy"]).stdout
        self.assertIn("units:     power (W) hour (converting to time utilization)", out)
        # replay's CSV: the rate in power (W) (watt-hours per second times
        # 3600), as the raw values say.
        def rows(*args):
            p = subprocess.run([MMVLOG, "replay", "-a", m_base, "-o", "csv"] + list(args) +
                               ["mmv.extra.energy"], check=True, capture_output=True, text=True)
            return [line.split(",") for line in p.stdout.splitlines()]
        rates, raw = rows(), rows("-r")
        self.assertEqual(rates[0][1], "mmv.extra.energy (power (W))")
        self.assertEqual(raw[0][1], "mmv.extra.energy (power (W) hour)")
        import datetime
        def seconds(t):
            return datetime.datetime.strptime(t, "%Y-%m-%d %H:%M:%S.%f").timestamp()
        compared = 0
        for k in range(2, len(raw)):
            if rates[k][1] == "" or raw[k][1] == "" or raw[k - 1][1] == "":
                continue
            dt = seconds(raw[k][0]) - seconds(raw[k - 1][0])
            want = (float(raw[k][1]) - float(raw[k - 1][1])) / dt * 3600
            self.assertAlmostEqual(float(rates[k][1]), want, delta=1e-3 * abs(want) + 1e-3)
            compared += 1
        self.assertGreater(compared, 0, rates)


if __name__ == "__main__":
    unittest.main()
