/* Writes $PCP_TMP_DIR/mmv/compound with the real libpcp_mmv (v3, cluster
 * 21): one metric "x" (item 1, U64 instant, value 5), a registry (cluster)
 * label whose value is a JSON object with an object inside (MMV_MAP_TYPE:
 * a "compound" label), and two labels on the metric, an array and a
 * string. For tests/pcp:compound_label_test. Prints "ok".
 */
#include <pcp/pmapi.h>
#include <pcp/mmv_stats.h>
#include <stdio.h>

/* Under --config=asan: libpcp_mmv keeps its registry for the life of the
 * process by design (as in pcp_mmv_writer.c), not a leak of ours. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "detect_leaks=0"; }

int main(void) {
  mmv_registry_t *reg = mmv_stats_registry("compound", 21, 0);
  if (!reg) { perror("mmv_stats_registry"); return 1; }
  pmUnits none = {0};
  if (mmv_stats_add_metric(reg, "x", 1, MMV_TYPE_U64, MMV_SEM_INSTANT, none, 0, NULL, NULL) < 0 ||
      mmv_stats_add_registry_label(reg, "svc", "{\"name\":\"web\",\"tier\":{\"z\":2,\"a\":1}}",
                                   MMV_MAP_TYPE, 0) < 0 ||
      mmv_stats_add_metric_label(reg, 1, "ports", "[80,443]", MMV_ARRAY_TYPE, 0) < 0 ||
      mmv_stats_add_metric_label(reg, 1, "plain", "\"v\"", MMV_STRING_TYPE, 0) < 0) {
    fprintf(stderr, "pcp_mmv_compound_writer: libpcp_mmv refused a call\n");
    return 1;
  }
  void *map = mmv_stats_start(reg);
  if (!map) { perror("mmv_stats_start"); return 1; }
  pmAtomValue *v = mmv_lookup_value_desc(map, "x", NULL);
  if (!v) return 1;
  mmv_set_value(map, v, 5);
  printf("ok\n");
  return 0;
}
