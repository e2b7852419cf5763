"""docs/mmvlog.1 renders cleanly and documents exactly the options --help lists.

- `man --warnings -l` renders the page with exit 0 and nothing on stderr.
- For every command, each option `mmvlog COMMAND --help` prints appears in
  that command's subsection of the page ("mmvlog COMMAND"), and each option
  that subsection names is one --help prints: the two cannot drift.
- SYNOPSIS names every command; FILES, ENVIRONMENT (PCP_TMP_DIR), EXIT
  STATUS (0, 1, 2) and SEE ALSO are there.
"""

import os
import re
import unittest

import cmdtest
from cmdtest import MMVLOG, describe

PAGE = cmdtest.runfile("docs/mmvlog.1")


def commands():
    p = cmdtest.run([MMVLOG, "--help"])
    return re.findall(r"^  (\w+)\s{2,}\S", p.stdout, re.M)


def page_sections(text):
    """{"mmvlog record": troff text, ...} of the .SS subsections, and the .SH sections."""
    out = {}
    name = None
    for line in text.split("\n"):
        m = re.match(r'^\.(SH|SS) "?([^"]*)"?$', line)
        if m:
            name = m.group(2)
            out[name] = ""
        elif name is not None:
            out[name] += line + "\n"
    return out


def troff_option_names(text):
    """Option names a piece of troff mentions: \\-x and \\-\\-long-name."""
    plain = text.replace("\\-", "-").replace("\\fB", "").replace("\\fR", "").replace("\\fI", "")
    names = set(re.findall(r"(?<![\w-])(--[A-Za-z][\w-]*)", plain))
    names |= set(re.findall(r"(?<![\w-])(-[A-Za-z0-9])(?![\w-])", plain))
    return names


class ManTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        with open(PAGE) as f:
            cls.text = f.read()
        cls.sections = page_sections(cls.text)

    def test_renders_without_warnings(self):
        env = dict(os.environ, MANWIDTH="80", LC_ALL="C.UTF-8")
        p = cmdtest.run(["man", "--warnings", "-l", PAGE], env=env)
        self.assertEqual(p.returncode, 0, describe(p))
        self.assertEqual(p.stderr, "", describe(p))
        self.assertIn("mmvlog - record PCP MMV metrics", p.stdout)

    def test_every_option_of_every_command_is_documented_in_its_section(self):
        subs = commands()
        self.assertEqual(len(subs), 7, subs)
        for sub in subs:
            with self.subTest(command=sub):
                section = self.sections.get("mmvlog " + sub)
                self.assertIsNotNone(section, "no subsection 'mmvlog %s'" % sub)
                in_help = cmdtest.help_option_names(sub)
                self.assertIn("--help", in_help)
                in_page = troff_option_names(section)
                self.assertEqual(sorted(in_help - in_page), [],
                                 "in `mmvlog %s --help` but not in its man section" % sub)
                # What the section names beyond them may only be another
                # command's (record's text mentions capture's -o, say).
                every = set()
                for other in subs:
                    every |= cmdtest.help_option_names(other)
                self.assertEqual(sorted(in_page - every), [],
                                 "in the man section of %s but no command takes it" % sub)

    def test_synopsis_and_sections(self):
        synopsis = self.sections["SYNOPSIS"]
        for sub in commands():
            self.assertIn(".B mmvlog " + sub, synopsis)
        for name in ("DESCRIPTION", "FILES", "ENVIRONMENT", "EXIT STATUS", "SEE ALSO",
                     "EXAMPLES"):
            self.assertIn(name, self.sections)
        self.assertIn("PCP_TMP_DIR", self.sections["ENVIRONMENT"])
        for status in (".B 0", ".B 1", ".B 2"):
            self.assertIn(status, self.sections["EXIT STATUS"])
        for page in ("pmlogger", "pmval", "pmrep", "PCPIntro", "LOGARCHIVE"):
            self.assertIn(".BR %s (" % page, self.sections["SEE ALSO"])


if __name__ == "__main__":
    unittest.main()
