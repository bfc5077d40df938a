#include "models/autoscaling/karpenter/requirements.hpp"

#include <algorithm>
#include <climits>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "models/k8s/scheduling/predicates.hpp"

namespace eksim::autoscaling::karpenter {

namespace {

bool within(const std::string& value, const std::optional<std::int64_t>& gt, const std::optional<std::int64_t>& lt) {
  if (!gt && !lt) return true;
  auto v = k8s::parse_go_int64(value);  // strconv.Atoi: non-integers are outside any bound
  if (!v) return false;
  if (gt && *gt >= *v) return false;
  if (lt && *lt <= *v) return false;
  return true;
}

// Levenshtein distance as upstream's editDistance computes it (it skips the first character of
// both strings, a quirk kept so hints match).
int edit_distance(const std::string& s, const std::string& t) {
  const std::size_t m = s.size(), n = t.size();
  if (m == 0) return static_cast<int>(n);
  if (n == 0) return static_cast<int>(m);
  std::vector<int> prev(n, 0), cur(n, 0);
  for (std::size_t j = 1; j < n; ++j) prev[j] = static_cast<int>(j);
  for (std::size_t i = 1; i < m; ++i) {
    for (std::size_t j = 1; j < n; ++j) {
      int diff = s[i] != t[j] ? 1 : 0;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + diff});
    }
    std::swap(prev, cur);
  }
  return prev[n - 1];
}

std::string suffix_of(const std::string& key) {
  auto slash = key.find('/');
  return slash == std::string::npos ? key : key.substr(slash + 1);
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// labelHint; upstream walks Go sets in random order, here in sorted order so the text is stable.
std::string label_hint(const Requirements& r, const std::string& key, const std::set<std::string>& allowed) {
  auto check = [&](const std::string& known) {
    return known.find(key) != std::string::npos || edit_distance(key, known) < static_cast<int>(known.size()) / 5 ||
           ends_with(known, suffix_of(key));
  };
  for (const auto& known : allowed)
    if (check(known)) return " (typo of \"" + known + "\"?)";
  for (const auto& [existing, req] : r.all())
    if (check(existing)) return " (typo of \"" + existing + "\"?)";
  return "";
}

}  // namespace

Requirement::Requirement(std::string key, const std::string& op, const std::vector<std::string>& values) : key_(std::move(key)) {
  complement_ = !(op == "In" || op == "DoesNotExist");
  if (op == "In" || op == "NotIn") values_.insert(values.begin(), values.end());
  if (op == "Gt" && !values.empty()) greater_than_ = k8s::parse_go_int64(values[0]);
  if (op == "Lt" && !values.empty()) less_than_ = k8s::parse_go_int64(values[0]);
}

std::string Requirement::op() const {
  if (complement_) return values_.empty() ? "Exists" : "NotIn";
  return values_.empty() ? "DoesNotExist" : "In";
}

bool Requirement::has(const std::string& value) const {
  bool in = values_.count(value) > 0;
  return (complement_ ? !in : in) && within(value, greater_than_, less_than_);
}

std::int64_t Requirement::len() const {
  if (complement_) return INT64_MAX - static_cast<std::int64_t>(values_.size());
  return static_cast<std::int64_t>(values_.size());
}

Requirement Requirement::intersection(const Requirement& o) const {
  Requirement out;
  out.key_ = key_;
  out.complement_ = complement_ && o.complement_;
  std::optional<std::int64_t> gt = greater_than_, lt = less_than_;
  if (o.greater_than_ && (!gt || *o.greater_than_ > *gt)) gt = o.greater_than_;
  if (o.less_than_ && (!lt || *o.less_than_ < *lt)) lt = o.less_than_;
  if (gt && lt && *gt >= *lt) return Requirement(key_, "DoesNotExist");
  if (complement_ && o.complement_) {
    out.values_ = values_;
    out.values_.insert(o.values_.begin(), o.values_.end());
  } else if (complement_) {
    for (const auto& v : o.values_)
      if (!values_.count(v)) out.values_.insert(v);
  } else if (o.complement_) {
    for (const auto& v : values_)
      if (!o.values_.count(v)) out.values_.insert(v);
  } else {
    for (const auto& v : values_)
      if (o.values_.count(v)) out.values_.insert(v);
  }
  std::erase_if(out.values_, [&](const std::string& v) { return !within(v, gt, lt); });
  if (out.complement_) {
    out.greater_than_ = gt;
    out.less_than_ = lt;
  }
  if (min_values_ || o.min_values_) out.min_values_ = std::max(min_values_.value_or(0), o.min_values_.value_or(0));
  return out;
}

std::string Requirement::any() const {
  if (op() == "In") return *values_.begin();
  return "";
}

std::string Requirement::str() const {
  std::string o = op();
  std::string s;
  if (o == "Exists" || o == "DoesNotExist") {
    s = key_ + " " + o;
  } else {
    std::vector<std::string> vals(values_.begin(), values_.end());
    if (vals.size() > 5) {
      std::size_t n = vals.size();
      vals.resize(5);
      vals.push_back("and " + std::to_string(n - 5) + " others");
    }
    s = key_ + " " + o + " [" + fmt::format("{}", fmt::join(vals, " ")) + "]";
  }
  if (greater_than_) s += " >" + std::to_string(*greater_than_);
  if (less_than_) s += " <" + std::to_string(*less_than_);
  if (min_values_) s += " minValues " + std::to_string(*min_values_);
  return s;
}

bool Requirements::has_min_values() const {
  for (const auto& [k, r] : reqs_)
    if (r.min_values()) return true;
  return false;
}

Requirements Requirements::from_node_selector(const std::vector<k8s::NodeSelectorRequirement>& reqs) {
  Requirements r;
  for (const auto& q : reqs) r.add(Requirement(q.key, q.op, q.values));
  return r;
}

Requirements Requirements::from_labels(const k8s::Labels& labels) {
  Requirements r;
  for (const auto& [k, v] : labels) r.add(Requirement(k, "In", {v}));
  return r;
}

Requirements Requirements::from_pod(const k8s::Pod& pod) {
  Requirements r = from_labels(pod.spec.node_selector);
  const auto& req = pod.spec.affinity.node_required;
  if (req && !req->empty()) r.add(from_node_selector((*req)[0].match_expressions));
  return r;
}

void Requirements::add(const Requirement& r) {
  auto it = reqs_.find(r.key());
  if (it == reqs_.end()) reqs_.emplace(r.key(), r);
  else it->second = r.intersection(it->second);
}

void Requirements::add(const Requirements& rs) {
  for (const auto& [k, r] : rs.reqs_) add(r);
}

Requirement Requirements::get(const std::string& key) const {
  auto it = reqs_.find(key);
  if (it == reqs_.end()) return Requirement(key, "Exists");
  return it->second;
}

const Requirement* Requirements::find(const std::string& key) const {
  auto it = reqs_.find(key);
  return it == reqs_.end() ? nullptr : &it->second;
}

std::string Requirements::intersects(const Requirements& incoming) const {
  std::vector<std::string> errs;
  // Walk the smaller map: instance types carry ~20 keys, NodeClaims a handful.
  const bool mine_smaller = reqs_.size() <= incoming.reqs_.size();
  const auto& small = mine_smaller ? reqs_ : incoming.reqs_;
  const auto& big = mine_smaller ? incoming.reqs_ : reqs_;
  for (const auto& [key, a] : small) {
    auto it = big.find(key);
    if (it == big.end()) continue;
    const Requirement& existing = mine_smaller ? a : it->second;
    const Requirement& in = mine_smaller ? it->second : a;
    if (existing.intersection(in).len() != 0) continue;
    std::string io = in.op(), eo = existing.op();
    if ((io == "NotIn" || io == "DoesNotExist") && (eo == "NotIn" || eo == "DoesNotExist")) continue;
    errs.push_back("key " + key + ", " + in.str() + " not in " + existing.str());
  }
  return fmt::format("{}", fmt::join(errs, "; "));
}

bool Requirements::is_compatible(const Requirements& incoming, const std::set<std::string>& allow_undefined) const {
  for (const auto& [key, r] : incoming.reqs_) {
    if (allow_undefined.count(key) || has(key)) continue;
    std::string o = r.op();
    if (o != "NotIn" && o != "DoesNotExist") return false;
  }
  return intersects(incoming).empty();
}

std::string Requirements::compatible(const Requirements& incoming, const std::set<std::string>& allow_undefined) const {
  std::vector<std::string> errs;
  for (const auto& [key, r] : incoming.reqs_) {
    if (allow_undefined.count(key)) continue;
    std::string o = r.op();
    if (has(key) || o == "NotIn" || o == "DoesNotExist") continue;
    errs.push_back("label \"" + key + "\" does not have known values" + label_hint(*this, key, allow_undefined));
  }
  std::string inter = intersects(incoming);
  if (!inter.empty()) errs.push_back(inter);
  return fmt::format("{}", fmt::join(errs, "; "));
}

k8s::Labels Requirements::labels() const {
  k8s::Labels out;
  for (const auto& [key, r] : reqs_) {
    if (key == k8s::kLabelHostname) continue;
    std::string v = r.any();
    if (!v.empty()) out[key] = v;
  }
  return out;
}

std::string Requirements::str() const {
  std::vector<std::string> parts;
  for (const auto& [key, r] : reqs_)
    if (key != k8s::kLabelHostname) parts.push_back(r.str());
  std::sort(parts.begin(), parts.end());
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::string instance_key(LabelDomain d, const char* suffix) {
  return std::string(d == LabelDomain::Oss ? "karpenter.k8s.aws/" : "eks.amazonaws.com/") + suffix;
}

const std::set<std::string>& well_known_labels(LabelDomain d) {
  // sigs.k8s.io/karpenter pkg/apis/v1 WellKnownLabels, plus the provider's instance labels
  // (karpenter-provider-aws pkg/apis/v1 labels.go; EKS Auto Mode's eks.amazonaws.com/* set).
  static const std::vector<std::string> core{kLabelNodePool, k8s::kLabelZone, k8s::kLabelRegion, k8s::kLabelInstanceType,
                                             k8s::kLabelArch, k8s::kLabelOs, kLabelCapacityType,
                                             "node.kubernetes.io/windows-build", "topology.k8s.aws/zone-id"};
  static const std::vector<const char*> instance{
      "instance-hypervisor", "instance-encryption-in-transit-supported", "instance-category", "instance-family",
      "instance-generation", "instance-local-nvme", "instance-size", "instance-cpu", "instance-cpu-manufacturer",
      "instance-memory", "instance-ebs-bandwidth", "instance-network-bandwidth", "instance-gpu-name",
      "instance-gpu-manufacturer", "instance-gpu-count", "instance-gpu-memory", "instance-accelerator-name",
      "instance-accelerator-manufacturer", "instance-accelerator-count", "instance-capability-flex"};
  auto build = [&](LabelDomain dom) {
    std::set<std::string> s(core.begin(), core.end());
    for (const char* i : instance) s.insert(instance_key(dom, i));
    if (dom == LabelDomain::AutoMode) s.insert("eks.amazonaws.com/compute-type");
    return s;
  };
  static const std::set<std::string> oss = build(LabelDomain::Oss), automode = build(LabelDomain::AutoMode);
  return d == LabelDomain::Oss ? oss : automode;
}

bool restricted_label(LabelDomain d, const std::string& key) {
  if (well_known_labels(d).count(key)) return false;
  auto slash = key.find('/');
  if (slash == std::string::npos) return false;
  std::string domain = key.substr(0, slash);
  // pkg/apis/v1 LabelDomainExceptions.
  for (const char* ok : {"kops.k8s.io", "node.kubernetes.io", "node-restriction.kubernetes.io"})
    if (domain == ok || ends_with(domain, std::string(".") + ok)) return false;
  std::vector<std::string> restricted{"kubernetes.io", "k8s.io", "karpenter.sh"};
  restricted.push_back(d == LabelDomain::Oss ? "karpenter.k8s.aws" : "eks.amazonaws.com");
  for (const auto& r : restricted)
    if (domain == r || ends_with(domain, "." + r)) return true;
  return false;
}

std::string tolerates(const std::vector<k8s::Taint>& taints, const std::vector<k8s::Toleration>& tolerations) {
  std::vector<std::string> errs;
  for (const auto& t : taints)
    if (!k8s::tolerations_tolerate_taint(tolerations, t)) errs.push_back("did not tolerate " + t.key + "=" + t.value + ":" + t.effect);
  return fmt::format("{}", fmt::join(errs, "; "));
}

}  // namespace eksim::autoscaling::karpenter
