#!/usr/bin/env python3
"""How many hosts one pmproxy follows, and what pmproxy and Redis cost.

usage: bench/fleet.py [--hosts 10,20,40,60] [--values 100] [--interval 1]
                      [--seconds 30] [--verbose]

For each fleet size N: a private redis-server and a private pmproxy (PCP
6.0.3, discovering one directory; tests/pcp/keyserver.py) and N `mmvlog
record` processes, each a simulated host: its own UTS namespace (unshare -u)
and host name, so its context labels, source and series are its own, as on
N machines; each records the same MMV file (VALUES U64 counters, changed
every millisecond by bench:make_mmv_file) every INTERVAL, each into its own
directory under the one pmproxy follows (pmlogger's HOST/ layout; one
recorder per directory, as mmvlog record requires).

Measured while they run (the first 6 s left out): the delay from a sample's
time to its first sight in Redis (pmseries polled every 250 ms, one series
per host), max and 95th percentile; the CPU of pmproxy and of redis-server
(from /proc/PID/stat), as % of one core and per 1000 values/s written.
Afterwards: the samples of every host's archive that never reached Redis
(`missing`), the first ones of each archive included.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tests", "pcp"))
import keyserver  # noqa: E402
import bench_tools  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
METRIC = "mmv.app0.m0"
SKIP = 6.0  # seconds of start-up left out


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime, stime


def run(n, args, tools, work):
    root = tempfile.mkdtemp(prefix="fleet%d-" % n, dir=work)
    archives = os.path.join(root, "archives")
    os.makedirs(archives)
    port, redis = keyserver.start_redis(os.path.join(root, "redis"))
    proxy = keyserver.start_pmproxy(os.path.join(root, "proxy"), port, archives)
    mmv = os.path.join(root, "mmv")
    os.makedirs(mmv)
    app = subprocess.Popen([tools["make_mmv_file"], mmv, str(args.values), str(args.seconds + 10)])
    time.sleep(0.5)
    hosts = []
    for k in range(n):
        name = "fleet-host-%03d" % k
        d = os.path.join(archives, name)
        os.makedirs(d)
        cmd = "hostname %s && exec %s record -t %ssec -T %dsec --mmv-dir %s %s" % (
            name, tools["mmvlog"], args.interval, args.seconds, mmv, os.path.join(d, name))
        hosts.append(subprocess.Popen(["unshare", "-u", "sh", "-c", cmd],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    first_seen = {}  # (series, sample time) -> wall time
    stop = threading.Event()

    def poll():
        while not stop.is_set():
            out = subprocess.run(["pmseries", "-p", str(port), "-t", "%s[count:4]" % METRIC],
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                 text=True).stdout
            now = time.time()
            series = None
            for line in out.splitlines():
                if re.match(r"^[0-9a-f]{40}$", line):
                    series = line
                    continue
                m = re.match(r"^\s+\[(\d+)\.(\d+)\]", line)
                if m and series:
                    t = int(m.group(1)) / 1e3 + int(m.group(2)) / 1e6
                    first_seen.setdefault((series, t), now)
            time.sleep(0.25)

    poller = threading.Thread(target=poll)
    poller.start()
    start = time.time()
    time.sleep(SKIP)
    cpu0 = {p.pid: cpu_seconds(p.pid) for p in (proxy, redis)}
    t0 = time.time()
    for h in hosts:
        h.wait()
    t1 = time.time()
    cpu1 = {p.pid: cpu_seconds(p.pid) for p in (proxy, redis)}
    time.sleep(3)  # the last samples
    stop.set()
    poller.join()
    # Samples never stored: each host's archive against its series in Redis.
    missing = 0
    for k in range(n):
        name = "fleet-host-%03d" % k
        d = os.path.join(archives, name)
        csv = subprocess.run([tools["mmvlog"], "replay", "--csv", "-r", "-Z", "UTC", "-a",
                              os.path.join(d, name), METRIC], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True).stdout.splitlines()[1:]
        written = {line.split(",")[0] for line in csv}
        stored = set()
        out = subprocess.run(["pmseries", "-Z", "UTC", "-p", str(port), "-t",
                              '%s{hostname:"%s"}[count:100000]' % (METRIC, name)],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
        for m in re.finditer(r"^\s+\[(\d+)\.(\d+)\]", out, re.M):
            t = int(m.group(1)) / 1e3 + int(m.group(2)) / 1e6
            stored.add(time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(t)) + ".%03d" % (
                int(round(t * 1e6)) % 1000000 // 1000))
        lost = sorted(written - stored)
        missing += len(lost)
        if lost and args.verbose:
            order = sorted(written)
            print("%s: not in Redis: %s" % (name, ", ".join(
                "#%d of %d (%s)" % (order.index(t) + 1, len(order), t) for t in lost)),
                file=sys.stderr)
    keyserver.stop([proxy, redis, app])
    delays = sorted(seen - t for (s, t), seen in first_seen.items() if t >= start + SKIP)
    hosts_seen = len({s for (s, _) in first_seen})
    window = t1 - t0
    values_per_s = n * args.values / float(args.interval)
    proxy_pct = 100 * (cpu1[proxy.pid] - cpu0[proxy.pid]) / window
    redis_pct = 100 * (cpu1[redis.pid] - cpu0[redis.pid]) / window
    shutil.rmtree(root, ignore_errors=True)
    return {
        "hosts": n, "hosts_seen": hosts_seen, "samples": len(delays), "missing": missing,
        "p95": delays[int(len(delays) * 0.95)] if delays else float("nan"),
        "max": delays[-1] if delays else float("nan"),
        "values_per_s": values_per_s, "proxy_pct": proxy_pct, "redis_pct": redis_pct,
        "proxy_per_k": proxy_pct / (values_per_s / 1000), "redis_per_k": redis_pct / (values_per_s / 1000),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hosts", default="10,20,40,60")
    ap.add_argument("--values", type=int, default=100)
    ap.add_argument("--interval", default="1")
    ap.add_argument("--seconds", type=int, default=30)
    ap.add_argument("--verbose", action="store_true", help="name the samples not in Redis")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="mmvlog-fleet-")
    tools = bench_tools.build(work, ["//cmd:mmvlog", "//bench:make_mmv_file"])
    print("fleet: %d values per host every %s s, %d s runs" % (
        args.values, args.interval, args.seconds))
    print("%6s %6s %8s %8s %8s %8s %10s %9s %9s %12s %12s" % (
        "hosts", "seen", "samples", "missing", "p95 s", "max s", "values/s", "pmproxy%",
        "redis%", "pmproxy%/1k", "redis%/1k"))
    for n in (int(x) for x in args.hosts.split(",")):
        r = run(n, args, tools, work)
        print("%6d %6d %8d %8d %8.2f %8.2f %10.0f %9.1f %9.1f %12.2f %12.2f" % (
            r["hosts"], r["hosts_seen"], r["samples"], r["missing"], r["p95"], r["max"],
            r["values_per_s"],
            r["proxy_pct"], r["redis_pct"], r["proxy_per_k"], r["redis_per_k"]), flush=True)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
