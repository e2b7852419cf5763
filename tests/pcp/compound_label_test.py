"""Compound MMV labels, recorded by `pmlogger -o` and by mmvlog.

A v3 MMV label whose value is a JSON object (libpcp_mmv's MAP type) is what
PCP calls a compound label: pmdammv passes it on, and the archive holds the
object as written, with one label entry per innermost name, flagged
compound. A file written by the real libpcp_mmv (pcp_mmv_compound_writer:
a cluster label {"svc":{"name":"web","tier":{"z":2,"a":1}}}, metric labels
an array and a string) is recorded by both; `pmdumplog -e` must show the
same cluster and metric label sets, text and entries, for both. Then the
same with PCP 7.2: the writer built against 7.2's libpcp_mmv, 7.2's
pmlogger -o, 7.2's pmlogdump -e (7.2 flattens compound labels as 6.0.3
does: labels.c's compound handling did not change).
"""

import os
import re
import shutil
import subprocess
import unittest

import pcp7


def runfile(path):
    return os.path.join(os.environ["TEST_SRCDIR"], "mmvlog", path)


MMVLOG = runfile("cmd/mmvlog")
WRITER = runfile("tests/pcp/pcp_mmv_compound_writer")


def label_blocks(base, pcp="6"):
    """{heading: [lines]} of the cluster and metric label sets (pmdumplog -e)."""
    out, key = {}, None
    if pcp == "7":
        text = pcp7.dump(base, ("-e",))
    else:
        text = subprocess.run(["pmdumplog", "-e", base], stdout=subprocess.PIPE, text=True,
                              check=True).stdout
    for line in text.splitlines():
        m = re.match(r"^    ((?:Cluster|PMID) 70\.\S+ labels .*)$", line)
        if m:
            key = m.group(1)
            out[key] = []
        elif key and re.match(r"^        \[\d+\]", line):
            out[key].append(line.strip())
        else:
            key = None
    return out


class CompoundLabelTest(unittest.TestCase):

    def test_pmlogger_and_mmvlog_record_the_same_label_sets(self):
        if not os.path.exists("/var/lib/pcp/pmns/root"):
            raise AssertionError("PCP's namespace /var/lib/pcp/pmns/root is missing: "
                                 "run bazel/setup.sh (pmlogger -o needs it)")
        self.record_and_compare("6")

    def test_pcp7_pmlogger_and_mmvlog_record_the_same_label_sets(self):
        pcp7.require()
        self.record_and_compare("7")

    def record_and_compare(self, pcp):
        root = os.path.join(os.environ["TEST_TMPDIR"], "compound" + pcp)
        shutil.rmtree(root, ignore_errors=True)
        os.makedirs(os.path.join(root, "mmv"))
        env = dict(os.environ, PCP_TMP_DIR=root)
        writer = WRITER
        if pcp == "7":
            writer = pcp7.writer("pcp_mmv_compound_writer")
            env = dict(pcp7.env(), PCP_TMP_DIR=root)
        subprocess.run([writer], env=env, check=True, stdout=subprocess.DEVNULL)
        cfg = os.path.join(root, "cfg")
        with open(cfg, "w") as f:
            f.write("log mandatory on every 250 msec { mmv.compound }\n")
        p_base, m_base = os.path.join(root, "p_arch"), os.path.join(root, "m_arch")
        p_args = ["-V", "3", "-c", cfg, "-T", "600msec", "-l", p_base + ".log", p_base]
        if pcp == "7":
            p = pcp7.pmlogger_o(p_args, root, root)
        else:
            p = subprocess.Popen(["pmlogger", "-o"] + p_args, env=env, cwd=root,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        p_out, _ = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 0, p_out)
        m = subprocess.run([MMVLOG, "capture", "-V", "3", "--mmv-dir", os.path.join(root, "mmv"),
                            "--no-progress", m_base], env=dict(os.environ, PCP_TMP_DIR=root),
                           cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertEqual(m.returncode, 0, m.stderr)
        self.assertNotIn("label", m.stderr.lower(), "no label refused or dropped")
        for base in (p_base, m_base):
            if pcp == "7":
                rc, out = pcp7.pmlogcheck(base, verbose=False)
            else:
                check = subprocess.run(["pmlogcheck", base], stdout=subprocess.PIPE,
                                       stderr=subprocess.STDOUT, text=True)
                rc, out = check.returncode, check.stdout
            self.assertEqual(rc, 0, out)
        theirs, ours = label_blocks(p_base, pcp), label_blocks(m_base, pcp)
        # Stated, so both cannot be wrong alike.
        cluster = 'Cluster 70.21 labels (43 bytes): {"svc":{"name":"web","tier":{"z":2,"a":1}}}'
        self.assertIn(cluster, ours)
        self.assertEqual(ours[cluster], ["[0] name(36,1) : value(39,1) [cluster,compound]",
                                         "[1] name(9,4) : value(15,5) [cluster,compound]",
                                         "[2] name(30,1) : value(33,1) [cluster,compound]"])
        self.assertIn('PMID 70.21.1 labels (30 bytes): {"plain":"v","ports":[80,443]}', ours)
        self.assertEqual(theirs, ours)


if __name__ == "__main__":
    unittest.main()
