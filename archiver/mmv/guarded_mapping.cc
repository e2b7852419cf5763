#include "archiver/mmv/guarded_mapping.h"

#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace mmvlog::archiver {
namespace {

// The Read() running on this thread, if any.
struct Guard {
  sigjmp_buf jump;
  const uint8_t* begin;
  const uint8_t* end;
};
thread_local Guard* t_guard = nullptr;

struct sigaction g_previous;

void OnSigbus(int, siginfo_t* info, void*) {
  const Guard* g = t_guard;
  const auto* at = static_cast<const uint8_t*>(info->si_addr);
  // A fault (si_code > 0; a SIGBUS sent with kill has no address) in the
  // mapping being read.
  if (info->si_code > 0 && g != nullptr && at >= g->begin && at < g->end) {
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

bool GuardedMapping::Touch(size_t from, size_t to) const {
  to = std::min(to, size_);
  if (from >= to) return true;
  return Read([from, to](std::span<const uint8_t> bytes) {
    constexpr size_t kPage = 4096;  // the least page size; a larger one is read more than once
    for (size_t at = from; at < to; at = (at & ~(kPage - 1)) + kPage) {
      (void)*static_cast<const volatile uint8_t*>(bytes.data() + at);
    }
  });
}

bool GuardedMapping::ReadImpl(Thunk thunk, void* fn) const {
  Guard guard;
  guard.begin = data_;
  guard.end = data_ + size_;
  Guard* const outer = t_guard;
  if (sigsetjmp(guard.jump, 0) != 0) {
    t_guard = outer;
    return false;
  }
  t_guard = &guard;
  thunk(fn, std::span<const uint8_t>(data_, size_));
  t_guard = outer;
  return true;
}

}  // namespace mmvlog::archiver
