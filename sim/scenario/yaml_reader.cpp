#include "sim/scenario/yaml_reader.hpp"

#include "sim/scenario/input_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "models/k8s/api/quantity.hpp"
#include "sim/engine/numbers.hpp"
#include "sim/scenario/input_file.hpp"
#include "sim/scenario/input_limits.hpp"
#include "sim/scenario/yaml_documents.hpp"

namespace eksim::scenario {

namespace {
// 0.5, 100, 1e+06: the shortest form that reads back the same.
std::string format_number(double d) {
  std::ostringstream out;
  out.imbue(std::locale::classic());
  out << d;
  return out.str();
}
}  // namespace

Location Value::where() const {
  const YAML::Mark m = node_.Mark();
  if (m.line < 0) return Location{*file_, 0, 0};
  return Location{*file_, m.line + 1, m.column + 1};
}

void Value::fail(const std::string& message) const { throw InputError(where(), message); }

std::string Value::kind_name() const {
  if (node_.IsMap()) return "a mapping";
  if (node_.IsSequence()) return "a sequence";
  if (node_.IsNull()) return "null";
  return "\"" + node_.Scalar() + "\"";
}

std::string Value::as_string(const char* what) const {
  if (!node_.IsScalar()) fail(std::string("expected ") + what + ", got " + kind_name());
  return node_.Scalar();
}

std::int64_t Value::as_int(const char* what) const {
  if (!node_.IsScalar()) fail(std::string("expected ") + what + ", got " + kind_name());
  const std::string& s = node_.Scalar();
  auto n = engine::parse_integer<std::int64_t>(s);
  if (n.status == engine::NumberStatus::OutOfRange) fail(std::string("expected ") + what + ", got \"" + s + "\" (out of range)");
  if (!n.ok()) fail(std::string("expected ") + what + ", got \"" + s + "\"");
  return n.value;
}

std::int64_t Value::as_int_in(std::int64_t lo, std::int64_t hi, const char* what) const {
  std::int64_t v = as_int(what);
  if (v < lo || v > hi)
    fail(std::string("expected ") + what + " from " + std::to_string(lo) + " to " + std::to_string(hi) + ", got " +
         std::to_string(v));
  return v;
}

std::int64_t Value::as_non_negative(const char* what) const {
  std::int64_t v = as_int(what);
  if (v < 0) fail(std::string("expected ") + what + ", got " + std::to_string(v));
  return v;
}

double Value::as_double(const char* what) const {
  if (!node_.IsScalar()) fail(std::string("expected ") + what + ", got " + kind_name());
  const std::string& s = node_.Scalar();
  auto d = engine::parse_real(s);
  if (d.status == engine::NumberStatus::OutOfRange) fail(std::string("expected ") + what + ", got \"" + s + "\" (out of range)");
  if (!d.ok()) fail(std::string("expected ") + what + ", got \"" + s + "\"");
  return d.value;
}

double Value::as_double_in(double lo, double hi, const char* what) const {
  double v = as_double(what);
  if (v < lo || v > hi)
    fail(std::string("expected ") + what + " from " + format_number(lo) + " to " + format_number(hi) + ", got " +
         node_.Scalar());
  return v;
}

bool Value::as_bool() const {
  if (node_.IsScalar()) {
    const std::string& s = node_.Scalar();
    if (s == "true" || s == "True" || s == "TRUE") return true;
    if (s == "false" || s == "False" || s == "FALSE") return false;
  }
  fail("expected true or false, got " + kind_name());
}

engine::Duration Value::as_duration() const {
  std::optional<engine::Duration> d;
  if (node_.IsScalar()) d = engine::parse_duration(node_.Scalar());
  if (!d || d->us < 0) fail("expected a duration such as 90s, 15m or 1h30m, got " + kind_name());
  // No run lasts longer, and a time plus a longer duration could overflow the clock.
  if (*d > kMaxSimulatedTime)
    fail("duration must be at most " + engine::format_duration(kMaxSimulatedTime) + " (one year), got " +
         engine::format_duration(*d));
  return *d;
}

std::int64_t Value::as_rfc3339_seconds(const char* field) const {
  std::optional<std::int64_t> us;
  if (node_.IsScalar()) us = engine::parse_rfc3339(node_.Scalar());
  if (!us)
    fail(std::string(field) + " must be an RFC 3339 time from 1970 to 9999 such as 2026-01-01T00:00:00Z, got " +
         kind_name());
  if (*us % 1000000 != 0) fail(std::string(field) + " must be a whole second, got " + kind_name());
  return *us / 1000000;
}

std::int64_t Value::as_quantity() const {
  if (node_.IsScalar()) {
    auto q = k8s::parse_quantity(node_.Scalar());
    if (q && *q >= 0) return *q;
  }
  fail("expected a quantity such as 500m, 2 or 1Gi, got " + kind_name());
}

std::string Value::as_key(const char* what) const {
  if (!node_.IsScalar()) fail(std::string("expected ") + what + " as key, got " + kind_name());
  return node_.Scalar();
}

std::vector<MapEntry> Value::entries(const char* what) const {
  if (!node_.IsMap()) fail("expected a mapping, got " + kind_name());
  std::vector<MapEntry> out;
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    Value key(it->first, file_);
    out.push_back(MapEntry{key.as_key(what), key, Value(it->second, file_)});
  }
  return out;
}

std::vector<Value> Value::items() const {
  if (!node_.IsSequence()) fail("expected a list, got " + kind_name());
  std::vector<Value> out;
  for (const auto& item : node_) out.emplace_back(item, file_);
  return out;
}

std::vector<std::string> Value::as_string_list() const {
  std::vector<std::string> out;
  for (const auto& item : items()) out.push_back(item.as_string());
  return out;
}

std::map<std::string, std::string> Value::as_string_map() const {
  if (!node_.IsMap()) fail("expected a mapping of strings, got " + kind_name());
  std::map<std::string, std::string> out;
  for (const auto& [key, k, v] : entries("a string"))
    out[key] = v.is_null() ? std::string() : v.as_string("a string value");
  return out;
}

MapReader::MapReader(const Value& v, std::string what) : value_(v), what_(std::move(what)) {
  if (!v.is_map()) v.fail("expected a mapping for " + what_ + ", got " + v.kind_name());
}

bool MapReader::has(const std::string& key) const { return static_cast<bool>(value_.node()[key]); }

std::optional<Value> MapReader::get(const std::string& key) {
  known_.insert(key);
  YAML::Node n = value_.node()[key];
  if (!n) return std::nullopt;
  return Value(n, value_.file_ptr());
}

Value MapReader::require(const std::string& key) {
  auto v = get(key);
  if (!v) value_.fail("missing required key \"" + key + "\" in " + what_);
  return *v;
}

void MapReader::allow(std::initializer_list<const char*> keys) {
  for (const char* k : keys) known_.insert(k);
}

std::vector<std::pair<std::string, Location>> MapReader::unread_keys() const {
  std::vector<std::pair<std::string, Location>> out;
  for (auto it = value_.node().begin(); it != value_.node().end(); ++it) {
    Value k(it->first, value_.file_ptr());
    std::string key = k.as_key("a name");
    if (!known_.count(key)) out.emplace_back(key, k.where());
  }
  return out;
}

void MapReader::finish() {
  auto unread = unread_keys();
  if (unread.empty()) return;
  const auto& [key, where] = unread.front();
  std::vector<std::string> candidates(known_.begin(), known_.end());
  std::string hint = did_you_mean(key, candidates);
  std::string msg = "unknown key \"" + key + "\" in " + what_;
  if (!hint.empty()) msg += "; did you mean \"" + hint + "\"?";
  throw InputError(where, msg);
}

std::vector<Value> FileLoader::load_documents(const std::string& path, const std::optional<Location>& from) {
  Location at = from.value_or(Location{});  // a file named on the command line: no place in a file
  std::string text = read_input_file(path, at);
  auto file = std::make_shared<const std::string>(path);
  std::vector<Value> docs;
  for (auto& doc : parse_yaml_documents(text, path))
    if (doc && !doc.IsNull()) docs.emplace_back(doc, file);
  return docs;
}

std::string FileLoader::resolve(const std::string& including_file, const std::string& path) {
  std::filesystem::path p(path);
  if (p.is_absolute()) return p.lexically_normal().string();
  return (std::filesystem::path(including_file).parent_path() / p).lexically_normal().string();
}

bool FileLoader::push(const std::string& canonical_path) {
  if (std::find(stack_.begin(), stack_.end(), canonical_path) != stack_.end()) return false;
  stack_.push_back(canonical_path);
  return true;
}

void FileLoader::pop() { stack_.pop_back(); }

}  // namespace eksim::scenario
