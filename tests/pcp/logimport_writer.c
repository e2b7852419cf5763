/* Writes a small PCP archive with the real LOGIMPORT library (libpcp_import
 * 6.0.3), for tests that check mmvlog's archive record decoders read PCP's
 * records exactly and its encoders reproduce them byte for byte.
 *
 * usage: PCP_ARCHIVE_VERSION=2|3 logimport_writer ARCHIVE
 *   Creates ARCHIVE.0, ARCHIVE.meta and ARCHIVE.index (which must not
 *   exist). Prints nothing on success; exits 1 with a message on failure.
 *
 * Content (fixed; tests/format/archive_pcp_oracle_test.cc states the same):
 *   host "mmvlog-golden", timezone "UTC".
 *   Metrics in domain 245 (added in this order):
 *     245.0.0 m.i32 PM_TYPE_32     245.0.4 m.flt  PM_TYPE_FLOAT
 *     245.0.1 m.u32 PM_TYPE_U32    245.0.5 m.dbl  PM_TYPE_DOUBLE
 *     245.0.2 m.i64 PM_TYPE_64     245.0.6 m.str  PM_TYPE_STRING
 *     245.0.3 m.u64 PM_TYPE_U64    245.0.7 m.inst PM_TYPE_64 over indom
 *                                  245.0 (instances 1 "a", 2 "b", 3 "c")
 *   1. 1700000000.250000, pmiPutValue + pmiWrite (PCP picks the encoding):
 *      m.i32 -5, m.u32 4000000000, m.i64 -123456789012,
 *      m.u64 18446744073709551615, m.flt 1.5, m.dbl 2.25, m.str "hello",
 *      m.inst a=10 b=-20 c=30
 *   2. 1700000001.000005, pmiPutResult (hand-built pmResult), in order:
 *      245.1.0 aggregate 01 02 03; m.i32 numval PM_ERR_VALUE;
 *      m.u32 numval 0; 245.1.1 aggregate of 0 bytes; m.str "";
 *      m.flt -0.1 (float); m.str (3 values, inst 4,5,6) "abc" "abcd" "x".
 *      (LOGIMPORT refuses AGGREGATE descriptors, so 245.1.x have none.)
 *   3. a <mark> (pmiPutMark).
 *   4. 1700000002.500000, pmiPutValue + pmiWrite: m.i64 -9223372036854775808,
 *      m.u64 0, m.flt -0.1, m.dbl 1e300, m.str "abc".
 */
#include <pcp/pmapi.h>
#include <pcp/import.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check(int rc, const char *what) {
  if (rc < 0) {
    fprintf(stderr, "logimport_writer: %s: %s\n", what, pmiErrStr(rc));
    exit(1);
  }
}

static pmValueBlock *block(int type, const void *bytes, int n) {
  pmValueBlock *b = calloc(1, PM_VAL_HDR_SIZE + n + 8);
  if (b == NULL) exit(1);
  b->vtype = type;
  b->vlen = PM_VAL_HDR_SIZE + n;
  memcpy(b->vbuf, bytes, n);
  return b;
}

static pmValueSet *dptr_set(pmID pmid, int numval) {
  pmValueSet *s = calloc(1, sizeof(pmValueSet) + numval * sizeof(pmValue));
  if (s == NULL) exit(1);
  s->pmid = pmid;
  s->numval = numval;
  s->valfmt = PM_VAL_DPTR;
  return s;
}

static pmValueSet *bare_set(pmID pmid, int numval) {
  pmValueSet *s = calloc(1, sizeof(pmValueSet));
  if (s == NULL) exit(1);
  s->pmid = pmid;
  s->numval = numval;
  return s;
}

static void free_result(pmResult *r) {
  for (int i = 0; i < r->numpmid; i++) {
    pmValueSet *s = r->vset[i];
    if (s->valfmt == PM_VAL_DPTR) {
      for (int j = 0; j < s->numval; j++) free(s->vlist[j].value.pval);
    }
    free(s);
  }
  free(r);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: logimport_writer ARCHIVE\n");
    return 2;
  }
  check(pmiStart(argv[1], 0), "pmiStart");
  check(pmiSetHostname("mmvlog-golden"), "pmiSetHostname");
  check(pmiSetTimezone("UTC"), "pmiSetTimezone");

  pmUnits none = pmiUnits(0, 0, 0, 0, 0, 0);
  static const struct {
    const char *name;
    int type;
  } metrics[] = {
      {"m.i32", PM_TYPE_32},   {"m.u32", PM_TYPE_U32},   {"m.i64", PM_TYPE_64},
      {"m.u64", PM_TYPE_U64},  {"m.flt", PM_TYPE_FLOAT}, {"m.dbl", PM_TYPE_DOUBLE},
      {"m.str", PM_TYPE_STRING},
  };
  for (int i = 0; i < 7; i++) {
    check(pmiAddMetric(metrics[i].name, pmiID(245, 0, i), metrics[i].type,
                       PM_INDOM_NULL, PM_SEM_INSTANT, none),
          metrics[i].name);
  }
  pmInDom indom = pmiInDom(245, 0);
  check(pmiAddMetric("m.inst", pmiID(245, 0, 7), PM_TYPE_64, indom,
                     PM_SEM_INSTANT, none),
        "m.inst");
  check(pmiAddInstance(indom, "a", 1), "instance a");
  check(pmiAddInstance(indom, "b", 2), "instance b");
  check(pmiAddInstance(indom, "c", 3), "instance c");

  /* 1 */
  check(pmiPutValue("m.i32", NULL, "-5"), "put 1");
  check(pmiPutValue("m.u32", NULL, "4000000000"), "put 1");
  check(pmiPutValue("m.i64", NULL, "-123456789012"), "put 1");
  check(pmiPutValue("m.u64", NULL, "18446744073709551615"), "put 1");
  check(pmiPutValue("m.flt", NULL, "1.5"), "put 1");
  check(pmiPutValue("m.dbl", NULL, "2.25"), "put 1");
  check(pmiPutValue("m.str", NULL, "hello"), "put 1");
  check(pmiPutValue("m.inst", "a", "10"), "put 1");
  check(pmiPutValue("m.inst", "b", "-20"), "put 1");
  check(pmiPutValue("m.inst", "c", "30"), "put 1");
  check(pmiWrite(1700000000, 250000), "write 1");

  /* 2 */
  enum { kSets = 7 };
  pmResult *r = calloc(1, sizeof(pmResult) + kSets * sizeof(pmValueSet *));
  if (r == NULL) return 1;
  r->timestamp.tv_sec = 1700000001;
  r->timestamp.tv_usec = 5;
  r->numpmid = kSets;
  r->vset[0] = dptr_set(pmiID(245, 1, 0), 1);
  r->vset[0]->vlist[0].inst = PM_IN_NULL;
  r->vset[0]->vlist[0].value.pval = block(PM_TYPE_AGGREGATE, "\x01\x02\x03", 3);
  r->vset[1] = bare_set(pmiID(245, 0, 0), PM_ERR_VALUE);
  r->vset[2] = bare_set(pmiID(245, 0, 1), 0);
  r->vset[3] = dptr_set(pmiID(245, 1, 1), 1);
  r->vset[3]->vlist[0].inst = PM_IN_NULL;
  r->vset[3]->vlist[0].value.pval = block(PM_TYPE_AGGREGATE, "", 0);
  r->vset[4] = dptr_set(pmiID(245, 0, 6), 1);
  r->vset[4]->vlist[0].inst = PM_IN_NULL;
  r->vset[4]->vlist[0].value.pval = block(PM_TYPE_STRING, "", 1);
  float f = -0.1f;
  r->vset[5] = dptr_set(pmiID(245, 0, 4), 1);
  r->vset[5]->vlist[0].inst = PM_IN_NULL;
  r->vset[5]->vlist[0].value.pval = block(PM_TYPE_FLOAT, &f, sizeof f);
  r->vset[6] = dptr_set(pmiID(245, 0, 6), 3);
  static const char *const strings[] = {"abc", "abcd", "x"};
  for (int i = 0; i < 3; i++) {
    r->vset[6]->vlist[i].inst = 4 + i;
    r->vset[6]->vlist[i].value.pval =
        block(PM_TYPE_STRING, strings[i], (int)strlen(strings[i]) + 1);
  }
  check(pmiPutResult(r), "pmiPutResult 2");
  free_result(r);

  /* 3 */
  check(pmiPutMark(), "pmiPutMark 3");

  /* 4 */
  check(pmiPutValue("m.i64", NULL, "-9223372036854775808"), "put 4");
  check(pmiPutValue("m.u64", NULL, "0"), "put 4");
  check(pmiPutValue("m.flt", NULL, "-0.1"), "put 4");
  check(pmiPutValue("m.dbl", NULL, "1e300"), "put 4");
  check(pmiPutValue("m.str", NULL, "abc"), "put 4");
  check(pmiWrite(1700000002, 500000), "write 4");

  check(pmiEnd(), "pmiEnd");
  return 0;
}
