#include "format/archive/archive_label.h"

#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "format/archive/archive_format.h"
#include "format/archive/archive_framing.h"
#include "format/byte_reader.h"
#include "format/byte_writer.h"
#include "format/endian.h"
#include "format/errors.h"

namespace mmvlog::format {
namespace {

// A label is the first record of its file, so its payload starts here.
constexpr uint64_t kLabelPayloadOffset = 4;

absl::Status CheckField(absl::string_view name, const std::string& value,
                        size_t width) {
  if (value.size() >= width) {
    return absl::InvalidArgumentError(
        absl::StrCat("label ", name, " is ", value.size(),
                     " bytes, the field holds at most ", width - 1));
  }
  if (value.find('\0') != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("label ", name, " contains a NUL byte"));
  }
  return absl::OkStatus();
}



void PutField(const std::string& s, size_t width, std::vector<uint8_t>* out) {
  out->insert(out->end(), s.begin(), s.end());
  out->resize(out->size() + (width - s.size()), 0);
}

// Reads a NUL-padded string field into `value`; the string ends at the
// first NUL, which must lie within the field.
absl::Status ReadField(ByteReader* r, absl::string_view name, size_t width,
                       std::string* value) {
  const uint64_t at = r->offset();
  std::span<const uint8_t> field = r->ReadBytes(width);
  if (!r->ok()) return r->status();
  const void* nul = std::memchr(field.data(), 0, field.size());
  if (nul == nullptr) {
    return DataLossAt(at, absl::StrCat("label ", name,
                                       " is not NUL terminated within its ",
                                       width, " bytes"));
  }
  value->assign(reinterpret_cast<const char*>(field.data()),
                static_cast<const uint8_t*>(nul) - field.data());
  return absl::OkStatus();
}

}  // namespace

absl::Status EncodeLogLabel(const LogLabel& label, std::vector<uint8_t>* out) {
  const bool v2 = label.version == kLogVersion2;
  if (!v2 && label.version != kLogVersion3) {
    return absl::InvalidArgumentError(
        absl::StrCat("label version ", label.version, " is not 2 or 3"));
  }
  const size_t host_size = v2 ? kLabelV2HostSize : kLabelV3StringSize;
  const size_t tz_size = v2 ? kLabelV2TzSize : kLabelV3StringSize;
  if (absl::Status s = CheckField("hostname", label.hostname, host_size);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckField("timezone", label.timezone, tz_size);
      !s.ok()) {
    return s;
  }
  if (!v2) {
    if (absl::Status s =
            CheckField("zoneinfo", label.zoneinfo, kLabelV3StringSize);
        !s.ok()) {
      return s;
    }
  }
  if (label.start.nsec >= kNsecPerSec) {
    return absl::InvalidArgumentError(absl::StrCat(
        "label start nanoseconds ", label.start.nsec, " out of range"));
  }
  if (v2 && (label.start.sec < std::numeric_limits<int32_t>::min() ||
             label.start.sec > std::numeric_limits<int32_t>::max())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "label start ", label.start.sec, " s does not fit a v2 archive"));
  }

  const size_t begin = BeginFrame(out);
  AppendBig32(kLogMagic | static_cast<uint32_t>(label.version), out);
  AppendBig32(static_cast<uint32_t>(label.pid), out);
  if (v2) {
    AppendBig32(static_cast<uint32_t>(label.start.sec), out);
    AppendBig32(label.start.nsec / 1000, out);
    AppendBig32(static_cast<uint32_t>(label.volume), out);
    PutField(label.hostname, kLabelV2HostSize, out);
    PutField(label.timezone, kLabelV2TzSize, out);
  } else {
    AppendBig64(V3SecondsWordSwap(static_cast<uint64_t>(label.start.sec)), out);
    AppendBig32(label.start.nsec, out);
    AppendBig32(static_cast<uint32_t>(label.volume), out);
    AppendBig32(label.features, out);
    AppendBig32(0, out);  // reserved
    PutField(label.hostname, kLabelV3StringSize, out);
    PutField(label.timezone, kLabelV3StringSize, out);
    PutField(label.zoneinfo, kLabelV3StringSize, out);
  }
  EndFrame(begin, out);
  return absl::OkStatus();
}

absl::StatusOr<LogLabel> DecodeLogLabel(std::span<const uint8_t> payload) {
  ByteReader r(payload, kLabelPayloadOffset);
  const uint32_t magic = r.ReadBig32();
  if (!r.ok()) {
    return DataLossAt(kLabelPayloadOffset,
                      absl::StrCat("label is ", payload.size(),
                                   " bytes, too short for its magic"));
  }
  if ((magic & ~0xffu) != kLogMagic) {
    return ErrorAt(absl::StatusCode::kInvalidArgument, kLabelPayloadOffset,
                   absl::StrCat("bad label magic 0x", absl::Hex(magic),
                                ", expected 0x", absl::Hex(kLogMagic),
                                " | version: not a PCP archive file"));
  }
  LogLabel label;
  label.version = static_cast<int>(magic & 0xff);
  if (label.version != kLogVersion2 && label.version != kLogVersion3) {
    return ErrorAt(absl::StatusCode::kUnimplemented, kLabelPayloadOffset,
                   absl::StrCat("archive version ", label.version,
                                " not supported (only 2 and 3)"));
  }
  const bool v2 = label.version == kLogVersion2;
  const size_t expected = v2 ? kLabelV2PayloadSize : kLabelV3PayloadSize;
  if (payload.size() != expected) {
    return DataLossAt(kLabelPayloadOffset,
                      absl::StrCat("version ", label.version, " label is ",
                                   payload.size(), " bytes, expected ",
                                   expected));
  }
  label.pid = r.ReadBigI32();
  const uint64_t subsec_at = r.offset() + (v2 ? 4 : 8);
  if (v2) {
    label.start.sec = r.ReadBigI32();
    const uint32_t usec = r.ReadBig32();
    if (usec >= kUsecPerSec) {
      return DataLossAt(subsec_at, absl::StrCat("label start microseconds ",
                                                usec, " out of range"));
    }
    label.start.nsec = usec * 1000;
    label.volume = r.ReadBigI32();
    if (absl::Status s =
            ReadField(&r, "hostname", kLabelV2HostSize, &label.hostname);
        !s.ok()) {
      return s;
    }
    if (absl::Status s =
            ReadField(&r, "timezone", kLabelV2TzSize, &label.timezone);
        !s.ok()) {
      return s;
    }
  } else {
    label.start.sec = static_cast<int64_t>(V3SecondsWordSwap(r.ReadBig64()));
    label.start.nsec = r.ReadBig32();
    if (label.start.nsec >= kNsecPerSec) {
      return DataLossAt(subsec_at, absl::StrCat("label start nanoseconds ",
                                                label.start.nsec,
                                                " out of range"));
    }
    label.volume = r.ReadBigI32();
    label.features = r.ReadBig32();
    r.Skip(4);  // reserved
    if (absl::Status s =
            ReadField(&r, "hostname", kLabelV3StringSize, &label.hostname);
        !s.ok()) {
      return s;
    }
    if (absl::Status s =
            ReadField(&r, "timezone", kLabelV3StringSize, &label.timezone);
        !s.ok()) {
      return s;
    }
    if (absl::Status s =
            ReadField(&r, "zoneinfo", kLabelV3StringSize, &label.zoneinfo);
        !s.ok()) {
      return s;
    }
  }
  if (absl::Status s = r.Finish(); !s.ok()) return s;
  return label;
}

}  // namespace mmvlog::format
