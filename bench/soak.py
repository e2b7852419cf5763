#!/usr/bin/env python3
"""A soak of `mmvlog record` over a churning MMV directory.

    bench/soak.py [--minutes 60] [--files 200] [--stable 10] [--mmvlog PATH]
                  [--churn PATH] [--keep]

bench:soak_churn plays the directory: STABLE stable files updated every 50
ms (the first ten with pwrite, the rest through a mapping, as MMV writers
do; --stable 200 is the many-files mode of issue 32: a host full of
applications), and FILES more created, grown, truncated, replaced,
scribbled on and deleted every two seconds. `mmvlog record -t 100msec` records it all the while. Every
5 s the recorder's open file descriptors, mapped MMV files, RSS and CPU time
are read from /proc. At the end (SIGTERM) it checks what cannot be noise, and
fails unless all of it holds:

  - open fds, mappings and RSS flat: the last window (a sixth of the run, at
    most ten minutes) against the first (after a warm-up of the same length):
    descriptors beyond one per MMV file +2 at most, mapped MMV files (live or
    deleted) +2 at most beyond those there are (give or take the files of one
    round: 20), RSS +20% + 4 MB at most;
  - files: the archive's directory holds the archive's files and nothing else
    (no temporary or stray file);
  - samples written against ticks: every tick the schedule took wrote a
    sample (none dropped), and the archive holds one record per sample;
  - no sample of a stable file lost: every result record holds every value
    of every stable file;
  - each change logged once: no file's problem logged twice in a row
    without its recovery between (counts of the log's lines);
  - pmlogcheck clean.

It also prints the CPU time per sample of both windows and their ratio: the
trend a benchmark reports (bench/README.md, "soak.py"), never a pass or a
fail, since it moves with whatever else the machine runs.

Exit status 0 when all the checks hold. tests/cmd/soak_test.py runs it for two
minutes in CI.
"""

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

CLK_TCK = os.sysconf("SC_CLK_TCK")


def proc_sample(pid, mmv_dir):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime + stime
    rss_kb = 0
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss_kb = int(line.split()[1])
    fds = len(os.listdir("/proc/%d/fd" % pid))
    files = len(os.listdir(mmv_dir))
    # MMV files mapped (one line per mapping, deleted ones too).
    with open("/proc/%d/maps" % pid) as f:
        maps = len({line.split(None, 5)[5].strip() for line in f
                    if len(line.split(None, 5)) == 6 and mmv_dir + "/" in line})
    # Open descriptors and mappings beyond one per MMV file: what would show
    # a leak.
    return {"t": time.monotonic(), "cpu": cpu, "rss_kb": rss_kb, "fds": fds - files,
            "maps": maps - files}


def window(samples, start, end):
    return [s for s in samples if start <= s["t"] - samples[0]["t"] < end]


def summarize(samples, interval):
    """(fds, maps, rss_kb, cpu microseconds per sample) over a window."""
    fds = max(s["fds"] for s in samples)
    maps = max(s["maps"] for s in samples)
    rss = max(s["rss_kb"] for s in samples)
    span = samples[-1]["t"] - samples[0]["t"]
    cpu = (samples[-1]["cpu"] - samples[0]["cpu"]) / max(span / interval, 1) * 1e6
    return fds, maps, rss, cpu


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--minutes", type=float, default=60)
    ap.add_argument("--files", type=int, default=200)
    ap.add_argument("--stable", type=int, default=10)
    ap.add_argument("--mmvlog", default=os.path.join(here, "..", "bazel-bin", "cmd", "mmvlog"))
    ap.add_argument("--churn", default=os.path.join(here, "..", "bazel-bin", "bench", "soak_churn"))
    ap.add_argument("--dir", default=None)
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    seconds = args.minutes * 60
    interval = 0.1
    work = args.dir or tempfile.mkdtemp(prefix="mmvlog-soak-")
    mmv_dir = os.path.join(work, "mmv")
    os.makedirs(mmv_dir, exist_ok=True)
    archive = os.path.join(work, "soak")

    churn = subprocess.Popen([args.churn, mmv_dir, str(seconds + 15), str(args.files), "1",
                              str(args.stable)], stdout=subprocess.DEVNULL)
    time.sleep(1)  # the stable files exist before the first sample
    log = open(os.path.join(work, "record.log"), "w")
    rec = subprocess.Popen([args.mmvlog, "record", "-t", "100msec", "--mmv-dir", mmv_dir,
                            "--no-progress", archive], stdout=log, stderr=log)
    samples = []
    started = time.monotonic()
    try:
        while time.monotonic() - started < seconds:
            if rec.poll() is not None:
                print("soak: mmvlog record exited early (%d); see %s" % (rec.returncode, log.name))
                return 1
            samples.append(proc_sample(rec.pid, mmv_dir))
            time.sleep(5)
        samples.append(proc_sample(rec.pid, mmv_dir))
    finally:
        if rec.poll() is None:
            rec.send_signal(signal.SIGTERM)
        rec.wait(timeout=60)
        churn.kill()
        churn.wait()
        log.close()
    failures = []
    if rec.returncode != 0:
        failures.append("mmvlog record exited %d" % rec.returncode)

    # Flat use: the first window after a warm-up against the last one.
    length = min(seconds / 6, 600)
    first = window(samples, length, 2 * length)
    last = window(samples, seconds - length, seconds + 60)
    if len(first) < 2 or len(last) < 2:
        failures.append("too few /proc samples (%d)" % len(samples))
    else:
        f_fds, f_maps, f_rss, f_cpu = summarize(first, interval)
        l_fds, l_maps, l_rss, l_cpu = summarize(last, interval)
        print("soak: window %.0f s: fds beyond one per MMV file %d -> %d, mappings beyond "
              "one per MMV file %d -> %d, RSS %.1f -> %.1f MB"
              % (length, f_fds, l_fds, f_maps, l_maps, f_rss / 1024, l_rss / 1024))
        # The trend, for bench/README.md: not checked (it moves with the load).
        print("soak: CPU per sample %.0f -> %.0f us (x%.2f); load average %s"
              % (f_cpu, l_cpu, l_cpu / max(f_cpu, 1), " ".join(
                  open("/proc/loadavg").read().split()[:3])))
        if l_fds > f_fds + 2 + 20:  # + files deleted in the round being sampled
            failures.append("open fds grew: %d -> %d" % (f_fds, l_fds))
        if l_maps > f_maps + 2 + 20:
            failures.append("mapped MMV files grew: %d -> %d" % (f_maps, l_maps))
        if l_rss > f_rss * 1.2 + 4096:
            failures.append("RSS grew: %d -> %d kB" % (f_rss, l_rss))

    # The archives: the first, and the ones recording went on in when a file
    # made a PMID change meaning (a scribbled header turns a churning file's
    # names and clusters into another's: "recording continues in a new
    # archive"), soak-2, soak-3, ... in order.
    archives = [archive] + sorted(
        (os.path.join(work, f[:-len(".meta")]) for f in os.listdir(work)
         if re.fullmatch(r"soak-\d+\.meta", f)),
        key=lambda b: int(b.rsplit("-", 1)[1]))
    # Every record holds every stable value (20 values of each stable file).
    for a in archives:
        rc = subprocess.run(["pmlogcheck", a], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            universal_newlines=True)
        if rc.returncode != 0:
            failures.append("pmlogcheck %s: %s" % (a, rc.stdout.strip()[:2000]))
    # Each archive read alone: a new archive maps its files afresh (new
    # PMIDs), so read together each stable column would come twice.
    rows, incomplete, columns = [], [], set()
    for a in archives:
        csv = subprocess.run([args.mmvlog, "replay", "-a", a, "-o", "csv", "-r", "mmv.stable*"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             universal_newlines=True)
        these = [l for l in csv.stdout.split("\n")[1:] if l]
        rows += these
        columns.add(len(csv.stdout.split("\n")[0].split(",")) - 1)
        incomplete += [r for r in these if any(c == "" for c in r.split(",")[1:])]
    expected = seconds / interval
    print("soak: %d records in %d archive(s), %s stable columns, %d records missing a stable "
          "value; %.0f samples due" % (len(rows), len(archives), "/".join(map(str, columns)),
                                       len(incomplete), expected))
    if columns != {20 * args.stable}:
        failures.append("stable columns: %s, want %d (%d files x 5 metrics x 4 instances)"
                        % (sorted(columns), 20 * args.stable, args.stable))
    if incomplete:
        failures.append("%d records miss a stable value, e.g. %s" % (len(incomplete),
                                                                     incomplete[0][:200]))
    with open(os.path.join(work, "record.log")) as f:
        text = f.read()
    m = re.search(r"(\d+) samples, (\d+) values, (\d+) marks, (\d+) missed ticks, "
                  r"(\d+) dropped", text)
    ticks = re.search(r"schedule: (\d+) ticks", text)
    # Each problem of a file said once until it recovers (or goes).
    last = {}
    repeated = []
    for line in text.split("\n"):
        w = re.search(r"(?:info|warning): (?:\S*/)?(\S+?): (.*)$", line)
        if not w:
            continue
        name, what = w.groups()
        if "not recorded until it recovers" in what:
            if last.get(name) == what:
                repeated.append(line)
            last[name] = what
        elif what in ("readable again", "file is gone"):
            last.pop(name, None)
    print("soak: %d problem lines logged, %d repeated without a recovery between"
          % (text.count("not recorded until it recovers"), len(repeated)))
    if repeated:
        failures.append("problems logged again without a recovery: %s" % repeated[:3])
    if not m or not ticks:
        failures.append("no schedule or stopped line in record.log")
    else:
        samples, missed, dropped = int(m.group(1)), int(m.group(4)), int(m.group(5))
        taken = int(ticks.group(1)) - missed
        print("soak: recorder: %s samples, %s values, %s marks, %s missed ticks, %s dropped; "
              "%d ticks taken" % (m.group(1, 2, 3, 4, 5) + (taken,)))
        # Counts, not times: a tick the machine made late or skipped is no
        # failure; one taken and not written is.
        if dropped or samples != taken:
            failures.append("%d samples written of %d ticks taken (%d dropped)"
                            % (samples, taken, dropped))
        if len(rows) != samples:
            failures.append("the archive holds %d records, the recorder wrote %d samples"
                            % (len(rows), samples))
    # Files: the archive's own, the log and record's lock, nothing else.
    stray = [f for f in os.listdir(work)
             if f not in ("mmv", "record.log", ".mmvlog.lock") and
             not re.fullmatch(r"soak(-\d+)?\.(meta|index|\d+)", f)]
    if stray:
        failures.append("stray files beside the archive: %s" % sorted(stray)[:10])
    for f in failures:
        print("soak: FAILED: %s" % f)
    if not args.keep and not failures and args.dir is None:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print("soak: files kept in %s" % work)
    print("soak: %s" % ("ok" if not failures else "FAILED"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
