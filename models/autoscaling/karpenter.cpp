#include "models/autoscaling/karpenter.hpp"

namespace eksim::autoscaling {

std::unique_ptr<Controller> make_karpenter(Cluster&) { return nullptr; }  // not modelled yet

}  // namespace eksim::autoscaling
