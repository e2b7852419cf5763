// ResultShape: every byte of a decoded record that is neither its timestamp
// nor its values (the counts, PMIDs, instances, value formats, block
// offsets and block headers), to know a later record of the same layout
// without decoding it. A record that Matches passes each check of
// DecodeResultInto as the first did, and has its values' bytes at the same
// offsets: a reader of a recording whose metrics and instances stay the
// same (replay's hot path) reads them from there. The decoding counterpart
// of ResultTemplate. Pure: no I/O.
#ifndef MMVLOG_FORMAT_ARCHIVE_RESULT_SHAPE_H_
#define MMVLOG_FORMAT_ARCHIVE_RESULT_SHAPE_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "format/archive/archive_result.h"

namespace mmvlog::format {

class ResultShape {
 public:
  // The shape of `payload`, a record of a volume of `version` that
  // DecodeResultInto decoded into `decoded` without error.
  ResultShape(int version, std::span<const uint8_t> payload, const DecodedResult& decoded);

  // Whether `payload`, a record of a volume of the same version, has this
  // shape: decoding it would give the same sets, instances, formats and
  // blocks, its values' bytes at value_offset().
  bool Matches(std::span<const uint8_t> payload) const;

  // Where the bytes of value k of set `set` begin in the payload: the
  // INSITU word, or the bytes inside the value's pmValueBlock.
  uint32_t value_offset(size_t set, size_t k) const { return offsets_[first_[set] + k]; }

 private:
  size_t size_ = 0;
  // The payload's 32-bit words, those of the timestamp and the values
  // masked out (mask 0): a record matches when its words under mask_ are
  // expected_.
  std::vector<uint32_t> expected_, mask_;
  std::vector<uint32_t> offsets_;  // every value's, set by set
  std::vector<size_t> first_;      // each set's first in offsets_
};

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_ARCHIVE_RESULT_SHAPE_H_
