// libFuzzer target: a request body `eksim serve` reads as kubectl 1.32's protobuf (the k8s
// envelope, runtime.Unknown, the generated messages of create namespace|configmap|deployment|job).
// Any bytes must give an object, nullopt or std::runtime_error, and the object must serialize.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "sim/serve/protobuf_body.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string body(reinterpret_cast<const char*>(data), size);
  try {
    if (auto o = eksim::serve::decode_protobuf_object(body))
      (void)o->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  } catch (const std::runtime_error&) {
  }
  return 0;
}
