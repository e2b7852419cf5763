#include "archiver/file/file_syscalls.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>

namespace mmvlog::archiver {
namespace {

int RealOpen(const char* path, int flags, mode_t mode) { return ::open(path, flags, mode); }

const FileSyscallTable kReal = {RealOpen, ::write, ::fdatasync, ::ftruncate, ::close};

std::atomic<const FileSyscallTable*> g_table{&kReal};

}  // namespace

const FileSyscallTable& FileSyscalls() { return *g_table.load(std::memory_order_acquire); }

void SetFileSyscallsForTesting(const FileSyscallTable* table) {
  g_table.store(table != nullptr ? table : &kReal, std::memory_order_release);
}

const FileSyscallTable& RealFileSyscalls() { return kReal; }

}  // namespace mmvlog::archiver
