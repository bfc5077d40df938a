// /eksim/v1/aws: the AWS-side actions `eksim ctl aws ...` sends, as timeline actions in JSON
// ({"action": "eks.update-nodegroup-config", "nodegroup": "gpu", "scalingConfig": {...}}). Each
// enters the simulation at the current instant through perform_aws_action, the code a scenario's
// timeline runs. The answer is what the AWS API would return: the operation's output, or its
// error code and text (HTTP 400, {"kind": "AwsError", "operation", "code", "message"}), which the
// CLI prints as the aws CLI does.
#include <cmath>

#include "models/aws/quotas.hpp"
#include "sim/engine/numbers.hpp"
#include "sim/ops/actions.hpp"
#include "sim/scenario/input_limits.hpp"
#include "sim/serve/api_handler.hpp"

namespace eksim::serve {

using nlohmann::json;

namespace {

HttpResponse aws_error(const std::string& operation, const aws::AwsError& e) {
  return json_response({{"kind", "AwsError"}, {"operation", operation}, {"code", e.code}, {"message", e.message}}, 400);
}

HttpResponse aws_output(const std::string& operation, json output) {
  return json_response({{"kind", "AwsResult"}, {"operation", operation}, {"output", std::move(output)}});
}

std::string text(const json& body, const char* key) {
  auto it = body.find(key);
  return it != body.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<std::int64_t> count(const json& body, const char* key) {
  auto it = body.find(key);
  if (it == body.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<std::int64_t>();
}

// EKS answers for the one cluster the scenario describes; another name is not found.
std::optional<aws::AwsError> check_cluster(Session& s, const json& body) {
  std::string name = text(body, "clusterName");
  std::string ours = s.scenario().cluster.name.empty() ? "cluster" : s.scenario().cluster.name;
  if (name == ours) return std::nullopt;
  return aws::AwsError{"ResourceNotFoundException", "No cluster found for name: " + name + "."};
}

HttpResponse update_nodegroup_config(Session& s, const json& body) {
  const std::string op = "UpdateNodegroupConfig";
  if (auto err = check_cluster(s, body)) return aws_error(op, *err);
  scenario::Action a;
  a.action = "eks.update-nodegroup-config";
  a.nodegroup = text(body, "nodegroup");
  const json sc = body.value("scalingConfig", json::object());
  if (!sc.is_object()) return bad_request("scalingConfig: expected an object");
  for (const char* key : {"minSize", "maxSize", "desiredSize"}) {
    if (!sc.contains(key)) continue;
    auto n = count(sc, key);
    if (!n || *n < 0 || *n > scenario::kMaxNodes) return bad_request(std::string("scalingConfig.") + key + ": expected a node count");
  }
  a.min_size = count(sc, "minSize");
  a.max_size = count(sc, "maxSize");
  a.desired_size = count(sc, "desiredSize");
  ops::AwsActionResult r;
  s.apply_now([&](Cluster& c) { r = ops::perform_aws_action(c, a); });
  if (r.error) return aws_error(op, *r.error);
  json params = json::array();
  if (a.min_size) params.push_back({{"type", "MinSize"}, {"value", std::to_string(*a.min_size)}});
  if (a.max_size) params.push_back({{"type", "MaxSize"}, {"value", std::to_string(*a.max_size)}});
  if (a.desired_size) params.push_back({{"type", "DesiredSize"}, {"value", std::to_string(*a.desired_size)}});
  return aws_output(op, {{"update", {{"status", "InProgress"}, {"type", "ConfigUpdate"}, {"params", params}, {"errors", json::array()}}}});
}

// Service Quotas RequestServiceQuotaIncrease for the EC2 vCPU quotas eksim models. eksim grants
// the request at once, as the timeline's ec2.set-quota does.
HttpResponse request_quota_increase(Session& s, const json& body) {
  const std::string op = "RequestServiceQuotaIncrease";
  std::string code = text(body, "quotaCode");
  std::string bucket;
  bool spot = false;
  for (std::string_view b : aws::kQuotaBuckets)
    for (bool sp : {false, true})
      if (!code.empty() && aws::quota_code(b, sp) == code) {
        bucket = std::string(b);
        spot = sp;
      }
  if (bucket.empty()) return bad_request("eksim models the EC2 vCPU quotas only; unknown quota code \"" + code + "\"");
  auto it = body.find("desiredValue");
  if (it == body.end() || !it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < 0 ||
      it->get<double>() > 1e9)
    return bad_request("desiredValue: expected a number of vCPUs");
  double desired = it->get<double>();
  Cluster& c = s.cluster();
  std::optional<std::int64_t> current = c.ec2.quotas().quota(bucket, spot);
  // Source: Service Quotas' IllegalArgumentException for a value not above the applied one.
  if (current && desired <= static_cast<double>(*current))
    return aws_error(op, {"IllegalArgumentException", "You must provide a quota value greater than the current quota value"});
  scenario::Action a;
  a.action = "ec2.set-quota";
  auto vcpus = static_cast<std::int64_t>(std::ceil(desired));
  (spot ? a.quotas.spot : a.quotas.on_demand)[bucket] = vcpus;
  s.apply_now([&](Cluster& cl) { (void)ops::perform_aws_action(cl, a); });
  std::string name;
  if (auto b = c.catalog().quota_buckets().find(bucket); b != c.catalog().quota_buckets().end())
    name = spot ? b->second.spot_quota_name : b->second.on_demand_quota_name;
  return aws_output(op, {{"RequestedQuota",
                          {{"ServiceCode", "ec2"},
                           {"ServiceName", "Amazon Elastic Compute Cloud (Amazon EC2)"},
                           {"QuotaCode", code},
                           {"QuotaName", name},
                           {"DesiredValue", desired},
                           {"Status", "APPROVED"},
                           {"GlobalQuota", false},
                           {"Unit", "None"}}}});
}

HttpResponse security_group_ingress(Session& s, const json& body, const std::string& action) {
  const std::string op = action == "sg.authorize-ingress" ? "AuthorizeSecurityGroupIngress" : "RevokeSecurityGroupIngress";
  scenario::Action a;
  a.action = action;
  a.group = text(body, "group");
  const json rule = body.value("rule", json::object());
  if (!rule.is_object()) return bad_request("rule: expected an object");
  a.rule.protocol = rule.value("protocol", std::string("tcp"));
  auto port = [&](const char* key) -> std::optional<int> {
    auto n = count(rule, key);
    if (!n) return rule.contains(key) ? std::nullopt : std::optional<int>(0);
    if (*n < -1 || *n > 65535) return std::nullopt;
    return static_cast<int>(*n);
  };
  auto from = port("fromPort"), to = port("toPort");
  if (!from || !to) return bad_request("rule: ports must be -1 or 0 to 65535");
  a.rule.from_port = *from;
  a.rule.to_port = *to;
  a.rule.source_group = text(rule, "sourceGroup");
  a.rule.cidr = text(rule, "cidr");
  ops::AwsActionResult r;
  s.apply_now([&](Cluster& c) { r = ops::perform_aws_action(c, a); });
  if (r.error) return aws_error(op, *r.error);
  return aws_output(op, {{"Return", true}});
}

// AWS FIS's aws:ec2:send-spot-instance-interruptions, aimed as the timeline action is.
HttpResponse spot_interruption(Session& s, const json& body) {
  scenario::Action a;
  a.action = "ec2.send-spot-instance-interruptions";
  a.nodegroup = text(body, "nodegroup");
  a.node_pool = text(body, "nodePool");
  a.node = text(body, "node");
  if (!a.nodegroup.empty() + !a.node_pool.empty() + !a.node.empty() != 1)
    return bad_request("send-spot-instance-interruptions needs exactly one of --nodegroup, --node-pool or --node");
  if (std::string pick = text(body, "instance"); !pick.empty()) {
    bool index = pick.find_first_not_of("0123456789") == std::string::npos && engine::parse_integer<std::int32_t>(pick).ok();
    if (pick != "newest" && pick != "oldest" && !index)
      return bad_request("--instance is newest, oldest or an index by launch order (0 = first), got \"" + pick + "\"");
    a.instance = pick;
  }
  if (body.contains("durationBeforeInterruption")) {
    auto d = engine::parse_duration(text(body, "durationBeforeInterruption"));
    if (!d || *d < engine::Duration::minutes(2) || *d > engine::Duration::minutes(15))
      return bad_request("durationBeforeInterruption must be between 2m and 15m, got \"" + text(body, "durationBeforeInterruption") + "\"");
    a.before_interruption = *d;
  }
  ops::AwsActionResult r;
  s.apply_now([&](Cluster& c) { r = ops::perform_aws_action(c, a); });
  if (!r.remark.empty()) return status_error(404, "NotFound", r.remark);
  return aws_output("SendSpotInstanceInterruptions",
                    {{"InstanceId", r.instance_id},
                     {"InterruptionAt", engine::format_duration(engine::Duration{(s.now() + a.before_interruption).us})}});
}

}  // namespace

HttpResponse handle_aws(Session& s, const HttpRequest& req) {
  if (req.method != "POST") return status_error(405, "MethodNotAllowed", "the aws endpoint accepts POST");
  json body = json::parse(req.body, nullptr, false);
  if (!body.is_object() || !body.contains("action") || !body["action"].is_string())
    return bad_request("expected a JSON object with \"action\"");
  std::string action = body["action"];
  if (action == "eks.update-nodegroup-config") return update_nodegroup_config(s, body);
  if (action == "servicequotas.request-service-quota-increase") return request_quota_increase(s, body);
  if (action == "sg.authorize-ingress" || action == "sg.revoke-ingress") return security_group_ingress(s, body, action);
  if (action == "ec2.send-spot-instance-interruptions") return spot_interruption(s, body);
  return bad_request("unknown aws action \"" + action +
             "\": eks.update-nodegroup-config, servicequotas.request-service-quota-increase, sg.authorize-ingress, "
             "sg.revoke-ingress or ec2.send-spot-instance-interruptions");
}

}  // namespace eksim::serve
