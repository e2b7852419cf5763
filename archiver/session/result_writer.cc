#include "archiver/session/result_writer.h"

#include <algorithm>
#include <cassert>

#include "absl/strings/str_cat.h"
#include "archiver/mmv/mapped_values.h"
#include "format/archive/pm_desc_text.h"

namespace mmvlog::archiver {

absl::StatusOr<bool> ResultWriter::Write(size_t group, std::span<FilePart> parts,
                                         format::Timestamp stamp, int64_t now_usec,
                                         ArchiveSession& session, size_t* values,
                                         bool same_parts) {
  // Nothing to record: a result without metrics would read as a <mark> to
  // every PCP tool.
  if (parts.empty()) return false;
  Output& out = outputs_[group];
  const bool fits = same_parts && out.tmpl.has_value() &&
                    out.writer == session.writer_serial() && out.files.size() == parts.size();
  if (!fits && !TemplateFits(out, parts, session.writer_serial())) {
    if (out.wait > 0) {
      --out.wait;
    } else {
      MakeTemplate(out, parts, session.version(), session.writer_serial());
      // None (a layout that changes, an unreadable string): try again a
      // few samples later, not every sample.
      if (!out.tmpl.has_value()) out.wait = kRelayoutWait;
    }
  }
  absl::Status written;
  bool whole = !out.tmpl.has_value();
  if (!whole) {
    // The fast path: the same files as the last time, so the same record
    // layout; only the timestamp and the values change.
    out.tmpl->SetTimestamp(stamp);
    switch (StoreTemplate(out, parts, now_usec)) {
      case Stored::kAll:
        written = session.AppendEncodedResult(stamp, out.tmpl->record());
        if (written.ok()) {
          *values += out.tmpl->values();
          if (std::all_of(parts.begin(), parts.end(),
                          [](const FilePart& p) { return p.source != nullptr; })) {
            ++in_place_;
          }
        }
        break;
      case Stored::kTorn:
        torn_ = true;
        return false;
      case Stored::kRefused:
        out.tmpl.reset();
        out.files.clear();
        out.wait = kRelayoutWait;
        whole = true;
        break;
    }
  }
  if (whole) {
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
    NoteUnreadable(parts);
    if (result_.sets.empty()) return false;
    written = session.AppendResult(result_);
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

void ResultWriter::NoteUnreadable(std::span<const FilePart> parts) {
  if (!log_) return;
  for (const format::ValueSet& set : result_.sets) {
    const bool error = set.error < 0;
    if (error == unreadable_.contains(set.pmid)) continue;
    if (error) {
      unreadable_.insert(set.pmid);
    } else {
      unreadable_.erase(set.pmid);
    }
    std::string name = format::PmidString(set.pmid), file;
    for (const FilePart& part : parts) {
      for (const MappedMetric& m : part.file->metrics) {
        if (m.desc.pmid != set.pmid || m.desc.names.empty()) continue;
        name = m.desc.names[0];
        file = part.file->name;
      }
    }
    log_(error ? LogLevel::kWarning : LogLevel::kInfo,
         error ? absl::StrCat(file, ": ", name,
                              ": a value can no longer be read from the file (changed in place "
                              "under the same generation); recorded as PCP's generic error, as "
                              "pmdammv gives it, until it can")
               : absl::StrCat(file, ": ", name, ": its values can be read again"));
  }
}

ResultWriter::Stored ResultWriter::StoreTemplate(Output& out, std::span<const FilePart> parts,
                                                 int64_t now_usec) {
  const ValuePlan& plan = out.plan;
  assert(plan.files() == parts.size());
  // One guard over every mapping the tick reads, not one a file.
  out.maps.clear();
  for (const FilePart& part : parts) {
    if (part.source != nullptr) out.maps.push_back(part.source->mapping());
  }
  DirWatch* watch = nullptr;
  Stored stored = Stored::kAll;
  const bool whole = GuardedMapping::ReadAll(out.maps, [&] {
    for (size_t i = 0; i < parts.size(); ++i) {
      const FilePart& part = parts[i];
      // Loads the hardware does not foresee, started files ahead: the
      // fields of the source after next that a read needs, then the
      // header and values of the next file's mapping (each file is a page
      // of its own; the plan's arrays are read in order and need no help).
      if (i + 2 * kAhead < parts.size() && parts[i + 2 * kAhead].source != nullptr) {
        parts[i + 2 * kAhead].source->PrefetchFields();
      }
      if (i + kAhead < parts.size() && parts[i + kAhead].source != nullptr &&
          plan.values_from(i + kAhead) < plan.values_to(i + kAhead)) {
        parts[i + kAhead].source->Prefetch(plan.values_from(i + kAhead),
                                           plan.values_to(i + kAhead));
      }
      if (part.source == nullptr) {
        if (!plan.Store(i, part.image, now_usec, &*out.tmpl)) {
          stored = Stored::kRefused;
          return;
        }
        continue;
      }
      // The values, then the header's generations.
      bool in = false;
      const MmvSource::MappedRead read =
          part.source->ReadGuardedCurrent([&](std::span<const uint8_t> bytes) {
            in = plan.Store(i, bytes, now_usec, &*out.tmpl);
          });
      // Refused: the whole path reads it again.
      stored = read == MmvSource::MappedRead::kFaulted   ? Stored::kTorn
               : !in                                     ? Stored::kRefused
               : read == MmvSource::MappedRead::kChanged ? Stored::kTorn
                                                         : Stored::kAll;
      if (stored != Stored::kAll) return;
      if (part.watch != nullptr) watch = part.watch;
    }
  });
  if (!whole) return Stored::kTorn;  // a file shrank under its read
  if (stored != Stored::kAll) return stored;
  // Every file read, then its size checked: one look at the directory's
  // watch for all of them (events up to now, so any that came during a
  // read), then an fstat only of the files an event named; so the check
  // costs one system call whatever the number of files.
  if (watch != nullptr) watch->Poll();
  for (const FilePart& part : parts) {
    if (part.source == nullptr) continue;
    // No event at all: every size known, without a look at each source.
    if (part.watch != nullptr && part.watch->AllQuiet()) continue;
    const bool size_known = part.watch != nullptr && part.watch->Quiet(part.source->name());
    if (!part.source->SizeCurrent(size_known)) return Stored::kTorn;
  }
  return Stored::kAll;
}

void ResultWriter::MakeTemplate(Output& out, std::span<const FilePart> parts, int version,
                                uint64_t writer) {
  out.tmpl.reset();
  out.files.clear();
  // SetLayout points into these.
  std::vector<std::vector<int32_t>> instances;
  std::vector<std::vector<uint32_t>> sizes;
  for (const auto& [f, image, source, watch] : parts) {
    // Files sharing a cluster give one set per PMID between them: merged
    // sample by sample, so encoded whole.
    if (!f->fixed_layout || f->shares_cluster || image.size() < f->mmv->size) {
      out.files.clear();
      return;  // encoded whole, sample by sample
    }
    out.files.push_back(f);
    for (const MappedMetric& m : f->metrics) {
      instances.push_back(Instances(*f, m));
      // Strings as the image has them (a mapped part's as of its last
      // copy: a string that changed since is refused, and the next
      // template made from the copy the whole path takes).
      std::optional<std::vector<uint32_t>> s = ValueSizes(*f, m, image);
      if (!s.has_value()) {
        out.files.clear();
        return;  // an error set this sample: encoded whole
      }
      sizes.push_back(std::move(*s));
    }
  }
  std::vector<format::SetLayout> layout;
  size_t i = 0;
  for (const auto& f : out.files) {
    for (const MappedMetric& m : f->metrics) {
      layout.push_back({m.desc.pmid, m.desc.type, 0, instances[i], sizes[i]});
      ++i;
    }
  }
  // No metric at all: such a result would read as a <mark>.
  if (layout.empty()) {
    out.files.clear();
    return;
  }
  out.tmpl = format::ResultTemplate::FromLayout(version, {}, layout);
  out.writer = writer;
  if (!out.tmpl.has_value()) {
    out.files.clear();
    return;
  }
  out.plan = ValuePlan::Make(out.files);
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
