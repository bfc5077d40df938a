#include "sim/scenario/nvidia_plugin_config_yaml.hpp"

#include <yaml-cpp/yaml.h>

namespace eksim::scenario {

namespace {

// json.Unmarshal's errors (type mismatches, the api's own UnmarshalJSON checks).
struct Refused {
  std::string message;
};
// parseConfigFrom's check after unmarshalling.
struct UnknownVersion {
  std::string version;
};

bool boolean(const YAML::Node& n, const std::string& field) {
  bool b = false;
  if (!n.IsScalar() || !YAML::convert<bool>::decode(n, b))
    throw Refused{"json: cannot unmarshal " + (n.IsScalar() ? "string" : std::string("object")) + " into Go struct field " +
                  field + " of type bool"};
  return b;
}

// api/config/v1/replicas.go ReplicatedResources.UnmarshalJSON and ReplicatedResource's.
void replicated(const YAML::Node& n, k8s::NvidiaPluginConfig& out) {
  if (!n.IsMap()) throw Refused{"json: cannot unmarshal into Go value of type map[string]json.RawMessage"};
  if (n["renameByDefault"]) out.rename_by_default = boolean(n["renameByDefault"], "ReplicatedResources.renameByDefault");
  if (n["failRequestsGreaterThanOne"])
    out.fail_requests_greater_than_one =
        boolean(n["failRequestsGreaterThanOne"], "ReplicatedResources.failRequestsGreaterThanOne");
  YAML::Node resources = n["resources"];
  if (!resources || !resources.IsSequence() || resources.size() == 0) throw Refused{"no resources specified"};
  for (const auto& r : resources) {
    if (!r.IsMap() || !r["name"]) throw Refused{"no resource name specified"};
    k8s::NvidiaPluginConfig::Replicated item;
    item.name = r["name"].Scalar();
    if (item.name.rfind("nvidia.com/", 0) != 0) item.name = "nvidia.com/" + item.name;  // NewResourceName
    if (!r["replicas"]) throw Refused{"no replicas specified"};
    int replicas = 0;
    if (!r["replicas"].IsScalar() || !YAML::convert<int>::decode(r["replicas"], replicas))
      throw Refused{"json: cannot unmarshal string into Go value of type int"};
    if (replicas < 2) throw Refused{"number of replicas must be >= 2"};
    item.replicas = replicas;
    out.time_slicing.push_back(std::move(item));
  }
}

// flags.* and flags.plugin.* scalars (and deviceListStrategy's list) as written; the other
// nested sections (gfd) are not the plugin's.
void read_flags(const YAML::Node& flags, const std::string& prefix, k8s::NvidiaPluginConfig& out) {
  for (const auto& kv : flags) {
    const std::string key = kv.first.Scalar();
    const YAML::Node& v = kv.second;
    if (key == "failOnInitError" && prefix.empty()) continue;
    if (key == "plugin" && prefix.empty() && v.IsMap()) {
      read_flags(v, "plugin.", out);
    } else if (v.IsScalar()) {
      out.flags[prefix + key] = v.Scalar();
    } else if (v.IsSequence()) {
      std::string joined;
      for (const auto& item : v)
        if (item.IsScalar()) joined += (joined.empty() ? "" : ",") + item.Scalar();
      out.flags[prefix + key] = joined;
    }
  }
}

}  // namespace

std::optional<k8s::NvidiaPluginConfig> parse_nvidia_plugin_config(const std::string& text, std::string* error) {
  k8s::NvidiaPluginConfig out;
  try {
    YAML::Node root = YAML::Load(text);
    if (!root || root.IsNull()) return out;
    if (!root.IsMap())
      throw Refused{std::string("json: cannot unmarshal ") + (root.IsSequence() ? "array" : "string") +
                    " into Go value of type v1.Config"};
    if (auto v = root["version"]; v && v.IsScalar() && !v.Scalar().empty() && v.Scalar() != "v1")
      throw UnknownVersion{v.Scalar()};
    if (auto flags = root["flags"]; flags && flags.IsMap()) {
      if (flags["failOnInitError"]) out.fail_on_init_error = boolean(flags["failOnInitError"], "Flags.failOnInitError");
      read_flags(flags, "", out);
    }
    if (auto sharing = root["sharing"]; sharing && sharing.IsMap()) {
      if (auto mps = sharing["mps"]; mps && !mps.IsNull()) {
        // The plugin prefers MPS when set; it then shares through the MPS control daemon, which
        // eksim does not model: nothing is replicated.
        k8s::NvidiaPluginConfig section;
        replicated(mps, section);
        out.mps = true;
        out.mps_resources = std::move(section.time_slicing);
        out.mps_rename_by_default = section.rename_by_default;
      }
      if (auto ts = sharing["timeSlicing"]; ts && !ts.IsNull()) replicated(ts, out);
    }
  } catch (const UnknownVersion& v) {
    if (error) *error = "unknown version: " + v.version;
    return std::nullopt;
  } catch (const Refused& r) {
    // sigs.k8s.io/yaml wraps json.Unmarshal's error; parseConfigFrom wraps that.
    if (error) *error = "unmarshal error: error unmarshaling JSON: while decoding JSON: " + r.message;
    return std::nullopt;
  } catch (const YAML::Exception& e) {
    if (error) *error = "unmarshal error: error converting YAML to JSON: yaml: " + e.msg;
    return std::nullopt;
  }
  return out;
}

}  // namespace eksim::scenario
