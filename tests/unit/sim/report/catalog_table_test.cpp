#include "sim/report/catalog_table.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace eksim::report {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::string line_for(const std::vector<std::string>& lines, const std::string& type) {
  for (const auto& l : lines)
    if (l.rfind(type + " ", 0) == 0) return l;
  return "";
}

// Columns split on runs of two or more spaces (single spaces occur inside cells).
std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == ' ' && i + 1 < line.size() && line[i + 1] == ' ') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
      while (i + 1 < line.size() && line[i + 1] == ' ') ++i;
    } else {
      cur += line[i];
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

const aws::InstanceCatalog& cat() { return aws::InstanceCatalog::builtin(); }

TEST(CatalogTable, HeaderAndOneRowPerType) {
  auto lines = lines_of(format_catalog_table(cat(), "us-east-1"));
  ASSERT_EQ(lines.size(), 2 + cat().all().size());
  EXPECT_EQ(lines[2].rfind("a1.medium ", 0), 0u) << "catalog order: family, then size";
  EXPECT_EQ(lines[0], "On-demand and typical spot prices for us-east-1");
  EXPECT_EQ(cells(lines[1]), (std::vector<std::string>{"TYPE", "VCPU", "MEMORY(GiB)", "GPUS", "ARCH", "NETWORK",
                                                       "ENIxIPS", "MAXPODS", "EFA", "BUCKET", "$/H", "SPOT$/H"}));
}

TEST(CatalogTable, G5XlargeRowUsEast1) {
  auto lines = lines_of(format_catalog_table(cat(), "us-east-1"));
  EXPECT_EQ(cells(line_for(lines, "g5.xlarge")),
            (std::vector<std::string>{"g5.xlarge", "4", "16", "1x A10G 22.4GiB", "amd64", "up to 10 (2.5 base) Gbps",
                                      "4x15", "58", "no", "G", "1.0060", "0.4024"}));
}

TEST(CatalogTable, RegionalPricesAndMultiCardTypes) {
  auto lines = lines_of(format_catalog_table(cat(), "ap-northeast-2"));
  auto g4 = cells(line_for(lines, "g4dn.xlarge"));
  ASSERT_EQ(g4.size(), 12u);
  EXPECT_EQ(g4[3], "1x T4 16GiB");
  EXPECT_EQ(g4[5], "up to 25 (5 base) Gbps");
  EXPECT_EQ(g4[7], "29");
  EXPECT_EQ(g4[10], "0.6470");
  auto p5 = cells(line_for(lines, "p5.48xlarge"));
  ASSERT_EQ(p5.size(), 12u);
  EXPECT_EQ(p5[3], "8x H100 80GiB NVLink 900GB/s");
  EXPECT_EQ(p5[5], "3200 Gbps");
  EXPECT_EQ(p5[6], "2x50 (32 cards)");
  EXPECT_EQ(p5[7], "100");
  EXPECT_EQ(p5[8], "yes");
  EXPECT_EQ(p5[9], "P");
  EXPECT_EQ(p5[10], "75.9550");
  EXPECT_EQ(cells(line_for(lines, "g5g.xlarge"))[4], "arm64");
  EXPECT_EQ(cells(line_for(lines, "p3.2xlarge"))[2], "61");
  // A region without prices in the catalog shows us-east-1's.
  // A region the catalog has no prices for shows none.
  auto other = lines_of(format_catalog_table(cat(), "eu-west-1"));
  EXPECT_EQ(cells(line_for(other, "g5.xlarge"))[10], "-");
  EXPECT_EQ(cells(line_for(other, "g5.xlarge"))[11], "-");
}

TEST(CatalogTable, ColumnsAreAligned) {
  auto lines = lines_of(format_catalog_table(cat(), "us-east-1"));
  // Right-aligned numeric columns end at the same offset on every row: check VCPU's end.
  const std::size_t vcpu_end = lines[1].find("VCPU") + 4;
  for (std::size_t i = 2; i < lines.size(); ++i) {
    ASSERT_GT(lines[i].size(), vcpu_end);
    EXPECT_NE(lines[i][vcpu_end - 1], ' ') << lines[i];
    EXPECT_EQ(lines[i][vcpu_end], ' ') << lines[i];
  }
}

TEST(CatalogTable, Filters) {
  CatalogFilter f;
  f.family = "g5";
  auto lines = lines_of(format_catalog_table(cat(), f));
  ASSERT_EQ(lines.size(), 2u + 8u);  // g5.xlarge ... g5.48xlarge
  for (std::size_t i = 2; i < lines.size(); ++i) EXPECT_EQ(lines[i].rfind("g5.", 0), 0u) << lines[i];
  f = {};
  f.arch = "arm64";
  f.gpu = true;
  lines = lines_of(format_catalog_table(cat(), f));
  ASSERT_GT(lines.size(), 2u);
  for (std::size_t i = 2; i < lines.size(); ++i) {
    auto c = cells(lines[i]);
    EXPECT_EQ(c[4], "arm64") << lines[i];
    EXPECT_NE(c[3], "-") << lines[i];
  }
  EXPECT_NE(line_for(lines, "g5g.xlarge"), "");
  f = {};
  f.min_vcpu = 192;
  for (const auto& t : cat().all()) EXPECT_EQ(catalog_matches(t, f), t.vcpu >= 192) << t.name;
}

TEST(CatalogTable, JsonRows) {
  CatalogFilter f;
  f.family = "g6e";
  f.region = "us-east-1";
  const std::string j = format_catalog_json(cat(), f);
  EXPECT_NE(j.find("\"name\": \"g6e.xlarge\""), std::string::npos);
  EXPECT_NE(j.find("\"gpuMemoryMiB\": 45776"), std::string::npos);
  EXPECT_EQ(j.find("\"g5.xlarge\""), std::string::npos);
  EXPECT_NE(j.find("\"spotAssumed\": true"), std::string::npos);
}

}  // namespace
}  // namespace eksim::report
