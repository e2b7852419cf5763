"""Private key servers and a private pmproxy for tests, on free ports, and
what those tests compare: series and sources, an archive's values.

Nothing of the machine's own redis or pmproxy is touched: every process
started here has its own directory, ports, configuration and log, and is
stopped by stop().
"""

import os
import re
import shutil
import socket
import subprocess
import tempfile
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(what, predicate, timeout=15.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError("timed out waiting for " + what)


def redis_cli(port, *args):
    return subprocess.run(["redis-cli", "-p", str(port)] + list(args), stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True, timeout=30).stdout


def start_redis(root, cluster=False):
    """A redis-server in `root` (cluster-enabled if asked): (port, process)."""
    os.makedirs(root, exist_ok=True)
    port = free_port()
    args = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
            "--appendonly", "no", "--dir", root]
    if cluster:
        # The bus port defaults to port + 10000, which may not exist or be
        # free: a free one of its own.
        args += ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                 "--cluster-port", str(free_port())]
    log = os.path.join(root, "redis.log")
    with open(log, "w") as out:
        p = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_for("redis-server on %d" % port,
                 lambda: p.poll() is None and redis_cli(port, "ping").strip() == "PONG")
    except AssertionError:
        p.kill()
        with open(log) as f:
            raise AssertionError("redis-server on port %d did not answer (exit %s): %s" % (
                port, p.poll(), f.read()[-2000:]))
    return port, p


def start_cluster(root, nodes=3):
    """A Redis Cluster of `nodes` masters (redis-cli --cluster create), every
    slot covered: (port of the first node, processes)."""
    started = [start_redis(os.path.join(root, "node%d" % i), cluster=True) for i in range(nodes)]
    ports = [port for port, _ in started]
    p = subprocess.run(["redis-cli", "--cluster", "create"] +
                       ["127.0.0.1:%d" % port for port in ports] +
                       ["--cluster-replicas", "0", "--cluster-yes"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60)
    if p.returncode != 0:
        stop([proc for _, proc in started])
        raise AssertionError("redis-cli --cluster create: " + p.stdout)
    for port in ports:
        wait_for("cluster_state:ok on %d" % port,
                 lambda port=port: "cluster_state:ok" in redis_cli(port, "cluster", "info"))
    return ports[0], [proc for _, proc in started]


def start_pmproxy(root, redis_port, discover_path):
    """PCP's pmproxy (-f: in the foreground) discovering `discover_path` into
    the key server at `redis_port`, with its own run directory, sockets,
    configuration and log in `root`. Returns the process once pmproxy has
    set up its Redis schema."""
    run_dir = os.path.join(root, "run")
    os.makedirs(run_dir, exist_ok=True)
    config = os.path.join(root, "pmproxy.conf")
    with open(config, "w") as f:
        f.write("[pmproxy]\npcp.enabled = false\nhttp.enabled = true\n"
                "redis.enabled = true\nsecure.enabled = false\n"
                "[redis]\nenabled = true\nservers = localhost:%d\n"
                "[discover]\nenabled = true\npath = %s\n"
                "[pmseries]\nenabled = true\n" % (redis_port, discover_path))
    log = os.path.join(root, "pmproxy.log")
    env = dict(os.environ, PCP_RUN_DIR=run_dir, PCP_TMP_DIR=root)
    p = subprocess.Popen(
        ["/usr/lib/pcp/bin/pmproxy", "-f", "-A", "-p", str(free_port()),
         "-s", os.path.join(run_dir, "pmproxy.sock"), "-c", config, "-l", log],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def ready():
        if not os.path.exists(log):
            return False
        with open(log) as f:
            return "schema version setup" in f.read()
    wait_for("pmproxy's Redis set-up", ready)
    return p


class Pmproxy7:
    """PCP 7.2's pmproxy (pcp7.py) taking pushed archives ([pmlogger]
    enabled: PMWEBAPI(3) "ARCHIVE WEBHOOK") into the key server at
    `redis_port` and under `remote_dir` (its PCP_REMOTE_ARCHIVE_DIR), with
    its own run directory, socket, configuration and log in `root`.
    start() again after stop() or kill() is a restart on the same port,
    socket and directories. `authenticate`: [pmlogger] authenticate = true
    (7.2 then wants HTTP Basic credentials, any, on every /logger request).
    `tls`: serve HTTPS too (PCP built with secure sockets), see below.
    """

    def __init__(self, root, redis_port, authenticate=False, port=None, tls=None):
        import pcp7
        self.env = pcp7.require()
        self.root = root
        self.remote_dir = os.path.join(root, "remote")
        self.run_dir = os.path.join(root, "run")
        os.makedirs(self.remote_dir, exist_ok=True)
        os.makedirs(self.run_dir, exist_ok=True)
        os.makedirs(os.path.join(root, "discover"), exist_ok=True)
        self.port = port or free_port()
        # A Unix socket path must fit 108 bytes: not under $TEST_TMPDIR.
        self.socket_dir = tempfile.mkdtemp(prefix="pmproxy7-")
        self.socket = os.path.join(self.socket_dir, "pmproxy.sock")
        self.config = os.path.join(root, "pmproxy.conf")
        self.log = os.path.join(root, "pmproxy.log")
        self.process = None
        self.starts = 0
        self.redis_port = redis_port
        self.authenticate = authenticate
        # TLS: None, or {"cert": PEM, "key": PEM, "ca": PEM or None,
        # "verify_clients": bool}, written to tls.conf (PCP_TLSCONF_PATH)
        # at each start, so a restart may change the certificate.
        self.tls = tls
        self.tls_conf = os.path.join(root, "tls.conf")

    def _write_config(self):
        # [discover] on: push ingest into the key server goes through its
        # streaming (loggroup.c), so it must be enabled; its path is empty.
        with open(self.config, "w") as f:
            f.write("[pmproxy]\npcp.enabled = false\nhttp.enabled = true\n"
                    "resp.enabled = false\nsecure.enabled = %s\n"
                    "[keys]\nenabled = true\nservers = localhost:%d\n"
                    "[discover]\nenabled = true\npath = %s\n"
                    "[pmsearch]\nenabled = false\n[pmseries]\nenabled = true\n"
                    "[pmlogger]\nenabled = true\n%s"
                    % ("true" if self.tls else "false", self.redis_port,
                       os.path.join(self.root, "discover"),
                       "authenticate = true\n" if self.authenticate else ""))
        if self.tls:
            with open(self.tls_conf, "w") as f:
                f.write("tls-cert-file = %s\ntls-key-file = %s\n"
                        % (self.tls["cert"], self.tls["key"]))
                if self.tls.get("ca"):
                    f.write("tls-ca-cert-file = %s\n" % self.tls["ca"])
                if self.tls.get("verify_clients"):
                    f.write("tls-verify-clients = true\n")
        elif os.path.exists(self.tls_conf):
            os.unlink(self.tls_conf)

    def start(self):
        """Starts pmproxy; returns once it has set up its key server schema."""
        self.starts += 1
        self._write_config()
        log = "%s.%d" % (self.log, self.starts)
        env = dict(self.env, PCP_RUN_DIR=self.run_dir, PCP_TMP_DIR=self.root,
                   PCP_REMOTE_ARCHIVE_DIR=self.remote_dir, PCP_TLSCONF_PATH=self.tls_conf)
        if os.path.exists(self.socket):
            os.unlink(self.socket)
        self.process = subprocess.Popen(
            ["pmproxy", "-f", "-A", "-i", "127.0.0.1", "-p", str(self.port), "-s", self.socket,
             "-c", self.config, "-l", log],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        def ready():
            if self.process.poll() is not None:
                with open(log) as f:
                    raise AssertionError("pmproxy 7.2 exited %d: %s"
                                         % (self.process.returncode, f.read()[-2000:]))
            if not os.path.exists(log):
                return False
            with open(log) as f:
                return "schema version setup" in f.read()
        wait_for("pmproxy 7.2's key server set-up", ready)
        return self

    def stop(self, remove=False):
        """Stops pmproxy (`remove`: for good, its socket directory too)."""
        if self.process is not None:
            stop([self.process])
            self.process = None
        if remove:
            shutil.rmtree(self.socket_dir, ignore_errors=True)

    def kill(self):
        """SIGKILL: pmproxy gone at once, as in a crash."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None

    def archives(self):
        """The archive base names pmproxy wrote, sorted (<host>/<start>)."""
        out = []
        for host in sorted(os.listdir(self.remote_dir)):
            d = os.path.join(self.remote_dir, host)
            out += sorted(os.path.join(d, f[:-5]) for f in os.listdir(d) if f.endswith(".meta"))
        return out


def stop(processes):
    for p in processes:
        p.terminate()
    for p in processes:
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()


def assert_shared_series(test, pmseries, names, bases):
    """pmseries(*args) -> its output. Every metric of `names` has one series
    (the archives `bases` name it alike), every instance one, and all of
    them one source, whose archives include `bases`."""
    sources = set()
    for name in names:
        series = pmseries(name).split()
        test.assertEqual(len(series), 1, "%s: one series for all archives, got %s"
                         % (name, series))
        detail = pmseries("-a", series[0])
        sources |= set(re.findall(r"Source: (\w+)", detail))
        # An instance named differently by two archives would be listed twice.
        insts = re.findall(r'inst \[(\d+) or "[^"]*"\] series (\w+)', detail)
        test.assertEqual(len(insts), len(set(i for i, _ in insts)), "%s\n%s" % (name, detail))
    test.assertEqual(len(sources), 1, sources)
    paths = pmseries("-S", sources.pop())
    for base in bases:
        test.assertIn(base, paths)


def archive_values(base, metric):
    """{time in microseconds: value} of a singular U64 `metric` in archive
    `base`, read by libpcp."""
    from pcp import pmapi
    import cpmapi as c_api
    ctx = pmapi.pmContext(c_api.PM_CONTEXT_ARCHIVE, base)
    pmid = ctx.pmLookupName(metric)[0]
    out = {}
    while True:
        try:
            r = ctx.pmFetchArchive()
        except pmapi.pmErr:
            break
        t = r.contents.timestamp
        for i in range(r.contents.numpmid):
            vs = r.contents.get_vset(i).contents
            if vs.pmid == pmid and vs.numval == 1:
                v = ctx.pmExtractValue(vs.valfmt, r.contents.get_vlist(i, 0),
                                       c_api.PM_TYPE_U64, c_api.PM_TYPE_U64)
                out[t.tv_sec * 1000000 + t.tv_usec] = v.ull
        ctx.pmFreeResult(r)
    return out


def stored_values(pmseries_output):
    """{time in microseconds: value} from `pmseries -t` of one series.
    [MS.US]: Redis's stream id, milliseconds and the microseconds in that
    millisecond, unpadded (58.80 is 58 ms 80 us)."""
    out = {}
    for m in re.finditer(r"^\s+\[(\d+)\.(\d+)\] (\d+)", pmseries_output, re.M):
        out[int(m.group(1)) * 1000 + int(m.group(2))] = int(m.group(3))
    return out
