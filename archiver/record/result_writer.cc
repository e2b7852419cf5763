#include "archiver/record/result_writer.h"

#include "archiver/record/mmv_mapping.h"

namespace mmvlog::archiver {

absl::StatusOr<bool> ResultWriter::Write(size_t group, std::span<FilePart> parts,
                                         format::Timestamp stamp, int64_t now_usec,
                                         ArchiveSession& session, size_t* values) {
  // Nothing to record: a result without metrics would read as a <mark> to
  // every PCP tool.
  if (parts.empty()) return false;
  Output& out = outputs_[group];
  ArchiveWriter& writer = session.writer();
  if (!TemplateFits(out, parts, session.writer_serial())) {
    MakeTemplate(out, parts, writer.version(), session.writer_serial());
  }
  absl::Status written;
  if (out.tmpl.has_value()) {
    // The fast path: the same files as the last time, so the same record
    // layout; only the timestamp and the values change.
    out.tmpl->SetTimestamp(stamp);
    size_t sets = 0;
    for (const FilePart& part : parts) {
      if (part.source == nullptr) {
        sets = StoreValues(*part.file, part.image, &*out.tmpl, sets);
        continue;
      }
      size_t next = sets;
      if (!part.source->ReadMapped([&](std::span<const uint8_t> bytes) {
            next = StoreValues(*part.file, bytes, &*out.tmpl, sets);
          }) ||
          !part.source->StillCurrent()) {
        torn_ = true;
        return false;
      }
      sets = next;
    }
    written = writer.AppendEncodedResult(stamp, out.tmpl->record());
    if (written.ok()) *values += out.tmpl->values();
  } else {
    result_.timestamp = stamp;
    size_t sets = 0;
    bool shared = false;
    for (FilePart& part : parts) {
      if (part.source != nullptr) {
        absl::StatusOr<std::span<const uint8_t>> copy = part.source->CopyMapped();
        if (!copy.ok()) {
          torn_ = true;
          return false;
        }
        part.image = *copy;
      }
      sets = FillValueSets(*part.file, part.image, now_usec, &result_, sets);
      shared |= part.file->shares_cluster;
    }
    if (shared) sets = MergeSharedSets(&result_, sets);
    if (result_.sets.size() > sets) result_.sets.resize(sets);
    if (result_.sets.empty()) return false;
    written = writer.AppendResult(result_);
    if (written.ok()) {
      for (const format::ValueSet& set : result_.sets) *values += set.values.size();
    }
  }
  if (!written.ok()) {
    out.tmpl.reset();
    return written;
  }
  return true;
}

void ResultWriter::MakeTemplate(Output& out, std::span<const FilePart> parts, int version,
                                uint64_t writer) {
  out.tmpl.reset();
  out.files.clear();
  std::vector<std::vector<int32_t>> instances;  // SetLayout points into these
  for (const auto& [f, image, source] : parts) {
    // Files sharing a cluster give one set per PMID between them: merged
    // sample by sample, so encoded whole.
    if (!f->fixed_layout || f->shares_cluster || image.size() < f->mmv->size) {
      out.files.clear();
      return;  // encoded whole, sample by sample
    }
    out.files.push_back(f);
    for (const MappedMetric& m : f->metrics) instances.push_back(Instances(*f, m));
  }
  std::vector<format::SetLayout> layout;
  size_t i = 0;
  for (const auto& f : out.files) {
    for (const MappedMetric& m : f->metrics) {
      layout.push_back({m.desc.pmid, m.desc.type, 0, instances[i++]});
    }
  }
  // No metric at all: such a result would read as a <mark>.
  if (layout.empty()) {
    out.files.clear();
    return;
  }
  out.tmpl = format::ResultTemplate::FromLayout(version, {}, layout);
  out.writer = writer;
  if (!out.tmpl.has_value()) out.files.clear();
}

bool ResultWriter::TemplateFits(const Output& out, std::span<const FilePart> parts,
                                uint64_t writer) {
  if (!out.tmpl.has_value() || out.writer != writer || out.files.size() != parts.size()) {
    return false;
  }
  for (size_t i = 0; i < parts.size(); ++i) {
    // The same MappedFile objects (held by out.files, so no other mapping
    // can have their address) and a whole image of each.
    if (out.files[i] != parts[i].file || parts[i].image.size() < parts[i].file->mmv->size) {
      return false;
    }
  }
  return true;
}

}  // namespace mmvlog::archiver
