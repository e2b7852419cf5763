#!/usr/bin/env bash
# Builds the Debian package of mmvlog: OUTDIR/mmvlog_VERSION_amd64.deb, with
# dpkg-deb from the binary `bazel build -c opt //cmd:mmvlog` makes.
#
#   bash bazel/build-deb.sh [--binary MMVLOG] OUTDIR
#
# --binary packages that binary instead of building one (tests/pcp:
# deb_package_test packages the one its runfiles hold).
#
# It holds /usr/bin/mmvlog, its man page and bash completion, the service
# /lib/systemd/system/mmvlog.service (bazel/deb/mmvlog.service), its settings
# /etc/default/mmvlog (a conffile: an upgrade keeps the user's), docs, and
# the maintainer scripts in bazel/deb/ (the pcp user and group when PCP has
# not made them, the archive folder, the service enabled and started as
# Debian's pcp package does pmlogger; archives kept on remove and purge).
# Install with `apt install ./mmvlog_VERSION_amd64.deb`.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=""
if [[ ${1:-} == --binary ]]; then
  [[ $# -ge 2 ]] || { echo "usage: bash bazel/build-deb.sh [--binary MMVLOG] OUTDIR" >&2; exit 2; }
  bin=$2
  shift 2
fi
[[ $# -eq 1 ]] || { echo "usage: bash bazel/build-deb.sh [--binary MMVLOG] OUTDIR" >&2; exit 2; }
out=$(mkdir -p "$1" && cd "$1" && pwd)

version=$(sed -n 's/^inline constexpr char kVersion\[\] = "\(.*\)";/\1/p' cmd/cli.h)
[[ -n $version ]] || { echo "build-deb: no kVersion in cmd/cli.h" >&2; exit 1; }
arch=$(dpkg --print-architecture)

if [[ -z $bin ]]; then
  bazel build -c opt //cmd:mmvlog >&2
  bin=$(bazel info -c opt bazel-bin 2>/dev/null)/cmd/mmvlog
fi

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
pkg=$root/pkg
install -d "$pkg/DEBIAN" "$pkg/usr/bin" "$pkg/usr/share/man/man1" \
    "$pkg/usr/share/bash-completion/completions" "$pkg/lib/systemd/system" "$pkg/etc/default" \
    "$pkg/usr/share/doc/mmvlog"
install -m 0755 "$bin" "$pkg/usr/bin/mmvlog"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$pkg/usr/bin/mmvlog"
gzip -9n < docs/mmvlog.1 > "$pkg/usr/share/man/man1/mmvlog.1.gz"
install -m 0644 docs/mmvlog.bash "$pkg/usr/share/bash-completion/completions/mmvlog"
install -m 0644 bazel/deb/mmvlog.service "$pkg/lib/systemd/system/mmvlog.service"
install -m 0644 bazel/deb/default "$pkg/etc/default/mmvlog"
for f in README.md docs/fleet.md docs/architecture.md; do
  gzip -9n < "$f" > "$pkg/usr/share/doc/mmvlog/$(basename "$f").gz"
done
cat > "$pkg/usr/share/doc/mmvlog/copyright" <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: mmvlog
Source: https://github.com/mmvlog/mmvlog

Files: *
Copyright: 2026 the mmvlog developers
License: Apache-2.0
 On Debian systems, the full text of the Apache License, Version 2.0, is in
 /usr/share/common-licenses/Apache-2.0.
EOF
{
  echo "mmvlog ($version) unstable; urgency=medium"
  echo
  echo "  * Release $version: see /usr/share/doc/mmvlog/README.md.gz."
  echo
  echo " -- mmvlog developers <mmvlog@users.noreply.github.com>  $(date -R -d @"${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}")"
} | gzip -9n > "$pkg/usr/share/doc/mmvlog/changelog.gz"
install -m 0755 bazel/deb/postinst bazel/deb/prerm bazel/deb/postrm "$pkg/DEBIAN/"
echo /etc/default/mmvlog > "$pkg/DEBIAN/conffiles"

# The libraries the binary needs, as dpkg-shlibdeps finds them, and libssl3,
# which it loads for https:// (archiver/push/openssl_api.h).
mkdir -p "$root/src/debian"
printf 'Source: mmvlog\n\nPackage: mmvlog\nArchitecture: any\n' > "$root/src/debian/control"
depends=$(cd "$root/src" && dpkg-shlibdeps -O "$pkg/usr/bin/mmvlog" 2>/dev/null |
          sed -n 's/^shlibs:Depends=//p')
[[ -n $depends ]] || { echo "build-deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
size=$(du -sk --exclude=DEBIAN "$pkg" | cut -f1)
cat > "$pkg/DEBIAN/control" <<EOF
Package: mmvlog
Version: $version
Architecture: $arch
Maintainer: mmvlog developers <mmvlog@users.noreply.github.com>
Installed-Size: $size
Depends: $depends, libssl3, passwd
Recommends: pcp
Section: admin
Priority: optional
Homepage: https://github.com/mmvlog/mmvlog
Description: record PCP MMV metrics into PCP archives, without pmcd
 mmvlog reads the memory mapped value (MMV) files that applications write
 with libpcp_mmv, Parfait, Speed, Hornet or python pcp.mmv, and records them
 into standard Performance Co-Pilot archives that pmval, pmrep, pmchart,
 pmlogsummary, pmproxy and grafana-pcp read, with no pmcd, MMV PMDA or
 pmlogger running. The mmvlog service records every MMV file on the host
 into daily archives under /var/log/pcp/mmvlog/HOST, as pmlogger_daily keeps
 them; mmvlog also captures one-shot archives and replays archives.
EOF
find "$pkg" -type d -exec chmod 0755 {} +
deb=$out/mmvlog_${version}_${arch}.deb
dpkg-deb --root-owner-group -Zxz --build "$pkg" "$deb" >&2
echo "$deb"
