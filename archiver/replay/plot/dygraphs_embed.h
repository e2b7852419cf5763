// dygraphs 2.x (Debian's libjs-dygraphs, MIT licence), carried inside the
// binary so that the pages replay --html writes need no network and no
// package at run time. Generated at build time by bazel/embed_file.
#ifndef MMVLOG_ARCHIVER_REPLAY_PLOT_DYGRAPHS_EMBED_H_
#define MMVLOG_ARCHIVER_REPLAY_PLOT_DYGRAPHS_EMBED_H_

#include <cstddef>

namespace mmvlog::archiver {

extern const char kDygraphsJs[];  // dygraph.min.js, NUL-terminated
extern const size_t kDygraphsJsSize;
extern const char kDygraphsCss[];  // dygraph.min.css
extern const size_t kDygraphsCssSize;

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_REPLAY_PLOT_DYGRAPHS_EMBED_H_
