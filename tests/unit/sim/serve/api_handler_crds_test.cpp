// CustomResourceDefinitions and the objects a chart renders, through the API handler with the
// requests kubectl (and helm) send: a custom kind is served only once its CRD exists, the real
// Karpenter v1.8.3 CRD files are created as `kubectl create -f` sends them, deleting a CRD deletes
// its objects, and every kind a chart renders is kept and listed back, never with a Warning.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "sim/scenario/crd_manifest.hpp"
#include "tests/unit/sim/serve/served_session.hpp"

namespace eksim::serve {
namespace {
// Its own namespace: the unit tests build in unity batches beside api_handler_test.cpp.
namespace crds_test {

using nlohmann::json;

using serve_test::kTableAccept;
constexpr const char* kCreate = "?fieldManager=kubectl-create&fieldValidation=Strict";

// Every kind here is served without a Warning.
struct Served : serve_test::ServedSession {
  explicit Served(const std::string& scenario) : ServedSession(scenario) { forbid_warnings = true; }
};

// A fixture file as the JSON body kubectl sends for it.
json fixture(const std::string& name) {
  return scenario::yaml_to_json(YAML::LoadFile(std::string(EKSIM_SOURCE_DIR) + "/scenarios/labs/manifests/002/crds/" + name));
}

const char* kNodePool =
    R"({"apiVersion":"karpenter.sh/v1","kind":"NodePool","metadata":{"name":"gpu"},"spec":{"template":{"spec":{)"
    R"("nodeClassRef":{"group":"karpenter.k8s.aws","kind":"EC2NodeClass","name":"default"},)"
    R"("requirements":[{"key":"karpenter.k8s.aws/instance-family","operator":"In","values":["g5"]}]}}}})";

bool lists_group(const json& apis, const std::string& group) {
  for (const auto& g : apis["groups"])
    if (g["name"] == group) return true;
  return false;
}

TEST(ApiHandlerCrds, ACustomKindIsServedOnlyOnceItsCrdExists) {
  // Lab 000: no Karpenter declared, so none of its CRDs.
  Served lab("scenarios/labs/000-gpu-pod-no-toleration.yaml");
  EXPECT_FALSE(lists_group(lab.get("/apis"), "karpenter.sh"));
  EXPECT_FALSE(lab.get("/openapi/v3")["paths"].contains("apis/karpenter.sh/v1"));
  // What kubectl falls back to for a kind /openapi/v3 does not name: a (empty) protobuf document,
  // so it skips client-side validation and answers `no matches for kind` from discovery.
  HttpResponse v2 = lab.call("GET", "/openapi/v2", "", "", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf");
  EXPECT_EQ(v2.status, 200);
  EXPECT_NE(v2.content_type.find("protobuf"), std::string::npos);
  EXPECT_EQ(lab.call("GET", "/apis/karpenter.sh/v1").status, 404);
  HttpResponse before = lab.call("POST", std::string("/apis/karpenter.sh/v1/nodepools") + kCreate, kNodePool);
  EXPECT_EQ(before.status, 404);
  EXPECT_EQ(json::parse(before.body)["message"], "the server could not find the requested resource");

  for (const char* f : {"karpenter.sh_nodepools.yaml", "karpenter.sh_nodeclaims.yaml", "karpenter.k8s.aws_ec2nodeclasses.yaml"}) {
    HttpResponse r = lab.call("POST", std::string("/apis/apiextensions.k8s.io/v1/customresourcedefinitions") + kCreate, fixture(f).dump());
    ASSERT_EQ(r.status, 201) << f << ": " << r.body;
  }
  // Created again: AlreadyExists, as `kubectl create -f` twice.
  HttpResponse again = lab.call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", fixture("karpenter.sh_nodepools.yaml").dump());
  EXPECT_EQ(again.status, 409);
  EXPECT_EQ(json::parse(again.body)["message"], "customresourcedefinitions.apiextensions.k8s.io \"nodepools.karpenter.sh\" already exists");

  // kubectl apply validates against OpenAPI: the CRD's group/version is in /openapi/v3, with a
  // PATCH taking fieldValidation (so the server validates), under a new hash.
  json v3 = lab.get("/openapi/v3");
  ASSERT_TRUE(v3["paths"].contains("apis/karpenter.sh/v1"));
  json doc = lab.get("/openapi/v3/apis/karpenter.sh/v1");
  EXPECT_TRUE(doc["paths"].contains("/apis/karpenter.sh/v1/nodepools/{name}"));
  // `kubectl explain nodepool.spec` reads the CRD's own schema, published under its GVK.
  const json& schema = doc["components"]["schemas"]["sh.karpenter.v1.NodePool"];
  EXPECT_EQ(schema["x-kubernetes-group-version-kind"][0]["kind"], "NodePool");
  EXPECT_TRUE(schema["properties"]["spec"]["properties"].contains("disruption"));
  json apis = lab.get("/apis");
  EXPECT_TRUE(lists_group(apis, "karpenter.sh"));
  EXPECT_TRUE(lists_group(apis, "karpenter.k8s.aws"));
  json group = lab.get("/apis/karpenter.k8s.aws/v1");
  ASSERT_EQ(group["resources"].size(), 1u);
  EXPECT_EQ(group["resources"][0]["shortNames"], json::array({"ec2nc", "ec2ncs"}));
  EXPECT_EQ(group["resources"][0]["categories"], json::array({"karpenter"}));
  // The CRD is served back as sent: its schema and printer columns.
  json crd = lab.get("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/nodepools.karpenter.sh");
  EXPECT_TRUE(crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"].is_object());
  EXPECT_EQ(crd["status"]["conditions"][1]["type"], "Established");

  HttpResponse created = lab.call("POST", std::string("/apis/karpenter.sh/v1/nodepools") + kCreate, kNodePool);
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(json::parse(created.body)["metadata"]["name"], "gpu");
  json pools = lab.get("/apis/karpenter.sh/v1/nodepools");
  ASSERT_EQ(pools["items"].size(), 1u);
  EXPECT_EQ(pools["items"][0]["spec"]["template"]["spec"]["requirements"][0]["values"][0], "g5");

  // kubectl delete crd: its objects go with it, and the kind is no longer served.
  EXPECT_EQ(lab.call("DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/nodepools.karpenter.sh").status, 200);
  EXPECT_EQ(lab.call("GET", "/apis/karpenter.sh/v1/nodepools").status, 404);
  EXPECT_EQ(lab.call("DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/nodepools.karpenter.sh").status, 404);
  ASSERT_EQ(lab.call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", fixture("karpenter.sh_nodepools.yaml").dump()).status, 201);
  EXPECT_TRUE(lab.get("/apis/karpenter.sh/v1/nodepools")["items"].empty());
}

TEST(ApiHandlerCrds, ACrdWhoseNameIsNotPluralDotGroupIsInvalid) {
  Served lab("scenarios/labs/000-gpu-pod-no-toleration.yaml");
  json crd = fixture("karpenter.sh_nodepools.yaml");
  crd["metadata"]["name"] = "pools.karpenter.sh";
  HttpResponse r = lab.call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd.dump());
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(json::parse(r.body)["message"],
            "The CustomResourceDefinition \"pools.karpenter.sh\" is invalid: metadata.name: Invalid value: "
            "\"pools.karpenter.sh\": must be spec.names.plural+\".\"+spec.group");
}

TEST(ApiHandlerCrds, KarpentersCrdsExistFromTheStartWhenTheScenarioDeclaresIt) {
  Served lab("scenarios/examples/kubectl-delete-karpenter-objects.yaml");
  json table = json::parse(lab.call("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "", "application/json", kTableAccept).body);
  std::vector<std::string> names;
  for (const auto& row : table["rows"]) names.push_back(row["cells"][0]);
  EXPECT_NE(std::find(names.begin(), names.end(), "nodepools.karpenter.sh"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "cninodes.vpcresources.k8s.aws"), names.end());
  HttpResponse dup = lab.call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", fixture("karpenter.sh_nodeclaims.yaml").dump());
  EXPECT_EQ(dup.status, 409);
}

// What `helm install karpenter` sends (helm 3, recorded with -v): the release Secret in
// pending-install, the rendered objects, then the release Secret updated to deployed; `helm
// upgrade` patches the objects. No kind answers with an eksim Warning, and all are listed back.
TEST(ApiHandlerCrds, WhatHelmInstallSendsIsKeptAndListedBack) {
  Served lab("scenarios/labs/000-gpu-pod-no-toleration.yaml");
  ASSERT_EQ(lab.call("POST", "/api/v1/namespaces", R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"karpenter"}})").status, 201);
  // helm's storage driver lists the release's Secrets first.
  json none = lab.get("/api/v1/namespaces/karpenter/secrets?labelSelector=name%3Dkarpenter%2Cowner%3Dhelm");
  EXPECT_TRUE(none["items"].empty());
  json release = {{"apiVersion", "v1"}, {"kind", "Secret"}, {"type", "helm.sh/release.v1"},
                  {"metadata", {{"name", "sh.helm.release.v1.karpenter.v1"}, {"namespace", "karpenter"},
                                {"labels", {{"name", "karpenter"}, {"owner", "helm"}, {"status", "pending-install"}, {"version", "1"}}}}},
                  {"data", {{"release", "SDRzSUFBQUFBQUFDLzJ4UnpXN2JNQXg5RlVQbnVDbnVOZ0FBQUE9PQ=="}}}};
  ASSERT_EQ(lab.call("POST", "/api/v1/namespaces/karpenter/secrets", release.dump()).status, 201);
  const std::vector<std::pair<std::string, json>> rendered = {
      {"/api/v1/namespaces/karpenter/serviceaccounts",
       {{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", {{"name", "karpenter"}, {"namespace", "karpenter"},
         {"annotations", {{"eks.amazonaws.com/role-arn", "arn:aws:iam::111122223333:role/KarpenterControllerRole"}}}}}}},
      {"/apis/rbac.authorization.k8s.io/v1/clusterroles",
       {{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", "ClusterRole"}, {"metadata", {{"name", "karpenter-core"}}},
        {"rules", json::array({{{"apiGroups", {"karpenter.sh"}}, {"resources", {"nodepools"}}, {"verbs", {"get", "list", "watch"}}}})}}},
      {"/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
       {{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", "ClusterRoleBinding"}, {"metadata", {{"name", "karpenter-core"}}},
        {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", "karpenter-core"}}},
        {"subjects", json::array({{{"kind", "ServiceAccount"}, {"name", "karpenter"}, {"namespace", "karpenter"}}})}}},
      {"/apis/rbac.authorization.k8s.io/v1/namespaces/karpenter/roles",
       {{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", "Role"}, {"metadata", {{"name", "karpenter"}, {"namespace", "karpenter"}}},
        {"rules", json::array({{{"apiGroups", {"coordination.k8s.io"}}, {"resources", {"leases"}}, {"verbs", {"get", "patch"}}}})}}},
      {"/apis/scheduling.k8s.io/v1/priorityclasses",
       {{"apiVersion", "scheduling.k8s.io/v1"}, {"kind", "PriorityClass"}, {"metadata", {{"name", "karpenter-critical"}}}, {"value", 1000000}}},
      {"/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
       {{"apiVersion", "admissionregistration.k8s.io/v1"}, {"kind", "ValidatingWebhookConfiguration"},
        {"metadata", {{"name", "validation.webhook.karpenter.sh"}}}, {"webhooks", json::array()}}},
      {"/apis/policy/v1/namespaces/karpenter/poddisruptionbudgets",
       {{"apiVersion", "policy/v1"}, {"kind", "PodDisruptionBudget"}, {"metadata", {{"name", "karpenter"}, {"namespace", "karpenter"}}},
        {"spec", {{"maxUnavailable", 1}, {"selector", {{"matchLabels", {{"app.kubernetes.io/name", "karpenter"}}}}}}}}},
      {"/apis/coordination.k8s.io/v1/namespaces/karpenter/leases",
       {{"apiVersion", "coordination.k8s.io/v1"}, {"kind", "Lease"}, {"metadata", {{"name", "karpenter-leader-election"}, {"namespace", "karpenter"}}},
        {"spec", {{"holderIdentity", "karpenter-0"}}}}},
  };
  for (const auto& [path, object] : rendered) {
    HttpResponse r = lab.call("POST", path, object.dump());
    EXPECT_EQ(r.status, 201) << path << ": " << r.body;
  }
  // The release is marked deployed with an update (PUT) of its Secret.
  release["metadata"]["labels"]["status"] = "deployed";
  HttpResponse put = lab.call("PUT", "/api/v1/namespaces/karpenter/secrets/sh.helm.release.v1.karpenter.v1", release.dump());
  ASSERT_EQ(put.status, 200) << put.body;
  json releases = lab.get("/api/v1/namespaces/karpenter/secrets?labelSelector=name%3Dkarpenter%2Cowner%3Dhelm");
  ASSERT_EQ(releases["items"].size(), 1u);
  EXPECT_EQ(releases["items"][0]["type"], "helm.sh/release.v1");
  EXPECT_EQ(releases["items"][0]["metadata"]["labels"]["status"], "deployed");
  // `kubectl get sa,clusterrole -A`.
  json sa = lab.get("/api/v1/serviceaccounts");
  ASSERT_EQ(sa["items"].size(), 1u);
  EXPECT_EQ(sa["items"][0]["metadata"]["annotations"]["eks.amazonaws.com/role-arn"], "arn:aws:iam::111122223333:role/KarpenterControllerRole");
  EXPECT_EQ(lab.get("/apis/rbac.authorization.k8s.io/v1/clusterroles/karpenter-core")["rules"][0]["resources"][0], "nodepools");
  EXPECT_EQ(lab.get("/apis/scheduling.k8s.io/v1/priorityclasses/karpenter-critical")["value"], 1000000);
  EXPECT_EQ(lab.get("/apis/policy/v1/namespaces/karpenter/poddisruptionbudgets/karpenter")["spec"]["maxUnavailable"], 1);
  // helm upgrade: a strategic merge patch of a rendered object.
  HttpResponse patch = lab.call("PATCH", "/api/v1/namespaces/karpenter/serviceaccounts/karpenter",
                                R"({"metadata":{"labels":{"app.kubernetes.io/version":"1.8.3"}}})",
                                "application/strategic-merge-patch+json");
  ASSERT_EQ(patch.status, 200) << patch.body;
  EXPECT_EQ(json::parse(patch.body)["metadata"]["labels"]["app.kubernetes.io/version"], "1.8.3");
  // helm uninstall deletes them; deleting the namespace takes the rest.
  EXPECT_EQ(lab.call("DELETE", "/apis/rbac.authorization.k8s.io/v1/clusterroles/karpenter-core").status, 200);
  EXPECT_EQ(lab.call("GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles/karpenter-core").status, 404);
  EXPECT_EQ(lab.call("DELETE", "/api/v1/namespaces/karpenter").status, 200);
  EXPECT_TRUE(lab.get("/api/v1/serviceaccounts")["items"].empty());
}

}  // namespace crds_test
}  // namespace
}  // namespace eksim::serve
