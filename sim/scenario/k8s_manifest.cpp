#include "sim/scenario/k8s_manifest.hpp"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <limits>
#include <set>
#include <string_view>

#include "models/k8s/quantity.hpp"
#include "sim/engine/numbers.hpp"
#include "sim/scenario/k8s_syntax.hpp"

namespace eksim::scenario {

namespace {

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
std::string fe_required(const std::string& path, const std::string& detail = "") {
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

// ---- the allow-list: standard fields accepted and deliberately not modelled --------------
// kubectl would accept these, so rejecting them would be wrong; the simulator has no behaviour
// for them (storage, identity, probes, DNS, security, rollout pacing, ...). Keep them here, in
// one place, so a reader sees at a glance what a scenario may carry without effect.

const std::vector<const char*> kIgnoredObjectMeta = {
    "uid", "resourceVersion", "generation", "creationTimestamp", "deletionTimestamp",
    "deletionGracePeriodSeconds", "ownerReferences", "finalizers", "managedFields", "selfLink"};
const std::vector<const char*> kIgnoredPodSpec = {
    "securityContext", "imagePullSecrets", "serviceAccountName", "serviceAccount",
    "automountServiceAccountToken", "dnsPolicy", "dnsConfig", "hostname", "subdomain", "hostAliases",
    "hostPID", "hostIPC", "hostUsers", "shareProcessNamespace", "runtimeClassName", "enableServiceLinks",
    "preemptionPolicy", "overhead", "readinessGates", "activeDeadlineSeconds", "os", "setHostnameAsFQDN",
    "ephemeralContainers", "resourceClaims",
    // These do change scheduling upstream but are not modelled yet (pods schedule as if absent):
    "schedulingGates", "resources"};
const std::vector<const char*> kIgnoredContainer = {
    "env", "envFrom", "volumeMounts", "volumeDevices", "livenessProbe", "readinessProbe", "startupProbe",
    "lifecycle", "terminationMessagePath", "terminationMessagePolicy", "imagePullPolicy", "securityContext",
    "stdin", "stdinOnce", "tty", "workingDir", "resizePolicy"};
const std::vector<const char*> kIgnoredPort = {"name", "hostIP"};
const std::vector<const char*> kIgnoredResources = {"claims"};
const std::vector<const char*> kIgnoredPodAffinityTerm = {"namespaceSelector", "matchLabelKeys", "mismatchLabelKeys"};
const std::vector<const char*> kIgnoredSpread = {"matchLabelKeys", "nodeAffinityPolicy", "nodeTaintsPolicy"};
const std::vector<const char*> kIgnoredDeploymentSpec = {"strategy", "revisionHistoryLimit", "progressDeadlineSeconds",
                                                         "minReadySeconds", "paused"};
const std::vector<const char*> kIgnoredJobSpec = {
    "ttlSecondsAfterFinished", "activeDeadlineSeconds", "podFailurePolicy", "suspend", "backoffLimitPerIndex",
    "maxFailedIndexes", "podReplacementPolicy", "successPolicy", "managedBy"};
const std::vector<const char*> kIgnoredDaemonSetSpec = {"updateStrategy", "minReadySeconds", "revisionHistoryLimit"};
// Init containers may be sidecars (restartPolicy: Always); the model runs them as plain init
// containers.
const std::vector<const char*> kIgnoredInitContainer = {"restartPolicy"};

}  // namespace

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

namespace {

// Reads a map[string]string (labels, annotations, nodeSelector); keys keep their YAML nodes
// so that a bad key is located at the key.
std::vector<std::pair<Value, Value>> string_map_entries(const Ctx& ctx, const Value& v, const char* go_struct,
                                                         const std::string& path) {
  JsonType t = json_type(v);
  if (t == JsonType::Null) return {};
  if (t != JsonType::Object) type_error(ctx, v, t, go_struct, path, "map[string]string");
  std::vector<std::pair<Value, Value>> out;
  for (const auto& [name, k, val] : v.entries("a string")) {
    str(ctx, val, go_struct, path);  // type check
    out.emplace_back(k, val);
  }
  return out;
}

k8s::Labels labels_impl(const Ctx& ctx, const Value& v, const std::string& path, const char* go_struct) {
  k8s::Labels out;
  for (const auto& [k, val] : string_map_entries(ctx, v, go_struct, path)) {
    std::string key = k.node().Scalar(), value = str(ctx, val, go_struct, path);
    for (const auto& m : qualified_name_errors(key)) ctx.invalid(k, fe_invalid(path, quote(key), m));
    for (const auto& m : label_value_errors(value)) ctx.invalid(val, fe_invalid(path, quote(value), m));
    out[key] = value;
  }
  return out;
}

k8s::Labels annotations(const Ctx& ctx, const Value& v, const std::string& path) {
  k8s::Labels out;
  for (const auto& [k, val] : string_map_entries(ctx, v, "ObjectMeta", path)) {
    std::string key = k.node().Scalar();
    std::string lower = key;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    for (const auto& m : qualified_name_errors(lower)) ctx.invalid(k, fe_invalid(path, quote(key), m));
    out[key] = str(ctx, val, "ObjectMeta", path);
  }
  return out;
}

// ---- quantities (k8s.io/apimachinery/pkg/api/resource) ----------------------------------

bool is_native_resource(const std::string& name) {
  return name.find('/') == std::string::npos || name.find("kubernetes.io/") != std::string::npos;
}
bool is_hugepages(const std::string& name) { return name.rfind("hugepages-", 0) == 0; }
bool is_extended_resource(const std::string& name) {
  return !is_native_resource(name) && name.rfind("requests.", 0) != 0 &&
         qualified_name_errors("requests." + name).empty();
}
// Extended resources and huge pages cannot be overcommitted (helper.IsOvercommitAllowed).
bool overcommit_allowed(const std::string& name) { return is_native_resource(name) && !is_hugepages(name); }

struct ParsedQuantity {
  std::string text;
  std::int64_t milli = 0;
};

ParsedQuantity quantity(const Ctx& ctx, const Value& v) {
  JsonType t = json_type(v);
  std::string s = v.is_scalar() ? v.node().Scalar() : std::string();
  if (t == JsonType::Object || t == JsonType::Array || t == JsonType::Null) s = "";
  std::string_view number;
  if (!syntax::quantity_parts(s, &number, nullptr))
    ctx.decode(v, "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  auto q = k8s::parse_quantity(s);
  if (!q) {
    std::string num(number);
    bool numeric_ok = std::count(num.begin(), num.end(), '.') <= 1 && num.find_first_of("0123456789") != std::string::npos;
    ctx.decode(v, numeric_ok ? "unable to parse quantity's suffix" : "unable to parse numeric part of quantity");
  }
  return {s, *q};
}

struct NamedQuantity {
  std::string name;
  ParsedQuantity q;
  Value at;
};

std::vector<NamedQuantity> resource_entries(const Ctx& ctx, const Value& v, const std::string& path) {
  JsonType t = json_type(v);
  if (t == JsonType::Null) return {};
  if (t != JsonType::Object) type_error(ctx, v, t, "ResourceRequirements", path, "v1.ResourceList");
  std::vector<NamedQuantity> out;
  for (const auto& [name, k, val] : v.entries("a resource name")) {
    std::string fld = keyed(path, name);
    for (const auto& msg : qualified_name_errors(name)) ctx.invalid(k, fe_invalid(fld, quote(name), msg));
    if (name.find('/') == std::string::npos) {
      if (name != "cpu" && name != "memory" && name != "ephemeral-storage" && !is_hugepages(name))
        ctx.invalid(k, fe_invalid(fld, quote(name), "must be a standard resource for containers"));
    } else if (!is_native_resource(name) && !is_extended_resource(name)) {
      ctx.invalid(k, fe_invalid(fld, quote(name), "doesn't follow extended resource name standard"));
    }
    ParsedQuantity q = quantity(ctx, val);
    if (q.milli < 0) ctx.invalid(val, fe_invalid(fld, quote(q.text), "must be greater than or equal to 0"));
    if (is_extended_resource(name) && q.milli % 1000 != 0)
      ctx.invalid(val, fe_invalid(fld, quote(q.text), "must be an integer"));
    out.push_back({name, q, val});
  }
  return out;
}

k8s::ResourceList to_resource_list(const std::vector<NamedQuantity>& entries) {
  k8s::ResourceList out;
  for (const auto& e : entries) out.set(e.name, k8s::amount_from_milli(e.name, e.q.milli));
  return out;
}

// validateResourceRequirements plus the API server's defaulting (a limit without a request
// becomes the request, per resource: SetDefaults_Pod).
void resources(const Ctx& ctx, const Value& v, const std::string& path, k8s::Container& c) {
  Fields f(ctx, v, path, "Container", "v1.ResourceRequirements");
  std::vector<NamedQuantity> limits, requests;
  if (auto l = f.get("limits")) limits = resource_entries(ctx, *l, f.path("limits"));
  auto rv = f.get("requests");
  if (rv) requests = resource_entries(ctx, *rv, f.path("requests"));
  f.allow(kIgnoredResources);
  f.finish();
  for (const auto& r : requests) {
    auto lim = std::find_if(limits.begin(), limits.end(), [&](const NamedQuantity& l) { return l.name == r.name; });
    if (lim != limits.end()) {
      if (r.q.milli != lim->q.milli && !overcommit_allowed(r.name))
        ctx.invalid(r.at, fe_invalid(f.path("requests"), quote(r.q.text),
                                     "must be equal to " + r.name + " limit of " + lim->q.text));
      if (r.q.milli > lim->q.milli)
        ctx.invalid(r.at, fe_invalid(f.path("requests"), quote(r.q.text),
                                     "must be less than or equal to " + r.name + " limit of " + lim->q.text));
    } else if (!overcommit_allowed(r.name)) {
      ctx.invalid(r.at, fe_required(f.path("limits"), "Limit must be set for non overcommitable resources"));
    }
  }
  c.limits = to_resource_list(limits);
  c.requests = to_resource_list(requests);
  for (const auto& l : limits)
    if (!c.requests.has(l.name)) c.requests.set(l.name, c.limits.get(l.name));
}

// ---- selectors, affinity, tolerations ------------------------------------------------------

void check_label_key(const Ctx& ctx, const Value& at, const std::string& path, const std::string& key) {
  for (const auto& m : qualified_name_errors(key)) ctx.invalid(at, fe_invalid(path, quote(key), m));
}

std::vector<k8s::NodeSelectorRequirement> node_requirements(const Ctx& ctx, const Value& v, const std::string& path,
                                                            bool fields) {
  std::vector<k8s::NodeSelectorRequirement> out;
  auto items = list(ctx, v, "NodeSelectorTerm", path, "[]v1.NodeSelectorRequirement");
  for (std::size_t i = 0; i < items.size(); ++i) {
    std::string p = index(path, i);
    Fields f(ctx, items[i], p, "NodeSelectorTerm", "v1.NodeSelectorRequirement");
    k8s::NodeSelectorRequirement r;
    auto kv = f.get("key");
    if (kv) r.key = str(ctx, *kv, "NodeSelectorRequirement", f.path("key"));
    auto ov = f.get("operator");
    if (ov) r.op = str(ctx, *ov, "NodeSelectorRequirement", f.path("operator"));
    auto vv = f.get("values");
    if (vv) r.values = str_list(ctx, *vv, "NodeSelectorRequirement", f.path("values"));
    f.finish();
    const Value& at_op = ov ? *ov : items[i];
    const Value& at_values = vv ? *vv : items[i];
    const Value& at_key = kv ? *kv : items[i];
    if (fields) {
      if (r.op == "In" || r.op == "NotIn") {
        if (r.values.size() != 1)
          ctx.invalid(at_values, fe_required(f.path("values"),
                                             "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"));
      } else {
        ctx.invalid(at_op, fe_invalid(f.path("operator"), quote(r.op), "not a valid selector operator"));
      }
      if (r.key != "metadata.name")
        ctx.invalid(at_key, fe_invalid(f.path("key"), quote(r.key), "not a valid field selector key"));
      for (std::size_t j = 0; j < r.values.size(); ++j)
        for (const auto& m : dns1123_subdomain_errors(r.values[j]))
          ctx.invalid(at_values, fe_invalid(index(f.path("values"), j), quote(r.values[j]), m));
    } else {
      if (r.op == "In" || r.op == "NotIn") {
        if (r.values.empty())
          ctx.invalid(at_values, fe_required(f.path("values"), "must be specified when `operator` is 'In' or 'NotIn'"));
      } else if (r.op == "Exists" || r.op == "DoesNotExist") {
        if (!r.values.empty())
          ctx.invalid(at_values, fe_forbidden(f.path("values"),
                                              "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      } else if (r.op == "Gt" || r.op == "Lt") {
        if (r.values.size() != 1)
          ctx.invalid(at_values, fe_required(f.path("values"), "must be specified single value when `operator` is 'Lt' or 'Gt'"));
      } else {
        ctx.invalid(at_op, fe_invalid(f.path("operator"), quote(r.op), "not a valid selector operator"));
      }
      check_label_key(ctx, at_key, f.path("key"), r.key);
      if (r.op == "In" || r.op == "NotIn")
        for (std::size_t j = 0; j < r.values.size(); ++j)
          for (const auto& m : label_value_errors(r.values[j]))
            ctx.invalid(at_values, fe_invalid(index(f.path("values"), j), quote(r.values[j]), m));
    }
    out.push_back(std::move(r));
  }
  return out;
}

k8s::NodeSelectorTerm node_selector_term(const Ctx& ctx, const Value& v, const std::string& path) {
  Fields f(ctx, v, path, "NodeSelector", "v1.NodeSelectorTerm");
  k8s::NodeSelectorTerm t;
  if (auto e = f.get("matchExpressions")) t.match_expressions = node_requirements(ctx, *e, f.path("matchExpressions"), false);
  if (auto e = f.get("matchFields")) t.match_fields = node_requirements(ctx, *e, f.path("matchFields"), true);
  f.finish();
  return t;
}

k8s::LabelSelector label_selector(const Ctx& ctx, const Value& v, const std::string& path) {
  Fields f(ctx, v, path, "LabelSelector", "v1.LabelSelector");
  k8s::LabelSelector sel;
  if (auto ml = f.get("matchLabels")) sel.match_labels = labels_impl(ctx, *ml, f.path("matchLabels"), "LabelSelector");
  if (auto me = f.get("matchExpressions")) {
    std::string mp = f.path("matchExpressions");
    auto items = list(ctx, *me, "LabelSelector", mp, "[]v1.LabelSelectorRequirement");
    for (std::size_t i = 0; i < items.size(); ++i) {
      std::string p = index(mp, i);
      Fields rf(ctx, items[i], p, "LabelSelector", "v1.LabelSelectorRequirement");
      k8s::LabelSelectorRequirement r;
      auto kv = rf.get("key");
      if (kv) r.key = str(ctx, *kv, "LabelSelectorRequirement", rf.path("key"));
      auto ov = rf.get("operator");
      if (ov) r.op = str(ctx, *ov, "LabelSelectorRequirement", rf.path("operator"));
      auto vv = rf.get("values");
      if (vv) r.values = str_list(ctx, *vv, "LabelSelectorRequirement", rf.path("values"));
      rf.finish();
      const Value& at_values = vv ? *vv : items[i];
      if (r.op == "In" || r.op == "NotIn") {
        if (r.values.empty())
          ctx.invalid(at_values, fe_required(rf.path("values"), "must be specified when `operator` is 'In' or 'NotIn'"));
      } else if (r.op == "Exists" || r.op == "DoesNotExist") {
        if (!r.values.empty())
          ctx.invalid(at_values, fe_forbidden(rf.path("values"),
                                              "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      } else {
        ctx.invalid(ov ? *ov : items[i], fe_invalid(rf.path("operator"), quote(r.op), "not a valid selector operator"));
      }
      check_label_key(ctx, kv ? *kv : items[i], rf.path("key"), r.key);
      for (std::size_t j = 0; j < r.values.size(); ++j)
        for (const auto& m : label_value_errors(r.values[j]))
          ctx.invalid(at_values, fe_invalid(index(rf.path("values"), j), quote(r.values[j]), m));
      sel.match_expressions.push_back(std::move(r));
    }
  }
  f.finish();
  return sel;
}

bool selector_empty(const k8s::LabelSelector& s) { return s.match_labels.empty() && s.match_expressions.empty(); }

bool selector_matches(const k8s::LabelSelector& s, const k8s::Labels& labels) {
  for (const auto& [k, v] : s.match_labels) {
    auto it = labels.find(k);
    if (it == labels.end() || it->second != v) return false;
  }
  for (const auto& r : s.match_expressions) {
    auto it = labels.find(r.key);
    bool has = it != labels.end();
    bool in = has && std::find(r.values.begin(), r.values.end(), it->second) != r.values.end();
    if (r.op == "In" && !in) return false;
    if (r.op == "NotIn" && in) return false;
    if (r.op == "Exists" && !has) return false;
    if (r.op == "DoesNotExist" && has) return false;
  }
  return true;
}

k8s::PodAffinityTerm pod_affinity_term(const Ctx& ctx, const Value& v, const std::string& path) {
  Fields f(ctx, v, path, "PodAffinity", "v1.PodAffinityTerm");
  k8s::PodAffinityTerm t;
  if (auto ls = f.get("labelSelector")) t.label_selector = label_selector(ctx, *ls, f.path("labelSelector"));
  auto tk = f.get("topologyKey");
  if (tk) t.topology_key = str(ctx, *tk, "PodAffinityTerm", f.path("topologyKey"));
  auto ns = f.get("namespaces");
  if (ns) t.namespaces = str_list(ctx, *ns, "PodAffinityTerm", f.path("namespaces"));
  f.allow(kIgnoredPodAffinityTerm);
  f.finish();
  for (const auto& n : t.namespaces)
    for (const auto& m : dns1123_label_errors(n)) ctx.invalid(*ns, fe_invalid(f.path("namespace"), quote(n), m));
  if (t.topology_key.empty()) ctx.invalid(tk ? *tk : v, fe_required(f.path("topologyKey"), "can not be empty"));
  check_label_key(ctx, *tk, f.path("topologyKey"), t.topology_key);
  return t;
}

void pod_affinity(const Ctx& ctx, const Value& v, const std::string& path, std::vector<k8s::PodAffinityTerm>& required,
                  std::vector<k8s::WeightedPodAffinityTerm>& preferred) {
  Fields f(ctx, v, path, "Affinity", "v1.PodAffinity");
  if (auto r = f.get("requiredDuringSchedulingIgnoredDuringExecution")) {
    std::string p = f.path("requiredDuringSchedulingIgnoredDuringExecution");
    auto items = list(ctx, *r, "PodAffinity", p, "[]v1.PodAffinityTerm");
    for (std::size_t i = 0; i < items.size(); ++i) required.push_back(pod_affinity_term(ctx, items[i], index(p, i)));
  }
  if (auto r = f.get("preferredDuringSchedulingIgnoredDuringExecution")) {
    std::string p = f.path("preferredDuringSchedulingIgnoredDuringExecution");
    auto items = list(ctx, *r, "PodAffinity", p, "[]v1.WeightedPodAffinityTerm");
    for (std::size_t i = 0; i < items.size(); ++i) {
      Fields wf(ctx, items[i], index(p, i), "PodAffinity", "v1.WeightedPodAffinityTerm");
      k8s::WeightedPodAffinityTerm w;
      auto wv = wf.get("weight");
      if (wv) w.weight = static_cast<std::int32_t>(integer(ctx, *wv, "WeightedPodAffinityTerm", wf.path("weight"), "int32"));
      if (w.weight <= 0 || w.weight > 100)
        ctx.invalid(wv ? *wv : items[i], fe_invalid(wf.path("weight"), std::to_string(w.weight), "must be in the range 1-100"));
      auto tv = wf.get("podAffinityTerm");
      if (!tv) ctx.invalid(items[i], fe_required(wf.path("podAffinityTerm.topologyKey"), "can not be empty"));
      w.term = pod_affinity_term(ctx, *tv, wf.path("podAffinityTerm"));
      wf.finish();
      preferred.push_back(std::move(w));
    }
  }
  f.finish();
}

k8s::Affinity affinity(const Ctx& ctx, const Value& v, const std::string& path) {
  Fields f(ctx, v, path, "PodSpec", "v1.Affinity");
  k8s::Affinity a;
  if (auto na = f.get("nodeAffinity")) {
    Fields nf(ctx, *na, f.path("nodeAffinity"), "Affinity", "v1.NodeAffinity");
    if (auto req = nf.get("requiredDuringSchedulingIgnoredDuringExecution")) {
      std::string p = nf.path("requiredDuringSchedulingIgnoredDuringExecution");
      Fields rf(ctx, *req, p, "NodeAffinity", "v1.NodeSelector");
      std::vector<k8s::NodeSelectorTerm> terms;
      auto tv = rf.get("nodeSelectorTerms");
      if (tv) {
        auto items = list(ctx, *tv, "NodeSelector", rf.path("nodeSelectorTerms"), "[]v1.NodeSelectorTerm");
        for (std::size_t i = 0; i < items.size(); ++i)
          terms.push_back(node_selector_term(ctx, items[i], index(rf.path("nodeSelectorTerms"), i)));
      }
      rf.finish();
      if (terms.empty())
        ctx.invalid(tv ? *tv : *req, fe_required(rf.path("nodeSelectorTerms"), "must have at least one node selector term"));
      a.node_required = std::move(terms);
    }
    if (auto pref = nf.get("preferredDuringSchedulingIgnoredDuringExecution")) {
      std::string p = nf.path("preferredDuringSchedulingIgnoredDuringExecution");
      auto items = list(ctx, *pref, "NodeAffinity", p, "[]v1.PreferredSchedulingTerm");
      for (std::size_t i = 0; i < items.size(); ++i) {
        Fields pf(ctx, items[i], index(p, i), "NodeAffinity", "v1.PreferredSchedulingTerm");
        k8s::PreferredSchedulingTerm t;
        auto wv = pf.get("weight");
        if (wv) t.weight = static_cast<std::int32_t>(integer(ctx, *wv, "PreferredSchedulingTerm", pf.path("weight"), "int32"));
        if (t.weight <= 0 || t.weight > 100)
          ctx.invalid(wv ? *wv : items[i], fe_invalid(pf.path("weight"), std::to_string(t.weight), "must be in the range 1-100"));
        if (auto pv = pf.get("preference")) t.preference = node_selector_term(ctx, *pv, pf.path("preference"));
        pf.finish();
        a.node_preferred.push_back(std::move(t));
      }
    }
    nf.finish();
  }
  if (auto pa = f.get("podAffinity"))
    pod_affinity(ctx, *pa, f.path("podAffinity"), a.pod_affinity_required, a.pod_affinity_preferred);
  if (auto pa = f.get("podAntiAffinity"))
    pod_affinity(ctx, *pa, f.path("podAntiAffinity"), a.pod_anti_affinity_required, a.pod_anti_affinity_preferred);
  f.finish();
  return a;
}

std::vector<k8s::Toleration> tolerations(const Ctx& ctx, const Value& v, const std::string& path) {
  std::vector<k8s::Toleration> out;
  auto items = list(ctx, v, "PodSpec", path, "[]v1.Toleration");
  for (std::size_t i = 0; i < items.size(); ++i) {
    std::string p = index(path, i);
    Fields f(ctx, items[i], p, "PodSpec", "v1.Toleration");
    k8s::Toleration t;
    auto kv = f.get("key");
    if (kv) t.key = str(ctx, *kv, "Toleration", f.path("key"));
    auto ov = f.get("operator");
    if (ov) t.op = str(ctx, *ov, "Toleration", f.path("operator"));
    auto vv = f.get("value");
    if (vv) t.value = str(ctx, *vv, "Toleration", f.path("value"));
    auto ev = f.get("effect");
    if (ev) t.effect = str(ctx, *ev, "Toleration", f.path("effect"));
    if (auto sv = f.get("tolerationSeconds")) t.toleration_seconds = integer(ctx, *sv, "Toleration", f.path("tolerationSeconds"), "int64");
    f.finish();
    const Value& at = items[i];
    // ValidateTolerations, in its order.
    if (!t.key.empty()) check_label_key(ctx, *kv, f.path("key"), t.key);
    if (t.key.empty() && t.op != "Exists")
      ctx.invalid(ov ? *ov : at, fe_invalid(f.path("operator"), quote(t.op),
                                            "operator must be Exists when `key` is empty, which means \"match all values and all keys\""));
    if (t.toleration_seconds && t.effect != k8s::kNoExecute)
      ctx.invalid(ev ? *ev : at, fe_invalid(f.path("effect"), quote(t.effect), "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    if (t.op == "Equal" || t.op.empty()) {
      for (const auto& m : label_value_errors(t.value)) ctx.invalid(vv ? *vv : at, fe_invalid(f.path("operator"), quote(t.value), m));
    } else if (t.op == "Exists") {
      if (!t.value.empty())
        ctx.invalid(vv ? *vv : at, fe_invalid(f.path("operator"), quote(t.value), "value must be empty when `operator` is 'Exists'"));
    } else {
      ctx.invalid(*ov, fe_not_supported(f.path("operator"), t.op, {"Equal", "Exists"}));
    }
    if (!t.effect.empty() && t.effect != k8s::kNoSchedule && t.effect != k8s::kPreferNoSchedule && t.effect != k8s::kNoExecute)
      ctx.invalid(*ev, fe_not_supported(f.path("effect"), t.effect, {"NoSchedule", "PreferNoSchedule", "NoExecute"}));
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<k8s::TopologySpreadConstraint> spread_constraints(const Ctx& ctx, const Value& v, const std::string& path) {
  std::vector<k8s::TopologySpreadConstraint> out;
  auto items = list(ctx, v, "PodSpec", path, "[]v1.TopologySpreadConstraint");
  for (std::size_t i = 0; i < items.size(); ++i) {
    std::string p = index(path, i);
    Fields f(ctx, items[i], p, "PodSpec", "v1.TopologySpreadConstraint");
    k8s::TopologySpreadConstraint c;
    c.max_skew = 0;
    c.when_unsatisfiable.clear();
    auto ms = f.get("maxSkew");
    if (ms) c.max_skew = static_cast<std::int32_t>(integer(ctx, *ms, "TopologySpreadConstraint", f.path("maxSkew"), "int32"));
    auto tk = f.get("topologyKey");
    if (tk) c.topology_key = str(ctx, *tk, "TopologySpreadConstraint", f.path("topologyKey"));
    auto wu = f.get("whenUnsatisfiable");
    if (wu) c.when_unsatisfiable = str(ctx, *wu, "TopologySpreadConstraint", f.path("whenUnsatisfiable"));
    if (auto ls = f.get("labelSelector")) c.label_selector = label_selector(ctx, *ls, f.path("labelSelector"));
    auto md = f.get("minDomains");
    if (md) c.min_domains = static_cast<std::int32_t>(integer(ctx, *md, "TopologySpreadConstraint", f.path("minDomains"), "int32"));
    f.allow(kIgnoredSpread);
    f.finish();
    const Value& at = items[i];
    if (c.max_skew <= 0) ctx.invalid(ms ? *ms : at, fe_invalid(f.path("maxSkew"), std::to_string(c.max_skew), "must be greater than zero"));
    if (c.topology_key.empty()) ctx.invalid(tk ? *tk : at, fe_required(f.path("topologyKey"), "can not be empty"));
    check_label_key(ctx, *tk, f.path("topologyKey"), c.topology_key);
    if (c.when_unsatisfiable != "DoNotSchedule" && c.when_unsatisfiable != "ScheduleAnyway")
      ctx.invalid(wu ? *wu : at, fe_not_supported(f.path("whenUnsatisfiable"), c.when_unsatisfiable, {"DoNotSchedule", "ScheduleAnyway"}));
    for (const auto& prev : out)
      if (prev.topology_key == c.topology_key && prev.when_unsatisfiable == c.when_unsatisfiable)
        ctx.invalid(at, fe_duplicate(index(path, i - 1) + ".{topologyKey, whenUnsatisfiable}",
                                     c.topology_key + ", " + c.when_unsatisfiable));
    if (c.min_domains) {
      if (*c.min_domains <= 0)
        ctx.invalid(*md, fe_invalid(f.path("minDomains"), std::to_string(*c.min_domains), "must be greater than zero"));
      if (c.when_unsatisfiable != "DoNotSchedule")
        ctx.invalid(*md, fe_invalid(f.path("minDomains"), std::to_string(*c.min_domains),
                                    "can only use minDomains if whenUnsatisfiable=DoNotSchedule, not " + c.when_unsatisfiable));
    }
    out.push_back(std::move(c));
  }
  return out;
}

// ---- containers and pod spec --------------------------------------------------------------

struct PortAt {
  Value at;
  std::string path;
};

k8s::Container container(const Ctx& ctx, const Value& v, const std::string& path, bool init,
                         std::vector<PortAt>& port_nodes) {
  Fields f(ctx, v, path, "PodSpec", "v1.Container");
  k8s::Container c;
  auto nv = f.get("name");
  if (nv) c.name = str(ctx, *nv, "Container", f.path("name"));
  auto iv = f.get("image");
  if (iv) c.image = str(ctx, *iv, "Container", f.path("image"));
  if (auto cv = f.get("command")) c.command = str_list(ctx, *cv, "Container", f.path("command"));
  if (auto av = f.get("args")) c.args = str_list(ctx, *av, "Container", f.path("args"));
  if (auto rv = f.get("resources")) resources(ctx, *rv, f.path("resources"), c);
  if (auto pv = f.get("ports")) {
    auto items = list(ctx, *pv, "Container", f.path("ports"), "[]v1.ContainerPort");
    for (std::size_t i = 0; i < items.size(); ++i) {
      std::string p = index(f.path("ports"), i);
      Fields pf(ctx, items[i], p, "Container", "v1.ContainerPort");
      k8s::ContainerPort port;
      auto cp = pf.get("containerPort");
      if (cp) port.container_port = static_cast<std::int32_t>(integer(ctx, *cp, "ContainerPort", pf.path("containerPort"), "int32"));
      auto hp = pf.get("hostPort");
      if (hp) port.host_port = static_cast<std::int32_t>(integer(ctx, *hp, "ContainerPort", pf.path("hostPort"), "int32"));
      auto pr = pf.get("protocol");
      if (pr) port.protocol = str(ctx, *pr, "ContainerPort", pf.path("protocol"));
      if (port.protocol.empty()) port.protocol = "TCP";  // SetDefaults_ContainerPort
      pf.allow(kIgnoredPort);
      pf.finish();
      if (port.container_port == 0) ctx.invalid(items[i], fe_required(pf.path("containerPort")));
      if (port.container_port < 1 || port.container_port > 65535)
        ctx.invalid(*cp, fe_invalid(pf.path("containerPort"), std::to_string(port.container_port), "must be between 1 and 65535, inclusive"));
      if (port.host_port != 0 && (port.host_port < 1 || port.host_port > 65535))
        ctx.invalid(*hp, fe_invalid(pf.path("hostPort"), std::to_string(port.host_port), "must be between 1 and 65535, inclusive"));
      if (port.protocol != "TCP" && port.protocol != "UDP" && port.protocol != "SCTP")
        ctx.invalid(*pr, fe_not_supported(pf.path("protocol"), port.protocol, {"SCTP", "TCP", "UDP"}));
      c.ports.push_back(port);
      port_nodes.push_back({items[i], p});
    }
  }
  auto rp = f.get("restartPolicy");
  if (rp && !init) ctx.invalid(*rp, fe_forbidden(f.path("restartPolicy"), "may not be set for non-init containers"));
  f.allow(kIgnoredContainer);
  f.finish();
  if (c.name.empty()) ctx.invalid(nv ? *nv : v, fe_required(f.path("name")));
  for (const auto& m : dns1123_label_errors(c.name)) ctx.invalid(*nv, fe_invalid(f.path("name"), quote(c.name), m));
  if (c.image.empty()) ctx.invalid(iv ? *iv : v, fe_required(f.path("image")));
  return c;
}

std::vector<k8s::Container> containers(const Ctx& ctx, const Value& v, const std::string& path, bool init,
                                       std::set<std::string>& names, bool host_network) {
  std::vector<k8s::Container> out;
  auto items = list(ctx, v, "PodSpec", path, "[]v1.Container");
  std::set<std::string> host_ports;
  for (std::size_t i = 0; i < items.size(); ++i) {
    std::vector<PortAt> port_nodes;
    k8s::Container c = container(ctx, items[i], index(path, i), init, port_nodes);
    if (!names.insert(c.name).second) ctx.invalid(items[i], fe_duplicate(index(path, i) + ".name", c.name));
    if (init) host_ports.clear();  // init containers run one by one: conflicts only within one
    for (std::size_t j = 0; j < c.ports.size(); ++j) {
      auto& port = c.ports[j];
      if (host_network) {
        // SetDefaults_PodSpec copies containerPort into an unset hostPort under hostNetwork.
        if (port.host_port == 0) port.host_port = port.container_port;
        if (port.host_port != port.container_port)
          ctx.invalid(port_nodes[j].at, fe_invalid(port_nodes[j].path + ".hostPort", std::to_string(port.host_port),
                                                   "must match `containerPort` when `hostNetwork` is true"));
      }
      if (port.host_port == 0) continue;
      std::string key = "/" + port.protocol + "/" + std::to_string(port.host_port);
      if (!host_ports.insert(key).second)
        ctx.invalid(port_nodes[j].at, fe_duplicate(port_nodes[j].path + ".hostPort", key));
    }
    out.push_back(std::move(c));
  }
  return out;
}

k8s::PodSpec pod_spec(const Ctx& ctx, const Value& v, const std::string& path) {
  Fields f(ctx, v, path, "Pod", "v1.PodSpec");
  k8s::PodSpec s;
  if (auto hv = f.get("hostNetwork")) s.host_network = boolean(ctx, *hv, "PodSpec", f.path("hostNetwork"));
  std::set<std::string> names;
  auto cv = f.get("containers");
  if (cv) s.containers = containers(ctx, *cv, f.path("containers"), false, names, s.host_network);
  if (auto iv = f.get("initContainers")) s.init_containers = containers(ctx, *iv, f.path("initContainers"), true, names, s.host_network);
  if (auto ns = f.get("nodeSelector")) s.node_selector = labels_impl(ctx, *ns, f.path("nodeSelector"), "PodSpec");
  if (auto av = f.get("affinity")) s.affinity = affinity(ctx, *av, f.path("affinity"));
  if (auto tv = f.get("tolerations")) s.tolerations = tolerations(ctx, *tv, f.path("tolerations"));
  if (auto tv = f.get("topologySpreadConstraints"))
    s.topology_spread_constraints = spread_constraints(ctx, *tv, f.path("topologySpreadConstraints"));
  if (auto rv = f.get("restartPolicy")) {
    s.restart_policy = str(ctx, *rv, "PodSpec", f.path("restartPolicy"));
    if (s.restart_policy.empty()) s.restart_policy = "Always";
    if (s.restart_policy != "Always" && s.restart_policy != "OnFailure" && s.restart_policy != "Never")
      ctx.invalid(*rv, fe_not_supported(f.path("restartPolicy"), s.restart_policy, {"Always", "OnFailure", "Never"}));
  }
  if (auto pv = f.get("priorityClassName")) {
    s.priority_class_name = str(ctx, *pv, "PodSpec", f.path("priorityClassName"));
    if (!s.priority_class_name.empty())
      for (const auto& m : dns1123_subdomain_errors(s.priority_class_name))
        ctx.invalid(*pv, fe_invalid(f.path("priorityClassName"), quote(s.priority_class_name), m));
  }
  if (auto pv = f.get("priority")) s.priority = static_cast<std::int32_t>(integer(ctx, *pv, "PodSpec", f.path("priority"), "int32"));
  if (auto nv = f.get("nodeName")) {
    s.node_name = str(ctx, *nv, "PodSpec", f.path("nodeName"));
    if (!s.node_name.empty())
      for (const auto& m : dns1123_subdomain_errors(s.node_name))
        ctx.invalid(*nv, fe_invalid(f.path("nodeName"), quote(s.node_name), m));
  }
  if (auto sv = f.get("schedulerName")) {
    s.scheduler_name = str(ctx, *sv, "PodSpec", f.path("schedulerName"));
    if (s.scheduler_name.empty()) s.scheduler_name = "default-scheduler";
  }
  if (auto tv = f.get("terminationGracePeriodSeconds"))
    s.termination_grace_period_seconds = integer(ctx, *tv, "PodSpec", f.path("terminationGracePeriodSeconds"), "int64");
  if (auto vv = f.get("volumes")) {
    // Name and source kind only (Cluster Autoscaler's local-storage rule); the source's own
    // fields are accepted as written.
    auto items = list(ctx, *vv, "PodSpec", f.path("volumes"), "[]v1.Volume");
    for (std::size_t i = 0; i < items.size(); ++i) {
      k8s::Volume vol;
      if (items[i].is_map())
        for (const auto& [key, k, val] : items[i].entries("a field name")) {
          if (key == "name") vol.name = str(ctx, val, "Volume", index(f.path("volumes"), i) + ".name");
          else if (vol.source.empty()) vol.source = key;
        }
      s.volumes.push_back(std::move(vol));
    }
  }
  f.allow(kIgnoredPodSpec);
  f.finish();
  if (s.containers.empty()) ctx.invalid(cv ? *cv : v, fe_required(f.path("containers")));
  return s;
}

// ---- metadata --------------------------------------------------------------------------

enum class NameRule { Subdomain, Label };

k8s::ObjectMeta object_meta(const Ctx& ctx, const Value& obj, const std::optional<Value>& v, NameRule rule,
                            bool namespaced) {
  k8s::ObjectMeta meta;
  if (!v) obj.fail("resource name may not be empty");
  Fields f(ctx, *v, "metadata", ctx.ref.kind.c_str(), "v1.ObjectMeta");
  auto nv = f.get("name");
  if (nv) meta.name = str(ctx, *nv, "ObjectMeta", "metadata.name");
  auto gv = f.get("generateName");
  if (meta.name.empty()) {
    if (gv) gv->fail("cannot use generate name with apply");
    v->fail("resource name may not be empty");
  }
  const auto errs = rule == NameRule::Label ? dns1123_label_errors(meta.name) : dns1123_subdomain_errors(meta.name);
  for (const auto& m : errs) ctx.invalid(*nv, fe_invalid("metadata.name", quote(meta.name), m));
  auto nsv = f.get("namespace");
  if (nsv) meta.ns = str(ctx, *nsv, "ObjectMeta", "metadata.namespace");
  if (!namespaced) meta.ns.clear();  // kubectl drops a namespace on cluster-scoped objects
  else if (meta.ns.empty()) meta.ns = "default";
  else
    for (const auto& m : dns1123_label_errors(meta.ns)) ctx.invalid(*nsv, fe_invalid("metadata.namespace", quote(meta.ns), m));
  if (auto lv = f.get("labels")) meta.labels = labels_impl(ctx, *lv, "metadata.labels", "ObjectMeta");
  if (auto av = f.get("annotations")) meta.annotations = annotations(ctx, *av, "metadata.annotations");
  f.allow(kIgnoredObjectMeta);
  f.finish();
  return meta;
}

k8s::PodTemplate pod_template(const Ctx& ctx, const Value& spec_node, std::optional<Value> v, const std::string& path,
                              const std::string& ns) {
  if (!v) ctx.invalid(spec_node, fe_required(child(path, "spec.containers")));
  Fields f(ctx, *v, path, "Spec", "v1.PodTemplateSpec");
  k8s::PodTemplate t;
  if (auto mv = f.get("metadata")) {
    std::string mp = f.path("metadata");
    Fields mf(ctx, *mv, mp, "PodTemplateSpec", "v1.ObjectMeta");
    if (auto lv = mf.get("labels")) t.meta.labels = labels_impl(ctx, *lv, child(mp, "labels"), "ObjectMeta");
    if (auto av = mf.get("annotations")) t.meta.annotations = annotations(ctx, *av, child(mp, "annotations"));
    mf.allow({"name", "generateName", "namespace"});
    mf.allow(kIgnoredObjectMeta);
    mf.finish();
  }
  t.meta.ns = ns;
  auto sv = f.get("spec");
  if (!sv) ctx.invalid(*v, fe_required(f.path("spec.containers")));
  t.spec = pod_spec(ctx, *sv, f.path("spec"));
  f.finish();
  return t;
}

// Deployment and DaemonSet: selector required, non-empty and matching the template labels.
k8s::LabelSelector owner_selector(const Ctx& ctx, Fields& f, const Value& spec_node, const k8s::PodTemplate& tmpl,
                                  const std::optional<Value>& tv, const std::optional<Value>& sv, const char* kind_lower) {
  if (!sv) ctx.invalid(spec_node, fe_required("spec.selector"));
  k8s::LabelSelector sel = label_selector(ctx, *sv, f.path("selector"));
  if (selector_empty(sel))
    ctx.invalid(*sv, fe_invalid("spec.selector", "{}", std::string("empty selector is invalid for ") + kind_lower));
  if (!selector_matches(sel, tmpl.meta.labels))
    ctx.invalid(tv ? *tv : spec_node,
                fe_invalid("spec.template.metadata.labels", json_map(tmpl.meta.labels), "`selector` does not match template `labels`"));
  return sel;
}

void require_restart_always(const Ctx& ctx, const Value& at, const k8s::PodTemplate& t) {
  if (t.spec.restart_policy != "Always")
    ctx.invalid(at, fe_not_supported("spec.template.spec.restartPolicy", t.spec.restart_policy, {"Always"}));
}

// ---- kinds kept raw (PodDisruptionBudget, ConfigMap) ---------------------------------------

// intstr.IntOrString: a JSON number decodes as int32, a string is kept; nothing else decodes.
void int_or_string(const Ctx& ctx, const Value& v, const char* go_struct, const std::string& path) {
  JsonType t = json_type(v);
  if (t == JsonType::Number) integer(ctx, v, go_struct, path, "int32");
  else if (t != JsonType::String && t != JsonType::Null) type_error(ctx, v, t, go_struct, path, "intstr.IntOrString");
}

// The component that models these kinds reads them later from the raw tree; decoding them here
// first refuses `spec: 5` or `data: [a]` at load, as the API server refuses them, instead of
// meeting a scalar where that component expects a mapping.
void decode_raw_object(const Ctx& ctx, const Value& v, const std::string& kind, Fields& top) {
  object_meta(ctx, v, top.get("metadata"), NameRule::Subdomain, true);
  if (kind == "ConfigMap") {
    if (auto dv = top.get("data")) string_map_entries(ctx, *dv, "ConfigMap", "data");
    return;
  }
  auto sv = top.get("spec");
  if (!sv) return;
  Fields f(ctx, *sv, "spec", "PodDisruptionBudget", "v1.PodDisruptionBudgetSpec");
  for (const char* key : {"minAvailable", "maxUnavailable"})
    if (auto x = f.get(key)) int_or_string(ctx, *x, "PodDisruptionBudgetSpec", f.path(key));
  if (auto sel = f.get("selector")) label_selector(ctx, *sel, f.path("selector"));
  f.allow({"unhealthyPodEvictionPolicy"});
  f.finish();
}

// ---- kinds -------------------------------------------------------------------------------

struct KindInfo {
  const char* group_version;
  const char* kind;
};

// Kinds the simulated API server serves (EKS built-ins plus the Karpenter and Auto Mode CRDs);
// anything else is "no matches for kind", as kubectl says when a CRD is not installed.
constexpr KindInfo kKnownKinds[] = {
    {"v1", "Pod"}, {"v1", "Namespace"}, {"v1", "List"}, {"v1", "ConfigMap"}, {"v1", "Secret"}, {"v1", "Service"},
    {"v1", "ServiceAccount"}, {"v1", "PersistentVolumeClaim"}, {"v1", "LimitRange"}, {"v1", "ResourceQuota"},
    {"apps/v1", "Deployment"}, {"apps/v1", "DaemonSet"}, {"apps/v1", "StatefulSet"}, {"apps/v1", "ReplicaSet"},
    {"batch/v1", "Job"}, {"batch/v1", "CronJob"},
    {"policy/v1", "PodDisruptionBudget"},
    {"scheduling.k8s.io/v1", "PriorityClass"},
    {"node.k8s.io/v1", "RuntimeClass"},
    {"storage.k8s.io/v1", "StorageClass"},
    {"rbac.authorization.k8s.io/v1", "Role"}, {"rbac.authorization.k8s.io/v1", "ClusterRole"},
    {"rbac.authorization.k8s.io/v1", "RoleBinding"}, {"rbac.authorization.k8s.io/v1", "ClusterRoleBinding"},
    {"karpenter.sh/v1", "NodePool"}, {"karpenter.sh/v1", "NodeClaim"},
    {"karpenter.k8s.aws/v1", "EC2NodeClass"},
    {"eks.amazonaws.com/v1", "NodeClass"},
};

bool known_kind(const std::string& gv, const std::string& kind) {
  return std::any_of(std::begin(kKnownKinds), std::end(kKnownKinds),
                     [&](const KindInfo& k) { return gv == k.group_version && kind == k.kind; });
}

std::string version_of(const std::string& gv) {
  auto slash = gv.find('/');
  return slash == std::string::npos ? gv : gv.substr(slash + 1);
}

std::string raw_name(const Value& obj) {
  if (!obj.is_map()) return "";
  YAML::Node m = obj.node()["metadata"];
  if (!m || !m.IsMap()) return "";
  YAML::Node n = m["name"];
  return n && n.IsScalar() ? n.Scalar() : "";
}

void parse_object(const Value& v, std::vector<Manifest>& out) {
  if (!v.is_map()) v.fail("expected a Kubernetes object (a mapping with apiVersion and kind), got " + v.kind_name());
  YAML::Node av = v.node()["apiVersion"], kv = v.node()["kind"];
  const bool has_av = av && av.IsScalar() && !av.Scalar().empty();
  const bool has_kind = kv && kv.IsScalar() && !kv.Scalar().empty();
  if (!has_av && !has_kind) v.fail("error validating data: [apiVersion not set, kind not set]");
  if (!has_av) v.fail("error validating data: apiVersion not set");
  if (!has_kind) v.fail("error validating data: kind not set");
  Manifest m;
  m.api_version = av.Scalar();
  m.kind = kv.Scalar();
  m.where = v.where();
  if (!known_kind(m.api_version, m.kind))
    Value(kv, v.file_ptr()).fail("no matches for kind " + quote(m.kind) + " in version " + quote(m.api_version));

  Ctx ctx{{m.kind, raw_name(v), version_of(m.api_version)}};
  Fields top(ctx, v, "", "", "");
  top.get("apiVersion");
  top.get("kind");

  if (m.kind == "List") {
    if (auto items = top.get("items"))
      for (const auto& item : list(ctx, *items, "List", "items", "[]runtime.RawExtension")) parse_object(item, out);
    top.allow({"metadata"});
    top.finish();
    return;
  }
  if (m.kind == "Pod") {
    k8s::Pod pod;
    pod.meta = object_meta(ctx, v, top.get("metadata"), NameRule::Subdomain, true);
    auto sv = top.get("spec");
    if (!sv) ctx.invalid(v, fe_required("spec.containers"));
    pod.spec = pod_spec(ctx, *sv, "spec");
    top.allow({"status"});
    top.finish();
    m.object = std::move(pod);
  } else if (m.kind == "Namespace") {
    NamespaceObject ns;
    ns.meta = object_meta(ctx, v, top.get("metadata"), NameRule::Label, false);
    top.allow({"spec", "status"});
    top.finish();
    m.object = std::move(ns);
  } else if (m.kind == "Deployment" || m.kind == "DaemonSet" || m.kind == "Job") {
    k8s::ObjectMeta meta = object_meta(ctx, v, top.get("metadata"), NameRule::Subdomain, true);
    auto spec_v = top.get("spec");
    if (!spec_v) ctx.invalid(v, fe_required("spec.template.spec.containers"));
    const char* go_struct = m.kind == "Deployment" ? "DeploymentSpec" : m.kind == "Job" ? "JobSpec" : "DaemonSetSpec";
    Fields f(ctx, *spec_v, "spec", m.kind.c_str(), go_struct);
    // Scalars first, then the template: a type error in either is reported before any
    // validation error, as the API server decodes the whole object before validating it.
    auto tv = f.get("template");
    auto sel_v = f.get("selector");
    auto template_of = [&]() { return pod_template(ctx, *spec_v, tv, "spec.template", meta.ns); };
    if (m.kind == "Deployment") {
      k8s::Deployment d;
      auto rv = f.get("replicas");
      if (rv) d.replicas = static_cast<std::int32_t>(integer(ctx, *rv, go_struct, "spec.replicas", "int32"));
      k8s::PodTemplate tmpl = template_of();
      if (d.replicas < 0) ctx.invalid(*rv, fe_invalid("spec.replicas", std::to_string(d.replicas), "must be greater than or equal to 0"));
      d.selector = owner_selector(ctx, f, *spec_v, tmpl, tv, sel_v, "deployment");
      require_restart_always(ctx, *tv, tmpl);
      f.allow(kIgnoredDeploymentSpec);
      f.finish();
      d.meta = std::move(meta);
      d.tmpl = std::move(tmpl);
      m.object = std::move(d);
    } else if (m.kind == "DaemonSet") {
      k8s::DaemonSet ds;
      k8s::PodTemplate tmpl = template_of();
      ds.selector = owner_selector(ctx, f, *spec_v, tmpl, tv, sel_v, "daemonset");
      require_restart_always(ctx, *tv, tmpl);
      f.allow(kIgnoredDaemonSetSpec);
      f.finish();
      ds.meta = std::move(meta);
      ds.tmpl = std::move(tmpl);
      m.object = std::move(ds);
    } else {
      k8s::Job j;
      auto nonneg = [&](const char* key, std::int32_t& field) -> bool {
        auto x = f.get(key);
        if (!x) return false;
        field = static_cast<std::int32_t>(integer(ctx, *x, go_struct, f.path(key), "int32"));
        if (field < 0) ctx.invalid(*x, fe_invalid(f.path(key), std::to_string(field), "must be greater than or equal to 0"));
        return true;
      };
      bool has_completions = nonneg("completions", j.completions);
      bool has_parallelism = nonneg("parallelism", j.parallelism);
      nonneg("backoffLimit", j.backoff_limit);
      // A work-queue Job (parallelism without completions) is modelled as that many completions.
      if (!has_completions && has_parallelism) j.completions = j.parallelism;
      if (auto cm = f.get("completionMode")) {
        j.completion_mode = str(ctx, *cm, go_struct, "spec.completionMode");
        if (j.completion_mode != "NonIndexed" && j.completion_mode != "Indexed")
          ctx.invalid(*cm, fe_not_supported("spec.completionMode", j.completion_mode, {"NonIndexed", "Indexed"}));
        if (j.completion_mode == "Indexed" && !has_completions)
          ctx.invalid(*cm, fe_required("spec.completions", "when completion mode is Indexed"));
      }
      bool manual = false;
      if (auto mv = f.get("manualSelector")) manual = boolean(ctx, *mv, go_struct, "spec.manualSelector");
      k8s::PodTemplate tmpl = template_of();
      if (sel_v) {
        k8s::LabelSelector sel = label_selector(ctx, *sel_v, "spec.selector");
        if (!manual) ctx.invalid(*sel_v, fe_invalid("spec.selector", "{}", "`selector` will be auto-generated"));
        if (!selector_matches(sel, tmpl.meta.labels))
          ctx.invalid(*tv, fe_invalid("spec.template.metadata.labels", json_map(tmpl.meta.labels),
                                      "`selector` does not match template `labels`"));
      }
      const std::string& rp = tmpl.spec.restart_policy;
      if (rp == "Always" || rp.empty())
        ctx.invalid(*tv, fe_required("spec.template.spec.restartPolicy", "valid values: \"OnFailure\", \"Never\""));
      f.allow(kIgnoredJobSpec);
      f.finish();
      // The Job strategy labels the template (PrepareForCreate); the pods carry these labels.
      tmpl.meta.labels["batch.kubernetes.io/job-name"] = meta.name;
      tmpl.meta.labels["job-name"] = meta.name;
      j.meta = std::move(meta);
      j.tmpl = std::move(tmpl);
      m.object = std::move(j);
    }
    top.allow({"status"});
    top.finish();
  } else if (m.kind == "PodDisruptionBudget" || m.kind == "ConfigMap") {
    decode_raw_object(ctx, v, m.kind, top);
    m.object = RawObject{v};
  } else {
    // Parsed by the component that models the kind (Karpenter, PDBs, priority classes, ...).
    m.object = RawObject{v};
  }
  out.push_back(std::move(m));
}

void load_file(const Value& fv, FileLoader& loader, std::vector<Manifest>& out);

bool is_file_entry(const Value& v) { return v.is_map() && v.node()["file"] && !v.node()["kind"]; }

void parse_entry(const Value& v, FileLoader& loader, std::vector<Manifest>& out) {
  if (!is_file_entry(v)) {
    parse_object(v, out);
    return;
  }
  MapReader r(v, "a manifests file entry");
  Value fv = r.require("file");
  r.finish();
  load_file(fv, loader, out);
}

void load_file(const Value& fv, FileLoader& loader, std::vector<Manifest>& out) {
  std::string path = FileLoader::resolve(fv.file(), fv.as_string("a file path"));
  std::string canonical = std::filesystem::absolute(path).lexically_normal().string();
  if (!loader.push(canonical)) fv.fail("include cycle: \"" + path + "\" is already being loaded");
  try {
    for (const auto& doc : loader.load_documents(path, fv.where())) parse_entry(doc, loader, out);
  } catch (...) {
    loader.pop();
    throw;
  }
  loader.pop();
}

ObjectRef ctx_ref(const ObjectRef& r) { return r; }

}  // namespace

std::vector<Manifest> parse_manifests(const Value& list_or_object, FileLoader& loader) {
  std::vector<Manifest> out;
  if (list_or_object.is_null()) return out;
  if (list_or_object.is_seq()) {
    for (const auto& item : list_or_object.items()) parse_entry(item, loader, out);
  } else {
    parse_entry(list_or_object, loader, out);
  }
  return out;
}

std::vector<Manifest> load_manifest_file(const Value& file_value, FileLoader& loader) {
  std::vector<Manifest> out;
  load_file(file_value, loader, out);
  return out;
}

std::vector<Manifest> parse_manifest_object(const Value& object) {
  std::vector<Manifest> out;
  parse_object(object, out);
  return out;
}

std::vector<k8s::Toleration> parse_tolerations(const Value& v, const ObjectRef& obj, const std::string& path) {
  return tolerations(Ctx{ctx_ref(obj)}, v, path);
}

std::vector<k8s::NodeSelectorRequirement> parse_node_selector_requirements(const Value& v, const ObjectRef& obj,
                                                                           const std::string& path) {
  return node_requirements(Ctx{obj}, v, path, false);
}

k8s::LabelSelector parse_label_selector(const Value& v, const ObjectRef& obj, const std::string& path) {
  return label_selector(Ctx{obj}, v, path);
}

k8s::Labels parse_labels(const Value& v, const ObjectRef& obj, const std::string& path, const char* go_struct) {
  return labels_impl(Ctx{obj}, v, path, go_struct);
}

k8s::ResourceList parse_resource_list(const Value& v, const ObjectRef& obj, const std::string& path) {
  return to_resource_list(resource_entries(Ctx{obj}, v, path));
}

}  // namespace eksim::scenario
