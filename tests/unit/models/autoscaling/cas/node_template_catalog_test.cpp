// Cluster Autoscaler scale-from-zero templates for every catalog type: buildNodeFromTemplate
// reads vCPU, MemoryMb, GPU and Architecture from the instance-type table
// (cloudprovider/aws/ec2_instance_types.go, the same values as the shared EC2 data).
#include <gtest/gtest.h>

#include "models/autoscaling/cas/cloudprovider/aws/node_template.hpp"
#include "models/aws/instance_catalog.hpp"

namespace eksim::autoscaling::cas {
namespace {

TEST(CasNodeTemplate, EveryCatalogType) {
  int built = 0;
  for (const auto& t : aws::InstanceCatalog::builtin().all()) {
    TemplateInput in;
    in.type = &t;
    in.asg_name = "eks-ng-1";
    in.region = "us-east-1";
    in.zone = "us-east-1a";
    in.node_name = "eks-ng-1-asg-1";
    const k8s::Node n = build_node_from_template(in);
    SCOPED_TRACE(t.name);
    EXPECT_EQ(n.capacity.get(k8s::kCpu), t.vcpu * 1000LL);
    EXPECT_EQ(n.capacity.get(k8s::kMemory), t.memory_mib * 1024 * 1024);
    EXPECT_EQ(n.capacity.get(k8s::kNvidiaGpu), t.gpu.count);
    EXPECT_EQ(n.capacity.get(k8s::kPods), 110);
    EXPECT_EQ(n.meta.labels.at(k8s::kLabelInstanceType), t.name);
    EXPECT_EQ(n.meta.labels.at(k8s::kLabelArch), t.arch);
    ++built;
  }
  EXPECT_EQ(built, 1389);
  // Spot checks from the table itself.
  const auto& cat = aws::InstanceCatalog::builtin();
  TemplateInput in;
  in.type = cat.find("p5.48xlarge");
  in.node_name = "n";
  EXPECT_EQ(build_node_from_template(in).capacity.get(k8s::kNvidiaGpu), 8);
  in.type = cat.find("m7g.large");
  EXPECT_EQ(build_node_from_template(in).meta.labels.at(k8s::kLabelArch), "arm64");
  EXPECT_EQ(build_node_from_template(in).capacity.get(k8s::kMemory), 8192LL << 20);
}

}  // namespace
}  // namespace eksim::autoscaling::cas
