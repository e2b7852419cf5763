"""Helpers for the end-to-end tests of the mmvlog binary (tests/cmd).

The tests run //cmd:mmvlog as a user would: the built binary, real files in
the test's own temporary directory, real signals, and real PCP 6.0.3 tools
(pmlogcheck, pmdumplog, pmrep) as the judges of what it wrote.

  runfile(path)              a file of the workspace in the test's runfiles
  MMVLOG, WRITER             the mmvlog binary and tests/pcp/pcp_mmv_writer
  fresh_dir(name)            an empty directory under $TEST_TMPDIR
  MmvFiles(root)             a private PCP_TMP_DIR with MMV files written by
                             the real libpcp_mmv (pcp_mmv_writer); .env is an
                             environment with PCP_TMP_DIR pointing at it, and
                             .poke_*() change values in place while a
                             recorder reads them
  run(args, ...)             subprocess.run with text output and a timeout
  pmlogcheck(base)           (returncode, output) of `pmlogcheck -v base`
  pmdumplog(*args)           stdout of pmdumplog (raises on failure)
  archive_label(base)        {"start", "end", "version"} from pmdumplog -L
  temporal_index(base)       [(time text, vol, meta end, log end)] from -t
"""

import json
import os
import re
import shutil
import struct
import subprocess


def runfile(path):
    return os.path.join(os.environ["TEST_SRCDIR"], "mmvlog", path)


MMVLOG = runfile("cmd/mmvlog")
WRITER = runfile("tests/pcp/pcp_mmv_writer")

# PCP's Python tools need Debian's python3 (python3-pcp), not whichever
# python3 is first on PATH (shared/notes/MACHINE.md).
PMPYTHON = "/usr/bin/python3"

# A log line of mmvlog record/capture: "2026-11-22 10:00:00.123 info: ..."
LOG_LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} (info|warning|error): \S")


def tmp_root():
    return os.environ.get("TEST_TMPDIR", "/tmp")


def fresh_dir(name):
    path = os.path.join(tmp_root(), name)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def run(args, env=None, timeout=60, cwd=None, stdin=subprocess.DEVNULL):
    """Runs a command; stdout/stderr as text. Never raises on exit status."""
    return subprocess.run([str(a) for a in args], env=env, cwd=cwd, stdin=stdin,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=timeout, universal_newlines=True, errors="replace")


def help_option_names(sub):
    """The option names (short and long) `mmvlog SUB --help` lists."""
    p = run([MMVLOG, sub, "--help"])
    if p.returncode != 0:
        raise AssertionError(describe(p))
    names = set()
    for line in p.stdout.split("\n"):
        m = re.match(r"^  (?:(-\w)(?:, )?|    )(--[\w-]+)?(?:, (--[\w-]+))?", line)
        if m:
            names.update(n for n in m.groups() if n)
    return names


def describe(p):
    return "rc=%s\nstdout:\n%s\nstderr:\n%s" % (p.returncode, p.stdout, p.stderr)


def lines(text):
    return [l for l in text.split("\n") if l.strip()]


# ---------------------------------------------------------------------------
# MMV files written by the real libpcp_mmv


def mmv_value_offsets(data):
    """{(item, instance id or None): byte offset of the value} of an MMV file."""
    version, = struct.unpack_from("<I", data, 4)
    tocs, = struct.unpack_from("<i", data, 24)
    sections = {}
    for i in range(tocs):
        kind, count, offset = struct.unpack_from("<iiQ", data, 40 + 16 * i)
        sections[kind] = (count, offset)
    count, offset = sections[4]  # VALUES
    out = {}
    for k in range(count):
        at = offset + 32 * k
        _, _, moff, ioff = struct.unpack_from("<QqQQ", data, at)
        item, _ = struct.unpack_from("<Ii", data, moff + (64 if version == 1 else 8))
        inst = struct.unpack_from("<i", data, ioff + 12)[0] if ioff else None
        out[(item, inst)] = at
    return out


class MmvFiles:
    """A private PCP_TMP_DIR whose mmv/ holds files written by pcp_mmv_writer.

    The writer's content (tests/pcp/pcp_mmv_writer.c): 11 metrics in v1
    files, 12 in v2/v3, among them requests.total (item 1, U64 counter,
    count, singular), cpu.busy (item 2, U32 instant, msec, instances cpu0
    cpu1 cpu5 = 100, 200, 300), signed32 (item 3, I32 -42), elapsed (item 9,
    ELAPSED counter, microsec).
    """

    def __init__(self, root, files=(("alpha", "v1", 0, 0), ("bravo", "v3", 11, 0))):
        self.root = os.path.abspath(root)
        self.mmv_dir = os.path.join(self.root, "mmv")
        os.makedirs(self.mmv_dir, exist_ok=True)
        self.env = dict(os.environ, PCP_TMP_DIR=self.root)
        self.info = {}
        for name, mode, cluster, flags in files:
            p = subprocess.run([WRITER, "--json", name, mode, str(cluster), str(flags)],
                               env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               check=True)
            self.info[name] = json.loads(p.stdout.decode())
        self._offsets = {}

    def path(self, name):
        return os.path.join(self.mmv_dir, name)

    def metrics(self):
        return sum(len(i["metrics"]) for i in self.info.values())

    def values(self):
        return sum(len(i["values"]) for i in self.info.values())

    def _offset(self, name, item, inst):
        if name not in self._offsets:
            with open(self.path(name), "rb") as f:
                self._offsets[name] = mmv_value_offsets(f.read())
        return self._offsets[name][(item, inst)]

    def poke(self, name, item, inst, fmt, value):
        """Writes one value in place, as the instrumented application would."""
        with open(self.path(name), "r+b") as f:
            f.seek(self._offset(name, item, inst))
            f.write(struct.pack(fmt, value))

    def set_counter(self, name, value):
        """requests.total (item 1, U64 counter)."""
        self.poke(name, 1, None, "<Q", value)

    def set_elapsed(self, name, usec):
        """elapsed (item 9, ELAPSED: a 64-bit microsecond counter)."""
        self.poke(name, 9, None, "<q", usec)

    def set_busy(self, name, inst, value):
        """cpu.busy[inst] (item 2, U32 instant)."""
        self.poke(name, 2, inst, "<I", value)


# ---------------------------------------------------------------------------
# PCP's view of an archive


def pmlogcheck(base):
    p = run(["pmlogcheck", "-v", base], env=dict(os.environ, PCP_DERIVED_CONFIG=""))
    return p.returncode, p.stdout + p.stderr


def pmdumplog(*args):
    p = run(["pmdumplog"] + list(args), env=dict(os.environ, PCP_DERIVED_CONFIG=""))
    if p.returncode != 0:
        raise AssertionError("pmdumplog %s failed:\n%s" % (" ".join(args), describe(p)))
    return p.stdout


def archive_label(base):
    text = pmdumplog("-L", base)
    out = {}
    m = re.search(r"Log Format Version (\d+)", text)
    out["version"] = int(m.group(1)) if m else None
    for key in ("commencing", "ending"):
        m = re.search(r"^\s+%s\s+\w{3} \w{3} +\d+ (\d\d:\d\d:\d\d\.\d+) \d{4}" % key, text, re.M)
        out[key] = m.group(1) if m else None
    return out


def temporal_index(base):
    """[(time text, volume, end of meta, end of log)] as pmdumplog -t shows."""
    out = []
    for line in pmdumplog("-t", base).split("\n"):
        m = re.match(r"^(\d\d:\d\d:\d\d\.\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*$", line)
        if m:
            out.append((m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4))))
    return out


def processed_results(check_output):
    m = re.search(r"Processed (\d+) pmResult records", check_output)
    return int(m.group(1)) if m else None


def logue_records(base):
    """How many prologue/epilogue records (pmcd.pmlogger.*) archive `base` holds."""
    return len(re.findall(r"^\s+2\.3\.3 \(pmcd\.pmlogger\.host\):", pmdumplog("-a", base),
                          re.M))


def sample_results(base, check_output):
    """pmlogcheck's result count without the prologue and epilogue."""
    n = processed_results(check_output)
    return None if n is None else n - logue_records(base)


def archive_bases(directory):
    """Base names of the archives in `directory` (one per .meta file)."""
    return sorted(os.path.join(directory, f[:-len(".meta")])
                  for f in os.listdir(directory) if f.endswith(".meta"))

