"""`mmvlog replay --plot FILE.svg`: a picture people can read.

Archives of the built-in demo application (changing counters and gauges of
several units) are plotted and the SVG is parsed:
  - one panel per unit (rates, a count and a utilisation never share a
    scale), each panel's series as many as its metrics and instances;
  - every value tick is k * 1, 2 or 5 * 10^n, evenly spaced;
  - every time tick is a round time: a multiple of its step since midnight;
  - every piece of text lies inside the viewBox (widths estimated at 0.6 em
    per character), the legend included;
  - the title names the archive, the host and the time window.
Then headless Chromium renders it and every legend colour must be drawn as a
line across its panel; a colour no series uses must not be there.
"""

import math
import os
import re
import shutil
import struct
import tempfile
import unittest
import xml.etree.ElementTree as ET
import zlib

import cmdtest
from cmdtest import MMVLOG, describe

SVG_NS = "{http://www.w3.org/2000/svg}"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--hide-scrollbars",
                  "--force-device-scale-factor=1"]
UNUSED_PALETTE_COLOR = "#8c564b"  # the 6th colour of replay's palette; at most 3 series a panel here

# Plot name: (metrics, {panel units: legend texts}).
PLOTS = {
    "mixed": (["mmv.demo.requests.total", "mmv.demo.bytes.sent", "mmv.demo.queue.depth",
               "mmv.demo.cpu.util"],
              {"count / sec": ["mmv.demo.requests.total[/api/users]",
                               "mmv.demo.requests.total[/api/orders]",
                               "mmv.demo.requests.total[/healthz]"],
               "Kbyte / sec": ["mmv.demo.bytes.sent"],
               "count": ["mmv.demo.queue.depth"],
               "no units": ["mmv.demo.cpu.util[cpu0]", "mmv.demo.cpu.util[cpu1]"]}),
    "cpu": (["mmv.demo.cpu.util"],
            {"no units": ["mmv.demo.cpu.util[cpu0]", "mmv.demo.cpu.util[cpu1]"]}),
}


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def decode_png(path):
    """(width, height, rows of (r, g, b) tuples) of an 8-bit RGB/RGBA PNG."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG: %s" % path)
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    width, height, depth, color, _, _, interlace = header
    if depth != 8 or color not in (2, 6) or interlace != 0:
        raise ValueError("PNG kind not handled: depth %d color %d interlace %d"
                         % (depth, color, interlace))
    bpp = 4 if color == 6 else 3
    raw = zlib.decompress(idat)
    stride = width * bpp
    prev = bytearray(stride)
    rows = []
    for y in range(height):
        start = y * (stride + 1)
        ftype = raw[start]
        line = bytearray(raw[start + 1:start + 1 + stride])
        if ftype == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif ftype == 2:
            for i in range(stride):
                line[i] = (line[i] + prev[i]) & 0xFF
        elif ftype == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 0xFF
        elif ftype == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 0xFF
        elif ftype != 0:
            raise ValueError("bad PNG filter %d" % ftype)
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(width)])
        prev = line
    return width, height, rows


def rgb(hex_color):
    h = hex_color.lstrip("#")
    return tuple(int(h[i:i + 2], 16) for i in (0, 2, 4))


def near(a, b, tol=24):
    return all(abs(x - y) <= tol for x, y in zip(a, b))


def is_one_two_five(step):
    m = step / 10 ** math.floor(math.log10(step))
    return any(abs(m - k) < 1e-6 for k in (1, 2, 5, 10))


def text_box(el, inherited_size):
    """(x0, y0, x1, y1) of a <text>, its width estimated at 0.6 em a character."""
    size = float(el.get("font-size", inherited_size))
    content = "".join(el.itertext())
    title = el.find(SVG_NS + "title")
    if title is not None and title.text:
        content = content.replace(title.text, "", 1)  # a tooltip is not drawn
    width = 0.6 * size * len(content)
    x, y = float(el.get("x")), float(el.get("y"))
    anchor = el.get("text-anchor", "start")
    x0 = {"start": x, "middle": x - width / 2, "end": x - width}[anchor]
    return x0, y - size, x0 + width, y + 0.25 * size, content


class PlotTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.root = cmdtest.fresh_dir("plot")
        demo_dir = os.path.join(cls.root, "demo")
        p = cmdtest.run([MMVLOG, "demo", "--dir", demo_dir, "--steps", "10"], timeout=60)
        if p.returncode != 0:
            raise AssertionError(describe(p))
        cls.archive = os.path.join(demo_dir, "archive")
        summary = cmdtest.run([MMVLOG, "replay", "-a", cls.archive]).stdout
        cls.host = re.search(r"^host: +(\S+)", summary, re.M).group(1)
        cls.svgs, cls.stderr = {}, {}
        for name, (metrics, _) in PLOTS.items():
            svg = os.path.join(cls.root, name + ".svg")
            p = cmdtest.run([MMVLOG, "replay", "--plot", svg, "-a", cls.archive] + metrics)
            if p.returncode != 0:
                raise AssertionError(describe(p))
            cls.svgs[name] = svg
            cls.stderr[name] = p.stderr

    def parse(self, name):
        return ET.parse(self.svgs[name]).getroot()

    def panels(self, svg):
        return [g for g in svg.iter(SVG_NS + "g") if g.get("class") == "panel"]

    def test_one_panel_per_unit_with_its_series(self):
        for name, (_, want) in PLOTS.items():
            with self.subTest(plot=name):
                self.assertIn("plot written to %s" % self.svgs[name], self.stderr[name])
                got = {}
                for g in self.panels(self.parse(name)):
                    legend = next(e for e in g.iter(SVG_NS + "g") if e.get("class") == "legend")
                    texts = ["".join(t.itertext()).replace(t.find(SVG_NS + "title").text, "", 1)
                             for t in legend.iter(SVG_NS + "text") if t.find(SVG_NS + "title") is not None]
                    lines = [p for p in g.iter(SVG_NS + "polyline")]
                    colors = {p.get("stroke") for p in lines}
                    self.assertEqual(len(colors), len(texts), g.get("data-units"))
                    units = [t.text for t in g.iter(SVG_NS + "text") if t.get("class") == "units"]
                    self.assertEqual(units, [g.get("data-units")])
                    got[g.get("data-units")] = texts
                self.assertEqual(got, want)

    def test_value_ticks_are_round(self):
        for name in PLOTS:
            for g in self.panels(self.parse(name)):
                with self.subTest(plot=name, units=g.get("data-units")):
                    values = [float(t.text) for t in g.iter(SVG_NS + "text")
                              if t.get("class") == "ytick"]
                    self.assertGreaterEqual(len(values), 3)
                    steps = {round(b - a, 12) for a, b in zip(values, values[1:])}
                    self.assertEqual(len(steps), 1, values)
                    step = steps.pop()
                    self.assertTrue(is_one_two_five(step), values)
                    for v in values:
                        self.assertAlmostEqual(v / step, round(v / step), places=6)

    def test_time_ticks_are_round(self):
        for name in PLOTS:
            for g in self.panels(self.parse(name)):
                labels = [t.text for t in g.iter(SVG_NS + "text") if t.get("class") == "xtick"]
                self.assertGreaterEqual(len(labels), 2)
                secs = []
                for label in labels:
                    h, m, s = label.split(":")
                    secs.append(int(h) * 3600 + int(m) * 60 + float(s))
                steps = {round(b - a, 3) for a, b in zip(secs, secs[1:])}
                self.assertEqual(len(steps), 1, labels)
                step = steps.pop()
                self.assertIn(step, (0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60), labels)
                for x in secs:
                    self.assertAlmostEqual(x / step, round(x / step), places=6, msg=labels)

    def test_all_text_inside_the_picture(self):
        for name in PLOTS:
            with self.subTest(plot=name):
                svg = self.parse(name)
                vx, vy, vw, vh = (float(v) for v in svg.get("viewBox").split())
                self.assertEqual((vw, vh), (float(svg.get("width")), float(svg.get("height"))))
                size = float(svg.get("font-size"))
                for t in svg.iter(SVG_NS + "text"):
                    x0, y0, x1, y1, content = text_box(t, size)
                    self.assertGreaterEqual(x0, vx, content)
                    self.assertLessEqual(x1, vx + vw, content)
                    self.assertGreaterEqual(y0, vy, content)
                    self.assertLessEqual(y1, vy + vh, content)

    def test_title_names_archive_host_and_window(self):
        for name in PLOTS:
            title = next(t for t in self.parse(name).iter(SVG_NS + "text")
                         if t.get("class") == "title")
            full = title.find(SVG_NS + "title").text
            self.assertIn("archive on %s: " % self.host, full)
            self.assertRegex(full, r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d to (\d{4}-\d\d-\d\d )?"
                                   r"\d\d:\d\d:\d\d$")

    def test_chromium_renders_every_line(self):
        chromium = find_chromium()
        self.assertIsNotNone(chromium, "chromium is not installed: run bash bazel/setup.sh")
        for name in PLOTS:
            with self.subTest(plot=name):
                self.check_rendering(chromium, name)

    def check_rendering(self, chromium, name):
        svg = self.parse(name)
        width, height = int(float(svg.get("width"))), int(float(svg.get("height")))
        png = os.path.join(self.root, name + ".png")
        profile = cmdtest.fresh_dir("chromium-profile-" + name)
        home = cmdtest.fresh_dir("chromium-home-" + name)
        # Chromium puts unix sockets in $TMPDIR, and a socket path holds at
        # most 107 bytes: Bazel's TEST_TMPDIR is longer (Chromium aborts), so
        # a short private directory under /tmp, removed afterwards.
        short_tmp = tempfile.mkdtemp(prefix="chr.", dir="/tmp")
        env = dict(os.environ, HOME=home, TMPDIR=short_tmp, XDG_CONFIG_HOME=home,
                   XDG_CACHE_HOME=home)
        cmd = [chromium] + CHROMIUM_FLAGS + [
            "--user-data-dir=" + profile, "--screenshot=" + png,
            "--window-size=%d,%d" % (width, height), "file://" + self.svgs[name]]
        try:
            p = cmdtest.run(cmd, env=env, timeout=60)
        finally:
            shutil.rmtree(short_tmp, ignore_errors=True)
        self.assertTrue(os.path.exists(png), "no screenshot:\n%s\n%s" % (" ".join(cmd), describe(p)))
        w, h, pixels = decode_png(png)
        self.assertEqual((w, h), (width, height))
        for g in self.panels(svg):
            frame = next(r for r in g.iter(SVG_NS + "rect") if r.get("stroke") == "#333")
            ax, ay, aw, ah = (float(frame.get(k)) for k in ("x", "y", "width", "height"))
            colors = sorted({p.get("stroke") for p in g.iter(SVG_NS + "polyline")})
            # Inside the frame, away from its border.
            x0, x1 = int(ax) + 3, int(ax + aw) - 3
            y0, y1 = int(ay) + 3, int(ay + ah) - 3
            found = {}
            for color in colors + [UNUSED_PALETTE_COLOR]:
                want = rgb(color)
                xs = [x for y in range(y0, y1, 2) for x in range(x0, x1) if near(pixels[y][x], want)]
                found[color] = (len(xs), (max(xs) - min(xs)) if xs else 0)
            for color in colors:
                count, span = found[color]
                self.assertGreater(count, 25, (g.get("data-units"), color, found, png))
                # A line across the panel, not a dot (rates start at the 2nd sample).
                self.assertGreater(span, 0.6 * (x1 - x0), (color, found, png))
            self.assertEqual(found[UNUSED_PALETTE_COLOR][0], 0, found)


if __name__ == "__main__":
    unittest.main()
