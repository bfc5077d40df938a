#include "models/k8s/api/quantity.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace eksim::k8s {
namespace {

struct ParseCase {
  const char* text;
  std::optional<std::int64_t> milli;  // nullopt: Kubernetes rejects the text
};

// Expected values follow k8s.io/apimachinery resource.Quantity.MilliValue(), which rounds a
// fractional milli-unit up.
const ParseCase kParseCases[] = {
    {"500m", 500},
    {"1", 1000},
    {"2", 2000},
    {"0", 0},
    {"1Gi", 1073741824LL * 1000},
    {"1Ki", 1024000},
    {"15378852Ki", 15378852LL * 1024 * 1000},
    {"16069028Ki", 16069028LL * 1024 * 1000},
    {"1e3", 1000000},
    {"1E3", 1000000},
    {"5e-3", 5},
    {"1.5", 1500},
    {"0.1", 100},
    {"100Gi", 100LL * 1073741824 * 1000},
    {"15360Mi", 15360LL * 1048576 * 1000},
    {"1.5Gi", 1610612736LL * 1000},
    {"3920m", 3920},
    {"100Mi", 104857600LL * 1000},
    {"1k", 1000000},
    {"1M", 1000000000},
    {"1G", 1000000000000LL},
    {"250n", 1},       // 0.00000025 -> rounds up to 1m
    {"0.0001", 1},     // 0.1m -> 1m
    {"123456789.123", 123456789123LL},  // exact: no binary floating-point rounding
    {"+2", 2000},
    {"-500m", -500},
    {".5", 500},
    {"1Qi", std::nullopt},
    {"", std::nullopt},
    {"abc", std::nullopt},
    {"Gi", std::nullopt},
    {"1 Gi", std::nullopt},
    {"1gi", std::nullopt},
    {"1e", std::nullopt},
    {"1e3Gi", std::nullopt},
    {"1.2.3", std::nullopt},
    {"-", std::nullopt},
    {".", std::nullopt},
    {"8Ei", std::nullopt},                  // 2^63 bytes: milli-units overflow int64
    {"99999999999999999999", std::nullopt},  // overflow
};

class ParseQuantity : public ::testing::TestWithParam<ParseCase> {};

TEST_P(ParseQuantity, MatchesKubernetes) {
  const ParseCase& c = GetParam();
  EXPECT_EQ(parse_quantity(c.text), c.milli) << "text: \"" << c.text << "\"";
}

INSTANTIATE_TEST_SUITE_P(Table, ParseQuantity, ::testing::ValuesIn(kParseCases));

TEST(FormatQuantity, CpuMemoryCount) {
  EXPECT_EQ(format_cpu(3920), "3920m");
  EXPECT_EQ(format_cpu(4000), "4");
  EXPECT_EQ(format_cpu(0), "0");
  EXPECT_EQ(format_cpu(1500), "1500m");
  EXPECT_EQ(format_memory(15378852LL * 1024), "15378852Ki");
  EXPECT_EQ(format_memory(1073741824), "1048576Ki");
  EXPECT_EQ(format_memory(1000), "1000");
  EXPECT_EQ(format_memory(0), "0");
  EXPECT_EQ(format_count(29), "29");
}

TEST(FormatQuantity, RoundTripsLabFigures) {
  // Lab 004's node: allocatable cpu 3920m, memory 15378852Ki.
  EXPECT_EQ(format_cpu(*parse_quantity("3920m")), "3920m");
  EXPECT_EQ(format_memory(*parse_quantity("15378852Ki") / 1000), "15378852Ki");
}

}  // namespace
}  // namespace eksim::k8s
