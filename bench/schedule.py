#!/usr/bin/python3
"""bench/schedule.py: does `mmvlog record` keep a fast schedule, in bounded memory?

Performance issue, targets 4 and 5: record 100k values every 10 ms for 60 s
while an application updates them, and report
  - how many ticks were sampled on time (before the next tick was due) and
    the lateness percentiles, from the recorder's own "schedule:" log line
    (archiver/schedule/lateness.h: a histogram, so it costs nothing per sample);
  - peak RSS (VmHWM) against 2 x the MMV files' size + 16 MiB, and RSS over
    the run (first quarter vs last quarter, and across volume switches), read
    from /proc/PID/status every 100 ms.

The application is bench:make_mmv_file with UPDATE_SECONDS: it writes the
MMV files, then adds to every counter every millisecond through a shared
mapping. mmvlog writes volumes of --volume_size (default 256M) so a minute at
10 ms gives dozens of volumes; the archive is deleted at the end unless
--keep (100k values every 10 ms is about 200 MB/s of archive).

Usage: bench/schedule.py [--values 100000] [--interval 10msec] [--duration 60]
                         [--volume_size 256M] [--keep]
Builds //cmd:mmvlog and //bench:make_mmv_file with -c opt and runs copies.
Results and the machine they ran on: bench/README.md.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEDULE = re.compile(r"schedule: (\d+) ticks, ([\d.]+)% on time \((\d+) missed, (\d+) late\), "
                      r"lateness p50 (\S+) p99 (\S+) p99\.9 (\S+) max (\S+)$", re.M)
MIB = 1 << 20


def status_kib(pid):
    """VmRSS and VmHWM of pid in KiB, or None when it is gone."""
    try:
        with open("/proc/%d/status" % pid) as f:
            text = f.read()
    except OSError:
        return None
    rss = int(re.search(r"^VmRSS:\s+(\d+) kB", text, re.M).group(1))
    hwm = int(re.search(r"^VmHWM:\s+(\d+) kB", text, re.M).group(1))
    return rss, hwm


def run_queue_wait(pid):
    """Seconds the threads of pid have waited for a CPU (schedstat), or None."""
    total = 0
    try:
        for tid in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
                total += int(f.read().split()[1])
    except OSError:
        return None
    return total / 1e9


def machine_busy():
    """(busy, total) jiffies of all CPUs from /proc/stat."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    idle = v[3] + v[4]
    return sum(v) - idle, sum(v)


def cpu_seconds(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--values", type=int, default=100000)
    ap.add_argument("--interval", default="10msec")
    ap.add_argument("--duration", type=float, default=60)
    ap.add_argument("-v", default="256M")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    args = ap.parse_args()
    if args.values < 100 or args.values % 100:
        sys.exit("schedule.py: --values must be a multiple of 100")

    print("building //cmd:mmvlog //bench:make_mmv_file (-c opt)", file=sys.stderr)
    subprocess.run(["bazel", "build", "-c", "opt", "//cmd:mmvlog", "//bench:make_mmv_file"],
                   cwd=REPO, check=True, stdout=sys.stderr)
    work = tempfile.mkdtemp(prefix="schedule.", dir=os.environ.get("TMPDIR", "/tmp"))
    app = None
    try:
        # Copies, so a concurrent build cannot replace them mid-run.
        for b in ("cmd/mmvlog", "bench/make_mmv_file"):
            shutil.copy(os.path.join(REPO, "bazel-out/k8-opt/bin", b), work)
        mmv_dir = os.path.join(work, "mmv")
        out_dir = os.path.join(work, "out")
        os.makedirs(mmv_dir)
        files = (args.values // 100 + 999) // 1000
        app = subprocess.Popen([os.path.join(work, "make_mmv_file"), mmv_dir, str(args.values),
                                str(args.duration + 30)], stdout=subprocess.PIPE, text=True)
        paths = [app.stdout.readline().strip() for _ in range(files)]
        if not all(paths) or app.poll() is not None:
            sys.exit("schedule.py: make_mmv_file failed")
        mmv_bytes = sum(os.path.getsize(p) for p in paths)
        time.sleep(0.5)  # the application is updating

        log_path = os.path.join(work, "record.log")
        with open(log_path, "w") as log:
            rec = subprocess.Popen(
                [os.path.join(work, "mmvlog"), "record", "--mmv-dir", mmv_dir, "--archive-dir", out_dir,
                 "--archive-name", "sched", "--interval", args.interval,
                 "-T", "%gsec" % args.duration, "-v", args.volume_size],
                stderr=log, stdout=log)
        start = time.monotonic()
        app_cpu0, busy0 = cpu_seconds(app.pid), machine_busy()
        wait = 0
        trace = []  # (seconds since start, rss KiB, hwm KiB)
        hwm = 0
        while rec.poll() is None:
            s = status_kib(rec.pid)
            if s:
                trace.append((time.monotonic() - start, s[0], s[1]))
                hwm = max(hwm, s[1])
                cpu = cpu_seconds(rec.pid)
                wait = run_queue_wait(rec.pid) or wait
            time.sleep(0.1)
        rc = rec.wait()
        wall = time.monotonic() - start
        app_cpu, busy1 = cpu_seconds(app.pid) - app_cpu0, machine_busy()
        machine = 100 * (busy1[0] - busy0[0]) / max(1, busy1[1] - busy0[1])
        with open(log_path) as f:
            log_text = f.read()
        if rc != 0:
            sys.exit("schedule.py: mmvlog record exited %d:\n%s" % (rc, log_text))
        m = SCHEDULE.search(log_text)
        if not m:
            sys.exit("schedule.py: no schedule line in the log:\n" + log_text)
        ticks, pct, missed, late = int(m.group(1)), float(m.group(2)), int(m.group(3)), int(m.group(4))
        p50, p99, p999, worst = m.group(5), m.group(6), m.group(7), m.group(8)
        volumes = sorted(f for f in os.listdir(out_dir) if re.fullmatch(r"sched\.\d+", f))
        archive_bytes = sum(os.path.getsize(os.path.join(out_dir, f)) for f in os.listdir(out_dir))

        limit_kib = (2 * mmv_bytes + 16 * MIB) // 1024
        steady = [t for t in trace if t[0] >= 2]
        quarter = max(1, len(steady) // 4)
        first_q = max(t[1] for t in steady[:quarter]) if steady else 0
        last_q = max(t[1] for t in steady[-quarter:]) if steady else 0
        p99_ms = to_ms(p99)

        print("== %d values every %s for %gs (%d MMV file(s), %.1f MiB); load average %s" %
              (args.values, args.interval, args.duration, files, mmv_bytes / MIB,
               " ".join(open("/proc/loadavg").read().split()[:3])))
        print("   %s" % m.group(0))
        print("   archive: %d volumes, %.2f GB in %.0f s" % (len(volumes), archive_bytes / 1e9, wall))
        print("   mmvlog CPU: %.1f s of %.1f s (%.0f%% of a core); its threads waited %.2f s for a CPU" %
              (cpu, wall, 100 * cpu / wall, wait))
        print("   application CPU: %.0f%% of a core; all CPUs %.0f%% busy (%d CPUs)" %
              (100 * app_cpu / wall, machine, os.cpu_count()))
        print()
        print("| ticks | on time | missed | late | p50 | p99 | p99.9 | max |")
        print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        print("| %d | %.2f%% | %d | %d | %s | %s | %s | %s |" % (ticks, pct, missed, late, p50, p99, p999, worst))
        print()
        print("| MMV files | RSS limit (2 x MMV + 16 MiB) | peak RSS (VmHWM) | max RSS, first quarter | max RSS, last quarter |")
        print("| ---: | ---: | ---: | ---: | ---: |")
        print("| %.1f MiB | %.1f MiB | %.1f MiB | %.1f MiB | %.1f MiB |" %
              (mmv_bytes / MIB, limit_kib / 1024, hwm / 1024, first_q / 1024, last_q / 1024))
        print()
        print("target 4 (99.9%% on time, p99 < 2 ms): %s" %
              ("met" if pct >= 99.9 and p99_ms < 2 else "NOT met"))
        print("target 5 (peak RSS <= 2 x MMV + 16 MiB, flat): %s" %
              ("met" if hwm <= limit_kib and last_q <= first_q * 1.05 + 256 else "NOT met"))
    finally:
        if app and app.poll() is None:
            app.terminate()
            app.wait()
        if args.keep:
            print("kept " + work, file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


def to_ms(text):
    m = re.fullmatch(r"([\d.]+)(us|ms|s)", text)
    v = float(m.group(1))
    return {"us": v / 1000, "ms": v, "s": v * 1000}[m.group(2)]


if __name__ == "__main__":
    main()
