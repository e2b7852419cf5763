/* Writes MMV files with PCP 7.2's libpcp_mmv for tests/pcp:pmlogger7_changes_test:
 * what PCP 7.x changed in the MMV PMDA, libpcp's labels and pmlogger. Built
 * against PCP 7.2 only (mmv_stats_reset is new in 7.0; 6.0.3's libpcp_mmv
 * refuses the labels below).
 *
 * usage: pcp_mmv_changes_writer labels|changes
 *
 * labels: $PCP_TMP_DIR/mmv/labels, v3, cluster 41, then exits. Indom 1:
 *   0 "a", 1 "b"; metrics per (item 1, U64 counter, indom 1) and single
 *   (item 2, U64 instant). Labels: registry {"svc":{"_hidden":1,
 *   "bad-key":2,"ok":3}} (a compound label holding a name that begins with
 *   '_' and an invalid key), item 1 {"zprivate":"p"} (the test pokes the
 *   'z' into '_': libpcp_mmv wants a letter first at the top level), item 2
 *   {"badxkey":1} (poked into "bad-key") and {"ok2":true}; instance 1 given
 *   two compound labels under one name, {"item_label3":{"a":1}} then
 *   {"item_label3":{"b":2}}; instance 0 {"role":"lead"}.
 *
 * changes: $PCP_TMP_DIR/mmv/changes, v3, cluster 40; then on each line
 *   "reset" on stdin, mmv_stats_reset() and the next generation, rewritten
 *   under a new generation number. Generation 1: indom 1 "Workers" (one-line
 *   and long help) 0 "a", 1 "b"; indom 2 "Spares" with no instances at all;
 *   indom 3 (no help) 5 "x"; metrics per (item 1, U64 counter, indom 1),
 *   spare (item 2, U32 instant, indom 2), single (item 3, U64 instant),
 *   other (item 4, U32 instant, indom 3); instance 0 of indom 1 labelled
 *   {"role":"lead"}. Generation 2: indom 1 also 2 "c" (labelled
 *   {"role":"new"}), indom 3 6 "y" instead of 5 "x". Values: per = 100 *
 *   generation + instance, single = generation, other = 10 * generation.
 *   Prints "ok" after each generation; exits at the end of its input.
 */
#include <pcp/pmapi.h>
#include <pcp/mmv_stats.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "detect_leaks=0"; }

static void must(int ok, const char *what) {
  if (!ok) {
    fprintf(stderr, "pcp_mmv_changes_writer: %s failed\n", what);
    exit(1);
  }
}

static void set_u64(void *map, const char *metric, const char *inst, unsigned long long v) {
  pmAtomValue *a = mmv_lookup_value_desc(map, metric, inst);
  must(a != NULL, metric);
  a->ull = v;
}

static int labels_file(void) {
  pmUnits none = {0};
  mmv_registry_t *reg = mmv_stats_registry("labels", 41, 0);
  must(reg != NULL, "mmv_stats_registry");
  must(mmv_stats_add_indom(reg, 1, NULL, NULL) == 0, "indom 1");
  must(mmv_stats_add_instance(reg, 1, 0, "a") == 0, "instance a");
  must(mmv_stats_add_instance(reg, 1, 1, "b") == 0, "instance b");
  must(mmv_stats_add_metric(reg, "per", 1, MMV_TYPE_U64, MMV_SEM_COUNTER, none, 1, NULL,
                            NULL) == 0, "metric per");
  must(mmv_stats_add_metric(reg, "single", 2, MMV_TYPE_U64, MMV_SEM_INSTANT, none, 0, NULL,
                            NULL) == 0, "metric single");
  must(mmv_stats_add_registry_label(reg, "svc", "{\"_hidden\":1,\"bad-key\":2,\"ok\":3}",
                                    MMV_MAP_TYPE, 0) == 0, "registry label");
  must(mmv_stats_add_metric_label(reg, 1, "zprivate", "\"p\"", MMV_STRING_TYPE, 0) == 0,
       "metric label zprivate");
  must(mmv_stats_add_metric_label(reg, 2, "badxkey", "1", MMV_NUMBER_TYPE, 0) == 0,
       "metric label badxkey");
  must(mmv_stats_add_metric_label(reg, 2, "ok2", "true", MMV_BOOLEAN_TYPE, 0) == 0,
       "metric label ok2");
  must(mmv_stats_add_instance_label(reg, 1, 1, "item_label3", "{\"a\":1}", MMV_MAP_TYPE, 0) == 0,
       "instance label a");
  must(mmv_stats_add_instance_label(reg, 1, 1, "item_label3", "{\"b\":2}", MMV_MAP_TYPE, 0) == 0,
       "instance label b");
  must(mmv_stats_add_instance_label(reg, 1, 0, "role", "\"lead\"", MMV_STRING_TYPE, 0) == 0,
       "instance label role");
  void *map = mmv_stats_start(reg);
  must(map != NULL, "mmv_stats_start");
  set_u64(map, "per", "a", 1);
  set_u64(map, "per", "b", 2);
  set_u64(map, "single", NULL, 3);
  printf("ok\n");
  return 0;
}

static void generation(mmv_registry_t *reg, int gen) {
  pmUnits none = {0};
  pmUnits count = MMV_UNITS(0, 0, 1, 0, 0, PM_COUNT_ONE);
  must(mmv_stats_add_indom(reg, 1, "Workers", "The workers\nof the app") == 0, "indom 1");
  must(mmv_stats_add_indom(reg, 2, "Spares", NULL) == 0, "indom 2");
  must(mmv_stats_add_indom(reg, 3, NULL, NULL) == 0, "indom 3");
  must(mmv_stats_add_instance(reg, 1, 0, "a") == 0, "instance a");
  must(mmv_stats_add_instance(reg, 1, 1, "b") == 0, "instance b");
  if (gen > 1) must(mmv_stats_add_instance(reg, 1, 2, "c") == 0, "instance c");
  must(mmv_stats_add_instance(reg, 3, gen > 1 ? 6 : 5, gen > 1 ? "y" : "x") == 0, "instance x/y");
  must(mmv_stats_add_metric(reg, "per", 1, MMV_TYPE_U64, MMV_SEM_COUNTER, count, 1, "Per worker",
                            NULL) == 0, "metric per");
  must(mmv_stats_add_metric(reg, "spare", 2, MMV_TYPE_U32, MMV_SEM_INSTANT, none, 2, NULL,
                            NULL) == 0, "metric spare");
  must(mmv_stats_add_metric(reg, "single", 3, MMV_TYPE_U64, MMV_SEM_INSTANT, none, 0, NULL,
                            NULL) == 0, "metric single");
  must(mmv_stats_add_metric(reg, "other", 4, MMV_TYPE_U32, MMV_SEM_INSTANT, none, 3, NULL,
                            NULL) == 0, "metric other");
  must(mmv_stats_add_instance_label(reg, 1, 0, "role", "\"lead\"", MMV_STRING_TYPE, 0) == 0,
       "instance label role");
  if (gen > 1)
    must(mmv_stats_add_instance_label(reg, 1, 2, "role", "\"new\"", MMV_STRING_TYPE, 0) == 0,
         "instance label new");
  void *map = mmv_stats_start(reg);
  must(map != NULL, "mmv_stats_start");
  const char *names[] = {"a", "b", "c"};
  for (int k = 0; k < 2 + (gen > 1); k++) set_u64(map, "per", names[k], 100 * gen + k);
  set_u64(map, "single", NULL, gen);
  pmAtomValue *v = mmv_lookup_value_desc(map, "other", gen > 1 ? "y" : "x");
  must(v != NULL, "value other");
  v->ul = 10 * gen;
}

int main(int argc, char **argv) {
  if (argc != 2 || (strcmp(argv[1], "labels") && strcmp(argv[1], "changes"))) {
    fprintf(stderr, "usage: pcp_mmv_changes_writer labels|changes\n");
    return 2;
  }
  if (strcmp(argv[1], "labels") == 0) return labels_file();
  mmv_registry_t *reg = mmv_stats_registry("changes", 40, 0);
  must(reg != NULL, "mmv_stats_registry");
  generation(reg, 1);
  printf("ok\n");
  fflush(stdout);
  char line[64];
  int gen = 1;
  while (fgets(line, sizeof(line), stdin) != NULL) {
    if (strcmp(line, "reset\n") != 0) continue;
    mmv_stats_reset(reg);
    generation(reg, ++gen);
    printf("ok\n");
    fflush(stdout);
  }
  return 0;
}
