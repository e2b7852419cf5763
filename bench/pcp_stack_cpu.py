#!/usr/bin/python3
"""CPU time of one recorder run (and of a helper process), for pcp_stack.sh.

  pcp_stack_cpu.py --out FILE --timeout SEC --interval_ms MS
                   [--also PID] [--pid_file FILE] -- CMD ARGS...

Runs CMD (exec'd directly: the measured process is CMD itself), kills it
after --timeout, and writes to --out lines "key value":

  rc            CMD's exit code (negative: killed by that signal)
  total         CMD's user + system CPU seconds over its whole life, from
                wait4's rusage (microseconds; the kernel's exact run time)
  total_ticks   the same from CMD's /proc/PID/stat utime + stime, read while
                it is a zombie (after exit, before it is reaped), clock ticks
  also          CPU seconds of process --also (pmcd) over CMD's life: the
                increase of the run times in /proc/PID/task/*/schedstat (ns)
  also_ticks    the same from /proc/PID/stat utime + stime, clock ticks
  gaps          number of idle gaps found (see below)
  steady        CMD's CPU seconds per sample in steady state, or "nan"
  steady_also   --also's CPU seconds per sample in steady state, or "nan"

Steady state: every 10 ms the run times of CMD and --also are read from
/proc/PID/task/*/schedstat. A recorder takes its first sample at once and
then one every interval; between samples both processes sleep, so their
summed run time stops growing. A gap is a stretch of at least
max(40 ms, min(interval / 10, 500 ms)) over which that sum grew by less than
50 µs. With N samples there are N - 1 gaps; the CPU used between the first
and the last gap, divided by the number of gaps - 1, is the CPU of one
sample without start-up, metadata of the first sample, or shutdown. It is
"nan" unless exactly N - 1 gaps were found (e.g. when a fetch took longer
than the interval, so that samples ran into each other).
"""

import argparse
import glob
import math
import os
import signal
import sys
import time

POLL = 0.010
QUIET_NS = 50_000


def run_ns(pid):
    """Sum of the run times (ns) of pid's threads; None if it is gone."""
    total, seen = 0, False
    for path in glob.glob("/proc/%d/task/*/schedstat" % pid):
        try:
            with open(path) as f:
                total += int(f.read().split()[0])
            seen = True
        except (OSError, ValueError, IndexError):
            pass
    return total if seen else None


def stat_ticks(pid):
    """utime + stime of pid in clock ticks; 0 if it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return int(fields[11]) + int(fields[12])


def find_gaps(trace, min_len):
    """[(t, cpu_ns_cmd, cpu_ns_also)] at the middle of each idle gap."""
    gaps = []
    i = 0
    while i < len(trace):
        j = i
        while j + 1 < len(trace) and (trace[j + 1][1] + trace[j + 1][2]) - (trace[i][1] + trace[i][2]) < QUIET_NS:
            j += 1
        if trace[j][0] - trace[i][0] >= min_len:
            gaps.append(trace[(i + j) // 2])
            i = j + 1
        else:
            i += 1
    return gaps


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--timeout", type=float, required=True)
    ap.add_argument("--interval_ms", type=float, required=True)
    ap.add_argument("--samples", type=int, required=True)
    ap.add_argument("--also", type=int, default=0)
    ap.add_argument("--pid_file", default="")
    ap.add_argument("cmd", nargs="+")
    a = ap.parse_args()

    also0 = (run_ns(a.also) or 0) if a.also else 0
    also_t0 = stat_ticks(a.also) if a.also else 0
    pid = os.fork()
    if pid == 0:
        try:
            os.execvp(a.cmd[0], a.cmd)
        except OSError as e:
            sys.stderr.write("cannot run %s: %s\n" % (a.cmd[0], e))
        os._exit(127)
    if a.pid_file:
        with open(a.pid_file, "w") as f:
            f.write(str(pid))
    signal.signal(signal.SIGTERM, lambda *_: os.kill(pid, signal.SIGTERM))
    start = time.monotonic()
    trace = []
    while True:
        info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT | os.WNOHANG)
        if info is not None:
            break  # a zombie now
        now = time.monotonic()
        if now - start > a.timeout:
            sys.stderr.write("timeout: killing %s after %g s\n" % (a.cmd[0], a.timeout))
            os.kill(pid, signal.SIGKILL)
            os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
            break
        c = run_ns(pid)
        if c is not None:
            also = run_ns(a.also) if a.also else None
            trace.append((now, c, (also - also0) if also is not None else 0))
        time.sleep(POLL)
    ticks = stat_ticks(pid)
    also1 = (run_ns(a.also) or also0) if a.also else 0
    also_t1 = stat_ticks(a.also) if a.also else 0
    _, status, ru = os.wait4(pid, 0)
    if a.pid_file:
        open(a.pid_file, "w").close()
    rc = os.waitstatus_to_exitcode(status)

    min_len = max(0.040, min(a.interval_ms / 1000 / 10, 0.5))
    gaps = find_gaps(trace, min_len)
    steady = steady_also = math.nan
    if a.samples >= 3 and len(gaps) == a.samples - 1:
        k = len(gaps) - 1
        steady = (gaps[-1][1] - gaps[0][1]) / 1e9 / k
        steady_also = (gaps[-1][2] - gaps[0][2]) / 1e9 / k
    with open(a.out, "w") as f:
        f.write("rc %d\ntotal %.6f\ntotal_ticks %d\nalso %.6f\nalso_ticks %d\n"
                "gaps %d\nsteady %.9f\nsteady_also %.9f\n" % (
                    rc, ru.ru_utime + ru.ru_stime, ticks, (also1 - also0) / 1e9,
                    also_t1 - also_t0, len(gaps), steady, steady_also))
    sys.exit(rc if rc >= 0 else 128 - rc)


if __name__ == "__main__":
    main()
