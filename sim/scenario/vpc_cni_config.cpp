#include "sim/scenario/vpc_cni_config.hpp"

#include "sim/engine/numbers.hpp"
#include "sim/scenario/yaml_documents.hpp"

namespace eksim::scenario {

namespace {

// Top-level keys of the vpc-cni add-on's configuration schema (aws eks
// describe-addon-configuration --addon-name vpc-cni): the ones eksim does not model are accepted.
constexpr std::initializer_list<const char*> kOtherSchemaKeys = {
    "affinity", "enableNetworkPolicy", "enableWindowsIpam", "enableWindowsPrefixDelegation", "eniConfig",
    "init", "livenessProbeTimeoutSeconds", "nodeAgent", "readinessProbeTimeoutSeconds", "resources",
    "tolerations", "podAnnotations", "podLabels", "updateStrategy", "nodeSelector"};

// The add-on's schema takes env values as strings; ipamd reads these with strconv.Atoi and would
// log a bad one and fall back to its default, which eksim reports as an input error instead.
std::optional<int> env_int(const std::string& name, const Value& v) {
  const std::string s = v.as_string();
  const auto n = engine::parse_integer<int>(s);  // strconv.Atoi's syntax: an optional sign, digits
  if (!n.ok() || n.value < 0 || n.value > 1000000) v.fail(name + " is a non-negative integer, got \"" + s + "\"");
  return n.value;
}

}  // namespace

aws::VpcCniSettings read_vpc_cni_configuration(const Value& v) {
  Value config = v;
  if (v.is_scalar()) {
    // jsonencode({env = {...}}): a JSON document in a string, read through the same checked reader
    // as every file (duplicate keys, alias bombs, the stray tokens yaml-cpp 0.7 loops on).
    YAML::Node parsed;
    try {
      parsed = parse_yaml_document(v.as_string(), "configuration_values.json");
    } catch (const InputError& e) {
      std::string reason = e.message();
      if (const std::string prefix = "malformed JSON: "; reason.rfind(prefix, 0) == 0) reason.erase(0, prefix.size());
      v.fail("configuration_values is not valid JSON: " + reason);
    }
    config = Value(parsed, v.file_ptr());
    if (!config.is_map()) v.fail("configuration_values must be a JSON object");
  }
  aws::VpcCniSettings cni;
  MapReader r(config, "vpc-cni configuration_values");
  if (auto env = r.get("env")) {
    for (const auto& [name, key, value] : env->entries("an environment variable name")) {
      if (name == "ENABLE_PREFIX_DELEGATION") {
        const std::string s = value.as_string();
        if (s != "true" && s != "false") value.fail("ENABLE_PREFIX_DELEGATION is \"true\" or \"false\", got \"" + s + "\"");
        cni.prefix_delegation = s == "true";
      } else if (name == "WARM_ENI_TARGET") {
        cni.warm_eni_target = *env_int(name, value);
      } else if (name == "WARM_PREFIX_TARGET") {
        cni.warm_prefix_target = *env_int(name, value);
      } else if (name == "WARM_IP_TARGET") {
        cni.warm_ip_target = env_int(name, value);
      } else if (name == "MINIMUM_IP_TARGET") {
        cni.minimum_ip_target = env_int(name, value);
      } else if (name == "IP_COOLDOWN_PERIOD") {
        cni.ip_cooldown_seconds = *env_int(name, value);
      } else {
        (void)value.as_string();  // other aws-node variables: accepted, not modelled
      }
    }
  }
  r.allow(kOtherSchemaKeys);
  r.finish();
  return cni;
}

}  // namespace eksim::scenario
