// Values of event and aggregate metrics: the event array of a kTypeEvent
// (pmEventArray) or kTypeHighresEvent (pmHighResEventArray) value as an
// archive stores it (layout in archive_format.h, "Event arrays"; checked
// against archives written by pmlogger with PCP's sample PMDA), and the text
// pmdumplog -a shows for them and for aggregates (pmPrintValue's forms).
//
// Pure: bytes in, structs or text out.
#ifndef MMVLOG_FORMAT_ARCHIVE_EVENT_RECORD_H_
#define MMVLOG_FORMAT_ARCHIVE_EVENT_RECORD_H_

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "format/archive/archive_types.h"

namespace mmvlog::format {

// One parameter of an event record: a value of metric `pmid`, of its own
// type (the parameter's type byte), as stored: numbers big-endian of their
// exact size (checked by the decoder), strings and aggregates as their bytes.
struct EventParam {
  uint32_t pmid = 0;
  int32_t type = 0;
  std::string bytes;

  bool operator==(const EventParam&) const = default;
};

struct EventRecord {
  Timestamp timestamp;  // kTypeEvent: microseconds (nsec a multiple of 1000)
  uint32_t flags = 0;   // kEventFlag*
  // flags & kEventFlagMissed: how many events were missed (the stored
  // nparams); such a record has no params.
  uint32_t missed = 0;
  std::vector<EventParam> params;

  bool operator==(const EventRecord&) const = default;
};

struct EventArray {
  std::vector<EventRecord> records;

  // The events missed, over all records.
  uint64_t missed() const;
  bool operator==(const EventArray&) const = default;
};

// Decodes the value of an event metric: `in` is its pmValueBlock without the
// 4-byte block header (what DecodedValue::block and ResultValue::bytes hold),
// `highres` for kTypeHighresEvent. Error offsets are `base_offset` plus the
// position in `in`. Every count and length is checked against the bytes
// there are; a number parameter must have its type's size, a string
// parameter ends at its first NUL. The last parameter's padding may be left
// out; any other byte after the last record is an error.
// Errors: DataLoss "offset N: record R: parameter P: what".
absl::StatusOr<EventArray> DecodeEventArray(std::span<const uint8_t> in, bool highres,
                                            uint64_t base_offset = 0);

// Appends the value bytes (without the block header) of `a`, as PCP lays it
// out: the inverse of DecodeEventArray. Padding bytes are zero.
// REQUIRES: parameters of number types have their size; kTypeEvent
// timestamps fit 32 bits.
void EncodeEventArray(const EventArray& a, bool highres, std::vector<uint8_t>* out);

// Text as pmdumplog -a prints it:
// "No event records", "1 event record", "5 (and 7 missed) event records".
std::string EventCountText(const EventArray& a);
// "0x1a (start,id,parent)"; just "0x0" when no known flag is set.
std::string EventFlagsText(uint32_t flags);
// A parameter's value as pmPrintValue prints a value of its type: integers in
// decimal, float %.8g, double %.16g, a string in double quotes, anything else
// as an aggregate (AggregateText).
std::string EventParamText(const EventParam& p);
// An aggregate's bytes as pmPrintValue prints them: with 8 bytes the native
// (little-endian here) u64 and, unless NaN, double; with 4 bytes the float
// unless NaN; the bytes in quotes when all are printable; then always the
// bytes in hex in brackets: "18410503204342530817 -1.37e+306 [0103...ff]".
std::string AggregateText(std::span<const uint8_t> bytes);
// The bytes in lower-case hex, two digits each.
std::string HexText(std::span<const uint8_t> bytes);

// The array as JSON, for scripts: an array of records
//   {"timestamp":SEC.FRAC,"flags":N,"missed":N,"params":[{"pmid":"D.C.I",
//    "name":NAME,"value":V}]}
// ("missed" only on a missed-events record; "name" only when `names` has
// the PMID). Numbers are JSON numbers, strings JSON strings, aggregates and
// other types a hex string.
std::string EventArrayJson(const EventArray& a, const std::map<uint32_t, std::string>& names);

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_ARCHIVE_EVENT_RECORD_H_
