#include "sim/scenario/manifest_decoding.hpp"

#include <set>

#include "sim/engine/numbers.hpp"

namespace eksim::scenario::manifest {

// ---- field paths and error texts (k8s.io/apimachinery/pkg/util/validation/field) ----------

std::string child(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }
std::string index(const std::string& path, std::size_t i) { return path + "[" + std::to_string(i) + "]"; }
std::string keyed(const std::string& path, const std::string& k) { return path + "[" + k + "]"; }

// Go's %q for the ASCII texts manifests hold.
std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') { out += "\\n"; continue; }
    if (c == '\t') { out += "\\t"; continue; }
    out += c;
  }
  return out + "\"";
}

std::string quote_list(const std::vector<std::string>& values) {
  std::string out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) out += ", ";
    out += quote(values[i]);
  }
  return out;
}

// Field values print as JSON since Kubernetes 1.33 (`{"app":"web"}`).
std::string json_map(const k8s::Labels& m) {
  std::string out = "{";
  bool first = true;
  for (const auto& [k, v] : m) {
    if (!first) out += ',';
    out += quote(k);
    out += ':';
    out += quote(v);
    first = false;
  }
  return out + "}";
}

std::string fe_invalid(const std::string& path, const std::string& bad, const std::string& detail) {
  return path + ": Invalid value: " + bad + ": " + detail;
}
std::string fe_required(const std::string& path, const std::string& detail) {
  return path + ": Required value" + (detail.empty() ? "" : ": " + detail);
}
std::string fe_not_supported(const std::string& path, const std::string& bad, const std::vector<std::string>& ok) {
  return path + ": Unsupported value: " + quote(bad) + ": supported values: " + quote_list(ok);
}
std::string fe_duplicate(const std::string& path, const std::string& bad) { return path + ": Duplicate value: " + quote(bad); }
std::string fe_forbidden(const std::string& path, const std::string& detail) { return path + ": Forbidden: " + detail; }

// Go struct field path for encoding/json messages: indices and keys are dropped.
std::string go_path(const std::string& path) {
  std::string out;
  int depth = 0;
  for (char c : path) {
    if (c == '[') ++depth;
    else if (c == ']') --depth;
    else if (depth == 0) out += c;
  }
  return out;
}

// What one object's errors are prefixed with, as kubectl prints them.

// ---- YAML scalars as sigs.k8s.io/yaml (go-yaml v2, YAML 1.1) turns them into JSON -----------

const char* json_type_name(JsonType t) {
  switch (t) {
    case JsonType::Null: return "null";
    case JsonType::Bool: return "bool";
    case JsonType::Number: return "number";
    case JsonType::String: return "string";
    case JsonType::Object: return "object";
    case JsonType::Array: return "array";
  }
  return "?";
}

JsonType json_type(const Value& v) {
  const YAML::Node& n = v.node();
  if (n.IsMap()) return JsonType::Object;
  if (n.IsSequence()) return JsonType::Array;
  if (n.IsNull()) return JsonType::Null;
  const std::string& tag = n.Tag();
  if (tag == "tag:yaml.org,2002:str" || tag == "!") return JsonType::String;
  if (tag == "tag:yaml.org,2002:int" || tag == "tag:yaml.org,2002:float") return JsonType::Number;
  if (tag == "tag:yaml.org,2002:bool") return JsonType::Bool;
  if (tag == "tag:yaml.org,2002:null") return JsonType::Null;
  if (tag != "?" && !tag.empty()) return JsonType::String;
  const std::string& s = n.Scalar();
  static const std::set<std::string> kBools = {"y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO",
                                               "true", "True", "TRUE", "false", "False", "FALSE",
                                               "on", "On", "ON", "off", "Off", "OFF"};
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return JsonType::Null;
  if (kBools.count(s)) return JsonType::Bool;
  if (syntax::yaml_int(s) || syntax::yaml_float(s)) return JsonType::Number;
  return JsonType::String;
}

[[noreturn]] void type_error(const Ctx& ctx, const Value& v, JsonType got, const char* go_struct, const std::string& path,
                             const char* go_type) {
  std::string what = json_type_name(got);
  if (got == JsonType::Number && (std::string(go_type).rfind("int", 0) == 0)) what += " " + v.node().Scalar();
  ctx.decode(v, "json: cannot unmarshal " + what + " into Go struct field " + go_struct + "." + go_path(path) +
                    " of type " + go_type);
}

std::string str(const Ctx& ctx, const Value& v, const char* go_struct, const std::string& path) {
  JsonType t = json_type(v);
  if (t == JsonType::Null) return "";
  if (t != JsonType::String) type_error(ctx, v, t, go_struct, path, "string");
  return v.node().Scalar();
}

std::int64_t integer(const Ctx& ctx, const Value& v, const char* go_struct, const std::string& path, const char* go_type) {
  JsonType t = json_type(v);
  if (t == JsonType::Null) return 0;
  if (t != JsonType::Number) type_error(ctx, v, t, go_struct, path, go_type);
  const std::string& s = v.node().Scalar();
  auto parsed = engine::parse_integer<std::int64_t>(s);
  if (!syntax::signed_decimal(s) || !parsed.ok()) type_error(ctx, v, t, go_struct, path, go_type);
  std::int64_t x = parsed.value;
  if (std::string(go_type) == "int32" &&
      (x > std::numeric_limits<std::int32_t>::max() || x < std::numeric_limits<std::int32_t>::min()))
    type_error(ctx, v, t, go_struct, path, go_type);
  return x;
}

bool boolean(const Ctx& ctx, const Value& v, const char* go_struct, const std::string& path) {
  JsonType t = json_type(v);
  if (t == JsonType::Null) return false;
  if (t != JsonType::Bool) type_error(ctx, v, t, go_struct, path, "bool");
  const std::string& s = v.node().Scalar();
  return s == "true" || s == "True" || s == "TRUE" || s == "y" || s == "Y" || s == "yes" || s == "Yes" ||
         s == "YES" || s == "on" || s == "On" || s == "ON";
}

std::vector<Value> list(const Ctx& ctx, const Value& v, const char* go_struct, const std::string& path,
                        const char* go_type) {
  JsonType t = json_type(v);
  if (t == JsonType::Null) return {};
  if (t != JsonType::Array) type_error(ctx, v, t, go_struct, path, go_type);
  return v.items();
}

std::vector<std::string> str_list(const Ctx& ctx, const Value& v, const char* go_struct, const std::string& path) {
  std::vector<std::string> out;
  for (const auto& item : list(ctx, v, go_struct, path, "[]string")) out.push_back(str(ctx, item, go_struct, path));
  return out;
}

// ---- strict field reading ------------------------------------------------------------------

// A mapping whose every key must be read or allowed; unknown keys are strict decoding errors
// with the full field path, as the API server reports them, plus a did-you-mean.

}  // namespace eksim::scenario::manifest

namespace eksim::scenario {

using namespace manifest;

// ---- names and labels (k8s.io/apimachinery/pkg/util/validation) --------------------------

namespace {
const char* kDns1123LabelMsg =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and "
    "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const char* kDns1123SubdomainMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const char* kQualifiedNameMsg =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
    "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const char* kLabelValueMsg =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used "
    "for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
}  // namespace

std::vector<std::string> dns1123_label_errors(const std::string& s) {
  std::vector<std::string> out;
  if (s.size() > 63) out.push_back("must be no more than 63 characters");
  if (!syntax::dns1123_label(s)) out.push_back(kDns1123LabelMsg);
  return out;
}

std::vector<std::string> dns1123_subdomain_errors(const std::string& s) {
  std::vector<std::string> out;
  if (s.size() > 253) out.push_back("must be no more than 253 characters");
  if (!syntax::dns1123_subdomain(s)) out.push_back(kDns1123SubdomainMsg);
  return out;
}

std::vector<std::string> qualified_name_errors(const std::string& s) {
  std::vector<std::string> out;
  std::string name = s;
  auto slash = s.find('/');
  if (slash != std::string::npos) {
    if (s.find('/', slash + 1) != std::string::npos)
      return {std::string("a qualified name ") + kQualifiedNameMsg +
              " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"};
    std::string prefix = s.substr(0, slash);
    name = s.substr(slash + 1);
    if (prefix.empty()) out.push_back("prefix part must be non-empty");
    else
      for (const auto& m : dns1123_subdomain_errors(prefix)) out.push_back("prefix part " + m);
  }
  if (name.empty()) out.push_back("name part must be non-empty");
  else if (name.size() > 63) out.push_back("name part must be no more than 63 characters");
  if (!syntax::qualified_name_part(name)) out.push_back(std::string("name part ") + kQualifiedNameMsg);
  return out;
}

std::vector<std::string> label_value_errors(const std::string& s) {
  std::vector<std::string> out;
  if (s.size() > 63) out.push_back("must be no more than 63 characters");
  if (!syntax::label_value(s)) out.push_back(kLabelValueMsg);
  return out;
}

}  // namespace eksim::scenario
