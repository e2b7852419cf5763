"""PCP 7.2 beside Debian's PCP 6.0.3, for the oracle tests that run both.

PCP 7.2 is built into a prefix of its own by `bazel/setup.sh --pcp7 TARBALL`
(default /opt/pcp7, or $MMVLOG_PCP7). Its tools must run with its own
configuration (PCP_CONF) and none of 6.0.3's PCP_* settings, which is what
the prefix's env.sh does; `env()` gives that environment as a dict, for
subprocess.

    require()     the environment, or: in CI ($MMVLOG_REQUIRE_PCP7=1, set by
                  .ci/run) a failure naming what is missing; elsewhere a
                  unittest.SkipTest with the same message.
    run(args)     a 7.2 tool, e.g. run(["pmlogcheck", "-v", base]).
    tool(name)    the full path of a 7.2 program
    compile_c(src, name), writer(name)
                  a C program (tests/pcp/NAME.c for writer) built against
                  7.2's headers and libraries, at test time
    pmlogger_o(args, cwd, tmp_dir)
                  7.2's `pmlogger -o` on the MMV files in tmp_dir/mmv
    dump(base), pmlogcheck(base)
                  7.2's pmlogdump and pmlogcheck
    pcp6_env()    the environment for Debian's 6.0.3 tools (no PCP_CONF)
"""

import os
import subprocess
import unittest

PREFIX = os.environ.get("MMVLOG_PCP7", "/opt/pcp7")
VERSION = "7.2.0"
_env = None


def missing():
    """Why PCP 7.2 cannot be used here, or "" when it can."""
    stamp = os.path.join(PREFIX, ".built-" + VERSION + "-tls")  # with secure sockets (HTTPS)
    if not os.path.exists(stamp):
        return ("PCP %s not found in %s (no %s): build it with "
                "'bash bazel/setup.sh --pcp7 pcp-%s.tar.xz' (PCP's release tarball; "
                "../shared/pcp7/ holds a trimmed one)" % (VERSION, PREFIX, stamp, VERSION))
    return ""


def env():
    """The environment PREFIX/env.sh makes, from this process's."""
    global _env
    if _env is None:
        script = ". %s/env.sh >/dev/null && env -0" % PREFIX
        out = subprocess.run(["bash", "-c", script], check=True, capture_output=True).stdout
        _env = dict(kv.split("=", 1) for kv in out.decode().split("\0") if "=" in kv)
    return dict(_env)


def require():
    """env(), or fail (in CI) / skip (elsewhere) saying what is missing."""
    why = missing()
    if why:
        if os.environ.get("MMVLOG_REQUIRE_PCP7") == "1":
            raise AssertionError("PCP 7.2 is required here: " + why)
        raise unittest.SkipTest(why)
    return env()


def run(args, **kw):
    """subprocess.run of a PCP 7.2 tool with its environment (text output)."""
    if "stdout" not in kw and "stderr" not in kw:
        kw.setdefault("capture_output", True)
    elif kw.get("stderr") is subprocess.STDOUT:
        kw.setdefault("stdout", subprocess.PIPE)
    kw.setdefault("text", True)
    e = env()
    e.update(kw.pop("env", {}))
    return subprocess.run(args, env=e, **kw)


# ---------------------------------------------------------------------------
# Tools, programs built against PCP 7.2, and its pmlogger -o.


def tool(name):
    """The full path of a PCP 7.2 program (bin/ or libexec/pcp/bin/)."""
    for d in ("bin", os.path.join("libexec", "pcp", "bin")):
        path = os.path.join(PREFIX, d, name)
        if os.path.exists(path):
            return path
    raise AssertionError("PCP %s has no %s in %s" % (VERSION, name, PREFIX))


def pcp6_env(extra=None):
    """This process's environment for Debian's PCP 6.0.3 tools: libpcp 6.0.3
    honours PCP_CONF too, so 7.2's must not leak into it."""
    e = dict(os.environ)
    e.pop("PCP_CONF", None)
    if extra:
        e.update(extra)
    return e


_compiled = {}


def compile_c(src, name, libs=("pcp",)):
    """`src` (a C file) compiled and linked against PCP 7.2's headers and
    libraries (rpath: its lib/, whose sonames Debian's 6.0.3 shares), once
    per test process, into $TEST_TMPDIR/pcp7-bin/NAME. Returns the path.
    Built here rather than by Bazel: PCP 7.2 may be absent where the build
    runs (its tests then skip), and nothing of the project links it."""
    require()
    if name in _compiled:
        return _compiled[name]
    out_dir = os.path.join(os.environ.get("TEST_TMPDIR", "/tmp"), "pcp7-bin")
    os.makedirs(out_dir, exist_ok=True)
    out = os.path.join(out_dir, name)
    lib = os.path.join(PREFIX, "lib")
    cmd = ["gcc", "-std=gnu11", "-O1", "-Wall", "-I" + os.path.join(PREFIX, "include"), src,
           "-o", out, "-L" + lib, "-Wl,-rpath," + lib, "-Wl,--disable-new-dtags"]
    cmd += ["-l" + l for l in libs]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise AssertionError("cannot build %s against PCP %s: %s\n%s" % (
            src, VERSION, " ".join(cmd), p.stderr))
    _compiled[name] = out
    return out


def runfile(path):
    return os.path.join(os.environ["TEST_SRCDIR"], "mmvlog", path)


def writer(name):
    """tests/pcp/NAME.c (an MMV writer on libpcp_mmv) built against PCP 7.2's
    libpcp_mmv: the same program the 6.0.3 tests run, as a 7.2 user's."""
    return compile_c(runfile("tests/pcp/%s.c" % name), name + "-7.2", libs=("pcp_mmv", "pcp"))


def pmlogger_o(args, cwd, tmp_dir, **kw):
    """PCP 7.2's `pmlogger -o ARGS` (a local context: the MMV PMDA as a DSO
    from PREFIX's pmcd.conf, no pmcd) reading the MMV files in
    TMP_DIR/mmv; a Popen with stdout and stderr piped together."""
    e = env()
    e["PCP_TMP_DIR"] = tmp_dir
    e["PCP_DERIVED_CONFIG"] = ""
    return subprocess.Popen([tool("pmlogger"), "-o"] + list(args), env=e, cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **kw)


def dump(base, args=("-a", "-h", "-e", "-Z", "UTC")):
    """`pmlogdump ARGS base` of PCP 7.2; raises with its stderr on failure.
    pmlogdump 7.2 prints what pmdumplog 6.0.3 prints, but descriptors and
    instance domains in PMID and indom order (6.0.3: hash order)."""
    p = run([tool("pmlogdump")] + list(args) + [base], env={"PCP_DERIVED_CONFIG": ""})
    if p.returncode != 0:
        raise AssertionError("pmlogdump %s failed: %s" % (base, p.stderr))
    return p.stdout


def pmlogcheck(base, verbose=True):
    """(exit status, output) of PCP 7.2's `pmlogcheck [-v] base`."""
    p = run([tool("pmlogcheck")] + (["-v"] if verbose else []) + [base],
            env={"TZ": "UTC", "PCP_DERIVED_CONFIG": ""}, stderr=subprocess.STDOUT)
    return p.returncode, p.stdout


def start_pmproxy(root, key_port, discover_path, free_port):
    """PCP 7.2's pmproxy in the foreground (-f: it keeps the caller's
    identity) discovering `discover_path` into the key server (or cluster
    node) at `key_port` on 127.0.0.1, with its own run directory, sockets,
    configuration and log in `root`; its HTTP port from free_port(). 7.2
    names the section [keys] (6.0.3: [redis]); "localhost" may resolve to
    ::1, where a test's key server does not listen. Returns the process once
    pmproxy has set up its schema; stop it by its pid."""
    import time
    run_dir = os.path.join(root, "run")
    os.makedirs(run_dir, exist_ok=True)
    config = os.path.join(root, "pmproxy.conf")
    with open(config, "w") as f:
        f.write("[pmproxy]\npcp.enabled = false\nhttp.enabled = true\nsecure.enabled = false\n"
                "[keys]\nenabled = true\nservers = 127.0.0.1:%d\n"
                "[discover]\nenabled = true\npath = %s\n"
                "[pmsearch]\nenabled = false\n[pmseries]\nenabled = true\n"
                % (key_port, discover_path))
    log = os.path.join(root, "pmproxy.log")
    e = dict(env(), PCP_RUN_DIR=run_dir, PCP_TMP_DIR=root)
    p = subprocess.Popen([tool("pmproxy"), "-f", "-A", "-p", str(free_port()),
                          "-s", os.path.join(run_dir, "pmproxy.sock"), "-c", config, "-l", log],
                         env=e, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if p.poll() is not None:
            break
        if os.path.exists(log) and "schema version setup" in open(log).read():
            return p
        time.sleep(0.1)
    p.kill()
    p.wait()
    raise AssertionError("PCP 7.2's pmproxy did not set up its key server schema: %s"
                         % (open(log).read()[-2000:] if os.path.exists(log) else "(no log)"))
