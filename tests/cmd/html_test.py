"""`mmvlog replay --html FILE.html`, loaded in headless Chromium.

The page is driven through the DevTools protocol over --remote-debugging-pipe
(NUL-terminated JSON on fds 3 and 4; plain Python, no extra packages):
  - no console error, no uncaught exception, no log entry of level error;
  - no request but for the page's own file:// URL and inline data: URLs;
  - one chart per unit, each canvas with drawn (non-transparent) pixels;
  - each metric's help text from the archive in the page;
  - a metric name cannot break out of the page's <script>.
"""

import json
import os
import select
import shutil
import subprocess
import tempfile
import time
import unittest

import cmdtest
from cmdtest import MMVLOG, describe

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--hide-scrollbars",
                  "--remote-debugging-pipe", "--window-size=1200,2400"]

METRICS = ["mmv.demo.requests.total", "mmv.demo.bytes.sent", "mmv.demo.queue.depth",
           "mmv.demo.cpu.util"]
UNITS = ["count / sec", "Kbyte / sec", "count", "no units"]
HELP = {"mmv.demo.requests.total": "Requests served", "mmv.demo.bytes.sent": "Kilobytes sent",
        "mmv.demo.queue.depth": "Requests waiting"}


class DevTools:
    """A Chromium driven over --remote-debugging-pipe."""

    def __init__(self, chromium, profile, env):
        self.to_child_r, self.to_child_w = os.pipe()
        self.from_child_r, self.from_child_w = os.pipe()

        # In the child: fd 3 reads commands, fd 4 writes replies (kept open
        # through exec by pass_fds, which subprocess applies after preexec_fn).
        def fds():
            os.dup2(self.to_child_r, 3)
            os.dup2(self.from_child_w, 4)

        self.proc = subprocess.Popen(
            [chromium] + CHROMIUM_FLAGS + ["--user-data-dir=" + profile, "about:blank"],
            preexec_fn=fds, pass_fds=(3, 4), env=env,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(self.to_child_r)
        os.close(self.from_child_w)
        self.next_id = 0
        self.buffer = b""
        self.events = []

    def close(self):
        try:
            self.proc.kill()
            self.proc.wait(timeout=10)
        finally:
            os.close(self.to_child_w)
            os.close(self.from_child_r)

    def _read(self, deadline):
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("no answer from Chromium in time")
            ready, _, _ = select.select([self.from_child_r], [], [], left)
            if ready:
                chunk = os.read(self.from_child_r, 1 << 20)
                if not chunk:
                    raise AssertionError("Chromium closed the pipe")
                self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def send(self, method, params=None, session=None, timeout=30):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.to_child_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            m = self._read(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise AssertionError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, method, timeout=30):
        deadline = time.monotonic() + timeout
        for e in self.events:
            if e.get("method") == method:
                return e
        while True:
            m = self._read(deadline)
            self.events.append(m)
            if m.get("method") == method:
                return m


class HtmlTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.root = cmdtest.fresh_dir("html")
        demo = os.path.join(cls.root, "demo")
        p = cmdtest.run([MMVLOG, "demo", "--dir", demo, "--steps", "12"], timeout=60)
        if p.returncode != 0:
            raise AssertionError(describe(p))
        cls.page = os.path.join(cls.root, "page.html")
        p = cmdtest.run([MMVLOG, "replay", "-a", os.path.join(demo, "archive"), "--html",
                         cls.page] + METRICS)
        if p.returncode != 0:
            raise AssertionError(describe(p))
        with open(cls.page) as f:
            cls.html = f.read()

    def test_page_is_self_contained(self):
        # (dygraphs' licence comment names its home page; nothing loads it.)
        for needle in ("<script src", "<link ", "@import", "<img "):
            self.assertNotIn(needle, self.html)
        self.assertIn("Dygraph", self.html)

    def test_chromium_draws_every_chart_without_errors_or_requests(self):
        chromium = shutil.which("chromium")
        self.assertIsNotNone(chromium, "chromium is not installed: run bash bazel/setup.sh")
        profile = cmdtest.fresh_dir("html-profile")
        home = cmdtest.fresh_dir("html-home")
        short_tmp = tempfile.mkdtemp(prefix="chr.", dir="/tmp")  # socket paths are short
        env = dict(os.environ, HOME=home, TMPDIR=short_tmp, XDG_CONFIG_HOME=home,
                   XDG_CACHE_HOME=home)
        tools = DevTools(chromium, profile, env)
        try:
            target = tools.send("Target.createTarget", {"url": "about:blank"})["targetId"]
            session = tools.send("Target.attachToTarget",
                                 {"targetId": target, "flatten": True})["sessionId"]
            for domain in ("Runtime", "Log", "Network", "Page"):
                tools.send(domain + ".enable", session=session)
            url = "file://" + self.page
            tools.send("Page.navigate", {"url": url}, session=session)
            tools.wait_event("Page.loadEventFired", timeout=60)
            # dygraphs draws on load; give it a moment, then look.
            result = None
            for _ in range(50):
                r = tools.send("Runtime.evaluate", {"returnByValue": True, "expression": """
                    Array.from(document.querySelectorAll('section.panel')).map(function (s) {
                      var painted = 0, canvases = 0;
                      s.querySelectorAll('.chart canvas').forEach(function (c) {
                        canvases++;
                        var d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
                        for (var i = 3; i < d.length; i += 4) if (d[i] > 0) painted++;
                      });
                      return {units: s.dataset.units, canvases: canvases, painted: painted,
                              xlabels: Array.from(s.querySelectorAll('.dygraph-axis-label-x'))
                                  .map(function (e) { return e.textContent; }),
                              legend: s.querySelector('.legend').textContent,
                              help: s.querySelector('dl.help').textContent};
                    })"""}, session=session)
                result = r["result"]["value"]
                if result and all(p["painted"] > 0 for p in result):
                    break
                time.sleep(0.1)
        finally:
            tools.close()
            shutil.rmtree(short_tmp, ignore_errors=True)
        # What the page did.
        errors = []
        requests = []
        for e in tools.events:
            m, params = e.get("method"), e.get("params", {})
            if m == "Runtime.exceptionThrown":
                errors.append(params)
            elif m == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                errors.append(params)
            elif m == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                errors.append(params)
            elif m == "Network.requestWillBeSent":
                requests.append(params["request"]["url"])
        self.assertEqual(errors, [])
        # Only the page itself; data: URLs (dygraphs' inline images) are no
        # request to anywhere.
        self.assertEqual(sorted({u for u in requests if not u.startswith("data:")}),
                         ["file://" + self.page])
        # One chart per unit, each drawn.
        self.assertEqual([p["units"] for p in result], UNITS)
        for p in result:
            self.assertGreater(p["canvases"], 0, p)
            self.assertGreater(p["painted"], 500, p)
            # The time axis in wall-clock times, as the SVG's: 10:05:30 (a
            # second's fractions only where the tick has them), never the
            # seconds alone ("28.500") dygraphs shows by itself.
            self.assertTrue(p["xlabels"], p)
            for label in p["xlabels"]:
                self.assertRegex(label, r"^(\d\d:\d\d:\d\d(\.\d{3})?|\d{4}-\d\d-\d\d)$", p)
        help_text = " ".join(p["help"] for p in result)
        for metric, text in HELP.items():
            self.assertIn(metric, help_text)
            self.assertIn(text, help_text)

    def test_names_cannot_close_the_script(self):
        # The data is JSON inside <script>: "</" is written "<\/".
        script = self.html[self.html.rindex("<script>"):]
        self.assertEqual(script.count("</script>"), 1)


if __name__ == "__main__":
    unittest.main()
