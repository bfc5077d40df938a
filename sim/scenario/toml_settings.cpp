#include "sim/scenario/toml_settings.hpp"

#include <cctype>
#include <set>

#include "sim/engine/numbers.hpp"

namespace eksim::scenario {

namespace {

bool bare_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; }

struct LineReader {
  const std::string& s;
  std::size_t i = 0;
  int line;

  [[noreturn]] void fail(const std::string& m) const { throw TomlError(line, m); }
  void skip_space() {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  }
  bool at_end_or_comment() {
    skip_space();
    return i >= s.size() || s[i] == '#';
  }
  std::string quoted() {
    char q = s[i++];
    std::string out;
    while (i < s.size() && s[i] != q) {
      if (q == '"' && s[i] == '\\' && i + 1 < s.size()) {
        char e = s[++i];
        switch (e) {
          case 'n': out += '\n'; break;
          case 't': out += '\t'; break;
          case '"': out += '"'; break;
          case '\\': out += '\\'; break;
          default: fail(std::string("unsupported escape \\") + e + " in a string");
        }
        ++i;
        continue;
      }
      out += s[i++];
    }
    if (i >= s.size()) fail("unterminated string");
    ++i;
    return out;
  }
  std::vector<std::string> key() {
    std::vector<std::string> parts;
    for (;;) {
      skip_space();
      if (i < s.size() && (s[i] == '"' || s[i] == '\'')) {
        parts.push_back(quoted());
      } else {
        std::size_t start = i;
        while (i < s.size() && bare_char(s[i])) ++i;
        if (start == i) fail("expected a key");
        parts.push_back(s.substr(start, i - start));
      }
      skip_space();
      if (i < s.size() && s[i] == '.') {
        ++i;
        continue;
      }
      return parts;
    }
  }
  TomlValue value() {
    skip_space();
    if (i >= s.size()) fail("expected a value");
    TomlValue v;
    if (s[i] == '"' || s[i] == '\'') {
      v.kind = TomlValue::Kind::String;
      v.text = quoted();
      return v;
    }
    if (s[i] == '[') {
      ++i;
      v.kind = TomlValue::Kind::Array;
      for (;;) {
        skip_space();
        if (i < s.size() && s[i] == ']') {
          ++i;
          return v;
        }
        v.items.push_back(value());
        skip_space();
        if (i < s.size() && s[i] == ',') {
          ++i;
          continue;
        }
        if (i < s.size() && s[i] == ']') continue;
        fail("expected ',' or ']' in an array (eksim reads one-line arrays)");
      }
    }
    if (s[i] == '{') fail("inline tables are not supported; write a [table] header instead");
    std::size_t start = i;
    while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i])) && s[i] != ',' && s[i] != ']' && s[i] != '#')
      ++i;
    v.text = s.substr(start, i - start);
    if (v.text == "true" || v.text == "false") {
      v.kind = TomlValue::Kind::Boolean;
      v.boolean = v.text == "true";
      return v;
    }
    std::string digits;
    for (char c : v.text)
      if (c != '_') digits += c;
    auto n = engine::parse_integer<std::int64_t>(digits);
    if (!n.ok()) fail("invalid value \"" + v.text + "\" (a quoted string, an integer, true/false or an array)");
    v.kind = TomlValue::Kind::Integer;
    v.integer = n.value;
    return v;
  }
};

}  // namespace

std::string toml_path_text(const std::vector<std::string>& path) {
  std::string out;
  for (const auto& p : path) {
    bool bare = !p.empty();
    for (char c : p) bare = bare && bare_char(c);
    if (!out.empty()) out += '.';
    out += bare ? p : "\"" + p + "\"";
  }
  return out;
}

std::vector<TomlEntry> parse_toml(const std::string& text) {
  std::vector<TomlEntry> out;
  std::vector<std::string> table;
  std::set<std::vector<std::string>> seen;
  int line_no = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t nl = text.find('\n', pos);
    std::string line = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    pos = nl == std::string::npos ? text.size() + 1 : nl + 1;
    ++line_no;
    LineReader r{line, 0, line_no};
    if (r.at_end_or_comment()) continue;
    if (line[r.i] == '[') {
      ++r.i;
      if (r.i < line.size() && line[r.i] == '[') r.fail("arrays of tables ([[...]]) are not supported");
      table = r.key();
      if (r.i >= line.size() || line[r.i] != ']') r.fail("expected ']' after the table name");
      ++r.i;
      if (!r.at_end_or_comment()) r.fail("unexpected text after the table header");
      continue;
    }
    TomlEntry e;
    e.line = line_no;
    e.path = table;
    auto k = r.key();
    e.path.insert(e.path.end(), k.begin(), k.end());
    if (r.i >= line.size() || line[r.i] != '=') r.fail("expected '=' after the key " + toml_path_text(k));
    ++r.i;
    e.value = r.value();
    if (!r.at_end_or_comment()) r.fail("unexpected text after the value");
    if (!seen.insert(e.path).second) r.fail("duplicate key " + toml_path_text(e.path));
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace eksim::scenario
