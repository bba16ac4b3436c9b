/*
 * harness_selftest.c — the test harness (harness.h) itself: a test program whose
 * checks never ran must fail.  With no argument it runs no check and returns
 * test_summary(), which must print "FAIL: no check ran", "0 passed, 1 failed" and
 * give exit status 1 (ctest harness_no_check); with "one" it runs one passing check
 * and must pass (ctest harness_one_check).
 */
#include "harness.h"

#include <string.h>

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "one") == 0) CHECK_EQ_INT(1 + 1, 2);
    return test_summary();
}
