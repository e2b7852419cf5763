// Runs a libFuzzer target's corpus through it without libFuzzer (so g++ CI
// exercises every target on every seed and on each seed's prefixes and
// one-byte changes): corpus_replay DIR... Exits non-zero if a directory is
// missing or empty; a crash or sanitizer report fails the test by itself.
#include <dirent.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

// A copy, so that reading past the input is seen by the sanitizers.
void Run(const std::vector<uint8_t>& input) {
  std::vector<uint8_t> copy(input);
  LLVMFuzzerTestOneInput(copy.empty() ? nullptr : copy.data(), copy.size());
}

}  // namespace

int main(int argc, char** argv) {
  size_t inputs = 0;
  for (int i = 1; i < argc; ++i) {
    DIR* d = ::opendir(argv[i]);
    if (d == nullptr) {
      std::fprintf(stderr, "corpus_replay: cannot open %s\n", argv[i]);
      return 2;
    }
    std::vector<std::string> names;
    while (dirent* e = ::readdir(d)) {
      if (e->d_name[0] != '.') names.push_back(std::string(argv[i]) + "/" + e->d_name);
    }
    ::closedir(d);
    std::sort(names.begin(), names.end());
    for (const std::string& name : names) {
      std::ifstream f(name, std::ios::binary);
      const std::vector<uint8_t> seed((std::istreambuf_iterator<char>(f)),
                                      std::istreambuf_iterator<char>());
      Run(seed);
      // Every prefix (torn inputs) and a flipped byte at a spread of places.
      for (size_t n = 0; n < seed.size(); n += 1 + seed.size() / 256) {
        Run(std::vector<uint8_t>(seed.begin(), seed.begin() + n));
      }
      for (size_t at = 0; at < seed.size(); at += 1 + seed.size() / 64) {
        for (uint8_t x : {uint8_t{0x01}, uint8_t{0x80}, uint8_t{0xff}}) {
          std::vector<uint8_t> changed(seed);
          changed[at] ^= x;
          Run(changed);
        }
      }
      ++inputs;
    }
  }
  std::printf("corpus_replay: %zu inputs\n", inputs);
  return inputs > 0 ? 0 : 1;
}
