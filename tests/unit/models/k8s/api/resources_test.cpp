#include "models/k8s/api/resources.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "models/k8s/api/objects.hpp"
#include "models/k8s/api/quantity.hpp"

namespace eksim::k8s {
namespace {

struct AmountCase {
  const char* name;
  const char* text;
  std::int64_t amount;  // canonical unit: millicores for cpu, base units otherwise
  const char* formatted;
};

const AmountCase kAmountCases[] = {
    {"cpu", "500m", 500, "500m"},
    {"cpu", "4", 4000, "4"},
    {"cpu", "1.5", 1500, "1500m"},
    {"cpu", "1e3", 1000000, "1000"},
    {"memory", "1Gi", 1073741824, "1048576Ki"},
    {"memory", "15378852Ki", 15378852LL * 1024, "15378852Ki"},
    {"memory", "15360Mi", 15360LL * 1048576, "15728640Ki"},
    {"memory", "100Gi", 100LL * 1073741824, "104857600Ki"},
    {"memory", "1e3", 1000, "1000"},
    {"memory", "500m", 1, "1"},  // Quantity.Value() rounds 0.5 byte up
    {"ephemeral-storage", "1Gi", 1073741824, "1048576Ki"},
    {"pods", "29", 29, "29"},
    {"nvidia.com/gpu", "1", 1, "1"},
    {"nvidia.com/gpu", "1.5", 2, "2"},  // rounds up, as Value() does
    {"hugepages-2Mi", "2Mi", 2097152, "2048Ki"},
};

class ResourceAmount : public ::testing::TestWithParam<AmountCase> {};

TEST_P(ResourceAmount, ParsesAndFormats) {
  const AmountCase& c = GetParam();
  auto milli = parse_quantity(c.text);
  ASSERT_TRUE(milli.has_value()) << c.text;
  std::int64_t amount = amount_from_milli(c.name, *milli);
  EXPECT_EQ(amount, c.amount) << c.name << "=" << c.text;
  EXPECT_EQ(format_amount(c.name, amount), c.formatted) << c.name << "=" << c.text;
}

INSTANTIATE_TEST_SUITE_P(Table, ResourceAmount, ::testing::ValuesIn(kAmountCases));

TEST(ResourceList, InvalidTextsAreRejectedBeforeConversion) {
  for (const char* bad : {"1Qi", "", "abc"}) EXPECT_FALSE(parse_quantity(bad).has_value()) << bad;
}

TEST(ResourceList, SortedSetGetAdd) {
  ResourceList r{{"pods", 29}, {"cpu", 3920}, {"memory", 100}};
  ASSERT_EQ(r.items().size(), 3u);
  EXPECT_EQ(r.items()[0].first, "cpu");
  EXPECT_EQ(r.items()[1].first, "memory");
  EXPECT_EQ(r.items()[2].first, "pods");
  EXPECT_EQ(r.get("cpu"), 3920);
  EXPECT_EQ(r.get("nvidia.com/gpu"), 0);
  EXPECT_FALSE(r.has("nvidia.com/gpu"));
  r.add("nvidia.com/gpu", 1);
  EXPECT_TRUE(r.has("nvidia.com/gpu"));
  EXPECT_EQ(r.items()[2].first, "nvidia.com/gpu");  // between memory and pods
  r.set("cpu", 100);
  EXPECT_EQ(r.get("cpu"), 100);
}

TEST(ResourceList, ArithmeticAndMax) {
  ResourceList a{{"cpu", 1000}, {"memory", 4096}};
  ResourceList b{{"cpu", 250}, {"nvidia.com/gpu", 1}};
  ResourceList sum = a;
  sum += b;
  EXPECT_EQ(sum.get("cpu"), 1250);
  EXPECT_EQ(sum.get("memory"), 4096);
  EXPECT_EQ(sum.get("nvidia.com/gpu"), 1);
  sum -= b;
  EXPECT_EQ(sum, a);  // zero gpu entry left behind still equals a list without it
  ResourceList m{{"cpu", 500}, {"memory", 8192}};
  m.max_with(a);
  EXPECT_EQ(m.get("cpu"), 1000);
  EXPECT_EQ(m.get("memory"), 8192);
}

// Issue 42 item 3: two containers of cpu 5e15 (5e18 millicores each) once summed to a negative
// request that fit any node; sums saturate, and so does what a pod requests.
TEST(ResourceList, SumsSaturateInsteadOfWrapping) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  ResourceList a{{"cpu", 5'000'000'000'000'000'000}, {"example.com/foo", kMax}};
  ResourceList sum = a;
  sum += a;
  EXPECT_EQ(sum.get("cpu"), kMax);
  EXPECT_EQ(sum.known(0), kMax);  // the well-known slot agrees
  EXPECT_EQ(sum.get("example.com/foo"), kMax);
  ResourceList low{{"cpu", kMin}};
  ResourceList diff;
  diff -= low;  // -kMin does not exist: the difference saturates
  EXPECT_EQ(diff.get("cpu"), kMax);
  low -= a;
  EXPECT_EQ(low.get("cpu"), kMin);

  PodSpec spec;
  for (const char* name : {"a", "b"}) {
    Container c;
    c.name = name;
    c.requests.set(kCpu, 5'000'000'000'000'000'000);
    spec.containers.push_back(c);
  }
  EXPECT_EQ(pod_requests(spec).get(kCpu), kMax);
}

TEST(ResourceList, AbsentEqualsZero) {
  ResourceList empty;
  ResourceList zero{{"cpu", 0}};
  EXPECT_EQ(empty, zero);
  EXPECT_EQ(zero, empty);
  EXPECT_NE(zero, (ResourceList{{"cpu", 1}}));
  EXPECT_NE((ResourceList{{"memory", 1}}), zero);
}

}  // namespace
}  // namespace eksim::k8s
