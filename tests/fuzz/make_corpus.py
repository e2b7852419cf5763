#!/usr/bin/env python3
"""Makes the seed corpora of tests/fuzz from files mmvlog writes itself.

    tests/fuzz/make_corpus.py MMVLOG [OUT]      (OUT: tests/fuzz/corpus)

Runs `mmvlog demo` (its MMV file comes from mmvlog's own writer) and
`mmvlog capture -V 2` of that file, then cuts the archives into what each
target reads: label payloads, .meta record payloads and result payloads
(prefixed with a version byte: 2 or 3), index entries, whole volumes; and
writes a few lines of the text people type. Deterministic apart from times
and values in the recorded samples.
"""

import os
import struct
import subprocess
import sys
import tempfile


def frames(data, start=0):
    """Payloads of the length-framed records of `data` from `start`."""
    out, at = [], start
    while at + 8 <= len(data):
        n, = struct.unpack(">I", data[at:at + 4])
        if n < 8 or at + n > len(data):
            break
        out.append(data[at + 4:at + n - 4])
        at += n
    return out, at


def write(directory, name, data):
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, name), "wb") as f:
        f.write(data)


def main():
    mmvlog = os.path.abspath(sys.argv[1])
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "corpus")
    work = tempfile.mkdtemp()
    subprocess.run([mmvlog, "demo", "--dir", work, "--steps", "3"], check=True,
                   stdout=subprocess.DEVNULL)
    mmv_file = os.path.join(work, "mmv", "demo")
    subprocess.run([mmvlog, "capture", "--no-dir", "-V", "2", "-s", "2", "-t", "50msec",
                    mmv_file, os.path.join(work, "v2")], check=True, stdout=subprocess.DEVNULL)
    with open(mmv_file, "rb") as f:
        write(os.path.join(out, "mmv"), "demo", f.read())
    for base, version in ((os.path.join(work, "archive"), 3), (os.path.join(work, "v2"), 2)):
        tag = "v%d" % version
        vb = bytes([version])
        with open(base + ".meta", "rb") as f:
            meta = f.read()
        records, _ = frames(meta)
        write(os.path.join(out, "archive_label"), tag, records[0])
        for i, r in enumerate(records[1:8]):
            write(os.path.join(out, "archive_meta"), "%s_%d" % (tag, i), vb + r)
        with open(base + ".0", "rb") as f:
            volume = f.read()
        write(os.path.join(out, "archive_framing"), tag, volume)
        records, _ = frames(volume)
        for i, r in enumerate(records[1:3]):
            write(os.path.join(out, "archive_result"), "%s_%d" % (tag, i), vb + r)
        with open(base + ".index", "rb") as f:
            index = f.read()
        _, end = frames(index)
        label_end = struct.unpack(">I", index[:4])[0]
        write(os.path.join(out, "archive_index"), tag, vb + index[label_end:])
    texts = ["10sec", "1.5 min", "250msec", "2h30m", "1min 30sec", "@10:05", "+5min",
             "-30sec", "@Mon Nov 24 10:00:00 2026", "@2026-11-24 10:05:30.25", "100M",
             "10Gbyte", "1.5hours", "@13:10\n-T 2h30m\n10sec\n+20sec"]
    for i, t in enumerate(texts):
        write(os.path.join(out, "user_text"), "t%02d" % i, t.encode())
    for name, data in event_arrays():
        write(os.path.join(out, "event_record"), name, data)
    labels = {"plain": '{"a":1,"b":"x"}',
              "compound": '{"svc":{"name":"web","tier":{"z":2,"a":1}}}',
              "array": '{"ports":[80,443],"plain":"v"}',
              "merge": '{"a":1}\0{"b":{"c":[1,{"d":null}]}}\0{"a":"late"}',
              "spaces": ' { "x" : { "y" : true } , "z" : -1.5e3 } ',
              "empty": '{"B":{}}', "bad": '{"a":{"1b":2}}'}
    for name, text in labels.items():
        write(os.path.join(out, "label_json"), name, text.encode())


def event_arrays():
    """Event array values in the layouts pmlogger writes (see
    format/archive/archive_format.h): a selector byte (odd: high resolution), then
    nrecords and the records."""
    def param(pmid, vtype, value):
        pad = b"\0" * (-len(value) % 4)
        return struct.pack(">II", pmid, (vtype << 24) | (4 + len(value))) + value + pad

    params = [param(0x07400080, 0, struct.pack(">i", -14)),
              param(0x07400083, 3, struct.pack(">Q", 11)),
              param(0x07400084, 4, struct.pack(">f", -17)),
              param(0x07400085, 5, struct.pack(">d", -9)),
              param(0x07400086, 6, b"fetch #5"),
              param(0x07400087, 7, bytes([1, 3, 7, 15, 31, 63, 127, 255]))]
    for selector, stamp in ((2, struct.pack(">II", 1415800851, 555839)),
                            (3, struct.pack(">qq", 1415800851, 555941984))):
        name = "highres" if selector == 3 else "event"
        records = [stamp + struct.pack(">II", 0x1a, len(params)) + b"".join(params),
                   stamp + struct.pack(">II", 0x80000000, 7),
                   stamp + struct.pack(">II", 1, 0)]
        yield name, bytes([selector]) + struct.pack(">I", len(records)) + b"".join(records)
        yield name + "_empty", bytes([selector]) + struct.pack(">I", 0)


if __name__ == "__main__":
    main()
