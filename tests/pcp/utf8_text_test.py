"""Text stays text: an MMV file written by the real libpcp_mmv (python
pcp.mmv) with UTF-8 instance names and a UTF-8 string value, and an instance
name whose bytes are not UTF-8, recorded by `mmvlog record` and `capture`,
then replayed through every output. UTF-8 must come out as the same
characters; other bytes as U+FFFD (mmvlog(1), "TEXT"), the same rule in
every output:
  - JSON (replay -o json, inspect --json) read by Python's json module;
  - CSV read by Python's csv module, the text table, stats, the dump;
  - SVG parsed as XML, the HTML page;
and what PCP itself reads from the same archive (pmdumplog: the bytes as
stored) decodes, with errors="replace", to what mmvlog shows.
"""

import csv
import io
import json
import os
import re
import shutil
import subprocess
import unittest
import xml.etree.ElementTree as ET


def runfile(path):
    return os.path.join(os.environ["TEST_SRCDIR"], "mmvlog", path)


MMVLOG = runfile("cmd/mmvlog")
WRITER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "utf8_app_writer.py")
PY = "/usr/bin/python3"
NAMES = ["café", "東京", b"bad\xff\xfe".decode("utf-8", "replace")]
COLUMNS = ["mmv.utf8app.hits[%s]" % n for n in NAMES]
GREETING = "¡Hola, señor! 東京"


def run(args, **kw):
    return subprocess.run(args, capture_output=True, timeout=120, **kw)


class Utf8TextTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.root = os.path.join(os.environ["TEST_TMPDIR"], "utf8")
        shutil.rmtree(cls.root, ignore_errors=True)
        os.makedirs(os.path.join(cls.root, "mmv"))
        env = dict(os.environ, PCP_TMP_DIR=cls.root, TZ="UTC")
        app = subprocess.Popen([PY, WRITER, "30"], env=env, stdout=subprocess.PIPE, text=True)
        assert app.stdout.readline().strip() == "ready"
        cls.archives = {}
        for cmd in ("record", "capture"):
            base = os.path.join(cls.root, cmd)
            p = run([MMVLOG, cmd, "-s", "3", "-t", "100msec", "--mmv-dir",
                     os.path.join(cls.root, "mmv"), base], env=env)
            assert p.returncode == 0, p.stderr
            cls.archives[cmd] = base
        cls.mmv_file = os.path.join(cls.root, "mmv", "utf8app")
        cls.inspect = run([MMVLOG, "inspect", "--json", cls.mmv_file])
        app.kill()
        app.wait()

    def replay(self, base, *args):
        p = run([MMVLOG, "replay", "-a", base] + list(args) + ["mmv.utf8app"],
                env=dict(os.environ, TZ="UTC"))
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout.decode("utf-8")  # strict: every output is UTF-8

    def test_json_reads_back_as_the_characters(self):
        for name, base in self.archives.items():
            with self.subTest(archive=name):
                rows = [json.loads(line) for line in self.replay(base, "-o", "json").splitlines()]
                self.assertEqual(len(rows), 3)
                for row in rows:
                    self.assertEqual(sorted(row["values"]),
                                     sorted(COLUMNS + ["mmv.utf8app.greeting"]))
                    self.assertEqual(row["values"]["mmv.utf8app.greeting"], GREETING)

    def test_csv_text_stats_and_dump(self):
        for name, base in self.archives.items():
            with self.subTest(archive=name):
                table = list(csv.reader(io.StringIO(self.replay(base, "-o", "csv"))))
                self.assertEqual(sorted(table[0][1:]), sorted(COLUMNS + ["mmv.utf8app.greeting"]))
                self.assertIn(GREETING, table[1])
                text = self.replay(base, "-o", "text", "-t", "100msec")
                for n in NAMES:
                    self.assertIn("[%s]" % n, text)
                stats = self.replay(base, "-o", "stats")
                self.assertIn(COLUMNS[1], stats)
                dump = self.replay(base, "--dump")
                self.assertIn('"%s"' % GREETING, dump)
                for n in NAMES:
                    self.assertIn('or "%s"]' % n, dump)

    def test_svg_is_xml_and_html_holds_the_names(self):
        for name, base in self.archives.items():
            with self.subTest(archive=name):
                svg = os.path.join(self.root, name + ".svg")
                html = os.path.join(self.root, name + ".html")
                self.replay(base, "--plot", svg, "--html", html)
                texts = [e.text for e in ET.parse(svg).iter() if e.text]
                for n in NAMES:
                    self.assertTrue(any(n in t for t in texts), (n, texts))
                page = open(html, encoding="utf-8").read()  # strict
                for n in NAMES[:2]:
                    self.assertIn(n, page)

    def test_what_pcp_reads_decodes_to_what_mmvlog_shows(self):
        for name, base in self.archives.items():
            with self.subTest(archive=name):
                out = run(["/usr/bin/pmdumplog", base, "mmv.utf8app.hits"],
                          env=dict(os.environ, TZ="UTC")).stdout
                pcp = set(re.findall(rb'or "([^"]*)"\]', out))
                self.assertEqual({p.decode("utf-8", "replace") for p in pcp}, set(NAMES))

    def test_inspect_json(self):
        self.assertEqual(self.inspect.returncode, 0, self.inspect.stderr)
        doc = json.loads(self.inspect.stdout.decode("utf-8"))
        text = json.dumps(doc, ensure_ascii=False)
        for n in NAMES:
            self.assertIn(n, text)
        self.assertIn(GREETING, text)


if __name__ == "__main__":
    unittest.main()
