#!/usr/bin/python3
"""bench/footprint.py: the CPU of the whole `mmvlog record` (and `mmvlog
capture`) process per sample, beside the floor of any scheduled recorder,
in one run.

    bench/footprint.py [--sizes 1000,10000,100000] [--seconds S]
                       [--interval-ms MS] [--idle-seconds S] [--rounds R]
                       [--tool record[,capture]] [--writer static|libpcp_mmv]
                       [--update-ms MS] [--floor-write-behind on|off]
                       [--together] [--mmvlog PATH]

For each size N, one MMV file in a fresh MMV directory, written by
  static      bench:make_mmv_file: N U64 counters (100 instances per metric),
              written once (the default);
  libpcp_mmv  tests/pcp/pcp_mmv_app_writer.c, built here with gcc against the real
              libpcp_mmv: U64 counters over two instance domains plus two
              string metrics, every counter and one string updated every
              --update-ms (default 100) for the whole run, as applications
              write MMV files;
then, one after the other, for S seconds (default 10) at MS (default 20 ms):
  record   mmvlog record -t MSmsec -T Ssec --mmv-dir DIR ARCHIVE
  capture  mmvlog capture -t MSmsec -T Ssec --mmv-dir DIR ARCHIVE
  floor    bench:floor_recorder [--write-behind] FILE OUT MS*1000 S (wake,
           copy every value from the mapped file into an encoded result, one
           write)
CPU is user + system from wait4(2) of each process (all its threads), from
exec to exit; samples are what each says it wrote. A round runs each --tool
then the floor, back to back, so all see the same machine; R rounds (default
3). With --together a round starts each tool and the floor at once, so all
see the same seconds of the machine (their starts a fraction of the
interval apart, so that their ticks interleave): on this shared VM the
speed of the machine moves by up to 2x from one 10 s run to the next (the
floor alone took 52-101 ms of CPU in five back-to-back rounds), and at ~1%
of a core each, three recorders on two cores rarely wait for each other.
Printed: CPU per sample of each, each round's ratio floor / tool (1.0
would be the tool at the floor) and the median ratio per tool, and each
tool's ticks late or missed. On a shared 2-vCPU machine one run moves by
15-20%, the median of the rounds much less.

Like with like: mmvlog writes back its volumes on a thread of its own
(write-behind, for volumes growing at 48 MiB/s or more: 100k values every
20 ms), which wait4 counts in mmvlog's CPU, where a plain writer leaves it
to the kernel's flusher, outside its CPU. With --floor-write-behind on (the
default) the floor writes back its own pages by the same rule, so both pay
for their writeback; off, the floor's is the kernel's.

Then, unless --idle-seconds 0, mmvlog record on an empty MMV directory for
--idle-seconds (default 30): its CPU as a share of one core.

Builds //cmd:mmvlog, //bench:floor_recorder and //bench:make_mmv_file with
-c opt and runs copies of them (--mmvlog PATH: that mmvlog instead, to
compare two builds). Results: bench/README.md.
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


def start(cmd, **kw):
    """Starts one process whose CPU finish() will take."""
    out, err = tempfile.TemporaryFile("w+"), tempfile.TemporaryFile("w+")
    p = subprocess.Popen(cmd, stdout=out, stderr=err, text=True, **kw)
    p.files = (out, err)
    return p


def finish(p):
    """(CPU seconds user + system from wait4, stdout, stderr) of a process
    start() began."""
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    texts = []
    for f in p.files:
        f.seek(0)
        texts.append(f.read())
        f.close()
    out, err = texts
    cpu = usage.ru_utime + usage.ru_stime
    if p.returncode != 0:
        sys.exit("footprint: %s failed (%d):\n%s" % (" ".join(p.args), p.returncode, err))
    return cpu, out, err


def cpu_of(cmd, **kw):
    """(CPU seconds user + system from wait4, stdout, stderr) of one process."""
    return finish(start(cmd, **kw))


def build_writer(work):
    """tests/pcp/pcp_mmv_app_writer.c built with gcc against libpcp_mmv."""
    out = os.path.join(work, "pcp_mmv_app_writer")
    src = os.path.join(bench_tools.REPO, "tests", "pcp", "pcp_mmv_app_writer.c")
    subprocess.run(["gcc", "-O2", "-o", out, src, "-lpcp_mmv", "-lpcp"], check=True)
    return out


def start_writer(writer, pcp_tmp, n, update_ms):
    """Starts the libpcp_mmv application; returns (process, its MMV file)."""
    os.makedirs(os.path.join(pcp_tmp, "mmv"))
    p = subprocess.Popen([writer, "app", str(n), str(update_ms)], stdout=subprocess.PIPE,
                         text=True, env=dict(os.environ, PCP_TMP_DIR=pcp_tmp))
    p.stdout.readline()  # the number of values
    if p.stdout.readline().strip() != "ready":
        sys.exit("footprint: pcp_mmv_app_writer did not start")
    return p, os.path.join(pcp_tmp, "mmv", "app")


def start_tool(tools, tool, args, d, arch):
    """Starts one mmvlog run."""
    cmd = [tools["mmvlog"], tool, "-t", "%dmsec" % args.interval_ms, "-T", "%dsec" % args.seconds,
           "--mmv-dir", d, arch]
    return start(cmd, env=dict(os.environ, PCP_TMP_DIR=os.path.dirname(d)))


def finish_tool(p, tool):
    """(CPU s, samples, schedule line) of one mmvlog run."""
    cpu, out, err = finish(p)
    m = re.search(r"stopped: (\d+) samples", err) if tool == "record" else \
        re.search(r": (\d+) samples", out)
    sched = re.search(r"schedule: .*", err)
    return cpu, int(m.group(1)) if m else 0, sched.group(0) if sched else ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--interval-ms", type=int, default=20)
    ap.add_argument("--idle-seconds", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--tool", default="record")
    ap.add_argument("--writer", choices=["static", "libpcp_mmv"], default="static")
    ap.add_argument("--update-ms", type=int, default=100)
    ap.add_argument("--floor-write-behind", choices=["on", "off"], default="on")
    ap.add_argument("--mmvlog", help="an mmvlog binary to run instead of //cmd:mmvlog")
    ap.add_argument("--together", action="store_true",
                    help="run each round's tools and floor at once, not one after another")
    args = ap.parse_args()
    tool_names = args.tool.split(",")
    for t in tool_names:
        if t not in ("record", "capture"):
            sys.exit("footprint: --tool takes record and/or capture, not %s" % t)
    work = tempfile.mkdtemp(prefix="footprint.", dir=os.environ.get("TMPDIR", "/tmp"))
    writers = []
    try:
        tools = bench_tools.build(
            work, ["//cmd:mmvlog", "//bench:floor_recorder", "//bench:make_mmv_file"])
        if args.mmvlog:
            tools["mmvlog"] = shutil.copy(args.mmvlog, os.path.join(work, "mmvlog.given"))
        writer = build_writer(work) if args.writer == "libpcp_mmv" else None
        print("interval %d ms, %d s per run%s, writer %s%s, floor write-behind %s; "
              "load average before: %s" % (
                  args.interval_ms, args.seconds,
                  ", tools and floor together" if args.together else "", args.writer,
                  " (updates every %d ms)" % args.update_ms if writer else "",
                  args.floor_write_behind,
                  " ".join(open("/proc/loadavg").read().split()[:3])))
        print("%8s %-7s %8s %9s %12s  %s" % ("values", "tool", "samples", "CPU s", "us/sample",
                                              "notes"))
        medians = {}
        for n in [int(x) for x in args.sizes.split(",")]:
            if writer:
                p, mmv_file = start_writer(writer, os.path.join(work, "pcp%d" % n), n,
                                           args.update_ms)
                writers.append(p)
                d = os.path.dirname(mmv_file)
            else:
                d = os.path.join(work, "pcp%d" % n, "mmv")
                os.makedirs(d)
                subprocess.run([tools["make_mmv_file"], d, str(n)], check=True,
                               stdout=subprocess.DEVNULL)
                files = sorted(os.listdir(d))
                if len(files) != 1:
                    sys.exit("footprint: the floor reads one file; %d in %s" % (len(files), d))
                mmv_file = os.path.join(d, files[0])
            ratios = {t: [] for t in tool_names}
            for r in range(args.rounds):
                per = {}
                floor_out = os.path.join(work, "floor%d" % n)
                cmd = [tools["floor_recorder"]]
                if args.floor_write_behind == "on":
                    cmd.append("--write-behind")
                cmd += [mmv_file, floor_out, str(args.interval_ms * 1000), str(args.seconds)]
                # --together: every tool and the floor at once, their
                # starts a fraction of the interval apart so that their ticks
                # do not all fall in the same millisecond.
                stagger = args.interval_ms / 1000.0 / (len(tool_names) + 1)
                floor = start(cmd) if args.together else None
                runs = []
                for t in tool_names:
                    arch = os.path.join(work, "arch%d-%d-%s" % (n, r, t))
                    if args.together:
                        time.sleep(stagger)
                    p = start_tool(tools, t, args, d, arch)
                    # Back to back: each ends before the next starts.
                    runs.append((t, arch, p if args.together else finish_tool(p, t)))
                for t, arch, run in runs:
                    cpu, samples, sched = finish_tool(run, t) if args.together else run
                    per[t] = 1e6 * cpu / max(samples, 1)
                    print("%8d %-7s %8d %9.3f %12.1f  %s" % (n, t, samples, cpu, per[t], sched))
                    for f in glob.glob(arch + ".*"):
                        os.unlink(f)
                cpu_f, out, _ = finish(floor if floor else start(cmd))
                samples_f = int(out.strip())
                per_f = 1e6 * cpu_f / max(samples_f, 1)
                for t in tool_names:
                    ratios[t].append(per_f / per[t] if per[t] else 0)
                print("%8d %-7s %8d %9.3f %12.1f  round %d: floor / %s" % (
                    n, "floor", samples_f, cpu_f, per_f, r + 1,
                    ", ".join("%s %.2fx" % (t, ratios[t][-1]) for t in tool_names)))
                os.unlink(floor_out)
            for t in tool_names:
                medians[(n, t)] = statistics.median(ratios[t])
                print("%8d ratio floor / %s: median %.2fx of %s" % (
                    n, t, medians[(n, t)], " ".join("%.2f" % x for x in ratios[t])))
            if writers:
                writers[-1].terminate()
                writers[-1].wait()
        if args.idle_seconds > 0:
            empty = os.path.join(work, "empty")
            os.makedirs(empty)
            cpu_i, _, _ = cpu_of([tools["mmvlog"], "record", "-t", "%dmsec" % args.interval_ms,
                                  "-T", "%dsec" % args.idle_seconds, "--mmv-dir", empty,
                                  os.path.join(work, "idle")])
            print("idle (empty MMV directory, %d s at %d ms): %.3f CPU s = %.3f%% of a core" % (
                args.idle_seconds, args.interval_ms, cpu_i, 100.0 * cpu_i / args.idle_seconds))
        print("load average after: %s" % " ".join(open("/proc/loadavg").read().split()[:3]))
        print("median ratios floor / tool: " + ", ".join(
            "%d values %s %.2fx" % (n, t, r) for (n, t), r in medians.items()))
    finally:
        for p in writers:
            if p.poll() is None:
                p.terminate()
                p.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
