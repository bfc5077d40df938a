#include "models/k8s/scheduling/pod_classes.hpp"

#include <algorithm>
#include <string_view>

namespace eksim::k8s {

namespace {

void append(std::string& key, const std::string& s) {
  key += std::to_string(s.size());
  key += ':';
  key += s;
}

void append_requirements(std::string& key, const std::vector<NodeSelectorRequirement>& reqs) {
  key += '[';
  for (const auto& r : reqs) {
    append(key, r.key);
    append(key, r.op);
    for (const auto& v : r.values) append(key, v);
    key += ';';
  }
  key += ']';
}

}  // namespace

std::int64_t uid_serial(const std::string& uid) {
  constexpr std::string_view kPrefix = "00000000-0000-4000-8000-";
  if (uid.size() != kPrefix.size() + 12 || std::string_view(uid).substr(0, kPrefix.size()) != kPrefix) return -1;
  std::int64_t n = 0;
  for (std::size_t i = kPrefix.size(); i < uid.size(); ++i) {
    const char ch = uid[i];
    const int d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
    if (d < 0) return -1;
    n = n * 16 + d;
  }
  return n;
}

namespace {
constexpr std::int64_t kMaxSerialMemo = std::int64_t{1} << 22;  // 16 MiB of memo at most
}  // namespace

std::uint32_t* PodClasses::memo(const std::string& uid, bool create) {
  if (uid.empty()) return nullptr;
  if (const std::int64_t n = uid_serial(uid); n >= 0 && n < kMaxSerialMemo) {
    const auto i = static_cast<std::size_t>(n);
    if (i >= by_serial_.size()) {
      if (!create) return nullptr;
      by_serial_.resize(std::max(i + 1, by_serial_.size() * 2), kUnknown);
    }
    return &by_serial_[i];
  }
  if (!create) {
    auto it = by_uid_.find(uid);
    return it == by_uid_.end() ? nullptr : &it->second;
  }
  return &by_uid_.try_emplace(uid, kUnknown).first->second;
}

void PodClasses::forget(const std::string& uid) {
  if (std::uint32_t* m = memo(uid, false)) *m = kUnknown;
  by_uid_.erase(uid);
}

std::optional<std::uint32_t> PodClasses::of(const Pod& pod, std::uint32_t template_id) {
  if (template_id == 0) return of(pod);  // not created through the API server
  auto [it, inserted] = by_template_.try_emplace(template_id, kNone);
  if (inserted) {
    const std::optional<std::uint32_t> c = of(pod);
    it->second = c ? *c : kNone;
  }
  if (it->second == kNone) return std::nullopt;
  return it->second;
}

std::optional<std::uint32_t> PodClasses::of(const Pod& pod) {
  if (const std::uint32_t* m = memo(pod.meta.uid, false); m && *m != kUnknown) {
    if (*m == kNone) return std::nullopt;
    return *m;
  }
  const PodSpec& spec = pod.spec;
  const Affinity& a = spec.affinity;
  bool simple = spec.topology_spread_constraints.empty() && a.pod_affinity_required.empty() &&
                a.pod_anti_affinity_required.empty();
  for (const auto* cs : {&spec.init_containers, &spec.containers})
    for (const auto& c : *cs)
      for (const auto& port : c.ports)
        if (port.host_port > 0) simple = false;
  if (!simple) {
    if (std::uint32_t* m = memo(pod.meta.uid, true)) *m = kNone;
    return std::nullopt;
  }
  // Everything the filters read from an unconstrained pod: NodeUnschedulable and TaintToleration
  // (tolerations), NodeAffinity (nodeSelector, required node affinity), NodeResourcesFit
  // (PodRequests). NodeName is cleared in the representative.
  std::string key;
  const ResourceList requests = pod_requests(spec);
  for (const auto& [name, amount] : requests.items()) {
    append(key, name);
    key += std::to_string(amount);
    key += ',';
  }
  key += '|';
  for (const auto& t : spec.tolerations) {
    append(key, t.key);
    append(key, t.op);
    append(key, t.value);
    append(key, t.effect);
    key += t.toleration_seconds ? std::to_string(*t.toleration_seconds) : "-";
    key += ';';
  }
  key += '|';
  for (const auto& [k, v] : spec.node_selector) {
    append(key, k);
    append(key, v);
  }
  key += '|';
  if (a.node_required) {
    key += 'R';
    for (const auto& term : *a.node_required) {
      append_requirements(key, term.match_expressions);
      append_requirements(key, term.match_fields);
    }
  }
  auto [it, inserted] = by_key_.emplace(key, static_cast<std::uint32_t>(reps_.size()));
  if (inserted) {
    Pod rep = pod;
    rep.spec.node_name.clear();
    reps_.push_back(std::move(rep));
  }
  if (std::uint32_t* m = memo(pod.meta.uid, true)) *m = it->second;
  return it->second;
}

}  // namespace eksim::k8s
