// libFuzzer target: Kubernetes manifests as `kubectl apply -f` would send them (several YAML
// documents, `kind: List`), through the strict decoder of Pods, Deployments, Jobs, DaemonSets and
// Namespaces and the Karpenter validator (NodePool, EC2NodeClass, NodeClass). Bad input must end
// in an InputError; anything else is a finding.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "sim/scenario/input_error.hpp"
#include "sim/scenario/k8s_manifest.hpp"
#include "sim/scenario/karpenter_manifest.hpp"
#include "sim/scenario/yaml_documents.hpp"
#include "sim/scenario/yaml_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace eksim::scenario;
  const std::string text(reinterpret_cast<const char*>(data), size);
  // Relative `file:` entries resolve against this (absent) directory and fail as missing files.
  const auto file = std::make_shared<const std::string>("/nonexistent-fuzz-dir/manifest.yaml");
  try {
    FileLoader loader;
    for (const auto& doc : parse_yaml_documents(text, *file)) {
      if (!doc || doc.IsNull()) continue;
      parse_manifests(Value(doc, file), loader);  // decodes every kind, Karpenter's too
    }
  } catch (const InputError&) {
    // the expected way to refuse input
  }
  return 0;
}
