#include "sim/scenario/k8s_manifest.hpp"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <limits>
#include <set>
#include <string_view>

#include "models/k8s/api/quantity.hpp"
#include "models/k8s/scheduling/predicates.hpp"
#include "sim/engine/numbers.hpp"
#include "sim/scenario/crd_manifest.hpp"
#include "sim/scenario/controller_deployment.hpp"
#include "sim/scenario/k8s_syntax.hpp"
#include "sim/scenario/karpenter_manifest.hpp"
#include "sim/scenario/pod_spec_decoding.hpp"
#include "sim/scenario/run_annotations.hpp"
#include "sim/scenario/service_manifest.hpp"

namespace eksim::scenario {

using namespace manifest;

namespace {

// ---- the allow-list: standard fields accepted and deliberately not modelled --------------
// kubectl would accept these, so rejecting them would be wrong; the simulator has no behaviour
// for them (storage, identity, probes, DNS, security, rollout pacing, ...). These are the object
// and workload kinds'; the pod spec's are at the top of pod_spec_decoding.cpp.

const std::vector<const char*> kIgnoredObjectMeta = {
    "uid", "resourceVersion", "generation", "creationTimestamp", "deletionTimestamp",
    "deletionGracePeriodSeconds", "ownerReferences", "finalizers", "managedFields", "selfLink"};
const std::vector<const char*> kIgnoredDeploymentSpec = {"strategy", "revisionHistoryLimit", "progressDeadlineSeconds",
                                                         "minReadySeconds", "paused"};
const std::vector<const char*> kIgnoredJobSpec = {
    "ttlSecondsAfterFinished", "activeDeadlineSeconds", "podFailurePolicy", "suspend", "backoffLimitPerIndex",
    "maxFailedIndexes", "podReplacementPolicy", "successPolicy", "managedBy"};
const std::vector<const char*> kIgnoredDaemonSetSpec = {"updateStrategy", "minReadySeconds", "revisionHistoryLimit"};

// ---- metadata --------------------------------------------------------------------------

enum class NameRule { Subdomain, Label };

k8s::ObjectMeta object_meta(const Ctx& ctx, const Value& obj, const std::optional<Value>& v, NameRule rule,
                            bool namespaced) {
  k8s::ObjectMeta meta;
  if (!v) obj.fail("resource name may not be empty");
  Fields f(ctx, *v, "metadata", ctx.ref.kind.c_str(), "v1.ObjectMeta");
  auto nv = f.get("name");
  if (nv) meta.name = str(ctx, *nv, "ObjectMeta", "metadata.name");
  auto gv = f.get("generateName");
  if (meta.name.empty()) {
    if (gv) gv->fail("cannot use generate name with apply");
    v->fail("resource name may not be empty");
  }
  const auto errs = rule == NameRule::Label ? dns1123_label_errors(meta.name) : dns1123_subdomain_errors(meta.name);
  for (const auto& m : errs) ctx.invalid(*nv, fe_invalid("metadata.name", quote(meta.name), m));
  auto nsv = f.get("namespace");
  if (nsv) meta.ns = str(ctx, *nsv, "ObjectMeta", "metadata.namespace");
  if (!namespaced) meta.ns.clear();  // kubectl drops a namespace on cluster-scoped objects
  else if (meta.ns.empty()) meta.ns = "default";
  else
    for (const auto& m : dns1123_label_errors(meta.ns)) ctx.invalid(*nsv, fe_invalid("metadata.namespace", quote(meta.ns), m));
  if (auto lv = f.get("labels")) meta.labels = labels_impl(ctx, *lv, "metadata.labels", "ObjectMeta");
  if (auto av = f.get("annotations")) meta.annotations = annotations(ctx, *av, "metadata.annotations");
  f.allow(kIgnoredObjectMeta);
  f.finish();
  return meta;
}

// The eksim.io annotations of a pod or pod template (metadata at meta_v), decoded; a value that
// does not decode is an invalid field, located at that value.
k8s::RunAnnotations run_annotations(const Ctx& ctx, const k8s::Labels& annotations, const Value& meta_v,
                                    const std::string& path) {
  k8s::RunAnnotations run;
  auto err = decode_run_annotations(annotations, path, run);
  if (!err) return run;
  const YAML::Node& a = meta_v.node()["annotations"];
  ctx.invalid(a.IsMap() && a[err->key] ? Value(a[err->key], meta_v.file_ptr()) : meta_v, err->field_error);
}

k8s::PodTemplate pod_template(const Ctx& ctx, const Value& spec_node, std::optional<Value> v, const std::string& path,
                              const std::string& ns) {
  if (!v) ctx.invalid(spec_node, fe_required(child(path, "spec.containers")));
  Fields f(ctx, *v, path, "Spec", "v1.PodTemplateSpec");
  k8s::PodTemplate t;
  if (auto mv = f.get("metadata")) {
    std::string mp = f.path("metadata");
    Fields mf(ctx, *mv, mp, "PodTemplateSpec", "v1.ObjectMeta");
    if (auto lv = mf.get("labels")) t.meta.labels = labels_impl(ctx, *lv, child(mp, "labels"), "ObjectMeta");
    if (auto av = mf.get("annotations")) t.meta.annotations = annotations(ctx, *av, child(mp, "annotations"));
    mf.allow({"name", "generateName", "namespace"});
    mf.allow(kIgnoredObjectMeta);
    mf.finish();
  }
  t.meta.ns = ns;
  auto sv = f.get("spec");
  if (!sv) ctx.invalid(*v, fe_required(f.path("spec.containers")));
  t.spec = pod_spec(ctx, *sv, f.path("spec"));
  f.finish();
  if (auto mv = f.get("metadata")) t.run = run_annotations(ctx, t.meta.annotations, *mv, child(f.path("metadata"), "annotations"));
  return t;
}

// Deployment and DaemonSet: selector required, non-empty and matching the template labels.
k8s::LabelSelector owner_selector(const Ctx& ctx, Fields& f, const Value& spec_node, const k8s::PodTemplate& tmpl,
                                  const std::optional<Value>& tv, const std::optional<Value>& sv, const char* kind_lower) {
  if (!sv) ctx.invalid(spec_node, fe_required("spec.selector"));
  k8s::LabelSelector sel = label_selector(ctx, *sv, f.path("selector"));
  if (selector_empty(sel))
    ctx.invalid(*sv, fe_invalid("spec.selector", "{}", std::string("empty selector is invalid for ") + kind_lower));
  if (!k8s::label_selector_matches(sel, tmpl.meta.labels))
    ctx.invalid(tv ? *tv : spec_node,
                fe_invalid("spec.template.metadata.labels", json_map(tmpl.meta.labels), "`selector` does not match template `labels`"));
  return sel;
}

void require_restart_always(const Ctx& ctx, const Value& at, const k8s::PodTemplate& t) {
  if (t.spec.restart_policy != "Always")
    ctx.invalid(at, fe_not_supported("spec.template.spec.restartPolicy", t.spec.restart_policy, {"Always"}));
}

// ---- PodDisruptionBudget, ConfigMap ---------------------------------------------------------

// intstr.IntOrString as eksim models it, a pod count: a JSON number decodes as int32 (anything
// else that is no string does not decode); a string that is no count (a percentage) is kept
// as a remark for the run, and the field as unset.
std::optional<std::int64_t> pdb_count(const Ctx& ctx, const Value& v, const char* key, const std::string& path,
                                      std::vector<std::string>& unsupported) {
  JsonType t = json_type(v);
  if (t == JsonType::Number) integer(ctx, v, "PodDisruptionBudgetSpec", path, "int32");
  else if (t != JsonType::String) type_error(ctx, v, t, "PodDisruptionBudgetSpec", path, "intstr.IntOrString");
  const std::string& text = v.node().Scalar();
  // A quoted count beyond int32 is no count the API server would keep.
  auto n = engine::parse_integer<std::int32_t>(text);
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || !n.ok()) {
    unsupported.push_back(std::string("eksim models spec.") + key + " as a pod count only, got \"" + text + "\"");
    return std::nullopt;
  }
  return std::int64_t{n.value};
}

PdbObject decode_pdb(const Ctx& ctx, const Value& v, Fields& top) {
  PdbObject out;
  k8s::ObjectMeta meta = object_meta(ctx, v, top.get("metadata"), NameRule::Subdomain, true);
  out.pdb.name = meta.name;
  out.pdb.ns = meta.ns;
  top.allow({"status"});
  if (auto sv = top.get("spec")) {
    Fields f(ctx, *sv, "spec", "PodDisruptionBudget", "v1.PodDisruptionBudgetSpec");
    if (auto x = f.get("minAvailable")) out.pdb.min_available = pdb_count(ctx, *x, "minAvailable", f.path("minAvailable"), out.unsupported);
    if (auto x = f.get("maxUnavailable"))
      out.pdb.max_unavailable = pdb_count(ctx, *x, "maxUnavailable", f.path("maxUnavailable"), out.unsupported);
    if (auto sel = f.get("selector")) out.pdb.selector = label_selector(ctx, *sel, f.path("selector"));
    f.allow({"unhealthyPodEvictionPolicy"});
    f.finish();
  }
  top.finish();
  return out;
}

ConfigMapObject decode_config_map(const Ctx& ctx, const Value& v, Fields& top) {
  ConfigMapObject out;
  out.meta = object_meta(ctx, v, top.get("metadata"), NameRule::Subdomain, true);
  if (auto dv = top.get("data"))
    for (const auto& [k, val] : string_map_entries(ctx, *dv, "ConfigMap", "data"))
      out.data[k.node().Scalar()] = val.node().IsScalar() ? val.node().Scalar() : YAML::Dump(val.node());
  top.allow({"binaryData", "immutable"});
  top.finish();
  return out;
}

// Karpenter's and Auto Mode's kinds (karpenter_manifest.hpp), and by name the kinds eksim does
// not model.
void decode_other(const Value& v, Manifest& m) {
  if (m.api_version == "apiextensions.k8s.io/v1" && m.kind == "CustomResourceDefinition") {
    m.object = decode_crd(v);
    return;
  }
  if (m.api_version == "karpenter.sh/v1" && m.kind == "NodePool") m.object = decode_node_pool(v);
  else if (m.api_version == "karpenter.k8s.aws/v1" && m.kind == "EC2NodeClass") m.object = decode_ec2_node_class(v);
  else if (m.api_version == "eks.amazonaws.com/v1" && m.kind == "NodeClass") m.object = decode_auto_node_class(v);
  else {
    YAML::Node md = v.node()["metadata"];
    YAML::Node ns = md && md.IsMap() ? md["namespace"] : YAML::Node();
    m.object = OtherObject{raw_name(v), ns && ns.IsScalar() ? ns.Scalar() : ""};
  }
  m.object_json = yaml_to_json(v.node()).dump();
}

// ---- kinds -------------------------------------------------------------------------------

struct KindInfo {
  const char* group_version;
  const char* kind;
};

// Kinds the simulated API server serves (EKS built-ins plus the Karpenter and Auto Mode CRDs);
// anything else is "no matches for kind", as kubectl says when a CRD is not installed.
constexpr KindInfo kKnownKinds[] = {
    {"v1", "Pod"}, {"v1", "Namespace"}, {"v1", "List"}, {"v1", "ConfigMap"}, {"v1", "Secret"}, {"v1", "Service"},
    {"v1", "ServiceAccount"}, {"v1", "PersistentVolumeClaim"}, {"v1", "LimitRange"}, {"v1", "ResourceQuota"},
    {"apps/v1", "Deployment"}, {"apps/v1", "DaemonSet"}, {"apps/v1", "StatefulSet"}, {"apps/v1", "ReplicaSet"},
    {"batch/v1", "Job"}, {"batch/v1", "CronJob"},
    {"policy/v1", "PodDisruptionBudget"},
    {"scheduling.k8s.io/v1", "PriorityClass"},
    {"node.k8s.io/v1", "RuntimeClass"},
    {"storage.k8s.io/v1", "StorageClass"},
    {"rbac.authorization.k8s.io/v1", "Role"}, {"rbac.authorization.k8s.io/v1", "ClusterRole"},
    {"rbac.authorization.k8s.io/v1", "RoleBinding"}, {"rbac.authorization.k8s.io/v1", "ClusterRoleBinding"},
    {"coordination.k8s.io/v1", "Lease"},
    {"admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration"},
    {"admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration"},
    {"apiregistration.k8s.io/v1", "APIService"},
    {"apiextensions.k8s.io/v1", "CustomResourceDefinition"},
    {"networking.k8s.io/v1", "Ingress"}, {"networking.k8s.io/v1", "IngressClass"}, {"networking.k8s.io/v1", "NetworkPolicy"},
    {"autoscaling/v2", "HorizontalPodAutoscaler"},
    {"karpenter.sh/v1", "NodePool"}, {"karpenter.sh/v1", "NodeClaim"},
    {"karpenter.k8s.aws/v1", "EC2NodeClass"},
    {"eks.amazonaws.com/v1", "NodeClass"},
};

bool known_kind(const std::string& gv, const std::string& kind) {
  return std::any_of(std::begin(kKnownKinds), std::end(kKnownKinds),
                     [&](const KindInfo& k) { return gv == k.group_version && kind == k.kind; });
}

// A kind one of the CRDs read before it declares (a file with a CRD and then its objects).
bool declared_by_crd(const std::vector<Manifest>& before, const std::string& gv, const std::string& kind) {
  return std::any_of(before.begin(), before.end(), [&](const Manifest& m) {
    const auto* crd = std::get_if<k8s::CustomResourceDefinition>(&m.object);
    return crd && crd->kind == kind && crd->serves(k8s::split_api_version(gv).second) &&
           crd->group == k8s::split_api_version(gv).first;
  });
}

std::string version_of(const std::string& gv) {
  auto slash = gv.find('/');
  return slash == std::string::npos ? gv : gv.substr(slash + 1);
}


// ---- workloads -----------------------------------------------------------------------------

k8s::Pod decode_pod(const Ctx& ctx, const Value& v, Fields& top) {
  k8s::Pod pod;
  pod.meta = object_meta(ctx, v, top.get("metadata"), NameRule::Subdomain, true);
  auto sv = top.get("spec");
  if (!sv) ctx.invalid(v, fe_required("spec.containers"));
  pod.spec = pod_spec(ctx, *sv, "spec");
  top.allow({"status"});
  top.finish();
  pod.run = run_annotations(ctx, pod.meta.annotations, *top.get("metadata"), "metadata.annotations");
  return pod;
}

// The spec of a Deployment, DaemonSet or Job. Scalars first, then the template: a type error in
// either is reported before any validation error, as the API server decodes the whole object
// before validating it.
struct WorkloadSpec {
  const Value& node;
  Fields& f;
  const char* go_struct;
  std::optional<Value> tv, sel_v;
  k8s::PodTemplate pod_template_in(const Ctx& ctx, const std::string& ns) const {
    return pod_template(ctx, node, tv, "spec.template", ns);
  }
};

k8s::Deployment decode_deployment(const Ctx& ctx, WorkloadSpec& w, k8s::ObjectMeta meta) {
  k8s::Deployment d;
  auto rv = w.f.get("replicas");
  if (rv) d.replicas = static_cast<std::int32_t>(integer(ctx, *rv, w.go_struct, "spec.replicas", "int32"));
  k8s::PodTemplate tmpl = w.pod_template_in(ctx, meta.ns);
  if (d.replicas < 0) ctx.invalid(*rv, fe_invalid("spec.replicas", std::to_string(d.replicas), "must be greater than or equal to 0"));
  d.selector = owner_selector(ctx, w.f, w.node, tmpl, w.tv, w.sel_v, "deployment");
  require_restart_always(ctx, *w.tv, tmpl);
  w.f.allow(kIgnoredDeploymentSpec);
  w.f.finish();
  d.meta = std::move(meta);
  d.tmpl = std::move(tmpl);
  return d;
}

k8s::DaemonSet decode_daemon_set(const Ctx& ctx, WorkloadSpec& w, k8s::ObjectMeta meta) {
  k8s::DaemonSet ds;
  k8s::PodTemplate tmpl = w.pod_template_in(ctx, meta.ns);
  ds.selector = owner_selector(ctx, w.f, w.node, tmpl, w.tv, w.sel_v, "daemonset");
  require_restart_always(ctx, *w.tv, tmpl);
  w.f.allow(kIgnoredDaemonSetSpec);
  w.f.finish();
  ds.meta = std::move(meta);
  ds.tmpl = std::move(tmpl);
  return ds;
}

// completionMode and the index cap (maxParallelismForIndexedJob in pkg/apis/batch/validation).
void read_completion_mode(const Ctx& ctx, WorkloadSpec& w, k8s::Job& j, bool has_completions, bool has_parallelism) {
  auto cm = w.f.get("completionMode");
  if (!cm) return;
  j.completion_mode = str(ctx, *cm, w.go_struct, "spec.completionMode");
  if (j.completion_mode != "NonIndexed" && j.completion_mode != "Indexed")
    ctx.invalid(*cm, fe_not_supported("spec.completionMode", j.completion_mode, {"NonIndexed", "Indexed"}));
  if (j.completion_mode == "Indexed" && !has_completions)
    ctx.invalid(*cm, fe_required("spec.completions", "when completion mode is Indexed"));
  // maxParallelismForIndexedJob: caps .status.completedIndexes.
  if (j.completion_mode == "Indexed" && has_parallelism && j.parallelism > 100000)
    ctx.invalid(*w.f.get("parallelism"), fe_invalid("spec.parallelism", std::to_string(j.parallelism),
                                                    "must be less than or equal to 100000 when completion mode is Indexed"));
}

k8s::Job decode_job(const Ctx& ctx, WorkloadSpec& w, k8s::ObjectMeta meta) {
  k8s::Job j;
  auto nonneg = [&](const char* key, std::int32_t& field) -> bool {
    auto x = w.f.get(key);
    if (!x) return false;
    field = static_cast<std::int32_t>(integer(ctx, *x, w.go_struct, w.f.path(key), "int32"));
    if (field < 0) ctx.invalid(*x, fe_invalid(w.f.path(key), std::to_string(field), "must be greater than or equal to 0"));
    return true;
  };
  bool has_completions = nonneg("completions", j.completions);
  bool has_parallelism = nonneg("parallelism", j.parallelism);
  nonneg("backoffLimit", j.backoff_limit);
  // A work-queue Job (parallelism without completions) is modelled as that many completions.
  if (!has_completions && has_parallelism) j.completions = j.parallelism;
  read_completion_mode(ctx, w, j, has_completions, has_parallelism);
  bool manual = false;
  if (auto mv = w.f.get("manualSelector")) manual = boolean(ctx, *mv, w.go_struct, "spec.manualSelector");
  k8s::PodTemplate tmpl = w.pod_template_in(ctx, meta.ns);
  if (w.sel_v) {
    k8s::LabelSelector sel = label_selector(ctx, *w.sel_v, "spec.selector");
    if (!manual) ctx.invalid(*w.sel_v, fe_invalid("spec.selector", "{}", "`selector` will be auto-generated"));
    if (!k8s::label_selector_matches(sel, tmpl.meta.labels))
      ctx.invalid(*w.tv, fe_invalid("spec.template.metadata.labels", json_map(tmpl.meta.labels),
                                    "`selector` does not match template `labels`"));
  }
  const std::string& rp = tmpl.spec.restart_policy;
  if (rp == "Always" || rp.empty())
    ctx.invalid(*w.tv, fe_required("spec.template.spec.restartPolicy", "valid values: \"OnFailure\", \"Never\""));
  w.f.allow(kIgnoredJobSpec);
  w.f.finish();
  // The Job strategy labels the template (PrepareForCreate); the pods carry these labels.
  tmpl.meta.labels["batch.kubernetes.io/job-name"] = meta.name;
  tmpl.meta.labels["job-name"] = meta.name;
  j.meta = std::move(meta);
  j.tmpl = std::move(tmpl);
  return j;
}

void decode_workload(const Ctx& ctx, const Value& v, Fields& top, Manifest& m) {
  k8s::ObjectMeta meta = object_meta(ctx, v, top.get("metadata"), NameRule::Subdomain, true);
  auto spec_v = top.get("spec");
  if (!spec_v) ctx.invalid(v, fe_required("spec.template.spec.containers"));
  const char* go_struct = m.kind == "Deployment" ? "DeploymentSpec" : m.kind == "Job" ? "JobSpec" : "DaemonSetSpec";
  Fields f(ctx, *spec_v, "spec", m.kind.c_str(), go_struct);
  WorkloadSpec w{*spec_v, f, go_struct, std::nullopt, std::nullopt};
  w.tv = f.get("template");
  w.sel_v = f.get("selector");
  if (m.kind == "Deployment") {
    m.object = decode_deployment(ctx, w, std::move(meta));
    m.karpenter = decode_karpenter_deployment(std::get<k8s::Deployment>(m.object), v);
    m.cluster_autoscaler = decode_cluster_autoscaler_deployment(std::get<k8s::Deployment>(m.object), v);
  }
  else if (m.kind == "DaemonSet") m.object = decode_daemon_set(ctx, w, std::move(meta));
  else m.object = decode_job(ctx, w, std::move(meta));
  top.allow({"status"});
  top.finish();
}

void parse_object(const Value& v, std::vector<Manifest>& out, const ServedKinds& served = {}) {
  if (!v.is_map()) v.fail("expected a Kubernetes object (a mapping with apiVersion and kind), got " + v.kind_name());
  YAML::Node av = v.node()["apiVersion"], kv = v.node()["kind"];
  const bool has_av = av && av.IsScalar() && !av.Scalar().empty();
  const bool has_kind = kv && kv.IsScalar() && !kv.Scalar().empty();
  if (!has_av && !has_kind) v.fail("error validating data: [apiVersion not set, kind not set]");
  if (!has_av) v.fail("error validating data: apiVersion not set");
  if (!has_kind) v.fail("error validating data: kind not set");
  Manifest m;
  m.api_version = av.Scalar();
  m.kind = kv.Scalar();
  m.where = v.where();
  if (!known_kind(m.api_version, m.kind) && !declared_by_crd(out, m.api_version, m.kind) &&
      !(served && served(m.api_version, m.kind)))
    Value(kv, v.file_ptr()).fail("no matches for kind " + quote(m.kind) + " in version " + quote(m.api_version));

  Ctx ctx{{m.kind, raw_name(v), version_of(m.api_version)}};
  Fields top(ctx, v, "", "", "");
  top.get("apiVersion");
  top.get("kind");

  if (m.kind == "List") {
    if (auto items = top.get("items"))
      for (const auto& item : list(ctx, *items, "List", "items", "[]runtime.RawExtension")) parse_object(item, out, served);
    top.allow({"metadata"});
    top.finish();
    return;
  }
  if (m.kind == "Pod") {
    m.object = decode_pod(ctx, v, top);
  } else if (m.kind == "Namespace") {
    NamespaceObject ns;
    ns.meta = object_meta(ctx, v, top.get("metadata"), NameRule::Label, false);
    top.allow({"spec", "status"});
    top.finish();
    m.object = std::move(ns);
  } else if (m.kind == "Service") {
    k8s::ObjectMeta meta = object_meta(ctx, v, top.get("metadata"), NameRule::Label, true);
    m.object = decode_service(ctx, v, top, std::move(meta));
  } else if (m.kind == "Deployment" || m.kind == "DaemonSet" || m.kind == "Job") {
    decode_workload(ctx, v, top, m);
  } else if (m.kind == "PodDisruptionBudget") {
    m.object = decode_pdb(ctx, v, top);
    m.object_json = yaml_to_json(v.node()).dump();  // listed back as sent; its status is not modelled
  } else if (m.kind == "ConfigMap") {
    m.object = decode_config_map(ctx, v, top);
  } else {
    decode_other(v, m);
  }
  out.push_back(std::move(m));
}

void load_file(const Value& fv, FileLoader& loader, std::vector<Manifest>& out);

bool is_file_entry(const Value& v) { return v.is_map() && v.node()["file"] && !v.node()["kind"]; }

void parse_entry(const Value& v, FileLoader& loader, std::vector<Manifest>& out) {
  if (!is_file_entry(v)) {
    parse_object(v, out);
    return;
  }
  MapReader r(v, "a manifests file entry");
  Value fv = r.require("file");
  r.finish();
  load_file(fv, loader, out);
}

void load_file(const Value& fv, FileLoader& loader, std::vector<Manifest>& out) {
  std::string path = FileLoader::resolve(fv.file(), fv.as_string("a file path"));
  std::string canonical = std::filesystem::absolute(path).lexically_normal().string();
  if (!loader.push(canonical)) fv.fail("include cycle: \"" + path + "\" is already being loaded");
  try {
    for (const auto& doc : loader.load_documents(path, fv.where())) parse_entry(doc, loader, out);
  } catch (...) {
    loader.pop();
    throw;
  }
  loader.pop();
}

ObjectRef ctx_ref(const ObjectRef& r) { return r; }

}  // namespace

std::string raw_name(const Value& obj) {
  if (!obj.is_map()) return "";
  // A missing key gives an invalid node, which throws on everything but operator bool.
  YAML::Node m = obj.node()["metadata"];
  if (!m || !m.IsMap()) return "";
  YAML::Node n = m["name"];
  return n && n.IsScalar() ? n.Scalar() : "";
}

std::vector<Manifest> parse_manifests(const Value& list_or_object, FileLoader& loader) {
  std::vector<Manifest> out;
  if (list_or_object.is_null()) return out;
  if (list_or_object.is_seq()) {
    for (const auto& item : list_or_object.items()) parse_entry(item, loader, out);
  } else {
    parse_entry(list_or_object, loader, out);
  }
  return out;
}

std::vector<Manifest> load_manifest_file(const Value& file_value, FileLoader& loader) {
  std::vector<Manifest> out;
  load_file(file_value, loader, out);
  return out;
}

std::vector<Manifest> parse_manifest_object(const Value& object, const ServedKinds& served) {
  std::vector<Manifest> out;
  parse_object(object, out, served);
  return out;
}

std::vector<k8s::Toleration> parse_tolerations(const Value& v, const ObjectRef& obj, const std::string& path) {
  return tolerations(Ctx{ctx_ref(obj)}, v, path);
}

std::vector<k8s::NodeSelectorRequirement> parse_node_selector_requirements(const Value& v, const ObjectRef& obj,
                                                                           const std::string& path) {
  return node_requirements(Ctx{obj}, v, path, false);
}

k8s::Labels parse_labels(const Value& v, const ObjectRef& obj, const std::string& path, const char* go_struct) {
  return labels_impl(Ctx{obj}, v, path, go_struct);
}

k8s::ResourceList parse_resource_list(const Value& v, const ObjectRef& obj, const std::string& path) {
  return to_resource_list(resource_entries(Ctx{obj}, v, path));
}

bool is_custom_kind(const std::string& api_version) {
  const std::string group = k8s::split_api_version(api_version).first;
  static const char* const kBuiltIn[] = {"", "apps", "batch", "policy", "autoscaling", "rbac.authorization.k8s.io",
                                         "scheduling.k8s.io", "node.k8s.io", "storage.k8s.io", "coordination.k8s.io",
                                         "admissionregistration.k8s.io", "apiregistration.k8s.io",
                                         "apiextensions.k8s.io", "networking.k8s.io", "events.k8s.io"};
  return std::none_of(std::begin(kBuiltIn), std::end(kBuiltIn), [&](const char* g) { return group == g; });
}

}  // namespace eksim::scenario
