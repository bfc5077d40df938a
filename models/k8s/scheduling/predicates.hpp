#pragma once
// Matching rules shared by the scheduler plugins, the kubelet admission check, Cluster Autoscaler
// and Karpenter: taints against tolerations, node selectors against node labels, label selectors
// against pod labels. Pure functions over models/k8s/api/objects.hpp.
#include <optional>
#include <span>
#include <string_view>

#include "models/k8s/api/objects.hpp"

namespace eksim::k8s {

// Toleration.ToleratesTaint (k8s.io/api/core/v1/toleration.go) with the API validation folded
// in: a non-empty effect must equal the taint's effect (empty matches all); a non-empty key must
// equal the taint's key; an empty key is only valid with Exists and then matches every key;
// Equal or an empty operator compares values, Exists ignores them; any other operator matches
// nothing.
bool tolerates_taint(const Toleration& toleration, const Taint& taint);
bool tolerations_tolerate_taint(std::span<const Toleration> tolerations, const Taint& taint);

// The filter's view of taints (v1helper.FindMatchingUntoleratedTaint with
// DoNotScheduleTaintsFilterFunc): the first NoSchedule or NoExecute taint, in the node's order,
// that no toleration tolerates. PreferNoSchedule never filters; it only lowers the score.
std::optional<Taint> find_untolerated_taint(std::span<const Taint> taints,
                                            std::span<const Toleration> tolerations);

// Number of PreferNoSchedule taints not tolerated (TaintToleration score, before normalizing).
int count_untolerated_prefer_no_schedule(std::span<const Taint> taints,
                                         std::span<const Toleration> tolerations);

// One matchExpressions entry against node labels: In, NotIn (absent key matches), Exists,
// DoesNotExist, Gt, Lt (label and the single value must both parse as base-10 int64, as
// strconv.ParseInt; otherwise no match). Unknown operators match nothing.
bool node_requirement_matches(const NodeSelectorRequirement& req, const Labels& labels);
// A term ANDs its expressions and fields; an empty term matches nothing (upstream
// nodeaffinity.NewNodeSelector drops empty terms). match_fields supports metadata.name only.
bool node_selector_term_matches(const NodeSelectorTerm& term, const Node& node);
// Terms are ORed; an empty list matches nothing.
bool node_selector_terms_match(std::span<const NodeSelectorTerm> terms, const Node& node);
// nodeSelector plus requiredDuringScheduling node affinity (NodeAffinity filter).
bool pod_matches_node_selector_and_affinity(const PodSpec& spec, const Node& node);

// LabelSelector against labels. An empty selector matches everything (the model cannot tell a
// nil selector, which upstream matches nothing, from an empty one).
bool label_selector_matches(const LabelSelector& selector, const Labels& labels);

// Go's strconv.ParseInt(s, 10, 64): optional sign, decimal digits, no spaces, no overflow.
std::optional<std::int64_t> parse_go_int64(std::string_view s);

}  // namespace eksim::k8s
