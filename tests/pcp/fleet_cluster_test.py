"""A fleet's key server outgrown: pmproxy discovering into a Redis Cluster.

A three-node Redis Cluster (redis-server --cluster-enabled yes, redis-cli
--cluster create) and a private pmproxy discovering this test's archive
directory into it are started and stopped here (keyserver.py). The same MMV
files (libpcp_mmv, every MMV type, labels of every kind) are recorded live
by `mmvlog record` and then by PCP's `pmlogger -o`, each into its own
directory under the one pmproxy follows.

Shown, through pmseries against the cluster: every metric has one series
(pmproxy named mmvlog's and pmlogger's the same), every instance one, the
two archives one source; the keys are spread over all three nodes; every
sample of mmvlog's archive is in the cluster with pmdumplog's value.

The same with PCP 7.2's pmproxy (tests/pcp/pcp7.py) discovering into a
cluster of its own, files written by 7.2's libpcp_mmv: mmvlog's live
archive and 6.0.3's `pmlogger -o`'s of the same files share one series per
metric and instance and one source, and every sample of mmvlog's is there.
The reference is 6.0.3's pmlogger -o because 7.2's writes no context labels
in a local context (pmlogger7_side_by_side_test): its archives' series are
named by the label's hostname alone, so no recorder that writes context
labels (pmlogger through pmcd, mmvlog, which keeps them to give pmproxy a
host) can share them under discovery. (Tried with 7.2's pmproxy: mmvlog's
archive, with its prologue a microsecond before the first sample or at it,
shares every series with 6.0.3's pmlogger -o.)
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
METRIC = "mmv.bravo.requests.total"


class FleetClusterTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        for tool in ("redis-server", "redis-cli", "pmseries", "/usr/lib/pcp/bin/pmproxy"):
            if shutil.which(tool) is None:
                raise AssertionError("%s is missing: run bazel/setup.sh" % tool)
        if not os.path.exists("/var/lib/pcp/pmns/root"):
            raise AssertionError("PCP's namespace is missing: run bazel/setup.sh")
        cls.root = os.path.join(os.environ["TEST_TMPDIR"], "fleet_cluster")
        shutil.rmtree(cls.root, ignore_errors=True)
        cls.archives = os.path.join(cls.root, "archives")
        for d in ("p", "m"):
            os.makedirs(os.path.join(cls.archives, d))
        cls.procs = []
        cls.port, nodes = keyserver.start_cluster(os.path.join(cls.root, "redis"))
        cls.procs += nodes
        cls.procs.insert(0, keyserver.start_pmproxy(os.path.join(cls.root, "proxy"), cls.port,
                                                    cls.archives))

    @classmethod
    def tearDownClass(cls):
        keyserver.stop(cls.procs)  # pmproxy first, then the nodes

    def pmseries(self, *args):
        p = subprocess.run(["pmseries", "-p", str(self.port)] + list(args),
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                           timeout=60)
        self.assertEqual(p.returncode, 0, "pmseries %s" % " ".join(args))
        return p.stdout

    def test_discovered_into_a_cluster_with_pmloggers_identity(self):
        mmv = os.path.join(self.root, "mmv")
        os.makedirs(mmv)
        env = dict(os.environ, PCP_TMP_DIR=self.root)
        for name, mode, cluster in FILES:
            subprocess.run([WRITER, name, mode, cluster], env=env, check=True,
                           stdout=subprocess.DEVNULL)
        cfg = os.path.join(self.root, "cfg")
        with open(cfg, "w") as f:
            f.write("log mandatory on every 300 msec { mmv.alpha mmv.bravo }\n")
        p_base = os.path.join(self.archives, "p", "p_arch")
        m_base = os.path.join(self.archives, "m", "m_arch")
        # mmvlog first, then pmlogger: one series takes the values of both,
        # and a key server keeps a series' values in time order only.
        mmvlog = subprocess.Popen(
            [MMVLOG, "record", "-V", "3", "-c", cfg, "-T", "3sec", "--mmv-dir", mmv, m_base],
            env=env, cwd=self.root, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        _, m_err = mmvlog.communicate(timeout=60)
        self.assertEqual(mmvlog.returncode, 0, m_err.decode())
        time.sleep(2.5)

        # Every sample of mmvlog's archive, with its value, in the cluster.
        written = keyserver.archive_values(m_base, METRIC)
        self.assertGreaterEqual(len(written), 8)
        stored = keyserver.stored_values(self.pmseries("-t", "%s[count:100000]" % METRIC))
        for t, v in written.items():
            self.assertEqual(stored.get(t), v, "sample at %d us (stored: %s)" % (t, sorted(stored)))

        pmlogger = subprocess.Popen(
            ["pmlogger", "-o", "-V", "3", "-c", cfg, "-T", "2sec", "-l",
             os.path.join(self.root, "pmlogger.log"), p_base],
            env=env, cwd=self.root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        p_out, _ = pmlogger.communicate(timeout=60)
        self.assertEqual(pmlogger.returncode, 0, p_out.decode())
        time.sleep(2.5)

        names = sorted(set(re.findall(r"^PMID: \S+ \((mmv\.[^)]+)\)$", subprocess.run(
            ["pmdumplog", "-d", m_base], stdout=subprocess.PIPE, text=True, check=True).stdout,
            re.M)))
        self.assertGreater(len(names), 15)
        keyserver.assert_shared_series(self, self.pmseries, names, (p_base, m_base))

        # The keys live on every node of the cluster.
        for port in {int(p) for p in re.findall(r"127\.0\.0\.1:(\d+)@",
                                                keyserver.redis_cli(self.port, "cluster",
                                                                    "nodes"))}:
            self.assertGreater(int(keyserver.redis_cli(port, "dbsize").strip()), 10, port)

    def test_pcp7_pmproxy_discovers_with_pmloggers_identity(self):
        pcp7.require()
        root = os.path.join(self.root, "pcp7")
        archives = os.path.join(root, "archives")
        for d in ("p", "m"):
            os.makedirs(os.path.join(archives, d))
        os.makedirs(os.path.join(root, "mmv"))
        procs = []
        try:
            port, nodes = keyserver.start_cluster(os.path.join(root, "redis"))
            procs += nodes
            procs.insert(0, pcp7.start_pmproxy(os.path.join(root, "proxy"), port, archives,
                                               keyserver.free_port))

            def pmseries(*args):
                p = pcp7.run([pcp7.tool("pmseries"), "-p", str(port)] + list(args), timeout=60)
                self.assertEqual(p.returncode, 0, "pmseries %s: %s" % (" ".join(args), p.stderr))
                return p.stdout

            writer = pcp7.writer("pcp_mmv_writer")
            for name, mode, cluster in FILES:
                subprocess.run([writer, name, mode, cluster],
                               env=dict(pcp7.env(), PCP_TMP_DIR=root), check=True,
                               stdout=subprocess.DEVNULL)
            cfg = os.path.join(root, "cfg")
            with open(cfg, "w") as f:
                f.write("log mandatory on every 300 msec { mmv.alpha mmv.bravo }\n")
            p_base = os.path.join(archives, "p", "p_arch")
            m_base = os.path.join(archives, "m", "m_arch")
            env = dict(os.environ, PCP_TMP_DIR=root)
            mmvlog = subprocess.Popen(
                [MMVLOG, "record", "-V", "3", "-c", cfg, "-T", "3sec", "--mmv-dir",
                 os.path.join(root, "mmv"), m_base],
                env=env, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            _, m_err = mmvlog.communicate(timeout=60)
            self.assertEqual(mmvlog.returncode, 0, m_err.decode())
            time.sleep(2.5)
            written = keyserver.archive_values(m_base, METRIC)
            self.assertGreaterEqual(len(written), 8)
            stored = keyserver.stored_values(pmseries("-t", "%s[count:100000]" % METRIC))
            for t, v in written.items():
                self.assertEqual(stored.get(t), v, "sample at %d us (stored: %s)"
                                 % (t, sorted(stored)))
            pmlogger = subprocess.Popen(
                ["pmlogger", "-o", "-V", "3", "-c", cfg, "-T", "2sec", "-l",
                 os.path.join(root, "pmlogger.log"), p_base],
                env=pcp7.pcp6_env({"PCP_TMP_DIR": root}), cwd=root, stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT)
            p_out, _ = pmlogger.communicate(timeout=60)
            self.assertEqual(pmlogger.returncode, 0, p_out.decode())
            time.sleep(2.5)
            names = sorted(set(re.findall(r"^PMID: \S+ \((mmv\.[^)]+)\)$",
                                          pcp7.dump(m_base, ("-d",)), re.M)))
            self.assertGreater(len(names), 15)
            keyserver.assert_shared_series(self, pmseries, names, (p_base, m_base))
        finally:
            keyserver.stop(procs)


if __name__ == "__main__":
    unittest.main()
