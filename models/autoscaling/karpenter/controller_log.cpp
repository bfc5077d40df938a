// What Karpenter's leader logs as it provisions, launches, registers, initializes, disrupts and
// terminates (core v1.5-v1.8 texts and keys; logging.hpp has the line shape). Each function is
// called where upstream logs the line, and does nothing while the log is off.
#include <algorithm>

#include "models/autoscaling/karpenter/controller_log.hpp"
#include "models/autoscaling/karpenter/internal.hpp"

namespace eksim::autoscaling::karpenter {

using namespace detail;

namespace {

std::string pod_key(const k8s::Pod& p) { return p.meta.ns + "/" + p.meta.name; }

std::string provider_id(const NodeClaimState& c) { return "aws:///" + c.zone + "/" + c.instance_id; }

}  // namespace

void Logger::provisioning(const OrderedPods& pods, const SchedulingResults& res) {
  provisioner_context_.clear();
  if (!log_.enabled()) return;
  const SimTime now = world_.sim.now();
  const std::string ctx = log_.singleton("provisioner");
  provisioner_context_ = ctx;
  // Provisioner.Schedule logs the pods it considered when the solve made new NodeClaims, then
  // Results.Record the pods it could not place and what it made. The duration is an estimate:
  // eksim does not time its solve the way Karpenter's wall clock would.
  if (!res.new_claims.empty()) {
    std::vector<std::string> keys;
    keys.reserve(pods.pods.size());
    for (const k8s::Pod* p : pods.pods) keys.push_back(pod_key(*p));
    const std::int64_t duration_ns = 20'000'000 + 150'000 * static_cast<std::int64_t>(pods.pods.size());
    log_.info(now, "found provisionable pod(s)",
                         ctx + ",\"Pods\":" + json_string(first_five(keys)) + ",\"duration\":" +
                             json_string(go_duration(duration_ns)));
  }
  for (const auto& [pod, err] : res.errors) {
    if (err->empty()) continue;
    log_.error(now, "could not schedule pod",
                          ctx + ",\"Pod\":" + object_ref(pod->meta.name, pod->meta.ns) + ",\"error\":" + json_string(*err));
  }
  std::size_t new_pods = 0;
  for (const auto& planned : res.new_claims) new_pods += planned.pods.size();
  if (new_pods == 0) return;
  log_.info(now, "computed new nodeclaim(s) to fit pod(s)",
                       ctx + ",\"nodeclaims\":" + std::to_string(res.new_claims.size()) + ",\"pods\":" +
                           std::to_string(new_pods));
  if (!res.existing.empty()) {
    std::vector<std::size_t> nodes;
    for (const auto& [pod, idx] : res.existing) nodes.push_back(idx);
    std::sort(nodes.begin(), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    log_.info(now, "computed unready node(s) will fit pod(s)",
                         ctx + ",\"nodes\":" + std::to_string(nodes.size()) + ",\"pods\":" +
                             std::to_string(res.existing.size()));
  }
}

void Logger::created(const NodeClaimState& c, const PlannedNodeClaim& planned, bool replacement) {
  if (!log_.enabled()) return;
  // The claim's instance-type requirement: its values in order (a sorted set), the first five.
  std::vector<std::string> types;
  const std::size_t n = std::min(planned.options.size(), kMaxInstanceTypes);
  for (std::size_t i = 0; i < n; ++i) types.push_back(planned.options[i]->name());
  std::sort(types.begin(), types.end());
  std::string ctx = replacement || provisioner_context_.empty()
                        ? log_.singleton(replacement ? "disruption" : "provisioner")
                        : provisioner_context_;
  log_.info(world_.sim.now(), "created nodeclaim",
                       ctx + ",\"NodePool\":" + object_ref(c.node_pool) + ",\"NodeClaim\":" + object_ref(c.name) +
                           ",\"requests\":" + resource_map(c.requests) + ",\"instance-types\":" +
                           json_string(first_five(types)));
}

void Logger::launched(const NodeClaimState& c) {
  if (!log_.enabled()) return;
  log_.info(world_.sim.now(), "launched nodeclaim",
                       log_.nodeclaim_controller("nodeclaim.lifecycle", c.name) + ",\"provider-id\":" +
                           json_string(provider_id(c)) + ",\"instance-type\":" + json_string(c.instance_type) +
                           ",\"zone\":" + json_string(c.zone) + ",\"capacity-type\":" + json_string(c.capacity_type) +
                           ",\"allocatable\":" + resource_map(c.allocatable));
}

void Logger::registered(const NodeClaimState& c) {
  if (!log_.enabled()) return;
  log_.info(world_.sim.now(), "registered nodeclaim",
                       log_.nodeclaim_controller("nodeclaim.lifecycle", c.name) + ",\"provider-id\":" +
                           json_string(provider_id(c)) + ",\"Node\":" + object_ref(c.node_name));
}

void Logger::initialized(const NodeClaimState& c, const k8s::NodeRecord& rec) {
  if (!log_.enabled()) return;
  log_.info(world_.sim.now(), "initialized nodeclaim",
                       log_.nodeclaim_controller("nodeclaim.lifecycle", c.name) + ",\"provider-id\":" +
                           json_string(provider_id(c)) + ",\"Node\":" + object_ref(c.node_name) + ",\"allocatable\":" +
                           resource_map(rec.node.allocatable, false));
}

void Logger::disrupting(const std::vector<std::size_t>& candidates, const std::string& reason,
                                const std::vector<PlannedNodeClaim>& replacements) {
  if (!log_.enabled()) return;
  // Command.LogValues: the reason lower-cased; instance types of a replacement only when there
  // is exactly one, cheapest first.
  std::string lower = reason;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char ch) { return std::tolower(ch); });
  int pod_count = 0;
  std::string disrupted = "[";
  for (std::size_t index : candidates) {
    const NodeClaimState& c = state_.node_claims[index];
    if (auto node = world_.api.find_node(c.node_name)) pod_count += state_.node_pods(*node).reschedulable;
    if (disrupted.size() > 1) disrupted += ",";
    disrupted += "{\"Node\":" + object_ref(c.node_name) + ",\"NodeClaim\":" + object_ref(c.name) +
                 ",\"capacity-type\":" + json_string(c.capacity_type) + ",\"instance-type\":" +
                 json_string(c.instance_type) + "}";
  }
  disrupted += "]";
  std::string replacing = "[";
  for (const auto& r : replacements) {
    if (replacing.size() > 1) replacing += ",";
    const Requirement* ct = r.requirements.find(kLabelCapacityType);
    std::string capacity = ct && ct->has("spot") && !ct->has("on-demand") ? "spot" : "on-demand";
    replacing += "{\"capacity-type\":" + json_string(capacity);
    if (replacements.size() == 1) {
      std::vector<std::string> types;
      for (std::size_t i = 0; i < std::min(r.options.size(), kMaxInstanceTypes); ++i) types.push_back(r.options[i]->name());
      replacing += ",\"instance-types\":" + json_string(first_five(types));
    }
    replacing += "}";
  }
  replacing += "]";
  log_.info(world_.sim.now(), "disrupting node(s)",
                       log_.singleton("disruption") + ",\"command-id\":\"" + log_.uuid() +
                           "\",\"reason\":" + json_string(lower) + ",\"decision\":\"" +
                           (replacements.empty() ? "delete" : "replace") + "\",\"disrupted-node-count\":" +
                           std::to_string(candidates.size()) + ",\"replacement-node-count\":" +
                           std::to_string(replacements.size()) + ",\"pod-count\":" + std::to_string(pod_count) +
                           ",\"disrupted-nodes\":" + disrupted + ",\"replacement-nodes\":" + replacing);
}

void Logger::interruption(const NodeClaimState& c) {
  if (!log_.enabled()) return;
  // interruption/controller.go deleteNodeClaim: the queue's message and what it does about it.
  std::string fields = log_.singleton("interruption") + ",\"queue\":" +
                       json_string(settings_.interruption_queue) + ",\"messageKind\":\"spot_interrupted\",\"NodeClaim\":" +
                       object_ref(c.name) + ",\"action\":\"CordonAndDrain\"";
  if (!c.node_name.empty()) fields += ",\"Node\":" + object_ref(c.node_name);
  log_.info(world_.sim.now(), "initiating delete from interruption message", fields);
}

void Logger::tainted(const NodeClaimState& c) {
  if (!log_.enabled() || c.node_name.empty()) return;
  log_.info(world_.sim.now(), "tainted node",
                       log_.node_controller("node.termination", c.node_name) + ",\"NodeClaim\":" +
                           object_ref(c.name) + ",\"taint.Key\":\"" + kTaintDisrupted +
                           "\",\"taint.Value\":\"\",\"taint.Effect\":\"NoSchedule\"");
}

void Logger::deleted(const NodeClaimState& c) {
  if (!log_.enabled()) return;
  if (!c.node_name.empty())
    log_.info(world_.sim.now(), "deleted node",
                         log_.node_controller("node.termination", c.node_name) + ",\"NodeClaim\":" +
                             object_ref(c.name));
  std::string fields = log_.nodeclaim_controller("nodeclaim.lifecycle", c.name);
  if (!c.instance_id.empty()) fields += ",\"provider-id\":" + json_string(provider_id(c));
  if (!c.node_name.empty()) fields += ",\"Node\":" + object_ref(c.node_name);
  log_.info(world_.sim.now(), "deleted nodeclaim", fields);
}

}  // namespace eksim::autoscaling::karpenter
