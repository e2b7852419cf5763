"""Random derived expressions beside pmrep 6.0.3's -e, byte for byte.

Each expression (derive_desc_test.generate over the archive's own metrics:
arithmetic, comparisons, ?:, delta(), rate(), instant(), the aggregates,
defined(), matchinst(), x[instance], scalar(), mkconst(), rescale(),
novalue(), constants) is shown by `pmrep -a ARCHIVE -c EMPTY -o csv -e
x.e=EXPR x.e` and by `mmvlog replay` with the same arguments (an empty -c
asks for pmrep's CSV), on pmrep's default grid, on a 7 s grid and raw (-r).
Where pmrep reports, the same bytes; where it refuses, mmvlog may take the
expression (PCP 7.2's language takes more than 6.0.3's: rate() of an
expression, ?: over branches of different types or semantics) or refuse
it. Left out, as libpcp gives uninitialised memory for them: min() and
max() (over no value) and ! (of a 64-bit or real value).

This corpus found: binary operators over U64 values passing 2^64 (long
double rounded them), rate() of a U32 instant that went down (libpcp
wraps the difference in 32 bits), delta() of a U64 (libpcp subtracts the
two as doubles), a derived metric naming a string metric (its strings),
count() of a string metric, a dimensionless counter shown raw (pmrep's
fetchgroup rates it all the same), and counters interpolated across their
wraps (kenj-pc-2's sample.wrap.*: x86-64's conversions of out-of-range
doubles, U64s held in int64_t).
"""

import os
import random
import re
import shutil
import subprocess
import unittest

import pcp7
from derive_desc_test import generate, metrics

RUNFILES = os.path.join(os.environ["TEST_SRCDIR"], "mmvlog")
MMVLOG = os.path.join(RUNFILES, "cmd/mmvlog")
LIVE = os.path.join(RUNFILES, "tests/testdata/live")
PCPQA = os.path.join(RUNFILES, "tests/testdata/pcpqa")
PMREP = shutil.which("pmrep", path="/usr/bin") or "/usr/bin/pmrep"
UNKNOWABLE = re.compile(r"\b(min|max)\(|!(?!=)")


class PmrepExprCorpusTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        if not os.path.exists(PMREP):
            raise unittest.SkipTest("pmrep (pcp) is not installed")
        pcp7.require()  # the generator reads the archives' metrics with pminfo
        cls.root = os.environ.get("TEST_TMPDIR", "/tmp")
        cls.empty = os.path.join(cls.root, "empty.conf")
        open(cls.empty, "w").close()
        cls.env = dict(os.environ, PATH="/usr/bin:" + os.environ.get("PATH", ""), TZ="UTC",
                       PCP_DERIVED_CONFIG="")

    def both(self, base, args):
        """pmrep's and mmvlog replay's runs of `args` on archive `base`
        (pmrep's CSV, no configuration)."""
        args = ["-a", base, "-c", self.empty, "-o", "csv"] + args
        p = subprocess.run([PMREP] + args, capture_output=True, text=True, env=self.env,
                           timeout=300)
        q = subprocess.run([MMVLOG, "replay"] + args, capture_output=True, text=True,
                           env=self.env, timeout=300)
        return p, q

    def same(self, base, args):
        """pmrep's output of `args`, which mmvlog's must equal."""
        p, q = self.both(base, args)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(q.returncode, 0, q.stderr)
        self.assertEqual(q.stdout, p.stdout, " ".join(args))
        return p.stdout

    def corpus(self, base, seed, count, minimum):
        exprs = [e for e in generate(random.Random(seed), metrics(base), count)
                 if not UNKNOWABLE.search(e)]
        equal, refused = 0, 0
        for e in exprs:
            for extra in ([], ["-t", "7"], ["-r"]):
                p, q = self.both(base, ["-s", "40", "-e", "x.e=" + e, "x.e"] + extra)
                if p.returncode != 0:
                    refused += 1
                    break
                self.assertEqual(q.returncode, 0, "%s %s: pmrep reports, mmvlog: %s" % (
                    e, extra, q.stderr[-300:]))
                if q.stdout != p.stdout:
                    diff = [(a, b) for a, b in zip(q.stdout.splitlines(), p.stdout.splitlines())
                            if a != b]
                    self.fail("%s %s on %s: first difference:\nmmvlog %s\npmrep  %s" % (
                        e, extra, os.path.basename(base), diff[0][0][:300] if diff else "(length)",
                        diff[0][1][:300] if diff else ""))
                equal += 1
        print("%s: %d expressions, %d outputs equal, %d refused by pmrep 6.0.3" % (
            os.path.basename(base), len(exprs), equal, refused))
        self.assertGreaterEqual(equal, minimum)

    def test_mmv_recordings(self):
        # mmvlog's recording of a libpcp_mmv writer, and pmlogger's of it.
        self.corpus(os.path.join(LIVE, "ml3"), 21, 60, 90)
        self.corpus(os.path.join(LIVE, "pl3"), 22, 40, 60)

    def test_pcpqa_linux_host(self):
        self.corpus(os.path.join(PCPQA, "20190628.06.31"), 24, 60, 75)

    def test_counters_across_their_wraps(self):
        # pmda sample's counters that wrap every few samples: interpolated
        # across a wrap as libpcp computes it on x86-64 (a 32-bit counter's
        # out-of-range double converts to -2^31; U64s held in int64_t), as
        # raw values and as rates, plain and as derived metrics.
        base = os.path.join(PCPQA, "kenj-pc-2")
        for m in ("sample.wrap.long", "sample.wrap.ulong", "sample.wrap.longlong",
                  "sample.wrap.ulonglong"):
            for named in ([m], ["-e", "x.e=" + m, "x.e"]):
                for extra in ([], ["-t", "7"], ["-t", "0.3"], ["-r"]):
                    self.same(base, ["-s", "80"] + named + extra)

    def test_float_sums_in_libpcp_order(self):
        # avg() sums in float, so its last bits follow the order libpcp
        # lists the instances in: at a record the record's (snort-disks
        # lists them unsorted), on a grid the interpolated result's (a hash
        # of the instance domain's instances, walked bucket by bucket).
        base = os.path.join(PCPQA, "snort-disks")
        for extra in ([], ["-t", "7"], ["-r"], ["-u"], ["-u", "-r"]):
            out = self.same(base, ["-s", "40", "-e", "x.e=avg(disk.dev.write_bytes)", "x.e"] + extra)
            self.assertGreater(len(out.splitlines()), 3)

    def test_scalar_of_a_string(self):
        # scalar() and instant() of a string metric pass its values through
        # (scalar() its first), as a string metric named alone does.
        for base in ("20190628.06.31", "gap2", "ok-noti-interp"):
            for expr in ("scalar(pmcd.pmlogger.host)", "instant(pmcd.pmlogger.host)",
                         "scalar(instant(pmcd.pmlogger.host))"):
                for extra in ([], ["-u"]):
                    out = self.same(os.path.join(PCPQA, base),
                                    ["-s", "4", "-e", "x.e=" + expr, "x.e"] + extra)
                    self.assertIn('"', out.splitlines()[1])  # a string shown

    def test_aggregates_read_values_of_unnamed_instances(self):
        # The same record holds pmcd.pmlogger.* of two pmlogger instances no
        # indom record names: libpcp's count(), sum(), scalar(), avg() and
        # max() read them (pmrep shows count 2 there), in the record's order.
        for expr in ("count(pmcd.pmlogger.port)", "sum(pmcd.pmlogger.port)",
                     "scalar(pmcd.pmlogger.port)", "avg(pmcd.pmlogger.port)",
                     "max(pmcd.pmlogger.port)", "scalar(pmcd.pmlogger.host)",
                     "count(pmcd.pmlogger.port) + count(pmcd.pmlogger.host)"):
            for extra in (["-u"], ["-u", "-r"], []):
                out = self.same(os.path.join(PCPQA, "pcp-zeroconf"),
                                ["-s", "6", "-e", "x.e=" + expr, "x.e"] + extra)
                if extra:
                    self.assertNotRegex(out.splitlines()[2], ",$", expr)  # a value there

    def test_values_only_of_unnamed_instances(self):
        # pcp-zeroconf's second record at its first time holds
        # pmcd.pmlogger.archive for two instances no indom record names: a
        # derived metric naming it has values there in libpcp (none shown),
        # so pmrep shows nothing, not the discrete metric's last value.
        out = self.same(os.path.join(PCPQA, "pcp-zeroconf"),
                        ["-s", "6", "-u", "-e", "x.e=pmcd.pmlogger.archive", "x.e"])
        self.assertTrue(out.splitlines()[2].endswith(","), out)

    def test_singular_values_stored_under_an_instance(self):
        # babylon.percpu_v2 (1995) stores singular metrics' values under
        # instance 0: pmrep leaves them out at the records, and so a derived
        # metric that keeps that instance (a name, rate(), delta(), -x, and
        # x + y, 1 * x: libpcp takes the right operand's), but shows those
        # that libpcp computes anew (x * 1, rate(x) + 0, count()).
        base = os.path.join(PCPQA, "babylon.percpu_v2")
        shown = 0
        for e in ("kernel.all.cpu.sys", "rate(kernel.all.cpu.sys)", "-rate(kernel.all.cpu.sys)",
                  "kernel.all.cpu.sys + kernel.all.cpu.user", "1 * kernel.all.cpu.sys",
                  "rate(kernel.all.cpu.sys) + 0", "kernel.all.cpu.sys * 1",
                  "count(kernel.all.cpu.sys)", "avg(kernel.all.cpu.sys)"):
            for extra in (["-u"], ["-u", "-r"], []):
                out = self.same(base, ["-s", "5", "-e", "x.e=" + e, "x.e"] + extra)
                shown += "-u" in extra and not out.splitlines()[2].endswith(",")
        self.assertEqual(shown, 8)  # the last four forms, at -u and -u -r

    def test_ternary_binds_as_the_installed_pcp(self):
        # From PCP 6.2.2 a ?: whose guard is fixed binds and reads only the
        # branch it takes; before (Debian's 6.0.3 here), both, and no value
        # when either has none: replay follows the installed PCP.
        base = os.path.join(PCPQA, "fcsw_indom")
        e = "x.e=1 ? fcsw.port.bytes_in : fcsw.port.bytes_in[i1]"
        for extra in ([], ["-u"], ["-r"]):
            out = self.same(base, ["-s", "8", "-e", e, "x.e"] + extra)
            self.assertFalse(any(c.strip(",") for c in [l.split(",", 1)[1]
                                                       for l in out.splitlines()[1:]]), out)
        p, q = self.both(base, ["-s", "8", "-e", "x.e=defined(no.such) ? no.such : "
                                "fcsw.port.bytes_in", "x.e"])
        self.assertNotEqual(p.returncode, 0)
        self.assertNotEqual(q.returncode, 0)
        later = subprocess.run([MMVLOG, "replay", "-a", base, "-s", "8", "-u", "--raw", "--csv",
                                "-e", e, "x.e"], capture_output=True, text=True,
                               env=dict(self.env, PCP_CONF=pcp7.env()["PCP_CONF"]), timeout=300)
        self.assertEqual(later.returncode, 0, later.stderr)
        self.assertIn(",1404837156,", later.stdout)  # 7.2's rule: the true branch's values

    def test_extra_units_as_the_installed_pcp(self):
        # PCP 7.2's extra units (voltage, current, power): before 7.2 those
        # bits meant nothing, so Debian's 6.0.3 takes `volt + 1` and a
        # comparison of milliamps with volts; 7.2 refuses both ("Dimensions
        # are not the same"). Replay follows the installed PCP.
        base = pcp7.runfile("tests/testdata/extra")
        exprs = ("sample.voltage.volt + 1", "(sample.current.milliamp * 794) > sample.voltage.volt",
                 "sample.voltage.volt * 2", "sample.power.watt - sample.voltage.volt")
        for e in exprs:
            for extra in ([], ["-u"], ["-r"]):
                out = self.same(base, ["-s", "4", "-e", "x.e=" + e, "x.e"] + extra)
                self.assertRegex(out.splitlines()[-1], r",\S", e)  # a value
        later = subprocess.run([MMVLOG, "replay", "-a", base, "-s", "4", "--csv",
                                "-e", "x.e=sample.voltage.volt + 1", "x.e"], capture_output=True,
                               text=True, env=dict(self.env, PCP_CONF=pcp7.env()["PCP_CONF"]),
                               timeout=300)
        self.assertNotEqual(later.returncode, 0)
        self.assertIn("Dimensions are not the same", later.stderr)

    def test_an_infinite_float_as_pmrep_prints_it(self):
        # value-test's sample.float.one holds +inf at one record: pmrep
        # prints "inf" (a FLOAT metric's value reaches it unchecked).
        base = os.path.join(PCPQA, "value-test")
        for extra in (["-o", "csv"], []):
            p = subprocess.run([PMREP, "-a", base, "-c", self.empty, "sample.float.one"] + extra,
                               capture_output=True, text=True, env=self.env, timeout=300)
            q = subprocess.run([MMVLOG, "replay", "-a", base, "-c", self.empty,
                                "sample.float.one"] + extra,
                               capture_output=True, text=True, env=self.env, timeout=300)
            self.assertEqual(q.stdout, p.stdout)
            self.assertIn("inf", q.stdout)

    def test_a_failed_operand_fails_the_expression(self):
        # 20190628.06.31's swap.in is a PCP error at every record ("Metric
        # not supported by this version of monitored application"): at the
        # records libpcp evaluates no more of an expression naming it and
        # the derived metric has no value (derive_fetch.c's eval_expr), but
        # count() of it is 0. On a grid the error is no value (sum() 0).
        base = os.path.join(PCPQA, "20190628.06.31")
        for e in ("sum(swap.in)", "avg(swap.in)", "count(swap.in) + kernel.all.nprocs",
                  "sum(kernel.all.nprocs) * avg(swap.in)"):
            for extra in (["-u"], []):
                out = self.same(base, extra + ["-e", "x.e=" + e, "x.e"])
                values = [line.split(",")[1] for line in out.splitlines()[1:]]
                self.assertGreater(len(values), 4, e)
                if "count" in e:
                    self.assertTrue(all(values[1:]), e)
                elif extra:
                    self.assertFalse(any(values), e)

    def test_constants_only_step_through_every_record(self):
        # An expression of constants fetches no metric: libpcp's fetch of an
        # archive then returns its next record, whatever it holds, the
        # logger's prologue too. 541380_v2 has only that record; on an
        # archive of more, pmrep 6.0.3 (and libpcp 7.2's pmFetch) crash after
        # the first row, which is the prologue's.
        e = ["-e", "x.c=3 + 4", "-e", "x.k=mkconst(2, type=u32)", "x.c", "x.k"]
        for extra in (["-u"], []):
            out = self.same(os.path.join(PCPQA, "541380_v2"), extra + e)
            self.assertEqual(len(out.splitlines()), 2, out)
        base = os.path.join(PCPQA, "20190628.06.31")
        args = ["-u", "-f", "%H:%M:%S.%f"] + e
        p, q = self.both(base, args)
        self.assertEqual(q.returncode, 0, q.stderr)
        self.assertEqual(q.stdout.splitlines()[:2], p.stdout.splitlines()[:2])
        dump = subprocess.run(["/usr/bin/pmdumplog", "-z", base], capture_output=True,
                              text=True, env=self.env, timeout=300).stdout
        records = [line for line in dump.splitlines() if re.match(r"\d\d:\d\d:\d\d\.\d+ ", line)]
        self.assertEqual(len(q.stdout.splitlines()) - 1, len(records))

    def test_matchinst_sees_the_name_to_its_first_space(self):
        # libpcp matches matchinst()'s pattern against an instance's name up
        # to its first space: of 20201109-b's processes ("000031 (watchdog/5)")
        # /5/ keeps those whose number has a 5, whatever their command.
        base = os.path.join(PCPQA, "20201109-b")
        for e in ("matchinst(/5/, proc.memory.rss)", "matchinst(!/[a-z]/, proc.memory.rss)"):
            out = self.same(base, ["-u", "-e", "x.e=" + e, "x.e"])
            self.assertGreater(len(out.splitlines()), 1, e)

    def test_pcpqa_processes(self):
        self.corpus(os.path.join(PCPQA, "20201109-b"), 23, 50, 50)


if __name__ == "__main__":
    unittest.main()
