#include "archiver/store/retention.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <map>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace mmvlog::archiver {

std::vector<std::string> ArchivesToDelete(std::vector<ArchiveOnDisk> archives,
                                          const RetentionPolicy& policy, absl::Time now,
                                          const std::string& keep) {
  std::sort(archives.begin(), archives.end(),
            [](const ArchiveOnDisk& a, const ArchiveOnDisk& b) { return a.newest < b.newest; });
  uint64_t total = 0;
  for (const ArchiveOnDisk& a : archives) total += a.bytes;
  std::vector<std::string> out;
  for (const ArchiveOnDisk& a : archives) {
    if (a.base == keep) continue;
    const bool too_old = now - a.newest > policy.max_age;
    const bool too_big = policy.max_total_bytes > 0 && total > policy.max_total_bytes;
    if (!too_old && !too_big) continue;
    out.push_back(a.base);
    total -= a.bytes;
  }
  return out;
}

absl::Status ApplyRetention(const std::string& dir, const RetentionPolicy& policy,
                            absl::Time now, const std::string& keep, const LogFunction& log) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return absl::ErrnoToStatus(errno, absl::StrCat("open directory ", dir));
  std::map<std::string, ArchiveOnDisk> by_base;
  std::vector<std::pair<std::string, std::string>> files;  // (base, path)
  std::vector<std::string> names;
  while (struct dirent* e = ::readdir(d)) names.push_back(e->d_name);
  ::closedir(d);
  for (const std::string& n : names) {
    if (absl::EndsWith(n, ".meta")) {
      const std::string base = absl::StrCat(dir, "/", n.substr(0, n.size() - 5));
      by_base[base].base = base;
    }
  }
  for (const std::string& n : names) {
    // A file is the archive's with the longest matching stem: "app.old.0" is
    // app.old's, not app's.
    ArchiveOnDisk* owner = nullptr;
    size_t owner_stem = 0;
    for (auto& [base, a] : by_base) {
      const std::string stem = base.substr(dir.size() + 1);
      if (!absl::StartsWith(n, stem + ".")) continue;
      if (owner != nullptr && stem.size() <= owner_stem) continue;
      owner = &a;
      owner_stem = stem.size();
    }
    if (owner == nullptr) continue;
    const std::string path = absl::StrCat(dir, "/", n);
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) continue;
    owner->bytes += static_cast<uint64_t>(st.st_size);
    owner->newest = std::max(owner->newest, absl::FromTimeT(st.st_mtime));
    files.push_back({owner->base, path});
  }
  std::vector<ArchiveOnDisk> list;
  for (auto& [base, a] : by_base) list.push_back(a);
  for (const std::string& base : ArchivesToDelete(list, policy, now, keep)) {
    for (const auto& [b, path] : files) {
      if (b == base) ::unlink(path.c_str());
    }
    log(LogLevel::kInfo, absl::StrCat("retention: deleted archive ", base));
  }
  return absl::OkStatus();
}

}  // namespace mmvlog::archiver
