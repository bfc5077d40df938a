#pragma once
// The Kubernetes protobuf bodies kubectl 1.32+ sends from its generator commands (`kubectl create
// namespace|configmap|deployment|job`), read into the JSON object the same command sent as JSON
// in kubectl 1.31. The envelope is the `k8s\0` magic and a runtime.Unknown (typeMeta, raw); the
// raw message is decoded by a table of the fields those commands fill, numbered as in
// k8s.io/api's and k8s.io/apimachinery's generated.proto. Fields outside the table are skipped.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace eksim::serve {

// The object, or nullopt when the body is a kind eksim does not decode. Throws
// std::runtime_error with a short reason on a body that is not well-formed protobuf.
std::optional<nlohmann::json> decode_protobuf_object(const std::string& body);

}  // namespace eksim::serve
