#pragma once
// The NCCL a training container runs: the one its PyTorch wheel bundles, read from the image tag
// (pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime -> NCCL 2.21.5), or the container's NCCL_VERSION
// env (eksim's own override, for images whose tag names no PyTorch). What a dropped SYN does
// depends on it (nccl_connect.hpp): src/misc/socket.cc changed in 2.24.3 and 2.27.
#include <optional>
#include <string>
#include <string_view>

#include "models/k8s/api/objects.hpp"

namespace eksim::net {

struct NcclVersion {
  int major = 2, minor = 27, patch = 3;
  std::string cuda;  // "12.4" from the image tag; empty when unknown
  std::string text() const;  // "2.21.5"
  // NCCL's own banner, "2.21.5+cuda12.4" (init.cc "NCCL version %s"); without a CUDA, "2.21.5".
  std::string banner() const;
  int code() const { return major * 10000 + minor * 100 + patch; }  // NCCL_VERSION_CODE
};

// "2.21.5" (a trailing "-1" or "+cuda..." is ignored); nullopt when it is not a version.
std::optional<NcclVersion> parse_nccl_version(std::string_view text);

// The NCCL of the PyTorch release the image tag names: pytorch/pytorch:<torch>-cuda<x.y>-...
// PyTorch 2.5 and 2.6 bundle 2.21.5; 2.7 2.26.2; 2.8 2.27.3; 2.9 and 2.10 2.27.5; 2.11 2.28.9.
std::optional<NcclVersion> nccl_version_of_image(std::string_view image);

// The container's NCCL_VERSION, else its image's, else NCCL 2.27.3 (what eksim modelled first).
NcclVersion nccl_version_of(const k8s::Container& container);

}  // namespace eksim::net
