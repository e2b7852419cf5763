#include "format/archive/event_record.h"

#include <bit>
#include <cctype>
#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "format/archive/archive_format.h"
#include "format/byte_reader.h"
#include "format/byte_writer.h"
#include "format/endian.h"
#include "format/errors.h"
#include "format/json.h"
#include "format/archive/pm_desc_text.h"

namespace mmvlog::format {
namespace {

// The exact value size of a number type, 0 for other types.
size_t NumberSize(int32_t type) {
  switch (type) {
    case kType32:
    case kTypeU32:
    case kTypeFloat: return 4;
    case kType64:
    case kTypeU64:
    case kTypeDouble: return 8;
    default: return 0;
  }
}

// The first error of `r` (or `message` at its offset), as DataLoss with
// where in the array it happened.
absl::Status Damage(const ByteReader& r, absl::string_view where, absl::string_view message = "") {
  absl::Status s = r.ok() ? DataLossAt(r.offset(), message) : r.status();
  return absl::DataLossError(absl::StrCat(where, ": ", s.message()));
}

}  // namespace

uint64_t EventArray::missed() const {
  uint64_t n = 0;
  for (const EventRecord& r : records) n += r.missed;
  return n;
}

absl::StatusOr<EventArray> DecodeEventArray(std::span<const uint8_t> in, bool highres,
                                            uint64_t base_offset) {
  ByteReader r(in, base_offset);
  const uint32_t nrecords = r.ReadBig32();
  if (!r.ok()) return Damage(r, "event array");
  const size_t record_size = highres ? kHighresEventRecordHeaderSize : kEventRecordHeaderSize;
  if (nrecords > r.remaining() / record_size) {
    return DataLossAt(base_offset, absl::StrCat("event array: ", nrecords, " records do not fit in ",
                                                r.remaining(), " bytes"));
  }
  EventArray a;
  a.records.resize(nrecords);
  for (uint32_t i = 0; i < nrecords; ++i) {
    EventRecord& e = a.records[i];
    const std::string where = absl::StrCat("event record ", i);
    const uint64_t at = r.offset();
    if (highres) {
      const int64_t sec = r.ReadBigI64();
      const uint64_t nsec = r.ReadBig64();
      if (r.ok() && nsec >= 1'000'000'000) {
        return DataLossAt(at, absl::StrCat(where, ": nanoseconds ", nsec, " >= 1e9"));
      }
      e.timestamp = {sec, static_cast<uint32_t>(nsec)};
    } else {
      const int32_t sec = r.ReadBigI32();
      const uint32_t usec = r.ReadBig32();
      if (r.ok() && usec >= 1'000'000) {
        return DataLossAt(at, absl::StrCat(where, ": microseconds ", usec, " >= 1e6"));
      }
      e.timestamp = {sec, usec * 1000};
    }
    e.flags = r.ReadBig32();
    const uint32_t nparams = r.ReadBig32();
    if (!r.ok()) return Damage(r, where);
    if (e.flags & kEventFlagMissed) {
      e.missed = nparams;
      continue;
    }
    if (nparams > r.remaining() / kEventParamHeaderSize) {
      return DataLossAt(at, absl::StrCat(where, ": ", nparams, " parameters do not fit in ",
                                         r.remaining(), " bytes"));
    }
    e.params.resize(nparams);
    for (uint32_t k = 0; k < nparams; ++k) {
      EventParam& p = e.params[k];
      const std::string pwhere = absl::StrCat(where, ", parameter ", k);
      const uint64_t pat = r.offset();
      p.pmid = r.ReadBig32();
      const uint32_t word = r.ReadBig32();
      if (!r.ok()) return Damage(r, pwhere);
      p.type = static_cast<int32_t>(word >> 24);
      const uint32_t length = word & kValueBlockMaxLength;
      if (length < kValueBlockHeader) {
        return DataLossAt(pat, absl::StrCat(pwhere, ": length ", length, " < ", kValueBlockHeader));
      }
      const size_t size = length - kValueBlockHeader;
      if (const size_t want = NumberSize(p.type); want != 0 && size != want) {
        return DataLossAt(pat, absl::StrCat(pwhere, ": a value of type ", p.type, " has ", want,
                                            " bytes, not ", size));
      }
      std::span<const uint8_t> value = r.ReadBytes(size);
      if (!r.ok()) return Damage(r, pwhere);
      if (p.type == kTypeString) {
        const void* nul = std::memchr(value.data(), 0, value.size());
        if (nul != nullptr) value = value.first(static_cast<const uint8_t*>(nul) - value.data());
      }
      p.bytes.assign(value.begin(), value.end());
      // Padding to 32 bits; the last parameter's may be missing.
      const size_t pad = PadTo32Bits(size) - size;
      const bool last = i + 1 == nrecords && k + 1 == nparams;
      r.Skip(last ? std::min(pad, r.remaining()) : pad);
      if (!r.ok()) return Damage(r, pwhere);
    }
  }
  if (r.remaining() != 0) {
    return DataLossAt(r.offset(), absl::StrCat("event array: ", r.remaining(),
                                               " unexpected bytes after the last record"));
  }
  return a;
}

void EncodeEventArray(const EventArray& a, bool highres, std::vector<uint8_t>* out) {
  AppendBig32(static_cast<uint32_t>(a.records.size()), out);
  for (const EventRecord& e : a.records) {
    if (highres) {
      AppendBig64(static_cast<uint64_t>(e.timestamp.sec), out);
      AppendBig64(e.timestamp.nsec, out);
    } else {
      AppendBig32(static_cast<uint32_t>(e.timestamp.sec), out);
      AppendBig32(e.timestamp.nsec / 1000, out);
    }
    AppendBig32(e.flags, out);
    const bool missed = (e.flags & kEventFlagMissed) != 0;
    AppendBig32(missed ? e.missed : static_cast<uint32_t>(e.params.size()), out);
    if (missed) continue;
    for (const EventParam& p : e.params) {
      AppendBig32(p.pmid, out);
      const uint32_t length = static_cast<uint32_t>(kValueBlockHeader + p.bytes.size());
      AppendBig32((static_cast<uint32_t>(p.type) << 24) | length, out);
      out->insert(out->end(), p.bytes.begin(), p.bytes.end());
      out->resize(out->size() + PadTo32Bits(p.bytes.size()) - p.bytes.size(), 0);
    }
  }
}

std::string EventCountText(const EventArray& a) {
  const size_t n = a.records.size();
  if (n == 0) return "No event records";
  const uint64_t missed = a.missed();
  return absl::StrCat(n, missed > 0 ? absl::StrCat(" (and ", missed, " missed)") : "",
                      n == 1 ? " event record" : " event records");
}

std::string EventFlagsText(uint32_t flags) {
  static constexpr std::pair<uint32_t, const char*> kNames[] = {
      {kEventFlagPoint, "point"}, {kEventFlagStart, "start"},   {kEventFlagEnd, "end"},
      {kEventFlagId, "id"},       {kEventFlagParent, "parent"}, {kEventFlagMissed, "missed"},
  };
  std::string names;
  for (const auto& [bit, name] : kNames) {
    if (flags & bit) absl::StrAppend(&names, names.empty() ? "" : ",", name);
  }
  std::string text = absl::StrFormat("0x%x", flags);
  if (!names.empty()) absl::StrAppend(&text, " (", names, ")");
  return text;
}

std::string HexText(std::span<const uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  s.reserve(2 * bytes.size());
  for (uint8_t b : bytes) {
    s.push_back(kDigits[b >> 4]);
    s.push_back(kDigits[b & 15]);
  }
  return s;
}

std::string AggregateText(std::span<const uint8_t> bytes) {
  std::string s;
  auto add = [&s](const std::string& part) { absl::StrAppend(&s, s.empty() ? "" : " ", part); };
  if (bytes.size() == 8) {
    add(absl::StrCat(LoadNative<uint64_t>(bytes.data())));
    const double d = LoadNative<double>(bytes.data());
    if (!std::isnan(d)) add(absl::StrFormat("%.16g", d));
  }
  if (bytes.size() == 4) {
    const float f = LoadNative<float>(bytes.data());
    if (!std::isnan(f)) add(absl::StrFormat("%.8g", f));
  }
  bool printable = true;
  for (uint8_t b : bytes) printable &= b >= 0x20 && b < 0x7f;  // isprint, "C" locale
  if (printable) add(absl::StrCat("\"", absl::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), "\""));
  add(absl::StrCat("[", HexText(bytes), "]"));
  return s;
}

namespace {

// The number in a parameter of a number type (sizes checked by the decoder).
std::string NumberText(const EventParam& p, bool json) {
  const uint8_t* b = reinterpret_cast<const uint8_t*>(p.bytes.data());
  switch (p.type) {
    case kType32: return absl::StrCat(static_cast<int32_t>(LoadBig32(b)));
    case kTypeU32: return absl::StrCat(LoadBig32(b));
    case kType64: return absl::StrCat(static_cast<int64_t>(LoadBig64(b)));
    case kTypeU64: return absl::StrCat(LoadBig64(b));
    case kTypeFloat: {
      const float f = std::bit_cast<float>(LoadBig32(b));
      return json ? JsonNumber(f) : absl::StrFormat("%.8g", f);
    }
    default: {
      const double d = std::bit_cast<double>(LoadBig64(b));
      return json ? JsonNumber(d) : absl::StrFormat("%.16g", d);
    }
  }
}

std::span<const uint8_t> Bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

}  // namespace

std::string EventParamText(const EventParam& p) {
  if (NumberSize(p.type) != 0 && p.bytes.size() == NumberSize(p.type)) return NumberText(p, false);
  if (p.type == kTypeString) return absl::StrCat("\"", p.bytes, "\"");
  return AggregateText(Bytes(p.bytes));
}

std::string EventArrayJson(const EventArray& a, const std::map<uint32_t, std::string>& names) {
  std::string s = "[";
  for (size_t i = 0; i < a.records.size(); ++i) {
    const EventRecord& e = a.records[i];
    absl::StrAppend(&s, i == 0 ? "" : ",", "{\"timestamp\":", e.timestamp.sec, ".",
                    absl::StrFormat("%09d", e.timestamp.nsec), ",\"flags\":", e.flags);
    if (e.flags & kEventFlagMissed) absl::StrAppend(&s, ",\"missed\":", e.missed);
    s += ",\"params\":[";
    for (size_t k = 0; k < e.params.size(); ++k) {
      const EventParam& p = e.params[k];
      absl::StrAppend(&s, k == 0 ? "" : ",", "{\"pmid\":", JsonString(PmidString(p.pmid)));
      if (auto it = names.find(p.pmid); it != names.end()) {
        absl::StrAppend(&s, ",\"name\":", JsonString(it->second));
      }
      std::string v;
      if (NumberSize(p.type) != 0 && p.bytes.size() == NumberSize(p.type)) {
        v = NumberText(p, true);
      } else if (p.type == kTypeString) {
        v = JsonString(p.bytes);
      } else {
        v = JsonString(HexText(Bytes(p.bytes)));
      }
      absl::StrAppend(&s, ",\"value\":", v, "}");
    }
    s += "]}";
  }
  s += "]";
  return s;
}

}  // namespace mmvlog::format
