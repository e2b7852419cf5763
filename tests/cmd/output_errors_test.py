"""Every write of every command that prints is checked, as pmrep checks its
own: a full disk (/dev/full, or ENOSPC from tests/cmd/fault_shim.c at each
write of a file an option names) ends the command with a message naming
the output and the error, and exit status 1; a reader that goes away
(`mmvlog replay ... | head`) ends it quietly, with the status it would have
had, as pmrep (exit 0, nothing said; pmval dies of SIGPIPE).

PCP for comparison, measured here: pmrep -o csv > /dev/full exits 1
("[Errno 28] No space left on device"); pmval and pmdumplog exit 0, saying
nothing, with nothing written.
"""

import os
import shutil
import subprocess
import unittest

from cmdtest import MMVLOG, describe, fresh_dir, run, runfile

SHIM = runfile("tests/cmd/libfault_shim.so")
ARCHIVE = runfile("tests/testdata/pcpqa/960624.08.17_v2")

# Each output, as options; all print well over a pipe's 64 KiB here.
OUTPUTS = {
    "csv": ["-o", "csv", "-t", "1sec"],
    "json": ["-o", "json", "-t", "1sec"],
    "text": ["-o", "text", "-t", "1sec", "disk.dev.read"],
    "dump": ["--dump"],
    "stats": ["-o", "stats", "-t", "1sec"],
    "summary": ["-o", "summary"],
    "csv at the records": ["-o", "csv"],
    "text at the records": ["-o", "text", "disk.dev.read"],
}


class OutputErrorsTest(unittest.TestCase):

    def replay(self, args):
        return [MMVLOG, "replay", "-a", ARCHIVE] + args

    def test_full_disk_on_standard_output_fails_each_output(self):
        for name, args in OUTPUTS.items():
            with self.subTest(output=name):
                with open("/dev/full", "w") as full:
                    p = subprocess.run(self.replay(args), stdout=full, stderr=subprocess.PIPE,
                                       text=True, timeout=120)
                self.assertEqual(p.returncode, 1, p.stderr)
                self.assertIn("write standard output: No space left on device", p.stderr)
                self.assertEqual(p.stderr.count("No space left"), 1, p.stderr)

    def test_a_reader_that_goes_away_ends_it_quietly(self):
        for name, args in OUTPUTS.items():
            with self.subTest(output=name):
                p = subprocess.Popen(self.replay(args), stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
                self.assertTrue(p.stdout.read(100))  # as `head -c 100` reads
                p.stdout.close()
                err = p.stderr.read().decode()
                p.wait(timeout=120)
                self.assertEqual(p.returncode, 0, err)
                self.assertEqual(err, "")

    def test_what_else_prints_checks_its_writes(self):
        for args in (["check", ARCHIVE], ["--version"], ["replay", "--help"], ["--help"],
                     ["replay", "-a", ARCHIVE, "-o", "csv", "-t", "1sec", "-s", "3"]):
            with self.subTest(args=args):
                with open("/dev/full", "w") as full:
                    p = subprocess.run([MMVLOG] + args, stdout=full, stderr=subprocess.PIPE,
                                       text=True, timeout=120)
                self.assertEqual(p.returncode, 1, p.stderr)
                self.assertIn("write standard output: No space left on device", p.stderr)

    def test_files_options_name_fail_at_every_write(self):
        d = fresh_dir("output_files")
        for option, name in (("--plot", "p.svg"), ("--html", "p.html")):
            target = os.path.join(d, name)
            failed = 0
            for at in range(1, 40):
                with self.subTest(option=option, at=at):
                    env = dict(os.environ, LD_PRELOAD=SHIM, FAULT_SHIM_PREFIX=d,
                               FAULT_SHIM_AT=str(at), FAULT_SHIM_ERRNO="28")
                    # Under ASan (.ci/run's second half) the shim comes first.
                    env["ASAN_OPTIONS"] = ":".join(
                        o for o in (os.environ.get("ASAN_OPTIONS", ""),
                                    "verify_asan_link_order=0") if o)
                    p = run(self.replay(["-t", "1min", option, target, "disk.dev.read"]),
                            env=env, timeout=120)
                    if p.returncode == 0:
                        # Past the last write: the file is whole.
                        self.assertTrue(os.path.getsize(target) > 0, describe(p))
                        break
                    failed += 1
                    self.assertEqual(p.returncode, 1, describe(p))
                    self.assertIn(d, p.stderr)
                    self.assertIn("No space left on device", p.stderr)
                    self.assertFalse(os.path.exists(target), "a partial %s was left" % name)
            self.assertGreater(failed, 0, option)
        shutil.rmtree(d)

    def test_a_directory_that_is_not_there(self):
        for option in ("--plot", "--html", "--to-mmv"):
            with self.subTest(option=option):
                p = run(self.replay(["-t", "1min", option, "/nonexistent/dir/out",
                                     "disk.dev.read"]))
                self.assertEqual(p.returncode, 1, describe(p))
                self.assertIn("/nonexistent/dir", p.stderr)


if __name__ == "__main__":
    unittest.main()
