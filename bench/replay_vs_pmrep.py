#!/usr/bin/python3
"""bench/replay_vs_pmrep.py: `mmvlog replay --csv` beside PCP's
`pmrep -a ARCHIVE -o csv` on the same archive and metrics, in one run.

    bench/replay_vs_pmrep.py [--metrics M] [--instances I] [--samples N]
                             [--runs R] [--keep]

The archive (bench:make_archive, bench/bench_archive.h): M U64 counters
bench.m<M> over I instances (default 100 x 1000 = 100k values per sample),
N samples 3 s apart (default 20), version 3, in a new directory under
$TMPDIR (else /tmp), removed at the end unless --keep.

Both tools print every sample of every metric under `bench`, both ways:
  rates: mmvlog replay --csv ARCHIVE bench
         pmrep -a ARCHIVE -o csv -u bench          (-u: every record, no
                                                    interpolation)
  raw:   mmvlog replay --csv --raw ARCHIVE bench
         pmrep -a ARCHIVE -o csv -u -r bench
  derived (--modes derived): 20 derived metrics over bench.m0 and bench.m1
         mmvlog replay --csv -e DEFS ARCHIVE d.e0 ... d.e19
         pmrep -a ARCHIVE -o csv -u -e DEFS d.e0 ... d.e19
  scalar (--modes scalar): 20 derived metrics of one value each (sums,
         averages, extremes, counts over the instances), s.e0 ... s.e19
each R times (default 3), output to a file. Printed per mode: the median
wall time and CPU time (user + system, from wait4) of each tool and the
ratios pmrep / mmvlog. Before timing, the outputs are checked to agree:
the same columns (pmrep's "metric-inst" is our "metric[inst] (units)"),
the same number of rows, and every cell of the first, second and last
rows plus every 97th cell of the others equal (integers exactly; rates to
the 3 decimals pmrep prints).

Needs: PCP 6.0.3's pmrep (run by /usr/bin/python3, which has the pcp
module), bazel. Builds //cmd:mmvlog and //bench:make_archive with -c opt
and runs copies of them. bench/README.md has results.
"""

import argparse
import csv
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PMREP = shutil.which("pmrep") or "/usr/bin/pmrep"
PYTHON = "/usr/bin/python3"  # Debian's, with python3-pcp


def peak_rss_mb(pid):
    """VmHWM of a running process: the peak of its own address space.

    Not wait4's ru_maxrss: a child forked from this (large) Python process
    inherits its high-water mark across fork and exec."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return 0.0


def run_timed(cmd, out_path, env):
    """Runs cmd with stdout to out_path; returns (wall s, user + sys s, peak RSS MB)."""
    with open(out_path, "wb") as out, tempfile.TemporaryFile() as err:
        start = time.monotonic()
        p = subprocess.Popen(cmd, stdout=out, stderr=err, env=env)
        rss = 0.0
        while True:
            # Sampled until exit (VmHWM only grows; the last read is within
            # 20 ms of the end).
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid == p.pid:
                break
            rss = max(rss, peak_rss_mb(p.pid))
            time.sleep(0.02)
        wall = time.monotonic() - start
        p.returncode = os.waitstatus_to_exitcode(status)
        if p.returncode != 0:
            err.seek(0)
            sys.exit("replay_vs_pmrep: %s failed (%d):\n%s" %
                     (" ".join(cmd), p.returncode, err.read().decode(errors="replace")))
    return wall, usage.ru_utime + usage.ru_stime, rss


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def column_key(header):
    """Our "metric[inst] (units)" as pmrep names it: "metric-inst"."""
    m = re.match(r"^(\S+?)(?:\[(.*)\])?(?: \(.*\))?$", header)
    return m.group(1) if m.group(2) is None else "%s-%s" % (m.group(1), m.group(2))


def check_agree(ours_path, theirs_path, raw):
    """Exits unless the two CSV files hold the same values; returns counts."""
    our_header, our_rows = read_csv(ours_path)
    their_header, their_rows = read_csv(theirs_path)
    ours_by_key = {column_key(h): i for i, h in enumerate(our_header[1:], 1)}
    if sorted(ours_by_key) != sorted(their_header[1:]):
        sys.exit("replay_vs_pmrep: different columns: %d ours, %d pmrep's" %
                 (len(ours_by_key), len(their_header) - 1))
    if len(our_rows) != len(their_rows):
        sys.exit("replay_vs_pmrep: %d rows, pmrep %d" % (len(our_rows), len(their_rows)))
    columns = [(ours_by_key[h], j) for j, h in enumerate(their_header[1:], 1)]
    compared = 0
    for n, (o, t) in enumerate(zip(our_rows, their_rows)):
        every = 1 if n in (0, 1, len(our_rows) - 1) else 97
        for k in range(0, len(columns), every):
            i, j = columns[k]
            mine, theirs = o[i], t[j]
            ok = mine == theirs == ""
            if not ok and mine != "" and theirs != "":
                x, y = float(mine), float(theirs)
                ok = int(mine) == int(y) if raw else abs(x - y) <= 6e-4 + 6e-6 * max(abs(x), abs(y))
            if not ok:
                sys.exit("replay_vs_pmrep: row %d column %s: mmvlog %r, pmrep %r" %
                         (n, their_header[j], mine, theirs))
            compared += 1
    return len(our_rows), len(columns), compared


def derived_definitions(metrics):
    """Issue 31's 20 derived metrics over bench.m0 and bench.m1 (rates,
    ratios, sums, averages and extremes over instances), as one pmrep -e
    text, and their names."""
    a, b = "bench.m0", "bench.m%d" % min(1, metrics - 1)
    exprs = []
    for x, y in ((a, b), (b, a)):
        exprs += ["rate(%s)" % x, "delta(%s)" % x, "sum(%s)" % x, "avg(%s)" % x,
                  "max(%s)" % x, "min(%s)" % x, "delta(%s) / delta(%s)" % (x, y),
                  "rate(%s) * 8" % x, "%s + %s" % (x, y), "count(%s)" % x]
    names = ["d.e%d" % i for i in range(len(exprs))]
    return ";".join("%s=%s" % (n, e) for n, e in zip(names, exprs)), names


def scalar_definitions(metrics):
    """Twenty derived metrics of one value each over bench.m0 and bench.m1
    (sums, averages, extremes, counts over the instances, and their
    combinations; PCP 6.0.3 takes them, where it refuses rate(sum(x))), as
    one pmrep -e text, and their names: issue 31's "20 derived columns"
    read literally."""
    a, b = "bench.m0", "bench.m%d" % min(1, metrics - 1)
    exprs = []
    for x, y in ((a, b), (b, a)):
        exprs += ["sum(%s)" % x, "avg(%s)" % x, "max(%s)" % x, "min(%s)" % x, "count(%s)" % x,
                  "max(%s) - min(%s)" % (x, x), "sum(%s) / 4" % x, "avg(%s) * 2" % x,
                  "sum(%s) + sum(%s)" % (x, y), "sum(%s) * 8" % x]
    names = ["s.e%d" % i for i in range(len(exprs))]
    return ";".join("%s=%s" % (n, e) for n, e in zip(names, exprs)), names


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--metrics", type=int, default=100)
    ap.add_argument("--instances", type=int, default=1000)
    ap.add_argument("--samples", type=int, default=20)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--compress", default="none",
                    help="comma-separated: none, xz, zst, gz, bz2: the archive's volume and "
                         ".meta compressed so (xz as pmlogcompress: -2 --block-size=10MiB); "
                         "pmrep is run on what PCP 6.0.3 reads (not .zst)")
    ap.add_argument("--modes", default="rates,raw",
                    help="rates, raw, derived (20 pmrep -e expressions over bench.m0, bench.m1), "
                         "scalar (20 of one value each over them)")
    ap.add_argument("--interval", default="",
                    help="resample every INTERVAL (both tools' -t) instead of every record "
                         "(pmrep -u)")
    args = ap.parse_args()

    print("building //cmd:mmvlog //bench:make_archive (-c opt)", file=sys.stderr)
    subprocess.run(["bazel", "build", "-c", "opt", "//cmd:mmvlog", "//bench:make_archive"],
                   cwd=REPO, check=True, stdout=sys.stderr)
    work = tempfile.mkdtemp(prefix="replay_vs_pmrep.", dir=os.environ.get("TMPDIR") or "/tmp")
    try:
        # Copies, so that a concurrent bazel build cannot replace them mid-run.
        for target in ("cmd/mmvlog", "bench/make_archive"):
            shutil.copy(os.path.join(REPO, "bazel-out/k8-opt/bin", target), work)
        mmvlog = os.path.join(work, "mmvlog")
        archive = os.path.join(work, "a")
        subprocess.run([os.path.join(work, "make_archive"), archive, str(args.metrics),
                        str(args.instances), str(args.samples)], check=True)
        env = dict(os.environ, TZ="UTC", PCP_DERIVED_CONFIG="")
        values = args.metrics * args.instances
        print("archive: %d metrics x %d instances = %d values per sample, %d samples, "
              "%.1f MB volume; %d run(s) each, medians" %
              (args.metrics, args.instances, values, args.samples,
               os.path.getsize(archive + ".0") / 1e6, args.runs))
        print("load average before: %s" % " ".join(open("/proc/loadavg").read().split()[:3]))
        print("%-5s %-6s %-8s %10s %10s %12s %10s" % ("codec", "mode", "tool", "wall s", "CPU s",
                                                       "values/s", "out MB"))
        commands = {"xz": ["xz", "-2", "--block-size=10MiB", "-T1"], "zst": ["zstd", "-q", "--rm"],
                    "gz": ["gzip"], "bz2": ["bzip2"]}
        ratios = []
        for codec in args.compress.split(","):
            base = archive
            if codec != "none":
                d = os.path.join(work, codec)
                os.makedirs(d)
                for ext in (".0", ".meta", ".index"):
                    shutil.copy(archive + ext, d)
                base = os.path.join(d, "a")
                for ext in (".0", ".meta"):
                    subprocess.run(commands[codec] + [base + ext], check=True)
                print("%s: volume %.1f MB compressed" % (
                    codec, os.path.getsize(base + ".0." + codec) / 1e6))
            pmrep_reads = codec in ("none", "xz", "gz", "bz2")
            if codec == "xz":
                # The floor for this file: xz alone decompressing the volume.
                floor = [run_timed(["xz", "-dc", base + ".0.xz"], os.devnull, env)
                         for _ in range(args.runs)]
                xz_floor = (statistics.median(f[0] for f in floor), statistics.median(f[1] for f in floor))
                print("%-5s %-6s %-8s %10.3f %10.3f" % ("xz", "-", "xz -dc", xz_floor[0], xz_floor[1]))
            defs, names = derived_definitions(args.metrics)
            scalar_defs, scalar_names = scalar_definitions(args.metrics)
            for mode, ours_flags, their_flags in (("rates", [], []), ("raw", ["--raw"], ["-r"]),
                                                  ("derived", ["-e", defs], ["-e", defs]),
                                                  ("scalar", ["-e", scalar_defs], ["-e", scalar_defs])):
                if mode not in args.modes.split(","):
                    continue
                grid = ["-t", args.interval] if args.interval else []
                shown = {"derived": names, "scalar": scalar_names}.get(mode, ["bench"])
                ours = [mmvlog, "replay", "--csv"] + grid + ours_flags + [base] + shown
                # pmrep on the plain archive where PCP 6.0.3 cannot read the codec.
                theirs_base = base if pmrep_reads else archive
                theirs = ([PYTHON, PMREP, "-a", theirs_base, "-o", "csv"] + (grid or ["-u"]) +
                          their_flags + shown)
                out_ours = os.path.join(work, "mmvlog.%s.%s.csv" % (codec, mode))
                out_theirs = os.path.join(work, "pmrep.%s.%s.csv" % (codec, mode))
                times = {"mmvlog": [], "pmrep": []}
                for _ in range(args.runs):
                    times["mmvlog"].append(run_timed(ours, out_ours, env))
                    times["pmrep"].append(run_timed(theirs, out_theirs, env))
                rows, cols, compared = check_agree(out_ours, out_theirs, mode == "raw")
                med = {}
                for tool, out in (("mmvlog", out_ours), ("pmrep", out_theirs)):
                    wall = statistics.median(t[0] for t in times[tool])
                    cpu = statistics.median(t[1] for t in times[tool])
                    rss = max(t[2] for t in times[tool])
                    med[tool] = (wall, cpu)
                    print("%-5s %-6s %-8s %10.3f %10.3f %12.3g %10.1f  peak RSS %.0f MB%s" %
                          (codec, mode, tool, wall, cpu, rows * cols / wall,
                           os.path.getsize(out) / 1e6, rss,
                           "" if tool == "mmvlog" or pmrep_reads else " (plain archive)"))
                ratios.append((codec, mode, med["pmrep"][0] / med["mmvlog"][0],
                               med["pmrep"][1] / med["mmvlog"][1], rows, cols, compared))
                if codec == "xz":
                    print("xz %s: mmvlog / xz -dc = %.2fx wall" % (mode, med["mmvlog"][0] / xz_floor[0]))
                for f in (out_ours, out_theirs):
                    os.unlink(f)
        print("load average after: %s" % " ".join(open("/proc/loadavg").read().split()[:3]))
        for codec, mode, wall, cpu, rows, cols, compared in ratios:
            print("%s %s: pmrep / mmvlog = %.1fx wall, %.1fx CPU (outputs agree: %d rows x %d "
                  "columns, %d cells compared)" % (codec, mode, wall, cpu, rows, cols, compared))
    finally:
        if args.keep:
            print("kept %s" % work, file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
