/* pcp_mmv_many_writer PREFIX FILES VALUES [UPDATE_MS] [SECONDS] [CLUSTER]: FILES
 * applications' MMV files written through the real libpcp_mmv by one
 * process, as a host full of instrumented processes has them: for
 * bench/footprint.py's files axis, bench/soak.py's many-files mode and the
 * tests that record such a directory beside pmdammv.
 *
 * File i (0-based) is $PCP_TMP_DIR/mmv/PREFIX<i>, cluster CLUSTER + i
 * (CLUSTER 1 by default; so PMIDs do not clash, as pmdammv wants of
 * different applications), and holds VALUES values: VALUES / I U64
 * counters "requests<m>" over an I-instance domain "workers" (w0, w1, ...)
 * and VALUES % I singular U64 counters "events<k>", where I is 10 (100 past
 * 10,000 values). Value j of file i starts at (CLUSTER + i) * 100000 +
 * j * 10 + 1 (never 0); update u (1, 2, ...) adds (j % 8) + 1 to every
 * value of every file. Updates come
 * every UPDATE_MS milliseconds (default 1000, absolute deadlines) for
 * SECONDS seconds (default: until SIGTERM); UPDATE_MS 0 writes once and
 * waits. Prints the number of values, then "ready", once every file is
 * complete.
 *
 * Built by Bazel (//tests/pcp:pcp_mmv_many_writer) and by the benchmarks
 * with gcc: gcc -O2 -o W pcp_mmv_many_writer.c -lpcp_mmv -lpcp
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
#include <unistd.h>

/* Instances of "workers": 10, or 100 for files of more than 10,000 values
 * (libpcp_mmv takes at most 1023 metrics a file). */
static int instances = 10;

static volatile sig_atomic_t stop;
static void on_signal(int sig) { (void)sig; stop = 1; }

static struct timespec add_ms(struct timespec t, long ms) {
  t.tv_nsec += (ms % 1000) * 1000000L;
  t.tv_sec += ms / 1000 + t.tv_nsec / 1000000000L;
  t.tv_nsec %= 1000000000L;
  return t;
}

/* Registers and starts file `name` of cluster `cluster`; its U64 values in
 * the file's value order go to vals[0 .. *n). */
static void *start_file(const char *name, int cluster, long values, pmAtomValue ***vals,
                        int *n) {
  mmv_registry_t *r = mmv_stats_registry(name, cluster, 0);
  if (r == NULL) {
    perror("mmv_stats_registry");
    exit(1);
  }
  const pmUnits count = MMV_UNITS(0, 0, 1, 0, 0, PM_COUNT_ONE);
  char text[64]; /* the registry keeps the pointers it is given: strdup'ed */
  const long indom_metrics = values / instances;
  if (indom_metrics > 0) {
    mmv_stats_add_indom(r, 1, "workers", "worker threads");
    for (int i = 0; i < instances; ++i) {
      snprintf(text, sizeof(text), "w%d", i);
      mmv_stats_add_instance(r, 1, i, strdup(text));
    }
  }
  int item = 1;
  for (long m = 0; m < indom_metrics; ++m) {
    snprintf(text, sizeof(text), "requests%ld", m);
    mmv_stats_add_metric(r, strdup(text), item++, MMV_TYPE_U64, MMV_SEM_COUNTER, count, 1, "",
                         "");
  }
  for (long k = 0; k < values % instances; ++k) {
    snprintf(text, sizeof(text), "events%ld", k);
    mmv_stats_add_metric(r, strdup(text), item++, MMV_TYPE_U64, MMV_SEM_COUNTER, count, 0, "",
                         "");
  }
  void *base = mmv_stats_start(r);
  if (base == NULL) {
    perror("mmv_stats_start");
    exit(1);
  }
  const mmv_disk_header_t *h = base;
  const mmv_disk_toc_t *toc = (const mmv_disk_toc_t *)(h + 1);
  *n = 0;
  for (int t = 0; t < h->tocs; ++t) {
    if (toc[t].type != MMV_TOC_VALUES) continue;
    mmv_disk_value_t *v = (mmv_disk_value_t *)((char *)base + toc[t].offset);
    *vals = calloc((size_t)toc[t].count + 1, sizeof(**vals));
    for (int i = 0; i < (int)toc[t].count; ++i) (*vals)[(*n)++] = &v[i].value;
  }
  return base;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: pcp_mmv_many_writer PREFIX FILES VALUES [UPDATE_MS] [SECONDS] [CLUSTER]\n");
    return 2;
  }
  const int files = atoi(argv[2]);
  const long values = atol(argv[3]);
  const long update_ms = argc > 4 ? atol(argv[4]) : 1000;
  const double seconds = argc > 5 ? atof(argv[5]) : 0;
  const int first_cluster = argc > 6 ? atoi(argv[6]) : 1;
  if (values > 10000) instances = 100;
  if (files < 1 || values < 1 || values / instances + values % instances > 1000) {
    fprintf(stderr, "pcp_mmv_many_writer: FILES >= 1, VALUES 1 .. 100,000\n");
    return 2;
  }
  char **names = calloc((size_t)files, sizeof(*names));
  void **bases = calloc((size_t)files, sizeof(*bases));
  pmAtomValue ***vals = calloc((size_t)files, sizeof(*vals));
  int *counts = calloc((size_t)files, sizeof(*counts));
  long total = 0;
  for (int f = 0; f < files; ++f) {
    char name[256];
    snprintf(name, sizeof(name), "%s%d", argv[1], f);
    names[f] = strdup(name);
    const int cluster = first_cluster + f;
    bases[f] = start_file(names[f], cluster, values, &vals[f], &counts[f]);
    for (int j = 0; j < counts[f]; ++j) {
      vals[f][j]->ull = (uint64_t)cluster * 100000 + (uint64_t)j * 10 + 1;
    }
    total += counts[f];
  }
  printf("%ld\nready\n", total);
  fflush(stdout);

  signal(SIGTERM, on_signal);
  signal(SIGINT, on_signal);
  struct timespec next, end;
  clock_gettime(CLOCK_MONOTONIC, &next);
  end = add_ms(next, (long)(seconds * 1000));
  if (update_ms <= 0) {
    while (!stop) pause();
  }
  for (; !stop && update_ms > 0;) {
    next = add_ms(next, update_ms);
    if (seconds > 0 && (next.tv_sec > end.tv_sec ||
                        (next.tv_sec == end.tv_sec && next.tv_nsec > end.tv_nsec))) {
      break;
    }
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) != 0 && !stop) {
    }
    for (int f = 0; f < files; ++f) {
      for (int j = 0; j < counts[f]; ++j) vals[f][j]->ull += (uint64_t)(j % 8) + 1;
    }
  }
  for (int f = 0; f < files; ++f) mmv_stats_stop(names[f], bases[f]);
  return 0;
}
