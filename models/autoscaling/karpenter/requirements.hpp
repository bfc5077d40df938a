#pragma once
// Karpenter's label requirement algebra (kubernetes-sigs/karpenter pkg/scheduling/requirement.go
// and requirements.go): a requirement is a set of values or the complement of one, optionally
// bounded by Gt/Lt; requirement sets intersect key by key. NodePools, NodeClaims, pods and
// instance types are all compared through this one representation.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "models/k8s/api/objects.hpp"

namespace eksim::autoscaling::karpenter {

class Requirement {
 public:
  Requirement() = default;
  // operator: In, NotIn, Exists, DoesNotExist, Gt, Lt (Gt/Lt values prevalidated as integers).
  Requirement(std::string key, const std::string& op, const std::vector<std::string>& values = {});

  const std::string& key() const { return key_; }
  // In | NotIn | Exists | DoesNotExist (Gt and Lt are Exists with bounds, as upstream).
  std::string op() const;
  bool has(const std::string& value) const;
  // Number of allowed values; "infinite" (INT64_MAX - excluded) for complements.
  std::int64_t len() const;
  Requirement intersection(const Requirement& other) const;
  // One allowed value for a node label: the smallest value of an In set; "" otherwise.
  std::string any() const;
  const std::set<std::string>& values() const { return values_; }
  bool complement() const { return complement_; }
  // "key In [a b]", "key Exists", "key Exists >4", "key In [a b c] minValues 2" (Go's %s of
  // the upstream type).
  std::string str() const;
  // NodePool requirement minValues: at least this many distinct values among the instance types
  // a NodeClaim may launch (intersections keep the larger).
  const std::optional<std::int64_t>& min_values() const { return min_values_; }
  void set_min_values(std::int64_t n) { min_values_ = n; }

 private:
  std::string key_;
  bool complement_ = true;
  std::set<std::string> values_;
  std::optional<std::int64_t> greater_than_, less_than_;
  std::optional<std::int64_t> min_values_;
};

class Requirements {
 public:
  Requirements() = default;
  static Requirements from_node_selector(const std::vector<k8s::NodeSelectorRequirement>& reqs);
  static Requirements from_labels(const k8s::Labels& labels);
  // nodeSelector plus the first required node-affinity term (NewStrictPodRequirements; upstream
  // relaxes to the next term when the first cannot be met, which is not modelled).
  static Requirements from_pod(const k8s::Pod& pod);

  // Adds (intersects when the key is present).
  void add(const Requirement& r);
  void add(const Requirements& rs);
  bool has(const std::string& key) const { return reqs_.count(key) > 0; }
  // The requirement for key; an undefined key is `Exists` (allows anything).
  Requirement get(const std::string& key) const;
  const Requirement* find(const std::string& key) const;
  bool empty() const { return reqs_.empty(); }
  std::size_t size() const { return reqs_.size(); }
  const std::map<std::string, Requirement>& all() const { return reqs_; }
  void erase(const std::string& key) { reqs_.erase(key); }
  bool has_min_values() const;

  // Errors (joined by "; " as multierr does) when some key both sides define has no common
  // value; "" when they intersect. Undefined keys are allowed.
  std::string intersects(const Requirements& incoming) const;
  // Requirements.Compatible: keys of `incoming` this set does not define are errors ("label %q
  // does not have known values") unless they are in allow_undefined or incoming says NotIn /
  // DoesNotExist; then intersects(). "" when compatible.
  std::string compatible(const Requirements& incoming, const std::set<std::string>& allow_undefined) const;
  // compatible(...).empty() without building the error texts (and their typo hints).
  bool is_compatible(const Requirements& incoming, const std::set<std::string>& allow_undefined) const;
  // Node labels these requirements imply (Requirements.Labels: one value of every In set,
  // skipping restricted labels).
  k8s::Labels labels() const;
  // Sorted requirement strings joined by ", " (hostname left out).
  std::string str() const;

 private:
  std::map<std::string, Requirement> reqs_;
};

// Label domains.
inline constexpr const char* kLabelNodePool = "karpenter.sh/nodepool";
inline constexpr const char* kLabelCapacityType = "karpenter.sh/capacity-type";
inline constexpr const char* kLabelNodeClassOss = "karpenter.k8s.aws/ec2nodeclass";
inline constexpr const char* kLabelRegistered = "karpenter.sh/registered";
inline constexpr const char* kLabelInitialized = "karpenter.sh/initialized";
inline constexpr const char* kAnnotationDoNotDisrupt = "karpenter.sh/do-not-disrupt";
inline constexpr const char* kTaintDisrupted = "karpenter.sh/disrupted";
inline constexpr const char* kTaintUnregistered = "karpenter.sh/unregistered";

// Which provider's well-known labels apply: OSS karpenter-provider-aws (karpenter.k8s.aws/*) or
// EKS Auto Mode (eks.amazonaws.com/*). The other domain's keys are custom labels.
enum class LabelDomain { Oss, AutoMode };
// The instance-* key with the domain's prefix: instance_key(Oss, "instance-category") ==
// "karpenter.k8s.aws/instance-category".
std::string instance_key(LabelDomain d, const char* suffix);
// v1.WellKnownLabels (core + provider): keys pods may require without a NodePool defining them.
const std::set<std::string>& well_known_labels(LabelDomain d);
// Whether Karpenter refuses the key in a NodePool (restricted domains karpenter.sh,
// kubernetes.io, k8s.io, and the provider's own, unless well known or an allowed subdomain).
bool restricted_label(LabelDomain d, const std::string& key);

// Taints.Tolerates: "" or "did not tolerate KEY=VALUE:EFFECT" per untolerated taint, "; "-joined.
std::string tolerates(const std::vector<k8s::Taint>& taints, const std::vector<k8s::Toleration>& tolerations);

}  // namespace eksim::autoscaling::karpenter
