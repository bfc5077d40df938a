// /eksim/v1/aws without sockets: `eksim ctl aws ...` requests on lab 000 (node groups primary and
// gpu, security group node-sg, On-Demand G quota 8) enter the simulation as timeline actions do and
// answer with the AWS services' own error codes and texts.
#include <gtest/gtest.h>

#include "sim/scenario/scenario.hpp"
#include "sim/serve/api_handler.hpp"

namespace eksim::serve {
namespace {

using nlohmann::json;

class AwsEndpoint : public ::testing::Test {
 protected:
  AwsEndpoint()
      : session(std::make_unique<scenario::Scenario>(
                    scenario::load_scenario(std::string(EKSIM_SOURCE_DIR) + "/scenarios/labs/000-gpu-pod-no-toleration.yaml")),
                std::nullopt, *parse_speed("paused", nullptr)) {}

  json call(const json& body, int expect_status) {
    HttpRequest req;
    req.method = "POST";
    parse_target("/eksim/v1/aws", req);
    req.body = body.dump();
    HttpResponse r = handle_request(session, req);
    EXPECT_EQ(r.status, expect_status) << r.body;
    return json::parse(r.body);
  }
  json scale(const json& scaling, int status, const std::string& ng = "gpu", const std::string& cluster = "myeks5w") {
    return call({{"action", "eks.update-nodegroup-config"}, {"clusterName", cluster}, {"nodegroup", ng}, {"scalingConfig", scaling}},
                status);
  }
  json sg(const std::string& action, const json& rule, int status, const std::string& group = "node-sg") {
    return call({{"action", action}, {"group", group}, {"rule", rule}}, status);
  }

  Session session;
};

TEST_F(AwsEndpoint, UpdateNodegroupConfigScalesTheGroupAsTheTimelineActionDoes) {
  json out = scale({{"desiredSize", 1}}, 200);
  EXPECT_EQ(out["operation"], "UpdateNodegroupConfig");
  EXPECT_EQ(out["output"]["update"]["type"], "ConfigUpdate");
  EXPECT_EQ(out["output"]["update"]["params"][0], (json{{"type", "DesiredSize"}, {"value", "1"}}));
  EXPECT_EQ(session.cluster().eks.sizes("gpu").desired, 1);
  // The ASG launches the instance; within ten simulated minutes it is a node of the group.
  session.advance_to(session.now() + engine::Duration::minutes(10));
  std::size_t gpu_nodes = 0;
  for (const auto& [key, o] : session.store().objects("nodes"))
    if (o.object["metadata"]["labels"].value("eks.amazonaws.com/nodegroup", "") == "gpu") ++gpu_nodes;
  EXPECT_EQ(gpu_nodes, 1u);
}

TEST_F(AwsEndpoint, UpdateNodegroupConfigRefusalsCarryEksCodesAndTexts) {
  json e = scale({{"desiredSize", 3}}, 400);
  EXPECT_EQ(e["kind"], "AwsError");
  EXPECT_EQ(e["code"], "InvalidParameterException");
  EXPECT_EQ(e["message"], "desired capacity 3 can't be greater than max size 2");
  e = scale({{"desiredSize", 3}, {"maxSize", 2}}, 400);
  EXPECT_EQ(e["message"], "desiredSize can't be greater than maxSize");
  e = scale({{"desiredSize", 1}}, 400, "gpuu");
  EXPECT_EQ(e["code"], "ResourceNotFoundException");
  EXPECT_EQ(e["message"], "No node group found for name: gpuu.");
  e = scale({{"desiredSize", 1}}, 400, "gpu", "other");
  EXPECT_EQ(e["message"], "No cluster found for name: other.");
  EXPECT_EQ(session.cluster().eks.sizes("gpu").desired, 0);
  // A refused call changes nothing and, as on AWS, records no event.
  for (const auto& [key, ev] : session.store().objects("events"))
    EXPECT_NE(ev.object.value("reason", ""), "InvalidParameterException");
}

TEST_F(AwsEndpoint, SecurityGroupIngressAuthorizeAndRevoke) {
  json rule = {{"protocol", "tcp"}, {"fromPort", 22}, {"toPort", 22}, {"cidr", "10.0.0.0/8"}};
  EXPECT_EQ(sg("sg.authorize-ingress", rule, 200)["output"], (json{{"Return", true}}));
  json dup = sg("sg.authorize-ingress", rule, 400);
  EXPECT_EQ(dup["operation"], "AuthorizeSecurityGroupIngress");
  EXPECT_EQ(dup["code"], "InvalidPermission.Duplicate");
  EXPECT_EQ(dup["message"], "the specified rule \"peer: 10.0.0.0/8, TCP, from port: 22, to port: 22, ALLOW\" already exists");
  EXPECT_EQ(sg("sg.revoke-ingress", rule, 200)["output"], (json{{"Return", true}}));
  json gone = sg("sg.revoke-ingress", rule, 400);
  EXPECT_EQ(gone["operation"], "RevokeSecurityGroupIngress");
  EXPECT_EQ(gone["code"], "InvalidPermission.NotFound");
  // The lab's own rule: the group to itself on the ephemeral ports, revoked by name.
  json self = {{"protocol", "tcp"}, {"fromPort", 1025}, {"toPort", 65535}, {"sourceGroup", "node-sg"}};
  sg("sg.revoke-ingress", self, 200);
  EXPECT_FALSE(session.cluster().security_groups.find("node-sg")->ingress.size() > 0);
  EXPECT_EQ(sg("sg.authorize-ingress", rule, 400, "sg-0123")["message"], "The security group 'sg-0123' does not exist");
}

TEST_F(AwsEndpoint, QuotaIncreaseRaisesTheBucketAndRefusesNoIncrease) {
  json out = call({{"action", "servicequotas.request-service-quota-increase"}, {"quotaCode", "L-DB2E81BA"}, {"desiredValue", 16}}, 200);
  EXPECT_EQ(out["output"]["RequestedQuota"]["QuotaName"], "Running On-Demand G and VT instances");
  EXPECT_EQ(session.cluster().ec2.quotas().quota("G", false), 16);
  json same = call({{"action", "servicequotas.request-service-quota-increase"}, {"quotaCode", "L-DB2E81BA"}, {"desiredValue", 16}}, 400);
  EXPECT_EQ(same["code"], "IllegalArgumentException");
  EXPECT_EQ(same["message"], "You must provide a quota value greater than the current quota value");
  // G and VT Spot has no quota in lab 000 (unlimited): a request sets one.
  call({{"action", "servicequotas.request-service-quota-increase"}, {"quotaCode", "L-3819A6DF"}, {"desiredValue", 4}}, 200);
  EXPECT_EQ(session.cluster().ec2.quotas().quota("G", true), 4);
  json unknown = call({{"action", "servicequotas.request-service-quota-increase"}, {"quotaCode", "L-XXXX"}, {"desiredValue", 4}}, 400);
  EXPECT_EQ(unknown["reason"], "BadRequest");
}

TEST_F(AwsEndpoint, SpotInterruptionWithoutATargetIsEksimsOwnRemark) {
  json r = call({{"action", "ec2.send-spot-instance-interruptions"}, {"nodegroup", "gpu"}}, 404);
  EXPECT_EQ(r["message"], "ec2.send-spot-instance-interruptions: no running instance \"newest\" in node group gpu");
  EXPECT_EQ(call({{"action", "ec2.send-spot-instance-interruptions"}}, 400)["reason"], "BadRequest");
  EXPECT_EQ(call({{"action", "ec2.send-spot-instance-interruptions"}, {"node", "x"}, {"durationBeforeInterruption", "1m"}}, 400)["reason"],
            "BadRequest");
  EXPECT_EQ(call({{"action", "ec2.send-spot-instance-interruptions"}, {"nodegroup", "gpu"}, {"instance", "latest"}}, 400)["message"],
            "--instance is newest, oldest or an index by launch order (0 = first), got \"latest\"");
  EXPECT_EQ(call({{"action", "ec2.terminate"}}, 400)["reason"], "BadRequest");
}

}  // namespace
}  // namespace eksim::serve
