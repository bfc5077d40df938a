#pragma once
// The TOML that Bottlerocket user data is written in (`settings.kubernetes.max-pods = 20`,
// `[settings.kubernetes.node-labels]`), read into flat (key path, value) entries. The subset
// Bottlerocket's settings use: comments, [table] headers, dotted keys whose parts are bare
// (A-Za-z0-9_-) or quoted ('...' or "..."), and values that are strings, integers, booleans or
// one-line arrays of them. Anything else is an error naming its line in the TOML text.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace eksim::scenario {

struct TomlValue {
  enum class Kind { String, Integer, Boolean, Array } kind = Kind::String;
  std::string text;                 // String; also the source text of Integer and Boolean
  std::int64_t integer = 0;         // Integer
  bool boolean = false;             // Boolean
  std::vector<TomlValue> items;     // Array
};

struct TomlEntry {
  std::vector<std::string> path;  // table header parts, then the key's parts
  TomlValue value;
  int line = 0;                   // 1-based, in the TOML text
};

// A problem in the TOML text; line is 1-based.
struct TomlError : std::runtime_error {
  TomlError(int line, const std::string& message) : std::runtime_error(message), line(line) {}
  int line;
};

// Throws TomlError. A key defined twice is an error, as in TOML.
std::vector<TomlEntry> parse_toml(const std::string& text);

// "settings.kubernetes.node-labels.\"eks.amazonaws.com/nodegroup\"": parts that need quotes get them.
std::string toml_path_text(const std::vector<std::string>& path);

}  // namespace eksim::scenario
