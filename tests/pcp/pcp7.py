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
"""

import os
import subprocess
import unittest

PREFIX = os.environ.get("MMVLOG_PCP7", "/opt/pcp7")
VERSION = "7.2.0"
_env = None


def missing():
    """Why PCP 7.2 cannot be used here, or "" when it can."""
    stamp = os.path.join(PREFIX, ".built-" + VERSION)
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
    kw.setdefault("capture_output", True)
    kw.setdefault("text", True)
    e = env()
    e.update(kw.pop("env", {}))
    return subprocess.run(args, env=e, **kw)
