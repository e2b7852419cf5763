#include "archiver/mmv/guarded_mapping.h"

#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>

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
  // Anything else: as if this handler were not there. A fault returns and
  // its access runs again under the previous disposition; a sent signal is
  // sent again.
  ::sigaction(SIGBUS, &g_previous, nullptr);
  if (info->si_code <= 0) ::raise(SIGBUS);
}

bool InstallHandler() {
  struct sigaction sa {};
  sa.sa_sigaction = OnSigbus;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
  return ::sigaction(SIGBUS, &sa, &g_previous) == 0;
}

}  // namespace

absl::StatusOr<GuardedMapping> GuardedMapping::Map(int fd, size_t size, absl::string_view path) {
  static const bool installed = InstallHandler();
  if (!installed) {
    return absl::InternalError(absl::StrCat(path, ": cannot handle SIGBUS: ", std::strerror(errno)));
  }
  if (size == 0) return absl::InvalidArgumentError(absl::StrCat(path, ": nothing to map"));
  void* p = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    return absl::ErrnoToStatus(errno, absl::StrCat(path, ": mmap of ", size, " bytes"));
  }
  GuardedMapping m;
  m.data_ = static_cast<const uint8_t*>(p);
  m.size_ = size;
  return m;
}

GuardedMapping& GuardedMapping::operator=(GuardedMapping&& o) noexcept {
  if (this != &o) {
    reset();
    data_ = o.data_;
    size_ = o.size_;
    o.data_ = nullptr;
    o.size_ = 0;
  }
  return *this;
}

GuardedMapping::~GuardedMapping() { reset(); }

void GuardedMapping::reset() {
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
