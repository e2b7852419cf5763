"""pmrep's metric sets: `mmvlog replay -a ARCH :SET -o csv` beside
`pmrep -a ARCH :SET -o csv` (PCP 6.0.3, Debian's /usr/bin/pmrep), byte for
byte, and without -o, pmrep's table beside pmrep's.

Corpus:
- every metric set of Debian's /etc/pcp/pmrep/*.conf (79 sets) on an
  archive pmlogger records here from pmcd's Linux and proc PMDAs (a private
  pmcd, tests/pcp/pcp_stack.py: kernel, mem, swap, disk, network, filesys,
  vfs, tty, hinv, proc; 40 samples 250 ms apart) and on PCP QA's 2019 Linux
  host archives (20190628.06.31; 20201109-b with per-process metrics of
  processes that come and go): where pmrep reports, the same CSV; where it refuses (a
  metric or instance domain the archive lacks), mmvlog refuses too. Sets
  use PCP's global derived metrics (kernel.cpu.util.*, disk.dev.await ...)
  and formulas with ?:, rate(), delta(), rescale() and mkconst();
- sets written for an MMV application (tests/testdata/live: mmvlog's and
  pmlogger's recordings of the same libpcp_mmv writer): compact and verbose
  specs, labels, units (KB/s, s, KB / count), formulas, instances by name
  and by regular expression, type = raw, precision, limit_filter, a
  delimiter, timefmt with %f, header = no, [options], a set named by -c;
- the configuration found as pmrep finds it (./pmrep.conf,
  ~/.pcp/pmrep.conf) and -c DIRECTORY;
- a set that does not exist: both refuse.

The interpolation rule follows the PCP installed (6.0.3's here: the prior
sample's value for instants); `--interpolation` is checked beside pmval.
"""

import os
import shutil
import subprocess
import unittest

import pcp7
import pcp_stack
from pmrep_compare import DEBIAN_SETS, debian_sets, pmrep_env

RUNFILES = os.path.join(os.environ["TEST_SRCDIR"], "mmvlog")
MMVLOG = os.path.join(RUNFILES, "cmd/mmvlog")
LIVE = os.path.join(RUNFILES, "tests/testdata/live")
PCPQA = os.path.join(RUNFILES, "tests/testdata/pcpqa")
PMREP = shutil.which("pmrep", path="/usr/bin") or "/usr/bin/pmrep"

APP_CONF = """\
[options]
precision = 2

[app]
header = yes
timefmt = "%%H:%%M:%%S.%%f"
mmv.app.requests = reqs,,,,8
mmv.app.bytes    = kbps,,KB/s,,,3
mmv.app.latency  = lat,,s,,,4
mmv.app.errors   = err,,,raw
mmv.app.queue    = q,"a|c",,,5,,
mmv.app.state    = st
mmv.app.phase    = ph
per_req          = app.bytes_per_request
per_req.label    = bpr
per_req.formula  = delta(mmv.app.bytes) / delta(mmv.app.errors)
per_req.unit     = KB / count
per_req.precision = 1
qsum             = app.qsum
qsum.formula     = sum(mmv.app.queue)

[app-raw]
type = raw
delimiter = ";"
header = no
mmv.app.requests = ,,,,
mmv.app.queue    = ,b,,,,,2

[app-limit]
mmv.app.queue = q,,,,,,-3
mmv.app.requests = r,,,,,0,100

[app-filter]
limit_filter = 3
mmv.app.queue = q,,,,,,
mmv.app.latency = l,,,,,,

[app-rates]
interval = 2s
mmv.app.bytes = b,,MB/min,,,6
util = app.latency_share
util.formula = rescale(mmv.app.latency, "sec") * 100
busy = app.busy
busy.formula = mmv.app.queue > 4 ? mmv.app.queue : -mmv.app.queue
"""


class PmrepSetsTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        if not os.path.exists(PMREP) or not os.path.isdir(DEBIAN_SETS):
            raise unittest.SkipTest("pmrep (pcp) is not installed")
        cls.root = os.environ.get("TEST_TMPDIR", "/tmp")
        cls.env = pmrep_env()
        work = os.path.join(cls.root, "linux")
        os.makedirs(work, exist_ok=True)
        h = pcp_stack.start_pmcd(os.path.join(work, "tmp"), linux=True)
        try:
            cls.linux = pcp_stack.record_with_pmlogger(
                h, os.path.join(work, "host"), 40, 0.25, 3,
                subtree="\n    ".join(["kernel", "mem", "swap", "disk", "network", "filesys",
                                       "vfs", "tty", "hinv", "proc"]))
        finally:
            pcp_stack.stop_pmcd(h)
        cls.app_conf = os.path.join(cls.root, "app.conf")
        with open(cls.app_conf, "w") as f:
            f.write(APP_CONF)

    def both(self, args, cwd=None, env=None):
        e = dict(self.env)
        e.update(env or {})
        p = subprocess.run([PMREP] + args, capture_output=True, text=True, env=e, cwd=cwd,
                           timeout=600)
        q = subprocess.run([MMVLOG, "replay"] + args, capture_output=True, text=True, env=e,
                           cwd=cwd, timeout=600)
        return p, q

    def conf_file(self, name, text):
        """A pmrep.conf of the test's own, by name: its path."""
        path = os.path.join(self.root, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def same(self, args, **kw):
        p, q = self.both(args, **kw)
        self.assertEqual(p.returncode, 0, p.stderr[-1000:])
        self.assertEqual(q.returncode, 0, q.stderr[-1000:])
        self.assertEqual(q.stdout, p.stdout, " ".join(args))
        return p.stdout

    def corpus(self, archive, minimum, output=("-o", "csv")):
        equal, refused, rows = [], [], 0
        for s in debian_sets():
            p, q = self.both(["-a", archive, ":" + s] + list(output))
            if p.returncode != 0:
                # pmrep refuses (a metric or instance domain the archive lacks).
                self.assertNotEqual(q.returncode, 0, "%s: pmrep refused (%s), mmvlog did not"
                                    % (s, p.stderr.strip()[-200:]))
                refused.append(s)
                continue
            self.assertEqual(q.returncode, 0, "%s: %s" % (s, q.stderr[-500:]))
            if q.stdout != p.stdout:
                diff = [(a, b) for a, b in zip(q.stdout.splitlines(), p.stdout.splitlines())
                        if a != b]
                self.fail("%s on %s: %d lines differ; first:\nmmvlog %s\npmrep  %s" % (
                    s, archive, len(diff), diff[0][0][:300] if diff else "(length)",
                    diff[0][1][:300] if diff else ""))
            equal.append(s)
            rows += sum(1 for line in p.stdout.splitlines()[1:] if line.strip(", ").count(" ") > 1
                        or line.count(",") > 1)
        print("%s: %d sets equal (%d rows), %d refused by both" % (
            os.path.basename(archive), len(equal), rows, len(refused)))
        self.assertGreaterEqual(len(equal), minimum)

    def test_debian_sets_on_a_linux_recording(self):
        self.corpus(self.linux, 30)

    def test_debian_sets_as_pmrep_tables(self):
        # No -o: pmrep's table (labels, widths, units, N/A, xxx, headers
        # repeated, colxrow), as pmrep prints it without a terminal.
        self.corpus(self.linux, 30, output=())
        self.corpus(os.path.join(PCPQA, "20201109-b"), 10, output=("-s", "40"))

    def test_debian_sets_on_pcpqa_linux_host(self):
        self.corpus(os.path.join(PCPQA, "20190628.06.31"), 10)

    def test_debian_sets_on_pcpqa_processes(self):
        # Processes that come and go: pmGetInDomArchive's order (each
        # observation sorted by number) and no value for an exited process.
        self.corpus(os.path.join(PCPQA, "20201109-b"), 10)

    def test_debian_sets_at_the_records(self):
        # -u: a row at each record holding a metric the set fetches (its
        # formulas' operands too), rates between records, a discrete
        # metric's values kept on rows without it (pidstat-v's, collectl's
        # device names).
        self.corpus(self.linux, 30, output=("-u", "-o", "csv"))
        self.corpus(os.path.join(PCPQA, "20201109-b"), 10, output=("-u", "-s", "60"))
        self.corpus(os.path.join(PCPQA, "20190628.06.31"), 10, output=("-u",))

    def test_dimensionless_counters_rated_even_raw(self):
        # A counter without units shown raw: pmrep passes the fetchgroup no
        # scale, and the fetchgroup rate-converts it anyway, into its own
        # type (a comparison's 0 or 1, a constant counter's 0).
        empty = os.path.join(self.root, "empty.conf")
        open(empty, "w").close()
        archive = os.path.join(LIVE, "ml3")
        for expr in ["(mmv.app.errors * 766) < mmv.app.bytes",
                     "mkconst(15, type=u32, semantics=counter)",
                     "mkconst(46, type=64, semantics=counter)", "mmv.app.errors * 766"]:
            for extra in (["-r"], []):
                for output in (["-o", "csv"], []):
                    self.same(["-a", archive, "-c", empty, "-s", "8", "-e", "x.e=" + expr, "x.e"]
                              + extra + output)

    def test_strings_with_units_through_a_double(self):
        # A string metric with units ("count"): pmrep hands the fetchgroup
        # that scale, and the fetchgroup reads the string as a double
        # (libpcp's __pmStringValue) and prints it back with "%.17e"; a
        # text that is not wholly a number shows as no value. Without units,
        # the string as it is. An archive of such strings, from LOGIMPORT.
        from pcp import pmi
        import cpmapi as c
        path = os.path.join(self.root, "strings")
        for suffix in (".0", ".meta", ".index"):
            if os.path.exists(path + suffix):
                os.remove(path + suffix)
        log = pmi.pmiLogImport(path)
        log.pmiSetHostname("strings")
        log.pmiSetTimezone("UTC")
        indom = log.pmiInDom(245, 1)
        for k, name in enumerate(("a", "b", "c")):
            log.pmiAddInstance(indom, name, k)
        log.pmiAddMetric("s.count", log.pmiID(245, 0, 1), c.PM_TYPE_STRING, c.PM_INDOM_NULL,
                         c.PM_SEM_INSTANT, log.pmiUnits(0, 0, 1, 0, 0, c.PM_COUNT_ONE))
        log.pmiAddMetric("s.kb", log.pmiID(245, 0, 2), c.PM_TYPE_STRING, indom,
                         c.PM_SEM_INSTANT, log.pmiUnits(1, 0, 0, c.PM_SPACE_KBYTE, 0, 0))
        log.pmiAddMetric("s.none", log.pmiID(245, 0, 3), c.PM_TYPE_STRING, c.PM_INDOM_NULL,
                         c.PM_SEM_INSTANT, log.pmiUnits(0, 0, 0, 0, 0, 0))
        texts = ["123", "1.5e3", " 7", "0x10", "abc", "-0x1p3", "inf", "12 ", "-nan", "1e400",
                 "0X1F", "-0xfg", "  -12.5", "1e-310", "+4", ".5", "0x", "-", "7e", "NaN(1)",
                 "infinity", "2,5", "0.1"]
        for k, t in enumerate(texts):
            log.pmiPutValue("s.count", "", t)
            for j, name in enumerate(("a", "b", "c")):
                log.pmiPutValue("s.kb", name, texts[(k + j) % len(texts)])
            log.pmiPutValue("s.none", "", t)
            log.pmiWrite(1700000000 + k, 0)
        del log
        empty = os.path.join(self.root, "empty.conf")
        open(empty, "w").close()
        for output in (["-o", "csv"], []):
            for extra in ([], ["-u"]):
                out = self.same(["-a", path, "-c", empty, "-z", "s.count", "s.kb", "s.none",
                                 "-e", "x.s=s.count", "x.s"] + output + extra)
                self.assertIn("1.23000000000000000e+02" if output else "1.23", out)
                self.assertIn("-nan", out)
            # Units of the spec's own: the double converted to them.
            self.same(["-a", path, "-c", empty, "-z", "s.kb,,,MB", "s.count,,,count x 10^3"]
                      + output)

    def test_application_sets(self):
        for archive in ("ml3", "pl3"):
            for s in ("app", "app-raw", "app-limit", "app-filter", "app-rates"):
                out = self.same(["-c", self.app_conf, "-a", os.path.join(LIVE, archive), ":" + s,
                                 "-o", "csv"])
                self.assertGreater(len(out.splitlines()), 2, s)
                out = self.same(["-c", self.app_conf, "-a", os.path.join(LIVE, archive), ":" + s,
                                 "-p"])
                self.assertGreater(len(out.splitlines()), 2, s)
        self.same(["-c", self.app_conf, "-a", os.path.join(LIVE, "ml3"), ":app", "-X", "inst",
                   "-E", "3", "-w", "9", "-U"])
        # Compact specs and options on the command line, -i, -t, -s.
        self.same(["-a", os.path.join(LIVE, "ml3"), "-o", "csv", "-t", "0.5", "-P", "1",
                   "-i", "b", "mmv.app.queue,q", "mmv.app.requests,,,count/min",
                   "-e", "x.lat=mmv.app.latency * 2", "x.lat,lat,,,,,0"])

    def test_options_that_reshape_a_set(self):
        # omit_flat (-v), interpol = no (as -u, and -u over -t), output =
        # csv or stdout chosen by the set, -o stdout: as pmrep. An option
        # replay cannot print as pmrep does is refused, naming itself and
        # its file; the same option turned off is no change.
        conf = self.conf_file("reshape.conf",
                              "[mix]\nmmv.app.requests = r,,,,\nmmv.app.queue = q,,,,\n"
                              "mmv.app.latency = l,,ms,,,1\n\n"
                              "[flat]\nomit_flat = yes\nmmv.app.requests = r,,,,\nmmv.app.queue = q,,,,\n\n"
                              "[records]\ninterpol = no\nmmv.app.requests = r,,,,\nmmv.app.queue = q,,,,\n\n"
                              "[ascsv]\noutput = csv\nmmv.app.queue = q,,,,\n\n"
                              "[astable]\noutput = stdout\nmmv.app.queue = q,,,,\n\n"
                              "[ranked]\nrank = 2\nmmv.app.queue = q,,,,\n\n"
                              "[unranked]\nrank = 0\nextcsv = no\nmmv.app.queue = q,,,,\n\n"
                              "[v2]\nversion = 2\nmmv.app.queue = q,,,,\n")
        for archive in ("ml3", "pl3"):
            a = ["-c", conf, "-a", os.path.join(LIVE, archive)]
            flat = self.same(a + [":mix", "-v", "-o", "csv"])
            self.assertIn("mmv.app.queue-", flat)
            self.assertNotIn("latency", flat)  # the singular one
            self.assertEqual(self.same(a + [":flat", "-o", "csv"]), flat)
            self.same(a + [":mix", "-v"])
            records = self.same(a + [":records", "-o", "csv"])
            self.assertEqual(self.same(a + [":mix", "-u", "-t", "5", "-o", "csv"]).splitlines()[1:],
                             self.same(a + [":mix", "-u", "-o", "csv"]).splitlines()[1:])
            self.assertNotEqual(records, self.same(a + [":mix", "-o", "csv"]))
            self.assertIn(",", self.same(a + [":ascsv"]).splitlines()[1])
            self.same(a + [":astable"])
            self.same(a + [":ascsv", "-o", "stdout"])
            unranked = self.same(a + [":unranked", "-o", "csv"])
            # rank (-J): each row's two highest of the metric's values.
            ranked = self.same(a + [":ranked", "-o", "csv"])
            self.assertNotEqual(ranked, unranked)
            self.same(a + [":ranked"])
            self.same(a + [":ranked", "-J", "-1", "-o", "csv"])
            p, q = self.both(a + [":v2", "-o", "csv"])
            self.assertNotEqual(p.returncode, 0)
            self.assertNotEqual(q.returncode, 0)
            self.assertIn("Incompatible configuration file version", q.stderr)

    def test_options_of_pmrep_command_line(self):
        # -C (the headers only), -G (no [global] metrics), -d (a pause a
        # row: the same rows), -8/-9 (limits), -n (nothing without live
        # filtering), -I (what pmrep cannot show left out: an unbound
        # derived metric here), beside pmrep; its options for reports
        # replay does not print refused by name, not read as metric names.
        conf = self.conf_file("cmdline.conf",
                              "[global]\nmmv.app.requests = r,,,,\n\n"
                              "[q]\nmmv.app.queue = q,,,,\n\n"
                              "[unbound]\nnone = app.none\nnone.formula = rate(no.such.metric)\n"
                              "mmv.app.queue = q,,,,\n")
        a = ["-c", conf, "-a", os.path.join(LIVE, "ml3")]
        for output in ([], ["-o", "csv"]):
            checked = self.same(a + [":q", "-C"] + output)
            self.assertEqual(len(checked.splitlines()), 1 if output else 3)
            self.assertIn("mmv.app.requests" if output else "r", checked)
            full = self.same(a + [":q", "-s", "4"] + output)
            no_globals = self.same(a + [":q", "-G", "-s", "4"] + output)
            self.assertIn("mmv.app.requests" if output else " r ", full)
            self.assertNotIn("mmv.app.requests", no_globals)
            self.assertNotEqual(no_globals, full)
            self.same(a + [":q", "-G", "-s", "4", "-8", "3"] + output)
            self.same(a + [":q", "-s", "4", "-9", "-4"] + output)
            self.same(a + [":q", "-s", "4", "-J", "2"] + output)
            # -F: the same report in a file, nothing on standard output.
            into = [os.path.join(self.root, "pmrep.out"), os.path.join(self.root, "mmvlog.out")]
            for out in into:
                if os.path.exists(out):
                    os.unlink(out)
            p, q = (subprocess.run(tool + a + [":q", "-s", "4", "-F", out] + output,
                                   capture_output=True, text=True, env=self.env)
                    for tool, out in (([PMREP], into[0]), ([MMVLOG, "replay"], into[1])))
            self.assertEqual((p.returncode, p.stdout, q.returncode, q.stdout), (0, "", 0, ""),
                             p.stderr + q.stderr)
            with open(into[0]) as x, open(into[1]) as y:
                self.assertEqual(y.read(), x.read())
            # An existing file is refused, as pmrep refuses it.
            p, q = self.both(a + [":q", "-s", "4", "-F", into[1]] + output)
            self.assertEqual((p.returncode, q.returncode), (1, 1))
            self.assertIn("File %s already exists." % into[1], q.stderr)
            self.same(a + [":q", "-s", "4", "-J", "-1", "-8", "2"] + output)
            self.assertEqual(self.same(a + [":q", "-s", "4", "-n"] + output), full)
            self.assertEqual(self.same(a + [":q", "-s", "3", "-t", "0.2", "-d"] + output),
                             self.same(a + [":q", "-s", "3", "-t", "0.2"] + output))
            unbound = self.same(a + [":unbound", "-G", "-I", "-s", "4"] + output)
            self.assertIn("q", unbound)
            p, q = self.both(a + [":unbound", "-G", "-s", "4"] + output)
            self.assertNotEqual(p.returncode, 0)
            self.assertNotEqual(q.returncode, 0)
        # -7 changes nothing without -X, as in pmrep.
        self.assertEqual(self.same(a + [":q", "-s", "3", "-7"]), self.same(a + [":q", "-s", "3"]))
        for flag in (["-7", "-X", "inst"], ["-1", "-X", "inst"], ["-m", "-o", "csv"]):
            p, q = self.both(a + [":q", "-s", "2"] + flag)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertNotEqual(q.returncode, 0)
            self.assertIn("pmrep option %s (" % flag[0], q.stderr)
            self.assertEqual(q.stdout, "")

    def test_extended_csv_as_pmrep(self):
        # -k (and extcsv in a set): the host and the whole seconds since the
        # row before, the time's zone as pmrep names it (its quirks kept:
        # "UTC+3" for Sao Paulo's "-03", "UTC+0545-5:15" for Kathmandu),
        # in the archive's zone, given ones and TZ's.
        conf = self.conf_file("extcsv.conf", "[ext]\nextcsv = yes\nmmv.app.queue = q,,,,\n")
        for archive in (self.linux, os.path.join(LIVE, "ml3")):
            a = ["-c", conf, "-a", archive, "-o", "csv", "-s", "5"]
            for extra in ([], ["-z"], ["-u"], ["-Z", "Asia/Kathmandu"], ["-Z", "America/Sao_Paulo"],
                          ["-Z", "America/St_Johns", "-t", "0.7"], ["-l", ";", "-H"]):
                out = self.same(a + ["-k", "mmv.app.queue" if "ml3" in archive
                                     else "disk.dev.read"] + extra)
                self.assertIn(" UTC", out.splitlines()[-1])
            what = ["-k", "kernel.all.load"] if archive == self.linux else [":ext"]
            for tz in ("America/New_York", "Australia/Adelaide"):
                self.same(a + what, env={"TZ": tz})

    def test_extended_header_as_pmrep(self):
        # -x (and extheader in a set): pmrep's header of the run, in the
        # table and (each line after "#") in CSV, its samples and duration
        # by pmrep's rules (-s, -T with -s spreading the rows, -u's "N/A"),
        # the reporting zone and the machine's where they differ.
        conf = self.conf_file("extheader.conf", "[xh]\nextheader = yes\nmmv.app.queue = q,,,,\n")
        ml3 = os.path.join(LIVE, "ml3")
        for archive, metrics in ((self.linux, ["kernel.all.load", "disk.dev.read", "hinv.ncpu"]),
                                 (ml3, ["mmv.app.queue"])):
            a = ["-c", conf, "-a", archive, "-x"] + metrics
            for extra in ([], ["-o", "csv"], ["-s", "3"], ["-u"], ["-u", "-s", "4", "-o", "csv"],
                          ["-t", "0.3333333", "-s", "5"], ["-T", "+4", "-s", "3"],
                          ["-T", "+7", "-t", "2"], ["-Z", "Asia/Kathmandu", "-s", "2"],
                          ["-z", "-H", "-s", "2"], ["-k", "-o", "csv", "-s", "2"]):
                out = self.same(a + extra)
                self.assertIn("  samples: ", out)
            if archive == self.linux:
                self.same(a + ["-i", "sda", "-s", "2"])
            for tz in ("America/New_York", "Australia/Adelaide"):
                self.same(a + ["-s", "2"], env={"TZ": tz})
                out = self.same(a + ["-s", "2", "-Z", "Asia/Kolkata"], env={"TZ": tz})
                self.assertIn(" timezone: UTC+5:30 (reporting, current is UTC", out)
        # The set's option, and archives named in one -a and in several
        # (libpcp's list: a repeated -a's name once).
        self.assertIn("  archive: ", self.same(["-c", conf, "-a", ml3, ":xh", "-s", "3"]))
        both = self.same(["-c", conf, "-a", "%s,%s" % (ml3, ml3), ":xh", "-s", "2"])
        self.assertIn("  archive: %s,%s\n" % (ml3, ml3), both)
        once = self.same(["-c", conf, "-a", ml3, "-a", ml3, ":xh", "-s", "2"])
        self.assertIn("  archive: %s\n" % ml3, once)

    def test_separate_header_as_pmrep(self):
        # -g (and separate_header in a set): the columns listed by number,
        # metric, instance and units, the header their numbers, columns 8
        # wide unless -w says; with colxrow the labels numbered; and
        # colxrow's instance column 8 wide when its title is empty.
        c = ["-c", self.conf_file("empty_g.conf", ""), "-a", self.linux, "-s", "3"]
        metrics = ["kernel.all.load", "disk.dev.read", "hinv.ncpu", "network.interface.mtu"]
        for extra in (["-g"], ["-g", "-p", "-E", "1"], ["-g", "-U", "-w", "3"],
                      ["-g", "-x", "-P", "1"], ["-g", "-H"], ["-g", "-X", "inst"],
                      ["-g", "-X", "", "-p"], ["-X", ""], ["-g", "-o", "csv"]):
            self.same(c + metrics + extra)
        conf = self.conf_file("sep.conf", "[sep]\nseparate_header = yes\nmmv.app.queue = q,,,,\n")
        out = self.same(["-c", conf, "-a", os.path.join(LIVE, "ml3"), ":sep", "-s", "3"])
        self.assertIn('[ 1] - mmv.app.queue["a"] - count', out)

    def test_dynamic_header_as_pmrep(self):
        # -1 (dynamic_header, names_change = 2, -4 update): each row the
        # instances with values (after limits and rank) in instance order,
        # the header again when they change (CSV too, and every -E rows
        # there), the instance names the fetchgroup's at that row; on
        # processes coming and going (PCP QA's 20201109-b) and on a grid.
        c = ["-c", self.conf_file("empty_d.conf", ""), "-s", "12"]
        procs = ["-a", os.path.join(PCPQA, "20201109-b"), "proc.psinfo.rss",
                 "proc.psinfo.utime", "kernel.all.load"]
        for extra in (["-1"], ["-1", "-o", "csv"], ["-1", "-u", "-o", "csv"], ["-1", "-J", "3"],
                      ["-1", "-g", "-p"], ["-1", "-E", "2", "-o", "csv"], ["-4", "update", "-u"],
                      ["-1", "-8", "100000", "-u"], ["-1", "-k", "-o", "csv", "-H"]):
            self.same(c + procs + extra)
        out = self.same(c + procs + ["-1", "-u", "-o", "csv"])
        self.assertGreater(out.count("Time,"), 2)  # the instances changed
        out = self.same(c + procs + ["-1", "-x", "-g"])
        self.assertIn(" instances present in archive)", out)
        linux = ["-a", self.linux, "disk.dev.read", "network.interface.in.bytes", "hinv.ncpu"]
        for extra in (["-1", "-t", "0.7"], ["-1", "-w", "6"], ["-1", "-U", "--no-inst-info"]):
            self.same(c + linux + extra)
        conf = self.conf_file("dyn.conf", "[dyn]\nnames_change = 2\nproc.psinfo.rss = r,,,,\n")
        self.same(["-c", conf, "-s", "8", "-a", os.path.join(PCPQA, "20201109-b"), ":dyn", "-u"])

    def test_overall_rank_as_pmrep(self):
        # -2 and -3 (overall_rank, overall_rank_alt): no rows, at the end
        # each metric's |-J| best instances over the whole replay (one of
        # a metric without instances, none of strings), ties as pmrep
        # keeps them; pmrep's errors without -J and in CSV.
        c = ["-c", self.conf_file("empty_o.conf", ""), "-5"]
        metrics = ["disk.dev.read", "kernel.all.load", "proc.psinfo.rss", "hinv.ncpu",
                   "kernel.uname.release", "network.interface.in.bytes"]
        for archive in (os.path.join(PCPQA, "20201109-b"), self.linux):
            chosen = metrics if archive != self.linux else metrics[:1] + metrics[3:]
            for extra in (["-2", "-J", "3"], ["-3", "-J", "3"], ["-2", "-J", "-2", "-u"],
                          ["-3", "-J", "-1", "-r"], ["-2", "-J", "2", "-t", "3", "-s", "9"],
                          ["-2", "-J", "4", "-l", "|", "-8", "10"]):
                out = self.same(c + ["-a", archive] + chosen + extra)
                if archive != self.linux:  # PCP QA's: its values known
                    self.assertIn("proc.psinfo.rss", out)
        conf = self.conf_file("orank.conf", "[orank]\noverall_rank_alt = yes\nrank = 2\n"
                                            "proc.psinfo.rss = r,,,,\n")
        self.same(["-c", conf, "-a", os.path.join(PCPQA, "20201109-b"), ":orank"])
        self.assertIn("  archive: ", self.same(["-c", conf, "-a", os.path.join(PCPQA, "20201109-b"),
                                                ":orank", "-x"]))
        for extra in (["-2"], ["-2", "-J", "1", "-o", "csv"]):
            p, q = self.both(c + ["-a", self.linux, "disk.dev.read"] + extra)
            self.assertEqual((p.returncode, q.returncode), (1, 1))
            self.assertIn(p.stderr.strip(), q.stderr)

    def test_live_filter_as_pmrep(self):
        # -j (live_filter): every instance a column, each row's values of
        # the instances whose name the patterns match then (a process by
        # its command's base name too); -n: that filter after the ranking.
        c = ["-c", self.conf_file("empty_j.conf", ""), "-5", "-s", "6",
             "-a", os.path.join(PCPQA, "20201109-b"), "disk.dev.read", "proc.psinfo.rss"]
        for extra in (["-j"], ["-j", "-i", "sd.*"], ["-j", "-i", "pmproxy,firefox,kthreadd"],
                      ["-j", "-i", "firefox", "-1", "-u", "-o", "csv"], ["-j", "-i", ".*fox.*"],
                      ["-j", "-n", "-i", "bash,firefox", "-J", "2", "-o", "csv"],
                      ["-j", "-i", "firefox", "-J", "1", "-u"]):
            self.same(c + extra)
        out = self.same(c + ["-j", "-i", "firefox", "-1", "-u", "-o", "csv"])
        self.assertIn("/firefox", out)
        self.assertNotIn("pmproxy", out)
        conf = self.conf_file("live.conf", "[live]\nlive_filter = yes\n"
                                           "proc.psinfo.rss = r,firefox,,,\n")
        self.same(["-c", conf, "-s", "4", "-a", os.path.join(PCPQA, "20201109-b"), ":live"])

    def test_sort_metric_as_pmrep(self):
        # -6 (sort_metric) with -X: each row's instances by the sort
        # metrics' values (-METRIC: lowest first), the others after them
        # in the order of the row before; pmrep's two errors.
        c = ["-c", self.conf_file("empty_6.conf", ""), "-s", "8", "-X", "inst",
             "-a", os.path.join(PCPQA, "20201109-b"), "disk.dev.read", "proc.psinfo.rss",
             "mem.util.free"]
        plain = self.same(c)
        for sort in ("proc.psinfo.rss", "-proc.psinfo.rss", "disk.dev.read,-proc.psinfo.rss"):
            out = self.same(c + ["-6", sort])
            self.assertNotEqual(out, plain)
        self.same(c + ["-6", "proc.psinfo.rss", "-J", "3", "-u"])
        for bad in ("mem.util.free", "no.such.metric"):
            p, q = self.both(c + ["-6", bad])
            self.assertEqual((p.returncode, q.returncode), (1, 1))
            self.assertIn(p.stderr.strip(), q.stderr)

    def test_finish_with_samples_spreads_rows_as_pmrep(self):
        # -T with -s: pmrep's interval is the window's seconds between two
        # timevals as doubles, divided, read back as a timeval (20201109-b
        # starts at 22:00:04.333004: -T +1.1 -s 2 ends at .433003, where
        # the exact division gave .433004).
        c = ["-c", self.conf_file("empty_t.conf", ""), "-a", os.path.join(PCPQA, "20201109-b"),
             "-o", "csv", "-f", "%H:%M:%S.%f", "hinv.ncpu"]
        for window in (["-T", "+1.1", "-s", "2"], ["-T", "+5.3", "-s", "3"],
                       ["-T", "+33.3", "-s", "7"], ["-S", "+2", "-T", "+10.1", "-s", "4"]):
            self.same(c + window)

    def test_options_only_pmrep_has_ask_for_its_report(self):
        # -k, -J, -N and -E with plain metric names (no :SET, no -c):
        # pmrep's report, not replay's own CSV or table.
        for flag in (["-k", "-o", "csv"], ["-J", "1"], ["-N", "disk.dev.read", "-o", "csv"],
                     ["-E", "2"]):
            self.same(["-a", self.linux, "-s", "4", "disk.dev.read", "kernel.all.load"] + flag)

    def test_rank_and_predicate_as_pmrep(self):
        # -J over instances with equal values (zero counts, CPUs alike):
        # pmrep keeps the fetchgroup's first, by instance number, at the
        # records and on a grid; strings ranked as text. (PCP QA's proc
        # archives by hand: tests/pcp/names_corpus.py --extra="-J 2".)
        c = ["-c", self.conf_file("empty_rank.conf", ""), "-a", self.linux]
        for extra in (["-J", "3"], ["-J", "-2", "-u"], ["-J", "4", "-r"], ["-J", "1", "-t", "0.7"]):
            for output in ([], ["-o", "csv"]):
                self.same(c + ["-s", "8", "network.interface.in.errors", "network.interface.out.bytes",
                               "kernel.percpu.cpu.user", "filesys.mountdir", "network.interface.mtu"]
                          + extra + output)
                # -N: the other metrics of the predicate's instance domain
                # show the instances it keeps; a predicate not named is
                # shown too; the limit filters it after ranking.
                for predicate in (["-N", "network.interface.out.bytes"],
                                  ["-N", "network.interface.in.bytes,kernel.percpu.cpu.sys"],
                                  ["-N", "network.interface.out.bytes", "-8", "100"]):
                    self.same(c + ["-s", "8", "network.interface.in.errors", "network.interface.mtu",
                                   "kernel.percpu.cpu.user", "network.interface.out.bytes"]
                              + extra + predicate + output)
        for bad, why in ((["-N", "network.interface.mtu,hinv.ncpu"], "must have instances"),
                         (["-N", "filesys.mountdir"], "must be numeric"),
                         (["-N", "no.such.metric"], "Invalid metric no.such.metric")):
            p, q = self.both(c + ["-J", "2", "network.interface.mtu", "filesys.mountdir"] + bad)
            self.assertEqual((p.returncode, q.returncode), (1, 1), p.stderr + q.stderr)
            self.assertIn(why, p.stderr)
            self.assertIn(why, q.stderr)

    def test_metric_names_as_pmrep_walks_them(self):
        # Subtrees listed in libpcp's walk of the namespace (later branches
        # first); a PMID under several names found by any, shown once; a
        # subtree holding global derived metrics and archive ones shows
        # both, and one whose derived metric lacks its operands is refused
        # by both; 2^64 - 1 printed whole where no units text is given, through a
        # double where one is; two records at the archive's
        # first time both seen by the first grid row.
        empty = os.path.join(self.root, "empty.conf")
        open(empty, "w").close()
        cases = [
            ("live/ml3", ["mmv"]), ("live/pl3", ["mmv"]), ("live/ml3", ["mmv.app.queue", "mmv"]),
            ("pcpqa/gap2", ["sample.bin"]), ("pcpqa/gap2", ["sample.dupnames"]),
            ("pcpqa/gap2", ["sample.dupnames.two.bin", "sample.bin"]), ("pcpqa/gap2", ["sample"]),
            ("pcpqa/gap2", ["-e", "x=sample.dupnames.three.bin * 2", "x", "sample.bin"]),
            ("pcpqa/20190628.06.31", ["kernel"]), ("pcpqa/20190628.06.31", ["network"]),
            ("pcpqa/pcp-zeroconf", ["kernel.all"]), ("pcpqa/pcp-zeroconf", ["kernel.all", "-t", "7"]),
            ("pcpqa/gap2", ["event", "sample.bin"]),  # libpcp's own event.flags, event.missed
            # Instances that come and go, named as the fetchgroup names them
            # (its cache, looked up a step ahead): a value libpcp gives but
            # pmrep leaves out; -s given twice, the last one wins.
            ("pcpqa/kenj-pc-2", ["sample.mirage", "-t", "7", "-s", "80"]),
            ("pcpqa/kenj-pc-2", ["sample.mirage", "-s", "80"]),
            ("pcpqa/20201109-b", ["proc.psinfo", "-t", "3", "-s", "60"]),
            # At the records: a set that is a PCP error blanks a DISCRETE
            # metric's kept value; a record with values of instances the
            # metadata does not name clears them too.
            ("pcpqa/20190628.06.31", ["mmv", "-u"]), ("pcpqa/pcp-zeroconf", ["pmcd.pmlogger", "-u"]),
            # Singular values stored under instance 0 (1996): interpolated
            # as any, at the records none (pmrep's fetchgroup asks for
            # PM_IN_NULL).
            ("pcpqa/960624.08.17_v2", ["swap"]), ("pcpqa/960624.08.17_v2", ["swap", "-u"]),
        ]
        for archive, args in cases:
            a = ["-c", empty, "-a", os.path.join(RUNFILES, "tests/testdata", archive), "-s", "20"]
            out = self.same(a + ["-o", "csv"] + args)
            self.assertGreater(len(out.splitlines()), 2, (archive, args))
        self.assertIn(",18446744073709551615", self.same(
            ["-c", empty, "-a", os.path.join(PCPQA, "20190628.06.31"), "-s", "3", "-o", "csv",
             "network.tcp.maxconn"]))
        # ... but a value with units text ("count"), even the metric's own,
        # goes through a double in the fetchgroup: a U64 counter above 2^53
        # interpolated raw is rounded (17550599514833967744 exactly).
        self.assertIn(",17550599514833967104\n", self.same(
            ["-c", empty, "-a", os.path.join(RUNFILES, "tests/testdata/pcpqa/bozo.client_v2"),
             "-s", "8", "-r", "-o", "csv", "disk.all.total"]))
        for archive, args in [("pcpqa/20190628.06.31", ["disk"]), ("pcpqa/pcp-zeroconf", ["disk"]),
                              ("pcpqa/20201109-b", ["proc"])]:
            p, q = self.both(["-c", empty, "-a", os.path.join(RUNFILES, "tests/testdata", archive),
                              "-s", "3", "-o", "csv"] + args)
            self.assertNotEqual(p.returncode, 0)
            self.assertNotEqual(q.returncode, 0)
            self.assertIn("PM_ERR_BADDERIVE", p.stderr)
            self.assertIn("PM_ERR_BADDERIVE", q.stderr)

    def test_with_archives_given_every_argument_is_a_metric(self):
        # A file or directory in the working directory named as the metric
        # (an "mmv" directory, PCP QA's "pmproxy" archive) is not taken for
        # an archive once -a names them, as pmrep does not.
        cwd = os.path.join(self.root, "cwd_named")
        os.makedirs(os.path.join(cwd, "network.tcp.maxconn"), exist_ok=True)
        empty = os.path.join(self.root, "empty.conf")
        open(empty, "w").close()
        out = self.same(["-c", empty, "-a", os.path.join(PCPQA, "20190628.06.31"), "-s", "3",
                         "-o", "csv", "network.tcp.maxconn"], cwd=cwd)
        self.assertIn("network.tcp.maxconn", out)

    def test_configuration_found_as_pmrep_finds_it(self):
        home = os.path.join(self.root, "home")
        cwd = os.path.join(self.root, "cwd")
        os.makedirs(os.path.join(home, ".pcp"), exist_ok=True)
        os.makedirs(cwd, exist_ok=True)
        with open(os.path.join(home, ".pcp", "pmrep.conf"), "w") as f:
            f.write("[mine]\nmmv.app.queue = q,,,,\nmmv.app.latency = l,,ms,,,1\n")
        archive = os.path.join(LIVE, "ml3")
        out = self.same(["-a", archive, ":mine", "-o", "csv"], cwd=cwd, env={"HOME": home})
        self.assertIn('"mmv.app.queue-a"', out)
        # ./pmrep.conf comes first.
        with open(os.path.join(cwd, "pmrep.conf"), "w") as f:
            f.write("[mine]\nmmv.app.requests = r,,,,\n")
        out = self.same(["-a", archive, ":mine", "-o", "csv"], cwd=cwd, env={"HOME": home})
        self.assertIn('"mmv.app.requests-a"', out)
        self.assertNotIn("queue", out)
        # -c DIRECTORY: its *.conf files in name order, a later set wins.
        d = os.path.join(self.root, "confdir")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "a.conf"), "w") as f:
            f.write("[s]\nmmv.app.queue = q,,,,\n[t]\nmmv.app.state = s,,,,\n")
        with open(os.path.join(d, "b.conf"), "w") as f:
            f.write("[s]\nmmv.app.latency = l,,,,\n")
        with open(os.path.join(d, "ignored.txt"), "w") as f:
            f.write("[s]\nmmv.app.phase = p\n")
        out = self.same(["-c", d, "-a", archive, ":s", ":t", "-o", "csv"])
        self.assertIn("latency", out)
        self.assertIn("state", out)
        self.assertNotIn("phase", out)

    def test_global_metrics(self):
        # [global]'s metrics come first in every set, unless the set says
        # globals = no; two sets named together.
        conf = os.path.join(self.root, "global.conf")
        with open(conf, "w") as f:
            f.write("[global]\nmmv.app.state = st,,,,\n\n[withg]\nmmv.app.latency = l,,,,\n\n"
                    "[nog]\nglobals = no\nmmv.app.latency = l,,,,\n")
        archive = os.path.join(LIVE, "ml3")
        self.assertIn('"mmv.app.state"', self.same(["-c", conf, "-a", archive, ":withg", "-o", "csv"]))
        self.assertNotIn("state", self.same(["-c", conf, "-a", archive, ":nog", "-o", "csv"]))
        self.same(["-c", conf, "-a", archive, ":withg", ":nog", "-o", "csv"])

    def test_missing_set(self):
        p, q = self.both(["-a", os.path.join(LIVE, "ml3"), ":no-such-set", "-o", "csv"])
        self.assertNotEqual(p.returncode, 0)
        self.assertNotEqual(q.returncode, 0)
        self.assertIn("Metricset definition ':no-such-set' not found", q.stderr)
        self.assertIn("Metricset definition ':no-such-set' not found", p.stderr)

    def test_interpolation_rule(self):
        # Instants between samples: the prior sample's (PCP before 6.3.2) or
        # the nearer one's (6.3.2 and later), beside pmval of each version.
        archive = os.path.join(LIVE, "ml3")
        args = ["-a", archive, "-t", "0.3", "-S", "0.2"]

        def pmval_values(text):
            return [float(line.split()[1]) if len(line.split()) == 2 else None
                    for line in text.splitlines() if line[:2].isdigit()]

        def ours(*extra):
            q = subprocess.run([MMVLOG, "replay", "-o", "csv"] + list(extra) + args +
                               ["mmv.app.latency"], capture_output=True, text=True, env=self.env)
            self.assertEqual(q.returncode, 0, q.stderr)
            return [float(line.split(",")[1]) if line.split(",")[1] else None
                    for line in q.stdout.splitlines()[1:]]

        p6 = subprocess.run(["pmval"] + args + ["mmv.app.latency"], capture_output=True,
                            text=True, env=self.env)
        self.assertEqual(p6.returncode, 0, p6.stderr)
        prior = pmval_values(p6.stdout)
        self.assertEqual(ours("--interpolation=prior")[:len(prior)], prior)
        if not pcp7.missing():
            p7 = pcp7.run([pcp7.tool("pmval")] + args + ["mmv.app.latency"])
            self.assertEqual(p7.returncode, 0, p7.stderr)
            nearest = pmval_values(p7.stdout)
            self.assertNotEqual(prior, nearest, "the two rules should differ here")
            self.assertEqual(ours("--interpolation=nearest")[:len(nearest)], nearest)
            # auto: as the PCP that $PCP_CONF names.
            q = subprocess.run([MMVLOG, "replay", "-o", "csv"] + args + ["mmv.app.latency"],
                               capture_output=True, text=True,
                               env=dict(self.env, PCP_CONF=os.path.join(pcp7.PREFIX, "etc",
                                                                        "pcp.conf")))
            self.assertEqual(q.stdout.splitlines()[1:], subprocess.run(
                [MMVLOG, "replay", "-o", "csv", "--interpolation=nearest"] + args +
                ["mmv.app.latency"], capture_output=True, text=True,
                env=self.env).stdout.splitlines()[1:])
        with open("/etc/pcp.conf") as f:
            version = next((l.split("=")[1].strip() for l in f if l.startswith("PCP_VERSION=")),
                           "")
        before = tuple(int(x) for x in version.split(".")) < (6, 3, 2)
        self.assertEqual(ours(), ours("--interpolation=" + ("prior" if before else "nearest")))

if __name__ == "__main__":
    unittest.main()
