"""Real PCP as a side-by-side recorder: private pmcd + MMV PMDA + pmlogger.

For tests that compare mmvlog's archives with what PCP 6.0.3 itself records
from the same MMV files:

  start_pmcd(tmp_dir)       a private pmcd (pmcd's own PMDA and the MMV PMDA,
                            both DSOs) that reads MMV files from
                            tmp_dir/mmv, never /var/lib/pcp/tmp/mmv; raises
                            unittest.SkipTest, loudly, if pmcd cannot run here
  record_with_pmlogger(h, base, samples, interval_sec, version)
                            pmlogger records the `mmv` subtree through it
  stop_pmcd(h)              SIGTERM (then SIGKILL) of that one pmcd process
  dump_archive(base)        `pmdumplog -a -h -e -Z UTC base`
  normalize_dumplog(text)   that output in a comparable, order-free form
  render(norm) / diff_normalized(a, b)
                            the normal form as text lines, and a unified diff
  expected_mmvlog_view(norm, files)
                            pmlogger's normal form with mmvlog's intended
                            differences applied (the list is in that
                            function's docstring and in
                            pmlogger_side_by_side_test.py)

The pmcd recipe (worked out by hand on Debian 12 / PCP 6.0.3; each step
avoids a pitfall that was hit):

  pmcd -f -p PORT -i 127.0.0.1 -A -U root -c PRIVATE_pmcd.conf
       -n PRIVATE_pmns -s /tmp/SHORT/pmcd.socket -l WORK/pmcd.log
  with PCP_TMP_DIR=tmp_dir and PCP_RUN_DIR=WORK/run in its environment.

  - pmcd reads PCP_TMP_DIR from its environment (libpcp lets the environment
    override /etc/pcp.conf), and so does the MMV PMDA inside it: it then
    scans tmp_dir/mmv.
  - The MMV PMDA is a DSO (`mmv 70 dso mmv_init .../pmda_mmv.so` in the
    system pmcd.conf), so a private pmcd.conf with just the pmcd and mmv DSO
    lines is enough. pmcd's own PMDA is needed: pmlogger reads
    pmcd.timezone/zoneinfo/hostname at start and pmcd.pid, pmcd.seqnum and
    pmcd.pmlogger.* for its prologue and epilogue.
  - /var/lib/pcp/pmns/root may not exist (it is built by the init script's
    PMNS Rebuild, which never ran on these machines): without -n, pmcd exits
    with "Cannot open /var/lib/pcp/pmns/root". A private PMNS made by
    `pmnsmerge root_pmcd root_mmv` (mmv is a dynamic subtree, 70:*:*) works.
  - $PCP_RUN_DIR (/run/pcp) may not exist: the default unix socket then
    fails to bind (logged, not fatal). -s puts it in a private directory;
    sun_path holds at most 107 bytes, and Bazel's TEST_TMPDIR is longer than
    that, so the socket lives in a short mkdtemp() directory under /tmp.
  - Clients connect over TCP, "127.0.0.1:PORT": over the unix socket pmcd
    adds "userid" and "groupid" to the context labels, which pmlogger then
    records (pmcd over inet gives hostname/domainname/machineid only).
  - -f keeps pmcd in the foreground, so the Popen pid is pmcd's own pid and
    it is stopped by that pid alone (SIGTERM: "pmcd Shutdown" in its log).
  - -U root: files under a 0700 directory (Bazel's output base is in /root)
    stay readable whatever user pmcd would run as (on 6.0.3 it stayed root
    anyway); only passed when we are root.
  - -A: no service advertisement; -i 127.0.0.1: nothing listens outside
    (the "ipv6 127.0.0.1" error line in pmcd.log is harmless).
  - The port is a free one picked by binding port 0. If pmcd still loses the
    race it does NOT exit: it logs "err -1 PORT inet" in its port table and
    serves the unix socket only. That line is watched for, and then pmcd is
    stopped and another port tried.
  - pmcd_wait -h 127.0.0.1:PORT tells when pmcd accepts contexts.
  - pmlogger: -h 127.0.0.1:PORT, PCP_TMP_DIR set (it creates
    $PCP_TMP_DIR/pmlogger/<pid> as its control file), -l for its log; its
    control port starts at 4330 and moves up when taken. `-s N` counts data
    samples: it writes prologue, N results, epilogue. It takes the first
    sample at once, so N samples last (N-1) * interval.
  - MMV files should exist before pmcd starts (a later file is found on the
    next fetch through the directory mtime check, but static files make the
    two recorders' views identical).
"""

import atexit
import difflib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

MMV_DOMAIN = 70
PMCD_DOMAIN = 2

PM_INDOM_NULL_TEXT = "PM_INDOM_NULL"

# MMV flags (mmv_stats.h).
MMV_FLAG_NOPREFIX, MMV_FLAG_PROCESS, MMV_FLAG_SENTINEL = 1, 2, 4


# ---------------------------------------------------------------------------
# Where PCP lives


def _pcp_conf():
    """/etc/pcp.conf (or $PCP_CONF) as a dict; the environment wins, as in libpcp."""
    conf = {}
    path = os.environ.get("PCP_CONF", "/etc/pcp.conf")
    try:
        with open(path) as f:
            for line in f:
                m = re.match(r"^(PCP_\w+)=(.*)$", line.strip())
                if m:
                    conf[m.group(1)] = m.group(2).strip("'\"")
    except OSError:
        pass
    for k in list(conf):
        if k in os.environ:
            conf[k] = os.environ[k]
    return conf


_CONF = _pcp_conf()
BINADM_DIR = _CONF.get("PCP_BINADM_DIR", "/usr/lib/pcp/bin")
PMDAS_DIR = _CONF.get("PCP_PMDAS_DIR", "/var/lib/pcp/pmdas")
VAR_DIR = _CONF.get("PCP_VAR_DIR", "/var/lib/pcp")

PMCD = os.path.join(BINADM_DIR, "pmcd")
PMCD_WAIT = os.path.join(BINADM_DIR, "pmcd_wait")
PMNSMERGE = os.path.join(BINADM_DIR, "pmnsmerge")
PMDA_PMCD = os.path.join(PMDAS_DIR, "pmcd", "pmda_pmcd.so")
PMDA_MMV = os.path.join(PMDAS_DIR, "mmv", "pmda_mmv.so")
PMNS_PMCD = os.path.join(VAR_DIR, "pmns", "root_pmcd")
PMDA_LINUX = os.path.join(PMDAS_DIR, "linux", "pmda_linux.so")
PMNS_LINUX = os.path.join(VAR_DIR, "pmns", "root_linux")
PMDA_PROC = os.path.join(PMDAS_DIR, "proc", "pmda_proc.so")
PMNS_PROC = os.path.join(VAR_DIR, "pmns", "root_proc")
PMNS_MMV_CANDIDATES = (os.path.join(VAR_DIR, "pmns", "root_mmv"),
                       os.path.join(PMDAS_DIR, "mmv", "root_mmv"))


def _loud_skip(why, detail=""):
    """Prints a banner on stderr (Bazel keeps it in test.log) and skips."""
    banner = "=" * 72
    msg = ("pmcd cannot run on this machine, so the side-by-side comparison "
           "with real PCP is SKIPPED: %s" % why)
    sys.stderr.write("\n%s\n%s\n%s%s\n" % (banner, msg, detail and detail + "\n", banner))
    sys.stderr.flush()
    raise unittest.SkipTest(msg)


def _free_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
    finally:
        s.close()


def _tail(path, n=40):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-n:])
    except OSError:
        return "(no %s)" % path


# ---------------------------------------------------------------------------
# pmcd


class PmcdHandle:
    """A private pmcd started by start_pmcd; stop it with stop_pmcd."""

    def __init__(self, proc, port, tmp_dir, work_dir, sock_dir, log_path):
        self.proc = proc
        self.pid = proc.pid
        self.port = port
        self.tmp_dir = tmp_dir
        self.work_dir = work_dir
        self.sock_dir = sock_dir
        self.log_path = log_path
        self.host = "127.0.0.1:%d" % port  # TCP, see the module docstring

    def client_env(self, extra=None):
        """Environment for PCP clients of this pmcd (pmlogger, pminfo)."""
        env = dict(os.environ)
        for k in ("PMCD_PORT", "PMCD_SOCKET", "PMCD_HOST", "PCP_ARCHIVE_VERSION"):
            env.pop(k, None)
        env["PCP_TMP_DIR"] = self.tmp_dir
        env["PCP_RUN_DIR"] = os.path.join(self.work_dir, "run")
        env["PCP_DERIVED_CONFIG"] = ""
        if extra:
            env.update(extra)
        return env

    def log(self):
        return _tail(self.log_path, 200)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        stop_pmcd(self)


def _write_private_config(work_dir, linux=False):
    """pmcd.conf with the pmcd and mmv DSOs (and linux's, if asked), and a
    PMNS for them."""
    conf = os.path.join(work_dir, "pmcd.conf")
    with open(conf, "w") as f:
        f.write("# private pmcd for tests: pmcd's own PMDA and the MMV PMDA\n")
        f.write("pmcd\t%d\tdso\tpmcd_init\t%s\n" % (PMCD_DOMAIN, PMDA_PMCD))
        f.write("mmv\t%d\tdso\tmmv_init\t%s\n" % (MMV_DOMAIN, PMDA_MMV))
        if linux:
            f.write("linux\t60\tdso\tlinux_init\t%s\n" % PMDA_LINUX)
            f.write("proc\t3\tdso\tproc_init\t%s\n" % PMDA_PROC)
    pmns_mmv = next((p for p in PMNS_MMV_CANDIDATES if os.path.exists(p)), None)
    pmns = os.path.join(work_dir, "root")
    if pmns_mmv is None:
        _loud_skip("no root_mmv PMNS file (looked in %s)" % ", ".join(PMNS_MMV_CANDIDATES))
    extra = [PMNS_LINUX, PMNS_PROC] if linux else []
    p = subprocess.run([PMNSMERGE, "-a", PMNS_PMCD, pmns_mmv] + extra + [pmns],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if linux and (p.returncode != 0 or not os.path.exists(pmns)):
        _loud_skip("cannot build a PMNS with linux's (pmnsmerge: %s)"
                   % p.stdout.decode(errors="replace"))
    if p.returncode != 0 or not os.path.exists(pmns):
        # pmnsmerge should always work; write the PMNS by hand if it did not.
        with open(PMNS_PMCD) as f:
            text = f.read()
        text = text.replace("root {\n    pmcd\n}", "root {\n    pmcd\n    mmv\t%d:*:*\n}"
                            % MMV_DOMAIN, 1)
        if "mmv\t" not in text:
            _loud_skip("cannot build a private PMNS (pmnsmerge: %s)"
                       % p.stdout.decode(errors="replace"))
        with open(pmns, "w") as f:
            f.write(text)
    return conf, pmns


def start_pmcd(tmp_dir, work_dir=None, timeout=20.0, linux=False):
    """Starts a private pmcd whose MMV PMDA reads tmp_dir/mmv (and, with
    `linux`, the Linux and proc PMDAs: this host's kernel, mem, disk ...
    and proc.* metrics).

    tmp_dir becomes the PCP_TMP_DIR of pmcd and of the clients run through
    the handle. Its own files (config, PMNS, log) go to work_dir (default
    tmp_dir/../pmcd-work). Raises unittest.SkipTest, after printing a banner
    on stderr, if pmcd is not installed or does not come up; the message
    says why and quotes pmcd's log.
    """
    for path, what in ((PMCD, "pmcd"), (PMCD_WAIT, "pmcd_wait"), (PMNSMERGE, "pmnsmerge"),
                       (PMDA_PMCD, "pmcd's PMDA"), (PMDA_MMV, "the MMV PMDA"),
                       (PMNS_PMCD, "pmcd's PMNS")):
        if not os.path.exists(path):
            _loud_skip("%s is missing (%s); install the `pcp` package "
                       "(shared/notes/MACHINE.md)" % (what, path))
    tmp_dir = os.path.abspath(tmp_dir)
    os.makedirs(os.path.join(tmp_dir, "mmv"), exist_ok=True)
    if work_dir is None:
        work_dir = os.path.join(os.path.dirname(tmp_dir),
                                os.path.basename(tmp_dir) + ".pmcd-work")
    os.makedirs(os.path.join(work_dir, "run"), exist_ok=True)
    conf, pmns = _write_private_config(work_dir, linux)
    # A short directory for the unix socket (sun_path is 108 bytes).
    sock_dir = tempfile.mkdtemp(prefix="pmcd.", dir="/tmp")

    env = dict(os.environ)
    for k in ("PMCD_PORT", "PMCD_SOCKET", "PMCD_HOST"):
        env.pop(k, None)
    env["PCP_TMP_DIR"] = tmp_dir
    env["PCP_RUN_DIR"] = os.path.join(work_dir, "run")
    env["PCP_LOG_DIR"] = work_dir

    failures = []
    for attempt in range(5):
        port = _free_port()
        log_path = os.path.join(work_dir, "pmcd.%d.log" % attempt)
        out_path = os.path.join(work_dir, "pmcd.%d.out" % attempt)
        cmd = [PMCD, "-f", "-A", "-p", str(port), "-i", "127.0.0.1",
               "-c", conf, "-n", pmns, "-s", os.path.join(sock_dir, "pmcd.socket"),
               "-l", log_path]
        if os.geteuid() == 0:
            cmd += ["-U", "root"]
        with open(out_path, "wb") as out:
            try:
                proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL,
                                        stdout=out, stderr=subprocess.STDOUT,
                                        cwd=work_dir)
            except OSError as e:
                shutil.rmtree(sock_dir, ignore_errors=True)
                _loud_skip("cannot execute %s: %s" % (PMCD, e))
        handle = PmcdHandle(proc, port, tmp_dir, work_dir, sock_dir, log_path)
        atexit.register(stop_pmcd, handle)
        deadline = time.monotonic() + timeout
        ready = False
        port_taken = re.compile(r"^\s+err\s+-1\s+%d\s+inet\s" % port, re.M)
        # pmcd logs its table of request ports once its agents are up.
        while (time.monotonic() < deadline and proc.poll() is None and
               "request port(s)" not in _tail(log_path)):
            time.sleep(0.05)
        time.sleep(0.05)  # the rest of the table
        while (time.monotonic() < deadline and proc.poll() is None and
               not port_taken.search(_tail(log_path))):  # no TCP port: try another
            w = subprocess.run([PMCD_WAIT, "-h", handle.host, "-t", "1"],
                               env=handle.client_env(), stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT)
            if w.returncode == 0:
                ready = True
                break
            time.sleep(0.1)
        if ready:
            # The MMV PMDA must answer too (it is loaded at pmcd start).
            p = subprocess.run(["pminfo", "-h", handle.host, "-f", "mmv.control.files"],
                               env=handle.client_env(), stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT)
            if p.returncode == 0 and b"value" in p.stdout:
                return handle
            stop_pmcd(handle)
            _loud_skip("pmcd started but the MMV PMDA does not answer",
                       p.stdout.decode(errors="replace") + "\n" + _tail(log_path))
        stop_pmcd(handle, remove_socket_dir=False)
        log = _tail(log_path) + _tail(out_path)
        failures.append("attempt %d (port %d):\n%s" % (attempt, port, log))
        if not port_taken.search(log) and "Address already in use" not in log:
            break
    shutil.rmtree(sock_dir, ignore_errors=True)
    _loud_skip("pmcd did not come up: %s" % " ".join(cmd), "\n".join(failures))


def stop_pmcd(handle, timeout=10.0, remove_socket_dir=True):
    """Stops the pmcd of `handle` (only that pid); safe to call twice."""
    proc = handle.proc
    if proc.poll() is None:
        try:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout)
        except ProcessLookupError:
            pass
    if remove_socket_dir:
        shutil.rmtree(handle.sock_dir, ignore_errors=True)
    return proc.returncode


# ---------------------------------------------------------------------------
# pmlogger


def record_with_pmlogger(handle, base, samples, interval_sec, version,
                         subtree="mmv", timeout=None):
    """pmlogger records `subtree` through `handle`'s pmcd into archive `base`.

    `samples` results, `interval_sec` apart (the first at once), archive
    format `version` (2 or 3). Returns base; raises AssertionError with
    pmlogger's log if it fails.
    """
    msec = max(20, int(round(interval_sec * 1000)))  # pmlogger's floor: 20 ms
    config = base + ".pmlogger.conf"
    log = base + ".pmlogger.log"
    with open(config, "w") as f:
        f.write("log mandatory on every %d msec {\n    %s\n}\n" % (msec, subtree))
    cmd = ["pmlogger", "-h", handle.host, "-c", config, "-s", str(samples),
           "-V", str(version), "-l", log, base]
    if timeout is None:
        timeout = 30 + samples * interval_sec * 2
    p = subprocess.run(cmd, env=handle.client_env(), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=timeout,
                       cwd=os.path.dirname(os.path.abspath(base)))
    if p.returncode != 0 or not os.path.exists(base + ".meta"):
        raise AssertionError("pmlogger failed (rc %d): %s\n%s\n%s\npmcd log:\n%s" % (
            p.returncode, " ".join(cmd), p.stdout.decode(errors="replace"),
            _tail(log), handle.log()))
    return base


def dump_archive(base):
    """`pmdumplog -a -h -e -Z UTC base`; raises on failure."""
    env = dict(os.environ, PCP_DERIVED_CONFIG="")
    p = subprocess.run(["pmdumplog", "-a", "-h", "-e", "-Z", "UTC", base], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise AssertionError("pmdumplog %s failed: %s" % (base, p.stderr.decode(errors="replace")))
    return p.stdout.decode("utf-8", "replace")


# ---------------------------------------------------------------------------
# Normalising `pmdumplog -a -h -e` output
#
# The normal form (a dict) keeps what a reader of the archive sees and drops
# what depends on when and by whom it was recorded:
#   label    {"version", "timezone", "zoneinfo"}: host, pmlogger PID,
#            commencing/ending times are dropped
#   descs    {pmid: {"name", "type", "indom", "sem", "units"}}
#   labels   {(kind, ident): [{"labels": {name: value}, "optional": [names]}, ...]}
#            kind: context, domain, cluster, item, indom, instances (ident
#            "70.2049[5]"); the distinct label sets in the order logged,
#            timestamps dropped; empty sets (pmlogger logs one per instance
#            without labels) carry no label and are dropped
#   help     {("pmid"|"indom", ident, "oneline"|"help"): text}
#   indoms   {indom: [[(inst, name), ...], ...]}: distinct instance sets in
#            the order logged, each sorted, timestamps dropped
#   records  [{"mark": bool, "sets": {pmid: {"name", "values": sorted
#            [(inst, name, value text)], "error": text or None}}}]
#   unparsed lines pmdumplog printed that the parser did not understand
# Dropped everywhere: pmcd.* (domain 2: pmlogger's prologue and epilogue
# records, their descs, indom 2.1 and labels), mmv.control.* (70.0.*, the
# PMDA's own metrics), the temporal index. Records left with no value set
# are dropped (the prologue and epilogue).

_TIME = r"(?:\w{3} \w{3} +\d+ )?\d\d:\d\d:\d\d\.\d+(?: \d{4})?"


def _pmid_parts(pmid):
    return tuple(int(x) for x in pmid.split("."))


def _ident_domain(ident):
    return int(ident.split(".")[0])


def _dropped_pmid(pmid, drop_control=True):
    d, c, _ = _pmid_parts(pmid)
    return d == PMCD_DOMAIN or (drop_control and d == MMV_DOMAIN and c == 0)


def _value_key(v):
    inst, name, text = v
    return (inst if inst is not None else -(1 << 40), name or "", text)


def normalize_dumplog(text, drop_control=True):
    """Parses `pmdumplog -a -h -e` output (PCP 6.0.3) into the normal form."""
    lines = text.split("\n")
    norm = {"label": {}, "descs": {}, "labels": {}, "help": {}, "indoms": {},
            "records": [], "unparsed": []}
    section = None
    i = 0
    cur_indom = None
    cur_set_list = None
    rec = None
    cur_set = None
    help_entry = None  # [key, [lines]]
    headers = {
        "Descriptions for Metrics in the Log ...": "descs",
        "Metric Labels in the Log ...": "labels",
        "Metric Help Text in the Log ...": "help",
        "Instance Domains in the Log ...": "indoms",
        "Temporal Index": "index",
    }

    def finish_help(section_end=False):
        nonlocal help_entry
        if help_entry is not None:
            key, body = help_entry
            if section_end and body and body[-1] == "":
                body.pop()  # the blank line pmdumplog prints after the section
            if key is not None:
                norm["help"][key] = "\n".join(body)
            help_entry = None

    def add_label_set(key, json_text, optional):
        try:
            labels = json.loads(json_text) if json_text else {}
        except ValueError:
            norm["unparsed"].append("bad label JSON: " + json_text)
            return
        if not labels:
            return
        entry = {"labels": labels, "optional": sorted(optional)}
        seq = norm["labels"].setdefault(key, [])
        if not seq or seq[-1] != entry:
            seq.append(entry)

    pending_label = None  # (key, json_text, optional names)

    def flush_label():
        nonlocal pending_label
        if pending_label is not None:
            add_label_set(*pending_label)
            pending_label = None

    def add_instance_set():
        nonlocal cur_set_list
        if cur_set_list is not None:
            indom, insts = cur_set_list
            if _ident_domain(indom) != PMCD_DOMAIN:
                seq = norm["indoms"].setdefault(indom, [])
                s = sorted(insts)
                if not seq or seq[-1] != s:
                    seq.append(s)
            cur_set_list = None

    while i < len(lines):
        line = lines[i]
        i += 1
        if line in headers:
            finish_help(section_end=True)
            flush_label()
            add_instance_set()
            section = headers[line]
            continue
        if re.match(r"^\[\d+ bytes\]$", line):
            finish_help(section_end=True)
            flush_label()
            add_instance_set()
            section = "records"
            rec = None
            cur_set = None
            continue
        if section == "help":
            m = re.match(r"^(PMID|InDom): (\d+\.\d+(?:\.\d+)?)(?: \[(.*)\])?$", line)
            if m:
                finish_help()
                kind = "pmid" if m.group(1) == "PMID" else "indom"
                ident = m.group(2)
                dropped = (_ident_domain(ident) == PMCD_DOMAIN or
                           (kind == "pmid" and _dropped_pmid(ident, drop_control)))
                if m.group(3) is not None:
                    if not dropped:
                        norm["help"][(kind, ident, "oneline")] = m.group(3)
                else:
                    help_entry = [None if dropped else (kind, ident, "help"), []]
                continue
            if help_entry is not None:
                help_entry[1].append(line)
                continue
            if line == "":
                continue
            norm["unparsed"].append(line)
            continue
        if line == "":
            continue
        if line.startswith("Note: timezone set"):
            continue
        m = re.match(r"^Log Label \(Log Format Version (\d+)\)$", line)
        if m:
            section = "label"
            norm["label"]["version"] = int(m.group(1))
            continue
        if section == "label":
            if re.match(r"^Performance metrics from host ", line):
                continue  # host: dropped
            if re.match(r"^    (commencing|ending) ", line):
                continue  # times: dropped
            if re.match(r"^PID for pmlogger: ", line):
                continue
            m = re.match(r"^Archive (timezone|zoneinfo): (.*)$", line)
            if m:
                norm["label"][m.group(1)] = m.group(2)
                continue
            norm["unparsed"].append(line)
            continue
        if section == "descs":
            m = re.match(r"^PMID: (\d+\.\d+\.\d+) \((.*)\)$", line)
            m2 = re.match(r"^    Data Type: (.*)  InDom: (\S+) (0x[0-9a-f]+)$",
                          lines[i] if i < len(lines) else "")
            m3 = re.match(r"^    Semantics: (\S+)  Units: (.*)$",
                          lines[i + 1] if i + 1 < len(lines) else "")
            if m and m2 and m3:
                i += 2
                if not _dropped_pmid(m.group(1), drop_control):
                    norm["descs"][m.group(1)] = {
                        "name": m.group(2), "type": m2.group(1), "indom": m2.group(2),
                        "sem": m3.group(1), "units": m3.group(2)}
                continue
            norm["unparsed"].append(line)
            continue
        if section == "labels":
            if re.match("^" + _TIME + "$", line):
                flush_label()
                continue
            m = re.match(r"^    (Context|Domain (\d+)|Cluster (\S+)|PMID (\S+)|"
                         r"InDom (\d+\.\d+)(\[(-?\d+)\])?) labels \((\d+) bytes\): ?(.*)$", line)
            if m:
                flush_label()
                if m.group(1) == "Context":
                    key = ("context", "")
                elif m.group(2) is not None:
                    key = ("domain", m.group(2))
                elif m.group(3) is not None:
                    key = ("cluster", m.group(3))
                elif m.group(4) is not None:
                    key = ("item", m.group(4))
                elif m.group(6) is not None:
                    key = ("instances", "%s[%s]" % (m.group(5), m.group(7)))
                else:
                    key = ("indom", m.group(5))
                ident = key[1].split("[")[0]
                dropped = False
                if key[0] == "domain":
                    dropped = int(ident) == PMCD_DOMAIN
                elif key[0] == "item":
                    dropped = _dropped_pmid(ident, drop_control)
                elif key[0] == "cluster":
                    d, c = _pmid_parts(ident)
                    dropped = d == PMCD_DOMAIN or (drop_control and d == MMV_DOMAIN and c == 0)
                elif key[0] in ("indom", "instances"):
                    dropped = _ident_domain(ident) == PMCD_DOMAIN
                pending_label = None if dropped else (key, m.group(9), [])
                continue
            m = re.match(r"^        \[\d+\] name\((\d+),(\d+)\) : value\((\d+),(\d+)\) \[(.*)\]$", line)
            if m:
                if pending_label is not None:
                    js = pending_label[1]
                    name = js[int(m.group(1)):int(m.group(1)) + int(m.group(2))]
                    if "optional" in m.group(5).split(","):
                        pending_label[2].append(name)
                continue
            norm["unparsed"].append(line)
            continue
        if section == "indoms":
            m = re.match(r"^InDom: (\d+\.\d+)$", line)
            if m:
                add_instance_set()
                cur_indom = m.group(1)
                continue
            m = re.match("^" + _TIME + r" (\d+) instances?$", line)
            if m and cur_indom is not None:
                add_instance_set()
                cur_set_list = (cur_indom, [])
                continue
            m = re.match(r'^ +(-?\d+) or "(.*)"$', line)
            if m and cur_set_list is not None:
                cur_set_list[1].append((int(m.group(1)), m.group(2)))
                continue
            norm["unparsed"].append(line)
            continue
        if section == "index":
            continue  # layout-dependent: dropped
        if section == "records":
            m = re.match("^" + _TIME + r"\s+(?:(\d+) metrics?|(<mark>))$", line)
            if m and rec is None:
                rec = {"mark": m.group(2) is not None, "sets": {}}
                norm["records"].append(rec)
                continue
            m = re.match(r"^    (\d+\.\d+\.\d+) \((.*?)\):(?: (.*))?$", line)
            if m and rec is not None:
                pmid = m.group(1)
                cur_set = {"name": m.group(2), "values": [], "error": None}
                if not _dropped_pmid(pmid, drop_control):
                    rec["sets"][pmid] = cur_set
                rest = m.group(3) or ""
                mv = re.match(r'^inst \[(-?\d+) or (".*"|\?\?\?)\] value (.*)$', rest)
                if rest.startswith("value "):
                    cur_set["values"].append((None, None, rest[6:]))
                elif mv:
                    cur_set["values"].append((int(mv.group(1)), mv.group(2), mv.group(3)))
                elif rest == "No values returned!":
                    pass
                elif rest != "":
                    cur_set["error"] = rest
                continue
            m = re.match(r'^        inst \[(-?\d+) or (".*"|\?\?\?)\] value (.*)$', line)
            if m and cur_set is not None:
                cur_set["values"].append((int(m.group(1)), m.group(2), m.group(3)))
                continue
            norm["unparsed"].append(line)
            continue
        norm["unparsed"].append(line)
    finish_help(section_end=True)
    flush_label()
    add_instance_set()
    records = []
    for r in norm["records"]:
        for s in r["sets"].values():
            s["values"].sort(key=_value_key)
        if r["mark"] or r["sets"]:
            records.append(r)
    norm["records"] = records
    return norm


def _sort_ident(ident):
    parts = re.findall(r"-?\d+", ident)
    return tuple(int(p) for p in parts)


def render(norm, records=True, record_limit=None):
    """The normal form as sorted text lines (for diffs and messages)."""
    out = []
    for k in sorted(norm["label"]):
        out.append("archive %s %s" % (k, norm["label"][k]))
    for pmid in sorted(norm["descs"], key=_pmid_parts):
        d = norm["descs"][pmid]
        out.append("desc %s (%s) type=%s indom=%s sem=%s units=%s" % (
            pmid, d["name"], d["type"], d["indom"], d["sem"], d["units"]))
    for key in sorted(norm["labels"], key=lambda k: (k[0], _sort_ident(k[1]))):
        for entry in norm["labels"][key]:
            out.append("labels %s %s %s optional=%s" % (
                key[0], key[1] or "-", json.dumps(entry["labels"], sort_keys=True),
                ",".join(entry["optional"]) or "-"))
    for key in sorted(norm["help"], key=lambda k: (k[0], _sort_ident(k[1]), k[2])):
        out.append("help %s %s %s %s" % (key[0], key[1], key[2], json.dumps(norm["help"][key])))
    for indom in sorted(norm["indoms"], key=_sort_ident):
        for s in norm["indoms"][indom]:
            out.append("indom %s %s" % (indom, "; ".join('%d "%s"' % x for x in s)))
    if records:
        recs = norm["records"] if record_limit is None else norm["records"][:record_limit]
        for n, r in enumerate(recs):
            if r["mark"]:
                out.append("record %d <mark>" % n)
            for pmid in sorted(r["sets"], key=_pmid_parts):
                s = r["sets"][pmid]
                head = "record %d %s (%s)" % (n, pmid, s["name"])
                if s["error"] is not None:
                    out.append("%s error %s" % (head, s["error"]))
                elif not s["values"]:
                    out.append("%s no values" % head)
                for inst, name, text in s["values"]:
                    if inst is None:
                        out.append("%s value %s" % (head, text))
                    else:
                        out.append("%s inst %d %s value %s" % (head, inst, name, text))
    return out


def diff_normalized(a, b, pair_records=True, a_name="pmlogger", b_name="mmvlog"):
    """Unified diff of two normal forms; [] when they agree.

    With pair_records, values are compared only for the records both have
    (the i-th result of one with the i-th of the other: the recorders sample
    at different instants, so the files' values must not change while both
    record), and a different record count is reported on its own line.
    """
    limit = None
    extra = []
    if pair_records:
        na, nb = len(a["records"]), len(b["records"])
        limit = min(na, nb)
        if na != nb:
            extra = ["record count differs: %s %d, %s %d" % (a_name, na, b_name, nb)]
    la = render(a, record_limit=limit)
    lb = render(b, record_limit=limit)
    diff = list(difflib.unified_diff(la, lb, a_name, b_name, lineterm="", n=1))
    return extra + diff


# ---------------------------------------------------------------------------
# mmvlog's intended differences from pmlogger + pmdammv


def _clusters_of_files(norm, files):
    """{file name: cluster} as assigned in `norm` (pinned, or found by name)."""
    out = {}
    for f in files:
        if f["cluster"]:
            out[f["name"]] = f["cluster"]
            continue
        if f["flags"] & MMV_FLAG_NOPREFIX:
            raise ValueError("file %s: NOPREFIX with an automatic cluster cannot be "
                             "matched to its PMIDs by name" % f["name"])
        prefix = "mmv.%s." % f["name"]
        clusters = {_pmid_parts(p)[1] for p, d in norm["descs"].items()
                    if d["name"].startswith(prefix)}
        if len(clusters) != 1:
            raise ValueError("file %s: clusters %s" % (f["name"], sorted(clusters)))
        out[f["name"]] = clusters.pop()
    return out


def indom_ident(cluster, serial):
    """pmdammv's indom for an MMV indom serial (22-bit serial field)."""
    return "%d.%d" % (MMV_DOMAIN, ((cluster << 11) | serial) & 0x3FFFFF)


def expected_mmvlog_view(norm, files):
    """What mmvlog should record, given pmlogger's normal form `norm`.

    `files` are the MMV files both recorded, as pcp_mmv_writer --json states
    them (name, cluster as requested, flags, indoms with help, labels).
    Returns (expected normal form, list of the adjustments made). The
    intended differences, from shared/notes/PCP-BEHAVIOUR.md section 4:

    1. Cluster labels of automatically clustered files. pmdammv compares a
       cluster label's identity (the *requested* cluster, 0, as libpcp_mmv
       stores it) with the *assigned* cluster and drops the label (1.11, E1).
       mmvlog keeps it, under the assigned cluster.
    2. Indom help text. pmdammv has it in the file but pmlogger never logs
       it (E1). mmvlog records each indom's one-line and long help (when the
       file has them) for the indoms of the metrics it records.
    3. NaN under SENTINEL. pmdammv 6.0.3 tests `f == NaN`, which is never
       true, so it exports the NaN and pmlogger records "nan" (1.7, E3).
       mmvlog records no value, as the flag means (and as PCP >= 6.3.1
       does). Integer (all-0xff), ELAPSED and empty-string sentinels already
       give "no values" in pmlogger and need no adjustment.
    Handled in normalize_dumplog instead, on both sides alike: pmlogger's
    pmcd.* prologue/epilogue (mmvlog writes none, or surrogates), the PMDA's
    mmv.control.* metrics (mmvlog has no PMDA), times, hosts, PIDs, the
    temporal index, and empty per-instance label sets.
    """
    exp = json.loads(json.dumps(_jsonable(norm)))
    exp = _from_jsonable(exp)
    notes = []
    clusters = _clusters_of_files(norm, files)
    used_indoms = {d["indom"] for d in norm["descs"].values()}
    for f in files:
        cluster = clusters[f["name"]]
        # 1. cluster labels for automatic clusters
        if f["cluster"] == 0:
            labels, optional = {}, []
            for lb in f.get("labels", []):
                if lb["type"] != "cluster":
                    continue
                payload = json.loads(lb["payload"])
                labels.update(payload)
                if lb["optional"]:
                    optional.extend(payload)
            if labels:
                key = ("cluster", "%d.%d" % (MMV_DOMAIN, cluster))
                if key in exp["labels"]:
                    notes.append("UNEXPECTED: pmlogger has cluster labels %s for the "
                                 "automatic cluster of %s" % (key[1], f["name"]))
                exp["labels"][key] = [{"labels": labels, "optional": sorted(optional)}]
                notes.append("cluster labels %s for %s (auto cluster)" % (key[1], f["name"]))
        # 2. indom help text
        for ind in f.get("indoms", []):
            ident = indom_ident(cluster, ind["serial"])
            if ident not in used_indoms:
                continue
            for kind, text in (("oneline", ind.get("short_help")), ("help", ind.get("long_help"))):
                if not text:
                    continue
                key = ("indom", ident, kind)
                if key in exp["help"]:
                    notes.append("UNEXPECTED: pmlogger has indom help %s %s" % (ident, kind))
                exp["help"][key] = text
                notes.append("indom help %s %s for %s" % (ident, kind, f["name"]))
        # 3. NaN under SENTINEL
        if f["flags"] & MMV_FLAG_SENTINEL:
            fp = {p for p, d in exp["descs"].items()
                  if _pmid_parts(p)[:2] == (MMV_DOMAIN, cluster) and d["type"] in ("float", "double")}
            for n, r in enumerate(exp["records"]):
                for pmid in fp & set(r["sets"]):
                    s = r["sets"][pmid]
                    kept = [v for v in s["values"] if v[2].lower().lstrip("+-") != "nan"]
                    if len(kept) != len(s["values"]):
                        notes.append("record %d %s: %d NaN value(s) -> no value" % (
                            n, pmid, len(s["values"]) - len(kept)))
                        s["values"] = kept
    # 4. userid and groupid (optional) among the context labels: a local
    # context has them (pmlogger -o writes them); pmcd adds them only for a
    # client that passed credentials, which this pmlogger did not.
    for key, sets in exp["labels"].items():
        if key[0] != "context":
            continue
        for ls in sets:
            if "userid" not in ls["labels"]:
                ls["labels"] = dict(ls["labels"], userid=os.getuid(), groupid=os.getgid())
                ls["optional"] = sorted(set(ls["optional"]) | {"userid", "groupid"})
                notes.append("context labels userid and groupid (a local context's)")
    return exp, notes


def _jsonable(norm):
    """A deep copy helper: tuple keys become strings."""
    return {
        "label": norm["label"],
        "descs": norm["descs"],
        "labels": [[list(k), v] for k, v in norm["labels"].items()],
        "help": [[list(k), v] for k, v in norm["help"].items()],
        "indoms": {k: [[list(x) for x in s] for s in v] for k, v in norm["indoms"].items()},
        "records": [{"mark": r["mark"], "sets": {p: {"name": s["name"], "error": s["error"],
                                                     "values": [list(v) for v in s["values"]]}
                                                 for p, s in r["sets"].items()}}
                    for r in norm["records"]],
        "unparsed": norm["unparsed"],
    }


def _from_jsonable(j):
    return {
        "label": j["label"],
        "descs": j["descs"],
        "labels": {tuple(k): v for k, v in j["labels"]},
        "help": {tuple(k): v for k, v in j["help"]},
        "indoms": {k: [[tuple(x) for x in s] for s in v] for k, v in j["indoms"].items()},
        "records": [{"mark": r["mark"], "sets": {p: {"name": s["name"], "error": s["error"],
                                                     "values": [tuple(v) for v in s["values"]]}
                                                 for p, s in r["sets"].items()}}
                    for r in j["records"]],
        "unparsed": j["unparsed"],
    }
