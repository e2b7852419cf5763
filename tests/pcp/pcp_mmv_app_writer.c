/* pcp_mmv_app_writer NAME VALUES [UPDATE_MS] [SECONDS]: an application
 * that exports about VALUES values through the real libpcp_mmv and keeps
 * updating them, as applications write MMV files: for bench/footprint.py
 * (--writer libpcp_mmv) and the end-to-end tests of reading live files
 * (tests/cmd/live_writer_test.py).
 *
 * The file ($PCP_TMP_DIR/mmv/NAME, written by mmv_stats_registry and
 * mmv_stats_start) holds U64 counters over two instance domains, "ep" (200
 * instances, about two thirds of the values) and "pool" (100 instances),
 * plus two singular string metrics: "version" (set once) and "state".
 * Counter number i (in the file's value order) starts at i * 1000; update
 * u (1, 2, ...) adds (i % 8) + 1 to every counter, then sets "state" to
 * "serving, update u" with mmv_set_string. Updates come every UPDATE_MS
 * milliseconds (default 100, absolute deadlines), for SECONDS seconds
 * (default: until SIGTERM). Prints the number of values, then "ready", once
 * the file is complete. 302 values is the smallest file: one metric on
 * each instance domain.
 *
 * Built by Bazel (//tests/pcp:pcp_mmv_app_writer) and by bench/footprint.py
 * with gcc: gcc -O2 -o W pcp_mmv_app_writer.c -lpcp_mmv -lpcp
 */
#include <pcp/pmapi.h>
#include <pcp/mmv_stats.h>
#include <pcp/mmv_dev.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EP_INSTANCES 200
#define POOL_INSTANCES 100

static volatile sig_atomic_t stop;
static void on_signal(int sig) { (void)sig; stop = 1; }

static struct timespec add_ms(struct timespec t, long ms) {
  t.tv_nsec += (ms % 1000) * 1000000L;
  t.tv_sec += ms / 1000 + t.tv_nsec / 1000000000L;
  t.tv_nsec %= 1000000000L;
  return t;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: pcp_mmv_app_writer NAME VALUES [UPDATE_MS] [SECONDS]\n");
    return 2;
  }
  const long values = atol(argv[2]);
  const long update_ms = argc > 3 ? atol(argv[3]) : 100;
  const double seconds = argc > 4 ? atof(argv[4]) : 0;
  /* Two thirds of the values on "ep", the rest on "pool", two strings. */
  const int ep_metrics = (int)((values * 2 / 3) / EP_INSTANCES);
  long rest = values - 2 - (long)ep_metrics * EP_INSTANCES;
  const int pool_metrics = rest > 0 ? (int)((rest + POOL_INSTANCES - 1) / POOL_INSTANCES) : 0;
  if (ep_metrics + pool_metrics + 2 > 1023) {
    fprintf(stderr, "pcp_mmv_app_writer: %ld values need more than 1023 metrics\n", values);
    return 2;
  }

  mmv_registry_t *r = mmv_stats_registry(argv[1], 0, 0);
  if (r == NULL) {
    perror("mmv_stats_registry");
    return 1;
  }
  const pmUnits count = MMV_UNITS(0, 0, 1, 0, 0, PM_COUNT_ONE);
  const pmUnits none = MMV_UNITS(0, 0, 0, 0, 0, 0);
  mmv_stats_add_indom(r, 1, "endpoints", "request endpoints");
  mmv_stats_add_indom(r, 2, "pools", "worker pools");
  char name[64];  /* the registry keeps the pointers it is given: each name is strdup'ed */
  for (int i = 0; i < EP_INSTANCES; ++i) {
    snprintf(name, sizeof(name), "ep%d", i);
    mmv_stats_add_instance(r, 1, i, strdup(name)); /* -1 on 6.0.3 even when added */
  }
  for (int i = 0; i < POOL_INSTANCES; ++i) {
    snprintf(name, sizeof(name), "pool%d", i);
    mmv_stats_add_instance(r, 2, i, strdup(name));
  }
  int item = 1;
  for (int m = 0; m < ep_metrics; ++m) {
    snprintf(name, sizeof(name), "ep.requests%d", m);
    mmv_stats_add_metric(r, strdup(name), item++, MMV_TYPE_U64, MMV_SEM_COUNTER, count, 1, "", "");
  }
  for (int m = 0; m < pool_metrics; ++m) {
    snprintf(name, sizeof(name), "pool.tasks%d", m);
    mmv_stats_add_metric(r, strdup(name), item++, MMV_TYPE_U64, MMV_SEM_COUNTER, count, 2, "", "");
  }
  mmv_stats_add_metric(r, "version", item++, MMV_TYPE_STRING, MMV_SEM_DISCRETE, none, 0,
                       "application version", "");
  mmv_stats_add_metric(r, "state", item++, MMV_TYPE_STRING, MMV_SEM_INSTANT, none, 0,
                       "what the application is doing", "");
  void *base = mmv_stats_start(r);
  if (base == NULL) {
    perror("mmv_stats_start");
    return 1;
  }

  /* The values, found by walking the VALUES section (mmv_lookup_value_desc
   * is a linear scan per call). */
  const mmv_disk_header_t *h = base;
  const mmv_disk_toc_t *toc = (const mmv_disk_toc_t *)(h + 1);
  mmv_disk_value_t *vals = NULL;
  int nvals = 0;
  for (int t = 0; t < h->tocs; ++t) {
    if (toc[t].type == MMV_TOC_VALUES) {
      vals = (mmv_disk_value_t *)((char *)base + toc[t].offset);
      nvals = toc[t].count;
    }
  }
  pmAtomValue **counters = calloc((size_t)nvals, sizeof(*counters));
  pmAtomValue *version = NULL, *state = NULL;
  int ncounters = 0;
  for (int i = 0; i < nvals; ++i) {
    /* v1 (names up to 63 bytes, no labels: this file) keeps names inline. */
    const char *mp = (const char *)base + vals[i].metric;
    const int type = h->version == MMV_VERSION1 ? (int)((const mmv_disk_metric_t *)mp)->type
                                                : (int)((const mmv_disk_metric2_t *)mp)->type;
    if (type == MMV_TYPE_U64) {
      counters[ncounters++] = &vals[i].value;
    } else if (type == MMV_TYPE_STRING) {
      const char *n = h->version == MMV_VERSION1
                          ? ((const mmv_disk_metric_t *)mp)->name
                          : (const char *)base + ((const mmv_disk_metric2_t *)mp)->name;
      if (strcmp(n, "version") == 0) version = &vals[i].value;
      if (strcmp(n, "state") == 0) state = &vals[i].value;
    }
  }
  if (version == NULL || state == NULL) {
    fprintf(stderr, "pcp_mmv_app_writer: string values not found\n");
    return 1;
  }
  for (int i = 0; i < ncounters; ++i) counters[i]->ull = (uint64_t)i * 1000;
  mmv_set_string(base, version, "6.0.3-bench", (int)strlen("6.0.3-bench"));
  mmv_set_string(base, state, "starting", (int)strlen("starting"));
  printf("%d\nready\n", nvals);
  fflush(stdout);

  signal(SIGTERM, on_signal);
  signal(SIGINT, on_signal);
  struct timespec next, end;
  clock_gettime(CLOCK_MONOTONIC, &next);
  end = add_ms(next, (long)(seconds * 1000));
  char text[64];
  for (unsigned long update = 1; !stop && update_ms > 0; ++update) {
    next = add_ms(next, update_ms);
    if (seconds > 0 && (next.tv_sec > end.tv_sec ||
                        (next.tv_sec == end.tv_sec && next.tv_nsec > end.tv_nsec))) {
      break;
    }
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) != 0 && !stop) {
    }
    for (int i = 0; i < ncounters; ++i) counters[i]->ull += (uint64_t)(i % 8) + 1;
    snprintf(text, sizeof(text), "serving, update %lu", update);
    mmv_set_string(base, state, text, (int)strlen(text));
  }
  mmv_stats_stop(argv[1], base);
  return 0;
}
