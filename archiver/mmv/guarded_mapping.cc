#include "archiver/mmv/guarded_mapping.h"

#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace mmvlog::archiver {
namespace {

// The Read() or ReadAll() running on this thread, if any, and the
// mappings it guards (Read: its own).
struct Guard {
  sigjmp_buf jump;
  std::span<const GuardedMapping* const> maps;
};
thread_local Guard* t_guard = nullptr;

struct sigaction g_previous;

// The MapPatched mappings: [begin, end) of each, or 0 for a free entry (1
// while it is being filled in); lock-free, for the handler.
struct Patched {
  std::atomic<uintptr_t> begin{0};
  std::atomic<uintptr_t> end{0};
  std::atomic<bool> shrank{false};
};
Patched g_patched[GuardedMapping::kMostPatched];
uintptr_t g_page = 4096;

// Maps zeros from the page of `at` to the end of the MapPatched mapping
// holding it, if one does; true then.
bool PatchWithZeros(uintptr_t at) {
  for (Patched& p : g_patched) {
    const uintptr_t begin = p.begin.load(std::memory_order_acquire);
    const uintptr_t end = p.end.load(std::memory_order_acquire);
    if (begin <= 1 || at < begin || at >= end) continue;
    const uintptr_t page = at & ~(g_page - 1);
    // mmap is a plain system call here, safe in a handler in practice.
    if (::mmap(reinterpret_cast<void*>(page), end - page, PROT_READ,
               MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) {
      return false;
    }
    p.shrank.store(true, std::memory_order_release);
    return true;
  }
  return false;
}

void OnSigbus(int, siginfo_t* info, void*) {
  const Guard* g = t_guard;
  const auto* at = static_cast<const uint8_t*>(info->si_addr);
  // A fault (si_code > 0; a SIGBUS sent with kill has no address) in a
  // mapping being read.
  bool ours = false;
  if (g != nullptr) {
    for (const GuardedMapping* m : g->maps) ours |= m != nullptr && m->Holds(at);
  }
  if (info->si_code > 0 && ours) {
    // The mask is not restored (sigsetjmp(..., 0): no syscall per Read);
    // SA_NODEFER left SIGBUS unblocked.
    siglongjmp(const_cast<Guard*>(g)->jump, 1);
  }
  // A fault in a MapPatched mapping: its access runs again and reads zeros.
  if (info->si_code > 0 && PatchWithZeros(reinterpret_cast<uintptr_t>(at))) return;
  // Anything else: as if this handler were not there. A fault returns and
  // its access runs again under the previous disposition; a sent signal is
  // sent again.
  ::sigaction(SIGBUS, &g_previous, nullptr);
  if (info->si_code <= 0) ::raise(SIGBUS);
}

bool InstallHandler() {
  g_page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  struct sigaction sa {};
  sa.sa_sigaction = OnSigbus;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
  return ::sigaction(SIGBUS, &sa, &g_previous) == 0;
}

// What Map and MapPatched need first: the handler, installed once at the
// first mapping for both, and something to map.
absl::Status Mappable(size_t size, absl::string_view path) {
  static const bool installed = InstallHandler();
  if (!installed) {
    return absl::InternalError(absl::StrCat(path, ": cannot handle SIGBUS: ", std::strerror(errno)));
  }
  if (size == 0) return absl::InvalidArgumentError(absl::StrCat(path, ": nothing to map"));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<GuardedMapping> GuardedMapping::Map(int fd, size_t size, absl::string_view path) {
  if (absl::Status s = Mappable(size, path); !s.ok()) return s;
  void* p = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    return absl::ErrnoToStatus(errno, absl::StrCat(path, ": mmap of ", size, " bytes"));
  }
  GuardedMapping m;
  m.data_ = static_cast<const uint8_t*>(p);
  m.size_ = size;
  return m;
}

absl::StatusOr<GuardedMapping> GuardedMapping::MapPatched(int fd, uint64_t offset, size_t size,
                                                          absl::string_view path) {
  if (absl::Status s = Mappable(size, path); !s.ok()) return s;
  int slot = -1;
  for (int i = 0; i < kMostPatched && slot < 0; ++i) {
    uintptr_t free = 0;
    if (g_patched[i].begin.compare_exchange_strong(free, 1)) slot = i;
  }
  if (slot < 0) {
    return absl::ResourceExhaustedError(
        absl::StrCat(path, ": more than ", kMostPatched, " files mapped at once"));
  }
  void* p = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, static_cast<off_t>(offset));
  if (p == MAP_FAILED) {
    g_patched[slot].begin.store(0, std::memory_order_release);
    return absl::ErrnoToStatus(errno, absl::StrCat(path, ": mmap of ", size, " bytes at offset ",
                                                   offset));
  }
  Patched& e = g_patched[slot];
  e.shrank.store(false, std::memory_order_relaxed);
  e.end.store(reinterpret_cast<uintptr_t>(p) + size, std::memory_order_release);
  e.begin.store(reinterpret_cast<uintptr_t>(p), std::memory_order_release);
  GuardedMapping m;
  m.data_ = static_cast<const uint8_t*>(p);
  m.size_ = size;
  m.slot_ = slot;
  return m;
}

GuardedMapping& GuardedMapping::operator=(GuardedMapping&& o) noexcept {
  if (this != &o) {
    reset();
    data_ = o.data_;
    size_ = o.size_;
    slot_ = o.slot_;
    o.data_ = nullptr;
    o.size_ = 0;
    o.slot_ = -1;
  }
  return *this;
}

GuardedMapping::~GuardedMapping() { reset(); }

bool GuardedMapping::shrank() const {
  return slot_ >= 0 && g_patched[slot_].shrank.load(std::memory_order_acquire);
}

void GuardedMapping::reset() {
  if (slot_ >= 0) {
    // Out of the handler's table first: nothing of it is read any more.
    g_patched[slot_].end.store(0, std::memory_order_release);
    g_patched[slot_].begin.store(0, std::memory_order_release);
    slot_ = -1;
  }
  if (data_ != nullptr) ::munmap(const_cast<uint8_t*>(data_), size_);
  data_ = nullptr;
  size_ = 0;
}

bool GuardedMapping::ReadAllImpl(std::span<const GuardedMapping* const> maps,
                                 void (*thunk)(void*), void* fn) {
  Guard guard;
  guard.maps = maps;
  Guard* const outer = t_guard;
  if (sigsetjmp(guard.jump, 0) != 0) {
    t_guard = outer;
    return false;
  }
  t_guard = &guard;
  thunk(fn);
  t_guard = outer;
  return true;
}

}  // namespace mmvlog::archiver
