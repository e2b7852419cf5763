#!/usr/bin/python3
"""bench/footprint_files.py: the CPU a sample costs when the same values are
spread over many MMV files (issue 32), for `mmvlog record` and `mmvlog
capture`, beside the floor and PCP's own logger, in one run.

    bench/footprint_files.py [--files 1,200,1000] [--values 10000]
                             [--seconds S] [--interval-ms MS] [--update-ms MS]
                             [--rounds R] [--tool capture,record]
                             [--pmlogger on|off] [--mmvlog PATH]

For each F in --files, a directory of F MMV files of VALUES / F values each,
written by the real libpcp_mmv (tests/pcp/pcp_mmv_many_writer.c, built here
with gcc: one process writing them all, every value updated every
--update-ms, default 1000, as applications do).

A round starts, at once (their starts a fraction of the interval apart),
for every F: each --tool (`mmvlog TOOL -t MSmsec -T Ssec --mmv-dir DIR`)
and the floor (bench:floor_recorder on the directory: one wake, one read of
each mapping, one write a tick); so that all see the same seconds of this
shared machine, whose speed moves by up to 2x between runs. Then, one F at
a time (it would take the others' CPU), PCP's `pmlogger -o` (the MMV PMDA
as a DSO, no pmcd; Debian's 6.0.3) logging `mmv` every MS for as many
samples.

CPU is user + system from wait4(2), exec to exit. Printed per sample:
whole (the run's CPU / its samples) and marginal (the run's CPU less the
CPU of a one-sample run of the same program on the same directory, over
the samples less one: the cost of a tick without start-up), and, for each
F, the ratio of a tool's marginal CPU to its own at the first F (1.0: the
files cost nothing; the goal is 1.5x or less) and floor / tool. Start-up
is the one-sample run's CPU.

Builds //cmd:mmvlog and //bench:floor_recorder with -c opt (--mmvlog PATH:
that mmvlog instead). Results: bench/README.md.
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import bench_tools
from footprint import finish, start


def build_writer(work):
    """tests/pcp/pcp_mmv_many_writer.c built with gcc against libpcp_mmv."""
    out = os.path.join(work, "pcp_mmv_many_writer")
    src = os.path.join(bench_tools.REPO, "tests", "pcp", "pcp_mmv_many_writer.c")
    subprocess.run(["gcc", "-O2", "-o", out, src, "-lpcp_mmv", "-lpcp"], check=True)
    return out


def start_files(writer, pcp_tmp, files, values, update_ms):
    """Starts the writer of `files` files of `values` values each under
    pcp_tmp/mmv; returns (process, directory)."""
    d = os.path.join(pcp_tmp, "mmv")
    os.makedirs(d)
    p = subprocess.Popen([writer, "app", str(files), str(values), str(update_ms)],
                         stdout=subprocess.PIPE, text=True,
                         env=dict(os.environ, PCP_TMP_DIR=pcp_tmp))
    p.stdout.readline()  # the number of values
    if p.stdout.readline().strip() != "ready":
        sys.exit("footprint_files: pcp_mmv_many_writer did not start")
    return p, d


def samples_of(tool, out, err):
    if tool == "record":
        m = re.search(r"stopped: (\d+) samples", err)
    elif tool == "capture":
        m = re.search(r": (\d+) samples", out)
    else:  # the floor
        m = re.match(r"\s*(\d+)", out)
    return int(m.group(1)) if m else 0


def tool_cmd(tools, tool, d, arch, interval_ms, seconds=None, samples=None):
    if tool == "floor":
        return [tools["floor_recorder"], d, arch, str(interval_ms * 1000), str(seconds or 0)]
    limit = ["-T", "%dsec" % seconds] if seconds else ["-s", str(samples)]
    return [tools["mmvlog"], tool, "-t", "%dmsec" % interval_ms] + limit + \
        ["--mmv-dir", d, arch]


def pmlogger_cmd(work, arch, interval_ms, samples):
    config = os.path.join(work, "pmlogger.conf")
    with open(config, "w") as f:
        f.write("log mandatory on every %d msec {\n    mmv\n}\n" % interval_ms)
    return ["pmlogger", "-o", "-c", config, "-s", str(samples), "-l", arch + ".log", arch]


def arch_path(work, name):
    """An archive of its own directory: `mmvlog record` locks the directory
    it writes into."""
    d = os.path.join(work, "out-" + name)
    os.makedirs(d, exist_ok=True)
    return os.path.join(d, "a")


def clean(arch):
    for suffix in ("", ".0", ".1", ".meta", ".index", ".log"):
        if os.path.exists(arch + suffix):
            os.unlink(arch + suffix)


def one_sample(cmd, env):
    cpu, _, _ = finish(start(cmd, env=env))
    return cpu


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", default="1,200,1000")
    ap.add_argument("--values", type=int, default=10000)
    ap.add_argument("--seconds", type=int, default=20)
    ap.add_argument("--interval-ms", type=int, default=20)
    ap.add_argument("--update-ms", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--tool", default="capture,record")
    ap.add_argument("--pmlogger", choices=["on", "off"], default="on")
    ap.add_argument("--mmvlog", help="an mmvlog binary to run instead of //cmd:mmvlog")
    args = ap.parse_args()
    tool_names = args.tool.split(",")
    counts = [int(x) for x in args.files.split(",")]
    work = tempfile.mkdtemp(prefix="footprint_files.", dir=os.environ.get("TMPDIR", "/tmp"))
    writers = []
    try:
        tools = bench_tools.build(work, ["//cmd:mmvlog", "//bench:floor_recorder"])
        if args.mmvlog:
            tools["mmvlog"] = shutil.copy(args.mmvlog, os.path.join(work, "mmvlog.given"))
        writer = build_writer(work)
        dirs = {}
        for f in counts:
            p, d = start_files(writer, os.path.join(work, "pcp%d" % f), f, args.values // f,
                               args.update_ms)
            writers.append(p)
            dirs[f] = d
        print("%d values as 1 .. %d files, interval %d ms, %d s a run, updates every %d ms; "
              "load average before: %s" % (
                  args.values, max(counts), args.interval_ms, args.seconds, args.update_ms,
                  " ".join(open("/proc/loadavg").read().split()[:3])))
        env = {f: dict(os.environ, PCP_TMP_DIR=os.path.dirname(dirs[f]), PCP_DERIVED_CONFIG="")
               for f in counts}
        programs = tool_names + ["floor"] + (["pmlogger"] if args.pmlogger == "on" else [])
        # Start-up: one-sample runs, the median of three.
        startup = {}
        for f in counts:
            for t in programs:
                arch = arch_path(work, "one-%d-%s" % (f, t))
                runs = []
                for _ in range(3):
                    if t == "pmlogger":
                        cmd = pmlogger_cmd(work, arch, args.interval_ms, 1)
                    else:
                        cmd = tool_cmd(tools, t, dirs[f], arch, args.interval_ms, samples=1)
                    runs.append(one_sample(cmd, env[f]))
                    clean(arch)
                startup[(f, t)] = statistics.median(runs)
        print("%6s %-8s %8s %9s %11s %11s %10s" % ("files", "program", "samples", "CPU s",
                                                  "whole us", "marginal us", "start ms"))
        marginal = {}
        for r in range(args.rounds):
            procs = []
            stagger = args.interval_ms / 1000.0 / (len(counts) * (len(tool_names) + 1))
            for f in counts:
                for t in tool_names + ["floor"]:
                    arch = arch_path(work, "arch-%d-%s" % (f, t))
                    cmd = tool_cmd(tools, t, dirs[f], arch, args.interval_ms,
                                   seconds=args.seconds)
                    procs.append((f, t, arch, start(cmd, env=env[f])))
                    time.sleep(stagger)
            runs = []
            for f, t, arch, p in procs:
                cpu, out, err = finish(p)
                runs.append((f, t, cpu, samples_of(t, out, err)))
                clean(arch)
            if args.pmlogger == "on":
                n = max(s for _, _, _, s in runs)
                for f in counts:
                    arch = arch_path(work, "arch-%d-pmlogger" % f)
                    cpu, _, _ = finish(start(pmlogger_cmd(work, arch, args.interval_ms, n),
                                             env=env[f]))
                    runs.append((f, "pmlogger", cpu, n))
                    clean(arch)
            for f, t, cpu, n in runs:
                m = 1e6 * (cpu - startup[(f, t)]) / max(n - 1, 1)
                marginal.setdefault((f, t), []).append(m)
                print("%6d %-8s %8d %9.3f %11.1f %11.1f %10.1f" % (
                    f, t, n, cpu, 1e6 * cpu / max(n, 1), m, 1e3 * startup[(f, t)]))
            first = counts[0]
            print("round %d: %s" % (r + 1, "; ".join(
                "%d files: %s" % (f, ", ".join(
                    "%s %.2fx" % (t, marginal[(f, t)][-1] / marginal[(first, t)][-1])
                    for t in tool_names)) for f in counts[1:])))
        print("medians of the rounds, marginal CPU per sample (us), x of the same program "
              "at %d file(s), floor / program:" % counts[0])
        for f in counts:
            for t in programs:
                med = statistics.median(marginal[(f, t)])
                base = statistics.median(marginal[(counts[0], t)])
                floor = statistics.median(marginal[(f, "floor")])
                print("%6d %-8s %9.1f us  %5.2fx of %d file(s)  floor / it %5.2fx  start %6.1f ms" % (
                    f, t, med, med / base, counts[0], floor / med, 1e3 * startup[(f, t)]))
        print("load average after: %s" % " ".join(open("/proc/loadavg").read().split()[:3]))
    finally:
        for p in writers:
            if p.poll() is None:
                p.terminate()
                p.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
