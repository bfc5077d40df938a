#pragma once
// Writes JSON text straight to an output, as nlohmann's dump(2) prints it (same indentation,
// string escaping and number format), without building a document first. A week of a fleet
// reports a hundred thousand pods and half a million events: building each as a json value and
// dumping it cost twice the simulation itself.
//
//   JsonWriter w(out);
//   w.begin_object();
//   w.key("name").string("gpu-pod");
//   w.key("restarts").integer(0);
//   w.end_object();
//   w.finish();
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace eksim::report {

class JsonWriter {
 public:
  using Out = std::function<void(std::string_view)>;
  explicit JsonWriter(const Out& out) : out_(out) {}
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;
  ~JsonWriter() { flush(); }

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  // A member's name; the next call writes its value.
  JsonWriter& key(std::string_view name);

  JsonWriter& string(std::string_view s);
  JsonWriter& number(double x);  // non-finite prints null, as nlohmann does
  JsonWriter& integer(std::int64_t n);
  JsonWriter& unsigned_integer(std::uint64_t n);
  JsonWriter& boolean(bool b);
  JsonWriter& null();
  // A string, or null when it is empty / a number, or null when absent.
  JsonWriter& string_or_null(std::string_view s) { return s.empty() ? null() : string(s); }
  JsonWriter& number_or_null(const std::optional<double>& x) { return x ? number(*x) : null(); }

  // Ends the document with a newline and hands the rest of the text to the output.
  void finish();
  void flush();

 private:
  void before_value();
  void escaped(std::string_view s);  // a quoted, escaped string
  void open(char bracket, bool array);
  void close(char bracket);
  void indent(std::size_t depth);
  void maybe_flush() {
    if (buf_.size() >= kFlushBytes) flush();
  }

  static constexpr std::size_t kFlushBytes = 1 << 16;
  const Out& out_;
  std::string buf_;
  struct Level {
    bool array;
    bool empty = true;
  };
  std::vector<Level> stack_;
  bool after_key_ = false;
};

}  // namespace eksim::report
