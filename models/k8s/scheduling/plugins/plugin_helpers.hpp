#pragma once
// What several filter and score plugins share (upstream's pluginhelper and the plugins' own
// small helpers). Internal to models/k8s/scheduling.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "models/k8s/scheduling/plugins.hpp"
#include "models/k8s/scheduling/predicates.hpp"

namespace eksim::k8s::plugins {

inline const std::string* label(const Node& node, const std::string& key) {
  auto it = node.meta.labels.find(key);
  return it == node.meta.labels.end() ? nullptr : &it->second;
}

inline FilterResult fail(FilterCode code, const char* plugin, std::string reason) {
  FilterResult r;
  r.code = code;
  r.plugin = plugin;
  r.reasons.push_back(std::move(reason));
  return r;
}

// Does `target` match `term` declared by a pod in namespace owner_ns?
inline bool term_matches(const PodAffinityTerm& term, const std::string& owner_ns, const Pod& target) {
  const bool in_namespaces =
      term.namespaces.empty()
          ? target.meta.ns == owner_ns
          : std::find(term.namespaces.begin(), term.namespaces.end(), target.meta.ns) != term.namespaces.end();
  return in_namespaces && label_selector_matches(term.label_selector, target.meta.labels);
}

inline std::int64_t count_matching(const NodeInfo& n, const LabelSelector& sel, const std::string& ns) {
  std::int64_t c = 0;
  for (const Pod* p : n.pods)
    if (p->meta.ns == ns && label_selector_matches(sel, p->meta.labels)) ++c;
  return c;
}

}  // namespace eksim::k8s::plugins
