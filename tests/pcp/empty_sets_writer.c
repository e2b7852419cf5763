/* Writes an archive with PCP's LOGIMPORT (pmiPutResult) whose records hold
 * what a recorder writes when a metric cannot be read: value sets without
 * values (numval 0) and sets holding a PCP error, beside ordinary values.
 *
 * usage: PCP_ARCHIVE_VERSION=2|3 empty_sets_writer ARCHIVE
 *
 * Content (host "gaps", zone "UTC", T0 = 1700000000), one record a second:
 *   cnt   U32 counter, singular:         10 20 [numval 0] 5 15 25 [PM_ERR_PMID] 30 40 45
 *   inst  32 instant over indom 245.1 {0 "a", 1 "b"}: a = t, b = 100 + t, except
 *         t = 4: [numval 0] and t = 7: [PM_ERR_VALUE]
 *   t = 10: only `inst` (a = 10), t = 11: only `cnt` = 50.
 */
#include <pcp/pmapi.h>
#include <pcp/import.h>
#include <stdio.h>
#include <stdlib.h>

static void check(int rc, const char *what) {
  if (rc < 0) {
    fprintf(stderr, "empty_sets_writer: %s: %s\n", what, pmiErrStr(rc));
    exit(1);
  }
}

static pmValueSet *set(pmID pmid, int numval) {
  pmValueSet *s = calloc(1, sizeof(pmValueSet) + 2 * sizeof(pmValue));
  if (s == NULL) exit(1);
  s->pmid = pmid;
  s->numval = numval;
  s->valfmt = PM_VAL_INSITU;
  return s;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: empty_sets_writer ARCHIVE\n");
    return 2;
  }
  check(pmiStart(argv[1], 0), "pmiStart");
  check(pmiSetHostname("gaps"), "pmiSetHostname");
  check(pmiSetTimezone("UTC"), "pmiSetTimezone");
  const pmID cnt = pmiID(245, 0, 1), inst = pmiID(245, 0, 2);
  const pmInDom indom = pmiInDom(245, 1);
  check(pmiAddMetric("cnt", cnt, PM_TYPE_U32, PM_INDOM_NULL, PM_SEM_COUNTER,
                     pmiUnits(0, 0, 1, 0, 0, PM_COUNT_ONE)), "cnt");
  check(pmiAddMetric("inst", inst, PM_TYPE_32, indom, PM_SEM_INSTANT,
                     pmiUnits(0, 0, 0, 0, 0, 0)), "inst");
  check(pmiAddInstance(indom, "a", 0), "a");
  check(pmiAddInstance(indom, "b", 1), "b");
  /* cnt's value at t, or a numval (<= 0) standing for none. */
  const int cnt_at[] = {10, 20, 0, 5, 15, 25, PM_ERR_PMID, 30, 40, 45};
  for (int t = 0; t < 12; t++) {
    pmResult *r = calloc(1, sizeof(pmResult) + 2 * sizeof(pmValueSet *));
    if (r == NULL) return 1;
    r->timestamp.tv_sec = 1700000000 + t;
    int n = 0;
    if (t < 10 || t == 11) {
      int v = t < 10 ? cnt_at[t] : 50;
      pmValueSet *s = set(cnt, 1);
      if (t == 2 || t == 6) {
        s->numval = v;
      } else {
        s->vlist[0].inst = PM_IN_NULL;
        s->vlist[0].value.lval = v;
      }
      r->vset[n++] = s;
    }
    if (t <= 10) {
      pmValueSet *s = set(inst, t == 10 ? 1 : 2);
      if (t == 4) {
        s->numval = 0;
      } else if (t == 7) {
        s->numval = PM_ERR_VALUE;
      } else {
        s->vlist[0].inst = 0;
        s->vlist[0].value.lval = t;
        s->vlist[1].inst = 1;
        s->vlist[1].value.lval = 100 + t;
      }
      r->vset[n++] = s;
    }
    r->numpmid = n;
    check(pmiPutResult(r), "pmiPutResult");
    for (int i = 0; i < n; i++) free(r->vset[i]);
    free(r);
  }
  check(pmiEnd(), "pmiEnd");
  return 0;
}
