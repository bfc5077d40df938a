#include "sim/scenario/karpenter_manifest.hpp"

namespace eksim::scenario {

void validate_karpenter_manifest(const Manifest&) {}

bool apply_karpenter_manifest(Cluster&, const Manifest&) { return false; }  // not modelled yet

}  // namespace eksim::scenario
