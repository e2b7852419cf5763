"""What PCP 7.x changed in recording MMV files, side by side with its pmlogger.

Two MMV files written by PCP 7.2's libpcp_mmv (pcp_mmv_changes_writer) are
recorded at the same time by 7.2's `pmlogger -o`, 6.0.3's `pmlogger -o`
and `mmvlog capture`:

  labels   (static) a compound cluster label holding a name that begins
           with '_' and an invalid key, {"svc":{"_hidden":1,"bad-key":2,
           "ok":3}}; an item label named "_private" and one named "bad-key"
           (poked into the file: libpcp_mmv wants a letter first, and
           checks names); an instance given two compound labels under one
           name, {"item_label3":{"a":1}} then {"item_label3":{"b":2}}.
  changes  an empty instance domain (indom 2, "Spares") with a metric on
           it, indom help, and mmv_stats_reset() (new in 7.0) in the middle
           of the recording: the file is rewritten under a new generation
           with instance "c" (labelled) added to indom 1 and "x" replaced by
           "y" in indom 3.

mmvlog's archive must equal 7.2's pmlogger -o's, record by record (times,
hosts and layout aside; pcp_stack.normalize_dumplog), after its intended
differences: the context labels 7.2's -o does not write, the indom help
7.2's pmdammv looks up by the wrong serial (pmlogger7_side_by_side_test's
docstring has both), and the <mark> mmvlog writes where the generation
changed (counters start again: shared/notes/PCP-BEHAVIOUR.md section 4;
neither pmlogger writes one).

Differences between 6.0.3 and 7.2, each stated here from what both
recorded, and what mmvlog does:
  1. Label names may begin with '_' (7.2 labels.c verify_label_name
     l.489-512: [A-Za-z0-9_] anywhere; 6.0.3: a letter first). 6.0.3's
     pmdammv refuses the whole label set ({"_private":"p"} and the whole
     "svc" cluster label are missing from its archive); 7.2 records them.
     mmvlog records them, as 7.2 does; 6.0.3's libpcp reads such archives
     (checked with its pmdumplog and pmlogcheck).
  2. An invalid key is skipped, not the whole set refused (labels.c
     labels_token_callback l.745-761; a set whose every key was invalid is
     still refused, l.856-865): 7.2 records {"svc":{"_hidden":1,"ok":3}}
     and, for item 2, {"ok2":true} without "bad-key" (its own payload had no
     valid key left); mmvlog does the same.
  3. Instance labels are logged again whenever an instance domain changes
     (7.2 callback.c manageLabels l.441-451 with only_instances, unless the
     sets are the same as the last logged, putlabels l.379-385; 6.0.3 logs
     an indom's instance labels once, so "c"'s {"role":"new"} never reaches
     its archive). mmvlog logs the instance labels of an indom again with
     each changed instance set, as 7.2 does.
  4. Two compound labels under one name for one instance: both versions
     record two flattened labels, item_label3.a and item_label3.b, in a
     flat JSON object (labels.c __pmMergeLabelSets l.892-970: merged sets
     are written with their compound names); mmvlog does the same.
  5. Empty instance domain: both versions record the metric with no values
     and no instance domain record (callback.c: an indom is fetched only
     for numval > 0); so does mmvlog.
  6. mmv_stats_reset (7.0): the file rewritten under a new generation;
     7.2's pmlogger logs the new instance sets (full, v3: the PMIDs stay);
     mmvlog records the same sets, plus its <mark>.
"""

import os
import shutil
import subprocess
import time
import unittest

import pcp7
import pcp_stack

MMVLOG = pcp7.runfile("cmd/mmvlog")
INTERVAL_MS = 250
RUNTIME = "3sec"


def poke(path, old, new):
    with open(path, "rb") as f:
        data = bytearray(f.read())
    at = data.find(old)
    if at < 0 or data.find(old, at + 1) >= 0:
        raise AssertionError("%s: %r not found exactly once" % (path, old))
    data[at:at + len(old)] = new
    with open(path, "r+b") as f:
        f.write(data)


def collapse(records):
    """Records as rendered lines, consecutive repeats collapsed, marks out:
    two recorders sampling a few milliseconds apart see the generation
    change at the same record or one later."""
    out = []
    for r in records:
        if r["mark"]:
            continue
        lines = pcp_stack.render({"label": {}, "descs": {}, "labels": {}, "help": {},
                                  "indoms": {}, "records": [r]})
        lines = [l.split(" ", 2)[2] for l in lines]  # "record N " dropped
        if not out or out[-1] != lines:
            out.append(lines)
    return out


def instance_label_times(dump, indom):
    """{timestamp: sorted [instance, ...]} of the instance label sets of
    `indom` in pmlogdump -e output, as logged (not normalised)."""
    out, stamp, section = {}, None, False
    for line in dump.splitlines():
        if line == "Metric Labels in the Log ...":
            section = True
            continue
        if section and line and not line.startswith(" "):
            if line[0].isdigit():
                stamp = line
                continue
            break
        prefix = "    InDom %s[" % indom
        if section and line.startswith(prefix):
            inst = int(line[len(prefix):].split("]")[0])
            out.setdefault(stamp, []).append(inst)
    return {k: sorted(v) for k, v in out.items()}


class Pmlogger72ChangesTest(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        pcp7.require()
        if not os.path.exists("/var/lib/pcp/pmns/root"):
            raise AssertionError("PCP's namespace /var/lib/pcp/pmns/root is missing: "
                                 "run bazel/setup.sh (6.0.3's pmlogger -o needs it)")
        root = os.path.join(os.environ["TEST_TMPDIR"], "changes_72")
        shutil.rmtree(root, ignore_errors=True)
        os.makedirs(os.path.join(root, "mmv"))
        cls.root = root
        writer = pcp7.writer("pcp_mmv_changes_writer")
        env = dict(pcp7.env(), PCP_TMP_DIR=root)
        subprocess.run([writer, "labels"], env=env, check=True, stdout=subprocess.DEVNULL)
        labels = os.path.join(root, "mmv", "labels")
        poke(labels, b'{"zprivate"', b'{"_private"')
        poke(labels, b'{"badxkey"', b'{"bad-key"')
        changes = subprocess.Popen([writer, "changes"], env=env, stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, text=True)
        try:
            assert changes.stdout.readline() == "ok\n"
            cfg = os.path.join(root, "cfg")
            with open(cfg, "w") as f:
                f.write("log mandatory on every %d msec { mmv.labels mmv.changes }\n"
                        % INTERVAL_MS)
            cls.bases = {k: os.path.join(root, k) for k in ("p72", "p603", "mmvlog")}
            procs = {
                "mmvlog": subprocess.Popen(
                    [MMVLOG, "capture", "-c", cfg, "-T", RUNTIME, "--mmv-dir",
                     os.path.join(root, "mmv"), "--no-progress", cls.bases["mmvlog"]],
                    env=dict(os.environ, PCP_TMP_DIR=root), cwd=root,
                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT),
                "p72": pcp7.pmlogger_o(["-c", cfg, "-T", RUNTIME, "-l",
                                        cls.bases["p72"] + ".log", cls.bases["p72"]], root, root),
                "p603": subprocess.Popen(
                    ["pmlogger", "-o", "-c", cfg, "-T", RUNTIME, "-l", cls.bases["p603"] + ".log",
                     cls.bases["p603"]], env=pcp7.pcp6_env({"PCP_TMP_DIR": root}), cwd=root,
                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT),
            }
            # The reset between samples, mid-way (not a timed assertion: the
            # comparison below does not depend on where it falls).
            time.sleep(1.4)
            changes.stdin.write("reset\n")
            changes.stdin.flush()
            assert changes.stdout.readline() == "ok\n"
            cls.outputs = {}
            for k, p in procs.items():
                out, _ = p.communicate(timeout=60)
                cls.outputs[k] = out.decode(errors="replace")
                if p.returncode != 0:
                    raise AssertionError("%s failed: %s" % (k, cls.outputs[k]))
        finally:
            changes.stdin.close()
            changes.wait(timeout=30)
            changes.stdout.close()
        cls.dumps = {k: pcp7.dump(b) for k, b in cls.bases.items()}
        cls.norms = {k: pcp_stack.normalize_dumplog(d) for k, d in cls.dumps.items()}

    def labels(self, which, key):
        return self.norms[which]["labels"].get(key, [])

    def test_all_pass_pmlogcheck_of_both_versions(self):
        for k, base in self.bases.items():
            with self.subTest(archive=k):
                rc, out = pcp7.pmlogcheck(base, verbose=False)
                self.assertEqual((rc, out), (0, ""))
                p = subprocess.run(["pmlogcheck", base], env=pcp7.pcp6_env(),
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                self.assertEqual((p.returncode, p.stdout), (0, ""))

    def test_mmvlog_matches_pmlogger_72(self):
        theirs, ours = self.norms["p72"], self.norms["mmvlog"]
        self.assertEqual(ours["unparsed"], [])
        # Intended: context labels (mmvlog's), indom help (the file's).
        exp = pcp_stack._from_jsonable(pcp_stack._jsonable(theirs))
        self.assertNotIn(("context", ""), exp["labels"])
        exp["labels"][("context", "")] = ours["labels"][("context", "")]
        for ident, kind, text in (("70.81921", "oneline", "Workers"),
                                  ("70.81921", "help", "The workers\nof the app"),
                                  ("70.81922", "oneline", "Spares")):
            self.assertNotIn(("indom", ident, kind), exp["help"])
            exp["help"][("indom", ident, kind)] = text
        a = pcp_stack.render(exp, records=False)
        b = pcp_stack.render(ours, records=False)
        self.assertEqual(a, b)
        # Records: the same sequence, generation by generation.
        self.assertEqual(collapse(theirs["records"]), collapse(ours["records"]))
        self.assertEqual(len(collapse(ours["records"])), 2)
        # mmvlog's one <mark>: right where the generation changed.
        marks = [n for n, r in enumerate(ours["records"]) if r["mark"]]
        self.assertEqual(len(marks), 1)
        before, after = ours["records"][marks[0] - 1], ours["records"][marks[0] + 1]
        self.assertEqual(before["sets"]["70.40.3"]["values"], [(None, None, "1")])
        self.assertEqual(after["sets"]["70.40.3"]["values"], [(None, None, "2")])

    def test_labels_names_and_invalid_keys(self):
        """1 and 2: '_' names kept, invalid keys skipped (7.2); 6.0.3 refused
        the sets."""
        for k in ("p72", "mmvlog"):
            with self.subTest(archive=k):
                self.assertEqual(self.labels(k, ("cluster", "70.41")),
                                 [{"labels": {"svc": {"_hidden": 1, "ok": 3}}, "optional": []}])
                self.assertEqual(self.labels(k, ("item", "70.41.1")),
                                 [{"labels": {"_private": "p"}, "optional": []}])
                self.assertEqual(self.labels(k, ("item", "70.41.2")),
                                 [{"labels": {"ok2": True}, "optional": []}])
        self.assertEqual(self.labels("p603", ("cluster", "70.41")), [])
        self.assertEqual(self.labels("p603", ("item", "70.41.1")), [])
        self.assertEqual(self.labels("p603", ("item", "70.41.2")),
                         [{"labels": {"ok2": True}, "optional": []}])
        # 6.0.3's libpcp reads 7.2's names: its pmdumplog shows them.
        out = subprocess.run(["pmdumplog", "-e", self.bases["mmvlog"]], env=pcp7.pcp6_env(),
                             check=True, capture_output=True, text=True).stdout
        self.assertIn('PMID 70.41.1 labels (16 bytes): {"_private":"p"}', out)

    def test_compound_labels_given_twice_are_flattened(self):
        """4: as both versions record them, in the JSON and in the entries."""
        want = [{"labels": {"item_label3.a": 1, "item_label3.b": 2}, "optional": []}]
        for k in ("p72", "p603", "mmvlog"):
            with self.subTest(archive=k):
                self.assertEqual(self.labels(k, ("instances", "70.83969[1]")), want)
                self.assertIn('    InDom 70.83969[1] labels (37 bytes): '
                              '{"item_label3.a":1,"item_label3.b":2}\n'
                              '        [0] name(2,13) : value(17,1) [instances,compound]\n'
                              '        [1] name(20,13) : value(35,1) [instances,compound]\n',
                              self.dumps[k])

    def test_instance_labels_logged_again_when_the_indom_changes(self):
        """3: at the new instance set, the indom's instance labels again
        (7.2 and mmvlog: every instance with labels; 7.2 also the empty sets
        of the others, which hold no label and are normalised away); 6.0.3:
        never again."""
        for k, want in (("p72", [[0, 1, 5], [0, 1, 2, 6]]), ("mmvlog", [[0], [0, 2]]),
                        ("p603", [[0, 1, 5]])):
            with self.subTest(archive=k):
                times = instance_label_times(self.dumps[k], "70.81921")
                times.update({t: sorted(times.get(t, []) + v) for t, v in
                              instance_label_times(self.dumps[k], "70.81923").items()})
                self.assertEqual([v for _, v in sorted(times.items())], want)
        self.assertEqual(self.labels("p603", ("instances", "70.81921[2]")), [])
        for k in ("p72", "mmvlog"):
            self.assertEqual(self.labels(k, ("instances", "70.81921[2]")),
                             [{"labels": {"role": "new"}, "optional": []}])

    def test_empty_instance_domain(self):
        """5: the metric, no values, no instance domain record."""
        for k in self.bases:
            with self.subTest(archive=k):
                norm = self.norms[k]
                self.assertEqual(norm["descs"]["70.40.2"]["indom"], "70.81922")
                self.assertNotIn("70.81922", norm["indoms"])
                for r in norm["records"]:
                    if not r["mark"]:
                        self.assertEqual(r["sets"]["70.40.2"]["values"], [])

    def test_reset_gives_the_new_instance_sets(self):
        """6: both generations' instance sets, in order."""
        for k in ("p72", "p603", "mmvlog"):
            with self.subTest(archive=k):
                indoms = self.norms[k]["indoms"]
                self.assertEqual(indoms["70.81921"], [[(0, "a"), (1, "b")],
                                                      [(0, "a"), (1, "b"), (2, "c")]])
                self.assertEqual(indoms["70.81923"], [[(5, "x")], [(6, "y")]])


if __name__ == "__main__":
    unittest.main()
