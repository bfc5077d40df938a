#include "sim/scenario/cas_config_map.hpp"

#include <yaml-cpp/yaml.h>

#include "models/autoscaling/cluster_autoscaler.hpp"
#include "sim/engine/numbers.hpp"

namespace eksim::scenario {

namespace {

// What gopkg.in/yaml accepts as an int key (decimal only here; 0x/0o/_ forms are rare in these
// ConfigMaps), within int's range.
bool is_go_int(const std::string& s) {
  std::size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  return i < s.size() && s.find_first_not_of("0123456789", i) == std::string::npos && s.size() - i < 10;
}

std::string yaml_tag(const YAML::Node& n) {
  if (n.IsSequence()) return "!!seq";
  if (n.IsMap()) return "!!map";
  return "!!str";
}

std::string line_of(const YAML::Node& n) { return "line " + std::to_string(n.Mark().line + 1); }

}  // namespace

std::optional<autoscaling::cas::PriorityConfig> parse_priority_config(const std::string& yaml, std::string* error) {
  auto fail = [&](std::string msg) -> std::optional<autoscaling::cas::PriorityConfig> {
    if (error) *error = std::move(msg);
    return std::nullopt;
  };
  if (yaml.empty())
    return fail(std::string("priority configuration in ") + autoscaling::cas::kPriorityConfigMapName +
                " configmap is empty; please provide valid configuration");
  const std::string cant = "Can't parse YAML with priorities in the configmap: ";
  YAML::Node root;
  try {
    root = YAML::Load(yaml);
  } catch (const YAML::Exception& e) {
    return fail(cant + "yaml: line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  if (root.IsNull()) return autoscaling::cas::PriorityConfig{};
  const std::string unmarshal = cant + "yaml: unmarshal errors:";
  if (!root.IsMap())
    return fail(unmarshal + "\n  " + line_of(root) + ": cannot unmarshal " + yaml_tag(root) + " `" +
                (root.IsScalar() ? root.Scalar() : "") + "` into map[int][]string");
  autoscaling::cas::PriorityConfig config;
  std::string errors;
  for (auto it = root.begin(); it != root.end(); ++it) {
    YAML::Node key = it->first;
    YAML::Node value = it->second;
    const std::string k = key.IsScalar() ? key.Scalar() : "";
    if (!key.IsScalar() || !is_go_int(k)) {
      errors += "\n  " + line_of(key) + ": cannot unmarshal " + yaml_tag(key) + " `" + k + "` into int";
      continue;
    }
    auto& rules = config[engine::parse_integer<int>(k).value];  // is_go_int: fewer than 10 digits
    if (value.IsNull()) continue;
    if (!value.IsSequence()) {
      errors += "\n  " + line_of(value) + ": cannot unmarshal " + yaml_tag(value) + " `" +
                (value.IsScalar() ? value.Scalar() : "") + "` into []string";
      continue;
    }
    for (std::size_t i = 0; i < value.size(); ++i) {
      YAML::Node item = value[i];
      rules.push_back(item.IsScalar() ? item.Scalar() : "");
    }
  }
  if (!errors.empty()) return fail(unmarshal + errors);
  if (auto bad = autoscaling::cas::check_priority_regexps(config)) return fail(*bad);
  return config;
}

}  // namespace eksim::scenario
