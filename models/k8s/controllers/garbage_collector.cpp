#include "models/k8s/controllers/garbage_collector.hpp"

#include "models/k8s/kubelet/kubelet.hpp"

namespace eksim::k8s {

void delete_dependents(ApiServer& api, Kubelet* kubelet, const std::vector<PodId>& pods) {
  for (PodId p : pods) {
    const PodRecord& r = api.pod(p);
    if (r.deleted || r.terminating) continue;
    if (kubelet) kubelet->delete_pod(p);
    else api.remove_pod(p);
  }
}

}  // namespace eksim::k8s
