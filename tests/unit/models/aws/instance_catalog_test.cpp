#include "models/aws/instance_catalog.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace eksim::aws {
namespace {

// One row per line of FACTS.md's instance catalog table. Where the shared EC2 data differs, the
// data wins: A10G memory as EC2 reports it (22888 MiB, not 24 GiB) and Karpenter's p4d price.
struct Row {
  const char* name;
  int vcpu;
  double gib;
  int gpus;
  const char* gpu_name;
  std::int64_t gpu_memory_mib;
  const char* arch;
  int max_enis;
  int default_card_enis;
  int ipv4_per_eni;
  bool efa;
  const char* bucket;
  double use1;
  double apne2;
};

const Row kRows[] = {
    {"t3.medium", 2, 4, 0, "", 0, "amd64", 3, 3, 6, false, "Standard", 0.0416, 0.052},
    {"m5.large", 2, 8, 0, "", 0, "amd64", 3, 3, 10, false, "Standard", 0.096, 0.118},
    {"c5.xlarge", 4, 8, 0, "", 0, "amd64", 4, 4, 15, false, "Standard", 0.170, 0.192},
    {"g4dn.xlarge", 4, 16, 1, "t4", 16384, "amd64", 3, 3, 10, false, "G", 0.526, 0.647},
    {"g4dn.12xlarge", 48, 192, 4, "t4", 16384, "amd64", 8, 8, 30, true, "G", 3.912, 4.812},
    {"g5.xlarge", 4, 16, 1, "a10g", 22888, "amd64", 4, 4, 15, false, "G", 1.006, 1.237},
    {"g5.2xlarge", 8, 32, 1, "a10g", 22888, "amd64", 4, 4, 15, false, "G", 1.212, 1.490},
    {"g5.4xlarge", 16, 64, 1, "a10g", 22888, "amd64", 8, 8, 30, false, "G", 1.624, 1.997},
    {"g5.12xlarge", 48, 192, 4, "a10g", 22888, "amd64", 15, 15, 50, true, "G", 5.672, 6.974},
    {"g5.48xlarge", 192, 768, 8, "a10g", 22888, "amd64", 7, 7, 50, true, "G", 16.288, 20.028},
    {"g5g.xlarge", 4, 8, 1, "t4g", 16384, "arm64", 4, 4, 15, false, "G", 0.420, 0.517},
    {"g6.xlarge", 4, 16, 1, "l4", 22888, "amd64", 4, 4, 15, false, "G", 0.8048, 0.990},
    {"p3.2xlarge", 8, 61, 1, "v100", 16384, "amd64", 4, 4, 15, false, "P", 3.06, 4.234},
    {"p4d.24xlarge", 96, 1152, 8, "a100", 40960, "amd64", 60, 15, 50, true, "P", 21.957642, 30.410},
    {"p5.48xlarge", 192, 2048, 8, "h100", 81920, "amd64", 64, 2, 50, true, "P", 55.04, 75.955},
};

class CatalogRow : public ::testing::TestWithParam<Row> {};

TEST_P(CatalogRow, MatchesFacts) {
  const Row& r = GetParam();
  const InstanceType* t = InstanceCatalog::builtin().find(r.name);
  ASSERT_NE(t, nullptr) << r.name;
  EXPECT_EQ(t->vcpu, r.vcpu);
  EXPECT_EQ(t->memory_mib, static_cast<std::int64_t>(r.gib * 1024));
  EXPECT_EQ(t->gpu.count, r.gpus);
  EXPECT_EQ(t->gpu.name, r.gpu_name);
  EXPECT_EQ(t->gpu.memory_mib, r.gpu_memory_mib);
  if (r.gpus > 0) {
    EXPECT_EQ(t->gpu.manufacturer, "nvidia");
  }
  EXPECT_EQ(t->arch, r.arch);
  EXPECT_EQ(t->max_enis, r.max_enis);
  EXPECT_EQ(t->default_card_enis, r.default_card_enis);
  EXPECT_EQ(t->ipv4_per_eni, r.ipv4_per_eni);
  EXPECT_EQ(t->efa, r.efa);
  EXPECT_EQ(t->quota_bucket, r.bucket);
  EXPECT_EQ(InstanceCatalog::builtin().bucket_for(r.name), r.bucket) << "family letters disagree";
  EXPECT_DOUBLE_EQ(t->on_demand_price("us-east-1").value_or(0), r.use1);
  EXPECT_DOUBLE_EQ(t->on_demand_price("ap-northeast-2").value_or(0), r.apne2);
  EXPECT_FALSE(t->on_demand_price("eu-west-1")) << "no price in a region the catalog does not cover";
  EXPECT_GT(t->spot_price_factor, 0.2);
  EXPECT_LT(t->spot_price_factor, 0.6);
  // The kubelet sees less than EC2 advertises (kernel, hypervisor), but at least 90% of it.
  EXPECT_LT(t->kubelet_memory_ki, t->memory_mib * 1024);
  EXPECT_GT(t->kubelet_memory_ki, t->memory_mib * 1024 * 90 / 100);
}

INSTANTIATE_TEST_SUITE_P(Facts, CatalogRow, ::testing::ValuesIn(kRows),
                         [](const auto& info) {
                           std::string n = info.param.name;
                           for (char& c : n)
                             if (c == '.') c = '_';
                           return n;
                         });

TEST(InstanceCatalog, HasEveryTypeOfTheDataSorted) {
  const auto& cat = InstanceCatalog::builtin();
  EXPECT_EQ(cat.all().size(), 1389u);  // ../shared/data/ec2-instance-types.json typeCount
  auto names = cat.names();
  ASSERT_EQ(names.size(), 1389u);
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_EQ(names.front(), "a1.2xlarge");
  EXPECT_NE(cat.find("g5.24xlarge"), nullptr);
  EXPECT_NE(cat.find("m7g.large"), nullptr);
  EXPECT_EQ(cat.find("g5.25xlarge"), nullptr);
  EXPECT_EQ(cat.find("c7g-flex.large"), nullptr) << "the data lists it without vCPU and memory";
}

TEST(InstanceCatalog, PricedInReadsOnlyPricedRows) {
  const auto& cat = InstanceCatalog::builtin();
  auto apne2 = cat.priced_in("ap-northeast-2");
  ASSERT_EQ(apne2.size(), std::size(kRows)) << "FACTS.md prices these types in ap-northeast-2";
  for (const auto* t : apne2) EXPECT_TRUE(t->on_demand_price("ap-northeast-2")) << t->name;
  auto with_user = cat.priced_in("ap-northeast-2", {"m7g.large"});
  EXPECT_EQ(with_user.size(), std::size(kRows) + 1);
  auto use1 = cat.priced_in("us-east-1");
  EXPECT_EQ(use1.size(), 1364u);  // the README's us-east-1 coverage
  EXPECT_TRUE(cat.priced_in("eu-west-1").empty());
}

TEST(InstanceCatalog, NameParts) {
  const auto* g5 = InstanceCatalog::builtin().find("g5.xlarge");
  ASSERT_NE(g5, nullptr);
  EXPECT_EQ(g5->family, "g5");
  EXPECT_EQ(g5->category, "g");
  EXPECT_EQ(g5->generation, 5);
  EXPECT_EQ(g5->size, "xlarge");
  const auto* p4d = InstanceCatalog::builtin().find("p4d.24xlarge");
  ASSERT_NE(p4d, nullptr);
  EXPECT_EQ(p4d->family, "p4d");
  EXPECT_EQ(p4d->category, "p");
  EXPECT_EQ(p4d->generation, 4);
  EXPECT_EQ(p4d->size, "24xlarge");
  const auto* g5g = InstanceCatalog::builtin().find("g5g.xlarge");
  ASSERT_NE(g5g, nullptr);
  EXPECT_EQ(g5g->category, "g");
  EXPECT_EQ(g5g->generation, 5);
}

TEST(InstanceCatalog, KubeletMemory) {
  const auto& cat = InstanceCatalog::builtin();
  // Lab 004: kubectl describe node on a g4dn.xlarge (AL2023 NVIDIA AMI).
  EXPECT_EQ(cat.find("g4dn.xlarge")->kubelet_memory_ki, 16069028);
  EXPECT_FALSE(cat.find("g4dn.xlarge")->memory_estimated);
  // EC2 16384 MiB minus Karpenter's measured 617742336-byte overhead.
  EXPECT_EQ(cat.find("g5.xlarge")->kubelet_memory_ki, 16384 * 1024 - 617742336 / 1024);
  EXPECT_TRUE(cat.find("g6.xlarge")->memory_estimated);
  EXPECT_TRUE(cat.find("p4d.24xlarge")->memory_estimated);
  EXPECT_TRUE(cat.find("p5.48xlarge")->memory_estimated);
}

TEST(InstanceCatalog, GpuInterconnectAndNetwork) {
  const auto& cat = InstanceCatalog::builtin();
  EXPECT_EQ(cat.find("g5.12xlarge")->gpu.interconnect, "pcie");
  EXPECT_EQ(cat.find("p4d.24xlarge")->gpu.interconnect, "nvlink");
  EXPECT_DOUBLE_EQ(cat.find("p4d.24xlarge")->gpu.nvlink_gbytes_per_s, 600);
  EXPECT_DOUBLE_EQ(cat.find("p5.48xlarge")->gpu.nvlink_gbytes_per_s, 900);
  EXPECT_EQ(cat.find("p5.48xlarge")->network_cards, 32);
  const auto* g4 = cat.find("g4dn.xlarge");
  EXPECT_TRUE(g4->network_up_to);
  EXPECT_DOUBLE_EQ(g4->network_burst_gbps, 25);
  EXPECT_DOUBLE_EQ(g4->network_baseline_gbps, 5);
  const auto* g5 = cat.find("g5.xlarge");
  EXPECT_DOUBLE_EQ(g5->network_burst_gbps, 10);
  EXPECT_DOUBLE_EQ(g5->network_baseline_gbps, 2.5);
  EXPECT_DOUBLE_EQ(cat.find("g5.48xlarge")->network_burst_gbps, 100);
  EXPECT_FALSE(cat.find("g5.48xlarge")->network_up_to);
  EXPECT_DOUBLE_EQ(cat.find("p5.48xlarge")->network_burst_gbps, 3200);
}

struct QuotaCase {
  const char* bucket;
  bool spot;
  const char* code;
};

const QuotaCase kQuotaCases[] = {
    {"Standard", false, "L-1216C47A"}, {"Standard", true, "L-34B43A08"},
    {"G", false, "L-DB2E81BA"},        {"G", true, "L-3819A6DF"},
    {"P", false, "L-417A185B"},        {"P", true, "L-7212CCBC"},
    {"F", false, "L-74FC7D96"},        {"X", false, "L-7295265B"},
    {"Inf", false, "L-1945791B"},      {"DL", false, "L-6E869C2A"},
    {"F", true, "L-88CF9481"},         {"X", true, "L-E3A00192"},
    {"Inf", true, "L-B5D1601B"},       {"DL", true, "L-85EED4F7"},
    {"Trn", false, "L-2C3B7624"},      {"Trn", true, "L-6B0D517C"},
    {"HPC", false, "L-F7808C92"},      {"HPC", true, ""},
    {"HighMemory", false, "L-43DA4232"}, {"Nope", false, ""},
};

TEST(InstanceCatalog, QuotaCodes) {
  const auto& cat = InstanceCatalog::builtin();
  for (const auto& c : kQuotaCases) EXPECT_EQ(cat.quota_code(c.bucket, c.spot), c.code) << c.bucket << " " << c.spot;
}

TEST(InstanceCatalog, BucketByFamilyLetters) {
  const auto& cat = InstanceCatalog::builtin();
  const std::pair<const char*, const char*> cases[] = {
      {"vt1.3xlarge", "G"},   {"g6e.xlarge", "G"},  {"inf2.xlarge", "Inf"}, {"i4i.large", "Standard"},
      {"dl1.24xlarge", "DL"}, {"d3.xlarge", "Standard"}, {"x2gd.large", "X"},  {"f1.2xlarge", "F"},
      {"r5.large", "Standard"}, {"z1d.large", "Standard"}, {"p5e.48xlarge", "P"}, {"trn1.2xlarge", "Trn"},
      {"gr6.4xlarge", "G"}, {"hpc7g.16xlarge", "HPC"}, {"h1.2xlarge", "Standard"}, {"u-6tb1.56xlarge", "HighMemory"},
      {"u7i-12tb.224xlarge", "HighMemory"}, {"im4gn.large", "Standard"}, {"is4gen.large", "Standard"},
      {"a1.large", "Standard"}, {"t4g.nano", "Standard"}, {"mac1.metal", ""},
  };
  for (const auto& [type, bucket] : cases) EXPECT_EQ(cat.bucket_for(type), bucket) << type;
  EXPECT_EQ(cat.quota_buckets().at("G").on_demand_quota_name, "Running On-Demand G and VT instances");
}

// The generator's layout: head lines, then one row per line.
const char* kMinimal = R"({
 "quotaBuckets": {"G":{"prefixes":["g","vt"],"onDemandQuotaCode":"L-DB2E81BA","spotQuotaCode":"L-3819A6DF","onDemandQuotaName":"Running On-Demand G and VT instances","spotQuotaName":"All G and VT Spot Instance Requests"}},
 "columns": ["name","vcpu","memoryMiB","arch","gpus","gpuName","gpuManufacturer","gpuMemoryMiB","enis","ipv4PerEni","quotaBucket","onDemandUSD","spotPriceFactor","gpuInterconnect"],
 "instanceTypes": [
["g5.xlarge",4,16384,"amd64",1,"a10g","nvidia",22888,4,15,"G",{"us-east-1":1.006},0.4,null],
["g5.2xlarge",8,32768,"amd64",1,"a10g","nvidia",22888,4,15,"G",{"us-east-1":1.212},0.4,null]
 ]
})";

std::string error_of(const std::string& text, const char* type = "g5.xlarge") {
  try {
    InstanceCatalog::from_json(text)->find(type);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(no error)";
}

std::string replace(std::string s, const std::string& from, const std::string& to) {
  auto pos = s.find(from);
  EXPECT_NE(pos, std::string::npos) << from;
  if (pos != std::string::npos) s.replace(pos, from.size(), to);
  return s;
}

TEST(InstanceCatalogFromJson, ParsesMinimalAndDerivesWhatTheDataLacks) {
  auto cat = InstanceCatalog::from_json(kMinimal);
  ASSERT_EQ(cat->size(), 2u);
  const InstanceType* t = cat->find("g5.xlarge");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->gpu.name, "a10g");
  EXPECT_EQ(t->gpu.interconnect, "pcie");
  EXPECT_EQ(t->family, "g5") << "from the name when the row has no family";
  EXPECT_TRUE(t->memory_estimated);
  EXPECT_EQ(t->kubelet_memory_ki, estimated_kubelet_memory_ki(16384));
  EXPECT_FALSE(t->on_demand_price("ap-northeast-2"));
  EXPECT_EQ(cat->all()[1].name, "g5.2xlarge");
  EXPECT_EQ(cat->find("g5.xlarge"), &cat->all()[0]) << "find and all share one object";
}

TEST(InstanceCatalogFromJson, ErrorsNameLineAndKey) {
  const std::string m = kMinimal;
  EXPECT_EQ(error_of(replace(m, R"(["g5.xlarge",4,)", R"(["g5.xlarge","4",)")),
            "instance catalog: line 5: vcpu: expected an integer");
  EXPECT_EQ(error_of(replace(m, R"("G",{"us-east-1":1.006})", R"("Q",{"us-east-1":1.006})")),
            "instance catalog: line 5: quotaBucket: \"Q\" is not in quotaBuckets");
  EXPECT_EQ(error_of(replace(m, R"(0.4,null],)", R"(0.4,"pci"],)")),
            "instance catalog: line 5: gpuInterconnect: expected \"pcie\" or \"nvlink\", got \"pci\"");
  EXPECT_EQ(error_of(replace(m, R"({"us-east-1":1.006})", R"({"us-east-1":-1})")),
            "instance catalog: line 5: onDemandUSD.us-east-1: expected a positive number");
  EXPECT_EQ(error_of(replace(m, R"(["g5.2xlarge")", R"(["g5.xlarge")")),
            "instance catalog: line 6: name: duplicate instance type \"g5.xlarge\"");
  EXPECT_EQ(error_of(replace(m, " ]\n}", "}")), "instance catalog: line 7: instanceTypes: expected one [\"NAME\", ...] row per line");
  // A broken row only fails when its type is used.
  EXPECT_EQ(error_of(replace(m, R"(["g5.2xlarge",8,)", R"(["g5.2xlarge","8",)")), "(no error)");
}

}  // namespace
}  // namespace eksim::aws
