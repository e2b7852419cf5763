"""`mmvlog SUB --help` lists every flag SUB takes, with its default.

What each subcommand takes is read from the sources, not from a list kept
here: every ABSL_FLAG(type, name, default, ...) in cmd/*.cc, and from
cmd/mmvlog.cc's kSubcommands table which files' flags each subcommand
shows (cmd/NAME.cc and its shared flags file). A flag added to a source file
but missing from the help, a wrong default in the help, or a flag of another
subcommand leaking into it, fails here. Also: --help and -h exit 0,
`mmvlog help SUB` is the same text, and an unknown subcommand is one clear
line with status 2.
"""

import os
import re
import unittest

import cmdtest
from cmdtest import MMVLOG, describe, lines

CMD_DIR = cmdtest.runfile("cmd")  # //cmd:sources, every cmd/*.cc


def source(name):
    with open(os.path.join(CMD_DIR, name)) as f:
        return f.read()


def strip_comments(text):
    return re.sub(r"//[^\n]*", "", text)


def defined_flags(text):
    """{name: expected default as absl prints it} of the ABSL_FLAGs in a source."""
    out = {}
    for m in re.finditer(r"\bABSL_FLAG\(\s*([\w:<>\s]+?)\s*,\s*(\w+)\s*,\s*(.*?)\s*,\s*\"",
                         strip_comments(text), re.S):
        ftype, name, default = m.group(1), m.group(2), m.group(3)
        if default.startswith('"'):
            shown = default  # a string literal: printed quoted, as is
        elif default in ("{}", "std::vector<std::string>{}"):
            shown = ""  # an empty list prints as nothing
        elif default in ("true", "false") or re.fullmatch(r"-?\d+", default):
            shown = default
        elif re.fullmatch(r"-?\d+\.\d*(e-?\d+)?|-?\d+e-?\d+", default):
            shown = "%.15g" % float(default)  # absl's AbslUnparseFlag(double)
        else:
            raise AssertionError("ABSL_FLAG(%s, %s, %s): default not understood by this test"
                                 % (ftype, name, default))
        out[name] = shown
    return out


def subcommand_table(text):
    """[(name, "cmd/a.cc,cmd/b.cc" or None)] from kSubcommands in mmvlog.cc: the
    files besides cmd/NAME.cc whose flags the subcommand takes."""
    body = strip_comments(text)
    body = body[body.index("kSubcommands[]"):]
    body = body[:body.index("};")]
    out = []
    for m in re.finditer(r'\{\s*"(\w+)"\s*,.*?\b(Run\w+)\s*(?:,\s*"([^"]+)"\s*)?\}', body, re.S):
        out.append((m.group(1), m.group(3)))
    return out


def help_flags(text):
    """{name: default text} of the flags a --help output lists."""
    out = {}
    # Each flag starts on a line of its own, indented by four spaces;
    # continuation lines are indented further.
    for chunk in re.split(r"\n    (?=--\w)", text)[1:]:
        chunk = chunk.split("\n\n")[0]
        joined = " ".join(l.strip() for l in chunk.split("\n"))
        m = re.match(r"^--(\w+) \((.*)\); default: (.*?);$", joined, re.S)
        if m is None:
            raise AssertionError("cannot parse the help of a flag: %r" % joined)
        out[m.group(1)] = m.group(3)
    return out


class HelpTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        sources = sorted(f for f in os.listdir(CMD_DIR) if f.endswith(".cc"))
        cls.flags_by_file = {name: defined_flags(source(name)) for name in sources}
        cls.table = subcommand_table(source("mmvlog.cc"))

    def expected(self, sub, shared):
        want = dict(self.flags_by_file[sub + ".cc"])
        for f in (shared or "").split(","):
            if f:
                self.assertTrue(f.startswith("cmd/"), shared)
                self.assertIn(f[len("cmd/"):], self.flags_by_file, "%s: no such source" % f)
                want.update(self.flags_by_file[f[len("cmd/"):]])
        return want

    def test_the_sources_were_read(self):
        # Guards the parsing itself: what the sources are known to hold.
        names = [n for n, _ in self.table]
        self.assertEqual(sorted(names), ["capture", "check", "demo", "inspect", "record", "replay"])
        self.assertIn("cmd/recording_flags.cc", dict(self.table)["record"])
        self.assertIn("capture.cc", self.flags_by_file)
        self.assertEqual(self.flags_by_file["record.cc"]["archive_dir"], '"/var/log/pcp/mmvlog"')
        self.assertEqual(self.flags_by_file["recording_flags.cc"]["include"], "")
        self.assertTrue(any("interval" in v for v in self.flags_by_file.values()))
        self.assertEqual(self.flags_by_file["check.cc"]["repair"], "false")
        self.assertEqual(self.flags_by_file["demo.cc"]["steps"], "12")
        self.assertEqual(self.flags_by_file["output_flags.cc"]["json"], "false")
        self.assertGreaterEqual(sum(len(v) for v in self.flags_by_file.values()), 30)

    def test_every_flag_with_its_default(self):
        every = set()
        for v in self.flags_by_file.values():
            every |= set(v)
        for sub, shared in self.table:
            with self.subTest(subcommand=sub):
                p = cmdtest.run([MMVLOG, sub, "--help"])
                self.assertEqual(p.returncode, 0, describe(p))
                self.assertEqual(p.stderr, "")
                self.assertIn("mmvlog %s" % sub, lines(p.stdout)[0])
                want = self.expected(sub, shared)
                self.assertTrue(want, "no flags found for %s" % sub)
                got = help_flags(p.stdout)
                missing = sorted(set(want) - set(got))
                self.assertEqual(missing, [], "flags missing from `mmvlog %s --help`" % sub)
                foreign = sorted((set(got) & every) - set(want))
                self.assertEqual(foreign, [], "other subcommands' flags in `%s --help`" % sub)
                self.assertEqual(sorted(set(got) - every), [], "flags no source defines")
                for name, default in want.items():
                    self.assertEqual(got[name], default, "default of --%s in %s --help" % (name, sub))
                # The other spellings print the same.
                for args in ([sub, "-h"], ["help", sub]):
                    q = cmdtest.run([MMVLOG] + args)
                    self.assertEqual(q.returncode, 0, describe(q))
                    self.assertEqual(q.stdout, p.stdout, args)
                # --help wins over anything else on the line, and does nothing else.
                q = cmdtest.run([MMVLOG, sub, "--samples=3", "--help", "--no_such_flag"])
                self.assertEqual(q.returncode, 0, describe(q))
                self.assertEqual(q.stdout, p.stdout)

    def test_overview_lists_every_subcommand(self):
        p = cmdtest.run([MMVLOG, "--help"])
        self.assertEqual(p.returncode, 0, describe(p))
        listed = re.findall(r"^  (\w+)\s{2,}\S", p.stdout, re.M)
        self.assertEqual(sorted(listed), sorted(n for n, _ in self.table))
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
                self.assertIn("unknown command 'recrod'", p.stderr)
                self.assertIn("mmvlog --help", p.stderr)

    def test_flags_of_another_subcommand_are_refused(self):
        # absl flags are global to the binary; each subcommand takes only its own.
        for args, flag in ((["replay", "--archive-dir=/tmp", "x"], "archive_dir"),
                           (["capture", "-o", "/nonexistent/x", "--compress"], "compress"),
                           (["record", "--output", "x"], "output"),
                           (["demo", "--nocsv"], "nocsv"),
                           (["inspect", "--no_such_flag", "x"], "no_such_flag")):
            with self.subTest(args=args):
                p = cmdtest.run([MMVLOG] + args)
                self.assertEqual(p.returncode, 2 if flag != "no_such_flag" else p.returncode,
                                 describe(p))
                self.assertNotEqual(p.returncode, 0, describe(p))
                self.assertEqual(p.stdout, "")
                self.assertEqual(len(lines(p.stderr)), 1, describe(p))
                self.assertIn(flag, p.stderr)


if __name__ == "__main__":
    unittest.main()
