#include "archiver/replay/archive_set.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <memory>

#include "absl/strings/str_cat.h"
#include "archiver/store/archive_reader.h"

namespace mmvlog::archiver {

std::vector<std::string> ExpandArchiveNames(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const std::string& n : names) {
    struct stat st;
    if (::stat(n.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      out.push_back(n);
      continue;
    }
    std::vector<std::string> found;
    if (DIR* d = ::opendir(n.c_str())) {
      while (struct dirent* e = ::readdir(d)) {
        const std::string base = MetaFileBase(e->d_name);
        if (!base.empty()) found.push_back(absl::StrCat(n, "/", base));
      }
      ::closedir(d);
    }
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

absl::StatusOr<ArchiveSet> ArchiveSet::Open(const std::vector<std::string>& names) {
  ArchiveSet set;
  for (const std::string& n : ExpandArchiveNames(names)) {
    absl::StatusOr<std::shared_ptr<const ArchiveCatalog>> c = ArchiveReader::ReadCatalog(n);
    if (!c.ok()) {
      set.problems_.push_back(absl::StrCat(n, ": skipped: ", c.status().message()));
      continue;
    }
    set.archives_.push_back({n, (*c)->label, *std::move(c)});
  }
  std::stable_sort(set.archives_.begin(), set.archives_.end(),
                   [](const ArchiveEntry& a, const ArchiveEntry& b) {
                     return a.label.start < b.label.start;
                   });
  if (set.archives_.empty()) {
    return absl::NotFoundError(set.problems_.empty()
                                   ? std::string("no archive found")
                                   : absl::StrCat("no readable archive: ", set.problems_[0]));
  }
  return set;
}

std::optional<format::Timestamp> ArchiveSet::ReadEnd() const {
  // From the last index entry on (pmlogger writes one before its last
  // record or two); an entry at the very end (LOGIMPORT writes one) holds
  // nothing after it, so back 2, 4, ... entries, then the whole archive.
  for (size_t back = 1;; back *= 2) {
    std::unique_ptr<ArchiveReader> r = ArchiveReader::Over(archives_.back().catalog);
    const size_t entries = r->index().size();
    if (back <= entries) r->StartAt(r->index()[entries - back]);
    std::optional<format::Timestamp> last;
    format::DecodedResult result;
    for (;;) {
      absl::StatusOr<bool> more = r->NextInto(&result);
      if (!more.ok() || !*more) break;
      last = result.timestamp;
    }
    if (last || back > entries) return last;
  }
}

}  // namespace mmvlog::archiver
