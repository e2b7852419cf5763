// ProcessWatch: whether the processes of MMV files flagged MMV_FLAG_PROCESS
// still live, without a system call per file per tick.
//
// pmdammv stops exporting such a file's metrics once its process is gone
// (kill(pid, 0) at each fetch). A recorder asking kill(2) of every flagged
// file every tick makes a host of Speed or Parfait applications (which set
// the flag) cost a call per file per tick (issue 32). Here each process is
// opened once as a pidfd (pidfd_open(2), Linux 5.3), all of them in one
// epoll set: a pidfd becomes readable when its process exits, so one
// non-blocking epoll_wait a tick (Poll) tells which died, however many are
// watched. Where pidfd_open is refused (an older kernel, a process not in
// this PID namespace's view) the answer is kill(2)'s, asked each time. One
// difference from kill(2): a process that exited and was not yet reaped (a
// zombie) is gone here, where kill(pid, 0) still finds it.
#ifndef MMVLOG_ARCHIVER_MMV_PROCESS_WATCH_H_
#define MMVLOG_ARCHIVER_MMV_PROCESS_WATCH_H_

#include <cstdint>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"

namespace mmvlog::archiver {

class ProcessWatch {
 public:
  ProcessWatch() = default;
  ProcessWatch(const ProcessWatch&) = delete;
  ProcessWatch& operator=(const ProcessWatch&) = delete;
  ~ProcessWatch();

  // Whether process `pid` lives (as kill(pid, 0) answers: EPERM is alive),
  // as of the last Poll for a process already watched; a new one is opened
  // and watched from now on. A process seen to exit stays dead (no call)
  // until Forget. Marks `pid` as asked this round.
  bool Alive(int32_t pid);
  // A file naming `pid` was read afresh: the pid may be another process's
  // now, so the next Alive asks again.
  void Forget(int32_t pid) { exited_.erase(pid); }
  // Reads the exits queued since the last Poll (one non-blocking
  // epoll_wait when any process is watched, none otherwise); true when a
  // watched process exited since.
  bool Poll();
  // Stops watching the processes not asked about since the last Sweep.
  void Sweep();
  // Processes watched through a pidfd (for tests).
  size_t watched() const { return fds_.size(); }

 private:
  int epoll_ = -1;  // opened with the first pidfd
  absl::flat_hash_map<int32_t, int> fds_;  // pid -> its pidfd, while alive
  absl::flat_hash_set<int32_t> exited_;    // watched processes seen to exit
  absl::flat_hash_set<int32_t> asked_;     // pids asked since the last Sweep
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_MMV_PROCESS_WATCH_H_
