/* Reads a PCP archive with PCP 7.2's libpcp and prints, as one JSON object,
 * everything it reports: what tests/pcp/pcp_oracle.py's read_with_libpcp
 * gets from libpcp 6.0.3 through python3-pcp (PCP 7.2 is built without
 * python), in the same shape, so the same checks apply to both versions.
 *
 * usage: pcp7_archive_reader ARCHIVE
 * Compiled at test time against PCP 7.2's headers and libraries
 * (tests/pcp/pcp7.py compile_c); PCP 7.2's API: pmResult and pmLogLabel
 * carry struct timespec, the _v2 calls the older struct timeval.
 *
 * Output: {"label": {...}, "end": [s, ns], "descs": {name: {...}},
 *  "labels": {"context": [...], "domain": {dom: [...]}, "cluster": {ident:
 *  [...]}, "item": {pmid: [...]}, "indom": {indom: [...]}, "instances":
 *  {indom: [...]}}, "results": [...], "fetch_end": code, "results_usec":
 *  [[s, us, numpmid], ...], "fetch_end_usec": code}. Strings and help text
 *  are hex (bytes, not text); floats use %.17g (a float widened to double),
 *  NaN and the infinities as python's json spells them.
 */
#include <pcp/pmapi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXNAMES 4096

static char *names[MAXNAMES];
static int nnames;
static pmDesc *descs;

static void hex(const char *p, size_t n) {
  putchar('"');
  for (size_t i = 0; i < n; i++) printf("%02x", (unsigned char)p[i]);
  putchar('"');
}

static void str(const char *s) {
  putchar('"');
  for (; s && *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') printf("\\%c", c);
    else if (c < 0x20 || c >= 0x7f) printf("\\u%04x", c);
    else putchar(c);
  }
  putchar('"');
}

static void collect(const char *name) {
  if (strcmp(name, "event.flags") == 0 || strcmp(name, "event.missed") == 0) return;
  if (nnames < MAXNAMES) names[nnames++] = strdup(name);
}

static void label_sets(int n, pmLabelSet *sets) {
  printf("[");
  for (int i = 0; i < n; i++) {
    pmLabelSet *s = &sets[i];
    printf("%s{\"inst\":%d,\"json\":", i ? "," : "", s->inst == PM_IN_NULL ? -1 : (int)s->inst);
    str(s->json ? s->json : "");
    printf(",\"labels\":{");
    for (int j = 0; j < s->nlabels; j++) {
      pmLabel *l = &s->labels[j];
      printf("%s\"%.*s\":%.*s", j ? "," : "", l->namelen, s->json + l->name, l->valuelen,
             s->json + l->value);
    }
    printf("},\"flags\":{");
    for (int j = 0; j < s->nlabels; j++) {
      pmLabel *l = &s->labels[j];
      printf("%s\"%.*s\":%d", j ? "," : "", l->namelen, s->json + l->name, l->flags & 0xff);
    }
    printf("}}");
  }
  printf("]");
  if (n > 0) pmFreeLabelSets(sets, n);
}

typedef int (*label_fn)(unsigned int, pmLabelSet **);

static void labels_of(label_fn fn, unsigned int ident) {
  pmLabelSet *sets = NULL;
  int n = fn(ident, &sets);
  if (n < 0) {
    printf("{\"error\":%d}", n);
    return;
  }
  label_sets(n, sets);
}

/* A double as python's json reads it (NaN and the infinities too). */
static void real(double d) {
  if (isnan(d)) printf("NaN");
  else if (isinf(d)) printf(d > 0 ? "Infinity" : "-Infinity");
  else printf("%.17g", d);
}

static void value(int valfmt, const pmValue *v, int type) {
  pmAtomValue a;
  if (valfmt != PM_VAL_INSITU) {
    const pmValueBlock *vb = v->value.pval;
    printf("\"raw\":[%d,%d,", vb->vtype, vb->vlen);
    hex(vb->vbuf, vb->vlen - PM_VAL_HDR_SIZE);
    printf("],");
  } else {
    printf("\"raw\":null,");
  }
  if (type == PM_TYPE_STRING) {
    const pmValueBlock *vb = v->value.pval;
    size_t n = vb->vlen - PM_VAL_HDR_SIZE;
    if (n > 0 && vb->vbuf[n - 1] == '\0') n--;
    printf("\"value\":");
    hex(vb->vbuf, n);
    return;
  }
  int sts = pmExtractValue(valfmt, v, type, &a, type);
  if (sts < 0) {
    printf("\"value\":null,\"extract_error\":%d", sts);
    return;
  }
  printf("\"value\":");
  switch (type) {
    case PM_TYPE_32: printf("%d", a.l); break;
    case PM_TYPE_U32: printf("%u", a.ul); break;
    case PM_TYPE_64: printf("%lld", (long long)a.ll); break;
    case PM_TYPE_U64: printf("%llu", (unsigned long long)a.ull); break;
    case PM_TYPE_FLOAT: real((double)a.f); break;
    case PM_TYPE_DOUBLE: real(a.d); break;
    default: printf("null"); break;
  }
}

/* Every label set libpcp reports at the context's current time. */
static void print_labels(void) {
  printf("{\"context\":");
  {
    pmLabelSet *sets = NULL;
    int n = pmGetContextLabels(&sets);
    if (n < 0) printf("{\"error\":%d}", n);
    else label_sets(n, sets);
  }
  printf(",\"domain\":{");
  int done[512] = {0}, first = 1;
  for (int i = 0; i < nnames; i++) {
    int dom = pmID_domain(descs[i].pmid);
    if (done[dom]++) continue;
    printf("%s\"%d\":", first ? "" : ",", dom);
    first = 0;
    labels_of((label_fn)pmGetDomainLabels, dom);
  }
  printf("},\"cluster\":{");
  for (int i = 0; i < nnames; i++) {
    unsigned int ident = descs[i].pmid & ~0x3ffu;
    printf("%s\"%u\":", i ? "," : "", ident);
    labels_of((label_fn)pmGetClusterLabels, ident);
  }
  printf("},\"item\":{");
  for (int i = 0; i < nnames; i++) {
    printf("%s\"%u\":", i ? "," : "", descs[i].pmid);
    labels_of((label_fn)pmGetItemLabels, descs[i].pmid);
  }
  for (int kind = 0; kind < 2; kind++) {
    printf("},\"%s\":{", kind ? "instances" : "indom");
    first = 1;
    for (int i = 0; i < nnames; i++) {
      if (descs[i].indom == PM_INDOM_NULL) continue;
      int seen = 0;
      for (int k = 0; k < i; k++) seen |= descs[k].indom == descs[i].indom;
      if (seen) continue;
      printf("%s\"%u\":", first ? "" : ",", descs[i].indom);
      first = 0;
      labels_of(kind ? (label_fn)pmGetInstancesLabels : (label_fn)pmGetInDomLabels,
                descs[i].indom);
    }
  }
  printf("}}");

}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: pcp7_archive_reader ARCHIVE\n");
    return 2;
  }
  int ctx = pmNewContext(PM_CONTEXT_ARCHIVE, argv[1]);
  if (ctx < 0) {
    fprintf(stderr, "pmNewContext(%s): %s\n", argv[1], pmErrStr(ctx));
    return 1;
  }
  pmLogLabel ll;
  pmLogLabel_v2 ll2;
  struct timespec end;
  int sts;
  if ((sts = pmGetArchiveLabel(&ll)) < 0 || (sts = pmGetArchiveLabel_v2(&ll2)) < 0 ||
      (sts = pmGetArchiveEnd(&end)) < 0) {
    fprintf(stderr, "label: %s\n", pmErrStr(sts));
    return 1;
  }
  printf("{\"label\":{\"magic\":%u,\"version\":%d,\"pid\":%d,\"start\":[%lld,%ld],"
         "\"start_usec\":[%lld,%ld],\"hostname\":",
         (unsigned)ll.magic, ll.magic & 0xff, (int)ll.pid, (long long)ll.start.tv_sec,
         ll.start.tv_nsec, (long long)ll2.ll_start.tv_sec, (long)ll2.ll_start.tv_usec);
  str(ll.hostname);
  printf(",\"timezone\":");
  str(ll.timezone);
  printf(",\"zoneinfo\":");
  str(ll.zoneinfo);
  printf(",\"v2_hostname\":");
  str(ll2.ll_hostname);
  printf(",\"v2_timezone\":");
  str(ll2.ll_tz);
  printf("},\"end\":[%lld,%ld]", (long long)end.tv_sec, end.tv_nsec);

  pmTraversePMNS("", collect);
  pmID *pmids = calloc(nnames ? nnames : 1, sizeof(pmID));
  descs = calloc(nnames ? nnames : 1, sizeof(pmDesc));
  printf(",\"descs\":{");
  for (int i = 0; i < nnames; i++) {
    char *name = names[i];
    if ((sts = pmLookupName(1, (const char **)&name, &pmids[i])) < 0 ||
        (sts = pmLookupDesc(pmids[i], &descs[i])) < 0) {
      fprintf(stderr, "%s: %s\n", name, pmErrStr(sts));
      return 1;
    }
    pmDesc *d = &descs[i];
    char ubuf[64], *nm = NULL, **all = NULL, *text = NULL;
    printf("%s", i ? "," : "");
    str(name);
    printf(":{\"pmid\":%u,\"name\":", d->pmid);
    str(name);
    printf(",\"type\":%d,\"sem\":%d,\"indom\":%u,\"units\":", d->type, d->sem, d->indom);
    str(pmUnitsStr_r(&d->units, ubuf, sizeof(ubuf)));
    printf(",\"units_word\":");
    unsigned int w;
    memcpy(&w, &d->units, sizeof(w));
    printf("%u,\"name_of_pmid\":", w);
    if (pmNameID(d->pmid, &nm) >= 0) {
      str(nm);
      free(nm);
    } else {
      printf("null");
    }
    int nall = pmNameAll(d->pmid, &all);
    printf(",\"all_names\":[");
    for (int k = 0; k < nall; k++) {
      printf("%s", k ? "," : "");
      str(all[k]);
    }
    if (nall > 0) free(all);
    printf("],\"texts\":{");
    int first = 1;
    for (int kind = PM_TEXT_ONELINE; kind <= PM_TEXT_HELP; kind++) {
      if (pmLookupText(d->pmid, kind, &text) >= 0) {
        printf("%s\"%d\":", first ? "" : ",", kind);
        hex(text, strlen(text));
        free(text);
        first = 0;
      }
    }
    printf("}");
    if (d->indom != PM_INDOM_NULL) {
      printf(",\"indom_texts\":{");
      first = 1;
      for (int kind = PM_TEXT_ONELINE; kind <= PM_TEXT_HELP; kind++) {
        if (pmLookupInDomText(d->indom, kind, &text) >= 0) {
          printf("%s\"%d\":", first ? "" : ",", kind);
          hex(text, strlen(text));
          free(text);
          first = 0;
        }
      }
      printf("},\"indom_all\":");
      int *insts = NULL;
      char **inames = NULL;
      int n = pmGetInDomArchive(d->indom, &insts, &inames);
      if (n < 0) {
        printf("{\"error\":%d}", n);
      } else {
        printf("[");
        for (int k = 0; k < n; k++) {
          printf("%s[%d,", k ? "," : "", insts[k]);
          str(inames[k]);
          printf("]");
        }
        printf("]");
        if (n > 0) {
          free(insts);
          free(inames);
        }
      }
    }
    printf("}");
  }
  printf("}");

  /* Label sets at the archive's start (the context is positioned there),
   * and at its end (after the last record: pmlogger stamps its labels at
   * the first sample, after the archive's start). */
  printf(",\"labels\":");
  print_labels();
  printf(",\"results\":[");
  pmResult *r;
  int nres = 0;
  while ((sts = pmFetchArchive(&r)) >= 0) {
    printf("%s{\"t\":[%lld,%ld],\"numpmid\":%d,\"sets\":[", nres++ ? "," : "",
           (long long)r->timestamp.tv_sec, r->timestamp.tv_nsec, r->numpmid);
    for (int i = 0; i < r->numpmid; i++) {
      pmValueSet *vs = r->vset[i];
      printf("%s{\"pmid\":%u,\"numval\":%d,\"valfmt\":%d", i ? "," : "", vs->pmid, vs->numval,
             vs->valfmt);
      if (vs->numval < 0) {
        printf(",\"error\":%d}", vs->numval);
        continue;
      }
      const pmDesc *d = NULL;
      for (int k = 0; k < nnames; k++)
        if (descs[k].pmid == vs->pmid) d = &descs[k];
      printf(",\"values\":[");
      for (int j = 0; j < vs->numval; j++) {
        printf("%s{\"inst\":%d,", j ? "," : "", vs->vlist[j].inst);
        if (d == NULL) {
          printf("\"value\":null,\"raw\":null,\"name\":null}");
          continue;
        }
        value(vs->valfmt, &vs->vlist[j], d->type);
        printf(",\"name\":");
        if (d->indom == PM_INDOM_NULL) {
          printf("null");
        } else {
          char *iname = NULL;
          int e = pmNameInDomArchive(d->indom, vs->vlist[j].inst, &iname);
          if (e < 0) {
            printf("[\"error\",%d]", e);
          } else {
            str(iname);
            free(iname);
          }
        }
        printf("}");
      }
      printf("]}");
    }
    printf("],\"indoms\":{");
    int first = 1;
    for (int i = 0; i < nnames; i++) {
      if (descs[i].indom == PM_INDOM_NULL) continue;
      int seen = 0;
      for (int k = 0; k < i; k++) seen |= descs[k].indom == descs[i].indom;
      if (seen) continue;
      printf("%s\"%u\":", first ? "" : ",", descs[i].indom);
      first = 0;
      int *insts = NULL;
      char **inames = NULL;
      int n = pmGetInDom(descs[i].indom, &insts, &inames);
      if (n < 0) {
        printf("[\"error\",%d]", n);
        continue;
      }
      printf("[");
      for (int k = 0; k < n; k++) {
        printf("%s[%d,", k ? "," : "", insts[k]);
        str(inames[k]);
        printf("]");
      }
      printf("]");
      if (n > 0) {
        free(insts);
        free(inames);
      }
    }
    printf("}}");
    pmFreeResult(r);
  }
  printf("],\"fetch_end\":%d,\"labels_end\":", sts);
  print_labels();

  /* A second pass with the struct timeval API. */
  pmDestroyContext(ctx);
  if ((ctx = pmNewContext(PM_CONTEXT_ARCHIVE, argv[1])) < 0) {
    fprintf(stderr, "pmNewContext(%s): %s\n", argv[1], pmErrStr(ctx));
    return 1;
  }
  printf(",\"results_usec\":[");
  pmResult_v2 *r2;
  nres = 0;
  while ((sts = pmFetchArchive_v2(&r2)) >= 0) {
    printf("%s[%lld,%ld,%d]", nres++ ? "," : "", (long long)r2->timestamp.tv_sec,
           (long)r2->timestamp.tv_usec, r2->numpmid);
    pmFreeResult_v2(r2);
  }
  printf("],\"fetch_end_usec\":%d}\n", sts);
  return 0;
}
