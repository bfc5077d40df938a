#include "sim/cli/ctl_aws.hpp"

#include <cstdio>
#include <map>
#include <optional>

#include "sim/engine/numbers.hpp"
#include "sim/scenario/input_error.hpp"
#include "sim/serve/http_client.hpp"

namespace eksim::cli {

using nlohmann::json;

namespace {

// One aws CLI command: its flags (each takes a value) and which of them are required.
struct CommandSpec {
  std::string service, command, operation;
  std::vector<std::string> flags;
  std::vector<std::string> required;
};

const std::vector<CommandSpec>& commands() {
  static const std::vector<CommandSpec> list{
      {"eks", "update-nodegroup-config", "UpdateNodegroupConfig",
       {"--cluster-name", "--nodegroup-name", "--scaling-config"}, {"--cluster-name", "--nodegroup-name"}},
      {"service-quotas", "request-service-quota-increase", "RequestServiceQuotaIncrease",
       {"--service-code", "--quota-code", "--desired-value"}, {"--service-code", "--quota-code", "--desired-value"}},
      {"ec2", "authorize-security-group-ingress", "AuthorizeSecurityGroupIngress",
       {"--group-id", "--protocol", "--port", "--source-group", "--cidr"}, {"--group-id", "--protocol"}},
      {"ec2", "revoke-security-group-ingress", "RevokeSecurityGroupIngress",
       {"--group-id", "--protocol", "--port", "--source-group", "--cidr"}, {"--group-id", "--protocol"}},
      // No aws CLI command sends a Spot interruption: AWS FIS's action
      // aws:ec2:send-spot-instance-interruptions does, with the timeline action's targets.
      {"fis", "send-spot-instance-interruptions", "SendSpotInstanceInterruptions",
       {"--nodegroup", "--node-pool", "--node", "--instance", "--duration-before-interruption"}, {}},
  };
  return list;
}

// The aws CLI's global options a lab may pass; they change nothing in the simulation.
const std::vector<std::string> kGlobalFlags{"--region", "--profile", "--output"};

std::optional<std::int64_t> whole(const std::string& text) {
  auto n = engine::parse_integer<std::int64_t>(text);
  if (!n.ok()) return std::nullopt;
  return n.value;
}

// --scaling-config minSize=0,maxSize=2,desiredSize=1 (the CLI's shorthand) or its JSON form.
std::optional<json> scaling_config(const std::string& text, std::string* error) {
  static const std::vector<std::string> keys{"minSize", "maxSize", "desiredSize"};
  json out = json::object();
  if (!text.empty() && text.front() == '{') {
    json j = json::parse(text, nullptr, false);
    if (!j.is_object()) {
      *error = "--scaling-config: invalid JSON: " + text;
      return std::nullopt;
    }
    for (auto& [k, v] : j.items()) {
      if (std::find(keys.begin(), keys.end(), k) == keys.end() || !v.is_number_integer()) {
        *error = "--scaling-config: expected integer minSize, maxSize and desiredSize, got \"" + k + "\"";
        return std::nullopt;
      }
      out[k] = v;
    }
    return out;
  }
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    std::size_t eq = part.find('=');
    std::string key = part.substr(0, eq);
    if (eq == std::string::npos || std::find(keys.begin(), keys.end(), key) == keys.end()) {
      std::string hint = scenario::did_you_mean(key, keys);
      *error = "--scaling-config: expected minSize=N,maxSize=N,desiredSize=N, got \"" + part + "\"" +
               (hint.empty() ? "" : "; did you mean \"" + hint + "\"?");
      return std::nullopt;
    }
    auto n = whole(part.substr(eq + 1));
    if (!n) {
      *error = "--scaling-config: " + key + " must be a whole number, got \"" + part.substr(eq + 1) + "\"";
      return std::nullopt;
    }
    out[key] = *n;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

json security_group_rule(const std::map<std::string, std::string>& f, std::string* error) {
  json rule;
  std::string protocol = f.at("--protocol");
  if (protocol == "all") protocol = "-1";
  rule["protocol"] = protocol;
  int from = -1, to = -1;
  if (protocol != "-1") {
    auto it = f.find("--port");
    if (it == f.end()) {
      *error = "--port is required for --protocol " + protocol + " (a port such as 22 or a range such as 1025-65535)";
      return nullptr;
    }
    std::size_t dash = it->second.find('-', 1);
    auto a = whole(it->second.substr(0, dash));
    auto b = dash == std::string::npos ? a : whole(it->second.substr(dash + 1));
    if (!a || !b || *a < -1 || *b < -1 || *a > 65535 || *b > 65535) {
      *error = "--port: expected a port such as 22 or a range such as 1025-65535, got \"" + it->second + "\"";
      return nullptr;
    }
    from = static_cast<int>(*a);
    to = static_cast<int>(*b);
  }
  rule["fromPort"] = from;
  rule["toPort"] = to;
  bool group = f.count("--source-group"), cidr = f.count("--cidr");
  if (group == cidr) {
    *error = "give exactly one of --source-group or --cidr";
    return nullptr;
  }
  if (group) rule["sourceGroup"] = f.at("--source-group");
  else rule["cidr"] = f.at("--cidr");
  return rule;
}

// The command args[0] args[1] names, or nullptr with the reason in *error.
const CommandSpec* command_of(const std::vector<std::string>& args, std::string* error) {
  std::vector<std::string> names;
  for (const auto& c : commands()) names.push_back(c.command);
  if (args.size() < 2) {
    *error = "ctl aws: expected SERVICE COMMAND, e.g. eks update-nodegroup-config";
    return nullptr;
  }
  const CommandSpec* spec = nullptr;
  for (const auto& c : commands())
    if (c.service == args[0] && c.command == args[1]) spec = &c;
  if (!spec) {
    std::string hint = scenario::did_you_mean(args[1], names);
    *error = "ctl aws: eksim does not model \"aws " + args[0] + " " + args[1] + "\"" +
             (hint.empty() ? "" : "; did you mean \"" + hint + "\"?") +
             " (eks update-nodegroup-config, service-quotas request-service-quota-increase, ec2 "
             "authorize-security-group-ingress, ec2 revoke-security-group-ingress, fis send-spot-instance-interruptions)";
  }
  return spec;
}

using Flags = std::map<std::string, std::string>;

// The command's flags after args[1] (--flag value or --flag=value; the global ones dropped), or
// nullopt with the reason in *error: an unknown flag, one without its value, a required one missing.
std::optional<Flags> read_flags(const CommandSpec& spec, const std::vector<std::string>& args, const std::string& where,
                                std::string* error) {
  Flags flags;
  for (std::size_t i = 2; i < args.size(); ++i) {
    std::string flag = args[i], value;
    if (flag == "--no-cli-pager") continue;
    std::size_t eq = flag.find('=');
    bool inline_value = flag.rfind("--", 0) == 0 && eq != std::string::npos;
    if (inline_value) {
      value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
    }
    bool global = std::find(kGlobalFlags.begin(), kGlobalFlags.end(), flag) != kGlobalFlags.end();
    if (!global && std::find(spec.flags.begin(), spec.flags.end(), flag) == spec.flags.end()) {
      std::string hint = scenario::did_you_mean(flag, spec.flags);
      *error = where + "unknown option \"" + flag + "\"" + (hint.empty() ? "" : "; did you mean \"" + hint + "\"?");
      return std::nullopt;
    }
    if (!inline_value) {
      if (i + 1 >= args.size()) {
        *error = where + "argument " + flag + ": expected one argument";
        return std::nullopt;
      }
      value = args[++i];
    }
    if (!global) flags[flag] = value;
  }
  std::string missing;
  for (const auto& r : spec.required)
    if (!flags.count(r)) missing += (missing.empty() ? "" : ", ") + r;
  if (!missing.empty()) {
    *error = where + "the following arguments are required: " + missing;
    return std::nullopt;
  }
  return flags;
}

// The request bodies, one a command; nullopt with the reason in *error (without `where`).
std::optional<json> update_nodegroup_config(Flags& flags, std::string* error) {
  json body = {{"action", "eks.update-nodegroup-config"},
               {"clusterName", flags["--cluster-name"]},
               {"nodegroup", flags["--nodegroup-name"]},
               {"scalingConfig", json::object()}};
  if (flags.count("--scaling-config")) {
    auto sc = scaling_config(flags["--scaling-config"], error);
    if (!sc) return std::nullopt;
    body["scalingConfig"] = *sc;
  }
  return body;
}

std::optional<json> request_quota_increase(Flags& flags, std::string* error) {
  if (flags["--service-code"] != "ec2") {
    *error = "eksim models the EC2 vCPU quotas only (--service-code ec2), got \"" + flags["--service-code"] + "\"";
    return std::nullopt;
  }
  // A finite number: "inf", "nan" and "1e400" are no quota.
  const auto desired_value = engine::parse_real(flags["--desired-value"]);
  if (!desired_value.ok()) {
    *error = "--desired-value: expected a number, got \"" + flags["--desired-value"] + "\"";
    return std::nullopt;
  }
  return json{{"action", "servicequotas.request-service-quota-increase"},
              {"serviceCode", "ec2"},
              {"quotaCode", flags["--quota-code"]},
              {"desiredValue", desired_value.value}};
}

std::optional<json> security_group_ingress(const CommandSpec& spec, Flags& flags, std::string* error) {
  json rule = security_group_rule(flags, error);
  if (rule.is_null()) return std::nullopt;
  return json{{"action", spec.command == "authorize-security-group-ingress" ? "sg.authorize-ingress" : "sg.revoke-ingress"},
              {"group", flags["--group-id"]},
              {"rule", rule}};
}

std::optional<json> send_spot_instance_interruptions(Flags& flags, std::string* error) {
  json body = {{"action", "ec2.send-spot-instance-interruptions"}};
  int targets = 0;
  for (const auto& [flag, key] : {std::pair{"--nodegroup", "nodegroup"}, {"--node-pool", "nodePool"}, {"--node", "node"}})
    if (flags.count(flag)) {
      body[key] = flags[flag];
      ++targets;
    }
  if (targets != 1) {
    *error = "give exactly one of --nodegroup, --node-pool or --node";
    return std::nullopt;
  }
  if (flags.count("--instance")) body["instance"] = flags["--instance"];
  if (flags.count("--duration-before-interruption")) body["durationBeforeInterruption"] = flags["--duration-before-interruption"];
  return body;
}

}  // namespace

json parse_aws_command(const std::vector<std::string>& args, std::string* error) {
  const CommandSpec* spec = command_of(args, error);
  if (!spec) return json::object();
  const std::string where = "ctl aws " + spec->service + " " + spec->command + ": ";
  auto flags = read_flags(*spec, args, where, error);
  if (!flags) return json::object();
  std::optional<json> body;
  if (spec->command == "update-nodegroup-config") body = update_nodegroup_config(*flags, error);
  else if (spec->command == "request-service-quota-increase") body = request_quota_increase(*flags, error);
  else if (spec->service == "ec2") body = security_group_ingress(*spec, *flags, error);
  else body = send_spot_instance_interruptions(*flags, error);
  if (!body) {
    *error = where + *error;
    return json::object();
  }
  return *body;
}

CtlOutput format_aws_answer(int http_status, const std::string& body) {
  CtlOutput o;
  json answer = json::parse(body, nullptr, false);
  if (http_status == 200 && answer.is_object() && answer.contains("output")) {
    o.out = answer["output"].dump(4) + "\n";
    return o;
  }
  if (answer.is_object() && answer.value("kind", "") == "AwsError") {
    // The aws CLI (v2) prints a blank line, then this, and exits 254 for a service error.
    o.err = "\nAn error occurred (" + answer.value("code", "") + ") when calling the " + answer.value("operation", "") +
            " operation: " + answer.value("message", "") + "\n";
    o.exit_code = 254;
    return o;
  }
  o.err = "error: " + (answer.is_object() ? answer.value("message", body) : body) + "\n";
  o.exit_code = http_status == 400 ? 2 : 1;
  return o;
}

int ctl_aws(const std::string& server, const std::vector<std::string>& args) {
  std::string error;
  json body = parse_aws_command(args, &error);
  if (!error.empty()) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return 2;
  }
  serve::HttpResult r;
  try {
    r = serve::http_call(server, "POST", "/eksim/v1/aws", body.dump());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  CtlOutput o = format_aws_answer(r.status, r.body);
  std::fputs(o.out.c_str(), stdout);
  std::fputs(o.err.c_str(), stderr);
  return o.exit_code;
}

}  // namespace eksim::cli
