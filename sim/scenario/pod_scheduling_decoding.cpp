// Where a pod may run, as the API server decodes it: node selector requirements and terms, label
// selectors, node and pod (anti-)affinity, tolerations and topology spread constraints.
#include "sim/scenario/pod_spec_decoding.hpp"

#include <limits>
#include <set>

#include "models/k8s/api/quantity.hpp"
#include "sim/engine/numbers.hpp"
#include "sim/scenario/input_limits.hpp"

namespace eksim::scenario::manifest {

// Fields of these types accepted and deliberately not modelled.
const std::vector<const char*> kIgnoredPodAffinityTerm = {"namespaceSelector", "matchLabelKeys", "mismatchLabelKeys"};
const std::vector<const char*> kIgnoredSpread = {"matchLabelKeys", "nodeAffinityPolicy", "nodeTaintsPolicy"};

// ---- selectors, affinity, tolerations ------------------------------------------------------

void check_label_key(const Ctx& ctx, const Value& at, const std::string& path, const std::string& key) {
  for (const auto& m : qualified_name_errors(key)) ctx.invalid(at, fe_invalid(path, quote(key), m));
}

std::vector<k8s::NodeSelectorRequirement> node_requirements(const Ctx& ctx, const Value& v, const std::string& path,
                                                            bool fields) {
  std::vector<k8s::NodeSelectorRequirement> out;
  auto items = list(ctx, v, "NodeSelectorTerm", path, "[]v1.NodeSelectorRequirement");
  for (std::size_t i = 0; i < items.size(); ++i) {
    std::string p = index(path, i);
    Fields f(ctx, items[i], p, "NodeSelectorTerm", "v1.NodeSelectorRequirement");
    k8s::NodeSelectorRequirement r;
    auto kv = f.get("key");
    if (kv) r.key = str(ctx, *kv, "NodeSelectorRequirement", f.path("key"));
    auto ov = f.get("operator");
    if (ov) r.op = str(ctx, *ov, "NodeSelectorRequirement", f.path("operator"));
    auto vv = f.get("values");
    if (vv) r.values = str_list(ctx, *vv, "NodeSelectorRequirement", f.path("values"));
    f.finish();
    const Value& at_op = ov ? *ov : items[i];
    const Value& at_values = vv ? *vv : items[i];
    const Value& at_key = kv ? *kv : items[i];
    if (fields) {
      if (r.op == "In" || r.op == "NotIn") {
        if (r.values.size() != 1)
          ctx.invalid(at_values, fe_required(f.path("values"),
                                             "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"));
      } else {
        ctx.invalid(at_op, fe_invalid(f.path("operator"), quote(r.op), "not a valid selector operator"));
      }
      if (r.key != "metadata.name")
        ctx.invalid(at_key, fe_invalid(f.path("key"), quote(r.key), "not a valid field selector key"));
      for (std::size_t j = 0; j < r.values.size(); ++j)
        for (const auto& m : dns1123_subdomain_errors(r.values[j]))
          ctx.invalid(at_values, fe_invalid(index(f.path("values"), j), quote(r.values[j]), m));
    } else {
      if (r.op == "In" || r.op == "NotIn") {
        if (r.values.empty())
          ctx.invalid(at_values, fe_required(f.path("values"), "must be specified when `operator` is 'In' or 'NotIn'"));
      } else if (r.op == "Exists" || r.op == "DoesNotExist") {
        if (!r.values.empty())
          ctx.invalid(at_values, fe_forbidden(f.path("values"),
                                              "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      } else if (r.op == "Gt" || r.op == "Lt") {
        if (r.values.size() != 1)
          ctx.invalid(at_values, fe_required(f.path("values"), "must be specified single value when `operator` is 'Lt' or 'Gt'"));
      } else {
        ctx.invalid(at_op, fe_invalid(f.path("operator"), quote(r.op), "not a valid selector operator"));
      }
      check_label_key(ctx, at_key, f.path("key"), r.key);
      if (r.op == "In" || r.op == "NotIn")
        for (std::size_t j = 0; j < r.values.size(); ++j)
          for (const auto& m : label_value_errors(r.values[j]))
            ctx.invalid(at_values, fe_invalid(index(f.path("values"), j), quote(r.values[j]), m));
    }
    out.push_back(std::move(r));
  }
  return out;
}

k8s::NodeSelectorTerm node_selector_term(const Ctx& ctx, const Value& v, const std::string& path) {
  Fields f(ctx, v, path, "NodeSelector", "v1.NodeSelectorTerm");
  k8s::NodeSelectorTerm t;
  if (auto e = f.get("matchExpressions")) t.match_expressions = node_requirements(ctx, *e, f.path("matchExpressions"), false);
  if (auto e = f.get("matchFields")) t.match_fields = node_requirements(ctx, *e, f.path("matchFields"), true);
  f.finish();
  return t;
}

k8s::LabelSelector label_selector(const Ctx& ctx, const Value& v, const std::string& path) {
  Fields f(ctx, v, path, "LabelSelector", "v1.LabelSelector");
  k8s::LabelSelector sel;
  if (auto ml = f.get("matchLabels")) sel.match_labels = labels_impl(ctx, *ml, f.path("matchLabels"), "LabelSelector");
  if (auto me = f.get("matchExpressions")) {
    std::string mp = f.path("matchExpressions");
    auto items = list(ctx, *me, "LabelSelector", mp, "[]v1.LabelSelectorRequirement");
    for (std::size_t i = 0; i < items.size(); ++i) {
      std::string p = index(mp, i);
      Fields rf(ctx, items[i], p, "LabelSelector", "v1.LabelSelectorRequirement");
      k8s::LabelSelectorRequirement r;
      auto kv = rf.get("key");
      if (kv) r.key = str(ctx, *kv, "LabelSelectorRequirement", rf.path("key"));
      auto ov = rf.get("operator");
      if (ov) r.op = str(ctx, *ov, "LabelSelectorRequirement", rf.path("operator"));
      auto vv = rf.get("values");
      if (vv) r.values = str_list(ctx, *vv, "LabelSelectorRequirement", rf.path("values"));
      rf.finish();
      const Value& at_values = vv ? *vv : items[i];
      if (r.op == "In" || r.op == "NotIn") {
        if (r.values.empty())
          ctx.invalid(at_values, fe_required(rf.path("values"), "must be specified when `operator` is 'In' or 'NotIn'"));
      } else if (r.op == "Exists" || r.op == "DoesNotExist") {
        if (!r.values.empty())
          ctx.invalid(at_values, fe_forbidden(rf.path("values"),
                                              "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      } else {
        ctx.invalid(ov ? *ov : items[i], fe_invalid(rf.path("operator"), quote(r.op), "not a valid selector operator"));
      }
      check_label_key(ctx, kv ? *kv : items[i], rf.path("key"), r.key);
      for (std::size_t j = 0; j < r.values.size(); ++j)
        for (const auto& m : label_value_errors(r.values[j]))
          ctx.invalid(at_values, fe_invalid(index(rf.path("values"), j), quote(r.values[j]), m));
      sel.match_expressions.push_back(std::move(r));
    }
  }
  f.finish();
  return sel;
}

bool selector_empty(const k8s::LabelSelector& s) { return s.match_labels.empty() && s.match_expressions.empty(); }

k8s::PodAffinityTerm pod_affinity_term(const Ctx& ctx, const Value& v, const std::string& path) {
  Fields f(ctx, v, path, "PodAffinity", "v1.PodAffinityTerm");
  k8s::PodAffinityTerm t;
  if (auto ls = f.get("labelSelector")) t.label_selector = label_selector(ctx, *ls, f.path("labelSelector"));
  auto tk = f.get("topologyKey");
  if (tk) t.topology_key = str(ctx, *tk, "PodAffinityTerm", f.path("topologyKey"));
  auto ns = f.get("namespaces");
  if (ns) t.namespaces = str_list(ctx, *ns, "PodAffinityTerm", f.path("namespaces"));
  f.allow(kIgnoredPodAffinityTerm);
  f.finish();
  for (const auto& n : t.namespaces)
    for (const auto& m : dns1123_label_errors(n)) ctx.invalid(*ns, fe_invalid(f.path("namespace"), quote(n), m));
  if (t.topology_key.empty()) ctx.invalid(tk ? *tk : v, fe_required(f.path("topologyKey"), "can not be empty"));
  check_label_key(ctx, *tk, f.path("topologyKey"), t.topology_key);
  return t;
}

void pod_affinity(const Ctx& ctx, const Value& v, const std::string& path, std::vector<k8s::PodAffinityTerm>& required,
                  std::vector<k8s::WeightedPodAffinityTerm>& preferred) {
  Fields f(ctx, v, path, "Affinity", "v1.PodAffinity");
  if (auto r = f.get("requiredDuringSchedulingIgnoredDuringExecution")) {
    std::string p = f.path("requiredDuringSchedulingIgnoredDuringExecution");
    auto items = list(ctx, *r, "PodAffinity", p, "[]v1.PodAffinityTerm");
    for (std::size_t i = 0; i < items.size(); ++i) required.push_back(pod_affinity_term(ctx, items[i], index(p, i)));
  }
  if (auto r = f.get("preferredDuringSchedulingIgnoredDuringExecution")) {
    std::string p = f.path("preferredDuringSchedulingIgnoredDuringExecution");
    auto items = list(ctx, *r, "PodAffinity", p, "[]v1.WeightedPodAffinityTerm");
    for (std::size_t i = 0; i < items.size(); ++i) {
      Fields wf(ctx, items[i], index(p, i), "PodAffinity", "v1.WeightedPodAffinityTerm");
      k8s::WeightedPodAffinityTerm w;
      auto wv = wf.get("weight");
      if (wv) w.weight = static_cast<std::int32_t>(integer(ctx, *wv, "WeightedPodAffinityTerm", wf.path("weight"), "int32"));
      if (w.weight <= 0 || w.weight > 100)
        ctx.invalid(wv ? *wv : items[i], fe_invalid(wf.path("weight"), std::to_string(w.weight), "must be in the range 1-100"));
      auto tv = wf.get("podAffinityTerm");
      if (!tv) ctx.invalid(items[i], fe_required(wf.path("podAffinityTerm.topologyKey"), "can not be empty"));
      w.term = pod_affinity_term(ctx, *tv, wf.path("podAffinityTerm"));
      wf.finish();
      preferred.push_back(std::move(w));
    }
  }
  f.finish();
}

k8s::Affinity affinity(const Ctx& ctx, const Value& v, const std::string& path) {
  Fields f(ctx, v, path, "PodSpec", "v1.Affinity");
  k8s::Affinity a;
  if (auto na = f.get("nodeAffinity")) {
    Fields nf(ctx, *na, f.path("nodeAffinity"), "Affinity", "v1.NodeAffinity");
    if (auto req = nf.get("requiredDuringSchedulingIgnoredDuringExecution")) {
      std::string p = nf.path("requiredDuringSchedulingIgnoredDuringExecution");
      Fields rf(ctx, *req, p, "NodeAffinity", "v1.NodeSelector");
      std::vector<k8s::NodeSelectorTerm> terms;
      auto tv = rf.get("nodeSelectorTerms");
      if (tv) {
        auto items = list(ctx, *tv, "NodeSelector", rf.path("nodeSelectorTerms"), "[]v1.NodeSelectorTerm");
        for (std::size_t i = 0; i < items.size(); ++i)
          terms.push_back(node_selector_term(ctx, items[i], index(rf.path("nodeSelectorTerms"), i)));
      }
      rf.finish();
      if (terms.empty())
        ctx.invalid(tv ? *tv : *req, fe_required(rf.path("nodeSelectorTerms"), "must have at least one node selector term"));
      a.node_required = std::move(terms);
    }
    if (auto pref = nf.get("preferredDuringSchedulingIgnoredDuringExecution")) {
      std::string p = nf.path("preferredDuringSchedulingIgnoredDuringExecution");
      auto items = list(ctx, *pref, "NodeAffinity", p, "[]v1.PreferredSchedulingTerm");
      for (std::size_t i = 0; i < items.size(); ++i) {
        Fields pf(ctx, items[i], index(p, i), "NodeAffinity", "v1.PreferredSchedulingTerm");
        k8s::PreferredSchedulingTerm t;
        auto wv = pf.get("weight");
        if (wv) t.weight = static_cast<std::int32_t>(integer(ctx, *wv, "PreferredSchedulingTerm", pf.path("weight"), "int32"));
        if (t.weight <= 0 || t.weight > 100)
          ctx.invalid(wv ? *wv : items[i], fe_invalid(pf.path("weight"), std::to_string(t.weight), "must be in the range 1-100"));
        if (auto pv = pf.get("preference")) t.preference = node_selector_term(ctx, *pv, pf.path("preference"));
        pf.finish();
        a.node_preferred.push_back(std::move(t));
      }
    }
    nf.finish();
  }
  if (auto pa = f.get("podAffinity"))
    pod_affinity(ctx, *pa, f.path("podAffinity"), a.pod_affinity_required, a.pod_affinity_preferred);
  if (auto pa = f.get("podAntiAffinity"))
    pod_affinity(ctx, *pa, f.path("podAntiAffinity"), a.pod_anti_affinity_required, a.pod_anti_affinity_preferred);
  f.finish();
  return a;
}

std::vector<k8s::Toleration> tolerations(const Ctx& ctx, const Value& v, const std::string& path) {
  std::vector<k8s::Toleration> out;
  auto items = list(ctx, v, "PodSpec", path, "[]v1.Toleration");
  for (std::size_t i = 0; i < items.size(); ++i) {
    std::string p = index(path, i);
    Fields f(ctx, items[i], p, "PodSpec", "v1.Toleration");
    k8s::Toleration t;
    auto kv = f.get("key");
    if (kv) t.key = str(ctx, *kv, "Toleration", f.path("key"));
    auto ov = f.get("operator");
    if (ov) t.op = str(ctx, *ov, "Toleration", f.path("operator"));
    auto vv = f.get("value");
    if (vv) t.value = str(ctx, *vv, "Toleration", f.path("value"));
    auto ev = f.get("effect");
    if (ev) t.effect = str(ctx, *ev, "Toleration", f.path("effect"));
    if (auto sv = f.get("tolerationSeconds")) t.toleration_seconds = integer(ctx, *sv, "Toleration", f.path("tolerationSeconds"), "int64");
    f.finish();
    const Value& at = items[i];
    // ValidateTolerations, in its order.
    if (!t.key.empty()) check_label_key(ctx, *kv, f.path("key"), t.key);
    if (t.key.empty() && t.op != "Exists")
      ctx.invalid(ov ? *ov : at, fe_invalid(f.path("operator"), quote(t.op),
                                            "operator must be Exists when `key` is empty, which means \"match all values and all keys\""));
    if (t.toleration_seconds && t.effect != k8s::kNoExecute)
      ctx.invalid(ev ? *ev : at, fe_invalid(f.path("effect"), quote(t.effect), "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    if (t.op == "Equal" || t.op.empty()) {
      for (const auto& m : label_value_errors(t.value)) ctx.invalid(vv ? *vv : at, fe_invalid(f.path("operator"), quote(t.value), m));
    } else if (t.op == "Exists") {
      if (!t.value.empty())
        ctx.invalid(vv ? *vv : at, fe_invalid(f.path("operator"), quote(t.value), "value must be empty when `operator` is 'Exists'"));
    } else {
      ctx.invalid(*ov, fe_not_supported(f.path("operator"), t.op, {"Equal", "Exists"}));
    }
    if (!t.effect.empty() && t.effect != k8s::kNoSchedule && t.effect != k8s::kPreferNoSchedule && t.effect != k8s::kNoExecute)
      ctx.invalid(*ev, fe_not_supported(f.path("effect"), t.effect, {"NoSchedule", "PreferNoSchedule", "NoExecute"}));
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<k8s::TopologySpreadConstraint> spread_constraints(const Ctx& ctx, const Value& v, const std::string& path) {
  std::vector<k8s::TopologySpreadConstraint> out;
  auto items = list(ctx, v, "PodSpec", path, "[]v1.TopologySpreadConstraint");
  for (std::size_t i = 0; i < items.size(); ++i) {
    std::string p = index(path, i);
    Fields f(ctx, items[i], p, "PodSpec", "v1.TopologySpreadConstraint");
    k8s::TopologySpreadConstraint c;
    c.max_skew = 0;
    c.when_unsatisfiable.clear();
    auto ms = f.get("maxSkew");
    if (ms) c.max_skew = static_cast<std::int32_t>(integer(ctx, *ms, "TopologySpreadConstraint", f.path("maxSkew"), "int32"));
    auto tk = f.get("topologyKey");
    if (tk) c.topology_key = str(ctx, *tk, "TopologySpreadConstraint", f.path("topologyKey"));
    auto wu = f.get("whenUnsatisfiable");
    if (wu) c.when_unsatisfiable = str(ctx, *wu, "TopologySpreadConstraint", f.path("whenUnsatisfiable"));
    if (auto ls = f.get("labelSelector")) c.label_selector = label_selector(ctx, *ls, f.path("labelSelector"));
    auto md = f.get("minDomains");
    if (md) c.min_domains = static_cast<std::int32_t>(integer(ctx, *md, "TopologySpreadConstraint", f.path("minDomains"), "int32"));
    f.allow(kIgnoredSpread);
    f.finish();
    const Value& at = items[i];
    if (c.max_skew <= 0) ctx.invalid(ms ? *ms : at, fe_invalid(f.path("maxSkew"), std::to_string(c.max_skew), "must be greater than zero"));
    if (c.topology_key.empty()) ctx.invalid(tk ? *tk : at, fe_required(f.path("topologyKey"), "can not be empty"));
    check_label_key(ctx, *tk, f.path("topologyKey"), c.topology_key);
    if (c.when_unsatisfiable != "DoNotSchedule" && c.when_unsatisfiable != "ScheduleAnyway")
      ctx.invalid(wu ? *wu : at, fe_not_supported(f.path("whenUnsatisfiable"), c.when_unsatisfiable, {"DoNotSchedule", "ScheduleAnyway"}));
    for (const auto& prev : out)
      if (prev.topology_key == c.topology_key && prev.when_unsatisfiable == c.when_unsatisfiable)
        ctx.invalid(at, fe_duplicate(index(path, i - 1) + ".{topologyKey, whenUnsatisfiable}",
                                     c.topology_key + ", " + c.when_unsatisfiable));
    if (c.min_domains) {
      if (*c.min_domains <= 0)
        ctx.invalid(*md, fe_invalid(f.path("minDomains"), std::to_string(*c.min_domains), "must be greater than zero"));
      if (c.when_unsatisfiable != "DoNotSchedule")
        ctx.invalid(*md, fe_invalid(f.path("minDomains"), std::to_string(*c.min_domains),
                                    "can only use minDomains if whenUnsatisfiable=DoNotSchedule, not " + c.when_unsatisfiable));
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace eksim::scenario::manifest
