#include "models/net/sharing.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace eksim::net {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

Eigen::VectorXd vec(std::initializer_list<double> v) {
  Eigen::VectorXd out(static_cast<Eigen::Index>(v.size()));
  Eigen::Index i = 0;
  for (double x : v) out(i++) = x;
  return out;
}

TEST(NetSharing, OneLinkTwoFlowsSplitEvenly) {
  Eigen::MatrixXd a(2, 1);
  a << 1, 1;
  const Eigen::VectorXd r = max_min_fair_rates(a, vec({10}), vec({kInf, kInf}));
  EXPECT_DOUBLE_EQ(r(0), 5.0);
  EXPECT_DOUBLE_EQ(r(1), 5.0);
}

TEST(NetSharing, CappedFlowLeavesTheRestToTheOther) {
  Eigen::MatrixXd a(2, 1);
  a << 1, 1;
  const Eigen::VectorXd r = max_min_fair_rates(a, vec({10}), vec({2, kInf}));
  EXPECT_DOUBLE_EQ(r(0), 2.0);
  EXPECT_DOUBLE_EQ(r(1), 8.0);
}

TEST(NetSharing, AllFlowsCappedBelowTheLink) {
  Eigen::MatrixXd a = Eigen::MatrixXd::Ones(16, 1);
  const Eigen::VectorXd r = max_min_fair_rates(a, vec({100}), Eigen::VectorXd::Constant(16, 5.0));
  EXPECT_DOUBLE_EQ(r.sum(), 80.0);
  EXPECT_DOUBLE_EQ(r.maxCoeff(), 5.0);
}

// The classic parking lot: one long flow crosses three unit links, each link also carries one
// short flow. Every link is shared by two flows, so everyone gets 1/2.
TEST(NetSharing, ParkingLotEqualLinks) {
  Eigen::MatrixXd a(4, 3);
  a << 1, 1, 1,  //
      1, 0, 0,   //
      0, 1, 0,   //
      0, 0, 1;
  const Eigen::VectorXd r = max_min_fair_rates(a, vec({1, 1, 1}), Eigen::VectorXd::Constant(4, kInf));
  for (Eigen::Index f = 0; f < 4; ++f) EXPECT_DOUBLE_EQ(r(f), 0.5) << f;
}

// Unequal links: link 0 (capacity 1) is the long flow's bottleneck at 1/2; the short flows on the
// larger links take what is left: 2 - 1/2 and 3 - 1/2.
TEST(NetSharing, ParkingLotUnequalLinks) {
  Eigen::MatrixXd a(4, 3);
  a << 1, 1, 1,  //
      1, 0, 0,   //
      0, 1, 0,   //
      0, 0, 1;
  const Eigen::VectorXd r = max_min_fair_rates(a, vec({1, 2, 3}), Eigen::VectorXd::Constant(4, kInf));
  EXPECT_DOUBLE_EQ(r(0), 0.5);
  EXPECT_DOUBLE_EQ(r(1), 0.5);
  EXPECT_DOUBLE_EQ(r(2), 1.5);
  EXPECT_DOUBLE_EQ(r(3), 2.5);
}

// Two links in series, capacities 4 and 10; flows A (both links), B (link 0), C and D (link 1).
// Link 0 saturates first at 2 each; C and D then share 10 - 2 = 8.
TEST(NetSharing, SecondBottleneckGetsTheRemainder) {
  Eigen::MatrixXd a(4, 2);
  a << 1, 1,  //
      1, 0,   //
      0, 1,   //
      0, 1;
  const Eigen::VectorXd r = max_min_fair_rates(a, vec({4, 10}), Eigen::VectorXd::Constant(4, kInf));
  EXPECT_DOUBLE_EQ(r(0), 2.0);
  EXPECT_DOUBLE_EQ(r(1), 2.0);
  EXPECT_DOUBLE_EQ(r(2), 4.0);
  EXPECT_DOUBLE_EQ(r(3), 4.0);
}

TEST(NetSharing, FlowOnNoLinkGetsItsCap) {
  Eigen::MatrixXd a(2, 1);
  a << 0, 1;
  const Eigen::VectorXd r = max_min_fair_rates(a, vec({3}), vec({7, kInf}));
  EXPECT_DOUBLE_EQ(r(0), 7.0);
  EXPECT_DOUBLE_EQ(r(1), 3.0);
}

}  // namespace
}  // namespace eksim::net
