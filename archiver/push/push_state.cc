#include "archiver/push/push_state.h"

#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "archiver/file/posix_file.h"

namespace mmvlog::archiver {
namespace {

constexpr absl::string_view kMagic = "mmvlog-push 1";

template <typename T>
bool Num(absl::string_view s, T* out) {
  return absl::SimpleAtoi(s, out);
}

}  // namespace

std::string EncodePushState(const PushState& s) {
  std::string out = absl::StrCat(kMagic, "\n");
  absl::StrAppend(&out, "archive ", s.archive, "\n", "server ", s.server, "\n");
  absl::StrAppend(&out, "logid ", s.logid, "\nclean ", s.clean ? 1 : 0, "\n");
  absl::StrAppend(&out, "meta ", s.meta, "\nindex ", s.index, "\nvolume ", s.volume, " ", s.data,
                  "\nremote ", s.remote_data, "\n");
  absl::StrAppend(&out, "gap ", s.gap ? 1 : 0, " ", s.gap_from.sec, " ", s.gap_from.nsec, " ",
                  s.gap_records, " ", s.gap_bytes, "\n");
  for (const RemoteMap::Segment& g : s.map.segments()) {
    absl::StrAppend(&out, "segment ", g.volume, " ", g.local, " ", g.remote, " ",
                    g.dropped ? 1 : 0, "\n");
  }
  absl::StrAppend(&out, "totals ", s.records, " ", s.bytes, " ", s.dropped_records, " ",
                  s.dropped_bytes, " ", s.remote_archives, "\n");
  return out;
}

absl::StatusOr<PushState> DecodePushState(absl::string_view text) {
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n', absl::SkipEmpty());
  if (lines.empty() || lines[0] != kMagic) {
    return absl::InvalidArgumentError(absl::StrCat("line 1: not \"", kMagic, "\""));
  }
  PushState s;
  std::vector<RemoteMap::Segment> segments;
  for (size_t i = 1; i < lines.size(); ++i) {
    const absl::string_view line = lines[i];
    const size_t sp = line.find(' ');
    const absl::string_view key = line.substr(0, sp);
    const absl::string_view rest = sp == absl::string_view::npos ? "" : line.substr(sp + 1);
    std::vector<absl::string_view> f = absl::StrSplit(rest, ' ');
    bool ok = true;
    int flag = 0;
    if (key == "archive") {
      s.archive = std::string(rest);
    } else if (key == "server") {
      s.server = std::string(rest);
    } else if (key == "logid") {
      ok = Num(rest, &s.logid);
    } else if (key == "clean") {
      ok = Num(rest, &flag);
      s.clean = flag != 0;
    } else if (key == "meta") {
      ok = Num(rest, &s.meta);
    } else if (key == "index") {
      ok = Num(rest, &s.index);
    } else if (key == "volume") {
      ok = f.size() == 2 && Num(f[0], &s.volume) && Num(f[1], &s.data) && s.volume >= 0;
    } else if (key == "remote") {
      ok = Num(rest, &s.remote_data);
    } else if (key == "gap") {
      ok = f.size() == 5 && Num(f[0], &flag) && Num(f[1], &s.gap_from.sec) &&
           Num(f[2], &s.gap_from.nsec) && Num(f[3], &s.gap_records) && Num(f[4], &s.gap_bytes) &&
           s.gap_from.nsec < 1'000'000'000;
      s.gap = flag != 0;
    } else if (key == "segment") {
      RemoteMap::Segment g;
      ok = f.size() == 4 && Num(f[0], &g.volume) && Num(f[1], &g.local) && Num(f[2], &g.remote) &&
           Num(f[3], &flag);
      g.dropped = flag != 0;
      segments.push_back(g);
    } else if (key == "totals") {
      ok = f.size() == 5 && Num(f[0], &s.records) && Num(f[1], &s.bytes) &&
           Num(f[2], &s.dropped_records) && Num(f[3], &s.dropped_bytes) &&
           Num(f[4], &s.remote_archives);
    } else {
      ok = false;
    }
    if (!ok) {
      return absl::InvalidArgumentError(
          absl::StrCat("line ", i + 1, ": not understood: \"", line.substr(0, 80), "\""));
    }
  }
  if (s.archive.empty()) return absl::InvalidArgumentError("no archive line");
  s.map.Restore(std::move(segments));
  return s;
}

absl::Status SavePushState(const std::string& path, const PushState& s) {
  const std::string text = EncodePushState(s);
  return WriteFileAtomically(
      path, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

absl::StatusOr<PushState> LoadPushState(const std::string& path) {
  absl::StatusOr<std::string> text = ReadWholeFile(path);
  if (!text.ok()) return text.status();
  absl::StatusOr<PushState> s = DecodePushState(*text);
  if (!s.ok()) return absl::InvalidArgumentError(absl::StrCat(path, ": ", s.status().message()));
  return s;
}

}  // namespace mmvlog::archiver
