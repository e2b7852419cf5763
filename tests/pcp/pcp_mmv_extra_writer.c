/* Writes $PCP_TMP_DIR/mmv/extra with PCP 7.2's libpcp_mmv: metrics in PCP
 * 7.2's extra units (pmUnits' extraUnit and extraScale, set with its
 * MMV_EXTRAUNITS macro), for tests/pcp:extra_units_test. Built against PCP
 * 7.2 only (the macro and the fields are 7.2's). v2, cluster 33.
 *
 * Prints one JSON object: for each metric its name, item, MMV type,
 * semantics, units word and the text 7.2's own pmUnitsStr gives it, and
 * the value written, so the test has an expectation independent of mmvlog.
 * With env MMV_WRITER_HOLD=1 it then sleeps until killed.
 */
#include <pcp/pmapi.h>
#include <pcp/mmv_stats.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  const char *name;
  int item;
  mmv_metric_type_t type;
  mmv_metric_sem_t sem;
  pmUnits units;
  int indom;
  double value; /* per instance k: value + k */
} metric_def;

static const metric_def kMetrics[] = {
    {"temp.celsius", 1, MMV_TYPE_DOUBLE, MMV_SEM_INSTANT,
     MMV_EXTRAUNITS(0, 0, 0, 0, 0, 0, PM_UNIT_TEMPERATURE, PM_TEMPERATURE_C), 0, 21.5},
    {"temp.fahrenheit", 2, MMV_TYPE_FLOAT, MMV_SEM_INSTANT,
     MMV_EXTRAUNITS(0, 0, 0, 0, 0, 0, PM_UNIT_TEMPERATURE, PM_TEMPERATURE_F), 0, 70.7},
    {"temp.kelvin", 3, MMV_TYPE_DOUBLE, MMV_SEM_INSTANT,
     MMV_EXTRAUNITS(0, 0, 0, 0, 0, 0, PM_UNIT_TEMPERATURE, PM_TEMPERATURE_K), 1, 294.65},
    {"volts", 4, MMV_TYPE_U32, MMV_SEM_INSTANT,
     MMV_EXTRAUNITS(0, 0, 0, 0, 0, 0, PM_UNIT_VOLTAGE, PM_VOLTAGE_mV), 0, 12000},
    {"amps", 5, MMV_TYPE_U64, MMV_SEM_INSTANT,
     MMV_EXTRAUNITS(0, 0, 0, 0, 0, 0, PM_UNIT_CURRENT, PM_CURRENT_uA), 1, 1500},
    {"power.now", 6, MMV_TYPE_DOUBLE, MMV_SEM_INSTANT,
     MMV_EXTRAUNITS(0, 0, 0, 0, 0, 0, PM_UNIT_POWER, PM_POWER_W), 1, 42.25},
    /* Energy: a counter in watt hours ("power (W) hour", word 0x1005022);
     * its rate is power in W. */
    {"energy", 7, MMV_TYPE_U64, MMV_SEM_COUNTER,
     MMV_EXTRAUNITS(0, 1, 0, 0, PM_TIME_HOUR, 0, PM_UNIT_POWER, PM_POWER_W), 0, 123456},
    /* Milliwatt seconds per byte: extra units with other dimensions. */
    {"energy_per_kbyte", 8, MMV_TYPE_DOUBLE, MMV_SEM_INSTANT,
     MMV_EXTRAUNITS(-1, 1, 0, PM_SPACE_KBYTE, PM_TIME_SEC, 0, PM_UNIT_POWER, PM_POWER_mW), 0,
     0.5},
    {"kilowatts", 9, MMV_TYPE_FLOAT, MMV_SEM_DISCRETE,
     MMV_EXTRAUNITS(0, 0, 0, 0, 0, 0, PM_UNIT_POWER, PM_POWER_kW), 0, 3.5},
    /* Bits 7.2 does not know (extraUnit 9): a writer's garbage. */
    {"unknown", 10, MMV_TYPE_U32, MMV_SEM_INSTANT,
     MMV_EXTRAUNITS(0, 0, 1, 0, 0, 0, 9, 2), 0, 7},
};
#define NMETRICS (sizeof(kMetrics) / sizeof(kMetrics[0]))

static const char *kInstances[] = {"sensor0", "sensor1"};

const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "detect_leaks=0"; }

int main(void) {
  mmv_registry_t *reg = mmv_stats_registry("extra", 33, 0);
  if (!reg) { perror("mmv_stats_registry"); return 1; }
  if (mmv_stats_add_indom(reg, 1, "Sensors", NULL) < 0) return 1;
  for (int k = 0; k < 2; k++) mmv_stats_add_instance(reg, 1, k, kInstances[k]);
  for (size_t i = 0; i < NMETRICS; i++) {
    const metric_def *m = &kMetrics[i];
    if (mmv_stats_add_metric(reg, m->name, m->item, m->type, m->sem, m->units, m->indom,
                             NULL, NULL) < 0) {
      fprintf(stderr, "pcp_mmv_extra_writer: metric %s refused\n", m->name);
      return 1;
    }
  }
  void *map = mmv_stats_start(reg);
  if (!map) { perror("mmv_stats_start"); return 1; }
  printf("{\"metrics\":[");
  for (size_t i = 0; i < NMETRICS; i++) {
    const metric_def *m = &kMetrics[i];
    uint32_t word;
    char text[64];
    memcpy(&word, &m->units, sizeof(word));
    pmUnitsStr_r(&m->units, text, sizeof(text));
    printf("%s{\"name\":\"%s\",\"item\":%d,\"type\":%d,\"sem\":%d,\"units_word\":%u,"
           "\"units\":\"%s\",\"indom\":%d,\"values\":[",
           i ? "," : "", m->name, m->item, (int)m->type, (int)m->sem, word, text, m->indom);
    for (int k = 0; k < (m->indom ? 2 : 1); k++) {
      pmAtomValue *a = mmv_lookup_value_desc(map, m->name, m->indom ? kInstances[k] : NULL);
      if (!a) { fprintf(stderr, "no value for %s\n", m->name); return 1; }
      double v = m->value + k;
      switch (m->type) {
        case MMV_TYPE_U32: a->ul = (uint32_t)v; break;
        case MMV_TYPE_U64: a->ull = (uint64_t)v; break;
        case MMV_TYPE_FLOAT: a->f = (float)v; break;
        case MMV_TYPE_DOUBLE: a->d = v; break;
        default: return 1;
      }
      printf("%s%.17g", k ? "," : "", m->type == MMV_TYPE_FLOAT ? (double)(float)v : v);
    }
    printf("]}");
  }
  printf("]}\n");
  fflush(stdout);
  if (getenv("MMV_WRITER_HOLD")) for (;;) pause();
  return 0;
}
