"""Helpers for the tests of pushing to PCP 7.2's pmproxy (push_test,
record_push_test): a private key server and pmproxy 7.2, and how PCP 7.2
itself sees the archives on either side.

  Server(root)           redis-server + keyserver.Pmproxy7 in `root`;
                         .series(name), .values(name), .stop()
  dump(base)             pmlogdump 7.2 -a: label, metadata, every record
  records(base)          [(time, text)] of each record (pmlogdump 7.2)
  check(test, base)      pmlogcheck 7.2 finds nothing
  metrics_with_values    names with a value somewhere in the archive
  same_files(test, a, b) the files of two archives are byte for byte equal
"""

import filecmp
import os
import re

import keyserver
import pcp7


class Server:
    """A private redis-server and pmproxy 7.2 taking pushed archives."""

    def __init__(self, root, authenticate=False, tls=None):
        self.redis_port, self.redis = keyserver.start_redis(os.path.join(root, "redis"))
        self.proxy = keyserver.Pmproxy7(os.path.join(root, "proxy"), self.redis_port,
                                        authenticate=authenticate, tls=tls).start()
        self.port = self.proxy.port
        self.url = "http://127.0.0.1:%d" % self.port
        self.https = "https://127.0.0.1:%d" % self.port

    def restart(self, tls=None):
        """pmproxy again on the same port, with another TLS set-up."""
        self.proxy.stop()
        self.proxy.tls = tls
        self.proxy.start()

    def archives(self):
        return self.proxy.archives()

    def pmseries(self, *args):
        return pcp7.run(["pmseries", "-p", str(self.redis_port)] + list(args), timeout=60).stdout

    def series(self, name):
        return self.pmseries(name).split()

    def values(self, name):
        """pmseries -t of every series of `name`: series ids, times, values."""
        return self.pmseries("-t", "%s[count:100000]" % name)

    def stop(self):
        self.proxy.stop(remove=True)
        keyserver.stop([self.redis])


def dump(base):
    return pcp7.run(["pmlogdump", "-a", base], check=True).stdout


RECORD = re.compile(r"^(\d\d:\d\d:\d\d\.\d+) ", re.M)


def records(base):
    """[(time, text)] of each record of `base`, a <mark> too, in order."""
    out = pcp7.run(["pmlogdump", base], check=True).stdout
    starts = [m.start() for m in RECORD.finditer(out)] + [len(out)]
    return [(out[a:b].split(" ", 1)[0], out[a:b].strip()) for a, b in zip(starts, starts[1:])]


def check(test, base):
    p = pcp7.run(["pmlogcheck", base])
    test.assertEqual((p.returncode, p.stdout + p.stderr), (0, ""), base)


def metrics_with_values(base):
    out = pcp7.run(["pmlogdump", base], check=True).stdout
    return sorted(set(re.findall(r"^    \S+ \(([^)]+)\):(?: value| inst|\n +inst)", out, re.M)))


def archive_files(base):
    d, stem = os.path.split(base)
    return sorted(f[len(stem):] for f in os.listdir(d) if f.startswith(stem + "."))


def same_files(test, a, b):
    """The files of archives `a` and `b` (.meta, .index, .N) are equal."""
    test.assertEqual(archive_files(a), archive_files(b))
    for ext in archive_files(a):
        test.assertTrue(filecmp.cmp(a + ext, b + ext, shallow=False), "%s%s != %s%s"
                        % (a, ext, b, ext))
