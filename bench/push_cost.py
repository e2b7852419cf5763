#!/usr/bin/python3
"""bench/push_cost.py: what pushing to pmproxy 7 costs `mmvlog record` per
sample, beside writing the local archive alone.

    bench/push_cost.py [--sizes 100,1000,10000] [--seconds S]
                       [--interval-ms MS] [--rounds R] [--tls] [--mmvlog PATH]

For each size N: bench:make_mmv_file writes N U64 counters (100 instances
per metric) into a fresh MMV directory; a private redis-server and PCP 7.2's
pmproxy ([pmlogger] on, its archives in the run's directory; PCP 7.2 from
/opt/pcp7 or $MMVLOG_PCP7) run throughout. Then, one after the other, for S
seconds (default 10) at MS (default 100 ms):
  local  mmvlog record -t MS -T S --mmv-dir DIR ARCHIVE
  push   mmvlog record -t MS -T S --mmv-dir DIR --local ARCHIVE2
             http://127.0.0.1:PORT
  tls    (with --tls) the same to https://127.0.0.1:PORT --ca-file CA: pmproxy
         then serves HTTPS too (on the same port), with a certificate made
         here with openssl(1), so both pushes go to the same server
CPU is user + system from wait4(2) of the mmvlog process, exec to exit (the
push thread included); pmproxy's and redis-server's CPU over each push run
from /proc. The pair runs R times (default 3) back to back; printed: CPU
per sample of each, the difference (what the push adds per sample), its
median over the rounds, the server side's CPU per sample, and whether every
record reached pmproxy (its copy's size equals the local archive's).

Builds //cmd:mmvlog and //bench:make_mmv_file with -c opt and runs copies
of them (--mmvlog PATH: that mmvlog instead, to compare builds). Results:
bench/README.md.
"""

import argparse
import glob
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

import bench_tools

PCP7 = os.environ.get("MMVLOG_PCP7", "/opt/pcp7")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_of(cmd, **kw):
    """(CPU seconds user + system from wait4, stderr) of one process."""
    with tempfile.TemporaryFile("w+") as err:
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, text=True, **kw)
        _, status, usage = os.wait4(p.pid, 0)
        err.seek(0)
        text = err.read()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("push_cost: %s failed:\n%s" % (" ".join(cmd), text))
    return usage.ru_utime + usage.ru_stime, text


def proc_cpu(pid):
    """CPU seconds (user + system) process `pid` has used so far."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pcp7_env():
    out = subprocess.run(["bash", "-c", ". %s/env.sh >/dev/null && env -0" % PCP7],
                         check=True, capture_output=True).stdout.decode()
    return dict(kv.split("=", 1) for kv in out.split("\0") if "=" in kv)


def make_certificate(work):
    """A CA and a certificate for 127.0.0.1 signed by it: (ca, cert, key)."""
    def openssl(*args):
        subprocess.run(["openssl"] + list(args), cwd=work, check=True, capture_output=True)
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    openssl("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.crt", "-subj", "/CN=ca",
            "-days", "2")
    openssl("req", *ec, "-keyout", "s.key", "-out", "s.csr", "-subj", "/CN=s")
    with open(os.path.join(work, "s.ext"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1\n")
    openssl("x509", "-req", "-in", "s.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
            "-CAcreateserial", "-out", "s.crt", "-days", "2", "-extfile", "s.ext")
    return tuple(os.path.join(work, f) for f in ("ca.crt", "s.crt", "s.key"))


def start_server(work, tls=None):
    """A redis-server and pmproxy 7.2 in `work` (HTTPS too with `tls`, a
    (ca, cert, key)): (http port, [processes])."""
    rport, hport = free_port(), free_port()
    os.makedirs(work, exist_ok=True)
    redis = subprocess.Popen(["redis-server", "--port", str(rport), "--bind", "127.0.0.1",
                              "--save", "", "--appendonly", "no", "--dir", work],
                             stdout=subprocess.DEVNULL)
    while subprocess.run(["redis-cli", "-p", str(rport), "ping"], capture_output=True,
                         text=True).stdout.strip() != "PONG":
        time.sleep(0.1)
    for d in ("run", "remote", "discover"):
        os.makedirs(os.path.join(work, d), exist_ok=True)
    conf = os.path.join(work, "pmproxy.conf")
    with open(conf, "w") as f:
        f.write("[pmproxy]\npcp.enabled = false\nhttp.enabled = true\nresp.enabled = false\n"
                "secure.enabled = %s\n%s[keys]\nenabled = true\nservers = localhost:%d\n"
                "[discover]\nenabled = true\npath = %s/discover\n[pmsearch]\nenabled = false\n"
                "[pmseries]\nenabled = true\n[pmlogger]\nenabled = true\n"
                % ("true" if tls else "false",
                   "certificates = %s\nprivate_key = %s\n" % tls[1:] if tls else "",
                   rport, work))
    log = os.path.join(work, "pmproxy.log")
    env = dict(pcp7_env(), PCP_RUN_DIR=os.path.join(work, "run"), PCP_TMP_DIR=work,
               PCP_REMOTE_ARCHIVE_DIR=os.path.join(work, "remote"))
    proxy = subprocess.Popen(["pmproxy", "-f", "-A", "-i", "127.0.0.1", "-p", str(hport),
                              "-s", os.path.join(tempfile.mkdtemp(), "s"), "-c", conf, "-l", log],
                             env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while not (os.path.exists(log) and "schema version setup" in open(log).read()):
        time.sleep(0.1)
    return hport, [proxy, redis]


def remote_bytes(work):
    return sum(os.path.getsize(f) for f in glob.glob(os.path.join(work, "remote", "*", "*")))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="100,1000,10000")
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--interval-ms", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--tls", action="store_true", help="also push over https://")
    ap.add_argument("--mmvlog", help="an mmvlog binary to run instead of //cmd:mmvlog")
    args = ap.parse_args()
    if not os.path.exists(os.path.join(PCP7, ".built-7.2.0-tls")):
        sys.exit("push_cost: PCP 7.2 is not in %s (bash bazel/setup.sh --pcp7 ...)" % PCP7)
    work = tempfile.mkdtemp(prefix="push_cost.", dir=os.environ.get("TMPDIR", "/tmp"))
    servers = []
    try:
        tools = bench_tools.build(work, ["//cmd:mmvlog", "//bench:make_mmv_file"])
        if args.mmvlog:
            tools["mmvlog"] = shutil.copy(args.mmvlog, os.path.join(work, "mmvlog.given"))
        tls = make_certificate(work) if args.tls else None
        port, servers = start_server(os.path.join(work, "server"), tls)
        print("interval %d ms, %d s per run; load average before: %s" % (
            args.interval_ms, args.seconds, " ".join(open("/proc/loadavg").read().split()[:3])))
        print("%8s %-6s %8s %9s %11s  %s" % ("values", "run", "samples", "CPU s", "us/sample",
                                             "notes"))
        summary, summary_tls = [], []
        for n in [int(x) for x in args.sizes.split(",")]:
            d = os.path.join(work, "mmv%d" % n)
            os.makedirs(d)
            subprocess.run([tools["make_mmv_file"], d, str(n)], check=True,
                           stdout=subprocess.DEVNULL)
            env = dict(os.environ, PCP_TMP_DIR=work)
            extra, server, extra_tls = [], [], []
            for r in range(args.rounds):
                per = {}
                for run in ("local", "push") + (("tls",) if tls else ()):
                    arch = os.path.join(work, "%s%d-%d" % (run, n, r), "a")
                    os.makedirs(os.path.dirname(arch))
                    cmd = [tools["mmvlog"], "record", "-t", "%dmsec" % args.interval_ms,
                           "-T", "%dsec" % args.seconds, "--mmv-dir", d]
                    if run == "local":
                        cmd += [arch]
                    elif run == "push":
                        cmd += ["--local", arch, "http://127.0.0.1:%d" % port]
                    else:
                        cmd += ["--local", arch, "--ca-file", tls[0],
                                "https://127.0.0.1:%d" % port]
                    before = sum(proc_cpu(p.pid) for p in servers)
                    sent_before = remote_bytes(os.path.join(work, "server"))
                    cpu, err = cpu_of(cmd, env=env)
                    time.sleep(1)  # the server finishes what it was sent
                    served = sum(proc_cpu(p.pid) for p in servers) - before
                    m = re.search(r"stopped: (\d+) samples", err)
                    samples = int(m.group(1)) if m else 0
                    sched = re.search(r"(\d+) ticks, [\d.]+% on time \([^)]*\)", err)
                    per[run] = 1e6 * cpu / max(samples, 1)
                    note = sched.group(0) if sched else ""
                    if run != "local":
                        local = sum(os.path.getsize(f) for f in glob.glob(arch + ".*"))
                        sent = remote_bytes(os.path.join(work, "server")) - sent_before
                        served_us = 1e6 * served / max(samples, 1)
                        if run == "push":
                            server.append(served_us)
                        note += "; pmproxy got %s (%d of %d bytes); server %.1f us/sample" % (
                            "all" if sent == local else "NOT all", sent, local, served_us)
                    print("%8d %-6s %8d %9.3f %11.1f  %s" % (n, run, samples, cpu, per[run], note))
                    shutil.rmtree(os.path.dirname(arch))
                extra.append(per["push"] - per["local"])
                print("%8d round %d: the push adds %.1f us/sample (%.2fx local)" % (
                    n, r + 1, extra[-1], per["push"] / per["local"]))
                if tls:
                    extra_tls.append(per["tls"] - per["local"])
                    print("%8d round %d: the push over TLS adds %.1f us/sample (%.2fx local)" % (
                        n, r + 1, extra_tls[-1], per["tls"] / per["local"]))
            summary.append((n, statistics.median(extra), statistics.median(server)))
            if tls:
                summary_tls.append((n, statistics.median(extra_tls)))
        print("load average after: %s" % " ".join(open("/proc/loadavg").read().split()[:3]))
        for n, e, s in summary:
            print("%d values: the push adds %.1f us of mmvlog's CPU per sample (median); "
                  "pmproxy + redis-server %.1f us" % (n, e, s))
        for n, e in summary_tls:
            print("%d values: the push over TLS adds %.1f us of mmvlog's CPU per sample (median)"
                  % (n, e))
    finally:
        for p in servers:
            p.terminate()
            p.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
