"""MMV files that share a cluster, recorded by `pmlogger -o` and by mmvlog.

pmdammv lets files written with MMV_FLAG_NOPREFIX ask for the same cluster:
they share one namespace, a metric they all define (same name and item) is
one metric, and the instance domain of the same serial holds the instances
of every file (update_indom), the first file's first; a value comes from
the first file, in alphabetical order, that has the instance
(mmv_lookup_stat_metric). Labels for one identifier are merged across the
files (mmv_label_lookup).

The files (pcp_mmv_shared_writer, real libpcp_mmv, all NOPREFIX):
  aa  cluster 40: instances 0 "zero", 1 "one"             values 100 + id
  bb  cluster 40: instances 1 "uno", 2 "two"; bb_only (3)  values 200 + id
  cc  cluster 40: instance 3 "three"; cc_only (4)          values 300 + id
  dd  cluster 41: instance 5 "five"  (its own cluster: a name clash,
      shared.requests under another PMID, is ignored by both)
Both recorders log `mmv` with one configuration at the same time; the
metric names, PMIDs, descriptors, instance domains, labels and the last
value of every metric-instance must be the same, and stated values hold.
The same again with PCP 7.2: the writer built against its libpcp_mmv, its
pmlogger -o, both archives read by its libpcp (pcp7_archive_reader); 7.2's
pmdammv shares clusters as 6.0.3's does (mmv.c's update_indom and lookups
did not change but for messages).
"""

import os
import shutil
import subprocess
import unittest

import pcp7
import pcp_oracle


def runfile(path):
    return os.path.join(os.environ["TEST_SRCDIR"], "mmvlog", path)


MMVLOG = runfile("cmd/mmvlog")
WRITER = runfile("tests/pcp/pcp_mmv_shared_writer")

FILES = (
    ("aa", "40", "100", ["0:zero", "1:one"]),
    ("bb", "40", "200", ["1:uno", "2:two", "--only", "3:shared.bb_only"]),
    ("cc", "40", "300", ["3:three", "--only", "4:shared.cc_only"]),
    ("dd", "41", "400", ["5:five"]),
)
PMID_40 = lambda item: (70 << 22) | (40 << 10) | item  # noqa: E731


def view(base, pcp="6"):
    """What the test compares: mmv.shared.* as libpcp (6.0.3 or 7.2) reads it."""
    r = pcp_oracle.read_with_libpcp7(base) if pcp == "7" else pcp_oracle.read_with_libpcp(base)
    descs = {n: d for n, d in r["descs"].items() if n.startswith("mmv.shared.")}
    last = {}
    for rec in r["results"]:
        for s in rec["sets"]:
            for v in s.get("values", []):
                last[(s["pmid"], v["inst"])] = v["value"]
    out = {"descs": {n: {k: d.get(k) for k in ("pmid", "type", "sem", "indom", "units",
                                             "indom_all", "texts")}
                     for n, d in descs.items()},
           "values": {(n, i): last.get((d["pmid"], i)) for n, d in descs.items()
                      for i in ([x[0] for x in d.get("indom_all", [])]
                                if d["indom"] != 0xFFFFFFFF else [-1])}}
    # The labels in force at the archive's end (pmlogger stamps them at its
    # first sample, after the archive's start).
    if pcp == "7":
        labels = r["labels_end"]
    else:
        ctx = pcp_oracle.pmapi.pmContext(pcp_oracle.c_api.PM_CONTEXT_ARCHIVE, base)
        while True:
            try:
                ctx.pmFreeResult(ctx.pmFetchArchive())
            except pcp_oracle.pmapi.pmErr:
                break
        labels = pcp_oracle._labels_now(ctx, descs)
    out["labels"] = {
        "item": {d["pmid"]: [s["labels"] for s in labels["item"].get(d["pmid"], [])]
                 for d in descs.values()},
        "indom": {i: [s["labels"] for s in sets] for i, sets in labels["indom"].items()},
        "instances": {i: [s["labels"] for s in sets if s["labels"]]
                      for i, sets in labels["instances"].items()},
    }
    return out


class SharedClusterTest(unittest.TestCase):

    def test_pmlogger_and_mmvlog_agree(self):
        if not os.path.exists("/var/lib/pcp/pmns/root"):
            raise AssertionError("PCP's namespace /var/lib/pcp/pmns/root is missing: "
                                 "run bazel/setup.sh (pmlogger -o needs it)")
        self.record_and_compare("6")

    def test_pcp7_pmlogger_and_mmvlog_agree(self):
        pcp7.require()
        self.record_and_compare("7")

    def record_and_compare(self, pcp):
        root = os.path.join(os.environ["TEST_TMPDIR"], "shared_cluster" + pcp)
        shutil.rmtree(root, ignore_errors=True)
        os.makedirs(os.path.join(root, "mmv"))
        env = dict(os.environ, PCP_TMP_DIR=root)
        writer = WRITER
        if pcp == "7":
            writer = pcp7.writer("pcp_mmv_shared_writer")
            env = dict(pcp7.env(), PCP_TMP_DIR=root)
        for name, cluster, base, args in FILES:
            subprocess.run([writer, name, cluster, base] + args, env=env, check=True,
                           stdout=subprocess.DEVNULL)
        cfg = os.path.join(root, "cfg")
        with open(cfg, "w") as f:
            f.write("log mandatory on every 250 msec { mmv }\n")
        p_base, m_base = os.path.join(root, "p_arch"), os.path.join(root, "m_arch")
        p_args = ["-c", cfg, "-T", "1500msec", "-l", p_base + ".log", p_base]
        if pcp == "7":
            pmlogger = pcp7.pmlogger_o(p_args, root, root)
        else:
            pmlogger = subprocess.Popen(["pmlogger", "-o"] + p_args, env=env, cwd=root,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        mmvlog = subprocess.Popen(
            [MMVLOG, "capture", "-c", cfg, "-T", "1500msec", "--mmv-dir",
             os.path.join(root, "mmv"), "--no-progress", m_base],
            env=dict(os.environ, PCP_TMP_DIR=root), cwd=root, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE)
        p_out, _ = pmlogger.communicate(timeout=60)
        _, m_err = mmvlog.communicate(timeout=60)
        self.assertEqual(pmlogger.returncode, 0, p_out.decode())
        self.assertEqual(mmvlog.returncode, 0, m_err.decode())
        for base in (p_base, m_base):
            rc, out, _, _ = pcp_oracle.run_pmlogcheck(base, pcp)
            self.assertEqual(rc, 0, out)
        p, m = view(p_base, pcp), view(m_base, pcp)

        # Stated: one metric over the instances of aa, bb and cc, values
        # from the first file holding each instance.
        req = m["descs"]["mmv.shared.requests"]
        self.assertEqual(req["pmid"], PMID_40(1))
        self.assertEqual(req["indom_all"], [(0, "zero"), (1, "one"), (2, "two"), (3, "three")])
        self.assertEqual({i: m["values"][("mmv.shared.requests", i)] for i in range(4)},
                         {0: 100, 1: 101, 2: 202, 3: 303})
        self.assertEqual(m["values"][("mmv.shared.up", -1)], 100)
        self.assertEqual(m["values"][("mmv.shared.bb_only", -1)], 2000)
        self.assertEqual(m["values"][("mmv.shared.cc_only", -1)], 3000)
        self.assertNotIn(("mmv.shared.requests", 5), m["values"])
        self.assertIn("name already used", m_err.decode())

        # Compared: everything PCP recorded of these metrics.
        self.assertEqual(sorted(p["descs"]), sorted(m["descs"]))
        for n in p["descs"]:
            self.assertEqual(p["descs"][n], m["descs"][n], n)
        self.assertEqual(p["values"], m["values"])
        self.assertEqual(p["labels"], m["labels"])
        # PCP merges the files' labels, later files' names winning.
        self.assertEqual(m["labels"]["item"][PMID_40(1)], [{"from": "cc"}])


if __name__ == "__main__":
    unittest.main()
