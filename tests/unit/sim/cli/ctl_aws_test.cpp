// `eksim ctl aws ...`: the aws CLI's commands and flags become /eksim/v1/aws requests, and the
// answers are printed as the aws CLI prints them.
#include "sim/cli/ctl_aws.hpp"

#include <gtest/gtest.h>

namespace eksim::cli {
namespace {

using nlohmann::json;

json parse_ok(const std::vector<std::string>& args) {
  std::string error;
  json body = parse_aws_command(args, &error);
  EXPECT_EQ(error, "");
  return body;
}

std::string parse_error(const std::vector<std::string>& args) {
  std::string error;
  (void)parse_aws_command(args, &error);
  return error;
}

TEST(CtlAws, UpdateNodegroupConfigShorthandAndJson) {
  json body = parse_ok({"eks", "update-nodegroup-config", "--cluster-name", "myeks", "--nodegroup-name", "gpu",
                        "--scaling-config", "minSize=0,maxSize=2,desiredSize=1", "--region", "ap-northeast-2"});
  EXPECT_EQ(body, (json{{"action", "eks.update-nodegroup-config"},
                        {"clusterName", "myeks"},
                        {"nodegroup", "gpu"},
                        {"scalingConfig", {{"minSize", 0}, {"maxSize", 2}, {"desiredSize", 1}}}}));
  json j = parse_ok({"eks", "update-nodegroup-config", "--cluster-name=myeks", "--nodegroup-name=gpu",
                     "--scaling-config", R"({"desiredSize": 2})"});
  EXPECT_EQ(j["scalingConfig"], (json{{"desiredSize", 2}}));
}

TEST(CtlAws, SecurityGroupQuotaAndSpotCommands) {
  json sg = parse_ok({"ec2", "authorize-security-group-ingress", "--group-id", "sg-1", "--protocol", "tcp", "--port",
                      "1025-65535", "--source-group", "sg-1"});
  EXPECT_EQ(sg["action"], "sg.authorize-ingress");
  EXPECT_EQ(sg["rule"], (json{{"protocol", "tcp"}, {"fromPort", 1025}, {"toPort", 65535}, {"sourceGroup", "sg-1"}}));
  json all = parse_ok({"ec2", "revoke-security-group-ingress", "--group-id", "sg-1", "--protocol", "all", "--cidr", "0.0.0.0/0"});
  EXPECT_EQ(all["action"], "sg.revoke-ingress");
  EXPECT_EQ(all["rule"], (json{{"protocol", "-1"}, {"fromPort", -1}, {"toPort", -1}, {"cidr", "0.0.0.0/0"}}));
  json q = parse_ok({"service-quotas", "request-service-quota-increase", "--service-code", "ec2", "--quota-code",
                     "L-DB2E81BA", "--desired-value", "16"});
  EXPECT_EQ(q, (json{{"action", "servicequotas.request-service-quota-increase"},
                     {"serviceCode", "ec2"},
                     {"quotaCode", "L-DB2E81BA"},
                     {"desiredValue", 16.0}}));
  json spot = parse_ok({"fis", "send-spot-instance-interruptions", "--nodegroup", "gpu", "--duration-before-interruption", "5m"});
  EXPECT_EQ(spot, (json{{"action", "ec2.send-spot-instance-interruptions"}, {"nodegroup", "gpu"}, {"durationBeforeInterruption", "5m"}}));
}

TEST(CtlAws, InvalidCommandsSayWhatIsWrong) {
  EXPECT_EQ(parse_error({"eks", "update-nodegroup-config", "--cluster-name", "c"}),
            "ctl aws eks update-nodegroup-config: the following arguments are required: --nodegroup-name");
  EXPECT_EQ(parse_error({"eks", "update-nodegroup-config", "--cluster-name", "c", "--nodegroup-nam", "g"}),
            "ctl aws eks update-nodegroup-config: unknown option \"--nodegroup-nam\"; did you mean \"--nodegroup-name\"?");
  EXPECT_EQ(parse_error({"eks", "update-nodegroup-config", "--cluster-name", "c", "--nodegroup-name", "g", "--scaling-config",
                         "desired=1"}),
            "ctl aws eks update-nodegroup-config: --scaling-config: expected minSize=N,maxSize=N,desiredSize=N, got "
            "\"desired=1\"; did you mean \"desiredSize\"?");
  EXPECT_NE(parse_error({"eks", "update-nodegroup-confg"}).find("did you mean \"update-nodegroup-config\"?"), std::string::npos);
  EXPECT_NE(parse_error({"ec2", "authorize-security-group-ingress", "--group-id", "g", "--protocol", "tcp", "--cidr", "1.2.3.4/32"})
                .find("--port is required"),
            std::string::npos);
  EXPECT_NE(parse_error({"service-quotas", "request-service-quota-increase", "--service-code", "ec2", "--quota-code", "L-1",
                         "--desired-value", "lots"})
                .find("--desired-value: expected a number"),
            std::string::npos);
  EXPECT_NE(parse_error({"fis", "send-spot-instance-interruptions"}).find("exactly one of"), std::string::npos);
  EXPECT_NE(parse_error({"eks", "update-nodegroup-config", "--cluster-name"}).find("expected one argument"), std::string::npos);
}

TEST(CtlAws, AnswersPrintAsTheAwsCliPrintsThem) {
  CtlOutput ok = format_aws_answer(200, R"({"kind":"AwsResult","operation":"RevokeSecurityGroupIngress","output":{"Return":true}})");
  EXPECT_EQ(ok.exit_code, 0);
  EXPECT_EQ(ok.out, "{\n    \"Return\": true\n}\n");
  CtlOutput err = format_aws_answer(400, R"({"kind":"AwsError","operation":"UpdateNodegroupConfig","code":"ResourceNotFoundException","message":"No node group found for name: x."})");
  EXPECT_EQ(err.exit_code, 254);
  EXPECT_EQ(err.err, "\nAn error occurred (ResourceNotFoundException) when calling the UpdateNodegroupConfig operation: No node group found for name: x.\n");
  CtlOutput bad = format_aws_answer(400, R"({"kind":"Status","message":"desiredValue: expected a number of vCPUs"})");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err, "error: desiredValue: expected a number of vCPUs\n");
}

}  // namespace
}  // namespace eksim::cli
