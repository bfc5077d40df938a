// Karpenter's controller log: the lines the leader prints as it provisions and consolidates, in
// order, with upstream's messages and keys.
#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "tests/unit/models/autoscaling/karpenter/karpenter_world.hpp"

namespace eksim::autoscaling::karpenter {
namespace {

using engine::Duration;
using nlohmann::json;
using test::World;
using test::WorldOptions;

std::vector<json> lines_of(const World& w) {
  std::vector<json> out;
  for (const LogLine& l : w.k->controller_log().lines()) {
    json j = json::parse("{" + l.fields + "}");
    j["message"] = l.message;
    j["level"] = l.error ? "ERROR" : "INFO";
    out.push_back(j);
  }
  return out;
}

std::vector<std::string> messages(const std::vector<json>& lines) {
  std::vector<std::string> out;
  for (const auto& l : lines) out.push_back(l["message"]);
  return out;
}

TEST(KarpenterControllerLog, ProvisioningAndConsolidationLines) {
  WorldOptions o;
  o.zones = 1;
  World w(o);
  w.k->controller_log().enable();
  w.pool_of({"t3.medium", "m5.large", "c5.xlarge"}, {Budget{"100%", {}, "", std::nullopt}});
  std::vector<k8s::PodId> big;
  for (int i = 0; i < 3; ++i) {
    big.push_back(w.pod("big-" + std::to_string(i), 3000));
    w.run_to(Duration::seconds(5 + 5 * i));
  }
  w.run_to(Duration::minutes(5));
  std::vector<json> lines = lines_of(w);
  // Each of the three pods got a NodeClaim: the provisioner's four lines, then the lifecycle's.
  ASSERT_GE(lines.size(), 6u);
  EXPECT_EQ(messages(lines).front(), "found provisionable pod(s)");
  EXPECT_EQ(lines[0]["controller"], "provisioner");
  EXPECT_EQ(lines[0]["Pods"], "default/big-0");
  EXPECT_EQ(lines[1]["message"], "computed new nodeclaim(s) to fit pod(s)");
  EXPECT_EQ(lines[1]["nodeclaims"], 1);
  EXPECT_EQ(lines[1]["pods"], 1);
  EXPECT_EQ(lines[1]["reconcileID"], lines[0]["reconcileID"]);
  EXPECT_EQ(lines[2]["message"], "created nodeclaim");
  EXPECT_EQ(lines[2]["reconcileID"], lines[0]["reconcileID"]);
  EXPECT_EQ(lines[2]["instance-types"], "c5.xlarge");  // the only type that holds 3 CPUs
  EXPECT_EQ(lines[2]["requests"]["cpu"], "3");
  const std::string claim = lines[2]["NodeClaim"]["name"];
  EXPECT_EQ(lines[3]["message"], "launched nodeclaim");
  EXPECT_EQ(lines[3]["controller"], "nodeclaim.lifecycle");
  EXPECT_EQ(lines[3]["NodeClaim"]["name"], claim);
  EXPECT_EQ(lines[3]["instance-type"], "c5.xlarge");
  EXPECT_EQ(lines[3]["capacity-type"], "on-demand");
  EXPECT_EQ(lines[3]["provider-id"].get<std::string>().rfind("aws:///", 0), 0u);
  int registered = 0, initialized = 0;
  for (const auto& l : lines) {
    registered += l["message"] == "registered nodeclaim";
    initialized += l["message"] == "initialized nodeclaim";
  }
  EXPECT_EQ(registered, 3);
  EXPECT_EQ(initialized, 3);

  // The big pods go: the three nodes are replaced by one t3.medium (controller_consolidation_test).
  for (int i = 0; i < 3; ++i) w.pod("small-" + std::to_string(i), 300);
  w.run_to(Duration::minutes(5) + Duration::seconds(30));
  for (auto p : big) w.cluster->kubelet->delete_pod(p);
  const std::size_t before = w.k->controller_log().lines().size();
  w.run_to(Duration::minutes(20));
  lines = lines_of(w);
  std::vector<json> after(lines.begin() + static_cast<std::ptrdiff_t>(before), lines.end());
  auto find = [&](const std::string& m) {
    for (const auto& l : after)
      if (l["message"] == m) return l;
    return json();
  };
  json disrupting = find("disrupting node(s)");
  ASSERT_FALSE(disrupting.is_null()) << json(messages(after)).dump();
  EXPECT_EQ(disrupting["controller"], "disruption");
  EXPECT_EQ(disrupting["reason"], "underutilized");
  EXPECT_EQ(disrupting["decision"], "replace");
  EXPECT_EQ(disrupting["disrupted-node-count"], 3);
  EXPECT_EQ(disrupting["replacement-node-count"], 1);
  EXPECT_EQ(disrupting["disrupted-nodes"].size(), 3u);
  EXPECT_EQ(disrupting["replacement-nodes"][0]["capacity-type"], "on-demand");
  // Its options cheapest first (a t3.medium holds the three 300m pods, so does an m5.large).
  EXPECT_EQ(disrupting["replacement-nodes"][0]["instance-types"], "t3.medium, m5.large");
  EXPECT_EQ(find("created nodeclaim")["controller"], "disruption");
  int tainted = 0, deleted_nodes = 0, deleted_claims = 0;
  for (const auto& l : after) {
    tainted += l["message"] == "tainted node";
    deleted_nodes += l["message"] == "deleted node";
    deleted_claims += l["message"] == "deleted nodeclaim";
  }
  // The three candidates, then the replacement itself: the drain evicted the bare small pods,
  // so it is empty and goes as well.
  EXPECT_EQ(tainted, 4);
  EXPECT_EQ(deleted_nodes, 4);
  EXPECT_EQ(deleted_claims, 4);
  EXPECT_EQ(find("tainted node")["taint.Key"], "karpenter.sh/disrupted");
}

TEST(KarpenterControllerLog, SpotInterruptionMessage) {
  World w;
  w.k->controller_log().enable();
  NodePool p;
  p.name = "spot";
  p.requirements = {{"node.kubernetes.io/instance-type", "In", {"m5.large"}}, {"karpenter.sh/capacity-type", "In", {"spot"}}};
  p.consolidate_after = std::nullopt;
  w.k->apply_node_pool(p);
  w.pod("x", 500);
  w.run_to(Duration::minutes(3));
  const std::string claim = w.claim().name, node = w.claim().node_name;
  w.k->spot_interruption(w.claim().instance_id);
  const std::vector<json> lines = lines_of(w);
  auto it = std::find_if(lines.begin(), lines.end(),
                         [](const json& l) { return l["message"] == "initiating delete from interruption message"; });
  ASSERT_NE(it, lines.end());
  EXPECT_EQ((*it)["controller"], "interruption");
  EXPECT_EQ((*it)["messageKind"], "spot_interrupted");
  EXPECT_EQ((*it)["action"], "CordonAndDrain");
  EXPECT_EQ((*it)["NodeClaim"]["name"], claim);
  EXPECT_EQ((*it)["Node"]["name"], node);
  // Termination follows: the node tainted.
  EXPECT_EQ((*(it + 1))["message"], "tainted node");
}

TEST(KarpenterControllerLog, NothingIsKeptUnlessEnabled) {
  World w;
  w.pool_of({"c5.xlarge"}, {Budget{}});
  w.pod("p", 1000);
  w.run_to(Duration::minutes(3));
  EXPECT_TRUE(w.k->controller_log().lines().empty());
}

TEST(KarpenterControllerLog, GoDurationsAndShortLists) {
  EXPECT_EQ(go_duration(97580831), "97.580831ms");
  EXPECT_EQ(go_duration(20150000), "20.15ms");
  EXPECT_EQ(go_duration(1200000000), "1.2s");
  EXPECT_EQ(first_five({"a", "b"}), "a, b");
  EXPECT_EQ(first_five({"a", "b", "c", "d", "e", "f", "g"}), "a, b, c, d, e and 2 other(s)");
  EXPECT_EQ(canonical_quantity("memory", 590LL * 1024 * 1024), "590Mi");
  EXPECT_EQ(canonical_quantity("memory", 187596052LL * 1024), "187596052Ki");
  EXPECT_EQ(karpenter_commit("1.8.3"), "c9c3a48");
  EXPECT_EQ(karpenter_commit("v1.6.2"), "4ff8cfe");
}

}  // namespace
}  // namespace eksim::autoscaling::karpenter
