// peak_rss COMMAND [ARG...]: runs COMMAND with its standard output thrown
// away and prints "<exit status> <peak RSS in KiB>" (its ru_maxrss from
// wait4). A small program of its own, so that the peak measured is the
// command's: ru_maxrss counts the image a child was forked from, and a
// Python test's is tens of megabytes.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: peak_rss COMMAND [ARG...]\n");
    return 2;
  }
  const pid_t pid = fork();
  if (pid < 0) {
    std::perror("peak_rss: fork");
    return 2;
  }
  if (pid == 0) {
    const int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, 1);
    execv(argv[1], argv + 1);
    std::perror("peak_rss: exec");
    _exit(127);
  }
  int status = 0;
  struct rusage ru;
  if (wait4(pid, &status, 0, &ru) != pid) {
    std::perror("peak_rss: wait4");
    return 2;
  }
  std::printf("%d %ld\n", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), ru.ru_maxrss);
  return 0;
}
