/*
 * Writes a small archive with real PCP's LOGIMPORT (libpcp_import), for
 * tests/pcp/archive_meta_oracle_test.cc to read its .meta back.
 *
 * usage: pcp_meta_writer VERSION BASE     (VERSION 2 or 3, via pmiSetVersion)
 *
 * Content (the test states the same values):
 *   metrics  oracle.u64   245.0.1 U64    PM_INDOM_NULL counter  Kbyte / sec
 *            oracle.multi 245.1.2 DOUBLE 245.1         instant  count x 10^3
 *            oracle.str   245.1.3 STRING 245.2         discrete none
 *            oracle.i32   245.2.4 32     PM_INDOM_NULL instant  millisec
 *   indom 245.1: {0 red, 1 "green one"}, then + 2 blue, then + 3 "cyan one"
 *   indom 245.2: {10 a, 11 b}
 *   labels: context, domain 245, indom 245.1, cluster 245.1, item 245.0.1,
 *           instances 245.1 [0] and [1]; item 245.1.2 at the second write
 *   text:   one line and help for 245.0.1, one line for indom 245.1, help
 *           for indom 245.2
 *   results at 1700000000.250000, 1700000001.000000, 1700000002.500000
 */
#include <pcp/pmapi.h>
#include <pcp/import.h>
#include <stdio.h>
#include <stdlib.h>

static void
check(int sts, const char *what)
{
    if (sts < 0) {
	fprintf(stderr, "pcp_meta_writer: %s: %s\n", what, pmiErrStr(sts));
	exit(1);
    }
}

int
main(int argc, char **argv)
{
    pmInDom	colours = pmInDom_build(245, 1);
    pmInDom	letters = pmInDom_build(245, 2);
    pmID	u64 = pmID_build(245, 0, 1);
    pmID	multi = pmID_build(245, 1, 2);
    pmID	str = pmID_build(245, 1, 3);
    pmID	i32 = pmID_build(245, 2, 4);

    if (argc != 3) {
	fprintf(stderr, "usage: %s VERSION BASE\n", argv[0]);
	return 2;
    }
    check(pmiStart(argv[2], 0), "pmiStart");
    check(pmiSetVersion(atoi(argv[1])), "pmiSetVersion");
    check(pmiSetHostname("oracle.example"), "pmiSetHostname");
    check(pmiSetTimezone("UTC"), "pmiSetTimezone");

    check(pmiAddMetric("oracle.u64", u64, PM_TYPE_U64, PM_INDOM_NULL,
		PM_SEM_COUNTER, pmiUnits(1, -1, 0, PM_SPACE_KBYTE, PM_TIME_SEC, 0)),
	    "u64");
    check(pmiAddMetric("oracle.multi", multi, PM_TYPE_DOUBLE, colours,
		PM_SEM_INSTANT, pmiUnits(0, 0, 1, 0, 0, 3)), "multi");
    check(pmiAddMetric("oracle.str", str, PM_TYPE_STRING, letters,
		PM_SEM_DISCRETE, pmiUnits(0, 0, 0, 0, 0, 0)), "str");
    check(pmiAddMetric("oracle.i32", i32, PM_TYPE_32, PM_INDOM_NULL,
		PM_SEM_INSTANT, pmiUnits(0, 1, 0, 0, PM_TIME_MSEC, 0)), "i32");
    check(pmiAddInstance(colours, "red", 0), "red");
    check(pmiAddInstance(colours, "green one", 1), "green");
    check(pmiAddInstance(letters, "a", 10), "a");
    check(pmiAddInstance(letters, "b", 11), "b");

    /* LOGIMPORT quotes every value except true, false and null. */
    check(pmiPutLabel(PM_LABEL_CONTEXT, 0, 0, "hostname", "oracle.example"), "l1");
    check(pmiPutLabel(PM_LABEL_CONTEXT, 0, 0, "abc", "42"), "l2");
    check(pmiPutLabel(PM_LABEL_DOMAIN, 245, 0, "agent", "mmv"), "l3");
    check(pmiPutLabel(PM_LABEL_INDOM, colours, 0, "model", "RGB"), "l4");
    check(pmiPutLabel(PM_LABEL_CLUSTER, pmID_build(245, 1, 0), 0, "cl", "true"), "l5");
    check(pmiPutLabel(PM_LABEL_ITEM, u64, 0, "units", "bytes"), "l6");
    check(pmiPutLabel(PM_LABEL_INSTANCES, colours, 0, "colour", "red"), "l7");
    check(pmiPutLabel(PM_LABEL_INSTANCES, colours, 1, "colour", "green"), "l8");
    check(pmiPutLabel(PM_LABEL_INSTANCES, colours, 1, "b", "null"), "l9");
    check(pmiPutText(PM_TEXT_PMID, PM_TEXT_ONELINE, u64, "one line"), "t1");
    check(pmiPutText(PM_TEXT_PMID, PM_TEXT_HELP, u64, "long help\nsecond line"), "t2");
    check(pmiPutText(PM_TEXT_INDOM, PM_TEXT_ONELINE, colours, "colours"), "t3");
    check(pmiPutText(PM_TEXT_INDOM, PM_TEXT_HELP, letters, "letters\n\tindented"), "t4");

    check(pmiPutValue("oracle.u64", "", "5"), "v1");
    check(pmiPutValue("oracle.multi", "red", "1.5"), "v2");
    check(pmiPutValue("oracle.str", "a", "hello"), "v3");
    check(pmiPutValue("oracle.i32", "", "-7"), "v4");
    check(pmiWrite(1700000000, 250000), "write 1");

    check(pmiAddInstance(colours, "blue", 2), "blue");
    check(pmiPutLabel(PM_LABEL_ITEM, multi, 0, "later", "yes"), "l10");
    check(pmiPutValue("oracle.multi", "blue", "2.5"), "v5");
    check(pmiWrite(1700000001, 0), "write 2");

    check(pmiAddInstance(colours, "cyan one", 3), "cyan");
    check(pmiPutValue("oracle.multi", "cyan one", "3.5"), "v6");
    check(pmiWrite(1700000002, 500000), "write 3");

    check(pmiEnd(), "pmiEnd");
    return 0;
}
