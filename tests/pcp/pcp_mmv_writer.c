/* Writes MMV files with the real libpcp_mmv (the reference writer), for
 * tests that compare mmvlog's reader with PCP's.  The file content is fully
 * determined by the arguments, so tests can state exactly what was written.
 *
 * usage: pcp_mmv_writer NAME MODE [CLUSTER] [FLAGS]
 *   MODE: v1 (short names), v2 (a name over 63 chars), v3 (v2 + labels)
 *   Writes $PCP_TMP_DIR/mmv/NAME, sets deterministic values, prints "ok".
 *   With env MMV_WRITER_HOLD=1 it then sleeps until killed (for PROCESS).
 */
#include <pcp/pmapi.h>
#include <pcp/mmv_stats.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void check(int rc, const char *what) {
  /* libpcp_mmv 6.0.3 returns -1 from mmv_stats_add_instance even on success
   * (shared/notes/MACHINE.md), so only report, never abort, for instances. */
  if (rc < 0 && strcmp(what, "instance") != 0) {
    fprintf(stderr, "pcp_mmv_writer: %s failed: %d\n", what, rc);
    exit(1);
  }
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: pcp_mmv_writer NAME v1|v2|v3 [CLUSTER] [FLAGS]\n");
    return 2;
  }
  const char *name = argv[1];
  const char *mode = argv[2];
  int cluster = argc > 3 ? atoi(argv[3]) : 0;
  int flags = argc > 4 ? atoi(argv[4]) : 0;
  int v2 = strcmp(mode, "v2") == 0 || strcmp(mode, "v3") == 0;
  int v3 = strcmp(mode, "v3") == 0;

  mmv_registry_t *reg = mmv_stats_registry(name, cluster, flags);
  if (!reg) { perror("mmv_stats_registry"); return 1; }

  pmUnits none = MMV_UNITS(0, 0, 0, 0, 0, 0);
  pmUnits count = MMV_UNITS(0, 0, 1, 0, 0, PM_COUNT_ONE);
  pmUnits kbyte_per_sec = MMV_UNITS(1, -1, 0, PM_SPACE_KBYTE, PM_TIME_SEC, 0);
  pmUnits msec = MMV_UNITS(0, 1, 0, 0, PM_TIME_MSEC, 0);
  pmUnits bytes = MMV_UNITS(1, 0, 0, PM_SPACE_BYTE, 0, 0);

  check(mmv_stats_add_indom(reg, 1, "CPUs", "Per-CPU instances\nof the demo"), "indom");
  check(mmv_stats_add_indom(reg, 7, "Disks", NULL), "indom");
  check(mmv_stats_add_indom(reg, 3, NULL, NULL), "indom");
  mmv_stats_add_instance(reg, 1, 0, "cpu0");
  mmv_stats_add_instance(reg, 1, 1, "cpu1");
  mmv_stats_add_instance(reg, 1, 5, "cpu5");
  mmv_stats_add_instance(reg, 7, 10, "sda");
  mmv_stats_add_instance(reg, 7, 20, v2 ? "a_disk_whose_external_instance_name_is_longer_than_sixty_three_characters_ok" : "sdb");
  mmv_stats_add_instance(reg, 3, 100, "only");

  check(mmv_stats_add_metric(reg, "requests.total", 1, MMV_TYPE_U64, MMV_SEM_COUNTER, count, 0,
                             "Requests served", "Total number of requests\nsince start"), "metric");
  check(mmv_stats_add_metric(reg, "cpu.busy", 2, MMV_TYPE_U32, MMV_SEM_INSTANT, msec, 1,
                             "Busy time", NULL), "metric");
  check(mmv_stats_add_metric(reg, "signed32", 3, MMV_TYPE_I32, MMV_SEM_DISCRETE, none, 0, NULL, NULL), "metric");
  check(mmv_stats_add_metric(reg, "signed64", 4, MMV_TYPE_I64, MMV_SEM_INSTANT, bytes, 7,
                             "Signed 64", "Signed 64-bit per disk"), "metric");
  check(mmv_stats_add_metric(reg, "ratio.float", 5, MMV_TYPE_FLOAT, MMV_SEM_INSTANT, none, 1, NULL, NULL), "metric");
  check(mmv_stats_add_metric(reg, "ratio.double", 6, MMV_TYPE_DOUBLE, MMV_SEM_INSTANT, kbyte_per_sec, 0,
                             "Throughput", NULL), "metric");
  check(mmv_stats_add_metric(reg, "version", 7, MMV_TYPE_STRING, MMV_SEM_DISCRETE, none, 0,
                             "Version string", NULL), "metric");
  check(mmv_stats_add_metric(reg, "per_disk.status", 8, MMV_TYPE_STRING, MMV_SEM_INSTANT, none, 7, NULL, NULL), "metric");
  check(mmv_stats_add_metric(reg, "elapsed", 9, MMV_TYPE_ELAPSED, MMV_SEM_COUNTER, none, 0,
                             "Time in phase", NULL), "metric");
  check(mmv_stats_add_metric(reg, "sem_zero", 10, MMV_TYPE_U32, 0, count, 3, NULL, NULL), "metric");
  check(mmv_stats_add_metric(reg, "unsigned64_gauge", 11, MMV_TYPE_U64, MMV_SEM_INSTANT, bytes, 1, NULL, NULL), "metric");
  if (v2)
    check(mmv_stats_add_metric(reg,
        "a.metric.name.that.is.definitely.longer.than.sixty.three.characters.total", 12,
        MMV_TYPE_U32, MMV_SEM_COUNTER, count, 0, "Long name", NULL), "metric");

  if (v3) {
    check(mmv_stats_add_registry_label(reg, "app", "\"demo\"", MMV_STRING_TYPE, 0), "registry label");
    check(mmv_stats_add_registry_label(reg, "release", "42", MMV_NUMBER_TYPE, 1), "registry label");
    check(mmv_stats_add_indom_label(reg, 1, "device_type", "\"cpu\"", MMV_STRING_TYPE, 0), "indom label");
    check(mmv_stats_add_metric_label(reg, 1, "unit", "\"requests\"", MMV_STRING_TYPE, 0), "metric label");
    check(mmv_stats_add_metric_label(reg, 6, "enabled", "true", MMV_BOOLEAN_TYPE, 0), "metric label");
    check(mmv_stats_add_instance_label(reg, 1, 5, "hot", "true", MMV_BOOLEAN_TYPE, 0), "instance label");
    check(mmv_stats_add_instance_label(reg, 7, 10, "model", "\"ssd\"", MMV_STRING_TYPE, 1), "instance label");
  }

  void *map = mmv_stats_start(reg);
  if (!map) { perror("mmv_stats_start"); return 1; }

  pmAtomValue *v;
  if ((v = mmv_lookup_value_desc(map, "requests.total", NULL))) mmv_set_value(map, v, 1234567890123.0);
  const char *cpus[] = {"cpu0", "cpu1", "cpu5"};
  for (int i = 0; i < 3; i++) {
    if ((v = mmv_lookup_value_desc(map, "cpu.busy", cpus[i]))) mmv_set_value(map, v, 100 * (i + 1));
    if ((v = mmv_lookup_value_desc(map, "ratio.float", cpus[i]))) mmv_set_value(map, v, 0.5 + i);
    if ((v = mmv_lookup_value_desc(map, "unsigned64_gauge", cpus[i]))) v->ull = 0xfffffffffffull + i;
  }
  if ((v = mmv_lookup_value_desc(map, "signed32", NULL))) v->l = -42;
  const char *disks[] = {"sda", v2 ? "a_disk_whose_external_instance_name_is_longer_than_sixty_three_characters_ok" : "sdb"};
  for (int i = 0; i < 2; i++) {
    if ((v = mmv_lookup_value_desc(map, "signed64", disks[i]))) v->ll = -5000000000LL * (i + 1);
    if ((v = mmv_lookup_value_desc(map, "per_disk.status", disks[i]))) mmv_set_string(map, v, i ? "degraded" : "ok", i ? 8 : 2);
  }
  if ((v = mmv_lookup_value_desc(map, "ratio.double", NULL))) v->d = 3.141592653589793;
  if ((v = mmv_lookup_value_desc(map, "version", NULL))) mmv_set_string(map, v, "1.2.3-demo", 10);
  if ((v = mmv_lookup_value_desc(map, "elapsed", NULL))) v->ll = 5000;  /* a finished interval */
  if ((v = mmv_lookup_value_desc(map, "sem_zero", "only"))) v->ul = 7;
  if (v2 && (v = mmv_lookup_value_desc(map,
      "a.metric.name.that.is.definitely.longer.than.sixty.three.characters.total", NULL)))
    v->ul = 99;

  printf("ok\n");
  fflush(stdout);
  if (getenv("MMV_WRITER_HOLD")) for (;;) pause();
  return 0;
}
