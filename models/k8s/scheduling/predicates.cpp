#include "models/k8s/scheduling/predicates.hpp"

#include <algorithm>
#include <limits>

namespace eksim::k8s {

bool tolerates_taint(const Toleration& t, const Taint& taint) {
  if (!t.effect.empty() && t.effect != taint.effect) return false;
  if (t.key.empty()) return t.op == "Exists";  // validation: empty key requires Exists
  if (t.key != taint.key) return false;
  if (t.op.empty() || t.op == "Equal") return t.value == taint.value;
  return t.op == "Exists";
}

bool tolerations_tolerate_taint(std::span<const Toleration> tolerations, const Taint& taint) {
  return std::any_of(tolerations.begin(), tolerations.end(),
                     [&](const Toleration& t) { return tolerates_taint(t, taint); });
}

std::optional<Taint> find_untolerated_taint(std::span<const Taint> taints,
                                            std::span<const Toleration> tolerations) {
  for (const auto& taint : taints) {
    if (taint.effect != kNoSchedule && taint.effect != kNoExecute) continue;
    if (!tolerations_tolerate_taint(tolerations, taint)) return taint;
  }
  return std::nullopt;
}

int count_untolerated_prefer_no_schedule(std::span<const Taint> taints,
                                         std::span<const Toleration> tolerations) {
  int n = 0;
  for (const auto& taint : taints) {
    if (taint.effect != kPreferNoSchedule) continue;
    // Upstream passes only tolerations whose effect is empty or PreferNoSchedule; tolerates_taint
    // already rejects the others for a PreferNoSchedule taint.
    if (!tolerations_tolerate_taint(tolerations, taint)) ++n;
  }
  return n;
}

std::optional<std::int64_t> parse_go_int64(std::string_view s) {
  if (s.empty()) return std::nullopt;
  bool neg = false;
  if (s[0] == '+' || s[0] == '-') {
    neg = s[0] == '-';
    s.remove_prefix(1);
    if (s.empty()) return std::nullopt;
  }
  // Accumulate negatively so that INT64_MIN parses.
  std::int64_t v = 0;
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    int d = c - '0';
    if (v < (kMin + d) / 10) return std::nullopt;
    v = v * 10 - d;
  }
  if (!neg) {
    if (v == kMin) return std::nullopt;
    v = -v;
  }
  return v;
}

namespace {

bool value_requirement(const std::string& op, const std::vector<std::string>& values,
                       const std::string* label) {
  if (op == "In") return label && std::find(values.begin(), values.end(), *label) != values.end();
  if (op == "NotIn") return !label || std::find(values.begin(), values.end(), *label) == values.end();
  if (op == "Exists") return label != nullptr;
  if (op == "DoesNotExist") return label == nullptr;
  if (op == "Gt" || op == "Lt") {
    if (!label || values.size() != 1) return false;
    auto want = parse_go_int64(values[0]);
    auto have = parse_go_int64(*label);
    if (!want || !have) return false;
    return op == "Gt" ? *have > *want : *have < *want;
  }
  return false;
}

const std::string* find_label(const Labels& labels, const std::string& key) {
  auto it = labels.find(key);
  return it == labels.end() ? nullptr : &it->second;
}

}  // namespace

bool node_requirement_matches(const NodeSelectorRequirement& req, const Labels& labels) {
  return value_requirement(req.op, req.values, find_label(labels, req.key));
}

bool node_selector_term_matches(const NodeSelectorTerm& term, const Node& node) {
  if (term.match_expressions.empty() && term.match_fields.empty()) return false;
  for (const auto& req : term.match_expressions)
    if (!node_requirement_matches(req, node.meta.labels)) return false;
  for (const auto& req : term.match_fields) {
    if (req.key != kFieldMetadataName) return false;
    if (!value_requirement(req.op, req.values, &node.meta.name)) return false;
  }
  return true;
}

bool node_selector_terms_match(std::span<const NodeSelectorTerm> terms, const Node& node) {
  return std::any_of(terms.begin(), terms.end(),
                     [&](const NodeSelectorTerm& t) { return node_selector_term_matches(t, node); });
}

bool pod_matches_node_selector_and_affinity(const PodSpec& spec, const Node& node) {
  for (const auto& [k, v] : spec.node_selector) {
    const std::string* have = find_label(node.meta.labels, k);
    if (!have || *have != v) return false;
  }
  if (spec.affinity.node_required && !node_selector_terms_match(*spec.affinity.node_required, node))
    return false;
  return true;
}

bool label_selector_matches(const LabelSelector& selector, const Labels& labels) {
  for (const auto& [k, v] : selector.match_labels) {
    const std::string* have = find_label(labels, k);
    if (!have || *have != v) return false;
  }
  for (const auto& req : selector.match_expressions) {
    // Label selectors have no Gt/Lt; value_requirement rejects them only via unknown values.
    if (req.op == "Gt" || req.op == "Lt") return false;
    if (!value_requirement(req.op, req.values, find_label(labels, req.key))) return false;
  }
  return true;
}

}  // namespace eksim::k8s
