// The API handlers without sockets: a Session on lab 000, requests as kubectl sends them.
#include "sim/serve/api_handler.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "sim/serve/pod_exec.hpp"
#include "tests/unit/sim/serve/served_session.hpp"

namespace eksim::serve {
namespace {

using nlohmann::json;

using serve_test::kTableAccept;
using serve_test::ServedSession;

class ApiHandler : public ::testing::Test, protected ServedSession {
 protected:
  ApiHandler() : ServedSession("scenarios/labs/000-gpu-pod-no-toleration.yaml") {}
};

TEST_F(ApiHandler, VersionAndLegacyDiscovery) {
  EXPECT_EQ(parse(call("GET", "/version?timeout=5s"))["minor"], "32");
  json api = parse(call("GET", "/api/v1"));
  bool pods = false;
  for (const auto& r : api["resources"])
    if (r["name"] == "pods") pods = r["shortNames"] == json::array({"po"}) && r["categories"] == json::array({"all"});
  EXPECT_TRUE(pods);
  json groups = parse(call("GET", "/apis"));
  EXPECT_EQ(groups["kind"], "APIGroupList");
  json openapi = parse(call("GET", "/openapi/v3/apis/apps/v1"));
  EXPECT_TRUE(openapi["paths"].contains("/apis/apps/v1/namespaces/{namespace}/deployments/{name}"));
}

TEST_F(ApiHandler, ErrorsAreStatusesWithTheApiserversTexts) {
  json nf = parse(call("GET", "/api/v1/namespaces/default/pods/nope"));
  EXPECT_EQ(nf["kind"], "Status");
  EXPECT_EQ(nf["code"], 404);
  EXPECT_EQ(nf["reason"], "NotFound");
  EXPECT_EQ(nf["message"], "pods \"nope\" not found");
  // No Karpenter declared, so no NodePool CRD: the group is not served at all.
  EXPECT_EQ(parse(call("GET", "/apis/karpenter.sh/v1/nodepools/x"))["message"], "the server could not find the requested resource");
  EXPECT_EQ(call("GET", "/apis/example.com/v1/widgets").status, 404);
  EXPECT_EQ(call("GET", "/api/v1/namespaces/default/pods/a/b/c").status, 404);
  HttpResponse bad = call("POST", "/api/v1/namespaces/default/pods", "{not json");
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(parse(bad)["reason"], "BadRequest");
  EXPECT_EQ(call("POST", "/api/v1/namespaces/default/pods", "[1,2]").status, 400);
  // A protobuf body without the k8s envelope cannot be read; a readable one of a kind eksim does
  // not decode (a Pod: kubectl sends those as JSON) is refused with the way around it.
  EXPECT_EQ(call("POST", "/api/v1/namespaces/default/pods", "k8s\0", "application/vnd.kubernetes.protobuf").status, 400);
  const std::string pod_type_meta = std::string("\x0a\x02v1\x12\x03Pod", 9);
  const std::string pod_proto = std::string("k8s\0", 4) + "\x0a" + static_cast<char>(pod_type_meta.size()) + pod_type_meta;
  HttpResponse refused = call("POST", "/api/v1/namespaces/default/pods", pod_proto, "application/vnd.kubernetes.protobuf");
  EXPECT_EQ(refused.status, 415);
  EXPECT_NE(parse(refused)["message"].get<std::string>().find("--dry-run=client -o yaml | kubectl apply -f -"), std::string::npos);
  HttpResponse typo = call("POST", "/api/v1/namespaces/default/pods",
                           R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"x"},"spec":{"containers":[{"name":"c","imagee":"i"}]}})");
  EXPECT_EQ(typo.status, 400);
  EXPECT_NE(parse(typo)["message"].get<std::string>().find("unknown field \"spec.containers[0].imagee\""), std::string::npos);
  EXPECT_EQ(parse(call("GET", "/api/v1/pods?fieldSelector=spec.containers%3Dx"))["message"],
            "field label not supported: spec.containers");
  EXPECT_EQ(call("POST", "/eksim/v1/clock", R"({"action":"warp"})").status, 400);
  EXPECT_EQ(call("POST", "/eksim/v1/clock", R"({"action":"advance","by":"soon"})").status, 400);
}

// Control plane -> kubelet 10250: logs and exec are proxied by the API server to the node's
// kubelet; without ingress_cluster_kubelet the dial times out.
TEST(ApiHandlerKubeletPort, LogsAndExecFailWithTheDialError) {
  ServedSession lab("tests/scenarios/serve/kubelet-port-closed.yaml");
  auto call = [&](const std::string& method, const std::string& target, const std::string& body = "") {
    return lab.call(method, target, body);
  };
  json clock = json::parse(call("POST", "/eksim/v1/clock", R"({"action":"until","condition":"pod/gpu-pod Running"})").body);
  EXPECT_EQ(clock["now"], "4m3s");
  json pod = json::parse(call("GET", "/api/v1/namespaces/default/pods/gpu-pod").body);
  std::string ip = pod["status"]["hostIP"];
  ASSERT_FALSE(ip.empty());
  HttpResponse log = call("GET", "/api/v1/namespaces/default/pods/gpu-pod/log?tailLines=3");
  EXPECT_EQ(log.status, 500);
  json status = json::parse(log.body);
  EXPECT_EQ(status["kind"], "Status");
  EXPECT_FALSE(status.contains("reason"));  // kubectl prints "Error from server: <message>"
  EXPECT_EQ(status["message"], "Get \"https://" + ip + ":10250/containerLogs/default/gpu-pod/cuda-container?tailLines=3\": dial tcp " +
                                   ip + ":10250: i/o timeout");
  HttpResponse plain = call("GET", "/api/v1/namespaces/default/pods/gpu-pod/log");
  EXPECT_EQ(json::parse(plain.body)["message"], "Get \"https://" + ip + ":10250/containerLogs/default/gpu-pod/cuda-container\": dial tcp " +
                                                    ip + ":10250: i/o timeout");
  ExecResult exec = exec_in_pod(lab.session, parse_api_path(lab.session.cluster().api.custom_resources(), "/api/v1/namespaces/default/pods/gpu-pod/exec"), {"nvidia-smi"}, "");
  ASSERT_TRUE(exec.refused);
  EXPECT_EQ(json::parse(exec.refused->body)["message"], "error dialing backend: dial tcp " + ip + ":10250: i/o timeout");
}

TEST_F(ApiHandler, CreateListAndLogsGoThroughTheSimulation) {
  // The pod is scheduled, the node group scales, the device plugin advertises the GPU and the
  // container starts: all by the simulation, from the clock endpoint.
  EXPECT_EQ(call("GET", "/api/v1/namespaces/default/pods/gpu-pod/log").status, 400);
  json clock = parse(call("POST", "/eksim/v1/clock", R"({"action":"until","condition":"pod/gpu-pod Running"})"));
  EXPECT_EQ(clock["now"], "4m3s");
  HttpResponse log = call("GET", "/api/v1/namespaces/default/pods/gpu-pod/log?tailLines=3");
  EXPECT_EQ(log.content_type, "text/plain");
  EXPECT_EQ(std::count(log.body.begin(), log.body.end(), '\n'), 3);

  json table = parse(call("GET", "/api/v1/namespaces/default/pods?limit=500", "", "", kTableAccept));
  ASSERT_EQ(table["kind"], "Table");
  ASSERT_EQ(table["rows"].size(), 1u);
  EXPECT_EQ(table["rows"][0]["cells"][2], "Running");

  std::string pod = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"cpu"},"spec":{"containers":[{"name":"c","image":"busybox","command":["sleep","60"]}]}})";
  HttpResponse created = call("POST", "/api/v1/namespaces/default/pods", pod);
  EXPECT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(parse(created)["metadata"]["namespace"], "default");
  EXPECT_EQ(parse(call("POST", "/api/v1/namespaces/default/pods", pod))["reason"], "AlreadyExists");
  json list = parse(call("GET", "/api/v1/pods?labelSelector=&fieldSelector=metadata.name%3Dcpu"));
  EXPECT_EQ(list["kind"], "PodList");
  EXPECT_EQ(list["items"].size(), 1u);
  call("POST", "/eksim/v1/clock", R"({"action":"advance","by":"30s"})");
  EXPECT_EQ(parse(call("GET", "/api/v1/namespaces/default/pods/cpu"))["status"]["phase"], "Running");

  // delete with a grace period of 0 removes it at once.
  HttpResponse del = call("DELETE", "/api/v1/namespaces/default/pods/cpu?gracePeriodSeconds=0");
  EXPECT_EQ(del.status, 200);
  call("POST", "/eksim/v1/clock", R"({"action":"advance","by":"1s"})");
  EXPECT_EQ(call("GET", "/api/v1/namespaces/default/pods/cpu").status, 404);
}

TEST_F(ApiHandler, CordonAndLabelPatchTheModelsNode) {
  json nodes = parse(call("GET", "/api/v1/nodes"));
  std::string name = nodes["items"][0]["metadata"]["name"];
  HttpResponse r = call("PATCH", "/api/v1/nodes/" + name, R"({"spec":{"unschedulable":true}})",
                        "application/strategic-merge-patch+json");
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(session.cluster().api.node(*session.cluster().api.find_node(name)).node.unschedulable);
  json table = parse(call("GET", "/api/v1/nodes/" + name, "", "", kTableAccept));
  EXPECT_EQ(table["rows"][0]["cells"][1], "Ready,SchedulingDisabled");
  call("PATCH", "/api/v1/nodes/" + name, R"({"metadata":{"labels":{"lab":"000"}}})", "application/merge-patch+json");
  EXPECT_EQ(session.cluster().api.node(*session.cluster().api.find_node(name)).node.meta.labels.at("lab"), "000");
  EXPECT_EQ(parse(call("GET", "/api/v1/nodes?labelSelector=lab%3D000"))["items"].size(), 1u);
}

TEST_F(ApiHandler, WatchAsksForAStreamFromTheListsVersion) {
  json list = parse(call("GET", "/api/v1/namespaces/default/pods", "", "", kTableAccept));
  std::string rv = list["metadata"]["resourceVersion"];
  HttpResponse w = call("GET", "/api/v1/namespaces/default/pods?resourceVersion=" + rv + "&watch=true", "", "", kTableAccept);
  ASSERT_TRUE(w.watch);
  EXPECT_TRUE(w.watch->table);
  EXPECT_EQ(w.watch->since, std::stoull(rv));
  // Changes after the list reach the watch in order, as Table rows.
  call("POST", "/eksim/v1/clock", R"({"action":"until","condition":"pod/gpu-pod Running"})");
  std::vector<const WatchEvent*> changes;
  ASSERT_TRUE(session.store().changes_since("pods", w.watch->since, changes));
  std::vector<std::string> statuses;
  for (const auto* e : changes) {
    std::string line = watch_line(*w.watch, *e, session.store_now_us(), 0);
    if (line.empty()) continue;
    json ev = json::parse(line);
    EXPECT_EQ(ev["object"]["kind"], "Table");
    statuses.push_back(ev["object"]["rows"][0]["cells"][2]);
  }
  ASSERT_FALSE(statuses.empty());
  EXPECT_EQ(statuses.back(), "Running");
  EXPECT_NE(std::find(statuses.begin(), statuses.end(), "ContainerCreating"), statuses.end());
}

TEST(ApiHandlerKarpenter, DeletedEc2NodeClassIsHeldByItsFinalizerWhileNodeClaimsUseIt) {
  ServedSession lab("scenarios/examples/kubectl-delete-karpenter-objects.yaml");
  auto call = [&](const std::string& method, const std::string& target, const std::string& body = "") {
    return lab.call(method, target, body);
  };
  // The Karpenter chart's CRDs are listed beside EKS's.
  EXPECT_EQ(call("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/ec2nodeclasses.karpenter.k8s.aws").status, 200);
  EXPECT_EQ(call("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/nodeclasses.eks.amazonaws.com").status, 404);
  ASSERT_EQ(call("POST", "/eksim/v1/clock", R"({"action":"advance","by":"3m"})").status, 200);
  ASSERT_EQ(json::parse(call("GET", "/apis/karpenter.sh/v1/nodeclaims").body)["items"].size(), 2u);
  ASSERT_EQ(call("DELETE", "/apis/karpenter.k8s.aws/v1/ec2nodeclasses/default").status, 200);
  json nc = json::parse(call("GET", "/apis/karpenter.k8s.aws/v1/ec2nodeclasses/default").body);
  ASSERT_TRUE(nc["metadata"].contains("deletionTimestamp"));
  EXPECT_NE(nc["metadata"]["deletionTimestamp"], nc["metadata"]["creationTimestamp"]);  // 3m later
  EXPECT_EQ(nc["metadata"]["finalizers"], json::array({"karpenter.k8s.aws/termination"}));
  json pool = json::parse(call("GET", "/apis/karpenter.sh/v1/nodepools/default").body);
  bool terminating = false;
  for (const auto& c : pool["status"]["conditions"])
    terminating |= c["type"] == "NodeClassReady" && c["reason"] == "NodeClassTerminating";
  EXPECT_TRUE(terminating) << pool["status"].dump();
  // Deleting both NodeClaims lets it go once their instances are terminated.
  const json claims = json::parse(call("GET", "/apis/karpenter.sh/v1/nodeclaims").body);
  for (const auto& c : claims["items"])
    ASSERT_EQ(call("DELETE", "/apis/karpenter.sh/v1/nodeclaims/" + c["metadata"]["name"].get<std::string>()).status, 200);
  ASSERT_EQ(call("POST", "/eksim/v1/clock", R"({"action":"advance","by":"2m"})").status, 200);
  EXPECT_EQ(call("GET", "/apis/karpenter.k8s.aws/v1/ec2nodeclasses/default").status, 404);
  EXPECT_TRUE(json::parse(call("GET", "/apis/karpenter.sh/v1/nodeclaims").body)["items"].empty())
      << call("GET", "/apis/karpenter.sh/v1/nodeclaims").body << call("GET", "/eksim/v1/clock").body;
}

}  // namespace
}  // namespace eksim::serve

namespace eksim::serve {
namespace {

// Watches end in simulated time, as kube-apiserver ends them in real time: after the request's
// timeoutSeconds, else between --min-request-timeout (1800 s) and twice that, drawn from the run's
// own stream (so the same seed ends the same watches at the same instants).
TEST_F(ApiHandler, WatchesEndAfterTheirTimeoutInSimulatedTime) {
  const engine::SimTime now = session.now();
  EXPECT_EQ(session.watch_ends_at(60).us - now.us, 60'000'000);
  EXPECT_EQ(session.watch_ends_at(0).us, now.us);
  const std::int64_t first = session.watch_ends_at(std::nullopt).us - now.us;
  const std::int64_t second = session.watch_ends_at(std::nullopt).us - now.us;
  for (std::int64_t d : {first, second}) {
    EXPECT_GE(d, 1800'000'000);
    EXPECT_LT(d, 3600'000'000);
  }
  EXPECT_NE(first, second);  // each watch draws its own
  Session again(std::make_unique<scenario::Scenario>(scenario::load_scenario(
                    std::string(EKSIM_SOURCE_DIR) + "/scenarios/labs/000-gpu-pod-no-toleration.yaml")),
                std::nullopt, *parse_speed("paused", nullptr));
  EXPECT_EQ(again.watch_ends_at(std::nullopt).us - again.now().us, first);
  json clock = parse(call("GET", "/eksim/v1/clock"));
  EXPECT_EQ(clock["openWatches"], 0);  // no server: nobody can watch
}

}  // namespace
}  // namespace eksim::serve

namespace eksim::serve {
namespace {

// A Deployment's ReplicaSet, as its controller names and labels it: `kubectl get rs` and
// `get all` list it, and its pods point at it by the same uid.
TEST_F(ApiHandler, DeploymentsHaveTheirReplicaSet) {
  const std::string deploy =
      R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":2,)"
      R"("selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},)"
      R"("spec":{"containers":[{"name":"web","image":"nginx:1.27","resources":{"requests":{"cpu":"100m"}}}]}}}})";
  ASSERT_EQ(call("POST", "/apis/apps/v1/namespaces/default/deployments", deploy).status, 201);
  json list = parse(call("GET", "/apis/apps/v1/namespaces/default/replicasets"));
  ASSERT_EQ(list["items"].size(), 1u) << list.dump();
  const json& rs = list["items"][0];
  const std::string name = rs["metadata"]["name"];
  const std::string hash = rs["metadata"]["labels"]["pod-template-hash"];
  EXPECT_EQ(name, "web-" + hash);
  EXPECT_EQ(rs["metadata"]["labels"]["app"], "web");
  EXPECT_EQ(rs["metadata"]["ownerReferences"][0]["kind"], "Deployment");
  EXPECT_EQ(rs["metadata"]["annotations"]["deployment.kubernetes.io/revision"], "1");
  EXPECT_EQ(rs["spec"]["replicas"], 2);
  EXPECT_EQ(rs["spec"]["selector"]["matchLabels"]["pod-template-hash"], hash);
  EXPECT_EQ(rs["status"]["replicas"], 2);
  json pods = parse(call("GET", "/api/v1/namespaces/default/pods?labelSelector=app%3Dweb"));
  ASSERT_EQ(pods["items"].size(), 2u);
  for (const auto& p : pods["items"]) EXPECT_EQ(p["metadata"]["ownerReferences"][0]["uid"], rs["metadata"]["uid"]);
  json table = parse(call("GET", "/apis/apps/v1/namespaces/default/replicasets", "", "application/json", kTableAccept));
  EXPECT_EQ(table["columnDefinitions"][1]["name"], "Desired");
  EXPECT_EQ(table["rows"][0]["cells"][0], name);
  EXPECT_EQ(table["rows"][0]["cells"][1], 2);
}

// Pods point at their DaemonSet or Job by its uid, as the API shows it.
TEST_F(ApiHandler, DaemonSetAndJobPodsCarryTheirOwnersUid) {
  const std::string job =
      R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"once"},"spec":{"template":{"spec":{)"
      R"("restartPolicy":"Never","containers":[{"name":"c","image":"busybox:1.36","command":["true"]}]}}}})";
  ASSERT_EQ(call("POST", "/apis/batch/v1/namespaces/default/jobs", job).status, 201);
  const json jobs = parse(call("GET", "/apis/batch/v1/namespaces/default/jobs"));
  ASSERT_EQ(jobs["items"].size(), 1u);
  const json pods = parse(call("GET", "/api/v1/namespaces/default/pods?labelSelector=job-name%3Donce"));
  ASSERT_EQ(pods["items"].size(), 1u) << pods.dump();
  EXPECT_EQ(pods["items"][0]["metadata"]["ownerReferences"][0]["uid"], jobs["items"][0]["metadata"]["uid"]);

  const std::string ds =
      R"({"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"agent"},"spec":{)"
      R"("selector":{"matchLabels":{"app":"agent"}},"template":{"metadata":{"labels":{"app":"agent"}},)"
      R"("spec":{"containers":[{"name":"agent","image":"busybox:1.36","command":["sleep","infinity"]}]}}}})";
  ASSERT_EQ(call("POST", "/apis/apps/v1/namespaces/default/daemonsets", ds).status, 201);
  ASSERT_EQ(call("POST", "/eksim/v1/clock", R"({"action":"advance","by":"10s"})").status, 200);
  std::map<std::string, std::string> ds_uids;
  const json daemon_sets = parse(call("GET", "/apis/apps/v1/daemonsets"));
  for (const auto& d : daemon_sets["items"])
    ds_uids[d["metadata"]["namespace"].get<std::string>() + "/" + d["metadata"]["name"].get<std::string>()] =
        d["metadata"]["uid"];
  int owned = 0;
  const json all_pods = parse(call("GET", "/api/v1/pods"));
  for (const auto& p : all_pods["items"])
    for (const auto& ref : p["metadata"].value("ownerReferences", json::array()))
      if (ref["kind"] == "DaemonSet") {
        ++owned;
        EXPECT_EQ(ref["uid"], ds_uids.at(p["metadata"]["namespace"].get<std::string>() + "/" + ref["name"].get<std::string>()));
      }
  EXPECT_GT(owned, 0);
}

TEST_F(ApiHandler, DeletingAReplicaSetOrANamespace) {
  const std::string deploy =
      R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"team"},"spec":{"replicas":1,)"
      R"("selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},)"
      R"("spec":{"containers":[{"name":"web","image":"nginx:1.27","resources":{"requests":{"cpu":"100m"}}}]}}}})";
  ASSERT_EQ(call("POST", "/api/v1/namespaces", R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team"}})").status, 201);
  ASSERT_EQ(call("POST", "/apis/apps/v1/namespaces/team/deployments", deploy).status, 201);
  const std::string rs = parse(call("GET", "/apis/apps/v1/namespaces/team/replicasets"))["items"][0]["metadata"]["name"];
  const std::string first = parse(call("GET", "/api/v1/namespaces/team/pods"))["items"][0]["metadata"]["name"];
  ASSERT_EQ(call("POST", "/eksim/v1/clock", R"({"action":"advance","by":"1m"})").status, 200);  // running
  // The ReplicaSet comes back under its name with a new pod; the old one terminates.
  ASSERT_EQ(call("DELETE", "/apis/apps/v1/namespaces/team/replicasets/" + rs).status, 200);
  json pods = parse(call("GET", "/api/v1/namespaces/team/pods"));
  ASSERT_EQ(pods["items"].size(), 2u) << pods.dump();
  int terminating = 0;
  for (const auto& p : pods["items"]) terminating += p["metadata"].contains("deletionTimestamp");
  EXPECT_EQ(terminating, 1);
  EXPECT_EQ(parse(call("GET", "/apis/apps/v1/namespaces/team/replicasets"))["items"][0]["metadata"]["name"], rs);
  // An immortal namespace is refused; a created one takes its Deployment with it.
  json refused = parse(call("DELETE", "/api/v1/namespaces/kube-system"));
  EXPECT_EQ(refused["code"], 403);
  EXPECT_EQ(refused["reason"], "Forbidden");
  EXPECT_EQ(refused["message"], "namespaces \"kube-system\" is forbidden: this namespace may not be deleted");
  ASSERT_EQ(call("DELETE", "/api/v1/namespaces/team").status, 200);
  EXPECT_EQ(call("GET", "/api/v1/namespaces/team").status, 404);
  EXPECT_TRUE(parse(call("GET", "/apis/apps/v1/namespaces/team/deployments"))["items"].empty());
  const json left = parse(call("GET", "/api/v1/namespaces/team/pods"));
  for (const auto& p : left["items"])
    EXPECT_TRUE(p["metadata"].contains("deletionTimestamp")) << p["metadata"]["name"] << " (first was " << first << ")";
}

TEST_F(ApiHandler, CustomResourceDefinitionsOfTheCluster) {
  // Lab 000: a standard cluster with the device plugin chart, no Karpenter: EKS's own CRDs only.
  json list = parse(call("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"));
  std::vector<std::string> names;
  for (const auto& c : list["items"]) names.push_back(c["metadata"]["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"applicationnetworkpolicies.networking.k8s.aws",
                                             "clusternetworkpolicies.networking.k8s.aws",
                                             "clusterpolicyendpoints.networking.k8s.aws",
                                             "cninodes.vpcresources.k8s.aws", "policyendpoints.networking.k8s.aws",
                                             "securitygrouppolicies.vpcresources.k8s.aws"}));
  json crd = parse(call("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/policyendpoints.networking.k8s.aws"));
  EXPECT_EQ(crd["spec"]["scope"], "Namespaced");
  EXPECT_EQ(crd["spec"]["names"]["kind"], "PolicyEndpoint");
  // `kubectl get crd`: the API server's default table, NAME and CREATED AT.
  json table = parse(call("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "", "application/json", kTableAccept));
  ASSERT_EQ(table["columnDefinitions"].size(), 2u);
  EXPECT_EQ(table["columnDefinitions"][1]["name"], "Created At");
  EXPECT_EQ(table["rows"][0]["cells"][1], list["items"][0]["metadata"]["creationTimestamp"]);
  bool short_name = false;
  const json group = parse(call("GET", "/apis/apiextensions.k8s.io/v1"));
  for (const auto& r : group["resources"])
    short_name |= r["name"] == "customresourcedefinitions" && r["shortNames"] == json::array({"crd", "crds"});
  EXPECT_TRUE(short_name);
}

TEST_F(ApiHandler, ReplicasAreValidatedAndHeldToThePodLimit) {
  auto deploy = [](const std::string& replicas) {
    return R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":)" + replicas +
           R"(,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},)"
           R"("spec":{"containers":[{"name":"web","image":"nginx:1.27"}]}}}})";
  };
  HttpResponse huge = call("POST", "/apis/apps/v1/namespaces/default/deployments", deploy("2147483647"));
  EXPECT_EQ(huge.status, 422);
  EXPECT_EQ(parse(huge)["message"], "eksim: Deployment \"web\" asks for 2147483647 pods at once; eksim simulates at most 150000");
  ASSERT_EQ(call("POST", "/apis/apps/v1/namespaces/default/deployments", deploy("1")).status, 201);
  const std::string scale = "/apis/apps/v1/namespaces/default/deployments/web/scale";
  HttpResponse negative = call("PATCH", scale, R"({"spec":{"replicas":-1}})", "application/merge-patch+json");
  EXPECT_EQ(negative.status, 422);
  EXPECT_EQ(parse(negative)["message"], "Scale.autoscaling \"web\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0");
  EXPECT_EQ(call("PATCH", scale, R"({"spec":{"replicas":200000}})", "application/merge-patch+json").status, 422);
  HttpResponse ok = call("PATCH", scale, R"({"spec":{"replicas":3}})", "application/merge-patch+json");
  EXPECT_EQ(ok.status, 200);
  EXPECT_EQ(parse(ok)["spec"]["replicas"], 3);
}

}  // namespace
}  // namespace eksim::serve

namespace eksim::serve {
namespace {

TEST_F(ApiHandler, ConfigMapsOfANewClusterAndAppliedOnes) {
  // Every namespace has kube-root-ca.crt; kube-system has CoreDNS's Corefile.
  json all = parse(call("GET", "/api/v1/configmaps"));
  EXPECT_EQ(all["kind"], "ConfigMapList");
  std::set<std::string> names;
  for (const auto& cm : all["items"])
    names.insert(cm["metadata"]["namespace"].get<std::string>() + "/" + cm["metadata"]["name"].get<std::string>());
  for (const char* ns : {"default", "kube-system", "kube-public", "kube-node-lease"})
    EXPECT_TRUE(names.count(std::string(ns) + "/kube-root-ca.crt")) << ns;
  json coredns = parse(call("GET", "/api/v1/namespaces/kube-system/configmaps/coredns"));
  EXPECT_EQ(coredns["metadata"]["labels"]["k8s-app"], "kube-dns");
  EXPECT_NE(coredns["data"]["Corefile"].get<std::string>().find("forward . /etc/resolv.conf"), std::string::npos);
  EXPECT_EQ(call("GET", "/api/v1/namespaces/kube-system/configmaps/aws-auth").status, 404);  // no mapRoles declared

  // One created through the API is served back with its data, labels and creation time.
  call("POST", "/eksim/v1/clock", R"({"action":"advance","by":"90s"})");
  HttpResponse created = call("POST", "/api/v1/namespaces/default/configmaps",
                              R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"app","labels":{"tier":"web"}},"data":{"k":"v"}})");
  ASSERT_EQ(created.status, 201) << created.body;
  json app = parse(call("GET", "/api/v1/namespaces/default/configmaps/app"));
  EXPECT_EQ(app["data"]["k"], "v");
  EXPECT_EQ(app["metadata"]["labels"]["tier"], "web");
  // ServedSession timestamps are anchored at the answer's wall clock: compare within one moment.
  json coredns_now = parse(call("GET", "/api/v1/namespaces/kube-system/configmaps/coredns"));
  std::int64_t app_created = 0, coredns_created = 0;
  ASSERT_TRUE(parse_rfc3339(app["metadata"]["creationTimestamp"], app_created));
  ASSERT_TRUE(parse_rfc3339(coredns_now["metadata"]["creationTimestamp"], coredns_created));
  EXPECT_NEAR(static_cast<double>(app_created - coredns_created), 90e6, 2e6);
}

TEST(ApiHandlerAwsAuth, DeclaredMapRolesAreServedAsAwsAuth) {
  ServedSession lab("scenarios/karpenter/lab002-sg-tagged-later.yaml");
  HttpResponse r = lab.call("GET", "/api/v1/namespaces/kube-system/configmaps/aws-auth");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json::parse(r.body)["data"]["mapRoles"],
            "- groups:\n"
            "  - system:bootstrappers\n"
            "  - system:nodes\n"
            "  rolearn: arn:aws:iam::123456789012:role/eksctl-myeks-nodegroup-NodeInstanceRole\n"
            "  username: system:node:{{EC2PrivateDNSName}}\n"
            "- groups:\n"
            "  - system:bootstrappers\n"
            "  - system:nodes\n"
            "  rolearn: arn:aws:iam::123456789012:role/KarpenterNodeRole-myeks\n"
            "  username: system:node:{{EC2PrivateDNSName}}\n");
}

TEST_F(ApiHandler, ServicesOfANewClusterAndAppliedOnes) {
  // EKS's own: kubernetes at the Service CIDR's first address, kube-dns at .10 (lab 000's VPC is
  // 192.168.0.0/16, so the CIDR is 10.100.0.0/16), eks-extension-metrics-api from the dynamic range.
  json table = parse(call("GET", "/api/v1/services", "", "application/json", kTableAccept));
  std::map<std::string, json> rows;
  for (const auto& row : table["rows"]) rows[row["cells"][0].get<std::string>()] = row["cells"];
  ASSERT_TRUE(rows.count("kubernetes") && rows.count("kube-dns") && rows.count("eks-extension-metrics-api")) << table.dump();
  EXPECT_EQ(rows["kubernetes"][1], "ClusterIP");
  EXPECT_EQ(rows["kubernetes"][2], "10.100.0.1");
  EXPECT_EQ(rows["kubernetes"][3], "<none>");
  EXPECT_EQ(rows["kubernetes"][4], "443/TCP");
  EXPECT_EQ(rows["kube-dns"][2], "10.100.0.10");
  EXPECT_EQ(rows["kube-dns"][4], "53/UDP,53/TCP,9153/TCP");
  EXPECT_EQ(rows["kube-dns"][6], "k8s-app=kube-dns");
  EXPECT_EQ(rows["eks-extension-metrics-api"][6], "<none>");
  EXPECT_EQ(rows["eks-extension-metrics-api"][2].get<std::string>().rfind("10.100.", 0), 0u);

  // `kubectl expose`-style Service: a ClusterIP drawn for it, a NodePort one with its node port.
  HttpResponse created = call("POST", "/api/v1/namespaces/default/services",
                              R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"web"},)"
                              R"("spec":{"type":"NodePort","selector":{"app":"web"},"ports":[{"port":80,"targetPort":8080}]}})");
  ASSERT_EQ(created.status, 201) << created.body;
  json web = parse(call("GET", "/api/v1/namespaces/default/services/web"));
  EXPECT_EQ(web["spec"]["ports"][0]["targetPort"], 8080);
  EXPECT_GE(web["spec"]["ports"][0]["nodePort"].get<int>(), 30000);
  EXPECT_NE(web["spec"]["clusterIP"], "");
  // An address another Service holds is refused with the allocator's words; nothing is created.
  HttpResponse taken = call("POST", "/api/v1/namespaces/default/services",
                            R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"dns2"},)"
                            R"("spec":{"clusterIP":"10.100.0.10","ports":[{"port":53}]}})");
  EXPECT_EQ(taken.status, 422);
  EXPECT_NE(parse(taken)["message"].get<std::string>().find("provided IP is already allocated"), std::string::npos);
  EXPECT_EQ(call("GET", "/api/v1/namespaces/default/services/dns2").status, 404);
  EXPECT_EQ(call("DELETE", "/api/v1/namespaces/default/services/web").status, 200);
  EXPECT_EQ(call("GET", "/api/v1/namespaces/default/services/web").status, 404);
}

TEST(ApiHandlerKarpenterService, TheChartsServiceIsInKarpentersNamespace) {
  // Lab 002 installs Karpenter into "karpenter"; `kubectl get all -n karpenter` lists service/karpenter.
  ServedSession lab("scenarios/karpenter/lab002-sg-tagged-later.yaml");
  json svc = json::parse(lab.call("GET", "/api/v1/namespaces/karpenter/services/karpenter").body);
  EXPECT_EQ(svc["spec"]["ports"][0]["port"], 8080);
  EXPECT_EQ(svc["spec"]["ports"][0]["targetPort"], "http-metrics");
  EXPECT_EQ(svc["spec"]["selector"]["app.kubernetes.io/name"], "karpenter");
  EXPECT_EQ(svc["metadata"]["labels"]["app.kubernetes.io/managed-by"], "Helm");
  // Its VPC is 10.0.0.0/16 (as eksctl's), so EKS gave the cluster 172.20.0.0/16.
  EXPECT_EQ(svc["spec"]["clusterIP"].get<std::string>().rfind("172.20.", 0), 0u);
}

TEST(ApiHandlerKarpenterLogs, TheLeaderLogsWhatTheControllersDoTheOtherReplicaOnlyItsStart) {
  ServedSession lab("scenarios/karpenter/lab002-sg-tagged-later.yaml");
  lab.call("POST", "/eksim/v1/clock", R"({"action":"advance","by":"10m"})");
  json pods = json::parse(lab.call("GET", "/api/v1/namespaces/karpenter/pods?labelSelector=app.kubernetes.io%2Fname%3Dkarpenter").body);
  ASSERT_EQ(pods["items"].size(), 2u);
  std::vector<std::vector<json>> logs;
  std::vector<std::string> raw;
  for (const auto& pod : pods["items"]) {
    HttpResponse r = lab.call("GET", "/api/v1/namespaces/karpenter/pods/" + pod["metadata"]["name"].get<std::string>() +
                                         "/log?container=controller");
    ASSERT_EQ(r.status, 200) << r.body;
    raw.push_back(r.body);
    std::vector<json> lines;
    std::istringstream in(r.body);
    for (std::string l; std::getline(in, l);) lines.push_back(json::parse(l));
    logs.push_back(lines);
  }
  if (logs[0].size() < logs[1].size()) std::swap(logs[0], logs[1]);
  const std::vector<json>& leader = logs[0];
  const std::vector<json>& other = logs[1];
  // Both: the metrics server, the health probe, the leader-election attempt (zap's key order).
  ASSERT_EQ(other.size(), 4u);
  for (const auto& body : raw)  // zap's key order: level, time, logger, message, commit
    EXPECT_EQ(body.find(R"({"level":"INFO","time":")"), 0u) << body;
  EXPECT_NE(raw[0].find(R"(","logger":"controller.controller-runtime.metrics","message":"Starting metrics server","commit":")"),
            std::string::npos);
  EXPECT_EQ(other[0]["logger"], "controller.controller-runtime.metrics");
  EXPECT_EQ(other[0]["commit"], "c9c3a48");  // Karpenter 1.8.3
  EXPECT_EQ(other[3]["message"], "attempting to acquire leader lease karpenter/karpenter-leader-election...");
  ASSERT_GT(leader.size(), 5u);
  EXPECT_EQ(leader[4]["message"], "successfully acquired lease karpenter/karpenter-leader-election");
  std::vector<std::string> messages;
  for (const auto& l : leader) messages.push_back(l["message"]);
  for (const char* m : {"found provisionable pod(s)", "computed new nodeclaim(s) to fit pod(s)", "created nodeclaim",
                        "launched nodeclaim"})
    EXPECT_NE(std::find(messages.begin(), messages.end(), m), messages.end()) << m;
  // Times are ISO 8601 with milliseconds.
  const std::string t = leader.back()["time"];
  EXPECT_EQ(t.size(), 24u) << t;
  EXPECT_EQ(t.back(), 'Z');
}

}  // namespace
}  // namespace eksim::serve

namespace eksim::serve {
namespace {

TEST(ApiHandlerClusterAutoscalerStatus, ServedWithItsAnnotationAndEvents) {
  ServedSession lab("scenarios/autoscaler/000-g-quota-backoff.yaml");
  lab.call("POST", "/eksim/v1/clock", R"({"action":"advance","by":"2m"})");
  HttpResponse r = lab.call("GET", "/api/v1/namespaces/kube-system/configmaps/cluster-autoscaler-status");
  ASSERT_EQ(r.status, 200) << r.body;
  json cm = json::parse(r.body);
  EXPECT_FALSE(cm["metadata"].contains("labels"));
  const std::string updated = cm["metadata"]["annotations"]["cluster-autoscaler.kubernetes.io/last-updated"];
  EXPECT_EQ(updated.substr(updated.size() - 10), " +0000 UTC");
  const std::string status = cm["data"]["status"];
  EXPECT_EQ(status.rfind("time: " + updated + "\nautoscalerStatus: Running\nclusterWide:\n  health:\n    status: Healthy\n", 0),
            0u)
      << status;
  EXPECT_NE(status.find("\nnodeGroups:\n- name: eks-ng-gpu-"), std::string::npos) << status;
  // describe's event lookup: the recorder's events on the ConfigMap, by its uid.
  const std::string uid = cm["metadata"]["uid"];
  json events = json::parse(lab.call("GET", "/api/v1/namespaces/kube-system/events?fieldSelector=involvedObject.name%3D"
                                            "cluster-autoscaler-status%2CinvolvedObject.kind%3DConfigMap%2CinvolvedObject.uid%3D" +
                                                uid)
                                .body);
  std::set<std::string> reasons;
  for (const auto& e : events["items"]) reasons.insert(e["reason"].get<std::string>());
  EXPECT_TRUE(reasons.count("ScaledUpGroup") && reasons.count("ScaleUpFailed")) << events.dump();
  // In the table `get cm -n kube-system` prints.
  json table = json::parse(lab.call("GET", "/api/v1/namespaces/kube-system/configmaps", "", "application/json", kTableAccept).body);
  bool listed = false;
  for (const auto& row : table["rows"]) listed |= row["cells"][0] == "cluster-autoscaler-status";
  EXPECT_TRUE(listed);
}

TEST(ApiHandlerTrainingEvents, WorkerLogLinesAreNotEvents) {
  // The c10d lines go to `kubectl logs`; `kubectl get events` has no ContainerLog and none of
  // eksim's own training records.
  ServedSession lab("scenarios/networking/coredns-port-53-blocked.yaml");
  lab.call("POST", "/eksim/v1/clock", R"({"action":"advance","by":"3m"})");
  json events = json::parse(lab.call("GET", "/api/v1/events").body);
  ASSERT_FALSE(events["items"].empty());
  for (const auto& e : events["items"]) {
    EXPECT_NE(e["reason"], "ContainerLog") << e.dump();
    EXPECT_EQ(e["reason"].get<std::string>().rfind("Training", 0), std::string::npos) << e.dump();
  }
  json pods = json::parse(lab.call("GET", "/api/v1/namespaces/default/pods").body);
  std::string logs;
  for (const auto& p : pods["items"])
    if (p["metadata"]["name"].get<std::string>().rfind("allreduce-", 0) == 0)
      logs += lab.call("GET", "/api/v1/namespaces/default/pods/" + p["metadata"]["name"].get<std::string>() + "/log").body;
  EXPECT_NE(logs.find("cannot be retrieved (gai error: -3"), std::string::npos);
}

}  // namespace
}  // namespace eksim::serve
