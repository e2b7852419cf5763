#!/usr/bin/env bash
# Builds a private Performance Co-Pilot 7.2.0 under PREFIX, beside Debian 12's PCP 6.0.3,
# for the oracle tests that run against both (tests/pcp/pcp7.py finds it there).
# Called by `bash bazel/setup.sh --pcp7 TARBALL`; PCP's source is never committed here.
#
#   usage: pcp7_build.sh TARBALL [PREFIX]
#          TARBALL  PCP's 7.2.0 source tarball (pcp-7.2.0.tar.gz from PCP's releases, or the
#                   trimmed ../shared/pcp7/pcp-7.2.0-min.tar.xz): any compression tar reads
#          PREFIX   default: $MMVLOG_PCP7, else /opt/pcp7
#   then:  . PREFIX/env.sh && pmlogdump --version      # -> pmlogdump version 7.2.0
#
# Builds only the core libraries (libpcp, libpcp_pmda, libpcp_mmv, libpcp_archive,
# libpcp_import, libpcp_gui, libvalkey, libpcp_web), the tools pmproxy, pmlogger,
# pmlogdump (pmdumplog), pmlogcheck, pmlogpush, pmcpp, pminfo, pmval, pmseries, and the
# MMV PMDA (pmda_mmv.so DSO for `pmlogger -o`, plus mmvdump). Everything, including its
# own pcp.conf, run, tmp, log and var directories, lives under PREFIX; nothing of the
# system's PCP is touched. Needs root for apt-get (only when a build dependency is
# missing) and for writing PREFIX. Idempotent: exits at once when PREFIX/.built-7.2.0-tls
# exists (an older build without TLS is rebuilt). Any failure ends it with a non-zero status and the tail of the build log.
# (From the project session's ../shared/pcp7/build.sh, which was measured at 2m10s on
# 2 cores from a clean PREFIX.)
set -Eeuo pipefail

VERSION=7.2.0
TARBALL=${1:-}
PREFIX=${2:-${MMVLOG_PCP7:-/opt/pcp7}}
STAMP=$PREFIX/.built-$VERSION-tls   # -tls: pmproxy serves HTTPS (secure sockets: OpenSSL + SASL)
MARKER=$PREFIX/.pcp7-prefix       # says "this directory is ours to clean"
JOBS=${JOBS:-$(nproc)}
LOG=/dev/null                     # becomes the build log once the work dir exists
T0=$SECONDS

say() { printf 'pcp7: %s\n' "$*"; }
die() {
    printf 'pcp7: ERROR: %s\n' "$*" >&2
    if [ -f "$LOG" ]; then
        printf 'pcp7: last lines of %s:\n' "$LOG" >&2
        tail -n 40 "$LOG" >&2
    fi
    exit 1
}
# Any failing command ends the script here, loudly (set -E carries it into functions).
trap 'die "command failed (line $LINENO): $BASH_COMMAND"' ERR

# --- 0. Already built? ------------------------------------------------------------
if [ -e "$STAMP" ]; then
    say "PCP $VERSION already built in $PREFIX ($STAMP exists); nothing to do"
    exit 0
fi

[ -n "$TARBALL" ] || die "usage: pcp7_build.sh TARBALL [PREFIX] (PCP $VERSION's source tarball)"
case "$PREFIX" in /*) ;; *) die "PREFIX must be an absolute path: $PREFIX" ;; esac
case "$TARBALL" in /*) ;; *) TARBALL=$PWD/$TARBALL ;; esac
[ -f "$TARBALL" ] || die "no tarball at $TARBALL"
# A half-built PREFIX from an earlier failed run is ours to wipe; anything else is not.
if [ -d "$PREFIX" ] && [ -n "$(ls -A "$PREFIX")" ] && [ ! -e "$MARKER" ]; then
    die "$PREFIX exists, is not empty and was not made by this script; choose another PREFIX"
fi

# --- 1. Build dependencies (Debian packages), installed only when missing ----------
# bison/flex: pmlogger's and libpcp's grammars; libuv1-dev: without it libpcp_web drops
# the HTTP server, the push receiver and the key-server loading (pmproxy would be
# useless); libssl-dev, zlib1g-dev, liblzma-dev: libpcp_web TLS, pmproxy gzip, .xz
# archive reading (what Debian's own PCP build uses too); libsasl2-dev: with OpenSSL it
# turns on PCP's secure sockets, without which pmproxy serves no HTTPS.
DEPS="gcc make pkg-config gawk bison flex libuv1-dev libssl-dev libsasl2-dev zlib1g-dev liblzma-dev xz-utils"
missing=()
for p in $DEPS; do
    dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    say "[1/7] installing build dependencies: ${missing[*]}"
    [ "$(id -u)" = 0 ] || die "need root to apt-get install ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    # Try without an update first (fast, offline-friendly); refresh the lists if that fails.
    if ! apt-get install -y -q --no-install-recommends "${missing[@]}" >/tmp/pcp7-apt.log 2>&1; then
        apt-get update -q >>/tmp/pcp7-apt.log 2>&1 || true
        apt-get install -y -q --no-install-recommends "${missing[@]}" >>/tmp/pcp7-apt.log 2>&1 \
            || { LOG=/tmp/pcp7-apt.log; die "apt-get install failed"; }
    fi
else
    say "[1/7] build dependencies present"
fi

# --- 2. Unpack into a private work directory ----------------------------------------
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pcp7-build.XXXXXX")
LOG=$WORK/build.log
say "[2/7] unpacking $(basename "$TARBALL") into $WORK (log: $LOG)"
tar -xf "$TARBALL" -C "$WORK"
SRC=$WORK/pcp-$VERSION
[ -x "$SRC/configure" ] || die "tarball does not hold pcp-$VERSION/configure"
cd "$SRC"

# --- 3. Configure -----------------------------------------------------------------
# Every PCP directory is put under PREFIX so that this PCP has its own pcp.conf, run,
# tmp, log and var trees and never shares /etc/pcp, /run/pcp or /var/lib/pcp with the
# system's 6.0.3. The rpath makes the 7.2 programs load PREFIX/lib's libraries: several
# sonames (libpcp_web.so.1, libpcp_pmda.so.3, libpcp_mmv.so.1, ...) are the same as
# Debian's 6.0.3 ones. --disable-new-dtags writes DT_RPATH (not RUNPATH), which also
# covers indirect dependencies and DSOs dlopen()ed by these programs (pmda_mmv.so) and
# cannot be overridden by a stray LD_LIBRARY_PATH. All optional features that pull in
# more dependencies or code (Qt, Perl, Python, systemd, SELinux, PMDAs, probes) are
# turned off; secure sockets are on, so pmproxy serves HTTPS on its one port.
# pmproxy and pmlogger run as daemons by root switch to PCP's usual "pcp" account
# (Debian's pcp package creates it); without that account, to the builder's.
user_opts=()
if ! id -u pcp >/dev/null 2>&1 || ! getent group pcp >/dev/null 2>&1; then
    user_opts=(--with-user="$(id -un)" --with-group="$(id -gn)")
fi
if [ "$(id -u)" != 0 ]; then
    # install-sh chowns to root:root by default; a non-root builder keeps its own files.
    export PCP_USER_INSTALL=$(id -un) PCP_GROUP_INSTALL=$(id -gn)
fi
say "[3/7] configure --prefix=$PREFIX"
LDFLAGS="-Wl,-rpath,$PREFIX/lib -Wl,--disable-new-dtags" \
./configure --prefix="$PREFIX" --exec-prefix="$PREFIX" --libdir="$PREFIX/lib" \
    --libexecdir="$PREFIX/libexec" --sysconfdir="$PREFIX/etc" \
    --localstatedir="$PREFIX/var" --datarootdir="$PREFIX/share" \
    --with-rundir="$PREFIX/var/run/pcp" --with-logdir="$PREFIX/var/log/pcp" \
    --with-tmpdir="$PREFIX/var/tmp" --with-sysconfigdir="$PREFIX/etc/sysconfig" \
    --with-rcdir="$PREFIX/etc/init.d" --with-importrundir="$PREFIX/var/run/pmimport" \
    --with-importlogdir="$PREFIX/var/log" --with-docdir="$PREFIX/share/doc/pcp" \
    --with-demosdir="$PREFIX/share/pcp/demos" --with-servicesdir="$PREFIX/libexec/pcp/services" \
    "${user_opts[@]}" \
    --without-systemd --without-selinux --without-qt --without-qt3d --without-perl \
    --without-python3 --without-dstat-symlink --without-perfevent --without-pmdabpf \
    --without-pmdabpftrace --without-pmdajson --without-pmdamongodb --without-pmdamysql \
    --without-pmdanutcracker --without-pmdasnmp --without-pmdagfs2 --without-pmdastatsd \
    --without-infiniband --without-static-probes --with-secure-sockets=yes \
    >"$LOG" 2>&1
grep -q '^HAVE_LIBUV *= *true' src/include/builddefs \
    || die "configure did not find libuv: pmproxy would have no HTTP server"

# --- 4. Build only the needed directories ------------------------------------------
# PCP's own src/GNUmakefile builds ~150 directories one after another. This makefile
# names the ~20 we need with their link-time dependencies (each library's LLDLIBS), so
# that `make -j` can build independent directories side by side (libpcp itself is
# .NOTPARALLEL inside). pmns: only the stdpmid table (the MMV PMDA's domain.h and the
# extra-units code need it); pmcpp: only the shared binary, not pmcpp.static, which
# needs libpcp_static; pmlogger: only the binary, not the pmlogger_* service scripts.
cat >"$WORK/subset.mk" <<'EOF'
# $(MAKE) is written out in every recipe so that each sub-make shares the -j job slots.
MAKEFLAGS += --no-print-directory
LIBS  = headers pmns libpcp libpcp_pmda libpcp_mmv libpcp_archive libpcp_import \
        libpcp_gui libvalkey libpcp_web
TOOLS = pmcpp pminfo pmval pmlogdump pmlogcheck pmlogpush pmlogger pmproxy pmseries pmdammv
all: $(LIBS) $(TOOLS)
headers:                                   ; $(MAKE) -C src/include
pmns:           headers                    ; $(MAKE) -C src/pmns stdpmid
libpcp:         headers                    ; $(MAKE) -C src/libpcp
libvalkey:      headers                    ; $(MAKE) -C src/libvalkey
libpcp_pmda libpcp_mmv libpcp_archive libpcp_gui: libpcp ; $(MAKE) -C src/$@
libpcp_import:  libpcp_archive pmns        ; $(MAKE) -C src/libpcp_import
libpcp_web:     libpcp_pmda libpcp_mmv libvalkey ; $(MAKE) -C src/libpcp_web
pmcpp:          libpcp                     ; $(MAKE) -C src/pmcpp pmcpp
pminfo pmlogdump pmlogcheck: libpcp        ; $(MAKE) -C src/$@
pmval:          libpcp_gui                 ; $(MAKE) -C src/pmval
pmlogpush pmseries: libpcp_web             ; $(MAKE) -C src/$@
pmlogger:       libpcp_archive libpcp_web  ; $(MAKE) -C src/pmlogger/src
pmproxy:        libpcp_web                 ; $(MAKE) -C src/pmproxy
pmdammv:        libpcp_pmda libpcp_mmv pmns ; $(MAKE) -C src/pmdas/mmv
.PHONY: all $(LIBS) $(TOOLS)
EOF
say "[4/7] make -j$JOBS (libraries, pmproxy, pmlogger, pmlogdump, pmlogcheck, pmlogpush, pmcpp, pminfo, pmval, pmseries, MMV PMDA)"
nice -n 10 make -j"$JOBS" -f "$WORK/subset.mk" >>"$LOG" 2>&1

# --- 5. Install under PREFIX ---------------------------------------------------------
# install-sh honours DIST_ROOT: everything goes to a staging tree first, and only what
# lands under PREFIX is copied into place. Whatever a makefile would put elsewhere (bash
# completions in /usr/share, say) is dropped, so the system is never written to.
say "[5/7] installing into $PREFIX"
STAGE=$WORK/stage
mkdir -p "$STAGE"
for d in include libpcp libpcp_pmda libpcp_mmv libpcp_archive libpcp_import libpcp_gui \
         libpcp_web pmcpp pminfo pmval pmlogdump pmlogcheck pmlogpush pmlogger/src \
         pmproxy pmseries pmdas/mmv; do
    DIST_ROOT=$STAGE make --no-print-directory -C "src/$d" install >>"$LOG" 2>&1 \
        || die "make -C src/$d install failed"
done
outside=$(cd "$STAGE" && find . \( -type f -o -type l \) ! -path ".$PREFIX/*" | wc -l)
[ "$outside" -eq 0 ] || say "      (left out $outside file(s) that would go outside $PREFIX)"
if [ -e "$MARKER" ]; then rm -rf "$PREFIX"; fi     # a failed earlier attempt of ours
mkdir -p "$PREFIX"
touch "$MARKER"
cp -a "$STAGE$PREFIX/." "$PREFIX/"

# --- 6. Configuration and runtime directories of this private PCP -------------------
say "[6/7] private configuration: pcp.conf, PMNS, pmcd.conf (MMV DSO), runtime dirs, env.sh"
conf() { sed -n "s/^$1=//p" "$PREFIX/etc/pcp.conf"; }
[ "$(conf PCP_VAR_DIR)" = "$PREFIX/var/lib/pcp" ] || die "unexpected PCP_VAR_DIR in pcp.conf"
PCP_USER=$(conf PCP_USER); PCP_GROUP=$(conf PCP_GROUP)
VAR=$(conf PCP_VAR_DIR); TMPD=$(conf PCP_TMP_DIR); LOGD=$(conf PCP_LOG_DIR)
# stdpmid: the PMDA domain table libpcp's extra-units code reads at run time.
install -d "$VAR/pmns"
install -m 644 src/pmns/stdpmid "$VAR/pmns/stdpmid"
# A PMNS for local contexts (pmlogger -o, pminfo -L): the MMV PMDA's two dynamic
# subtrees. Programs talking to a pmcd use that pmcd's names instead.
printf 'root {\n\tmmv\t70:*:*\n\tpmproxy\t4:*:*\n}\n' >"$VAR/pmns/root"
# pmcd.conf is read by libpcp's local context to find DSO PMDAs; no pmcd is installed.
install -d "$(dirname "$(conf PCP_PMCDCONF_PATH)")"
printf 'mmv\t70\tdso\tmmv_init\t%s/mmv/pmda_mmv.so\n' "$(conf PCP_PMDAS_DIR)" \
    >"$(conf PCP_PMCDCONF_PATH)"
# Runtime directories the daemons write to (PCP's service scripts would make these).
install -d -m 775 -o "$PCP_USER" -g "$PCP_GROUP" "$(conf PCP_RUN_DIR)" "$TMPD" \
    "$TMPD/pmlogger" "$TMPD/mmv" "$TMPD/pmproxy" "$LOGD" "$LOGD/pmlogger" \
    "$LOGD/pmproxy" "$(conf PCP_ARCHIVE_DIR)" "$(conf PCP_REMOTE_ARCHIVE_DIR)"
# PCP_TMPFILE_DIR is PCP's /var/tmp: pmlogger writes its pmcpp-expanded config there.
install -d -m 1777 "$(conf PCP_TMPFILE_DIR)"
# env.sh: PCP_CONF points libpcp (and every 7.2 tool) at this pcp.conf; PCP_* values
# inherited from another PCP's pcp.env would win over pcp.conf, so they are unset.
cat >"$PREFIX/env.sh" <<EOF
# Source me: . $PREFIX/env.sh   -- use PCP $VERSION from $PREFIX in this shell.
# The system's PCP tools are still at /usr/bin and /usr/lib/pcp/bin; run them with
# "env -u PCP_CONF ..." (or in another shell), as libpcp 6.0.3 honours PCP_CONF too.
for _pcp7_v in PCP_DIR PCP_ENV_DONE \$(sed -n 's/^\\(PCP_[A-Za-z0-9_]*\\)=.*/\\1/p' $PREFIX/etc/pcp.conf); do
    unset "\$_pcp7_v"
done
unset _pcp7_v
export PCP_CONF=$PREFIX/etc/pcp.conf
export PATH=$PREFIX/bin:$(conf PCP_BINADM_DIR):\$PATH
EOF

# --- 7. Check, stamp, clean up ----------------------------------------------------------
say "[7/7] checking"
got=$(env -i PATH=/usr/bin:/bin bash -c ". '$PREFIX/env.sh' && pmlogdump --version" 2>&1) \
    || die "pmlogdump --version failed: $got"
case "$got" in *"$VERSION"*) ;; *) die "pmlogdump reports '$got', not $VERSION" ;; esac
for f in bin/pmlogger bin/pmlogdump bin/pmlogcheck bin/pmlogpush bin/pminfo bin/pmval \
         bin/pmseries libexec/pcp/bin/pmproxy libexec/pcp/bin/pmcpp \
         var/lib/pcp/pmdas/mmv/pmda_mmv.so lib/libpcp.so.4 lib/libpcp_mmv.so.1; do
    [ -e "$PREFIX/$f" ] || die "missing after install: $PREFIX/$f"
done
cp "$LOG" "$PREFIX/.build.log"      # kept for reference; the work dir goes
echo "pcp $VERSION built $(date -u +%FT%TZ) from $(basename "$TARBALL")" >"$STAMP"
cd /
rm -rf "$WORK"
say "done in $((SECONDS - T0))s: . $PREFIX/env.sh  ->  $got"
