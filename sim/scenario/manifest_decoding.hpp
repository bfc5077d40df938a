#pragma once
// Decoding Kubernetes manifests the way the API server does (sigs.k8s.io/yaml into Go structs,
// strict field decoding, field.Error texts): the toolkit the manifest readers share. Internal to
// sim/scenario.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/scenario/k8s_manifest.hpp"
#include "sim/scenario/k8s_syntax.hpp"

namespace eksim::scenario::manifest {

// ---- field paths and error texts (k8s.io/apimachinery/pkg/util/validation/field) ----------

std::string child(const std::string& path, const std::string& key);
std::string index(const std::string& path, std::size_t i);
std::string keyed(const std::string& path, const std::string& k);

// Go's %q for the ASCII texts manifests hold.
std::string quote(const std::string& s);

std::string quote_list(const std::vector<std::string>& values);

// Field values print as JSON since Kubernetes 1.33 (`{"app":"web"}`).
std::string json_map(const k8s::Labels& m);

std::string fe_invalid(const std::string& path, const std::string& bad, const std::string& detail);
std::string fe_required(const std::string& path, const std::string& detail = "");
std::string fe_not_supported(const std::string& path, const std::string& bad, const std::vector<std::string>& ok);
std::string fe_duplicate(const std::string& path, const std::string& bad);
std::string fe_forbidden(const std::string& path, const std::string& detail);

// Go struct field path for encoding/json messages: indices and keys are dropped.
std::string go_path(const std::string& path);

// What one object's errors are prefixed with, as kubectl prints them.
struct Ctx {
  ObjectRef ref;
  [[noreturn]] void invalid(const Value& at, const std::string& field_error) const {
    at.fail("The " + ref.kind + " " + quote(ref.name) + " is invalid: " + field_error);
  }
  [[noreturn]] void decode(const Value& at, const std::string& message) const {
    at.fail(ref.kind + " in version " + quote(ref.version) + " cannot be handled as a " + ref.kind + ": " + message);
  }
};

// ---- YAML scalars as sigs.k8s.io/yaml (go-yaml v2, YAML 1.1) turns them into JSON -----------

enum class JsonType { Null, Bool, Number, String, Object, Array };

const char* json_type_name(JsonType t);

JsonType json_type(const Value& v);

[[noreturn]] void type_error(const Ctx& ctx, const Value& v, JsonType got, const char* go_struct, const std::string& path,
                             const char* go_type);

std::string str(const Ctx& ctx, const Value& v, const char* go_struct, const std::string& path);

std::int64_t integer(const Ctx& ctx, const Value& v, const char* go_struct, const std::string& path, const char* go_type);

bool boolean(const Ctx& ctx, const Value& v, const char* go_struct, const std::string& path);

std::vector<Value> list(const Ctx& ctx, const Value& v, const char* go_struct, const std::string& path,
                        const char* go_type);

std::vector<std::string> str_list(const Ctx& ctx, const Value& v, const char* go_struct, const std::string& path);

// ---- strict field reading ------------------------------------------------------------------

// A mapping whose every key must be read or allowed; unknown keys are strict decoding errors
// with the full field path, as the API server reports them, plus a did-you-mean.
class Fields {
 public:
  Fields(const Ctx& ctx, const Value& v, std::string path, const char* go_struct, const char* go_type)
      : ctx_(ctx), value_(v), path_(std::move(path)) {
    JsonType t = json_type(v);
    if (t != JsonType::Object && t != JsonType::Null) type_error(ctx, v, t, go_struct, path_, go_type);
  }
  std::optional<Value> get(const std::string& key) {
    known_.push_back(key);
    if (!value_.is_map()) return std::nullopt;
    YAML::Node n = value_.node()[key];
    if (!n) return std::nullopt;
    Value v(n, value_.file_ptr());
    if (v.is_null()) return std::nullopt;  // JSON null: the field keeps its default
    return v;
  }
  void allow(std::initializer_list<const char*> keys) { known_.insert(known_.end(), keys.begin(), keys.end()); }
  void allow(const std::vector<const char*>& keys) { known_.insert(known_.end(), keys.begin(), keys.end()); }
  std::string path(const std::string& key) const { return child(path_, key); }
  const Value& self() const { return value_; }
  void finish() const {
    if (!value_.is_map()) return;
    for (const auto& [key, k, val] : value_.entries("a field name")) {
      if (std::find(known_.begin(), known_.end(), key) != known_.end()) continue;
      std::string hint = did_you_mean(key, known_);
      std::string msg = "strict decoding error: unknown field " + quote(child(path_, key));
      if (!hint.empty()) msg += "; did you mean " + quote(hint) + "?";
      ctx_.decode(k, msg);
    }
  }

 private:
  const Ctx& ctx_;
  Value value_;
  std::string path_;
  std::vector<std::string> known_;
};

}  // namespace eksim::scenario::manifest
