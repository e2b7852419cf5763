/* Writes MMV files with the real libpcp_mmv (the reference writer), for
 * tests that compare mmvlog's reader with PCP's.  The file content is fully
 * determined by the arguments, so tests can state exactly what was written.
 *
 * usage: pcp_mmv_writer [--json] NAME MODE [CLUSTER] [FLAGS]
 *   MODE: v1 (short names), v2 (a name over 63 chars), v3 (v2 + labels)
 *   Writes $PCP_TMP_DIR/mmv/NAME, sets deterministic values, prints "ok".
 *   With --json it prints instead one JSON object stating everything it
 *   wrote (header, indoms with instances, metrics with PCP's own pmUnitsStr
 *   text, labels, and every value), generated from the same tables that
 *   drive the libpcp_mmv calls, so tests have an independent expectation.
 *   With env MMV_WRITER_HOLD=1 it then sleeps until killed (for PROCESS).
 *
 * Content: 3 indoms (1 "CPUs" with help, 7 "Disks" short help only, 3 no
 * help), 6 instances, 11 metrics (12 in v2/v3) covering every MMV type
 * (I32, U32, I64, U64, FLOAT, DOUBLE, STRING, ELAPSED) and semantics
 * (counter, instant, discrete and 0), 7 labels in v3 (registry, indom,
 * metric, instance; some optional).  Every value in the file is set.
 */
#include <pcp/pmapi.h>
#include <pcp/mmv_stats.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LONG_DISK "a_disk_whose_external_instance_name_is_longer_than_sixty_three_characters_ok"
#define LONG_METRIC "a.metric.name.that.is.definitely.longer.than.sixty.three.characters.total"

typedef struct {
  int serial;
  const char *short_help, *long_help; /* NULL: none */
} indom_def;

typedef struct {
  int serial, id;
  const char *name; /* NULL: LONG_DISK in v2/v3, "sdb" in v1 */
} instance_def;

typedef struct {
  const char *name;
  int item;
  mmv_metric_type_t type;
  mmv_metric_sem_t sem;
  pmUnits units;
  int indom; /* 0: singular */
  const char *short_help, *long_help;
  int v2_only;
} metric_def;

typedef enum { LABEL_REGISTRY, LABEL_INDOM, LABEL_METRIC, LABEL_INSTANCE } label_kind;

typedef struct {
  label_kind kind;
  int id;       /* indom serial or metric item; unused for the registry */
  int instance; /* for LABEL_INSTANCE */
  const char *name, *value;
  mmv_value_type_t type;
  int optional;
} label_def;

static const indom_def kIndoms[] = {
    {1, "CPUs", "Per-CPU instances\nof the demo"},
    {7, "Disks", NULL},
    {3, NULL, NULL},
};

static const instance_def kInstances[] = {
    {1, 0, "cpu0"}, {1, 1, "cpu1"}, {1, 5, "cpu5"},
    {7, 10, "sda"}, {7, 20, NULL},  {3, 100, "only"},
};

#define NINDOMS (sizeof(kIndoms) / sizeof(kIndoms[0]))
#define NINSTANCES (sizeof(kInstances) / sizeof(kInstances[0]))

static const pmUnits kNone = MMV_UNITS(0, 0, 0, 0, 0, 0);
static const pmUnits kCount = MMV_UNITS(0, 0, 1, 0, 0, PM_COUNT_ONE);
static const pmUnits kKbytePerSec = MMV_UNITS(1, -1, 0, PM_SPACE_KBYTE, PM_TIME_SEC, 0);
static const pmUnits kMsec = MMV_UNITS(0, 1, 0, 0, PM_TIME_MSEC, 0);
static const pmUnits kBytes = MMV_UNITS(1, 0, 0, PM_SPACE_BYTE, 0, 0);

static metric_def metrics[13];
static int nmetrics;

static void init_metrics(void) {
  const metric_def m[] = {
      {"requests.total", 1, MMV_TYPE_U64, MMV_SEM_COUNTER, kCount, 0, "Requests served",
       "Total number of requests\nsince start", 0},
      {"cpu.busy", 2, MMV_TYPE_U32, MMV_SEM_INSTANT, kMsec, 1, "Busy time", NULL, 0},
      {"signed32", 3, MMV_TYPE_I32, MMV_SEM_DISCRETE, kNone, 0, NULL, NULL, 0},
      {"signed64", 4, MMV_TYPE_I64, MMV_SEM_INSTANT, kBytes, 7, "Signed 64", "Signed 64-bit per disk", 0},
      {"ratio.float", 5, MMV_TYPE_FLOAT, MMV_SEM_INSTANT, kNone, 1, NULL, NULL, 0},
      {"ratio.double", 6, MMV_TYPE_DOUBLE, MMV_SEM_INSTANT, kKbytePerSec, 0, "Throughput", NULL, 0},
      {"version", 7, MMV_TYPE_STRING, MMV_SEM_DISCRETE, kNone, 0, "Version string", NULL, 0},
      {"per_disk.status", 8, MMV_TYPE_STRING, MMV_SEM_INSTANT, kNone, 7, NULL, NULL, 0},
      {"elapsed", 9, MMV_TYPE_ELAPSED, MMV_SEM_COUNTER, kNone, 0, "Time in phase", NULL, 0},
      {"sem_zero", 10, MMV_TYPE_U32, 0, kCount, 3, NULL, NULL, 0},
      {"unsigned64_gauge", 11, MMV_TYPE_U64, MMV_SEM_INSTANT, kBytes, 1, NULL, NULL, 0},
      {LONG_METRIC, 12, MMV_TYPE_U32, MMV_SEM_COUNTER, kCount, 0, "Long name", NULL, 1},
  };
  nmetrics = sizeof(m) / sizeof(m[0]);
  memcpy(metrics, m, sizeof(m));
}

static const label_def kLabels[] = {
    {LABEL_REGISTRY, 0, 0, "app", "\"demo\"", MMV_STRING_TYPE, 0},
    {LABEL_REGISTRY, 0, 0, "release", "42", MMV_NUMBER_TYPE, 1},
    {LABEL_INDOM, 1, 0, "device_type", "\"cpu\"", MMV_STRING_TYPE, 0},
    {LABEL_METRIC, 1, 0, "unit", "\"requests\"", MMV_STRING_TYPE, 0},
    {LABEL_METRIC, 6, 0, "enabled", "true", MMV_BOOLEAN_TYPE, 0},
    {LABEL_INSTANCE, 1, 5, "hot", "true", MMV_BOOLEAN_TYPE, 0},
    {LABEL_INSTANCE, 7, 10, "model", "\"ssd\"", MMV_STRING_TYPE, 1},
};
#define NLABELS (sizeof(kLabels) / sizeof(kLabels[0]))

static int v2, v3;

static const char *instance_name(const instance_def *i) {
  return i->name ? i->name : (v2 ? LONG_DISK : "sdb");
}

/* The value written for metric `m` at instance number `k` of its indom
 * (k = 0 for a singular metric), as numbers and a string. */
typedef struct {
  double d;              /* FLOAT (before conversion to float), DOUBLE */
  long long ll;          /* I32, I64, ELAPSED */
  unsigned long long ull; /* U32, U64 */
  const char *s;         /* STRING */
} value;

static value value_for(const metric_def *m, int k) {
  value v = {0, 0, 0, ""};
  switch (m->item) {
    case 1: v.ull = 1234567890123ull; break;
    case 2: v.ull = 100 * (k + 1); break;
    case 3: v.ll = -42; break;
    case 4: v.ll = -5000000000LL * (k + 1); break;
    case 5: v.d = 0.1 + k; break; /* not exact in float32 */
    case 6: v.d = 3.141592653589793; break;
    case 7: v.s = "1.2.3-demo"; break;
    case 8: v.s = k ? "degraded" : "ok"; break;
    case 9: v.ll = 5000; break; /* a finished interval: extra stays 0 */
    case 10: v.ull = 7; break;
    case 11: v.ull = 0xfffffffffffull + k; break;
    case 12: v.ull = 99; break;
  }
  return v;
}

static void set_value(void *map, const metric_def *m, const char *inst, int k) {
  pmAtomValue *a = mmv_lookup_value_desc(map, m->name, inst);
  if (!a) {
    fprintf(stderr, "pcp_mmv_writer: no value for %s[%s]\n", m->name, inst ? inst : "");
    exit(1);
  }
  value v = value_for(m, k);
  switch (m->type) {
    case MMV_TYPE_I32: a->l = (int32_t)v.ll; break;
    case MMV_TYPE_U32:
      if (m->item == 2) mmv_set_value(map, a, (double)v.ull); /* the library's setter */
      else a->ul = (uint32_t)v.ull;
      break;
    case MMV_TYPE_I64: case MMV_TYPE_ELAPSED: a->ll = v.ll; break;
    case MMV_TYPE_U64:
      if (m->item == 1) mmv_set_value(map, a, (double)v.ull);
      else a->ull = v.ull;
      break;
    case MMV_TYPE_FLOAT: mmv_set_value(map, a, v.d); break;
    case MMV_TYPE_DOUBLE: a->d = v.d; break;
    case MMV_TYPE_STRING: mmv_set_string(map, a, v.s, (int)strlen(v.s)); break;
    default: fprintf(stderr, "pcp_mmv_writer: type %d\n", m->type); exit(1);
  }
}

static void check(int rc, const char *what) {
  if (rc < 0) {
    fprintf(stderr, "pcp_mmv_writer: %s failed: %d\n", what, rc);
    exit(1);
  }
}

static void json_str(const char *s) {
  putchar('"');
  for (; s && *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') printf("\\%c", c);
    else if (c == '\n') printf("\\n");
    else if (c < 0x20) printf("\\u%04x", c);
    else putchar(c);
  }
  putchar('"');
}

static int active(const metric_def *m) { return !m->v2_only || v2; }

static void print_json(const char *name, const char *mode, int cluster, int flags) {
  printf("{\"name\":");
  json_str(name);
  printf(",\"mode\":");
  json_str(mode);
  printf(",\"version\":%d,\"cluster\":%d,\"flags\":%d,\"process\":%d", v3 ? 3 : v2 ? 2 : 1,
         cluster, flags, (int)getpid());
  printf(",\"indoms\":[");
  for (size_t i = 0; i < NINDOMS; i++) {
    printf("%s{\"serial\":%d,\"short_help\":", i ? "," : "", kIndoms[i].serial);
    json_str(kIndoms[i].short_help);
    printf(",\"long_help\":");
    json_str(kIndoms[i].long_help);
    printf(",\"instances\":[");
    int n = 0;
    for (size_t k = 0; k < NINSTANCES; k++) {
      if (kInstances[k].serial != kIndoms[i].serial) continue;
      printf("%s{\"id\":%d,\"name\":", n++ ? "," : "", kInstances[k].id);
      json_str(instance_name(&kInstances[k]));
      printf("}");
    }
    printf("]}");
  }
  printf("],\"metrics\":[");
  int n = 0;
  for (int i = 0; i < nmetrics; i++) {
    const metric_def *m = &metrics[i];
    if (!active(m)) continue;
    uint32_t word;
    char units[256];
    memcpy(&word, &m->units, sizeof(word));
    pmUnitsStr_r(&m->units, units, sizeof(units));
    printf("%s{\"name\":", n++ ? "," : "");
    json_str(m->name);
    printf(",\"item\":%d,\"type\":%d,\"semantics\":%d,\"units_word\":%u,\"units\":", m->item,
           (int)m->type, (int)m->sem, word);
    json_str(units);
    if (m->indom) printf(",\"indom\":%d", m->indom);
    else printf(",\"indom\":null");
    printf(",\"short_help\":");
    json_str(m->short_help);
    printf(",\"long_help\":");
    json_str(m->long_help);
    printf("}");
  }
  printf("],\"labels\":[");
  for (size_t i = 0; v3 && i < NLABELS; i++) {
    const label_def *l = &kLabels[i];
    int lflags = 0, identity = 0, instance = PM_IN_NULL;
    const char *type = "?";
    switch (l->kind) {
      case LABEL_REGISTRY: lflags = PM_LABEL_CLUSTER; identity = cluster; type = "cluster"; break;
      case LABEL_INDOM: lflags = PM_LABEL_INDOM; identity = l->id; type = "indom"; break;
      case LABEL_METRIC: lflags = PM_LABEL_ITEM; identity = l->id; type = "item"; break;
      case LABEL_INSTANCE:
        lflags = PM_LABEL_INSTANCES; identity = l->id; instance = l->instance; type = "instances";
        break;
    }
    if (l->optional) lflags |= PM_LABEL_OPTIONAL;
    char payload[512];
    snprintf(payload, sizeof(payload), "{\"%s\":%s}", l->name, l->value);
    printf("%s{\"type\":\"%s\",\"flags\":%d,\"identity\":%d,\"instance\":%d,\"optional\":%s,"
           "\"payload\":",
           i ? "," : "", type, lflags, identity, instance, l->optional ? "true" : "false");
    json_str(payload);
    printf("}");
  }
  printf("],\"values\":[");
  n = 0;
  for (int i = 0; i < nmetrics; i++) {
    const metric_def *m = &metrics[i];
    if (!active(m)) continue;
    int k = 0;
    for (size_t j = 0; j < NINSTANCES || (!m->indom && j == 0); j++) {
      const instance_def *inst = m->indom ? &kInstances[j] : NULL;
      if (inst && inst->serial != m->indom) continue;
      value v = value_for(m, k++);
      printf("%s{\"metric\":", n++ ? "," : "");
      json_str(m->name);
      printf(",\"item\":%d,\"instance\":", m->item);
      if (inst) {
        printf("%d,\"instance_name\":", inst->id);
        json_str(instance_name(inst));
      } else {
        printf("null,\"instance_name\":null");
      }
      printf(",\"value\":");
      switch (m->type) {
        case MMV_TYPE_I32: case MMV_TYPE_I64: case MMV_TYPE_ELAPSED: printf("%lld", v.ll); break;
        case MMV_TYPE_U32: case MMV_TYPE_U64: printf("%llu", v.ull); break;
        case MMV_TYPE_FLOAT: case MMV_TYPE_DOUBLE: printf("%.17g", v.d); break;
        case MMV_TYPE_STRING: json_str(v.s); break;
        default: break;
      }
      if (m->type == MMV_TYPE_ELAPSED) printf(",\"extra\":0");
      printf("}");
      if (!m->indom) break;
    }
  }
  printf("]}\n");
}

/* Under --config=asan this oracle program is built with LeakSanitizer too;
 * libpcp_mmv keeps its registry for the life of the process by design, which
 * is not ours to fix. ASan reads this hook at start-up (ASAN_OPTIONS from the
 * environment would override it, so .bazelrc leaves detect_leaks at its
 * default, which is on). */
const char *__asan_default_options(void) { return "detect_leaks=0"; }

int main(int argc, char **argv) {
  int json = 0;
  if (argc > 1 && strcmp(argv[1], "--json") == 0) {
    json = 1;
    argv++;
    argc--;
  }
  if (argc < 3) {
    fprintf(stderr, "usage: pcp_mmv_writer [--json] NAME v1|v2|v3 [CLUSTER] [FLAGS]\n");
    return 2;
  }
  const char *name = argv[1];
  const char *mode = argv[2];
  int cluster = argc > 3 ? atoi(argv[3]) : 0;
  int flags = argc > 4 ? atoi(argv[4]) : 0;
  if (strcmp(mode, "v1") && strcmp(mode, "v2") && strcmp(mode, "v3")) {
    fprintf(stderr, "pcp_mmv_writer: mode must be v1, v2 or v3\n");
    return 2;
  }
  v2 = strcmp(mode, "v2") == 0 || strcmp(mode, "v3") == 0;
  v3 = strcmp(mode, "v3") == 0;
  init_metrics();

  mmv_registry_t *reg = mmv_stats_registry(name, cluster, flags);
  if (!reg) { perror("mmv_stats_registry"); return 1; }

  for (size_t i = 0; i < NINDOMS; i++)
    check(mmv_stats_add_indom(reg, kIndoms[i].serial, kIndoms[i].short_help,
                              kIndoms[i].long_help), "indom");
  /* libpcp_mmv 6.0.3 returns -1 from mmv_stats_add_instance even on success
   * (shared/notes/MACHINE.md), so its result is not checked here; the
   * value lookups below fail if an instance is missing. */
  for (size_t i = 0; i < NINSTANCES; i++)
    mmv_stats_add_instance(reg, kInstances[i].serial, kInstances[i].id,
                           instance_name(&kInstances[i]));
  for (int i = 0; i < nmetrics; i++) {
    const metric_def *m = &metrics[i];
    if (!active(m)) continue;
    check(mmv_stats_add_metric(reg, m->name, m->item, m->type, m->sem, m->units, m->indom,
                               m->short_help, m->long_help), "metric");
  }
  for (size_t i = 0; v3 && i < NLABELS; i++) {
    const label_def *l = &kLabels[i];
    switch (l->kind) {
      case LABEL_REGISTRY:
        check(mmv_stats_add_registry_label(reg, l->name, l->value, l->type, l->optional),
              "registry label");
        break;
      case LABEL_INDOM:
        check(mmv_stats_add_indom_label(reg, l->id, l->name, l->value, l->type, l->optional),
              "indom label");
        break;
      case LABEL_METRIC:
        check(mmv_stats_add_metric_label(reg, l->id, l->name, l->value, l->type, l->optional),
              "metric label");
        break;
      case LABEL_INSTANCE:
        check(mmv_stats_add_instance_label(reg, l->id, l->instance, l->name, l->value, l->type,
                                           l->optional),
              "instance label");
        break;
    }
  }

  void *map = mmv_stats_start(reg);
  if (!map) { perror("mmv_stats_start"); return 1; }

  for (int i = 0; i < nmetrics; i++) {
    const metric_def *m = &metrics[i];
    if (!active(m)) continue;
    if (!m->indom) {
      set_value(map, m, NULL, 0);
      continue;
    }
    int k = 0;
    for (size_t j = 0; j < NINSTANCES; j++)
      if (kInstances[j].serial == m->indom) set_value(map, m, instance_name(&kInstances[j]), k++);
  }

  if (json) print_json(name, mode, cluster, flags);
  else printf("ok\n");
  fflush(stdout);
  if (getenv("MMV_WRITER_HOLD")) for (;;) pause();
  return 0;
}
