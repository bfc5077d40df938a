#include "models/k8s/controllers/deployment_controller.hpp"

#include <algorithm>

#include "models/k8s/controllers/garbage_collector.hpp"
#include "models/k8s/api/pod_factory.hpp"

namespace eksim::k8s {

namespace {
using k8s::EventType;

std::uint32_t fnv32a(const std::string& s) {
  std::uint32_t h = 2166136261u;
  for (unsigned char c : s) {
    h ^= c;
    h *= 16777619u;
  }
  return h;
}
}  // namespace

std::string pod_template_hash(const Deployment& d) {
  // Upstream hashes the whole template object dump; the parts that matter for identity here are
  // the name, the containers and the labels.
  std::string text = d.meta.ns + "/" + d.meta.name;
  for (const auto& [k, v] : d.tmpl.meta.labels) text += "|" + k + "=" + v;
  for (const auto& c : d.tmpl.spec.containers) {
    text += "|" + c.name + "=" + c.image;
    for (const auto& a : c.command) text += " " + a;
    for (const auto& a : c.args) text += " " + a;
  }
  static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  std::string digits = std::to_string(fnv32a(text));
  std::string out;
  for (unsigned char c : digits) out += kAlphabet[c % 27];
  return out;
}

DeploymentController::DeploymentController(ApiServer& api, Kubelet* kubelet) : api_(api), kubelet_(kubelet) {
  auto on_change = [this](PodId id) {
    if (auto idx = owner_of(id)) enqueue(*idx);
  };
  api_.on_pod_terminating.push_back(on_change);
  api_.on_pod_deleted.push_back(on_change);
  api_.on_pod_phase.push_back([this, on_change](PodId id) {
    if (api_.pod(id).pod.status.phase == PodPhase::Failed) on_change(id);
  });
}

std::optional<std::size_t> DeploymentController::owner_of(PodId id) const {
  const Pod& p = api_.pod(id).pod;
  for (const auto& o : p.meta.owner_references) {
    if (o.kind != "ReplicaSet") continue;
    for (const auto& [idx, st] : state_) {
      if (replica_set_name(idx) == o.name && api_.deployments()[idx].meta.ns == p.meta.ns) return idx;
    }
  }
  return std::nullopt;
}

std::string DeploymentController::replica_set_name(std::size_t index) const {
  const Deployment& d = api_.deployments()[index];
  return d.meta.name + "-" + d.pod_template_hash;
}

std::size_t DeploymentController::apply(Deployment d) {
  if (d.meta.ns.empty()) d.meta.ns = "default";
  if (d.meta.uid.empty()) d.meta.uid = api_.new_uid();
  d.meta.creation_timestamp = api_.now();
  if (d.pod_template_hash.empty()) d.pod_template_hash = pod_template_hash(d);
  api_.deployments().push_back(std::move(d));
  std::size_t idx = api_.deployments().size() - 1;
  state_[idx];
  reconcile(idx);
  return idx;
}

void DeploymentController::scale(const std::string& ns, const std::string& name, std::int32_t replicas) {
  for (std::size_t i = 0; i < api_.deployments().size(); ++i) {
    Deployment& d = api_.deployments()[i];
    if (d.deleted || d.meta.ns != ns || d.meta.name != name) continue;
    d.replicas = replicas;
    reconcile(i);
  }
}

bool DeploymentController::remove(const std::string& ns, const std::string& name) {
  bool found = false;
  for (std::size_t i = 0; i < api_.deployments().size(); ++i) {
    Deployment& d = api_.deployments()[i];
    if (d.deleted || d.meta.ns != ns || d.meta.name != name) continue;
    d.deleted = true;
    found = true;
    delete_dependents(api_, kubelet_, std::vector<PodId>(state_[i].pods));
  }
  return found;
}

bool DeploymentController::delete_replica_set(const std::string& ns, const std::string& name) {
  for (std::size_t i = 0; i < api_.deployments().size(); ++i) {
    const Deployment& d = api_.deployments()[i];
    if (d.deleted || d.meta.ns != ns || replica_set_name(i) != name) continue;
    // The garbage collector deletes the old ReplicaSet's pods (their owner's UID is gone), and
    // the Deployment controller, finding no ReplicaSet for its template, creates one of the same
    // name at full size: "Scaled up replica set <rs> from 0 to N" and a new set of pods.
    State& st = state_[i];
    std::vector<PodId> old = std::move(st.pods);
    st = State{};
    delete_dependents(api_, kubelet_, old);
    reconcile(i);
    return true;
  }
  return false;
}

std::vector<PodId> DeploymentController::pods(std::size_t index) const {
  std::vector<PodId> out;
  auto it = state_.find(index);
  if (it == state_.end()) return out;
  for (PodId p : it->second.active)
    if (pod_active(api_.pod(p))) out.push_back(p);
  return out;
}

void DeploymentController::adopt(State& st, PodId id) {
  st.pods.push_back(id);
  st.active.push_back(id);
  if (st.pods.size() < st.compact_at) return;
  std::erase_if(st.pods, [this](PodId p) { return api_.pod(p).deleted; });
  st.compact_at = std::max<std::size_t>(64, 2 * st.pods.size());
}

void DeploymentController::enqueue(std::size_t index) {
  State& st = state_[index];
  if (st.queued) return;
  st.queued = true;
  api_.sim().schedule(engine::Duration{}, [this, index] {
    state_[index].queued = false;
    reconcile(index);
  });
}

void DeploymentController::reconcile(std::size_t index) {
  Deployment& d = api_.deployments()[index];
  State& st = state_[index];
  if (d.deleted) return;
  std::string rs = replica_set_name(index);
  k8s::ObjectRef rs_ref{"ReplicaSet", d.meta.ns, rs};
  if (st.rs_replicas != d.replicas) {
    api_.emit(EventType::Normal, "ScalingReplicaSet", {"Deployment", d.meta.ns, d.meta.name},
              std::string("Scaled ") + (d.replicas > st.rs_replicas ? "up" : "down") + " replica set " + rs +
                  " from " + std::to_string(st.rs_replicas) + " to " + std::to_string(d.replicas),
              "deployment-controller");
    st.rs_replicas = d.replicas;
  }
  // Failed pods stay in the API (until the pod GC) but no longer count.
  std::erase_if(st.active, [this](PodId p) { return !pod_active(api_.pod(p)); });
  std::vector<PodId> active = st.active;
  auto n = static_cast<std::int32_t>(active.size());
  if (n < d.replicas) {
    // The ReplicaSet's template: the Deployment's with its pod-template-hash label.
    PodTemplate rs_tmpl = d.tmpl;
    rs_tmpl.meta.labels["pod-template-hash"] = d.pod_template_hash;
    const std::string generate_name = rs + "-";
    const OwnerReference owner{"ReplicaSet", rs, true};
    std::string message;
    for (; n < d.replicas; ++n) {
      PodId id = api_.create_pod(pod_from_template(api_, rs_tmpl, d.meta.ns, generate_name, owner));
      adopt(st, id);
      message.assign("Created pod: ").append(api_.pod(id).pod.meta.name);
      api_.emit(EventType::Normal, "SuccessfulCreate", rs_ref, message, "replicaset-controller");
    }
  }
  if (n > d.replicas) {
    // getPodsToDelete: unscheduled before scheduled, not running before running, newest first.
    std::stable_sort(active.begin(), active.end(), [this](PodId a, PodId b) {
      const PodRecord& ra = api_.pod(a);
      const PodRecord& rb = api_.pod(b);
      if (ra.node.valid() != rb.node.valid()) return !ra.node.valid();
      bool run_a = ra.pod.status.phase == PodPhase::Running, run_b = rb.pod.status.phase == PodPhase::Running;
      if (run_a != run_b) return !run_a;
      return ra.pod.meta.creation_timestamp > rb.pod.meta.creation_timestamp;
    });
    for (std::int32_t i = 0; i < n - d.replicas; ++i) {
      PodId p = active[static_cast<std::size_t>(i)];
      api_.emit(EventType::Normal, "SuccessfulDelete", rs_ref, "Deleted pod: " + api_.pod(p).pod.meta.name,
                "replicaset-controller");
      delete_dependents(api_, kubelet_, {p});
    }
  }
}

}  // namespace eksim::k8s
