"""What the Python benchmarks share: building the binaries they run."""

import os
import shutil
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def build(work, targets):
    """Builds `targets` with -c opt and copies each binary into `work` (so
    that a concurrent bazel build cannot replace them mid-run): {name: path}."""
    print("building %s (-c opt)" % " ".join(targets), file=sys.stderr)
    subprocess.run(["bazel", "build", "-c", "opt", "--jobs=2"] + targets,
                   cwd=REPO, check=True, stdout=sys.stderr)
    out = {}
    for t in targets:
        rel = t[2:].replace(":", "/")
        out[t.rsplit(":", 1)[1]] = shutil.copy(os.path.join(REPO, "bazel-out/k8-opt/bin", rel), work)
    return out
