"""The command line as a user meets it: help, versions, usage errors.

- `mmvlog SUB --help` (and -h, `mmvlog help SUB`) lists SUB's own options in
  GNU spelling with their defaults, grouped, and nothing internal (no source
  paths, no hidden old spellings, no other subcommand's options).
- PCP's short options are there with PCP's meaning (pmlogger's for record and
  capture, pmval's and pmrep's for replay).
- Usage errors exit 2 with one line on stderr naming the option and the
  value (and the nearest valid option), and create nothing on disk;
  failures at run time exit 1.
- The old underscore spellings still work (hidden aliases).
"""

import os
import re
import unittest

import cmdtest
from cmdtest import MMVLOG, describe, lines

SUBCOMMANDS = ["record", "capture", "replay", "check", "inspect", "push", "demo"]

# Options each subcommand must offer, with the default its help must show
# (None: no default shown; a text: how the shown default begins). PCP's short
# options first.
EXPECTED = {
    "record": {"-t": "1sec", "-s": None, "-T": None, "-v": None, "-l": None, "-V": "3",
               "-m": None, "-c": None, "-C": None, "-U": None, "-H": "this host's", "-p": None,
               "--archive-dir": "$PCP_LOG_DIR/mmvlog/HOST", "--archive-name": "%Y%m%d.%H.%M",
               "--period": "1day", "--mmv-dir": "$PCP_TMP_DIR/mmv", "--include": None, "--exclude": None,
               "--compress": None, "--compress-level": None, "--retain-age": None,
               "--retain-size": None, "--pidfile": None, "--prefix": "mmv",
               "--local": None, "--spool": "--local's directory", "--spool-size": "64MB",
               "--unix": None, "--user": None, "--credentials": None, "--ca-file": None,
               "--cert-file": None, "--key-file": None, "--insecure": None,
               "--allow-plaintext-auth": None},
    "capture": {"-t": "1sec", "-s": None, "-T": None, "-v": None, "-l": None, "-V": "3",
                "-m": None, "-c": None, "-U": None, "-o": None, "--mmv-dir": "$PCP_TMP_DIR/mmv",
                "--no-dir": None},
    "replay": {"-a": None, "-t": "the recorded samples", "-s": None, "-S": None, "-T": None, "-O": None,
               "-A": None, "-z": None, "-Z": None, "-r": None, "-i": None, "-o": None,
               "--plot": None, "--follow": None, "--to-mmv": None, "--speed": "1"},
    "check": {"--repair": None},
    "inspect": {"--json": None},
    "push": {"-h": "localhost", "-p": "44322", "-s": None, "--tls": None, "--user": None,
             "--credentials": None, "--ca-file": None, "--cert-file": None, "--key-file": None,
             "--insecure": None, "--allow-plaintext-auth": None,
             "--spool": "$PCP_TMP_DIR/mmvlog-push", "--restart": None, "-v": None},
    "demo": {"--dir": "a new /tmp/mmvlog-demo-XXXXXX", "--steps": "12"},
}

# Long names of the PCP options: pmlogger(1), pmval(1), pmrep(1).
PCP_LONG = {
    "record": {"-t": "--interval", "-s": "--size", "-T": "--finish", "-v": "--volsize",
               "-l": "--log", "-V": "--archive-version", "-m": "--note", "-c": "--config",
               "-U": "--username", "-H": "--labelhost", "-p": "--PID"},
    "push": {"-h": "--host", "-p": "--port", "-s": "--unix", "-v": "--verbose"},
    "replay": {"-a": "--archive", "-t": "--interval", "-s": "--samples", "-S": "--start",
               "-T": "--finish", "-O": "--origin", "-A": "--align", "-z": "--hostzone",
               "-Z": "--timezone", "-i": "--instances", "-o": "--output", "-r": "--raw"},
}

OPTION_LINE = re.compile(r"^  (?:(-\w), )?(?:    )?(--[\w-]+)(?:, (--[\w-]+))?(?:=(\S+))?(?:\s+(.*))?$")


def help_options(text):
    """{name: (short, long, type, description)} of the options a --help lists,
    keyed by both names."""
    out = {}
    current = None
    for line in text.split("\n"):
        m = OPTION_LINE.match(line)
        if m:
            short, long, negated, typ, desc = m.groups()
            current = [short, long, typ, desc or ""]
            for name in (short, long, negated):
                if name:
                    out[name] = current
        elif current is not None and line.startswith(" " * 20) and line.strip():
            current[3] += " " + line.strip()
        else:
            current = None
    return out


def default_of(desc):
    m = re.search(r"\(default: ([^)]*)\)$", desc)
    return m.group(1) if m else None


class HelpTest(unittest.TestCase):

    def help(self, sub):
        p = cmdtest.run([MMVLOG, sub, "--help"])
        self.assertEqual(p.returncode, 0, describe(p))
        self.assertEqual(p.stderr, "")
        return p.stdout

    def test_each_subcommand_lists_its_options_with_defaults(self):
        for sub in SUBCOMMANDS:
            with self.subTest(subcommand=sub):
                text = self.help(sub)
                self.assertTrue(text.startswith("usage: mmvlog %s " % sub), text[:200])
                for bad in (".cc", "helpfull", "Flags from", "_dir", "archive_", "to_mmv"):
                    self.assertNotIn(bad, text)
                got = help_options(text)
                self.assertIn("--help", got)
                for name, default in EXPECTED[sub].items():
                    self.assertIn(name, got, "%s missing from `mmvlog %s --help`" % (name, sub))
                    shown = default_of(got[name][3])
                    if default is None or shown is None:
                        self.assertEqual(shown, default,
                                         "default of %s in `mmvlog %s --help`" % (name, sub))
                    else:
                        self.assertTrue(shown.startswith(default),
                                        "default of %s in `mmvlog %s --help`: %s" % (name, sub, shown))
                    self.assertTrue(got[name][3].strip(), "%s has no description" % name)
                for line in text.split("\n"):
                    self.assertLessEqual(len(line), 100, line)
                # The other spellings print the same (push's -h is pmlogpush's host).
                for args in ([sub, "-h"], ["help", sub]) if sub != "push" else (["help", sub],):
                    q = cmdtest.run([MMVLOG] + args)
                    self.assertEqual(q.returncode, 0, describe(q))
                    self.assertEqual(q.stdout, text, args)

    def test_pcp_long_names(self):
        for sub, table in PCP_LONG.items():
            got = help_options(self.help(sub))
            for short, long in table.items():
                self.assertIn(short, got, sub)
                self.assertEqual(got[short][1], long, "%s %s" % (sub, short))
        capture = help_options(self.help("capture"))
        for short, long in PCP_LONG["record"].items():
            self.assertEqual(capture[short][1], long, "capture %s" % short)

    def test_options_stay_with_their_subcommand(self):
        record = set(help_options(self.help("record")))
        replay = set(help_options(self.help("replay")))
        self.assertNotIn("--archive-dir", replay)
        self.assertNotIn("--plot", record)
        self.assertNotIn("-o", record)
        self.assertNotIn("--archive-dir", help_options(self.help("capture")))

    def test_version(self):
        p = cmdtest.run([MMVLOG, "--version"])
        self.assertEqual(p.returncode, 0, describe(p))
        self.assertRegex(p.stdout, r"^mmvlog version \d+\.\d+\.\d+\n$")

    def test_overview_lists_every_subcommand(self):
        p = cmdtest.run([MMVLOG, "--help"])
        self.assertEqual(p.returncode, 0, describe(p))
        listed = re.findall(r"^  (\w+)\s{2,}\S", p.stdout, re.M)
        self.assertEqual(listed, SUBCOMMANDS)
        # With no arguments: the same overview, on stderr, as a usage error.
        q = cmdtest.run([MMVLOG])
        self.assertEqual(q.returncode, 2, describe(q))
        self.assertEqual(q.stdout, "")
        self.assertEqual(q.stderr, p.stdout)

    def test_unknown_subcommand(self):
        for args in (["recrod"], ["recrod", "--help"], ["help", "recrod"]):
            with self.subTest(args=args):
                p = cmdtest.run([MMVLOG] + args)
                self.assertEqual(p.returncode, 2, describe(p))
                self.assertEqual(p.stdout, "")
                self.assertEqual(len(lines(p.stderr)), 1, describe(p))
                self.assertIn("unknown command 'recrod'; did you mean 'record'?", p.stderr)


class UsageErrorTest(unittest.TestCase):
    """Each usage error: exit 2, one line naming what is wrong, nothing
    created."""

    def setUp(self):
        self.root = cmdtest.fresh_dir("usage_%s" % self._testMethodName)
        self.mmv = cmdtest.MmvFiles(os.path.join(self.root, "pcp"))
        self.out = os.path.join(self.root, "out")

    def assert_usage_error(self, args, *needles, status=2, quiet_stdout=True):
        before = sorted(os.listdir(self.root))
        p = cmdtest.run([MMVLOG] + args, env=self.mmv.env, cwd=self.root)
        self.assertEqual(p.returncode, status, describe(p))
        if quiet_stdout:
            self.assertEqual(p.stdout, "", describe(p))
        self.assertEqual(len(lines(p.stderr)), 1, describe(p))
        for n in needles:
            self.assertIn(n, p.stderr)
        self.assertEqual(sorted(os.listdir(self.root)), before, "created something: %s" % args)
        self.assertFalse(os.path.exists(self.out))
        return p

    def test_unknown_option_names_the_nearest(self):
        self.assert_usage_error(["record", "--archive-dri", self.out],
                                "unknown option '--archive-dri'", "did you mean '--archive-dir'?")
        self.assert_usage_error(["capture", "--intervl=1sec", self.out],
                                "'--intervl'", "did you mean '--interval'?")
        self.assert_usage_error(["replay", "--strat", "@10:00", "-a", self.out],
                                "'--strat'", "did you mean '--start'?")
        p = self.assert_usage_error(["capture", "--frobnicate", self.out], "'--frobnicate'")
        self.assertNotIn("did you mean", p.stderr)

    def test_another_subcommands_option(self):
        self.assert_usage_error(["replay", "--archive-dir=/tmp", self.out], "'--archive-dir'")
        self.assert_usage_error(["record", "--plot", "x.svg"], "'--plot'")
        self.assert_usage_error(["capture", "--compress", self.out], "'--compress'")

    def test_bad_values_name_option_and_value(self):
        self.assert_usage_error(["capture", "-t", "10 parsecs", self.out], "-t", "10 parsecs")
        self.assert_usage_error(["record", "-t", "10 parsecs", "--archive-dir", self.out],
                                "-t", "10 parsecs")
        self.assert_usage_error(["capture", "-s", "lots", self.out], "-s", "lots")
        self.assert_usage_error(["capture", "-v", "0", self.out], "-v", "0")
        self.assert_usage_error(["capture", "-V", "4", self.out], "--archive-version", "4")
        self.assert_usage_error(["capture", "-T", "@25:99", self.out], "-T", "@25:99")
        self.assert_usage_error(["capture", "-T", "@2001-01-01 00:00", self.out], "-T",
                                "has passed")
        self.assert_usage_error(["record", "--retain-size", "lots", "--archive-dir", self.out],
                                "--retain-size", "lots")
        self.assert_usage_error(["capture", "-t"], "--interval needs a value")
        # Pushing (record's http:// archive, mmvlog push).
        self.assert_usage_error(["record", "http://pmproxy:99999"], "bad pmproxy URL",
                                "port is not 1..65535")
        self.assert_usage_error(["record", "http://pmproxy/logger"], "a path or query")
        self.assert_usage_error(["record", "--local", self.out, "--spool-size", "lots",
                                 "http://pmproxy"], "--spool-size", "lots")
        self.assert_usage_error(["record", "--compress", "http://pmproxy"],
                                "--compress and --retain-* need --local")
        self.assert_usage_error(["record", "--unix", "/run/pmproxy.sock", self.out],
                                "are for pushing: ARCHIVE is then http[s]://HOST[:PORT]")
        self.assert_usage_error(["record", "--ca-file", "/etc/ssl/ca.pem", self.out],
                                "are for pushing")
        self.assert_usage_error(["record", "--local", self.out, "--user", "u:p",
                                 "http://pmproxy"], "in clear", "--allow-plaintext-auth")
        self.assert_usage_error(["record", "--local", self.out, "--ca-file", "/nonexistent.pem",
                                 "https://pmproxy"], "--ca-file /nonexistent.pem")
        self.assert_usage_error(["record", "--local", self.out, "--insecure", "http://pmproxy"],
                                "are for https://")
        self.assert_usage_error(["push", "ftp://pmproxy", self.out], "http[s]://HOST[:PORT]")
        self.assert_usage_error(["record", "--local", self.out, "--user", "nopassword",
                                 "http://pmproxy"], "--user: USER:PASSWORD wanted")
        self.assert_usage_error(["push", "-p", "0", self.out], "--port", "0")

    def test_replay_window_errors(self):
        base = os.path.join(self.root, "a")
        p = cmdtest.run([MMVLOG, "capture", "-s", "3", "-t", "100msec", base], env=self.mmv.env)
        self.assertEqual(p.returncode, 0, describe(p))
        self.out = os.path.join(self.root, "never")
        # -T before -S: an empty window, as in pmval and pmrep: no row, a
        # warning, no error.
        p = cmdtest.run([MMVLOG, "replay", "-a", base, "-o", "csv", "-S", "+0.2sec", "-T", "-1hour"])
        self.assertEqual(p.returncode, 0, describe(p))
        self.assertEqual(len(lines(p.stdout)), 1, describe(p))  # the header alone
        self.assertIn("ends before it starts", p.stderr)
        self.assert_usage_error(["replay", "-a", base, "-S", "@10:75"], "-S", "@10:75")
        self.assert_usage_error(["replay", "-a", base, "-t", "10 parsecs"], "10 parsecs")
        self.assert_usage_error(["replay", "-a", base, "-Z", "Mars/Olympus"], "Mars/Olympus")
        self.assert_usage_error(["replay", "-a", base, "-o", "xml"], "xml")

    def test_run_time_failures_exit_1(self):
        missing = os.path.join(self.root, "no-such-archive")
        p = self.assert_usage_error(["replay", "-a", missing], missing, status=1)
        self.assertIn("no such archive", p.stderr)
        p = self.assert_usage_error(["replay", missing, "mmv.x"], missing, status=1)
        self.assertIn("no such archive", p.stderr)
        self.assert_usage_error(["replay"], "name an archive", status=2)
        # check reports its findings on stdout, as pmlogcheck does.
        p = cmdtest.run([MMVLOG, "check", missing])
        self.assertEqual(p.returncode, 1, describe(p))
        self.assertIn(missing, p.stdout + p.stderr)

    def test_old_spellings_still_work(self):
        base = os.path.join(self.root, "old")
        p = cmdtest.run([MMVLOG, "capture", "--mmv_dir", self.mmv.mmv_dir, "--samples", "2",
                         "--interval", "100msec", "--archive_version", "2", "-o", base],
                        env=self.mmv.env)
        self.assertEqual(p.returncode, 0, describe(p))
        self.assertEqual(cmdtest.archive_label(base)["version"], 2)
        p = cmdtest.run([MMVLOG, "replay", "--utc_times", "--csv", base])
        self.assertEqual(p.returncode, 0, describe(p))
        self.assertEqual(len(lines(p.stdout)), 3, describe(p))


if __name__ == "__main__":
    unittest.main()
