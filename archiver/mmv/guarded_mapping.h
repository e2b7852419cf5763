// GuardedMapping: a read-only shared mapping of a file that another process
// may shrink while it is read. The only place that calls mmap.
//
// Why map at all: a recorder that copies a 100k-value MMV file with pread(2)
// every tick spends as much CPU in that copy as in encoding the values
// (perf: 29% of `mmvlog record` at 100k values), and the floor of any
// recorder reads the values where they are. Why guard: touching a page of a
// mapping past the end of a file that shrank raises SIGBUS, which killed
// pmcd in PCP 6.0.3 (shared/notes/PCP-BEHAVIOUR.md section 1.10).
//
// Read() runs a function over the mapped bytes with a SIGBUS handler armed
// for this thread and this mapping: a fault in the mapping abandons the
// function (siglongjmp) and Read() returns false. A SIGBUS anywhere else is
// left to whatever handled it before (by default: the process dies, as it
// should). The function is abandoned midway, so it must not allocate, own
// or lock anything: copying and storing bytes only.
//
// MapPatched() is the other way to survive a shrinking file, for bytes
// handed on in place to code that cannot be abandoned midway (an archive's
// volume decoded where it lies instead of copied: issue 31): a fault there
// maps zeros over the rest of the mapping and reading goes on; shrank()
// then says so, and the owner, asking it after each use, reports an error
// instead of the zeros.
#ifndef MMVLOG_ARCHIVER_MMV_GUARDED_MAPPING_H_
#define MMVLOG_ARCHIVER_MMV_GUARDED_MAPPING_H_

#include <cstddef>
#include <cstdint>
#include <span>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace mmvlog::archiver {

class GuardedMapping {
 public:
  GuardedMapping() = default;
  // Maps the first `size` bytes of `fd` (size > 0); errors name `path`.
  static absl::StatusOr<GuardedMapping> Map(int fd, size_t size, absl::string_view path);
  // Maps `size` bytes of `fd` from `offset` (a multiple of the page size;
  // size > 0) to be read anywhere, through guarded_bytes(), with no
  // ReadAll: see above. At most kMostPatched at once in a process; beyond
  // that ResourceExhausted (the caller reads the file instead).
  static absl::StatusOr<GuardedMapping> MapPatched(int fd, uint64_t offset, size_t size,
                                                   absl::string_view path);
  static constexpr int kMostPatched = 64;
  GuardedMapping(GuardedMapping&& o) noexcept : data_(o.data_), size_(o.size_), slot_(o.slot_) {
    o.data_ = nullptr;
    o.size_ = 0;
    o.slot_ = -1;
  }
  GuardedMapping& operator=(GuardedMapping&& o) noexcept;
  GuardedMapping(const GuardedMapping&) = delete;
  GuardedMapping& operator=(const GuardedMapping&) = delete;
  ~GuardedMapping();

  bool valid() const { return data_ != nullptr; }
  size_t size() const { return size_; }
  // Asks the CPU to start loading the cache line at `offset` (a hint: it
  // never faults, so it needs no guard).
  void Prefetch(size_t offset) const {
    if (offset < size_) __builtin_prefetch(data_ + offset);
  }
  // Calls fn() with every mapping of `maps` guarded at once (null entries
  // are skipped): a fault in any of them abandons fn and ReadAll returns
  // false. fn reads them through guarded_bytes() and Touch(). One guard a
  // tick, where Read is one a file: a thousand files' reads cost a thousand
  // sigsetjmp calls less (issue 32). Same rules for fn as for Read's.
  template <typename Fn>
  static bool ReadAll(std::span<const GuardedMapping* const> maps, Fn&& fn) {
    return ReadAllImpl(maps, [](void* f) { (*static_cast<Fn*>(f))(); }, &fn);
  }
  // The mapping's bytes, for fn of a ReadAll that guards this mapping (read
  // anywhere else, a shrunken file kills the process), or anywhere for a
  // MapPatched mapping.
  std::span<const uint8_t> guarded_bytes() const { return {data_, size_}; }
  // Whether `at` lies in the mapping (for the SIGBUS handler).
  bool Holds(const void* at) const {
    const auto* p = static_cast<const uint8_t*>(at);
    return p >= data_ && p < data_ + size_;
  }
  // For fn of a ReadAll that guards this mapping: reads a byte of each page
  // of [from, to). Unlike Prefetch, a load that misses the TLB walks the
  // page tables (a prefetch that misses it is dropped on the machines
  // measured), so a page read a little ahead of its use has its walk out of
  // the way, and its prefetches then load (a thousand files are a thousand
  // pages a tick).
  void Touch(size_t from, size_t to) const {
    constexpr size_t kPage = 4096;  // the least page size; a larger one is read more than once
    to = to < size_ ? to : size_;
    for (size_t at = from; at < to; at = (at & ~(kPage - 1)) + kPage) {
      (void)*static_cast<const volatile uint8_t*>(data_ + at);
    }
  }
  void reset();
  // For a MapPatched mapping: whether a read found the file shorter than
  // the mapping (and read zeros there).
  bool shrank() const;

  // Calls fn(bytes) with the mapping's bytes; false when a read faulted
  // (the file shrank under it) and fn was abandoned. REQUIRES: valid(); fn
  // has nothing to clean up (see above).
  template <typename Fn>
  bool Read(Fn&& fn) const {
    const GuardedMapping* const self[] = {this};
    return ReadAll(self, [&] { fn(guarded_bytes()); });
  }

 private:
  static bool ReadAllImpl(std::span<const GuardedMapping* const> maps, void (*thunk)(void*),
                          void* fn);

  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  int slot_ = -1;  // MapPatched's entry in the SIGBUS handler's table
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_MMV_GUARDED_MAPPING_H_
