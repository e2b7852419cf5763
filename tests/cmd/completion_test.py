"""docs/mmvlog.bash, sourced in bash and driven through its completion function.

Commands after `mmvlog`; each command's options after `-` (exactly the set
`mmvlog COMMAND --help` lists, both ways); archive base names (plain and
compressed files) and directories after `-a`; replay's -o formats; -V values.
"""

import os
import re
import subprocess
import unittest

import cmdtest
from cmdtest import MMVLOG, describe

SCRIPT = cmdtest.runfile("docs/mmvlog.bash")


def complete(words, cwd=None):
    """COMPREPLY for the command line `words` (the last word being completed)."""
    quoted = " ".join("'%s'" % w.replace("'", "'\\''") for w in words)
    script = ('source "$1"; COMP_WORDS=(%s); COMP_CWORD=%d; COMP_LINE="${COMP_WORDS[*]}"; '
              'COMP_POINT=${#COMP_LINE}; _mmvlog; printf "%%s\\n" "${COMPREPLY[@]}"'
              % (quoted, len(words) - 1))
    p = subprocess.run(["bash", "--norc", "--noprofile", "-c", script, "bash", SCRIPT],
                       cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, timeout=30)
    if p.returncode != 0 or p.stderr:
        raise AssertionError("completion failed: %s" % p.stderr)
    return sorted(l for l in p.stdout.split("\n") if l)


class CompletionTest(unittest.TestCase):

    def test_commands(self):
        self.assertEqual(complete(["mmvlog", "re"]), ["record", "replay"])
        self.assertEqual(complete(["mmvlog", "c"]), ["capture", "check"])
        self.assertEqual(complete(["mmvlog", "p"]), ["push"])
        self.assertEqual(complete(["mmvlog", "help", "d"]), ["demo"])

    def test_each_commands_options_are_its_help(self):
        for sub in ("record", "capture", "replay", "check", "inspect", "push", "demo"):
            with self.subTest(command=sub):
                self.assertEqual(set(complete(["mmvlog", sub, "-"])), cmdtest.help_option_names(sub))
        self.assertEqual(complete(["mmvlog", "replay", "--ar"]), ["--archive"])
        self.assertEqual(complete(["mmvlog", "record", "--archive-"]),
                         ["--archive-dir", "--archive-name", "--archive-version"])

    def test_archive_names_after_a(self):
        d = cmdtest.fresh_dir("completion")
        for f in ("a.0", "a.meta", "a.index", "b.0.xz", "b.meta.xz", "b.index", "c.1.zst",
                  "c.meta", "notes.txt"):
            open(os.path.join(d, f), "w").close()
        os.mkdir(os.path.join(d, "dir"))
        self.assertEqual(complete(["mmvlog", "replay", "-a", ""], cwd=d), ["a", "b", "c", "dir/"])
        self.assertEqual(complete(["mmvlog", "replay", "--archive", "b"], cwd=d), ["b"])
        self.assertEqual(complete(["mmvlog", "push", ""], cwd=d), ["a", "b", "c", "dir/"])
        self.assertEqual(complete(["mmvlog", "push", "-s", "no"], cwd=d), ["notes.txt"])
        self.assertEqual(complete(["mmvlog", "record", "--spool", ""], cwd=d), ["dir"])
        self.assertEqual(complete(["mmvlog", "replay", "-a", d + "/a"]), [d + "/a"])

    def test_values(self):
        self.assertEqual(complete(["mmvlog", "replay", "-o", ""]),
                         ["csv", "dump", "json", "stats", "stdout", "summary", "text"])
        self.assertEqual(complete(["mmvlog", "capture", "-V", ""]), ["2", "3"])
        self.assertIn("UTC", complete(["mmvlog", "replay", "-Z", "U"]))
        self.assertEqual(complete(["mmvlog", "record", "-t", ""]), [])


if __name__ == "__main__":
    unittest.main()
