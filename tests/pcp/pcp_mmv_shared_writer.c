/* Writes one MMV file of a family that shares a cluster, with the real
 * libpcp_mmv (v3, MMV_FLAG_NOPREFIX), for the shared-cluster test.
 *
 * usage: pcp_mmv_shared_writer NAME CLUSTER BASE [ID:NAME ...] [--only ITEM:METRIC]
 *   Writes $PCP_TMP_DIR/mmv/NAME with:
 *     shared.requests  item 1, U64 counter over indom serial 1, the
 *                      instances given (ID:NAME), value BASE + ID
 *     shared.up        item 2, U32 instant, singular, value BASE
 *     with --only ITEM:METRIC, also METRIC (U64 instant, singular, value
 *                      BASE * 10) as item ITEM, a metric of this file only
 *                      (or, with the item of another file's metric under a
 *                      new name, one PCP ignores)
 *   An indom label {"family":"NAME"} on serial 1 and a metric label
 *   {"from":"NAME"} on item 1, so merged label sets can be compared.
 *   Prints "ok".
 */
#include <pcp/pmapi.h>
#include <pcp/mmv_stats.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INSTANCES 16

/* Under --config=asan: libpcp_mmv keeps its registry for the life of the
 * process by design (as in pcp_mmv_writer.c), not a leak of ours. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "detect_leaks=0"; }

static void check(int sts, const char *what) {
  if (sts < 0) {
    fprintf(stderr, "pcp_mmv_shared_writer: %s failed: %d\n", what, sts);
    exit(1);
  }
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: pcp_mmv_shared_writer NAME CLUSTER BASE [ID:NAME ...] "
                    "[--only ITEM:METRIC]\n");
    return 2;
  }
  const char *name = argv[1];
  int cluster = atoi(argv[2]);
  unsigned long long base = strtoull(argv[3], NULL, 10);
  int ids[MAX_INSTANCES], n = 0, only_item = 0;
  char *names[MAX_INSTANCES], *only_metric = NULL;
  for (int i = 4; i < argc; i++) {
    if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
      char *colon = strchr(argv[++i], ':');
      if (!colon) return 2;
      *colon = '\0';
      only_item = atoi(argv[i]);
      only_metric = colon + 1;
      continue;
    }
    char *colon = strchr(argv[i], ':');
    if (!colon || n == MAX_INSTANCES) return 2;
    *colon = '\0';
    ids[n] = atoi(argv[i]);
    names[n++] = colon + 1;
  }

  mmv_registry_t *reg = mmv_stats_registry(name, cluster, MMV_FLAG_NOPREFIX);
  if (!reg) { perror("mmv_stats_registry"); return 1; }
  check(mmv_stats_add_indom(reg, 1, "shared instances", NULL), "indom");
  /* libpcp_mmv 6.0.3 returns -1 from mmv_stats_add_instance even on
   * success (shared/notes/MACHINE.md); the lookups below catch a miss. */
  for (int i = 0; i < n; i++) mmv_stats_add_instance(reg, 1, ids[i], names[i]);
  pmUnits count = {.dimCount = 1, .scaleCount = PM_COUNT_ONE};
  pmUnits none = {0};
  check(mmv_stats_add_metric(reg, "shared.requests", 1, MMV_TYPE_U64, MMV_SEM_COUNTER, count, 1,
                             "requests served", NULL), "metric");
  check(mmv_stats_add_metric(reg, "shared.up", 2, MMV_TYPE_U32, MMV_SEM_INSTANT, none, 0,
                             NULL, NULL), "metric");
  if (only_metric)
    check(mmv_stats_add_metric(reg, only_metric, only_item, MMV_TYPE_U64, MMV_SEM_INSTANT, none,
                               0, NULL, NULL), "metric");
  char json[64];
  snprintf(json, sizeof(json), "\"%s\"", name);
  check(mmv_stats_add_indom_label(reg, 1, "family", json, MMV_STRING_TYPE, 0), "indom label");
  check(mmv_stats_add_metric_label(reg, 1, "from", json, MMV_STRING_TYPE, 0), "metric label");

  void *map = mmv_stats_start(reg);
  if (!map) { perror("mmv_stats_start"); return 1; }
  for (int i = 0; i < n; i++) {
    pmAtomValue *a = mmv_lookup_value_desc(map, "shared.requests", names[i]);
    if (!a) { fprintf(stderr, "no value for %s\n", names[i]); return 1; }
    mmv_set_value(map, a, (double)(base + (unsigned long long)ids[i]));
  }
  pmAtomValue *up = mmv_lookup_value_desc(map, "shared.up", NULL);
  if (!up) return 1;
  mmv_set_value(map, up, (double)base);
  if (only_metric) {
    pmAtomValue *o = mmv_lookup_value_desc(map, only_metric, NULL);
    if (!o) return 1;
    mmv_set_value(map, o, (double)(base * 10));
  }
  printf("ok\n");
  return 0;
}
