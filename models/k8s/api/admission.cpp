#include "models/k8s/api/admission.hpp"

#include <set>

#include "models/k8s/kubelet/node_lifecycle.hpp"

namespace eksim::k8s {

bool is_extended_resource_name(std::string_view name) {
  const bool native = name.find('/') == std::string_view::npos || name.find("kubernetes.io/") != std::string_view::npos;
  return !native && !name.starts_with("requests.");
}

void default_toleration_seconds(PodSpec& spec) {
  bool not_ready = false;
  bool unreachable = false;
  for (const auto& t : spec.tolerations) {
    const bool no_execute = t.effect == kNoExecute || t.effect.empty();
    if ((t.key == kTaintNotReady || t.key.empty()) && no_execute) not_ready = true;
    if ((t.key == kTaintUnreachable || t.key.empty()) && no_execute) unreachable = true;
  }
  if (!not_ready)
    spec.tolerations.push_back(Toleration{kTaintNotReady, "Exists", "", kNoExecute, kDefaultNotReadyTolerationSeconds});
  if (!unreachable)
    spec.tolerations.push_back(
        Toleration{kTaintUnreachable, "Exists", "", kNoExecute, kDefaultUnreachableTolerationSeconds});
}

void extended_resource_toleration(PodSpec& spec) {
  std::set<std::string> resources;  // sets.String.List(): sorted
  for (const auto* list : {&spec.containers, &spec.init_containers})
    for (const auto& c : *list)
      for (const auto& [name, amount] : c.requests.items())
        if (is_extended_resource_name(name)) resources.emplace(name);
  for (const auto& r : resources) {
    Toleration want{r, "Exists", "", kNoSchedule, std::nullopt};
    bool present = false;
    for (const auto& t : spec.tolerations)
      if (t.key == want.key && t.op == want.op && t.value == want.value && t.effect == want.effect) present = true;
    if (!present) spec.tolerations.push_back(std::move(want));
  }
}

void admit_pod(PodSpec& spec) {
  default_toleration_seconds(spec);
  extended_resource_toleration(spec);
}

void Admission::admit(PodSpec& spec) {
  // Holding the inputs keeps their storage alive, so sharing it means the very same lists.
  if (last_ && spec.tolerations.shares_with(last_->tolerations_in) && spec.containers.shares_with(last_->containers) &&
      spec.init_containers.shares_with(last_->init_containers)) {
    spec.tolerations = last_->tolerations_out;
    return;
  }
  Last last{spec.tolerations, {}, spec.containers, spec.init_containers};
  admit_pod(spec);
  last.tolerations_out = spec.tolerations;
  last_ = std::move(last);
}

std::string describe_toleration(const Toleration& t) {
  std::string out = t.key;
  if (!t.value.empty()) out += "=" + t.value;
  if (!t.effect.empty()) out += ":" + t.effect;
  if (t.op == "Exists" && t.value.empty()) {
    if (!t.key.empty() || !t.effect.empty()) out += " ";
    out += "op=Exists";
  }
  if (t.toleration_seconds) out += " for " + std::to_string(*t.toleration_seconds) + "s";
  return out;
}

}  // namespace eksim::k8s
