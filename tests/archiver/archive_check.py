"""Helpers for the recorder's crash and disk-full tests.

An independent reader of PCP archive framing (LOGARCHIVE(5)): it walks each
file record by record (length word, payload, repeated length word) without
mmvlog's code, so the tests can count the complete records a crash left and
see their timestamps; and small wrappers around PCP 6.0.3's pmdumplog and
pmlogcheck.
"""

import glob
import hashlib
import os
import re
import struct
import subprocess

PM_LOG_MAGIC = 0x50052600
LABEL_SIZE = {2: 132, 3: 808}  # whole label record, framing included
INDEX_ENTRY_SIZE = {2: 20, 3: 32}


def runfile(path):
    return os.path.join(os.environ["TEST_SRCDIR"], "mmvlog", path)


class FileScan:
    """The complete records of one archive file, and what follows them."""

    def __init__(self, path, label_only=False):
        self.path = path
        self.size = os.path.getsize(path)
        self.records = []  # (offset, total length, payload bytes)
        self.torn = 0  # bytes after the last complete record
        self.corrupt = None  # a record whose two length words differ
        with open(path, "rb") as f:
            data = f.read()
        pos = 0
        while pos < len(data):
            if len(data) - pos < 4:
                break
            (length,) = struct.unpack_from(">I", data, pos)
            if length < 8 or length > len(data) - pos:
                break
            (trailer,) = struct.unpack_from(">I", data, pos + length - 4)
            if trailer != length:
                self.corrupt = "record at offset %d: lengths %d and %d differ" % (
                    pos, length, trailer)
                break
            self.records.append((pos, length, data[pos + 4:pos + length - 4]))
            pos += length
            if label_only:
                # .index: fixed-size entries, not framed, follow the label.
                pos = len(data)
                break
        self.good_end = pos
        self.torn = len(data) - pos

    def label_version(self):
        """The archive version in a complete label record, or None."""
        if not self.records:
            return None
        _, length, payload = self.records[0]
        (magic,) = struct.unpack_from(">I", payload, 0)
        if magic & 0xFFFFFF00 != PM_LOG_MAGIC:
            return None
        version = magic & 0xFF
        if LABEL_SIZE.get(version) != length:
            return None
        return version


class Record:
    def __init__(self, volume, offset, sec, nsec, numpmid, logue=False):
        self.volume, self.offset = volume, offset
        self.sec, self.nsec, self.numpmid = sec, nsec, numpmid
        self.logue = logue  # pmlogger's prologue or epilogue (pmcd.pmlogger.*)

    @property
    def stamp(self):
        return (self.sec, self.nsec)

    @property
    def mark(self):
        return self.numpmid == 0

    def __repr__(self):
        return "%s@%d.%09d(vol %d off %d)" % (
            "mark" if self.mark else "result", self.sec, self.nsec, self.volume,
            self.offset)


def is_logue(version, payload):
    """Whether a result's first PMID is pmcd's (domain 2): a prologue/epilogue."""
    at = 12 if version == 2 else 16
    if len(payload) < at + 4 or struct.unpack_from(">i", payload, at - 4)[0] <= 0:
        return False
    return (struct.unpack_from(">I", payload, at)[0] >> 22) & 0x1FF == 2


def decode_result_header(version, payload):
    if version == 2:
        sec, usec, numpmid = struct.unpack_from(">iIi", payload, 0)
        return sec, usec * 1000, numpmid
    lo, hi, nsec, numpmid = struct.unpack_from(">IIIi", payload, 0)
    sec = (hi << 32) | lo
    if sec >= 1 << 63:
        sec -= 1 << 64
    return sec, nsec, numpmid


class ArchiveScan:
    """Every file of archive `base`: which exist, the complete results and
    marks in volume order, torn tails, and anything that is not a torn tail."""

    def __init__(self, base):
        self.base = base
        self.files = {}  # suffix -> FileScan
        for path in glob.glob(glob.escape(base) + ".*"):
            suffix = path[len(base) + 1:]
            if suffix in ("meta", "index") or suffix.isdigit():
                self.files[suffix] = FileScan(path, label_only=suffix == "index")
        self.extra = sorted(
            p for p in glob.glob(glob.escape(base) + ".*")
            if p[len(base) + 1:] not in self.files)
        meta = self.files.get("meta")
        self.version = meta.label_version() if meta else None
        self.volumes = sorted(int(s) for s in self.files if s.isdigit())
        self.records = []
        self.problems = []
        for name, f in sorted(self.files.items()):
            if f.corrupt:
                self.problems.append("%s: %s" % (f.path, f.corrupt))
        if self.version is None:
            return
        for n in self.volumes:
            f = self.files[str(n)]
            if f.label_version() is None:
                continue  # died while creating the volume
            if f.label_version() != self.version:
                self.problems.append("%s: label version %s, .meta says %s" % (
                    f.path, f.label_version(), self.version))
            for offset, _, payload in f.records[1:]:
                sec, nsec, numpmid = decode_result_header(self.version, payload)
                self.records.append(Record(n, offset, sec, nsec, numpmid,
                                           is_logue(self.version, payload)))

    @property
    def results(self):
        """The samples: not marks, not the prologue or epilogue."""
        return [r for r in self.records if not r.mark and not r.logue]

    @property
    def logues(self):
        return [r for r in self.records if r.logue]

    @property
    def marks(self):
        return [r for r in self.records if r.mark]

    def sizes(self):
        return {s: f.size for s, f in sorted(self.files.items())}

    def torn(self):
        out = {s: f.torn for s, f in sorted(self.files.items()) if f.torn}
        index = self.files.get("index")
        if index is not None and self.version in INDEX_ENTRY_SIZE:
            body = index.size - LABEL_SIZE[self.version]
            if body < 0 or body % INDEX_ENTRY_SIZE[self.version]:
                out["index"] = body
        return out


def time_order_problems(records):
    """Results strictly increasing; a mark not before the record ahead of it
    and not after the one behind it."""
    out = []
    for a, b in zip(records, records[1:]):
        if a.mark or b.mark:
            if b.stamp < a.stamp:
                out.append("%r then %r: time goes backwards" % (a, b))
        elif not a.stamp < b.stamp:
            out.append("%r then %r: timestamps not strictly increasing" % (a, b))
    return out


def digest(base):
    """Bytes of every file of the archive, to tell whether anything changed."""
    out = {}
    for path in sorted(glob.glob(glob.escape(base) + ".*")):
        with open(path, "rb") as f:
            out[os.path.basename(path)] = hashlib.sha256(f.read()).hexdigest()
    return out


RECORD_LINE = re.compile(r"^(\d\d:\d\d:\d\d\.\d+) +(?:(\d+) metrics?|(<mark>))\s*$")
VALUE_LINE = re.compile(r"^\s+[\d.]+ \(([^)]+)\): value (\S+)\s*$")


class Dump:
    """pmdumplog -a ARCHIVE, parsed: records (time text, numpmid or 0 for a
    mark) and, per record, singular metric values by name."""

    def __init__(self, base, env=None):
        p = subprocess.run(["pmdumplog", "-a", base], capture_output=True,
                           text=True, env=env)
        self.rc, self.stdout, self.stderr = p.returncode, p.stdout, p.stderr
        self.records = []
        self.values = []  # per record: {metric name: value text}
        for line in self.stdout.splitlines():
            # Instance domain records look alike ("HH:MM:SS.uuuuuu N
            # instances") but do not say "metrics" or "<mark>".
            m = RECORD_LINE.match(line)
            if m:
                self.records.append((m.group(1), 0 if m.group(3) else int(m.group(2))))
                self.values.append({})
                continue
            if self.values:
                v = VALUE_LINE.match(line)
                if v:
                    self.values[-1][v.group(1)] = v.group(2)
        self.marks = sum(1 for _, n in self.records if n == 0)

    def opened(self):
        return self.rc == 0 or bool(self.records)


def pmlogcheck(base):
    p = subprocess.run(["pmlogcheck", base], capture_output=True, text=True)
    return p.returncode, (p.stdout + p.stderr).strip()


def index_entries(path, version):
    """The whole entries of a .index file after its label, as (volume, .meta
    offset, volume offset) tuples."""
    with open(path, "rb") as f:
        data = f.read()[LABEL_SIZE[version]:]
    size = INDEX_ENTRY_SIZE[version]
    out = []
    for at in range(0, len(data) - size + 1, size):
        if version == 2:
            vol, meta, off = struct.unpack_from(">iII", data, at + 8)
        else:
            vol, meta, off = struct.unpack_from(">iQQ", data, at + 12)
        out.append((vol, meta, off))
    return out
