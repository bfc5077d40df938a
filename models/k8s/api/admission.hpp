#pragma once
// The mutating admission plugins EKS enables that change a pod's spec on create, applied by
// ApiServer::create_pod in kube-apiserver's plugin order (DefaultTolerationSeconds runs before
// ExtendedResourceToleration), so `kubectl describe pod` lists the user's tolerations, then
// not-ready/unreachable, then the extended-resource ones, as lab 001 shows:
//   Tolerations:  gpu-workload:NoSchedule op=Exists
//                 node.kubernetes.io/not-ready:NoExecute op=Exists for 300s
//                 node.kubernetes.io/unreachable:NoExecute op=Exists for 300s
//                 nvidia.com/gpu:NoSchedule op=Exists
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "models/k8s/api/objects.hpp"

namespace eksim::k8s {

// kube-apiserver --default-not-ready-toleration-seconds / --default-unreachable-toleration-seconds.
inline constexpr std::int64_t kDefaultNotReadyTolerationSeconds = 300;
inline constexpr std::int64_t kDefaultUnreachableTolerationSeconds = 300;

// v1helper.IsExtendedResourceName: not native (native = no '/' or a kubernetes.io/ domain) and not
// a quota "requests." name.
bool is_extended_resource_name(std::string_view name);

// plugin/pkg/admission/defaulttolerationseconds: adds
// {node.kubernetes.io/not-ready, Exists, NoExecute, 300s} and the same for unreachable unless a
// toleration with that key (or an empty key) and effect NoExecute (or empty) is already there.
void default_toleration_seconds(PodSpec& spec);

// plugin/pkg/admission/extendedresourcetoleration: for every extended resource requested by a
// container or init container (sorted by name), adds {<resource>, Exists, NoSchedule} unless
// that exact toleration is already there (helper.AddOrUpdateTolerationInPod).
void extended_resource_toleration(PodSpec& spec);

// Both, in the apiserver's order.
void admit_pod(PodSpec& spec);

// admit_pod for the API server's stream of creates. The replicas of a template come in holding
// the same shared tolerations and containers, so they get the same result: the last pod's
// tolerations are handed on, shared, instead of copied and extended once per replica.
class Admission {
 public:
  void admit(PodSpec& spec);

 private:
  struct Last {
    CowVector<Toleration> tolerations_in, tolerations_out;
    CowVector<Container> containers, init_containers;
  };
  std::optional<Last> last_;
};

// `kubectl describe pod` one toleration: "key=value:Effect op=Exists for 300s" (describe.go
// printTolerationsMultilineWithIndent).
std::string describe_toleration(const Toleration& t);

}  // namespace eksim::k8s
