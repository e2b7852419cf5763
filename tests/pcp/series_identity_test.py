"""Series identity: `pmseries --load` of pmlogger's archive and of mmvlog's.

The same MMV files (written by the real libpcp_mmv: every MMV type, three
indoms, labels of every kind in bravo) are recorded at the same time by
`pmlogger -o` and by `mmvlog capture`, and both archives are loaded into one
private redis-server (started and stopped here, on a free port, in the
test's own directory) with PCP's `pmseries --load`. pmseries names a series
by a hash of the metric's name and the labels in force (context, domain,
cluster, item, instance), and a source by the context labels: when mmvlog
writes what pmlogger writes, in the order and at the times pmlogger writes
it (the prologue first, the context labels stamped at the first sample,
labels before the instance domain they describe), every metric and every
metric-instance has one series and the archives share one source.

Also stated: mmvlog's archive starts with pmlogger's prologue (pmcd.pmlogger.*,
pmcd.pid, pmcd.seqnum, with pmlogger -o's descriptors) and ends with its
epilogue.

The same with PCP 7.2 (tests/pcp/pcp7.py): files written by 7.2's
libpcp_mmv, recorded by 7.2's `pmlogger -o` and by mmvlog, loaded by 7.2's
pmseries: one series per metric and instance, one source. Two differences
between 6.0.3 and 7.2 meet here, decided so that this holds for both:
  - 7.2's pmlogger -o writes no context labels at all in its local context
    (its archive's source is the label's hostname); mmvlog keeps its context
    labels (hostname, domainname, machineid, userid, groupid), which are
    what give pmproxy a host for a live archive.
  - 7.2's pmlogger writes its prologue at its first fetch, stamped with it,
    so its archive label's time equals the first result's (pmlogger.c
    l.1677-1681: the start-up do_prologue is compiled out; callback.c
    l.768-786: epoch = resp->timestamp, then do_prologue). mmvlog keeps
    6.0.3's order: the prologue (and the archive label) a microsecond
    before the first sample. Its context labels, stamped at the first
    sample, are then not in force at the archive's start, where pmseries
    --load takes a source's labels: with them in force (7.2's timing, tried)
    pmseries 6.0.3 and 7.2 both gave mmvlog's archive a source and series
    of its own; as it is, 6.0.3's pmlogger -o, 7.2's pmlogger -o and mmvlog
    share them under both.
"""

import os
import re
import shutil
import subprocess
import time
import unittest

import keyserver
import pcp7


def runfile(path):
    return os.path.join(os.environ["TEST_SRCDIR"], "mmvlog", path)


MMVLOG = runfile("cmd/mmvlog")
WRITER = runfile("tests/pcp/pcp_mmv_writer")
FILES = (("alpha", "v1", "0"), ("bravo", "v3", "11"))


def descs(base):
    """{name: descriptor text} from pmdumplog -d."""
    out, name = {}, None
    for line in subprocess.run(["pmdumplog", "-d", base], stdout=subprocess.PIPE, text=True,
                               check=True).stdout.splitlines():
        m = re.match(r"^PMID: (\S+) \((\S+)\)$", line)
        if m:
            name = m.group(2)
            out[name] = [m.group(1)]
        elif name and line.startswith("    "):
            out[name].append(line.strip())
    return out


class SeriesIdentityTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        for tool in ("redis-server", "redis-cli", "pmseries"):
            if shutil.which(tool) is None:
                raise AssertionError("%s is missing: run bazel/setup.sh" % tool)
        cls.root = os.path.join(os.environ["TEST_TMPDIR"], "series_identity")
        shutil.rmtree(cls.root, ignore_errors=True)
        os.makedirs(os.path.join(cls.root, "mmv"))
        cls.port, cls.redis = keyserver.start_redis(os.path.join(cls.root, "redis"))

    @classmethod
    def tearDownClass(cls):
        keyserver.stop([cls.redis])

    def pmseries(self, *args, pcp="6"):
        cmd, env = ["pmseries"], None
        if pcp == "7":
            cmd, env = [pcp7.tool("pmseries")], pcp7.env()
        p = subprocess.run(cmd + ["-p", str(self.port)] + list(args), env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60)
        if p.returncode != 0:
            raise AssertionError("pmseries %s: exit %d: %s" % (" ".join(args), p.returncode,
                                                                p.stdout))
        return p.stdout

    def test_loaded_archives_share_series_and_source(self):
        env = dict(os.environ, PCP_TMP_DIR=self.root)
        for name, mode, cluster in FILES:
            subprocess.run([WRITER, name, mode, cluster], env=env, check=True,
                           stdout=subprocess.DEVNULL)
        cfg = os.path.join(self.root, "cfg")
        with open(cfg, "w") as f:
            f.write("log mandatory on every 250 msec { mmv.alpha mmv.bravo }\n")
        p_base, m_base = os.path.join(self.root, "p_arch"), os.path.join(self.root, "m_arch")
        pmlogger = subprocess.Popen(
            ["pmlogger", "-o", "-V", "3", "-c", cfg, "-T", "1sec", "-l", p_base + ".log", p_base],
            env=env, cwd=self.root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        mmvlog = subprocess.Popen(
            [MMVLOG, "capture", "-V", "3", "-c", cfg, "-T", "1sec", "--mmv-dir",
             os.path.join(self.root, "mmv"), "--no-progress", m_base],
            env=env, cwd=self.root, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        p_out, _ = pmlogger.communicate(timeout=60)
        _, m_err = mmvlog.communicate(timeout=60)
        self.assertEqual(pmlogger.returncode, 0, p_out.decode())
        self.assertEqual(mmvlog.returncode, 0, m_err.decode())

        # The prologue and epilogue, with pmlogger -o's descriptors.
        p_descs, m_descs = descs(p_base), descs(m_base)
        logger = sorted(n for n in p_descs if n.startswith("pmcd."))
        self.assertEqual(logger, ["pmcd.pid", "pmcd.pmlogger.archive", "pmcd.pmlogger.host",
                                  "pmcd.pmlogger.port", "pmcd.seqnum"])
        for n in logger:
            self.assertEqual(p_descs[n], m_descs.get(n), n)
        dump = subprocess.run(["pmdumplog", "-a", m_base], stdout=subprocess.PIPE, text=True,
                              check=True).stdout
        records = re.findall(r"^\d\d:\d\d:\d\d\.\d+ +\d+ metrics?\n +(\S+)", dump, re.M)
        self.assertEqual(records[0], "2.3.3", "the first record is the prologue")
        self.assertEqual(records[-1], "2.3.3", "the last record is the epilogue")
        self.assertIn('(pmcd.pmlogger.archive): inst [%d or "%d"] value "%s"'
                      % (mmvlog.pid, mmvlog.pid, m_base), dump)

        # (pmseries --load says "processed N archive records" only at times;
        # the queries below show what was loaded.)
        for base in (p_base, m_base):
            self.pmseries("--load", '{source.path: "%s"}' % base)
        names = sorted(n for n in p_descs if n.startswith("mmv."))
        self.assertEqual(names, sorted(n for n in m_descs if n.startswith("mmv.")))
        self.assertGreater(len(names), 15)
        keyserver.assert_shared_series(self, self.pmseries, names, (p_base, m_base))

    def test_pcp7_loaded_archives_share_series_and_source(self):
        pcp7.require()
        root = os.path.join(self.root, "pcp7")
        os.makedirs(os.path.join(root, "mmv"))
        env = dict(pcp7.env(), PCP_TMP_DIR=root)
        writer = pcp7.writer("pcp_mmv_writer")
        for name, mode, cluster in FILES:
            subprocess.run([writer, name, mode, cluster], env=env, check=True,
                           stdout=subprocess.DEVNULL)
        cfg = os.path.join(root, "cfg")
        with open(cfg, "w") as f:
            f.write("log mandatory on every 250 msec { mmv.alpha mmv.bravo }\n")
        p_base, m_base = os.path.join(root, "p_arch"), os.path.join(root, "m_arch")
        pmlogger = pcp7.pmlogger_o(["-V", "3", "-c", cfg, "-T", "1sec", "-l", p_base + ".log",
                                    p_base], root, root)
        mmvlog = subprocess.Popen(
            [MMVLOG, "capture", "-V", "3", "-c", cfg, "-T", "1sec", "--mmv-dir",
             os.path.join(root, "mmv"), "--no-progress", m_base],
            env=dict(os.environ, PCP_TMP_DIR=root), cwd=root, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE)
        p_out, _ = pmlogger.communicate(timeout=60)
        _, m_err = mmvlog.communicate(timeout=60)
        self.assertEqual(pmlogger.returncode, 0, p_out.decode())
        self.assertEqual(mmvlog.returncode, 0, m_err.decode())

        dumps = {b: pcp7.dump(b, ("-a", "-e")) for b in (p_base, m_base)}
        # No context labels from 7.2's pmlogger -o; mmvlog's, at the first sample.
        self.assertNotIn("Context labels", dumps[p_base])
        self.assertIn("Context labels", dumps[m_base])
        # The prologue's timing: 7.2's label and prologue at the first
        # result's time; mmvlog's a microsecond before it.
        for base, gap in ((p_base, 0), (m_base, 1000)):
            label = pcp7.run([pcp7.tool("pmlogdump"), "-L", "-Z", "UTC", "-xxx", base]).stdout
            m = re.search(r"commencing \S+ \S+ +\d+ \d\d:\d\d:\d\d\.(\d+) \d{4} (\d+)$", label,
                          re.M)
            start, start_ns = int(m.group(2)), int(m.group(1))
            stamps = re.findall(r"^\S+ \S+ +\d+ \d\d:\d\d:\d\d\.(\d+) \d{4} \([\d.]+\) (\d+) +"
                                r"(\d+) metrics?\n +(\S+)", pcp7.dump(
                                    base, ("-a", "-Z", "UTC", "-xxx")), re.M)
            self.assertEqual(stamps[0][3], "2.3.3", "the first record is the prologue")
            prologue = (int(stamps[0][1]), int(stamps[0][0]))
            first = (int(stamps[1][1]), int(stamps[1][0]))
            self.assertEqual(prologue, (start, start_ns), base)
            self.assertEqual((first[0] - start) * 10**9 + first[1] - start_ns, gap, base)

        self.pmseries("--load", '{source.path: "%s"}' % p_base, pcp="7")
        self.pmseries("--load", '{source.path: "%s"}' % m_base, pcp="7")
        names = sorted(n for n in descs(p_base) if n.startswith("mmv."))
        self.assertEqual(names, sorted(n for n in descs(m_base) if n.startswith("mmv.")))
        self.assertGreater(len(names), 15)
        keyserver.assert_shared_series(self, lambda *a: self.pmseries(*a, pcp="7"), names,
                                       (p_base, m_base))

if __name__ == "__main__":
    unittest.main()
