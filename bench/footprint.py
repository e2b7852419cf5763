#!/usr/bin/python3
"""bench/footprint.py: the CPU of the whole `mmvlog record` process per
sample, beside the floor of any scheduled recorder, in one run.

    bench/footprint.py [--sizes 1000,10000,100000] [--seconds S]
                       [--interval-ms MS] [--idle-seconds S] [--rounds R]

For each size N: bench:make_mmv_file writes N U64 counters (100 instances
per metric) into a fresh MMV directory; then, one after the other, for S
seconds (default 10) at MS (default 20 ms):
  mmvlog   mmvlog record -t MSmsec -T Ssec --mmv-dir DIR ARCHIVE
  floor    bench:floor_recorder FILE OUT MS*1000 S   (wake, copy every value
           from the mapped file into an encoded result, one write)
CPU is user + system from wait4(2) of each process, the whole process from
exec to exit; samples are what each says it wrote. The pair runs R times
(default 3) back to back, so both see the same machine; printed: CPU per
sample of each, each round's ratio floor / mmvlog (1.0 would be mmvlog at
the floor) and the median ratio, and mmvlog's ticks late or missed. On a
shared 2-vCPU machine one run moves by 15-20%, the median of the pairs
much less. Then mmvlog record on an empty MMV directory
for --idle-seconds (default 30): its CPU as a share of one core.

Builds //cmd:mmvlog, //bench:floor_recorder and //bench:make_mmv_file with
-c opt and runs copies of them. Results: bench/README.md.
"""

import argparse
import glob
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import bench_tools


def cpu_of(cmd, **kw):
    """(CPU seconds user + system from wait4, stdout, stderr) of one process."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        p = subprocess.Popen(cmd, stdout=out, stderr=err, text=True, **kw)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        out, err = out.read(), err.read()
    cpu = usage.ru_utime + usage.ru_stime
    if p.returncode != 0:
        sys.exit("footprint: %s failed (%d):\n%s" % (" ".join(cmd), p.returncode, err))
    return cpu, out, err


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--interval-ms", type=int, default=20)
    ap.add_argument("--idle-seconds", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="footprint.", dir=os.environ.get("TMPDIR", "/tmp"))
    try:
        tools = bench_tools.build(
            work, ["//cmd:mmvlog", "//bench:floor_recorder", "//bench:make_mmv_file"])
        print("interval %d ms, %d s per run; load average before: %s" % (
            args.interval_ms, args.seconds, " ".join(open("/proc/loadavg").read().split()[:3])))
        print("%8s %-7s %8s %9s %12s  %s" % ("values", "tool", "samples", "CPU s", "us/sample",
                                              "notes"))
        medians = {}
        for n in [int(x) for x in args.sizes.split(",")]:
            d = os.path.join(work, "mmv%d" % n)
            os.makedirs(d)
            subprocess.run([tools["make_mmv_file"], d, str(n)], check=True,
                           stdout=subprocess.DEVNULL)
            files = sorted(os.listdir(d))
            if len(files) != 1:
                sys.exit("footprint: the floor reads one file; %d in %s" % (len(files), d))
            env = dict(os.environ, PCP_TMP_DIR=work)
            ratios = []
            for r in range(args.rounds):
                arch = os.path.join(work, "arch%d-%d" % (n, r))
                cpu_m, _, err = cpu_of([tools["mmvlog"], "record", "-t", "%dmsec" % args.interval_ms,
                                        "-T", "%dsec" % args.seconds, "--mmv-dir", d, arch], env=env)
                m = re.search(r"stopped: (\d+) samples", err)
                samples_m = int(m.group(1)) if m else 0
                sched = re.search(r"schedule: .*", err)
                per_m = 1e6 * cpu_m / max(samples_m, 1)
                print("%8d %-7s %8d %9.3f %12.1f  %s" % (n, "mmvlog", samples_m, cpu_m, per_m,
                                                         sched.group(0) if sched else ""))
                cpu_f, out, _ = cpu_of([tools["floor_recorder"], os.path.join(d, files[0]),
                                        os.path.join(work, "floor%d" % n),
                                        str(args.interval_ms * 1000), str(args.seconds)])
                samples_f = int(out.strip())
                per_f = 1e6 * cpu_f / max(samples_f, 1)
                ratios.append(per_f / per_m if per_m else 0)
                print("%8d %-7s %8d %9.3f %12.1f  round %d: floor / mmvlog = %.2fx" % (
                    n, "floor", samples_f, cpu_f, per_f, r + 1, ratios[-1]))
                for f in glob.glob(arch + ".*"):
                    os.unlink(f)
                os.unlink(os.path.join(work, "floor%d" % n))
            medians[n] = statistics.median(ratios)
            print("%8d ratio floor / mmvlog: median %.2fx of %s" % (
                n, medians[n], " ".join("%.2f" % x for x in ratios)))
        empty = os.path.join(work, "empty")
        os.makedirs(empty)
        cpu_i, _, _ = cpu_of([tools["mmvlog"], "record", "-t", "%dmsec" % args.interval_ms,
                              "-T", "%dsec" % args.idle_seconds, "--mmv-dir", empty,
                              os.path.join(work, "idle")])
        print("idle (empty MMV directory, %d s at %d ms): %.3f CPU s = %.3f%% of a core" % (
            args.idle_seconds, args.interval_ms, cpu_i, 100.0 * cpu_i / args.idle_seconds))
        print("load average after: %s" % " ".join(open("/proc/loadavg").read().split()[:3]))
        print("median ratios: " + ", ".join("%d values %.2fx" % (n, r) for n, r in medians.items()))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
