#include "models/aws/instance_catalog.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace eksim::aws {
namespace {

// One row per line of FACTS.md's instance catalog table.
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
    {"g5.xlarge", 4, 16, 1, "a10g", 24576, "amd64", 4, 4, 15, false, "G", 1.006, 1.237},
    {"g5.2xlarge", 8, 32, 1, "a10g", 24576, "amd64", 4, 4, 15, false, "G", 1.212, 1.490},
    {"g5.4xlarge", 16, 64, 1, "a10g", 24576, "amd64", 8, 8, 30, false, "G", 1.624, 1.997},
    {"g5.12xlarge", 48, 192, 4, "a10g", 24576, "amd64", 15, 15, 50, true, "G", 5.672, 6.974},
    {"g5.48xlarge", 192, 768, 8, "a10g", 24576, "amd64", 7, 7, 50, true, "G", 16.288, 20.028},
    {"g5g.xlarge", 4, 8, 1, "t4g", 16384, "arm64", 4, 4, 15, false, "G", 0.420, 0.517},
    {"g6.xlarge", 4, 16, 1, "l4", 22888, "amd64", 4, 4, 15, false, "G", 0.8048, 0.990},
    {"p3.2xlarge", 8, 61, 1, "v100", 16384, "amd64", 4, 4, 15, false, "P", 3.06, 4.234},
    {"p4d.24xlarge", 96, 1152, 8, "a100", 40960, "amd64", 60, 15, 50, true, "P", 21.958, 30.410},
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
  EXPECT_DOUBLE_EQ(t->on_demand_price("us-east-1"), r.use1);
  EXPECT_DOUBLE_EQ(t->on_demand_price("ap-northeast-2"), r.apne2);
  EXPECT_DOUBLE_EQ(t->on_demand_price("eu-west-1"), r.use1) << "unknown region falls back to us-east-1";
  EXPECT_GT(t->spot_price_factor, 0.2);
  EXPECT_LT(t->spot_price_factor, 0.6);
  EXPECT_DOUBLE_EQ(t->spot_price("ap-northeast-2"), r.apne2 * t->spot_price_factor);
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

TEST(InstanceCatalog, HasExactlyTheFactsTypesSorted) {
  const auto& cat = InstanceCatalog::builtin();
  EXPECT_EQ(cat.all().size(), std::size(kRows));
  auto names = cat.names();
  ASSERT_EQ(names.size(), std::size(kRows));
  EXPECT_EQ(names.front(), "c5.xlarge");
  EXPECT_EQ(names.back(), "t3.medium");
  EXPECT_EQ(cat.find("g5.24xlarge"), nullptr);
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
    {"F", true, ""},                   {"Nope", false, ""},
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
      {"r5.large", "Standard"}, {"z1d.large", "Standard"}, {"p5e.48xlarge", "P"}, {"trn1.2xlarge", ""},
  };
  for (const auto& [type, bucket] : cases) EXPECT_EQ(cat.bucket_for(type), bucket) << type;
  EXPECT_EQ(cat.quota_buckets().at("G").on_demand_quota_name, "Running On-Demand G and VT instances");
}

const char* kMinimal = R"({
  "quotaBuckets": {"G": {"families": ["G"], "onDemandQuotaCode": "L-DB2E81BA", "spotQuotaCode": "L-3819A6DF",
                         "onDemandQuotaName": "Running On-Demand G and VT instances"}},
  "instanceTypes": [
    {"name": "g5.xlarge", "vcpu": 4, "memory_mib": 16384, "kubelet_memory_ki": 16173952, "estimated": false,
     "arch": "amd64", "gpu": {"count": 1, "manufacturer": "nvidia", "name": "a10g", "memory_mib": 24576,
     "interconnect": "pcie", "nvlink_gbytes_per_s": 0},
     "network": {"burst_gbps": 10, "baseline_gbps": 2.5, "up_to": true},
     "max_enis": 4, "default_card_enis": 4, "ipv4_per_eni": 15, "network_cards": 1, "efa": false,
     "quota_bucket": "G", "on_demand_usd_per_hour": {"us-east-1": 1.006}, "spot_price_factor": 0.4}
  ]})";

std::string error_of(const std::string& text) {
  try {
    InstanceCatalog::from_json(text);
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

TEST(InstanceCatalogFromJson, ParsesMinimal) {
  auto cat = InstanceCatalog::from_json(kMinimal);
  ASSERT_EQ(cat.all().size(), 1u);
  EXPECT_EQ(cat.all()[0].gpu.name, "a10g");
  EXPECT_DOUBLE_EQ(cat.all()[0].on_demand_price("ap-northeast-2"), 1.006);
}

TEST(InstanceCatalogFromJson, ErrorsNameTheKeyPath) {
  const std::string m = kMinimal;
  EXPECT_EQ(error_of(replace(m, R"("burst_gbps": 10)", R"("burst_gbps": "10")")),
            "instance catalog: instanceTypes[0].network.burst_gbps: expected a number");
  EXPECT_EQ(error_of(replace(m, R"("vcpu": 4, )", "")), "instance catalog: instanceTypes[0].vcpu: missing");
  EXPECT_EQ(error_of(replace(m, R"("interconnect": "pcie")", R"("interconnect": "pci")")),
            "instance catalog: instanceTypes[0].gpu.interconnect: expected \"pcie\" or \"nvlink\", got \"pci\"");
  EXPECT_EQ(error_of(replace(m, R"("quota_bucket": "G")", R"("quota_bucket": "Q")")),
            "instance catalog: instanceTypes[0].quota_bucket: \"Q\" is not in quotaBuckets");
  EXPECT_EQ(error_of(replace(m, R"("families": ["G"])", R"("families": [7])")),
            "instance catalog: quotaBuckets.G.families[0]: expected a string");
  EXPECT_EQ(error_of(replace(m, R"({"us-east-1": 1.006})", R"({"eu-west-1": 1.006})")),
            "instance catalog: instanceTypes[0].on_demand_usd_per_hour.us-east-1: missing (the fallback region)");
  EXPECT_EQ(error_of(replace(m, R"("name": "g5.xlarge")", R"("name": "xlarge")")),
            "instance catalog: instanceTypes[0].name: \"xlarge\" is not of the form "
            "<family><generation>[attrs].<size>");
  EXPECT_NE(error_of("{").find("not valid JSON"), std::string::npos);
}

}  // namespace
}  // namespace eksim::aws
