"""Compiler flags shared by every mmvlog target (Abseil's ABSL_DEFAULT_COPTS pattern)."""

MMVLOG_COPTS = [
    "-Wall",
    "-Wextra",
    "-Werror=unused-result",
    "-Werror=return-type",
]

MMVLOG_TEST_COPTS = MMVLOG_COPTS + ["-Wno-sign-compare"]
