// core/v1 ConfigMaps: those the API server holds (kubectl-applied ones, the add-ons' and charts'
// own, aws-auth) and each namespace's kube-root-ca.crt.
#include "models/autoscaling/cluster_autoscaler.hpp"
#include "sim/serve/cluster_autoscaler_status.hpp"
#include "sim/serve/resources/render.hpp"

namespace eksim::serve {

using nlohmann::json;

namespace {

// The cluster CA bundle kube-root-ca.crt carries. eksim serves plain HTTP and has no CA, so the
// PEM block says that instead of holding a certificate.
constexpr const char* kRootCaPlaceholder =
    "-----BEGIN CERTIFICATE-----\n"
    "eksim: the simulated cluster has no certificate authority\n"
    "-----END CERTIFICATE-----\n";

json config_map(json meta, const std::map<std::string, std::string>& data) {
  json d = json::object();
  for (const auto& [k, v] : data) d[k] = v;
  return json{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", std::move(meta)}, {"data", std::move(d)}};
}

}  // namespace

void render_config_maps(const RenderContext& ctx, ObjectMap& out) {
  const TimeBase& tb = ctx.time;
  for (const auto& ns : namespace_names(ctx.cluster)) {
    json meta = {{"name", "kube-root-ca.crt"},
                 {"namespace", ns},
                 {"uid", uid_of("ConfigMap", ns + "/kube-root-ca.crt")},
                 {"creationTimestamp", tb.at(engine::SimTime{})},
                 {"annotations", {{"kubernetes.io/description",
                                   "Contains a CA bundle that can be used to verify the kube-apiserver when using "
                                   "internal endpoints such as the internal service IP or "
                                   "kubernetes.default.svc. No other usage is guaranteed across distributions of "
                                   "Kubernetes clusters."}}}};
    out[object_key(ns, "kube-root-ca.crt")] = config_map(std::move(meta), {{"ca.crt", kRootCaPlaceholder}});
  }
  const k8s::ApiServer& api = ctx.cluster.api;
  for (const auto& [key, data] : api.config_maps()) {
    const auto slash = key.find('/');
    const std::string ns = key.substr(0, slash), name = key.substr(slash + 1);
    json meta = {{"name", name}, {"namespace", ns}, {"uid", uid_of("ConfigMap", key)}};
    const k8s::ObjectMeta* m = api.config_map_meta(key);
    meta["creationTimestamp"] = tb.at(m ? m->creation_timestamp : engine::SimTime{});
    if (m && !m->labels.empty()) meta["labels"] = m->labels;
    out[key] = config_map(std::move(meta), data);
  }
  // Cluster Autoscaler's status, rewritten at the end of every loop (utils.WriteStatusConfigMap):
  // no labels, one annotation with the loop's time.
  const autoscaling::ClusterAutoscaler* ca = ctx.cluster.controllers.cluster_autoscaler.get();
  if (ca && ca->status_config_map()) {
    const auto& status = *ca->status_config_map();
    const std::string key = object_key("kube-system", kCasStatusConfigMap);
    json meta = {{"name", kCasStatusConfigMap},
                 {"namespace", "kube-system"},
                 {"uid", uid_of("ConfigMap", key)},
                 {"creationTimestamp", tb.at(*ca->status_config_map_created())},
                 {"annotations", {{kCasLastUpdatedAnnotation, go_status_time(tb.sim0_unix_us + status.time.us)}}}};
    out[key] = config_map(std::move(meta), {{"status", cluster_autoscaler_status_yaml(status, tb.sim0_unix_us)}});
  }
}

}  // namespace eksim::serve
