// Parses each line of standard input as a derived metric's expression
// (format/derive/derive_parser.h) and prints one line for it:
//   ok                      it parses
//   error POSITION MESSAGE  libpcp's caret position and message ("" if none)
#include <iostream>
#include <string>

#include "format/derive/derive_parser.h"

int main() {
  std::string line;
  while (std::getline(std::cin, line)) {
    const mmvlog::format::DeriveParse p = mmvlog::format::ParseDerived(line);
    if (!p.error.has_value()) {
      std::cout << "ok\n";
    } else {
      std::cout << "error " << p.error->position << " " << p.error->message << "\n";
    }
  }
  return 0;
}
