"""`mmvlog replay --plot FILE.svg`, rendered by a real browser.

An archive of the built-in demo application (changing counters and gauges)
is plotted; headless Chromium renders the SVG to a PNG in $TEST_TMPDIR; the
PNG is decoded here (zlib, no imaging library) and every legend colour must
be drawn as a line across the plot area. A colour of the palette that no
series uses must not be there (so the pixel test can tell).

(All series share one y axis: series of very different scales, such as
request rates in the hundreds and a 0-1 utilisation, flatten the small ones
onto each other. So rates and utilisation are plotted separately here.)
"""

import os
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
UNUSED_PALETTE_COLOR = "#8c564b"  # the 6th colour of replay's palette; at most 4 series here

# Plot name: (metrics, how many series, texts the legend must have).
PLOTS = {
    "rates": (["mmv.demo.requests.total", "mmv.demo.queue.depth"], 4,
              ["mmv.demo.requests.total[/api/users] (count / sec)", "mmv.demo.queue.depth (count)"]),
    "cpu": (["mmv.demo.cpu.util"], 2, ["mmv.demo.cpu.util[cpu0]", "mmv.demo.cpu.util[cpu1]"]),
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


class PlotTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.root = cmdtest.fresh_dir("plot")
        demo_dir = os.path.join(cls.root, "demo")
        p = cmdtest.run([MMVLOG, "demo", "--dir", demo_dir, "--steps", "10"], timeout=60)
        if p.returncode != 0:
            raise AssertionError(describe(p))
        cls.archive = os.path.join(demo_dir, "archive")
        cls.svgs, cls.stderr = {}, {}
        for name, (metrics, _, _) in PLOTS.items():
            svg = os.path.join(cls.root, name + ".svg")
            p = cmdtest.run([MMVLOG, "replay", "--plot", svg, cls.archive] + metrics)
            if p.returncode != 0:
                raise AssertionError(describe(p))
            cls.svgs[name] = svg
            cls.stderr[name] = p.stderr

    def svg_layout(self, name):
        svg = ET.parse(self.svgs[name]).getroot()
        width, height = int(float(svg.get("width"))), int(float(svg.get("height")))
        frame = next(r for r in svg.iter(SVG_NS + "rect") if r.get("stroke") == "#333")
        area = tuple(float(frame.get(k)) for k in ("x", "y", "width", "height"))
        legend = [r.get("fill") for r in svg.iter(SVG_NS + "rect")
                  if r.get("width") == "14" and r.get("height") == "4"]
        lines = [p.get("stroke") for p in svg.iter(SVG_NS + "polyline")]
        texts = [t.text or "" for t in svg.iter(SVG_NS + "text")]
        return width, height, area, legend, lines, texts

    def test_svg_has_a_line_per_series(self):
        for name, (_, series, legend_texts) in PLOTS.items():
            with self.subTest(plot=name):
                self.assertIn("plot written to %s" % self.svgs[name], self.stderr[name])
                _, _, _, legend, lines, texts = self.svg_layout(name)
                self.assertEqual(len(legend), series)
                self.assertEqual(len(set(legend)), series)
                self.assertEqual(sorted(set(lines)), sorted(legend))
                self.assertNotIn(UNUSED_PALETTE_COLOR, legend)
                for t in legend_texts:
                    self.assertIn(t, texts)

    def test_chromium_renders_every_line(self):
        chromium = find_chromium()
        self.assertIsNotNone(chromium, "chromium is not installed: run bash bazel/setup.sh")
        for name in PLOTS:
            with self.subTest(plot=name):
                self.check_rendering(chromium, name)

    def check_rendering(self, chromium, name):
        width, height, (ax, ay, aw, ah), legend, _, _ = self.svg_layout(name)
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
        # Inside the frame, away from its border.
        x0, x1 = int(ax) + 3, int(ax + aw) - 3
        y0, y1 = int(ay) + 3, int(ay + ah) - 3
        found = {}
        for color in legend + [UNUSED_PALETTE_COLOR]:
            want = rgb(color)
            xs = [x for y in range(y0, y1) for x in range(x0, x1) if near(pixels[y][x], want)]
            found[color] = (len(xs), (max(xs) - min(xs)) if xs else 0)
        for color in legend:
            count, span = found[color]
            self.assertGreater(count, 50, (color, found, png))
            # A line across the plot, not a dot (rates start at the 2nd sample).
            self.assertGreater(span, 0.6 * (x1 - x0), (color, found, png))
        self.assertEqual(found[UNUSED_PALETTE_COLOR][0], 0, found)
        # The legend swatches are drawn too, right of the plot area.
        for k, color in enumerate(legend):
            ys = range(int(ay) + 10 + 20 * k, int(ay) + 14 + 20 * k)
            xs = range(int(ax + aw) + 16, int(ax + aw) + 30)
            self.assertTrue(any(near(pixels[y][x], rgb(color), 8) for y in ys for x in xs), color)

if __name__ == "__main__":
    unittest.main()
