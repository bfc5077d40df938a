#pragma once
// Problems in user input (scenario files, manifests, flags). Thrown while loading, caught once in
// the CLI, printed as `FILE:LINE:COL: error: MESSAGE`, exit code 2.
#include <stdexcept>
#include <string>
#include <vector>

namespace eksim::scenario {

struct Location {
  std::string file;
  int line = 0;    // 1-based; 0 when unknown
  int column = 0;  // 1-based
  // "file:line:col", just "file" when the line is unknown, "eksim" when there is no file (an
  // output that cannot be written, a scenario that cannot be opened), so that every error line
  // starts with something a reader can act on.
  std::string str() const;
};

class InputError : public std::runtime_error {
 public:
  InputError(Location where, const std::string& message);
  const Location& where() const { return where_; }
  const std::string& message() const { return message_; }

 private:
  Location where_;
  std::string message_;
};

// The closest candidate to key by edit distance, or "" when none is close enough to suggest.
std::string did_you_mean(const std::string& key, const std::vector<std::string>& candidates);

}  // namespace eksim::scenario
