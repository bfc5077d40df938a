// `kubectl logs -f` without sockets: lab 000's gpu-pod runs `nvidia-smi && sleep 600`; its
// followed log holds the table while the container sleeps and ends when it exits, in simulated
// time.
#include "sim/serve/log_follow.hpp"

#include <gtest/gtest.h>

#include "sim/scenario/scenario.hpp"
#include "sim/serve/api_handler.hpp"

namespace eksim::serve {
namespace {

class LogFollowTest : public ::testing::Test {
 protected:
  LogFollowTest()
      : session(std::make_unique<scenario::Scenario>(
                    scenario::load_scenario(std::string(EKSIM_SOURCE_DIR) + "/scenarios/labs/000-gpu-pod-no-toleration.yaml")),
                std::nullopt, *parse_speed("paused", nullptr)) {
    std::string error;
    EXPECT_TRUE(session.advance_until(*parse_until("pod/gpu-pod Running", &error), engine::Duration::minutes(30)));
  }
  HttpResponse logs(const std::string& query) {
    HttpRequest req;
    req.method = "GET";
    parse_target("/api/v1/namespaces/default/pods/gpu-pod/log" + query, req);
    return handle_request(session, req);
  }
  Session session;
};

TEST_F(LogFollowTest, FollowHoldsTheStreamUntilTheContainerExits) {
  EXPECT_EQ(logs("").follow, nullptr);
  HttpResponse r = logs("?follow=true");
  ASSERT_NE(r.follow, nullptr);
  EXPECT_NE(r.body.find("NVIDIA A10G"), std::string::npos) << r.body;
  // Nothing new while the clock stands still or the container sleeps.
  FollowStep step = follow_step(session, *r.follow);
  EXPECT_FALSE(step.done);
  EXPECT_EQ(step.data, "");
  session.advance_to(session.now() + engine::Duration::minutes(9));
  step = follow_step(session, *r.follow);
  EXPECT_FALSE(step.done);
  EXPECT_EQ(step.data, "");
  // sleep 600 ends ten minutes after the start: the stream ends with the container.
  session.advance_to(session.now() + engine::Duration::minutes(2));
  step = follow_step(session, *r.follow);
  EXPECT_TRUE(step.done);
  EXPECT_EQ(step.data, "");
  // Following a finished container prints its log and ends at once.
  HttpResponse after = logs("?follow=true&tailLines=3");
  ASSERT_NE(after.follow, nullptr);
  EXPECT_EQ(std::count(after.body.begin(), after.body.end(), '\n'), 3);
  EXPECT_TRUE(follow_step(session, *after.follow).done);
}

TEST_F(LogFollowTest, ANewPodOfTheSameNameIsNotTheOneFollowed) {
  HttpResponse r = logs("?follow=true");
  ASSERT_NE(r.follow, nullptr);
  LogFollow other = *r.follow;
  other.uid = "not-this-pod";
  EXPECT_TRUE(follow_step(session, other).done);
  LogFollow restarted = *r.follow;
  restarted.restarts = 1;
  EXPECT_TRUE(follow_step(session, restarted).done);
}

TEST(StampLines, EveryLineGetsThePrefix) {
  EXPECT_EQ(stamp_lines("a\nb\n", "T "), "T a\nT b\n");
  EXPECT_EQ(stamp_lines("a\nb", "T "), "T a\nT b");
  EXPECT_EQ(stamp_lines("a\n", ""), "a\n");
}

}  // namespace
}  // namespace eksim::serve
