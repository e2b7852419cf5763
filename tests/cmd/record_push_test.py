"""mmvlog record ... http://HOST:PORT: pushed live into PCP 7.2's pmproxy,
and nothing lost when pmproxy is away.

MMV files from the real libpcp_mmv; PCP 7.2 (tests/pcp/pcp7.py), private
redis-servers and pmproxy 7.2s are started, killed, restarted and stopped
here. Shown:
- without --local the archive is a spool: pmproxy gets all of it, volume
  by volume, and the spool is left empty;
- live: every sample written reaches pmseries 7.2 within 2 s of its time
  (polled every 100 ms; a functional bound, the issue's), every metric with
  values has its series, and pmproxy's copy of the archive is the local one
  (--local), byte for byte and as pmlogdump 7.2 reads it, over a volume
  switch (SIGHUP: posted to the new VOLID);
- pmproxy killed (SIGKILL) and restarted mid-recording, then stopped for
  longer than the spool holds, then started again: mmvlog records on and
  never exits for it; the local archive is complete; the remote archives
  (a new one after each restart) hold every local record that was not given
  up, once each, in order; exactly the records the log says were given up
  are missing, the oldest ones, and a <mark> stands at their place.
"""

import os
import re
import signal
import subprocess
import sys
import threading
import time
import unittest

import cmdtest
import keyserver
import pcp7
import pushtest

METRIC = "mmv.bravo.requests.total"
POLL = 0.1
ARRIVAL = 2.0  # seconds, from the issue


class RecordPushTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        pcp7.require()
        cls.root = cmdtest.fresh_dir("record_push")
        cls.files = cmdtest.MmvFiles(cls.root, files=(("bravo", "v3", 11, 0),))
        cls.servers = []

    @classmethod
    def tearDownClass(cls):
        for s in cls.servers:
            s.stop()

    def server(self, name):
        s = pushtest.Server(os.path.join(self.root, name))
        self.servers.append(s)
        return s

    def record(self, url, local, log, *args):
        return subprocess.Popen(
            [cmdtest.MMVLOG, "record", "--mmv-dir", self.files.mmv_dir, "--local", local,
             "-l", log] + list(args) + [url],
            env=self.files.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)

    def test_live_push(self):
        server = self.server("live")
        local = os.path.join(self.root, "live_local", "a")
        log = os.path.join(self.root, "live.log")
        seen = {}  # time in microseconds -> (wall time first seen, value)
        stop = threading.Event()

        def poll():
            while not stop.is_set():
                now = time.time()
                out = server.pmseries("-t", "%s[count:100000]" % METRIC)
                for t, v in keyserver.stored_values(out).items():
                    seen.setdefault(t, (now, v))
                time.sleep(POLL)

        def bump():
            n = 1000
            while not stop.is_set():
                n += 7
                self.files.set_counter("bravo", n)
                time.sleep(0.13)

        # The counter's start, before anything samples it: the writer's own
        # value (1234567890123) is above the bumps', and a first sample that
        # came before the first bump (a slow thread start) read as a wrap.
        self.files.set_counter("bravo", 1000)
        threads = [threading.Thread(target=poll), threading.Thread(target=bump)]
        for t in threads:
            t.start()
        try:
            p = self.record(server.url, local, log, "-t", "200msec")
            time.sleep(1.9)
            p.send_signal(signal.SIGHUP)  # a new volume
            time.sleep(1.5)
            p.send_signal(signal.SIGTERM)
            _, err = p.communicate(timeout=30)
            self.assertEqual(p.returncode, 0, err)
            time.sleep(ARRIVAL + 0.5)
        finally:
            stop.set()
            for t in threads:
                t.join()

        self.assertEqual(pushtest.archive_files(local), [".0", ".1", ".index", ".meta"])
        written = keyserver.archive_values(local, METRIC)
        self.assertGreater(len(written), 10)
        lates = sorted(seen[t][0] - t / 1e6 for t in written if t in seen)
        print("%d samples, seen in pmseries after the sample: median %.2f s, max %.2f s" % (
            len(written), lates[len(lates) // 2], lates[-1]), file=sys.stderr)
        for t, v in sorted(written.items()):
            self.assertIn(t, seen, "the sample at %d us never reached pmseries" % t)
            arrived, value = seen[t]
            self.assertEqual(value, v, "value at %d us" % t)
            self.assertLessEqual(arrived - t / 1e6, ARRIVAL + POLL + 0.05,
                                 "the sample at %d us took %.2f s" % (t, arrived - t / 1e6))
        names = pushtest.metrics_with_values(local)
        keyserver.wait_for("a series for every metric with values",
                           lambda: all(server.series(n) for n in names), 20)
        (remote,) = server.archives()
        pushtest.same_files(self, remote, local)
        self.assertEqual(pushtest.dump(remote), pushtest.dump(local))
        pushtest.check(self, remote)

    def test_without_local_the_archive_is_only_a_spool(self):
        server = self.server("spool")
        spool = os.path.join(self.root, "spool_dir")
        p = subprocess.Popen(
            [cmdtest.MMVLOG, "record", "--mmv-dir", self.files.mmv_dir, "-t", "100msec",
             "-v", "5", "-s", "22", "--spool", spool, server.url],
            env=self.files.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        _, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 0, err)
        self.assertIn("22 samples", err)
        # Pushed, volume by volume, then removed: only the recorder's lock
        # is left (and no state: nothing is owed).
        self.assertEqual(os.listdir(spool), [".mmvlog.lock"], err)
        (remote,) = server.archives()
        pushtest.check(self, remote)
        self.assertEqual(pushtest.archive_files(remote)[:2], [".0", ".1"])
        self.assertEqual(len([r for r in pushtest.records(remote) if "<mark>" not in r[1]]),
                         22 + 2)

    def test_pmproxy_killed_restarted_and_away_longer_than_the_spool(self):
        server = self.server("away")
        local = os.path.join(self.root, "away_local", "a")
        log = os.path.join(self.root, "away.log")
        p = self.record(server.url, local, log, "-t", "100msec", "--spool-size", "16KB")

        def says(text, count=1):
            def ok():
                self.assertIsNone(p.poll(), "mmvlog exited")
                if not os.path.exists(log):
                    return False
                with open(log) as f:
                    return f.read().count(text) >= count
            keyserver.wait_for("'%s' x%d in the log" % (text, count), ok, timeout=40)

        try:
            says("remote archive")
            time.sleep(1.0)
            server.proxy.kill()
            time.sleep(1.5)
            server.proxy.start()
            says("connected again")
            time.sleep(1.0)
            server.proxy.stop()
            says("spool full")
            time.sleep(1.5)  # more given up
            server.proxy.start()
            says("connected again", 2)
            time.sleep(1.0)
            self.assertIsNone(p.poll(), "mmvlog exited")
        finally:
            p.send_signal(signal.SIGTERM)
            _, err = p.communicate(timeout=30)
        self.assertEqual(p.returncode, 0, err)
        with open(log) as f:
            text = f.read()

        # The local archive is complete: every sample, the prologue and the
        # epilogue, and PCP finds nothing wrong.
        pushtest.check(self, local)
        samples = int(re.search(r"stopped: (\d+) samples", text).group(1))
        mine = pushtest.records(local)
        self.assertEqual(len(mine), samples + 2)

        remotes = server.archives()
        self.assertGreaterEqual(len(remotes), 2, "a new remote archive after the kill")
        theirs = []
        for r in remotes:
            pushtest.check(self, r)
            theirs += pushtest.records(r)
        marks = [r for r in theirs if r[1].endswith("<mark>")]
        data = [r for r in theirs if not r[1].endswith("<mark>")]
        # Once each, in order.
        self.assertEqual(data, [r for r in mine if r in data])
        gone = [r for r in mine if r not in data]
        given_up = sum(int(n) for n in re.findall(r"gave up (\d+) records", text))
        self.assertEqual(len(gone), given_up, text)
        self.assertGreater(given_up, 0)
        # Given up a run at a time (one per outage that filled the spool,
        # usually the long one alone), the oldest of each outage; the record
        # after a run was sent, with a <mark> before it at the time of the
        # run's first record.
        runs = []
        for r in gone:
            i = mine.index(r)
            if runs and mine.index(runs[-1][-1]) == i - 1:
                runs[-1].append(r)
            else:
                runs.append([r])
        self.assertEqual(len(marks), len(runs), (marks, [run[0][0] for run in runs]))
        for mark, run in zip(marks, runs):
            after = mine[mine.index(run[-1]) + 1]
            self.assertIn(after, data)
            self.assertEqual(mark[0], run[0][0])
            self.assertEqual(theirs[theirs.index(mark) + 1], after)


if __name__ == "__main__":
    unittest.main()
