#!/usr/bin/env bash
# bench/pcp_stack.sh: CPU per sample of PCP's own recording stack (pmlogger
# through a private pmcd with the MMV PMDA) beside mmvlog's, both recording
# the same generated MMV file at the same interval for the same number of
# samples. Prints one table row per size and the ratio.
#
#   bench/pcp_stack.sh [--interval SEC] [--samples N] [--keep] [VALUES...]
#
# VALUES: U64 values in the MMV file(s), multiples of 100 (default: 1000
# 10000 100000). Model as in bench/recorder_bench.cc: counters, 100 instances
# per metric, at most 1000 metrics per file (bench:make_mmv_file).
#
# Interval and samples: by default 2 s and 10 samples below 50,000 values,
# and 10 s and 5 samples from 50,000 values on: there pmcd's MMV PMDA spends
# over 3 s of CPU on one fetch of 100k values (its cost is quadratic; more
# wall time under load) and pmcd gives up on a fetch after 10 s, so a shorter
# interval would make pmlogger's samples run into each other. --interval SEC
# (seconds, fractions allowed, at least 0.02: pmlogger's floor) and
# --samples N (at least 3 for the steady state) set both for every size.
# The defaults take ~3 min. bench/README.md has results.
#
# Per size, in a private work directory under /tmp (removed at the end, even
# on errors and signals, unless --keep):
#   1. make_mmv_file writes the file into WORK/tmp/mmv (a private PCP_TMP_DIR);
#   2. a private pmcd is started with only pmcd's own PMDA and the MMV PMDA,
#      on a free TCP port of 127.0.0.1 (recipe: tests/pcp/pcp_stack.py);
#   3. pmlogger records the `mmv` subtree every SEC for N samples (-s N,
#      archive version 2, the only one pmlogger 6.0.3 writes);
#   4. pmcd is stopped; mmvlog capture records the same directory at the same
#      interval for N samples (--archive-version 2).
# CPU time (user + system), measured by bench/pcp_stack_cpu.py:
#   pmlogger, mmvlog  the whole process, from wait4's rusage (exact), with the
#                     zombie's /proc/PID/stat utime + stime (10 ms ticks) as a
#                     check;
#   pmcd              the increase over pmlogger's run of the run times in
#                     /proc/PID/task/*/schedstat (ns), with /proc/PID/stat
#                     utime + stime (ticks) as a check.
# Two tables: steady state (samples 2 .. N-1, found as the CPU between the
# idle gaps that separate samples: no start-up, first-sample metadata or
# shutdown), and whole runs / N. Ratio = (pmlogger + pmcd) / mmvlog.
#
# Needs: root (pmcd -U root), PCP 6.0.3 (pmcd, pmlogger, pmda_mmv.so),
# /usr/bin/python3, bazel. Builds //cmd:mmvlog and //bench:make_mmv_file
# with -c opt first.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-2}"; }

INTERVAL=""
SAMPLES=""
KEEP=0
SIZES=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --interval) INTERVAL="$2"; shift 2 ;;
    --interval=*) INTERVAL="${1#*=}"; shift ;;
    --samples) SAMPLES="$2"; shift 2 ;;
    --samples=*) SAMPLES="${1#*=}"; shift ;;
    --keep) KEEP=1; shift ;;
    -h|--help) usage 0 ;;
    -*) echo "pcp_stack.sh: unknown option $1" >&2; usage ;;
    *) SIZES+=("$1"); shift ;;
  esac
done
[[ ${#SIZES[@]} -gt 0 ]] || SIZES=(1000 10000 100000)
for v in "${SIZES[@]}"; do
  [[ "$v" =~ ^[0-9]+$ && $v -ge 100 && $((v % 100)) -eq 0 ]] ||
    { echo "pcp_stack.sh: VALUES must be multiples of 100 (got $v)" >&2; exit 2; }
done
if [[ -n "$INTERVAL" ]] && ! [[ "$INTERVAL" =~ ^[0-9]+(\.[0-9]+)?$ ]]; then
  echo "pcp_stack.sh: --interval takes seconds, e.g. 2 or 0.5 (got $INTERVAL)" >&2; exit 2
fi
if [[ -n "$SAMPLES" ]] && ! [[ "$SAMPLES" =~ ^[1-9][0-9]*$ ]]; then
  echo "pcp_stack.sh: --samples takes a positive integer (got $SAMPLES)" >&2; exit 2
fi
[[ $(id -u) -eq 0 ]] || { echo "pcp_stack.sh: run as root (pmcd -U root)" >&2; exit 2; }

PY=/usr/bin/python3
BINADM=/usr/lib/pcp/bin
PMDAS=/var/lib/pcp/pmdas
PMNS_DIR=/var/lib/pcp/pmns
for f in "$BINADM/pmcd" "$BINADM/pmcd_wait" "$BINADM/pmnsmerge" "$PMDAS/pmcd/pmda_pmcd.so" \
         "$PMDAS/mmv/pmda_mmv.so" "$PMNS_DIR/root_pmcd" "$PMDAS/mmv/root_mmv" "$PY"; do
  [[ -e "$f" ]] || { echo "pcp_stack.sh: missing $f (install pcp: shared/notes/MACHINE.md)" >&2; exit 1; }
done
command -v pmlogger >/dev/null || { echo "pcp_stack.sh: pmlogger not found" >&2; exit 1; }

REPO="$(cd "$(dirname "$0")/.." && pwd)"
cd "$REPO"
echo "building //cmd:mmvlog //bench:make_mmv_file (-c opt)" >&2
bazel build -c opt //cmd:mmvlog //bench:make_mmv_file >&2
MMVLOG="$REPO/bazel-out/k8-opt/bin/cmd/mmvlog"
MAKE_MMV="$REPO/bazel-out/k8-opt/bin/bench/make_mmv_file"
# Copies, so that a concurrent bazel build cannot replace them mid-run.
WORK_ROOT="$(mktemp -d /tmp/pcpstack.XXXXXX)"  # short: pmcd's socket path
cp "$MMVLOG" "$MAKE_MMV" "$WORK_ROOT/"
MMVLOG="$WORK_ROOT/mmvlog"
MAKE_MMV="$WORK_ROOT/make_mmv_file"

TICK=$(getconf CLK_TCK)
PMCD_PID=""
MEASURE_PID=""
CHILD_PID_FILE="$WORK_ROOT/child.pid"

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [[ -s "$CHILD_PID_FILE" ]]; then  # the recorder being measured
    local c; c=$(cat "$CHILD_PID_FILE")
    kill -TERM "$c" 2>/dev/null || true
  fi
  if [[ -n "$MEASURE_PID" ]]; then  # pcp_stack_cpu.py (passes TERM on)
    kill -TERM "$MEASURE_PID" 2>/dev/null || true
    wait "$MEASURE_PID" 2>/dev/null || true
  fi
  stop_pmcd
  if [[ $KEEP -eq 1 ]]; then
    echo "kept $WORK_ROOT" >&2
  else
    rm -rf "$WORK_ROOT"
  fi
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

stop_pmcd() {
  [[ -n "$PMCD_PID" ]] || return 0
  if kill -TERM "$PMCD_PID" 2>/dev/null; then
    for _ in $(seq 100); do
      kill -0 "$PMCD_PID" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL "$PMCD_PID" 2>/dev/null || true
  fi
  wait "$PMCD_PID" 2>/dev/null || true
  PMCD_PID=""
}

# measure OUT CMD...: bench/pcp_stack_cpu.py runs CMD and writes its CPU
# (and pmcd's, when $ALSO is a pid) to OUT; see that file.
measure() {
  local out=$1; shift
  "$PY" "$REPO/bench/pcp_stack_cpu.py" --out "$out" --timeout "$timeout" \
    --interval_ms "$msec" --samples "$n" --also "${ALSO:-0}" --pid_file "$CHILD_PID_FILE" -- "$@"
}
val() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }

free_port() {
  "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# start_pmcd WORK: a private pmcd reading WORK/tmp/mmv; sets PMCD_PID, HOST.
start_pmcd() {
  local work=$1 attempt port log
  mkdir -p "$work/run"
  printf 'pmcd\t2\tdso\tpmcd_init\t%s\nmmv\t70\tdso\tmmv_init\t%s\n' \
    "$PMDAS/pmcd/pmda_pmcd.so" "$PMDAS/mmv/pmda_mmv.so" >"$work/pmcd.conf"
  "$BINADM/pmnsmerge" -a "$PMNS_DIR/root_pmcd" "$PMDAS/mmv/root_mmv" "$work/root" >/dev/null
  for attempt in 0 1 2 3 4; do
    port=$(free_port)
    log="$work/pmcd.$attempt.log"
    env -u PMCD_PORT -u PMCD_SOCKET -u PMCD_HOST \
      PCP_TMP_DIR="$work/tmp" PCP_RUN_DIR="$work/run" PCP_LOG_DIR="$work" \
      "$BINADM/pmcd" -f -A -p "$port" -i 127.0.0.1 -U root -c "$work/pmcd.conf" \
      -n "$work/root" -s "$work/pmcd.socket" -l "$log" \
      </dev/null >"$work/pmcd.$attempt.out" 2>&1 &
    PMCD_PID=$!
    HOST="127.0.0.1:$port"
    local ok=0
    for _ in $(seq 200); do
      kill -0 "$PMCD_PID" 2>/dev/null || break
      grep -q 'request port(s)' "$log" 2>/dev/null && break
      sleep 0.05
    done
    sleep 0.1
    if ! grep -Eq "^[[:space:]]+err[[:space:]]+-1[[:space:]]+$port[[:space:]]+inet" "$log" 2>/dev/null; then
      if pcp_env "$BINADM/pmcd_wait" -h "$HOST" -t 10 >/dev/null 2>&1 &&
         pcp_env pminfo -h "$HOST" -f mmv.control.files 2>/dev/null | grep -q value; then
        ok=1
      fi
    fi
    [[ $ok -eq 1 ]] && return 0
    echo "pmcd attempt $attempt on port $port failed:" >&2
    tail -20 "$log" "$work/pmcd.$attempt.out" >&2 || true
    stop_pmcd
  done
  echo "pcp_stack.sh: pmcd did not come up" >&2
  return 1
}

# pcp_env CMD...: runs CMD as a client of the private pmcd of $WORK; env
# execs CMD, so under run_measured the measured process is CMD itself.
pcp_env_words() {
  PCP_ENV=(env -u PMCD_PORT -u PMCD_SOCKET -u PMCD_HOST -u PCP_ARCHIVE_VERSION
           PCP_TMP_DIR="$WORK/tmp" PCP_RUN_DIR="$WORK/run" PCP_DERIVED_CONFIG=)
}
pcp_env() { "${PCP_ENV[@]}" "$@"; }

per() { "$PY" -c 'import sys; print(float(sys.argv[1]) / int(sys.argv[2]))' "$1" "$n"; }

# row PMLOGGER PMCD MMVLOG: one table row for $VALUES/$msec/$n, from
# per-sample CPU seconds ("nan": unknown).
row() {
  "$PY" - "$VALUES" "$msec" "$n" "$@" <<'EOF'
import math, sys
values, msec, n = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
pl, pmcd, mv = (float(x) for x in sys.argv[4:7])
def t(s):
    if math.isnan(s):
        return "n/a"
    for unit, f in (("s", 1), ("ms", 1e3), ("µs", 1e6)):
        if s * f >= 1 or unit == "µs":
            v = s * f
            return ("%.3g" % v if v < 1000 else "%.0f" % v) + " " + unit
r = (pl + pmcd) / mv if mv > 0 else math.nan
print("| %s | %g s | %d | %s | %s | %s | %s | %s |" % (
    format(values, ","), msec / 1000, n, t(pl), t(pmcd), t(pl + pmcd), t(mv),
    "n/a" if math.isnan(r) else "%.0fx" % r))
EOF
}

STEADY_ROWS=()
TOTAL_ROWS=()
for VALUES in "${SIZES[@]}"; do
  if [[ -n "$INTERVAL" ]]; then ivl=$INTERVAL; elif [[ $VALUES -ge 50000 ]]; then ivl=10; else ivl=2; fi
  if [[ -n "$SAMPLES" ]]; then n=$SAMPLES; elif [[ $VALUES -ge 50000 ]]; then n=5; else n=10; fi
  msec=$("$PY" -c 'import sys; print(max(20, round(float(sys.argv[1]) * 1000)))' "$ivl")
  timeout=$(( (n - 1) * msec / 1000 + 120 ))
  WORK="$WORK_ROOT/v$VALUES"
  mkdir -p "$WORK/tmp/mmv" "$WORK/out"
  pcp_env_words
  "$MAKE_MMV" "$WORK/tmp/mmv" "$VALUES" >/dev/null
  echo "== $VALUES values: interval ${msec} ms, $n samples ($(du -sh "$WORK/tmp/mmv" | cut -f1) of MMV files);" \
       "load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2

  start_pmcd "$WORK"
  nmetrics=$(pcp_env pminfo -h "$HOST" mmv | grep -vc '^mmv\.control\.' || true)
  echo "   pmcd $PMCD_PID on $HOST: $nmetrics mmv metrics" >&2
  printf 'log mandatory on every %d msec {\n    mmv\n}\n' "$msec" >"$WORK/pmlogger.conf"
  # In the background, so that a signal to this script is handled at once.
  ALSO=$PMCD_PID measure "$WORK/pmlogger.cpu" "${PCP_ENV[@]}" \
    pmlogger -h "$HOST" -c "$WORK/pmlogger.conf" -s "$n" -V 2 \
    -l "$WORK/pmlogger.log" "$WORK/out/pmlogger" &
  MEASURE_PID=$!
  wait $MEASURE_PID || { echo "pmlogger failed:" >&2; tail -30 "$WORK/pmlogger.log" >&2; exit 1; }
  stop_pmcd
  if grep -Eiq 'timeout|error|fail|skip' "$WORK/pmlogger.log"; then
    echo "   pmlogger's log reports problems:" >&2
    grep -Ei 'timeout|error|fail|skip' "$WORK/pmlogger.log" | head -5 | sed 's/^/     /' >&2
  fi

  ALSO=0 measure "$WORK/mmvlog.cpu" "${PCP_ENV[@]}" \
    "$MMVLOG" capture -o "$WORK/out/mmvlog" --mmv-dir "$WORK/tmp/mmv" \
    -t "${msec}msec" -s "$n" -V 2 --no-progress \
    >"$WORK/mmvlog.log" 2>&1 &
  MEASURE_PID=$!
  wait $MEASURE_PID || { echo "mmvlog failed:" >&2; tail -30 "$WORK/mmvlog.log" >&2; exit 1; }
  sed 's/^/   mmvlog: /' "$WORK/mmvlog.log" >&2

  P="$WORK/pmlogger.cpu" M="$WORK/mmvlog.cpu"
  echo "   whole runs: pmlogger $(val "$P" total) s ($(val "$P" total_ticks) ticks)," \
       "pmcd $(val "$P" also) s ($(val "$P" also_ticks) ticks)," \
       "mmvlog $(val "$M" total) s ($(val "$M" total_ticks) ticks); 1 tick = 1/$TICK s;" \
       "idle gaps: pmlogger+pmcd $(val "$P" gaps), mmvlog $(val "$M" gaps) (want $((n - 1)))" >&2
  echo "   archive volumes: pmlogger $(stat -c %s "$WORK/out/pmlogger.0") B," \
       "mmvlog $(stat -c %s "$WORK/out/mmvlog.0") B" >&2
  STEADY_ROWS+=("$(row "$(val "$P" steady)" "$(val "$P" steady_also)" "$(val "$M" steady)")")
  TOTAL_ROWS+=("$(row "$(per "$(val "$P" total)")" "$(per "$(val "$P" also)")" "$(per "$(val "$M" total)")")")
done

echo "== done; load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2

HEADER="| values | interval | samples | pmlogger | pmcd | pmlogger + pmcd | mmvlog | ratio |
| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
echo
echo "CPU per sample (user + system), same MMV file, same interval, same number of samples"
echo
echo "Steady state (samples 2 .. N-1: no start-up, first-sample metadata or shutdown):"
echo
echo "$HEADER"
printf '%s\n' "${STEADY_ROWS[@]}"
echo
echo "Whole runs / N (start-up, metadata and shutdown included; pmcd: over pmlogger's run):"
echo
echo "$HEADER"
printf '%s\n' "${TOTAL_ROWS[@]}"
