#include "sim/report/json_writer.hpp"

#include <charconv>
#include <cmath>
#include <cstring>

#include <nlohmann/detail/conversions/to_chars.hpp>

namespace eksim::report {

void JsonWriter::indent(std::size_t depth) { buf_.append(2 * depth, ' '); }

// Where a value starts: after a member's name, or as the next element of an array (on its own
// line, indented), or as the document itself.
void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (stack_.empty()) return;
  Level& l = stack_.back();
  buf_ += l.empty ? "\n" : ",\n";
  l.empty = false;
  indent(stack_.size());
}

JsonWriter& JsonWriter::key(std::string_view name) {
  Level& l = stack_.back();
  buf_ += l.empty ? "\n" : ",\n";
  l.empty = false;
  indent(stack_.size());
  escaped(name);
  buf_ += ": ";
  after_key_ = true;
  return *this;
}

void JsonWriter::open(char bracket, bool array) {
  before_value();
  buf_ += bracket;
  stack_.push_back(Level{array});
}

void JsonWriter::close(char bracket) {
  const bool empty = stack_.back().empty;
  stack_.pop_back();
  if (!empty) {
    buf_ += '\n';
    indent(stack_.size());
  }
  buf_ += bracket;
  maybe_flush();
}

JsonWriter& JsonWriter::begin_object() {
  open('{', false);
  return *this;
}
JsonWriter& JsonWriter::end_object() {
  close('}');
  return *this;
}
JsonWriter& JsonWriter::begin_array() {
  open('[', true);
  return *this;
}
JsonWriter& JsonWriter::end_array() {
  close(']');
  return *this;
}

namespace {

// Whether any of the eight bytes at p is a control character, a quote or a backslash (the
// "has less than" and "has zero byte" bit tricks on one 64-bit word).
bool needs_escape(const char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, sizeof v);
  constexpr std::uint64_t kOnes = 0x0101010101010101ull, kHighs = 0x8080808080808080ull;
  auto has_zero = [](std::uint64_t x) { return (x - kOnes) & ~x & kHighs; };
  const std::uint64_t control = (v - kOnes * 0x20) & ~v & kHighs;
  return (control | has_zero(v ^ (kOnes * '"')) | has_zero(v ^ (kOnes * '\\'))) != 0;
}

}  // namespace

// nlohmann's dump_escaped without ensure_ascii: the two-character escapes, \u00xx for the other
// control characters, everything else (UTF-8 included) as is.
JsonWriter& JsonWriter::string(std::string_view s) {
  before_value();
  escaped(s);
  maybe_flush();
  return *this;
}

void JsonWriter::escaped(std::string_view s) {
  buf_ += '"';
  std::size_t run = 0;  // start of the bytes not yet copied
  for (std::size_t i = 0; i < s.size(); ++i) {
    // Most text needs no escape: skip it eight bytes at a time.
    while (i + 8 <= s.size() && !needs_escape(s.data() + i)) i += 8;
    if (i == s.size()) break;
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    buf_.append(s.substr(run, i - run));
    run = i + 1;
    switch (c) {
      case '\b': buf_ += "\\b"; break;
      case '\t': buf_ += "\\t"; break;
      case '\n': buf_ += "\\n"; break;
      case '\f': buf_ += "\\f"; break;
      case '\r': buf_ += "\\r"; break;
      case '"': buf_ += "\\\""; break;
      case '\\': buf_ += "\\\\"; break;
      default: {
        static constexpr char kHex[] = "0123456789abcdef";
        buf_ += "\\u00";
        buf_ += kHex[c >> 4];
        buf_ += kHex[c & 0xF];
      }
    }
  }
  buf_.append(s.substr(run));
  buf_ += '"';
}

JsonWriter& JsonWriter::number(double x) {
  if (!std::isfinite(x)) return null();
  before_value();
  // nlohmann's own shortest round-trip formatting, so the report reads as it always has.
  char text[64];
  char* end = nlohmann::detail::to_chars(text, text + sizeof text, x);
  buf_.append(text, end);
  return *this;
}

JsonWriter& JsonWriter::integer(std::int64_t n) {
  before_value();
  char text[24];
  auto r = std::to_chars(text, text + sizeof text, n);
  buf_.append(text, r.ptr);
  return *this;
}

JsonWriter& JsonWriter::unsigned_integer(std::uint64_t n) {
  before_value();
  char text[24];
  auto r = std::to_chars(text, text + sizeof text, n);
  buf_.append(text, r.ptr);
  return *this;
}

JsonWriter& JsonWriter::boolean(bool b) {
  before_value();
  buf_ += b ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::null() {
  before_value();
  buf_ += "null";
  return *this;
}

void JsonWriter::finish() {
  buf_ += '\n';
  flush();
}

void JsonWriter::flush() {
  if (buf_.empty()) return;
  out_(buf_);
  buf_.clear();
}

}  // namespace eksim::report
