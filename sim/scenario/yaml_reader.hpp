#pragma once
// A located, strict view of YAML (and JSON, a YAML subset) input.
//
// Every value remembers its file and position so that any problem found while converting it can
// be reported as FILE:LINE:COL. A MapReader records which keys the loader asked for; finish()
// turns every other key into an "unknown key" error with a did-you-mean, so nothing in a scenario
// is silently ignored.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sim/engine/time.hpp"
#include "sim/scenario/input_error.hpp"

namespace eksim::scenario {

struct MapEntry;

class Value {
 public:
  Value(YAML::Node node, std::shared_ptr<const std::string> file) : node_(std::move(node)), file_(std::move(file)) {}

  const YAML::Node& node() const { return node_; }
  const std::string& file() const { return *file_; }
  std::shared_ptr<const std::string> file_ptr() const { return file_; }
  Location where() const;
  [[noreturn]] void fail(const std::string& message) const;

  bool is_map() const { return node_.IsMap(); }
  bool is_seq() const { return node_.IsSequence(); }
  bool is_scalar() const { return node_.IsScalar(); }
  bool is_null() const { return node_.IsNull(); }
  // "mapping", "sequence", "string", "null"
  std::string kind_name() const;

  std::string as_string(const char* what = "a string") const;
  std::int64_t as_int(const char* what = "an integer") const;
  // An integer that must be >= 0 ("negative sizes" are input errors).
  std::int64_t as_non_negative(const char* what = "a non-negative integer") const;
  // An integer in [lo, hi]; the bounds are part of the message.
  std::int64_t as_int_in(std::int64_t lo, std::int64_t hi, const char* what = "an integer") const;
  // A finite number; "1e400" and "1e-400" are out of range, not infinity or zero.
  double as_double(const char* what = "a number") const;
  double as_double_in(double lo, double hi, const char* what = "a number") const;
  bool as_bool() const;
  // A Go duration from 0 to one year (kMaxSimulatedTime): longer is no run's concern and could
  // overflow the clock when added to a time.
  engine::Duration as_duration() const;
  // An RFC 3339 time in whole seconds ("2026-01-01T00:00:00Z", "2026-01-01T09:00:00+09:00") as
  // Unix seconds; field names it in the message.
  std::int64_t as_rfc3339_seconds(const char* field) const;
  // Kubernetes quantity in milli-units (see models/k8s/api/quantity.hpp).
  std::int64_t as_quantity() const;
  // This value read as a mapping key naming something: a plain scalar. A complex key
  // (`? [a, b]: x`) or a null one (`~: x`) is a located error, "expected WHAT as key, got ...".
  std::string as_key(const char* what = "a name") const;
  // The one way to walk a mapping whose keys are names (node groups, workloads, add-on values,
  // ...): every key read with as_key, in document order. Error if not a mapping.
  std::vector<MapEntry> entries(const char* what = "a name") const;
  std::vector<Value> items() const;  // a sequence's elements; error if not a sequence
  std::vector<std::string> as_string_list() const;
  // A mapping of scalar values, e.g. labels; error on nested values.
  std::map<std::string, std::string> as_string_map() const;

 private:
  YAML::Node node_;
  std::shared_ptr<const std::string> file_;
};

// One key: value pair of a mapping, the key read as a name (see Value::entries).
struct MapEntry {
  std::string name;
  Value key;
  Value value;
};

class MapReader {
 public:
  // what names the object in messages ("node group \"gpu\"").
  explicit MapReader(const Value& v, std::string what = "this object");

  const Value& self() const { return value_; }
  bool has(const std::string& key) const;
  std::optional<Value> get(const std::string& key);
  Value require(const std::string& key);
  // Declares keys that are accepted and deliberately not read (standard Kubernetes fields the
  // simulator does not model), so finish() does not reject them.
  void allow(std::initializer_list<const char*> keys);
  // Errors on the first key that was neither read nor allowed, suggesting the nearest known key.
  void finish();
  // Keys present that were neither read nor allowed (for the module's silent-ignore semantics).
  std::vector<std::pair<std::string, Location>> unread_keys() const;

 private:
  Value value_;
  std::string what_;
  std::set<std::string> known_;
};

// Reads a YAML/JSON file; multi-document files give several values. Malformed YAML, a missing
// file and empty documents are InputErrors located at the including place (from).
class FileLoader {
 public:
  std::vector<Value> load_documents(const std::string& path, const std::optional<Location>& from);
  // Resolves a `file:` path relative to the file that names it.
  static std::string resolve(const std::string& including_file, const std::string& path);
  // Include-cycle guard: push returns false if path is already being loaded.
  bool push(const std::string& canonical_path);
  void pop();

 private:
  std::vector<std::string> stack_;
};

}  // namespace eksim::scenario
