#!/usr/bin/env bash
# Installs every Debian package mmvlog's build, tests and benchmarks need.
# Idempotent: does nothing when everything is already there.
# Usage: bash bazel/setup.sh [--no-pcp] [--pcp7 TARBALL]
#   --no-pcp        build and demo only
#   --pcp7 TARBALL  also build PCP 7.2.0 from its source tarball into /opt/pcp7 (or
#                   $MMVLOG_PCP7) with bazel/pcp7_build.sh: the second oracle of the
#                   tests in tests/pcp (tests/pcp/pcp7.py). A no-op once built (its
#                   .built-7.2.0-tls stamp exists). Without it those tests skip, saying so;
#                   in CI ($MMVLOG_REQUIRE_PCP7=1) they fail.
set -euo pipefail

# nlohmann-json3-dev: pmproxy's JSON replies read with a JSON parser
# (header-only). libcli11-dev: the command line (header-only CLI11); libjs-dygraphs: the
# charting library inlined into replay --html's pages; liblzma-dev, libbz2-dev,
# zlib1g-dev (with libzstd-dev): reading archives PCP's tools compressed (xz,
# lzma, bzip2, gzip, zstd); gzip decompresses .Z, as libpcp has it do.
# libssl-dev: TLS for the push to pmproxy over https:// (OpenSSL 3, as
# pmproxy's own; archiver/push/tls_stream.h says why).
BUILD_PKGS=(bazel-bootstrap g++ libabsl-dev libzstd-dev zstd libgtest-dev googletest libbenchmark-dev
            libcli11-dev libjs-dygraphs liblzma-dev libbz2-dev zlib1g-dev gzip nlohmann-json3-dev
            libssl-dev)
# chromium: tests/cmd/plot_test renders replay --plot's SVG and --html's page headless.
# xz-utils, liblzma-dev: the xz baseline of bench/compress_bench.
# man-db, groff-base: tests/cmd/man_test renders docs/mmvlog.1 with man -l.
# bash-completion: tests/cmd/completion_test sources docs/mmvlog.bash as bash would.
# strace: tests that check which system calls open files.
# ncompress: compress(1), to make the .Z archives tests/pcp:compressed_archive_test reads.
# clang-14, libfuzzer-14-dev: tests/fuzz/run_fuzzers.sh (libFuzzer targets in CI).
# dpkg-dev, lintian, systemd: tests/pcp:deb_package_test builds the package
# (dpkg-shlibdeps), lints it and verifies and rates its unit
# (systemd-analyze; systemd need not run).
# openssl: tests/cmd:push_tls_test makes its CAs and certificates.
PCP_LIBS=(libpcp3-dev libpcp-mmv1-dev libpcp-import1-dev python3-pcp xz-utils liblzma-dev chromium
          man-db groff-base bash-completion strace clang-14 libfuzzer-14-dev ncompress
          dpkg-dev lintian systemd openssl)
# redis-server: a private key server (started and stopped by the test) for
# pmseries --load in tests/pcp:series_identity_test; installed with pcp, so
# no service of its own is started.
PCP_PKGS=(pcp redis-server)

want_pcp=1
pcp7_tarball=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --no-pcp) want_pcp=0 ;;
    --pcp7)
      [[ $# -ge 2 ]] || { echo "setup: --pcp7 needs PCP 7.2.0's source tarball" >&2; exit 2; }
      pcp7_tarball=$2; shift ;;
    *) echo "usage: bash bazel/setup.sh [--no-pcp] [--pcp7 TARBALL]" >&2; exit 2 ;;
  esac
  shift
done

missing() {
  local p out=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || out+=("$p")
  done
  echo "${out[@]:-}"
}

SUDO=""
[[ $(id -u) -ne 0 ]] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
updated=0
apt_install() {
  if [[ $updated -eq 0 ]]; then $SUDO apt-get update -qq; updated=1; fi
  $SUDO apt-get install -y -qq --no-install-recommends "$@"
}

need=$(missing "${BUILD_PKGS[@]}")
if [[ $want_pcp -eq 1 ]]; then need="$need $(missing "${PCP_LIBS[@]}")"; fi
need=$(echo $need)
[[ -n "$need" ]] && apt_install $need

if [[ $want_pcp -eq 1 && -n "$(missing "${PCP_PKGS[@]}")" ]]; then
  # pcp's maintainer scripts call systemctl, which fails where systemd is not
  # PID 1 (shared/notes/MACHINE.md): stub it out for the install only.
  $SUDO sh -c 'printf "#!/bin/sh\nexit 101\n" > /usr/sbin/policy-rc.d; chmod +x /usr/sbin/policy-rc.d'
  $SUDO dpkg-divert --local --rename --add /usr/bin/systemctl >/dev/null
  $SUDO ln -sf /bin/true /usr/bin/systemctl
  restore() {
    $SUDO rm -f /usr/bin/systemctl
    $SUDO dpkg-divert --local --rename --remove /usr/bin/systemctl >/dev/null
    $SUDO rm -f /usr/sbin/policy-rc.d
  }
  trap restore EXIT
  apt_install "${PCP_PKGS[@]}" || true
  $SUDO dpkg --configure -a
  restore
  trap - EXIT
  [[ -z "$(missing "${PCP_PKGS[@]}")" ]] || { echo "setup: pcp or redis-server failed to install" >&2; exit 1; }
fi
# pmlogger -o (the reference recorder in tests: the MMV PMDA as a local DSO,
# no pmcd) needs the namespace pmcd's first start would build.
if [[ $want_pcp -eq 1 && ! -f /var/lib/pcp/pmns/root ]]; then
  # Rebuild writes "root" in the current directory: run it in its own.
  (cd /var/lib/pcp/pmns && $SUDO ./Rebuild -u) || { echo "setup: cannot build PCP's namespace" >&2; exit 1; }
  [[ -f /var/lib/pcp/pmns/root ]] || { echo "setup: PCP's namespace was not built" >&2; exit 1; }
fi
if [[ -n "$pcp7_tarball" ]]; then
  # Its own build dependencies (bison, flex, libuv1-dev, ...) are installed by
  # the script, from Debian's archive, only when missing.
  pcp7_prefix=${MMVLOG_PCP7:-/opt/pcp7}
  if [[ -e "$pcp7_prefix/.built-7.2.0-tls" ]]; then
    echo "setup: PCP 7.2.0 already built in $pcp7_prefix"
  else
    $SUDO env MMVLOG_PCP7="$pcp7_prefix" bash "$(dirname "$0")/pcp7_build.sh" "$pcp7_tarball" \
      "$pcp7_prefix" || { echo "setup: building PCP 7.2.0 failed" >&2; exit 1; }
  fi
fi
echo "setup: all packages present"
