#include "archiver/replay/sample_stream.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "format/archive/archive_format.h"
#include "format/archive/result_decode.h"
#include "format/archive/result_shape.h"

namespace mmvlog::archiver {

// What the current archive's metadata says about a PMID, found once per
// archive, and the columns of its last value set in order: a set of the
// same shape as the one before (the usual case) is matched value by value
// without a look-up.
struct SampleStream::PmidInfo {
  bool chosen = false;
  bool singular = false;  // PM_INDOM_NULL: its one value, whatever instance it names
  int32_t type = 0;
  ValueKind kind = kString;
  std::vector<int32_t> last_inst;
  std::vector<ptrdiff_t> last_column;
};

// A chosen value of a record of a known shape: where its bytes lie and how
// Decode read them in the record the shape was learnt from.
struct SampleStream::Slot {
  uint32_t offset = 0;  // in the payload
  uint32_t column = 0;
  ValueKind kind = kNoValue;
  bool off_null = false;
  bool big64 = false;  // 8 bytes in network order: the bits as they are
  // A value without a column: an UnnamedValue of `metric`.
  bool unnamed = false;
  uint32_t metric = 0;
  uint32_t before = 0;
  // Otherwise the value is rebuilt as the DecodedValue it was and read
  // again as Decode reads it.
  int32_t inst = 0;
  int32_t valfmt = 0;
  int32_t type = 0;
  uint8_t block_type = 0;
  uint32_t size = 0;
};

// A layout of the current archive's records and what Decode made of it.
struct SampleStream::Shape {
  explicit Shape(format::ResultShape l) : layout(std::move(l)) {}
  format::ResultShape layout;
  bool mark = false, listed = false, unnamed = false, off_null = false;
  std::vector<SampleSet> sets;
  std::vector<Slot> slots;  // in record order
  uint64_t used = 0;        // the read that last had it
  uint64_t id = 0;          // which shape it is, for values_of_
  // When every slot is big64 (the usual recording), the sample's values
  // but their bits, and where each one's bits lie: a record of the shape
  // only rewrites the bits.
  bool bits_only = false;
  std::vector<SampleValue> values;
  std::vector<uint32_t> offsets;
};

namespace {
// Layouts kept per archive: pmlogger writes each of a configuration's
// logging groups (a few, usually) as a record of its own.
constexpr size_t kShapes = 4;
// A shape holds twice its record's bytes: records larger than this are
// decoded whole every time (memory follows the width, not the shapes).
constexpr size_t kMostShapedBytes = size_t{16} << 20;
}  // namespace

SampleStream::SampleStream(const std::vector<ArchiveEntry>& archives, const ColumnSet& columns)
    : archives_(archives), columns_(columns) {}

SampleStream::~SampleStream() = default;

void SampleStream::SeekBefore(format::Timestamp from) {
  seek_from_ = from;
  checked_ = false;
  covered_.assign(columns_.size(), 0);
  mark_seen_ = false;
}

void SampleStream::ResumeFrom(const SampleStream& other) {
  ResumePoint point;
  other.PointAfterLast(&point);
  ResumeAt(point);
}

void SampleStream::PointAfterLast(ResumePoint* point) const {
  point->next_archive = next_archive_;
  point->extra_bases = extra_bases_;
  point->last_time = last_time_;
  point->pending_join = pending_join_;
  point->exhausted = exhausted_;
  point->host = host_;
  point->reading = reader_ != nullptr;
  if (!point->reading) return;
  point->follow = follow_;
  point->catalog = reader_->catalog();
  point->reader_base = reader_base_;
  // A record held behind a join mark has not been given: read it again.
  point->at = held_ ? reader_->last_record() : reader_->position();
}

void SampleStream::ResumeAt(const ResumePoint& point) {
  next_archive_ = point.next_archive;
  extra_bases_ = point.extra_bases;
  last_time_ = point.last_time;
  pending_join_ = point.pending_join;
  exhausted_ = point.exhausted;
  host_ = point.host;
  checked_ = true;
  if (!point.reading) return;
  if (point.follow) {
    // What the other read of a growing archive may be old by now.
    absl::StatusOr<std::unique_ptr<ArchiveReader>> r = ArchiveReader::Open(point.reader_base);
    if (!r.ok()) return;  // the other stream names the problem
    reader_ = std::move(*r);
  } else {
    reader_ = ArchiveReader::Over(point.catalog);
  }
  reader_base_ = point.reader_base;
  reader_->StartAt(point.at);
}

bool SampleStream::OpenArchive(size_t i) {
  const std::string& base = i < archives_.size() ? archives_[i].base : extra_bases_[i - archives_.size()];
  // The set's catalog unless following: a recording being written has
  // more metadata now than when the set was opened.
  absl::StatusOr<std::unique_ptr<ArchiveReader>> r =
      !follow_ && i < archives_.size() && archives_[i].catalog != nullptr
          ? ArchiveReader::Over(archives_[i].catalog)
          : ArchiveReader::Open(base);
  if (!r.ok()) {
    problems_.push_back(absl::StrCat(base, ": skipped: ", r.status().message()));
    return false;
  }
  reader_ = std::move(*r);
  reader_base_ = base;
  pmids_.clear();
  shapes_.clear();
  if (host_.empty()) host_ = reader_->label().hostname;
  if (std::find(read_.begin(), read_.end(), base) == read_.end()) read_.push_back(base);
  if (seek_from_ && !checked_) {
    // The last entry earlier than the window: no record before it is later.
    std::optional<format::IndexEntry> best;
    for (const format::IndexEntry& e : reader_->index()) {
      if (e.timestamp < *seek_from_) best = e;
    }
    if (best) reader_->StartAt(*best);
  }
  return true;
}

void SampleStream::CloseArchive(bool at_end) {
  if (backward_ > 0) {
    warnings_.push_back(absl::StrCat(
        backward_first_, "; skipped",
        backward_ == 1 ? "" : absl::StrCat(", as ", backward_ - 1, " more of this archive"),
        " (a replay's time only goes forward)"));
    backward_ = 0;
  }
  for (const std::string& w : reader_->warnings()) {
    // A torn tail of the archive still being followed is a record to come.
    if (!(follow_ && at_end && next_archive_ >= archives_.size() + extra_bases_.size())) {
      warnings_.push_back(w);
    }
  }
  if (at_end) resume_at_ = reader_->position();
  reader_.reset();
}

SampleStream::PmidInfo& SampleStream::Pmid(uint32_t pmid) {
  auto [it, added] = pmids_.try_emplace(pmid);
  if (added) {
    it->second = std::make_unique<PmidInfo>();
    PmidInfo& p = *it->second;
    const format::Desc* d = reader_->meta().Desc(pmid);
    p.chosen = d != nullptr && columns_.MetricOf(pmid) >= 0;
    if (d != nullptr) {
      p.type = d->type;
      p.kind = KindOfType(d->type);
      p.singular = d->indom == format::kIndomNull;
    }
  }
  return *it->second;
}

absl::StatusOr<bool> SampleStream::ReadRecord() {
  absl::StatusOr<std::optional<format::Frame>> f = reader_->NextFrame();
  if (!f.ok()) return f.status();
  if (!f->has_value()) return false;
  frame_ = **f;
  ++reads_;
  shaped_ = nullptr;
  for (const std::unique_ptr<Shape>& shape : shapes_) {
    if (!shape->layout.Matches(frame_.payload)) continue;
    absl::StatusOr<format::Timestamp> t = reader_->FrameTimestamp(frame_);
    if (!t.ok()) return t.status();
    record_.timestamp = *t;
    shape->used = reads_;
    shaped_ = shape.get();
    return true;
  }
  if (absl::Status s = reader_->DecodeFrame(frame_, &record_); !s.ok()) return s;
  return true;
}

void SampleStream::Decode(const format::DecodedResult& r, Shape* learn) {
  sample_.time = r.timestamp;
  sample_.mark = r.is_mark();
  sample_.virtual_mark = false;
  sample_.chosen = false;
  sample_.listed = false;
  sample_.unnamed = false;
  sample_.off_null = false;
  sample_.values.clear();
  sample_.unnamed_values.clear();
  sample_.strings.clear();
  sample_.sets.clear();
  sample_.record = keep_records_ ? &r : nullptr;
  for (size_t i = 0; i < r.sets.size(); ++i) {
    const format::DecodedValueSet& set = r.sets[i];
    sample_.sets.push_back({set.pmid, set.numval});
    PmidInfo& p = Pmid(set.pmid);
    if (!p.chosen) continue;
    sample_.listed = true;
    size_t k = 0;
    uint32_t named = 0;  // the set's values with a column so far
    if (!p.singular && set.valfmt == format::kValDptr &&
        (p.type == format::kTypeU64 || p.type == format::kType64 ||
         p.type == format::kTypeDouble)) {
      // The commonest set (64-bit values of instances in the order of the
      // record before): each value's bits read straight; the first value
      // that is not so goes to the loop below.
      const size_t n = std::min(set.values.size(), p.last_inst.size());
      sample_.values.reserve(sample_.values.size() + n);
      const uint8_t type = static_cast<uint8_t>(p.type);
      for (; k < n; ++k) {
        const format::DecodedValue& v = set.values[k];
        if (p.last_inst[k] != v.inst || p.last_column[k] < 0 || v.block_type != type ||
            v.block.size() != 8) {
          break;
        }
        sample_.values.push_back({static_cast<uint32_t>(p.last_column[k]), p.kind, false,
                                  format::LoadBig64(v.block.data())});
        ++named;
        if (learn != nullptr) {
          learn->slots.push_back({.offset = learn->layout.value_offset(i, k),
                                  .column = static_cast<uint32_t>(p.last_column[k]),
                                  .kind = p.kind,
                                  .big64 = true});
        }
      }
    }
    for (; k < set.values.size(); ++k) {
      const format::DecodedValue& v = set.values[k];
      ptrdiff_t column;
      if (p.singular) {
        // libpcp ignores the instance of a singular metric's value: archives
        // of the 1990s wrote 0 there, not PM_IN_NULL.
        column = columns_.Find(set.pmid, format::kInNull);
      } else if (k < p.last_inst.size() && p.last_inst[k] == v.inst) {
        column = p.last_column[k];
      } else {
        column = columns_.Find(set.pmid, v.inst);
        if (k >= p.last_inst.size()) {
          p.last_inst.resize(k + 1);
          p.last_column.resize(k + 1);
        }
        p.last_inst[k] = v.inst;
        p.last_column[k] = column;
      }
      SampleValue out;
      out.column = static_cast<uint32_t>(column);
      out.off_null = column >= 0 && p.singular && v.inst != format::kInNull;
      if (format::IsFixedNumericType(p.type)) {
        format::FixedValue f;
        if (!format::FixedValueFromDecoded(v, set.valfmt, p.type, &f)) continue;
        out.kind = p.kind;
        out.bits = f.u64;
      } else {
        out.kind = kString;
      }
      // An instance no indom record names: pmrep drops it, libpcp's derived
      // metrics read it.
      const bool unnamed = column < 0;
      const uint32_t metric = unnamed ? static_cast<uint32_t>(columns_.MetricOf(set.pmid)) : 0;
      if (learn != nullptr) {
        // What decides how the value is read is the shape's: only a
        // string's bytes can change whether it reads.
        learn->slots.push_back(
            {.offset = learn->layout.value_offset(i, k),
             .column = out.column,
             .kind = out.kind,
             .off_null = out.off_null,
             .big64 = !unnamed && set.valfmt != format::kValInsitu && out.kind != kString &&
                      v.block_type == p.type && v.block.size() == 8,
             .unnamed = unnamed,
             .metric = metric,
             .before = named,
             .inst = v.inst,
             .valfmt = set.valfmt,
             .type = p.type,
             .block_type = v.block_type,
             .size = static_cast<uint32_t>(v.block.size())});
      }
      if (out.kind == kString) {
        absl::StatusOr<format::ResultValue> rv = format::ValueFromDecoded(v, set.valfmt, p.type);
        if (!rv.ok()) continue;
        out.bits = sample_.strings.size();
        sample_.strings.push_back(std::move(rv->bytes));
      }
      if (unnamed) {
        sample_.unnamed = true;
        sample_.unnamed_values.push_back({metric, v.inst, out.kind, named, out.bits});
        continue;
      }
      sample_.off_null |= out.off_null;
      sample_.values.push_back(out);
      ++named;
    }
  }
  sample_.chosen = !sample_.values.empty();
  values_of_ = 0;
  if (learn != nullptr) {
    learn->bits_only = std::all_of(learn->slots.begin(), learn->slots.end(),
                                   [](const Slot& slot) { return slot.big64; });
    if (learn->bits_only) {
      learn->values = sample_.values;
      for (const Slot& slot : learn->slots) learn->offsets.push_back(slot.offset);
    }
    learn->mark = sample_.mark;
    learn->listed = sample_.listed;
    learn->unnamed = sample_.unnamed;
    learn->off_null = sample_.off_null;
    learn->sets = sample_.sets;
  }
}

void SampleStream::DecodeShaped(const Shape& shape) {
  sample_.time = record_.timestamp;
  sample_.mark = shape.mark;
  sample_.virtual_mark = false;
  sample_.listed = shape.listed;
  sample_.unnamed = shape.unnamed;
  sample_.off_null = shape.off_null;
  sample_.sets = shape.sets;
  sample_.record = nullptr;
  sample_.strings.clear();
  const uint8_t* payload = frame_.payload.data();
  if (shape.bits_only) {
    sample_.unnamed_values.clear();
    // The values of the last sample are this shape's already (the same
    // columns, kinds and order) unless another shape or a whole decoding
    // came between.
    if (values_of_ != shape.id) {
      sample_.values = shape.values;
      values_of_ = shape.id;
    }
    SampleValue* out = sample_.values.data();
    const uint32_t* at = shape.offsets.data();
    const size_t n = shape.offsets.size();
    for (size_t i = 0; i < n; ++i) out[i].bits = format::LoadBig64(payload + at[i]);
    sample_.chosen = n > 0;
    return;
  }
  values_of_ = 0;
  sample_.values.resize(shape.slots.size());
  sample_.unnamed_values.clear();
  size_t n = 0;
  for (const Slot& slot : shape.slots) {
    const uint8_t* at = payload + slot.offset;
    SampleValue& out = sample_.values[n];
    out.column = slot.column;
    out.kind = slot.kind;
    out.off_null = slot.off_null;
    if (slot.big64) {
      out.bits = format::LoadBig64(at);
      ++n;
      continue;
    }
    format::DecodedValue v;
    v.inst = slot.inst;
    if (slot.valfmt == format::kValInsitu) {
      v.insitu = format::LoadBig32(at);
    } else {
      v.block_type = slot.block_type;
      v.block = std::span<const uint8_t>(at, slot.size);
    }
    if (slot.kind == kString) {
      absl::StatusOr<format::ResultValue> rv = format::ValueFromDecoded(v, slot.valfmt, slot.type);
      if (!rv.ok()) continue;
      out.bits = sample_.strings.size();
      sample_.strings.push_back(std::move(rv->bytes));
    } else {
      format::FixedValue f;
      if (!format::FixedValueFromDecoded(v, slot.valfmt, slot.type, &f)) continue;
      out.bits = f.u64;
    }
    if (slot.unnamed) {
      sample_.unnamed_values.push_back({slot.metric, slot.inst, slot.kind, slot.before, out.bits});
      continue;
    }
    ++n;
  }
  sample_.values.resize(n);
  sample_.chosen = n > 0;
}

bool SampleStream::CoveredAtFrom() const {
  return mark_seen_ || std::all_of(covered_.begin(), covered_.end(), [](uint8_t c) { return c != 0; });
}

void SampleStream::Restart() {
  ++restarts_;
  reader_.reset();
  held_ = false;
  exhausted_ = false;
  next_archive_ = 0;
  last_time_.reset();
  pending_join_.reset();
  checked_ = true;  // no seeking this time
  seek_from_.reset();
  problems_.clear();
  damaged_.clear();
  warnings_.clear();
  backward_ = 0;
}

bool SampleStream::LookAgain() {
  // New archives of a directory being followed are not looked for here:
  // the archive being written is followed across its volumes.
  if (archives_.empty() && extra_bases_.empty()) return false;
  const size_t last = archives_.size() + extra_bases_.size() - 1;
  const std::string& base = last < archives_.size() ? archives_[last].base : extra_bases_.back();
  absl::StatusOr<std::unique_ptr<ArchiveReader>> r = ArchiveReader::Open(base);
  if (!r.ok()) return false;
  reader_ = std::move(*r);
  reader_base_ = base;
  pmids_.clear();
  shapes_.clear();
  if (resume_at_) reader_->StartAt(*resume_at_);
  return true;
}

const Sample* SampleStream::Next() {
  for (;;) {
    if (!held_) {
      if (reader_ == nullptr) {
        if (exhausted_) {
          if (!follow_ || !LookAgain()) return nullptr;
          exhausted_ = false;
        } else {
          if (next_archive_ >= archives_.size() + extra_bases_.size()) {
            exhausted_ = true;
            continue;
          }
          if (!OpenArchive(next_archive_++)) continue;
          if (last_time_) pending_join_ = *last_time_;
        }
      }
      absl::StatusOr<bool> more = ReadRecord();
      if (!more.ok()) {
        damaged_.push_back(std::string(more.status().message()));
        CloseArchive(false);
        continue;
      }
      if (!*more) {
        CloseArchive(true);
        if (next_archive_ >= archives_.size() + extra_bases_.size()) {
          exhausted_ = true;
          if (follow_) return nullptr;
        }
        continue;
      }
      if (pending_join_) {
        // The join of two archives: a <mark> 1 ms after the earlier's end,
        // given before this record, which is held for the next call.
        const format::Timestamp at =
            format::ToTimestamp(format::ToAbslTime(*pending_join_) + absl::Milliseconds(1));
        pending_join_.reset();
        if (!(record_.timestamp < at)) {
          sample_.time = at;
          sample_.mark = true;
          sample_.virtual_mark = true;
          sample_.chosen = false;
          sample_.listed = false;
          sample_.sets.clear();
          sample_.record = nullptr;
          sample_.values.clear();
          sample_.unnamed_values.clear();
          values_of_ = 0;
          sample_.strings.clear();
          if (seek_from_ && !checked_) mark_seen_ = true;
          last_time_ = at;
          held_ = true;
          return &sample_;
        }
      }
    }
    held_ = false;
    if (last_time_ && record_.timestamp < *last_time_) {
      // Time never goes back (libpcp reads such an archive as its index
      // leads it, pmlogcheck calls it damaged): the record is left out,
      // and said so.
      if (backward_++ == 0) {
        const format::IndexEntry& at = reader_->last_record();
        auto text = [](format::Timestamp t) {
          return absl::FormatTime("%Y-%m-%d %H:%M:%E6S UTC", format::ToAbslTime(t),
                                  absl::UTCTimeZone());
        };
        backward_first_ = absl::StrCat(reader_base_, ".", at.volume, ": offset ", at.data_offset,
                                       ": timestamp went backwards (", text(record_.timestamp),
                                       ", after ", text(*last_time_), ")");
      }
      continue;
    }
    if (seek_from_ && !checked_ && !(record_.timestamp < *seek_from_)) {
      checked_ = true;
      if (!CoveredAtFrom()) {
        Restart();
        continue;
      }
    }
    if (shaped_ != nullptr) {
      DecodeShaped(*shaped_);
    } else if (keep_records_ || frame_.payload.size() > kMostShapedBytes) {
      Decode(record_, nullptr);
    } else {
      // A layout not seen lately: decoded whole, and learnt in place of
      // the one least lately seen.
      auto shape = std::make_unique<Shape>(
          format::ResultShape(reader_->label().version, frame_.payload, record_));
      shape->used = reads_;
      shape->id = ++shape_ids_;
      Decode(record_, shape.get());
      if (shapes_.size() < kShapes) {
        shapes_.push_back(std::move(shape));
      } else {
        *std::min_element(shapes_.begin(), shapes_.end(), [](const auto& a, const auto& b) {
          return a->used < b->used;
        }) = std::move(shape);
      }
    }
    // Read in place: a volume cut short meanwhile gave zeros, not values
    // (damage, as ReadRecord's errors are).
    if (absl::Status s = reader_->Intact(); !s.ok()) {
      damaged_.push_back(std::string(s.message()));
      CloseArchive(false);
      continue;
    }
    last_time_ = record_.timestamp;
    if (seek_from_ && !checked_) {
      if (sample_.mark) mark_seen_ = true;
      for (const SampleValue& v : sample_.values) covered_[v.column] = 1;
    }
    return &sample_;
  }
}

}  // namespace mmvlog::archiver
