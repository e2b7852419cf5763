/*
 * derive_fetch ARCHIVE CONFIG INTERVAL NAME...: libpcp's values of derived
 * metrics (the oracle of tests/pcp/derive_values_test.py). Loads CONFIG
 * with pmLoadDerivedConfig, opens ARCHIVE, and fetches NAMEs at every
 * record (INTERVAL 0: PM_MODE_FORW) or on a grid from the archive's start
 * (PM_MODE_INTERP, INTERVAL seconds) to its end, printing one line per
 * value:
 *   SECONDS.NANOSECONDS <tab> NAME <tab> INSTANCE ("" singular) <tab> %.17g
 * and "SECONDS.NANOSECONDS <tab> -" for each fetch. A name libpcp cannot
 * resolve is reported on stderr and left out.
 */
#include <pcp/pmapi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
main(int argc, char **argv)
{
    int		sts, n = 0, i, j, k;
    pmID	pmids[1024];
    pmDesc	descs[1024];
    char	*names[1024];
    pmLogLabel	label;
    pmResult	*rp;
    double	interval;

    if (argc < 5) {
	fprintf(stderr, "usage: derive_fetch ARCHIVE CONFIG INTERVAL NAME...\n");
	return 2;
    }
    if ((sts = pmLoadDerivedConfig(argv[2])) < 0) {
	fprintf(stderr, "pmLoadDerivedConfig: %s\n", pmErrStr(sts));
	return 1;
    }
    if ((sts = pmNewContext(PM_CONTEXT_ARCHIVE, argv[1])) < 0) {
	fprintf(stderr, "pmNewContext: %s\n", pmErrStr(sts));
	return 1;
    }
    interval = atof(argv[3]);
    for (i = 4; i < argc && n < 1024; i++) {
	pmID	id;
	char	*name = argv[i];
	if ((sts = pmLookupName(1, (const char **)&name, &id)) < 0 ||
	    (sts = pmLookupDesc(id, &descs[n])) < 0) {
	    fprintf(stderr, "%s: %s\n", name, pmErrStr(sts));
	    continue;
	}
	pmids[n] = id;
	names[n] = name;
	n++;
    }
    if (n == 0)
	return 1;
    pmGetArchiveLabel(&label);
    if (interval > 0) {
	struct timespec delta;
	delta.tv_sec = (time_t)interval;
	delta.tv_nsec = (long)((interval - delta.tv_sec) * 1e9 + 0.5);
	sts = pmSetMode(PM_MODE_INTERP, &label.start, &delta);
    }
    else
	sts = pmSetMode(PM_MODE_FORW, &label.start, NULL);
    if (sts < 0) {
	fprintf(stderr, "pmSetMode: %s\n", pmErrStr(sts));
	return 1;
    }
    for (k = 0; k < 100000; k++) {
	if ((sts = pmFetch(n, pmids, &rp)) < 0)
	    break;
	printf("%lld.%09ld\t-\n", (long long)rp->timestamp.tv_sec, (long)rp->timestamp.tv_nsec);
	for (i = 0; i < rp->numpmid; i++) {
	    pmValueSet	*vs = rp->vset[i];
	    for (j = 0; j < vs->numval; j++) {
		pmAtomValue	a;
		char		*inst = NULL;
		if (pmExtractValue(vs->valfmt, &vs->vlist[j], descs[i].type, &a, PM_TYPE_DOUBLE) < 0)
		    continue;
		/* the name from any time of the archive, as replay names its
		 * columns (pmNameInDom knows only the current time's) */
		if (descs[i].indom != PM_INDOM_NULL)
		    pmNameInDomArchive(descs[i].indom, vs->vlist[j].inst, &inst);
		printf("%lld.%09ld\t%s\t%s\t%.17g\n", (long long)rp->timestamp.tv_sec,
		       (long)rp->timestamp.tv_nsec, names[i], inst ? inst : "", a.d);
		free(inst);
	    }
	}
	pmFreeResult(rp);
    }
    return 0;
}
