#!/usr/bin/env bash
# Builds every libFuzzer target of tests/fuzz with clang-14
# (-fsanitize=fuzzer,address,undefined) and runs each for SECONDS on a copy of
# its seed corpus. Exit status 1 when a target crashes or a sanitizer
# reports; the input that did it is kept in OUT/<target>/ (see README.md).
#
#   tests/fuzz/run_fuzzers.sh [SECONDS] [OUT]       defaults: 20, /tmp/mmvlog-fuzz
set -uo pipefail
cd "$(dirname "$0")/../.."
SECONDS_EACH=${1:-20}
OUT=${2:-/tmp/mmvlog-fuzz}
CXX=${CXX_FUZZ:-clang++-14}
command -v "$CXX" >/dev/null || { echo "run_fuzzers: $CXX not found (apt-get install clang-14 libfuzzer-14-dev)" >&2; exit 1; }

declare -A CORPUS=(
  [mmv_fuzz]=mmv [archive_label_fuzz]=archive_label [archive_meta_fuzz]=archive_meta
  [archive_index_fuzz]=archive_index [archive_result_fuzz]=archive_result
  [event_record_fuzz]=event_record [label_json_fuzz]=label_json [json_fuzz]=json
  [archive_framing_fuzz]=archive_framing [user_text_fuzz]=user_text
  [logger_config_fuzz]=logger_config [read_stream_fuzz]=read_stream
  [pmrep_text_fuzz]=pmrep_text
)
# Sources beyond format/ that a target needs (pure ones only).
declare -A EXTRA=([logger_config_fuzz]=archiver/schedule/log_plan.cc
  [read_stream_fuzz]="archiver/store/read_stream.cc archiver/file/posix_file.cc -llzma -lbz2 -lz -lzstd")
TARGETS=(archive_framing_fuzz archive_index_fuzz archive_label_fuzz archive_meta_fuzz
         archive_result_fuzz event_record_fuzz json_fuzz label_json_fuzz logger_config_fuzz mmv_fuzz
         pmrep_text_fuzz read_stream_fuzz user_text_fuzz)
LIBS=$(pkg-config --libs absl_statusor absl_strings absl_time absl_str_format absl_flat_hash_map absl_flat_hash_set absl_hash absl_raw_hash_set)
FLAGS=(-std=c++20 -O1 -g -fno-omit-frame-pointer -fno-sanitize-recover=all -I.
       -Wno-unused-command-line-argument)
mkdir -p "$OUT/lib"
# format/ once, instrumented for coverage and the sanitizers (it is pure:
# nothing else is needed but Abseil).
objs=()
for src in $(find format -name "*.cc" | sort); do
  obj="$OUT/lib/$(basename "$src" .cc).o"
  "$CXX" "${FLAGS[@]}" -fsanitize=fuzzer-no-link,address,undefined -c "$src" -o "$obj" ||
    { echo "run_fuzzers: cannot compile $src" >&2; exit 1; }
  objs+=("$obj")
done
failed=0
for target in "${TARGETS[@]}"; do
  dir="$OUT/$target"
  rm -rf "$dir" && mkdir -p "$dir/corpus"
  cp tests/fuzz/corpus/"${CORPUS[$target]}"/* "$dir/corpus/"
  # shellcheck disable=SC2086
  if ! "$CXX" "${FLAGS[@]}" -fsanitize=fuzzer,address,undefined tests/fuzz/$target.cc \
       ${EXTRA[$target]:-} "${objs[@]}" $LIBS -o "$dir/$target" >"$dir/build.log" 2>&1; then
    echo "run_fuzzers: $target: build failed" >&2; tail -20 "$dir/build.log" >&2
    failed=1; continue
  fi
  if (cd "$dir" && UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        ./"$target" -max_total_time="$SECONDS_EACH" -rss_limit_mb=2048 -timeout=10 \
        -print_final_stats=1 corpus >run.log 2>&1); then
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$dir/run.log" | grep -o '[0-9]*$')
    echo "run_fuzzers: $target: ok, ${runs:-?} runs in ${SECONDS_EACH}s"
  else
    echo "run_fuzzers: $target: FAILED; input and log in $dir" >&2
    grep -m5 -E 'ERROR|SUMMARY|runtime error' "$dir/run.log" >&2
    failed=1
  fi
done
exit $failed
