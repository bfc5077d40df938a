#pragma once
// Node -> image registry, TCP 443, through the security groups. A registry's address is outside
// the VPC (Docker Hub, nvcr.io, ECR's regional endpoint) unless the VPC has an ECR interface
// endpoint (ecr.dkr, with the s3 gateway endpoint for the layers): then ECR's name resolves to
// the endpoint's ENI in the subnets, behind the endpoint's own security groups. The VPC resolver
// (Route 53 Resolver) is not subject to security groups, so the name always resolves and the
// TCP connect is what fails: containerd's resolver dials with a 30 s timeout (the net.Dialer of
// its default registry transport), so a dropped SYN ends the pull after 30 s with
// "dial tcp IP:443: i/o timeout".
#include <optional>
#include <string>

#include "models/aws/ec2.hpp"
#include "sim/engine/time.hpp"

namespace eksim {

class Cluster;

// "nvidia/cuda:13.0.2-runtime-ubuntu22.04" as containerd normalises it.
struct ImageReference {
  std::string domain;      // docker.io, nvcr.io, 602401143452.dkr.ecr.ap-northeast-2.amazonaws.com
  std::string host;        // the registry API host: registry-1.docker.io for docker.io
  std::string repository;  // library/nginx, nvidia/cuda
  std::string reference;   // tag or digest (latest when neither is given)
  std::string full() const;  // docker.io/nvidia/cuda:13.0.2-runtime-ubuntu22.04
};
ImageReference parse_image_reference(const std::string& image);

bool is_ecr_host(const std::string& host);

// containerd's error, through the kubelet's CRI client, for a pull whose HEAD of the manifest
// cannot connect to ip:443.
std::string registry_dial_timeout_error(const ImageReference& ref, const std::string& ip);

inline constexpr engine::Duration kRegistryDialTimeout = engine::Duration::seconds(30);

// nullopt when the instance reaches the image's registry on TCP 443 (or its security groups are
// not modelled: an instance without groups); else the pull error containerd reports.
std::optional<std::string> registry_pull_error(const Cluster& cluster, const aws::Instance& inst,
                                               const std::string& image);

}  // namespace eksim
