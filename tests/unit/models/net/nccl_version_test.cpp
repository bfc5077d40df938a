#include "models/net/nccl_version.hpp"

#include <gtest/gtest.h>

namespace eksim::net {
namespace {

TEST(NcclVersion, PyTorchImageTagsNameTheirWheelsNccl) {
  const auto v = nccl_version_of_image("pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->text(), "2.21.5");
  EXPECT_EQ(v->banner(), "2.21.5+cuda12.4");
  EXPECT_EQ(nccl_version_of_image("pytorch/pytorch:2.6.0-cuda12.6-cudnn9-devel")->text(), "2.21.5");
  EXPECT_EQ(nccl_version_of_image("pytorch/pytorch:2.7.1-cuda12.8-cudnn9-runtime")->text(), "2.26.2");
  EXPECT_EQ(nccl_version_of_image("pytorch/pytorch:2.8.0-cuda12.8-cudnn9-runtime")->banner(), "2.27.3+cuda12.8");
  EXPECT_EQ(nccl_version_of_image("docker.io/pytorch/pytorch:2.10.0-cuda13.0-cudnn9-runtime")->text(), "2.27.5");
  EXPECT_FALSE(nccl_version_of_image("pytorch/pytorch:1.13.1-cuda11.6-cudnn8-runtime"));
  EXPECT_FALSE(nccl_version_of_image("nvcr.io/nvidia/pytorch:24.06-py3"));  // NGC's tags are not torch's
  EXPECT_FALSE(nccl_version_of_image("busybox"));
}

TEST(NcclVersion, EnvOverridesTheImageAndOtherImagesGetTheDefault) {
  k8s::Container c;
  c.image = "pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime";
  EXPECT_EQ(nccl_version_of(c).code(), 22105);
  c.env.push_back({"NCCL_VERSION", "2.26.2-1"});
  EXPECT_EQ(nccl_version_of(c).text(), "2.26.2");
  k8s::Container other;
  other.image = "my-registry/trainer:v3";
  EXPECT_EQ(nccl_version_of(other).text(), "2.27.3");
  EXPECT_FALSE(parse_nccl_version("latest"));
  EXPECT_FALSE(parse_nccl_version("3.1.0"));
}

}  // namespace
}  // namespace eksim::net
