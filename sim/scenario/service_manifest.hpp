#pragma once
// v1 Service manifests -> k8s::Service, with the API server's validation texts for what users get
// wrong most (ports, protocols, types, a clusterIP that is not an address).
#include "models/k8s/api/services.hpp"
#include "sim/scenario/manifest_decoding.hpp"

namespace eksim::scenario::manifest {

// `top` is the object's top-level Fields (metadata already read into `meta`); reads spec and
// allows status.
k8s::Service decode_service(const Ctx& ctx, const Value& obj, Fields& top, k8s::ObjectMeta meta);

}  // namespace eksim::scenario::manifest
