"""Reading a PCP archive the way real PCP 6.0.3 and 7.2 do, for oracle tests.

Two independent views of one archive, both as plain Python data:

  read_with_libpcp(base)  libpcp 6.0.3 itself, through python3-pcp
                          (pcp.pmapi) and ctypes where the wrapper hides a
                          field (label flags, pmValueBlock type/length,
                          valfmt);
  read_with_libpcp7(base) libpcp 7.2, through tests/pcp/pcp7_archive_reader.c
                          (7.2 has no python), in the same shape;
  parse_pmdumplog(text)   the text of `pmdumplog -a -h -e -Z UTC -xxx` (6.0.3)
                          or of 7.2's `pmlogdump` with the same flags.

Every function that runs a PCP tool takes pcp="6" (Debian's 6.0.3, the
default) or pcp="7" (7.2, tests/pcp/pcp7.py).

And the checks shared by the tests:

  run_pmlogcheck(base)    `pmlogcheck -v`: exit 0 and nothing beyond what it
                          prints for a good archive written by LOGIMPORT.

Timestamps are (sec, nsec) tuples everywhere; values are Python ints, floats
(float32 widened exactly for PM_TYPE_FLOAT) or bytes (strings, without the
trailing NUL PCP stores).
"""

import ctypes
import json
import os
import re
import struct
import subprocess

import pcp7

# No site-wide derived metrics in the archives' namespace (they would show
# up in pmTraversePMNS and fail pmLookupDesc there).
os.environ["PCP_DERIVED_CONFIG"] = ""

from pcp import pmapi  # noqa: E402
import cpmapi as c_api  # noqa: E402

# libpcp's anonymous metrics, in every context's namespace.
ANON_METRICS = ("event.flags", "event.missed")

PM_TYPE_32, PM_TYPE_U32, PM_TYPE_64, PM_TYPE_U64 = 0, 1, 2, 3
PM_TYPE_FLOAT, PM_TYPE_DOUBLE, PM_TYPE_STRING = 4, 5, 6
INT_TYPES = (PM_TYPE_32, PM_TYPE_U32, PM_TYPE_64, PM_TYPE_U64)
PM_INDOM_NULL = 0xFFFFFFFF
PM_IN_NULL = -1

PM_TEXT_ONELINE, PM_TEXT_HELP, PM_TEXT_PMID, PM_TEXT_INDOM = 1, 2, 4, 8

PM_LABEL_CONTEXT = 1 << 0
PM_LABEL_DOMAIN = 1 << 1
PM_LABEL_INDOM = 1 << 2
PM_LABEL_CLUSTER = 1 << 3
PM_LABEL_ITEM = 1 << 4
PM_LABEL_INSTANCES = 1 << 5
PM_LABEL_OPTIONAL = 1 << 7

# pmdumplog's "Data Type:" and "Semantics:" words (libpcp pmTypeStr/desc.c).
TYPE_TEXT = {
    PM_TYPE_32: "32-bit int",
    PM_TYPE_U32: "32-bit unsigned int",
    PM_TYPE_64: "64-bit int",
    PM_TYPE_U64: "64-bit unsigned int",
    PM_TYPE_FLOAT: "float",
    PM_TYPE_DOUBLE: "double",
    PM_TYPE_STRING: "string",
}
SEM_TEXT = {1: "counter", 3: "instant", 4: "discrete"}


def float32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def pmid_str(pmid):
    return "%d.%d.%d" % ((pmid >> 22) & 0x1FF, (pmid >> 10) & 0xFFF, pmid & 0x3FF)


def indom_str(indom):
    return "%d.%d" % ((indom >> 22) & 0x1FF, indom & 0x3FFFFF)


def parse_stamp(text):
    """'sec.nsec' as printed by the C++ tools (nsec not zero-padded)."""
    sec, nsec = text.split(".")
    return (int(sec), int(nsec))


def to_usec_precision(t):
    return (t[0], t[1] // 1000 * 1000)


def typed_value(vtype, v):
    """A JSON value (from our tools) as the Python value libpcp gives."""
    if vtype in INT_TYPES:
        return int(v)
    if vtype == PM_TYPE_FLOAT:
        return float32(float(v))
    if vtype == PM_TYPE_DOUBLE:
        return float(v)
    if vtype == PM_TYPE_STRING:
        # JsonString writes bytes >= 0x7f as \u00XX: latin-1 gets them back.
        return v.encode("latin-1")
    raise ValueError("type %d" % vtype)


# ---------------------------------------------------------------------------
# pmlogcheck

PMLOGCHECK_OK_LINES = (
    r'Scanning for components of archive "{base}"',
    r"{base}\.(?:meta|index|\d+): start pass0 \.\.\. found \d+ records",
    r"{base}: start pass1 \(check temporal index\)",
    r"{base}: start pass2",
    r"{base}: start pass3",
    r"Processed \d+ pmResult records",
    r"Processed \d+ <mark> records",
)


def run_pmlogcheck(base, pcp="6"):
    """Runs `pmlogcheck -v base`; returns (rc, output, unexpected lines, counts).

    A good archive written by LOGIMPORT makes pmlogcheck -v print only the
    lines in PMLOGCHECK_OK_LINES (seen on 6.0.3); anything else is a
    complaint. counts maps file name -> records found, plus "results" and
    "marks".
    """
    if pcp == "7":
        rc, out = pcp7.pmlogcheck(base)
    else:
        p = subprocess.run(["pmlogcheck", "-v", base], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, env=pcp_env())
        rc, out = p.returncode, p.stdout.decode("utf-8", "replace")
    pats = [re.compile("^" + x.format(base=re.escape(base)) + "$")
            for x in PMLOGCHECK_OK_LINES]
    unexpected = [l for l in out.splitlines()
                  if not any(p_.match(l) for p_ in pats)]
    counts = {}
    for l in out.splitlines():
        m = re.match(r"^(\S+): start pass0 \.\.\. found (\d+) records$", l)
        if m:
            counts[m.group(1)] = int(m.group(2))
        m = re.match(r"^Processed (\d+) pmResult records$", l)
        if m:
            counts["results"] = int(m.group(1))
        m = re.match(r"^Processed (\d+) <mark> records$", l)
        if m:
            counts["marks"] = int(m.group(1))
    return rc, out, unexpected, counts


def pcp_env():
    env = dict(os.environ)
    env["TZ"] = "UTC"
    env["PCP_DERIVED_CONFIG"] = ""
    return env


def run(cmd, pcp="6", **kw):
    """(rc, stdout, stderr) of a PCP tool; pcp="7" runs 7.2's (pmdumplog is
    pmlogdump there)."""
    env = pcp_env()
    if pcp == "7":
        env = dict(pcp7.env(), TZ="UTC", PCP_DERIVED_CONFIG="")
        cmd = [pcp7.tool("pmlogdump" if cmd[0] == "pmdumplog" else cmd[0])] + list(cmd[1:])
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=env, **kw)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


# ---------------------------------------------------------------------------
# libpcp


def _label_sets(fn, *args):
    """Calls a pmGet*Labels function; returns [{inst, json, labels, flags}]."""
    p = ctypes.POINTER(pmapi.pmLabelSet)()
    n = fn(*args, ctypes.byref(p))
    if n < 0:
        raise pmapi.pmErr(n)
    out = []
    for i in range(n):
        s = p[i]
        text = s.json.decode("utf-8") if s.json is not None else ""
        raw = s.json or b""
        labels, flags = {}, {}
        for j in range(max(s.nlabels, 0)):
            lb = s.labels[j]
            name = raw[lb.name:lb.name + lb.namelen].decode("utf-8")
            value = raw[lb.value:lb.value + lb.valuelen].decode("utf-8")
            labels[name] = json.loads(value)
            flags[name] = lb.flags & 0xFF
        inst = s.inst
        if inst == 0xFFFFFFFF:
            inst = PM_IN_NULL
        out.append({"inst": inst, "json": text, "labels": labels, "flags": flags})
    if n > 0:
        pmapi.LIBPCP.pmFreeLabelSets(p, n)
    return out


def _labels_now(ctx, descs):
    """Every label set libpcp reports at the context's current time."""
    L = pmapi.LIBPCP
    L.pmUseContext(ctx.ctx)  # the pmGet*Labels calls below use it
    out = {"context": _label_sets(L.pmGetContextLabels)}
    domains = sorted({(d["pmid"] >> 22) & 0x1FF for d in descs.values()})
    out["domain"] = {dom: _label_sets(L.pmGetDomainLabels, dom) for dom in domains}
    # pmGetClusterLabels looks up exactly the ident it is given; the
    # archive's ident is pmID_build(domain, cluster, 0) (as pmLookupLabels
    # passes it). Keyed by that ident.
    out["cluster"] = {d["pmid"] & ~0x3FF: _label_sets(L.pmGetClusterLabels, d["pmid"] & ~0x3FF)
                      for d in descs.values()}
    out["item"] = {d["pmid"]: _label_sets(L.pmGetItemLabels, d["pmid"])
                   for d in descs.values()}
    indoms = sorted({d["indom"] for d in descs.values() if d["indom"] != PM_INDOM_NULL})
    out["indom"] = {i: _label_sets(L.pmGetInDomLabels, i) for i in indoms}
    out["instances"] = {i: _label_sets(L.pmGetInstancesLabels, i) for i in indoms}
    return out


def _value(ctx, vs_valfmt, v, vtype):
    """(value, raw) for one pmValue: raw is None (insitu) or (vtype, vlen, bytes)."""
    raw = None
    if vs_valfmt != 0:
        pv = v.value.pval.contents
        data = ctypes.string_at(ctypes.addressof(pv) + 4, pv.vlen - 4)
        raw = (pv.vtype, pv.vlen, data)
    if vtype == PM_TYPE_STRING:
        data = raw[2]
        if data.endswith(b"\0"):
            data = data[:-1]
        return data, raw
    atom = ctx.pmExtractValue(vs_valfmt, v, vtype, vtype)
    return atom.dref(vtype), raw


def read_with_libpcp(base):
    """Everything libpcp reports about archive `base`."""
    ctx = pmapi.pmContext(c_api.PM_CONTEXT_ARCHIVE, base)
    out = {}
    hl = ctx.pmGetHighResArchiveLabel()
    ll = ctx.pmGetArchiveLabel()
    out["label"] = {
        "magic": hl.magic & 0xFFFFFFFF,
        "version": hl.magic & 0xFF,
        "pid": hl.pid_t,
        "start": (hl.start.tv_sec, hl.start.tv_nsec),
        "start_usec": (ll.start.tv_sec, ll.start.tv_usec),
        "hostname": hl.get_hostname(),
        "timezone": hl.get_timezone(),
        "zoneinfo": hl.get_zoneinfo(),
        "v2_hostname": ll.get_hostname(),
        "v2_timezone": ll.get_timezone(),
    }
    end = ctx.pmGetHighResArchiveEnd()
    out["end"] = (end.tv_sec, end.tv_nsec)

    names = []
    ctx.pmTraversePMNS("", lambda n: None if n in ANON_METRICS else names.append(n))
    descs = {}
    for name in names:
        pmid = ctx.pmLookupName(name)[0]
        d = ctx.pmLookupDesc(pmid)
        desc = {
            "pmid": pmid, "name": name, "type": d.contents.type,
            "sem": d.contents.sem, "indom": d.contents.indom & 0xFFFFFFFF,
            "units": ctx.pmUnitsStr(d.contents.units),
            "name_of_pmid": ctx.pmNameID(pmid),
            "all_names": sorted(ctx.pmNameAll(pmid)),
        }
        texts = {}
        for kind in (PM_TEXT_ONELINE, PM_TEXT_HELP):
            try:
                t = ctx.pmLookupText(pmid, kind)
                texts[kind] = t if isinstance(t, bytes) else t.encode("utf-8")
            except pmapi.pmErr:
                pass
        desc["texts"] = texts
        if desc["indom"] != PM_INDOM_NULL:
            itexts = {}
            for kind in (PM_TEXT_ONELINE, PM_TEXT_HELP):
                try:
                    itexts[kind] = ctx.pmLookupInDomText(d, kind).encode("utf-8")
                except pmapi.pmErr:
                    pass
            desc["indom_texts"] = itexts
            try:
                insts, inames = ctx.pmGetInDomArchive(d)
                desc["indom_all"] = sorted(zip(insts or [], inames or []))
            except pmapi.pmErr as e:
                desc["indom_all"] = ("error", e.args[0])
        descs[name] = desc
        desc["_desc"] = d
    out["descs"] = descs
    by_pmid = {d["pmid"]: d for d in descs.values()}
    out["labels"] = _labels_now(ctx, descs)

    results = []
    while True:
        try:
            r = ctx.pmFetchHighResArchive()
        except pmapi.pmErr as e:
            out["fetch_end"] = e.args[0]
            break
        rr = r.contents
        rec = {"t": (rr.timestamp.tv_sec, rr.timestamp.tv_nsec),
               "numpmid": rr.numpmid, "sets": []}
        for i in range(rr.numpmid):
            vs = rr.get_vset(i).contents
            s = {"pmid": vs.pmid, "numval": vs.numval, "valfmt": vs.valfmt}
            if vs.numval < 0:
                s["error"] = vs.numval
            else:
                vals = []
                d = by_pmid.get(vs.pmid)
                for j in range(vs.numval):
                    v = rr.get_vlist(i, j)
                    value, raw = _value(ctx, vs.valfmt, v, d["type"])
                    name = None
                    if d["indom"] != PM_INDOM_NULL:
                        try:
                            name = ctx.pmNameInDomArchive(d["_desc"], v.inst)
                        except pmapi.pmErr as e:
                            name = ("error", e.args[0])
                    vals.append({"inst": v.inst, "value": value, "raw": raw,
                                 "name": name})
                s["values"] = vals
            rec["sets"].append(s)
        # The instance domains in force at this record's time.
        rec["indoms"] = {}
        for d in descs.values():
            if d["indom"] != PM_INDOM_NULL and d["indom"] not in rec["indoms"]:
                try:
                    insts, inames = ctx.pmGetInDom(indom=d["indom"])
                    rec["indoms"][d["indom"]] = sorted(zip(insts or [], inames or []))
                except pmapi.pmErr as e:
                    rec["indoms"][d["indom"]] = ("error", e.args[0])
        results.append(rec)
        ctx.pmFreeHighResResult(r)
    out["results"] = results

    # A second pass with the classic (struct timeval) API.
    ctx2 = pmapi.pmContext(c_api.PM_CONTEXT_ARCHIVE, base)
    stamps = []
    while True:
        try:
            r = ctx2.pmFetchArchive()
        except pmapi.pmErr as e:
            out["fetch_end_usec"] = e.args[0]
            break
        stamps.append((r.contents.timestamp.tv_sec, r.contents.timestamp.tv_usec,
                       r.contents.numpmid))
        ctx2.pmFreeResult(r)
    out["results_usec"] = stamps
    for d in descs.values():
        del d["_desc"]
    return out


# ---------------------------------------------------------------------------
# pmdumplog -a -h -e -Z UTC -xxx

# "Tue Nov 14 22:13:20.000005000 2023 (0.000000000) 1700000000"
_STAMP = r"\w{3} \w{3} +\d+ \d\d:\d\d:\d\d\.(\d+) \d{4} \([\d.]+\) (\d+)"


def _stamp(frac, epoch):
    return (int(epoch), int(frac.ljust(9, "0")))


def _value_text(text):
    if text.startswith('"') and text.endswith('"'):
        return text[1:-1].encode("utf-8")
    if re.match(r"^-?\d+$", text):
        return int(text)
    return float(text)


def parse_pmdumplog(text):
    """Parses pmdumplog -a -h -e -Z UTC -xxx output (PCP 6.0.3)."""
    lines = text.split("\n")
    out = {"label": {}, "descs": {}, "labels": [], "texts": text, "indoms": [],
           "index": [], "records": [], "unparsed": []}
    section = None
    rec = None
    cur_set = None
    cur_labels = None
    cur_indom = None
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if line == "":
            continue
        if line.startswith("Note: timezone set"):
            continue
        m = re.match(r"^Log Label \(Log Format Version (\d+)\)$", line)
        if m:
            section = "label"
            out["label"]["version"] = int(m.group(1))
            continue
        if section == "label":
            m = re.match(r"^Performance metrics from host (.*)$", line)
            if m:
                out["label"]["hostname"] = m.group(1)
                continue
            m = re.match(r"^    (commencing|ending) +\w{3} \w{3} +\d+ \d\d:\d\d:\d\d\.(\d+) "
                         r"\d{4}(?: \([\d.]+\))? (\d+)$", line)
            if m:
                out["label"][m.group(1)] = _stamp(m.group(2), m.group(3))
                continue
            m = re.match(r"^Archive timezone: (.*)$", line)
            if m:
                out["label"]["timezone"] = m.group(1)
                continue
            m = re.match(r"^Archive zoneinfo: (.*)$", line)
            if m:
                out["label"]["zoneinfo"] = m.group(1)
                continue
            m = re.match(r"^PID for pmlogger: (-?\d+)$", line)
            if m:
                out["label"]["pid"] = int(m.group(1))
                continue
        headers = {
            "Descriptions for Metrics in the Log ...": "descs",
            "Metric Labels in the Log ...": "labels",
            "Metric Help Text in the Log ...": "help",
            "Instance Domains in the Log ...": "indoms",
            "Temporal Index": "index",
        }
        if line in headers:
            section = headers[line]
            continue
        if re.match(r"^\[\d+ bytes\]$", line):
            section = "records"
            rec = None
            continue
        if section == "descs":
            m = re.match(r"^PMID: (\d+\.\d+\.\d+) \((.*)\)$", line)
            if m:
                cur = {"pmid": m.group(1), "name": m.group(2)}
                out["descs"][m.group(2)] = cur
                m2 = re.match(r"^    Data Type: (.*)  InDom: (\S+) (0x[0-9a-f]+)$", lines[i])
                m3 = re.match(r"^    Semantics: (\S+)  Units: (.*)$", lines[i + 1])
                if m2 and m3:
                    cur.update(type=m2.group(1), indom=int(m2.group(3), 16),
                               indom_text=m2.group(2), sem=m3.group(1),
                               units=m3.group(2))
                    i += 2
                    continue
            out["unparsed"].append(line)
            continue
        if section == "labels":
            m = re.match("^" + _STAMP + "$", line)
            if m:
                cur_labels = _stamp(m.group(1), m.group(2))
                continue
            m = re.match(r"^    (.*) labels \((\d+) bytes\): (.*)$", line)
            if m:
                out["labels"].append({"t": cur_labels, "what": m.group(1),
                                      "json": m.group(3), "flags": []})
                continue
            m = re.match(r"^        \[(\d+)\] name\((\d+),(\d+)\) : value\((\d+),(\d+)\) \[(.*)\]$", line)
            if m and out["labels"]:
                out["labels"][-1]["flags"].append(m.group(6))
                continue
            out["unparsed"].append(line)
            continue
        if section == "help":
            continue  # checked on the raw text
        if section == "indoms":
            m = re.match(r"^InDom: (\d+\.\d+)$", line)
            if m:
                cur_indom = m.group(1)
                continue
            m = re.match("^" + _STAMP + r" (\d+) instances?$", line)
            if m:
                out["indoms"].append({"indom": cur_indom, "t": _stamp(m.group(1), m.group(2)),
                                      "count": int(m.group(3)), "instances": []})
                continue
            m = re.match(r'^ +(-?\d+) or "(.*)"$', line)
            if m and out["indoms"]:
                out["indoms"][-1]["instances"].append((int(m.group(1)), m.group(2)))
                continue
            out["unparsed"].append(line)
            continue
        if section == "index":
            m = re.match("^" + _STAMP + r"\s+(\d+)\s+(\d+)\s+(\d+)$", line)
            if m:
                out["index"].append({"t": _stamp(m.group(1), m.group(2)),
                                     "volume": int(m.group(3)), "meta": int(m.group(4)),
                                     "data": int(m.group(5))})
                continue
            if re.match(r"^\s+Log Vol\s+end\(meta\)\s+end\(log\)$", line):
                continue
            out["unparsed"].append(line)
            continue
        if section == "records":
            m = re.match("^" + _STAMP + r"\s+(?:(\d+) metrics?|(<mark>))$", line)
            if m and rec is None:
                rec = {"t": _stamp(m.group(1), m.group(2)), "mark": m.group(4) is not None,
                       "numpmid": int(m.group(3)) if m.group(3) else 0, "sets": []}
                out["records"].append(rec)
                continue
            m = re.match(r"^    (\d+\.\d+\.\d+) \((.*?)\):(?: (.*))?$", line)
            if m and rec is not None:
                cur_set = {"pmid": m.group(1), "name": m.group(2), "values": [], "error": None}
                rec["sets"].append(cur_set)
                rest = m.group(3) or ""
                mv = re.match(r'^inst \[(-?\d+) or (".*"|\?\?\?)\] value (.*)$', rest)
                if rest.startswith("value "):
                    cur_set["values"].append((PM_IN_NULL, None, _value_text(rest[6:])))
                elif mv:
                    cur_set["values"].append((int(mv.group(1)), mv.group(2),
                                              _value_text(mv.group(3))))
                elif rest != "":
                    cur_set["error"] = rest
                continue
            m = re.match(r'^        inst \[(-?\d+) or (".*"|\?\?\?)\] value (.*)$', line)
            if m and cur_set is not None:
                cur_set["values"].append((int(m.group(1)), m.group(2), _value_text(m.group(3))))
                continue
            out["unparsed"].append(line)
            continue
        out["unparsed"].append(line)
    return out


def dumplog_instance_name(name_text):
    """'"disk0"' -> 'disk0'; '???' -> None."""
    if name_text is None or name_text == "???":
        return None
    return name_text[1:-1]


def values_close(vtype, expected, actual_text_value):
    """pmdumplog prints floats rounded; ints and strings exactly."""
    if vtype in (PM_TYPE_FLOAT, PM_TYPE_DOUBLE):
        e = float(expected)
        a = float(actual_text_value)
        return abs(e - a) <= 1e-6 * max(1.0, abs(e))
    return expected == actual_text_value


# ---------------------------------------------------------------------------
# libpcp 7.2


def read_with_libpcp7(base):
    """What read_with_libpcp gives, from PCP 7.2's libpcp (pcp7_archive_reader,
    built against it at test time), plus "labels_end": the label sets in
    force after the last record."""
    reader = pcp7.compile_c(pcp7.runfile("tests/pcp/pcp7_archive_reader.c"),
                            "pcp7_archive_reader")
    p = subprocess.run([reader, base], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=dict(pcp7.env(), TZ="UTC", PCP_DERIVED_CONFIG=""))
    if p.returncode != 0:
        raise AssertionError("pcp7_archive_reader %s: %s" % (base, p.stderr.decode()))
    js = json.loads(p.stdout.decode())

    def pairs(x):
        return x if isinstance(x, dict) else sorted((i, n) for i, n in x)

    def labels(ls):
        out = {"context": ls["context"]}
        for kind in ("domain", "cluster", "item", "indom", "instances"):
            out[kind] = {int(k): v for k, v in ls[kind].items()}
        return out

    out = {"label": js["label"], "end": tuple(js["end"])}
    out["label"]["start"] = tuple(out["label"]["start"])
    out["label"]["start_usec"] = tuple(out["label"]["start_usec"])
    descs = {}
    for name, d in js["descs"].items():
        d["texts"] = {int(k): bytes.fromhex(v) for k, v in d["texts"].items()}
        if "indom_texts" in d:
            d["indom_texts"] = {int(k): bytes.fromhex(v) for k, v in d["indom_texts"].items()}
        if "indom_all" in d:
            d["indom_all"] = (("error", d["indom_all"]["error"])
                              if isinstance(d["indom_all"], dict) else pairs(d["indom_all"]))
        descs[name] = d
    out["descs"] = descs
    by_pmid = {d["pmid"]: d for d in descs.values()}
    out["labels"] = labels(js["labels"])
    out["labels_end"] = labels(js["labels_end"])
    results = []
    for r in js["results"]:
        rec = {"t": tuple(r["t"]), "numpmid": r["numpmid"], "sets": [], "indoms": {}}
        for s in r["sets"]:
            if "values" in s:
                vals = []
                vtype = by_pmid[s["pmid"]]["type"] if s["pmid"] in by_pmid else None
                for v in s["values"]:
                    value = v["value"]
                    if vtype == PM_TYPE_STRING:
                        value = bytes.fromhex(value)
                    elif vtype in (PM_TYPE_FLOAT, PM_TYPE_DOUBLE) and value is not None:
                        value = float(value)
                    raw = v["raw"]
                    if raw is not None:
                        raw = (raw[0], raw[1], bytes.fromhex(raw[2]))
                    name = v["name"]
                    if isinstance(name, list):
                        name = tuple(name)
                    vals.append({"inst": v["inst"], "value": value, "raw": raw, "name": name})
                s = dict(s, values=vals)
            rec["sets"].append(s)
        for k, v in r["indoms"].items():
            rec["indoms"][int(k)] = (tuple(v) if v and v[0] == "error" else pairs(v))
        results.append(rec)
    out["results"] = results
    out["fetch_end"] = js["fetch_end"]
    out["results_usec"] = [tuple(x) for x in js["results_usec"]]
    out["fetch_end_usec"] = js["fetch_end_usec"]
    return out
