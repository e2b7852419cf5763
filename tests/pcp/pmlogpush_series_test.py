"""An mmvlog archive pushed with PCP 7.2's own pmlogpush into PCP 7.2's
pmproxy: every metric with values gets its series in the key server.

pmproxy 7 loads a pushed archive as a stream (libpcp_web loggroup.c and
discover.c): it names a metric's series when it reads the metric's
descriptor, from the context labels it has read by then, so a descriptor
that comes before the context-label record in .meta gets no series (13 of
14 metrics did, before mmvlog wrote the context labels first).

The archive is recorded by `mmvlog capture` from MMV files written by the
real libpcp_mmv (v1 and v3, labels of every kind, three instance domains);
PCP 7.2 (tests/pcp/pcp7.py), a private redis-server and a private pmproxy
7.2 are started and stopped here. Judges: pmlogdump 7.2 (which metrics have
values), pmseries 7.2 (which have series).
"""

import os
import re
import subprocess
import unittest

import keyserver
import pcp7


def runfile(path):
    return os.path.join(os.environ["TEST_SRCDIR"], "mmvlog", path)


MMVLOG = runfile("cmd/mmvlog")
WRITER = runfile("tests/pcp/pcp_mmv_writer")
FILES = (("alpha", "v1", "0"), ("bravo", "v3", "11"))


def metrics_with_values(base):
    """Names of the metrics with at least one value in `base` (pmlogdump 7.2)."""
    dump = pcp7.run(["pmlogdump", base], check=True).stdout
    return sorted(set(re.findall(r"^    \S+ \(([^)]+)\):(?: value| inst|\n +inst)", dump, re.M)))


class PmlogpushSeriesTest(unittest.TestCase):

    def setUp(self):
        pcp7.require()
        self.root = os.path.join(os.environ["TEST_TMPDIR"], "pmlogpush_series")
        subprocess.run(["rm", "-rf", self.root], check=True)
        os.makedirs(os.path.join(self.root, "mmv"))
        self.redis_port, self.redis = keyserver.start_redis(os.path.join(self.root, "redis"))
        self.proxy = keyserver.Pmproxy7(os.path.join(self.root, "proxy"), self.redis_port)
        self.proxy.start()

    def tearDown(self):
        self.proxy.stop(remove=True)
        keyserver.stop([self.redis])

    def series(self, name):
        p = pcp7.run(["pmseries", "-p", str(self.redis_port), name], timeout=60)
        return p.stdout.split()

    def test_every_metric_with_values_has_a_series(self):
        env = dict(os.environ, PCP_TMP_DIR=self.root)
        for name, mode, cluster in FILES:
            subprocess.run([WRITER, name, mode, cluster], env=env, check=True,
                           stdout=subprocess.DEVNULL)
        base = os.path.join(self.root, "archive")
        p = subprocess.run([MMVLOG, "capture", "-V", "3", "-t", "100msec", "-s", "3",
                            "--mmv-dir", os.path.join(self.root, "mmv"), "--no-progress", base],
                           env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        # Metadata in time order with the labels moved (pmlogcheck 7 checks it).
        check = pcp7.run(["pmlogcheck", base])
        self.assertEqual((check.returncode, check.stdout + check.stderr), (0, ""))
        names = metrics_with_values(base)
        self.assertGreater(len([n for n in names if n.startswith("mmv.")]), 15, names)

        push = pcp7.run(["pmlogpush", "-p", str(self.proxy.port), base], timeout=60)
        self.assertEqual(push.returncode, 0, push.stderr)
        self.assertEqual(len(self.proxy.archives()), 1)

        missing = names
        try:
            keyserver.wait_for("a series for every metric with values",
                               lambda: not [n for n in names if not self.series(n)])
        except AssertionError:
            missing = [n for n in names if not self.series(n)]
            self.fail("no series for %d of %d metrics with values: %s"
                      % (len(missing), len(names), missing))


if __name__ == "__main__":
    unittest.main()
