/* Builds label sets with libpcp's own __pmAddLabels, as pmdammv does for
 * the labels of one identifier (one call per MMV label payload, in file
 * order, into a set that starts empty; a payload libpcp refuses is left
 * out and the next one still added), and prints each set as an archive
 * records it. For tests/pcp:label_json_oracle_test, which runs it built
 * against PCP 7.2 (pcp7.compile_c) and compares with mmvlog's
 * format::MakeLabelSet and format::MergeLabelSets (tests/pcp/label_set_tool).
 *
 * Input, one set per line: FLAGS<TAB>JSON[<TAB>JSON...] (FLAGS decimal, the
 * PM_LABEL_* type and optional bits of every payload on the line).
 * Output, one line per input line:
 *   "refused" when every payload was refused, else
 *   JSON<TAB>name,namelen,flags,value,valuelen;... (one per label)
 */
#include <pcp/pmapi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int __pmAddLabels(pmLabelSet **, const char *, int);

int main(void) {
  static char line[1 << 20];
  while (fgets(line, sizeof(line), stdin) != NULL) {
    size_t n = strlen(line);
    if (n > 0 && line[n - 1] == '\n') line[--n] = '\0';
    char *save = NULL;
    char *field = strtok_r(line, "\t", &save);
    if (field == NULL) continue;
    int flags = atoi(field);
    pmLabelSet *set = NULL;
    int added = 0;
    while ((field = strtok_r(NULL, "\t", &save)) != NULL) {
      if (__pmAddLabels(&set, field, flags) >= 0) added++;
    }
    if (!added || set == NULL) {
      printf("refused\n");
    } else {
      printf("%.*s\t", set->jsonlen, set->json ? set->json : "");
      for (int i = 0; i < set->nlabels; i++) {
        const pmLabel *l = &set->labels[i];
        printf("%s%u,%u,%u,%u,%u", i ? ";" : "", (unsigned)l->name, (unsigned)l->namelen,
               (unsigned)l->flags, (unsigned)l->value, (unsigned)l->valuelen);
      }
      printf("\n");
    }
    if (set != NULL) pmFreeLabelSets(set, 1);
    fflush(stdout);
  }
  return 0;
}
