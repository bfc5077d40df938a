// `eksim serve --replay`: a recorded run is served read-only and `eksim ctl at` moves to any
// moment of it, back in time by re-simulating the deterministic run from its start.
#include <gtest/gtest.h>

#include "sim/scenario/scenario.hpp"
#include "sim/serve/api_handler.hpp"

namespace eksim::serve {
namespace {

using nlohmann::json;

std::unique_ptr<scenario::Scenario> lab000() {
  return std::make_unique<scenario::Scenario>(
      scenario::load_scenario(std::string(EKSIM_SOURCE_DIR) + "/scenarios/labs/000-gpu-pod-no-toleration.yaml"));
}

HttpResponse call(Session& s, const std::string& method, const std::string& target, const std::string& body = "") {
  HttpRequest req;
  req.method = method;
  parse_target(target, req);
  req.body = body;
  return handle_request(s, req);
}

std::string pod_phase(Session& s) {
  const StoredObject* o = s.store().find("pods", "default", "gpu-pod");
  return o ? o->object["status"].value("phase", "") : "gone";
}

TEST(Replay, AtGoesToAnyMomentForwardAndBack) {
  Session s(lab000(), std::nullopt, *parse_speed("paused", nullptr));
  s.replay_of(engine::Duration::minutes(30));
  EXPECT_EQ(call(s, "POST", "/eksim/v1/clock", R"({"action":"at","time":"12m"})").status, 200);
  EXPECT_EQ(s.now(), engine::SimTime{} + engine::Duration::minutes(12));
  EXPECT_EQ(pod_phase(s), "Running");
  std::uint64_t rv = s.store().resource_version();
  json back = json::parse(call(s, "POST", "/eksim/v1/clock", R"({"action":"at","time":"2m"})").body);
  EXPECT_EQ(back["now"], "2m0s");
  EXPECT_EQ(back["replay"], true);
  EXPECT_EQ(pod_phase(s), "Pending");
  EXPECT_GT(s.store().resource_version(), rv);  // going back is a change to watchers, never a rewind of versions
  // The same moment twice is the same cluster: the run is deterministic.
  call(s, "POST", "/eksim/v1/clock", R"({"action":"at","time":"12m"})");
  const StoredObject* pod = s.store().find("pods", "default", "gpu-pod");
  ASSERT_NE(pod, nullptr);
  EXPECT_EQ(pod->object["spec"].value("nodeName", ""), "ip-192-168-12-11.ap-northeast-2.compute.internal");
}

TEST(Replay, ARecordedRunCannotBeChanged) {
  Session s(lab000(), std::nullopt, *parse_speed("paused", nullptr));
  s.replay_of(engine::Duration::minutes(30));
  HttpResponse r = call(s, "DELETE", "/api/v1/namespaces/default/pods/gpu-pod");
  EXPECT_EQ(r.status, 405);
  EXPECT_NE(json::parse(r.body)["message"].get<std::string>().find("recorded run"), std::string::npos);
  EXPECT_EQ(call(s, "POST", "/eksim/v1/aws", R"({"action":"eks.update-nodegroup-config"})").status, 405);
  EXPECT_EQ(call(s, "GET", "/api/v1/namespaces/default/pods/gpu-pod").status, 200);
}

TEST(Replay, ALiveRunOnlyGoesForward) {
  Session s(lab000(), std::nullopt, *parse_speed("paused", nullptr));
  EXPECT_EQ(call(s, "POST", "/eksim/v1/clock", R"({"action":"at","time":"5m"})").status, 200);
  HttpResponse back = call(s, "POST", "/eksim/v1/clock", R"({"action":"at","time":"1m"})");
  EXPECT_EQ(back.status, 400);
  EXPECT_NE(json::parse(back.body)["message"].get<std::string>().find("only a recorded run"), std::string::npos);
  EXPECT_EQ(call(s, "POST", "/eksim/v1/clock", R"({"action":"at","time":"soon"})").status, 400);
  EXPECT_EQ(s.now(), engine::SimTime{} + engine::Duration::minutes(5));
}

}  // namespace
}  // namespace eksim::serve

namespace eksim::serve {
namespace {

// `eksim serve --record`: a change made through the API at 5m is recorded with its instant; the
// replay makes it again there, however often the user goes back and forth.
TEST(Replay, RecordedChangesHappenAgainAtTheirInstants) {
  std::vector<scenario::RecordedRequest> recorded;
  {
    Session live(lab000(), std::nullopt, *parse_speed("paused", nullptr));
    live.record_requests([&](const std::vector<scenario::RecordedRequest>& all) { recorded = all; });
    call(live, "POST", "/eksim/v1/clock", R"({"action":"advance","by":"5m"})");
    EXPECT_EQ(call(live, "GET", "/api/v1/namespaces/default/pods/gpu-pod").status, 200);
    EXPECT_EQ(recorded.size(), 0u);  // reads and the clock change nothing
    EXPECT_EQ(call(live, "DELETE", "/api/v1/namespaces/default/pods/gpu-pod?gracePeriodSeconds=0").status, 200);
    HttpRequest proto;
    proto.method = "POST";
    parse_target("/apis/apps/v1/namespaces/default/deployments", proto);
    proto.content_type = "application/vnd.kubernetes.protobuf";
    proto.body = std::string("k8s\0\xff\xfe", 6);
    EXPECT_EQ(handle_request(live, proto).status, 400);  // unreadable: refused, and not recorded
  }
  ASSERT_EQ(recorded.size(), 1u);
  EXPECT_EQ(recorded[0].at, engine::Duration::minutes(5));
  EXPECT_EQ(recorded[0].method, "DELETE");
  EXPECT_EQ(recorded[0].query.at("gracePeriodSeconds"), "0");

  Session replay(lab000(), std::nullopt, *parse_speed("paused", nullptr));
  replay.replay_of(engine::Duration::minutes(10), recorded);
  call(replay, "POST", "/eksim/v1/clock", R"({"action":"at","time":"4m30s"})");
  EXPECT_EQ(pod_phase(replay), "Running");
  call(replay, "POST", "/eksim/v1/clock", R"({"action":"advance","by":"2m"})");
  EXPECT_EQ(pod_phase(replay), "gone");
  call(replay, "POST", "/eksim/v1/clock", R"({"action":"at","time":"1m"})");
  EXPECT_EQ(pod_phase(replay), "Pending");
  call(replay, "POST", "/eksim/v1/clock", R"({"action":"at","time":"9m"})");
  EXPECT_EQ(pod_phase(replay), "gone");
}

}  // namespace
}  // namespace eksim::serve
