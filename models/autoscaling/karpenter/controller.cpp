#include "models/autoscaling/karpenter/controller.hpp"

#include <algorithm>
#include <cmath>

#include "models/autoscaling/karpenter/cron.hpp"
#include "models/k8s/addons.hpp"
#include "models/k8s/pod_factory.hpp"
#include "models/k8s/scheduling/predicates.hpp"

namespace eksim::autoscaling::karpenter {

namespace {

using engine::Duration;
using engine::EventType;
using engine::SimTime;

// Karpenter's poll and validation periods (pkg/controllers/disruption: 10 s poll, 15 s
// consolidation TTL before a command executes); liveness registrationTimeout 15 m.
constexpr Duration kDisruptionPoll = Duration::seconds(10);
constexpr Duration kValidationTtl = Duration::seconds(15);
constexpr Duration kRegistrationTimeout = Duration::minutes(15);
constexpr Duration kSpotNotice = Duration::minutes(2);
// CreateFleet takes at most 60 instance type overrides (karpenter-provider-aws MaxInstanceTypes).
constexpr std::size_t kMaxInstanceTypes = 60;

engine::ObjectRef claim_ref(const std::string& name) { return {"NodeClaim", "", name}; }
engine::ObjectRef pool_ref(const std::string& name) { return {"NodePool", "", name}; }

bool has_taint(const std::vector<k8s::Taint>& ts, const std::string& key) {
  return std::any_of(ts.begin(), ts.end(), [&](const k8s::Taint& t) { return t.key == key; });
}

// Pods a drain moves: active, not owned by a DaemonSet.
bool reschedulable(const k8s::PodRecord& r) { return k8s::pod_active(r) && !k8s::is_daemonset_pod(r.pod); }

// A bound pod as a disruption simulation reschedules it: without its nodeName (the NodeName
// filter would pin it to the node being removed).
k8s::Pod unbound(const k8s::Pod& p) {
  k8s::Pod copy = p;
  copy.spec.node_name.clear();
  return copy;
}

// SimulateScheduling (disruption/helpers.go): a candidate's pod that would land on a node not yet
// initialized is a pod error ("would schedule against uninitialized nodeclaim/..."): disruption
// does not rely on capacity still starting (e.g. a NodeClaim in flight for a pending pod).
bool relies_on_uninitialized(const SchedulingResults& r, const std::vector<ExistingNode>& nodes) {
  return std::any_of(r.existing.begin(), r.existing.end(), [&](const auto& e) { return !nodes[e.second].initialized; });
}

NodePool auto_mode_pool(const std::string& name, bool system) {
  // EKS Auto Mode built-in NodePools (docs.aws.amazon.com/eks/latest/userguide/set-builtin-node-pools.html):
  // on-demand C/M/R of generation > 4, expireAfter 336h, 10% budget.
  NodePool p;
  p.name = name;
  p.built_in = true;
  p.node_class_group = "eks.amazonaws.com";
  p.node_class_kind = "NodeClass";
  p.node_class_name = "default";
  p.requirements = {{kLabelCapacityType, "In", {"on-demand"}},
                    {"eks.amazonaws.com/instance-category", "In", {"c", "m", "r"}},
                    {"eks.amazonaws.com/instance-generation", "Gt", {"4"}},
                    {k8s::kLabelArch, "In", system ? std::vector<std::string>{"amd64", "arm64"} : std::vector<std::string>{"amd64"}},
                    {k8s::kLabelOs, "In", {"linux"}}};
  if (system) p.taints.push_back(k8s::Taint{"CriticalAddonsOnly", "", k8s::kNoSchedule});
  p.expire_after = Duration::hours(336);
  p.consolidate_after = Duration::seconds(30);
  return p;
}

std::string title(const std::string& reason) {
  std::string s = reason;
  if (!s.empty() && s[0] >= 'a' && s[0] <= 'z') s[0] = static_cast<char>(s[0] - 'a' + 'A');
  return s;
}

}  // namespace

const char* to_string(NodeClaimPhase p) {
  switch (p) {
    case NodeClaimPhase::Launched: return "Launched";
    case NodeClaimPhase::Registered: return "Registered";
    case NodeClaimPhase::Initialized: return "Initialized";
    case NodeClaimPhase::Deleting: return "Deleting";
    case NodeClaimPhase::Deleted: return "Deleted";
  }
  return "";
}

Settings settings_from_flags(const std::map<std::string, std::string>& flags, bool auto_mode) {
  Settings s;
  s.auto_mode = auto_mode;
  if (auto it = flags.find("batch-idle-duration"); it != flags.end())
    if (auto d = engine::parse_duration(it->second)) s.batch_idle = *d;
  if (auto it = flags.find("batch-max-duration"); it != flags.end())
    if (auto d = engine::parse_duration(it->second)) s.batch_max = *d;
  if (auto it = flags.find("vm-memory-overhead-percent"); it != flags.end()) s.vm_memory_overhead_percent = std::stod(it->second);
  if (auto it = flags.find("version"); it != flags.end()) s.version = it->second;
  if (auto it = flags.find("reserved-enis"); it != flags.end()) s.reserved_enis = std::stoi(it->second);
  if (auto it = flags.find("interruption-queue"); it != flags.end()) s.interruption_queue = it->second;
  if (auto it = flags.find("feature-gates"); it != flags.end())
    s.spot_to_spot_consolidation = it->second.find("SpotToSpotConsolidation=true") != std::string::npos;
  return s;
}

Controller::Controller(Cluster& cluster, Settings settings) : c_(cluster), settings_(std::move(settings)) {
  if (settings_.auto_mode) {
    NodeClass nc;
    nc.kind = "NodeClass";
    nc.name = "default";
    classes_["default"] = nc;
    pools_["system"] = auto_mode_pool("system", true);
    pools_["general-purpose"] = auto_mode_pool("general-purpose", false);
  }
  auto& api = c_.api;
  api.on_pod_added.push_back([this](k8s::PodId) { trigger(); });
  api.on_pod_bound.push_back([this](k8s::PodId id) { on_pod_moved(c_.api.pod(id).node); });
  api.on_pod_phase.push_back([this](k8s::PodId id) {
    const auto& r = c_.api.pod(id);
    if (r.pod.status.phase == k8s::PodPhase::Succeeded || r.pod.status.phase == k8s::PodPhase::Failed) on_pod_moved(r.node);
  });
  api.on_pod_deleted.push_back([this](k8s::PodId id) {
    on_pod_moved(c_.api.pod(id).node);
    trigger();
  });
  api.on_node.push_back([this](k8s::NodeId id, k8s::NodeChange ch) { on_node(id, ch); });
  c_.ec2.on_running.push_back([this](aws::Instance& i) { on_instance_running(i); });
  c_.ec2.on_terminated.push_back([this](aws::Instance& i) { on_instance_terminated(i); });
  c_.sim.every(kDisruptionPoll, [this] { disrupt(); });
}

// --- objects --------------------------------------------------------------------------------

void Controller::apply_node_pool(NodePool pool) {
  std::string name = pool.name;
  pools_[name] = std::move(pool);
  trigger();
}

void Controller::apply_node_class(NodeClass node_class) {
  types_by_class_.erase(node_class.name);
  classes_[node_class.name] = std::move(node_class);
  trigger();
}

bool Controller::delete_node_pool(const std::string& name) {
  if (!pools_.erase(name)) return false;
  // NodeClaims are owned by their NodePool: garbage collection deletes them.
  for (auto& c : claims_)
    if (c.node_pool == name && c.phase != NodeClaimPhase::Deleting && c.phase != NodeClaimPhase::Deleted)
      delete_claim(c, "", false);
  return true;
}

std::vector<InstanceTypeInfo>& Controller::instance_types_for(const NodeClass& nc) {
  auto it = types_by_class_.find(nc.name);
  if (it == types_by_class_.end()) {
    InstanceTypeOptions opts;
    opts.region = c_.spec().region;
    opts.domain = domain();
    opts.vm_memory_overhead_percent = settings_.vm_memory_overhead_percent;
    opts.reserved_enis = settings_.reserved_enis;
    std::vector<std::string> zones;
    for (const auto& s : c_.ec2.subnets())
      if (nc.subnet_ids.empty() || std::find(nc.subnet_ids.begin(), nc.subnet_ids.end(), s.id) != nc.subnet_ids.end())
        if (std::find(zones.begin(), zones.end(), s.az) == zones.end()) zones.push_back(s.az);
    std::sort(zones.begin(), zones.end());
    opts.zones = zones;
    std::vector<InstanceTypeInfo> types;
    for (const auto& t : c_.catalog().all()) types.push_back(build_instance_type(t, opts, nc));
    it = types_by_class_.emplace(nc.name, std::move(types)).first;
  }
  ice_.apply(it->second, c_.sim.now());
  return it->second;
}

NodeClaimState* Controller::claim_by_instance(const std::string& id) {
  if (id.empty()) return nullptr;
  for (auto& c : claims_)
    if (c.instance_id == id) return &c;
  return nullptr;
}
NodeClaimState* Controller::claim_by_name(const std::string& name) {
  for (auto& c : claims_)
    if (c.name == name) return &c;
  return nullptr;
}
NodeClaimState* Controller::claim_by_node(const std::string& node) {
  if (node.empty()) return nullptr;
  for (auto& c : claims_)
    if (c.node_name == node && c.phase != NodeClaimPhase::Deleted) return &c;
  return nullptr;
}

void Controller::event(EventType type, const std::string& reason, const engine::ObjectRef& obj, const std::string& msg,
                       Duration dedupe) {
  if (dedupe.us > 0) {
    std::string key = obj.str() + "|" + reason;
    auto it = dedupe_.find(key);
    if (it != dedupe_.end() && c_.sim.now() - it->second.second < dedupe) return;
    dedupe_[key] = {msg, c_.sim.now()};
  }
  c_.api.emit(type, reason, obj, msg, source());
}

// --- provisioning ----------------------------------------------------------------------------

void Controller::trigger() {
  const SimTime now = c_.sim.now();
  last_trigger_ = now;
  if (!batch_start_) {
    batch_start_ = now;
    batch_timer_ = c_.sim.schedule(settings_.batch_idle, [this] { on_batch_timer(); });
  }
}

void Controller::on_batch_timer() {
  // The batcher closes the window after batch_idle without new pods, or at batch_max.
  const SimTime now = c_.sim.now();
  SimTime idle_end = last_trigger_ + settings_.batch_idle, max_end = *batch_start_ + settings_.batch_max;
  if (now < idle_end && now < max_end) {
    batch_timer_ = c_.sim.schedule_at(std::min(idle_end, max_end), [this] { on_batch_timer(); });
    return;
  }
  batch_start_.reset();
  provision();
}

bool Controller::provisionable(const k8s::PodRecord& r) const {
  if (r.deleted || r.terminating || r.node.valid() || !r.pod.spec.node_name.empty()) return false;
  if (r.pod.status.phase != k8s::PodPhase::Pending) return false;
  if (r.pod.spec.scheduler_name != "default-scheduler") return false;
  return !k8s::is_daemonset_pod(r.pod);
}

bool Controller::marked_for_deletion(const k8s::NodeRecord& rec) {
  if (rec.deleted) return false;
  if (has_taint(rec.node.taints, kTaintDisrupted)) return true;
  const NodeClaimState* c = claim_by_instance(rec.instance_id);
  return c && c->phase == NodeClaimPhase::Deleting;
}

std::vector<k8s::Pod> Controller::deleting_node_pods() {
  // pod.IsReschedulable: active (not terminal, not terminating) and not a DaemonSet's. (Terminating
  // StatefulSet pods count too upstream; eksim has no StatefulSets.)
  std::vector<k8s::Pod> out;
  auto& api = c_.api;
  for (std::size_t i = 0; i < api.node_slots(); ++i) {
    const k8s::NodeRecord& rec = api.node(k8s::NodeId{static_cast<std::uint32_t>(i)});
    if (!marked_for_deletion(rec)) continue;
    for (k8s::PodId p : rec.pods)
      if (reschedulable(api.pod(p))) out.push_back(unbound(api.pod(p).pod));
  }
  return out;
}

std::vector<k8s::Pod> Controller::daemon_pods() const {
  std::vector<k8s::Pod> out;
  for (auto& ds : c_.api.daemon_sets()) {
    if (ds.deleted) continue;
    k8s::Pod p;
    p.meta.name = ds.meta.name;
    p.meta.ns = ds.meta.ns;
    p.meta.labels = ds.tmpl.meta.labels;
    p.spec = ds.tmpl.spec;
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<NodeClaimTemplate> Controller::templates(std::vector<k8s::Pod>& daemons) {
  std::vector<const NodePool*> order;
  for (const auto& [n, p] : pools_) order.push_back(&p);
  std::stable_sort(order.begin(), order.end(), [](const NodePool* a, const NodePool* b) { return a->weight > b->weight; });
  std::vector<NodeClaimTemplate> out;
  for (const NodePool* p : order) {
    auto nc = classes_.find(p->node_class_name);
    if (nc == classes_.end() || nc->second.kind != p->node_class_kind) continue;  // NodeClass not ready
    std::map<std::string, std::int64_t> usage;
    for (const auto& c : claims_) {
      if (c.node_pool != p->name || c.phase == NodeClaimPhase::Deleted) continue;
      for (const auto& [r, v] : c.capacity.items()) usage[r] += v;
    }
    out.push_back(make_template(*p, instance_types_for(nc->second), daemons, domain(), usage));
  }
  return out;
}

std::vector<ExistingNode> Controller::existing_nodes(const std::string& skip_node) {
  std::vector<ExistingNode> out;
  auto& api = c_.api;
  for (std::size_t i = 0; i < api.node_slots(); ++i) {
    const k8s::NodeRecord& rec = api.node(k8s::NodeId{static_cast<std::uint32_t>(i)});
    if (rec.deleted || rec.node.meta.name == skip_node) continue;
    if (has_taint(rec.node.taints, kTaintDisrupted)) continue;  // marked for deletion
    NodeClaimState* claim = claim_by_instance(rec.instance_id);
    if (claim && (claim->phase == NodeClaimPhase::Deleting || claim->phase == NodeClaimPhase::Deleted)) continue;
    std::vector<const k8s::Pod*> pods;
    for (k8s::PodId p : rec.pods)
      if (k8s::pod_active(api.pod(p))) pods.push_back(&api.pod(p).pod);
    ExistingNode e;
    e.node_name = rec.node.meta.name;
    e.info = k8s::make_node_info(rec.node, pods);
    if (claim) {
      e.nodeclaim = claim->name;
      e.initialized = claim->phase == NodeClaimPhase::Initialized;
      if (!e.initialized) {
        // Uninitialized Karpenter nodes count with the NodeClaim's expected resources, and the
        // taints that go away during startup are ignored (KnownEphemeralTaints, startupTaints).
        std::erase_if(e.info.node.taints, [&](const k8s::Taint& t) {
          return t.key == k8s::kTaintNotReady || t.key == k8s::kTaintUnreachable || t.key == kTaintUnregistered ||
                 has_taint(claim->startup_taints, t.key);
        });
        for (const auto& [r, v] : claim->allocatable.items())
          if (e.info.node.allocatable.get(r) < v) e.info.node.allocatable.set(r, v);
      }
    }
    out.push_back(std::move(e));
  }
  for (const auto& c : claims_) {
    // Launched but not registered: no Node object yet, so it counts by its NodeClaim.
    if (c.phase != NodeClaimPhase::Launched || c.registered_at) continue;
    k8s::Node n;
    n.meta.name = c.name;
    n.meta.labels = c.labels;
    n.taints = c.taints;
    n.allocatable = c.allocatable;
    n.capacity = c.capacity;
    n.ready = true;
    ExistingNode e;
    e.nodeclaim = c.name;
    e.initialized = false;
    e.info = k8s::make_node_info(n);
    e.info.requested += c.daemon_overhead;
    out.push_back(std::move(e));
  }
  return out;
}

void Controller::provision() {
  auto& api = c_.api;
  std::vector<const k8s::Pod*> pods;
  for (std::size_t i = 0; i < api.pod_slots(); ++i) {
    const k8s::PodRecord& r = api.pod(k8s::PodId{static_cast<std::uint32_t>(i)});
    if (provisionable(r)) pods.push_back(&r.pod);
  }
  // Provisioner.Schedule: the pending pods plus the pods still on nodes marked for deletion
  // (nodes.Deleting().CurrentlyReschedulablePods), so that their capacity is launched before they
  // are evicted. Their nodes are not capacity (existing_nodes skips them).
  std::vector<k8s::Pod> deleting = deleting_node_pods();
  for (const auto& p : deleting) pods.push_back(&p);
  if (pods.empty()) return;
  std::vector<k8s::Pod> daemons = daemon_pods();
  std::vector<NodeClaimTemplate> tmpls = templates(daemons);
  if (tmpls.empty()) return;  // "no nodepools found": nothing to provision with
  std::vector<ExistingNode> existing = existing_nodes();
  k8s::SchedulerOptions opts;
  opts.version.minor = c_.spec().kubernetes_minor;
  SchedulingResults res = solve(pods, existing, tmpls, domain(), opts);
  // Karpenter's event recorder dedupes per pod (Nominated and FailedScheduling carry the pod UID
  // as dedupe value; FailedScheduling for 5 minutes, the recorder's default 2 minutes otherwise).
  for (const auto& [pod, idx] : res.existing) {
    const ExistingNode& e = existing[idx];
    std::string where;
    if (!e.nodeclaim.empty()) where = "nodeclaim/" + e.nodeclaim;
    if (!e.node_name.empty()) where += (where.empty() ? "" : ", ") + std::string("node/") + e.node_name;
    event(EventType::Normal, "Nominated", k8s::ApiServer::ref(*pod), "Pod should schedule on: " + where, Duration::minutes(2));
  }
  for (const auto& planned : res.new_claims) {
    int idx = launch(planned, false);
    if (idx < 0) continue;
    for (const k8s::Pod* pod : planned.pods)
      event(EventType::Normal, "Nominated", k8s::ApiServer::ref(*pod), "Pod should schedule on: nodeclaim/" + claims_[idx].name,
            Duration::minutes(2));
  }
  for (const auto& [pod, err] : res.errors)
    if (!err.empty())
      event(EventType::Warning, "FailedScheduling", k8s::ApiServer::ref(*pod), "Failed to schedule pod, " + err, Duration::minutes(5));
}

int Controller::launch(const PlannedNodeClaim& planned, bool replacement) {
  const NodePool& pool = *planned.tmpl->pool;
  const NodeClass& nc = classes_.at(pool.node_class_name);
  const SimTime now = c_.sim.now();
  const Requirements& reqs = planned.requirements;
  // Capacity type: spot when the requirements allow it and a spot offering is available.
  std::size_t n_types = std::min(planned.options.size(), kMaxInstanceTypes);
  auto offered = [&](const Offering& o, const std::string& ct) {
    const Requirement* z = reqs.find(k8s::kLabelZone);
    return o.available && o.capacity_type == ct && (!z || z->has(o.zone));
  };
  std::string ct = "on-demand";
  if (reqs.get(kLabelCapacityType).has("spot"))
    for (std::size_t i = 0; i < n_types && ct != "spot"; ++i)
      for (const auto& o : planned.options[i]->offerings)
        if (offered(o, "spot")) ct = "spot";
  struct Override {
    double price;
    const InstanceTypeInfo* type;
    std::string zone;
  };
  std::vector<Override> overrides;
  for (std::size_t i = 0; i < n_types; ++i)
    for (const auto& o : planned.options[i]->offerings)
      if (offered(o, ct)) overrides.push_back(Override{o.price, planned.options[i], o.zone});
  // lowest-price (on-demand) and price-capacity-optimized (spot) both start from the cheapest.
  std::stable_sort(overrides.begin(), overrides.end(), [](const Override& a, const Override& b) {
    if (a.price != b.price) return a.price < b.price;
    if (a.type->name() != b.type->name()) return a.type->name() < b.type->name();
    return a.zone < b.zone;
  });

  NodeClaimState c;
  c.name = pool.name + "-" + c_.api.random_suffix();
  c.node_pool = pool.name;
  c.node_class = nc.name;
  c.requirements = reqs;
  c.taints = pool.taints;
  c.startup_taints = pool.startup_taints;
  c.requests = planned.requests;
  c.daemon_overhead = planned.tmpl->daemon_overhead;
  c.created = now;
  c.last_pod_event = now;
  c.pool_hash = pool_hash(pool);
  c.class_hash = class_hash(nc);
  c.replacement = replacement;
  for (const auto* p : planned.pods) c.pods.push_back(p->meta.ns + "/" + p->meta.name);

  std::optional<aws::AwsError> last_error;
  const aws::InstanceType* chosen = nullptr;
  for (const auto& o : overrides) {
    aws::LaunchRequest lr;
    lr.type = o.type->type;
    for (const auto& s : c_.ec2.subnets())
      if (s.az == o.zone && (nc.subnet_ids.empty() || std::find(nc.subnet_ids.begin(), nc.subnet_ids.end(), s.id) != nc.subnet_ids.end())) {
        lr.subnet_id = s.id;
        break;
      }
    lr.spot = ct == "spot";
    lr.iam_role = nc.role;
    lr.owner = c.name;
    lr.tags = nc.tags;
    lr.tags["karpenter.sh/nodepool"] = pool.name;
    lr.tags["karpenter.sh/nodeclaim"] = c.name;
    lr.tags["eks:eks-cluster-name"] = c_.spec().name;
    auto r = c_.ec2.run_instance(lr);
    if (auto* err = std::get_if<aws::AwsError>(&r)) {
      last_error = *err;
      if (is_insufficient_capacity_error(err->code)) {
        ice_.mark(o.type->name(), o.zone, ct, now);
        continue;
      }
      break;
    }
    c.instance_id = std::get<std::string>(r);
    c.instance_type = o.type->name();
    chosen = o.type->type;
    c.zone = o.zone;
    c.capacity_type = ct;
    c.price_per_hour = o.price;
    c.capacity = o.type->capacity;
    c.allocatable = o.type->allocatable;
    break;
  }
  ice_.apply(types_by_class_[nc.name], now);
  if (c.instance_id.empty()) {
    // The NodeClaim is deleted and the pods go back to the next batch without those offerings.
    c.phase = NodeClaimPhase::Deleted;
    c.deleted_at = now;
    claims_.push_back(c);
    std::string msg = last_error ? last_error->str() : "no instance type offerings available";
    if (last_error && is_insufficient_capacity_error(last_error->code)) {
      event(EventType::Warning, "InsufficientCapacityError", claim_ref(c.name),
            "NodeClaim " + c.name + " event: creating instance, insufficient capacity, with fleet error(s), " + msg);
    } else {
      engine::Activity a;
      a.start = a.end = now;
      a.service = "ec2";
      a.resource = c.name;
      a.status = "Failed";
      a.description = "CreateFleet for NodeClaim " + c.name;
      a.status_message = msg;
      c_.log.record_activity(std::move(a));
    }
    trigger();
    return -1;
  }
  // Labels: template labels, requirement labels (custom keys get one of their values), the
  // launched type's well-known labels, pool and class.
  c.labels = pool.labels;
  for (const auto& [k, v] : reqs.labels())
    if (!restricted_label(domain(), k) || well_known_labels(domain()).count(k)) c.labels[k] = v;
  const Requirements type_reqs = instance_type_requirements(*chosen, domain());
  for (const auto& [k, r] : type_reqs.all())
    if (r.op() == "In") c.labels[k] = r.any();
  c.labels[k8s::kLabelZone] = c.zone;
  c.labels[kLabelCapacityType] = ct;
  c.labels[kLabelNodePool] = pool.name;
  if (!settings_.auto_mode) c.labels[kLabelNodeClassOss] = nc.name;
  else c.labels["eks.amazonaws.com/compute-type"] = "auto";
  engine::Activity a;
  a.start = a.end = now;
  a.service = "ec2";
  a.resource = c.name;
  a.status = "Successful";
  a.description = "launched nodeclaim " + c.name + " instance-type=" + c.instance_type + " zone=" + c.zone +
                  " capacity-type=" + ct + " provider-id=aws:///" + c.zone + "/" + c.instance_id;
  c_.log.record_activity(std::move(a));
  claims_.push_back(c);
  std::string name = c.name;
  c_.sim.schedule(kRegistrationTimeout, [this, name] {
    NodeClaimState* cl = claim_by_name(name);
    if (!cl || cl->phase != NodeClaimPhase::Launched) return;
    engine::Activity t;
    t.start = t.end = c_.sim.now();
    t.service = "karpenter";
    t.resource = name;
    t.status = "Successful";
    t.description = "terminating due to timeout";
    t.cause = "reason=registration_timeout timeout=15m0s";
    c_.log.record_activity(std::move(t));
    delete_claim(*cl, "", true);
  });
  return static_cast<int>(claims_.size()) - 1;
}

// --- lifecycle -------------------------------------------------------------------------------

void Controller::on_instance_running(aws::Instance& inst) {
  NodeClaimState* c = claim_by_instance(inst.id);
  if (!c || c->phase == NodeClaimPhase::Deleting || c->phase == NodeClaimPhase::Deleted) return;
  k8s::MachineSpec m = c_.machine_for(inst, nullptr);
  for (const auto& [k, v] : c->labels) m.labels[k] = v;
  m.register_with_taints = c->taints;
  for (const auto& t : c->startup_taints) m.register_with_taints.push_back(t);
  m.node_pool = c->node_pool;
  m.capacity_type = c->capacity_type;
  // The al2023@latest alias (and Auto Mode) resolves to the accelerated AMI for GPU types.
  m.nvidia_ami = inst.type->gpu.count > 0;
  // Auto Mode creates the access entry for its node role itself, and boots its own
  // Bottlerocket-based image (docs.aws.amazon.com/eks/latest/best-practices/automode.html).
  if (settings_.auto_mode) {
    m.role_mapped = true;
    m.bootstrap = k8s::BootstrapFlavor::Bottlerocket;
    m.eks_auto_mode_image = true;
  }
  c->node_name = m.node_name;
  c_.join_instance(inst, std::move(m));
}

void Controller::on_instance_terminated(aws::Instance& inst) {
  NodeClaimState* c = claim_by_instance(inst.id);
  if (!c || c->phase == NodeClaimPhase::Deleted) return;
  c->phase = NodeClaimPhase::Deleted;
  c->deleted_at = c_.sim.now();
  trigger();
}

void Controller::on_pod_moved(k8s::NodeId node) {
  if (!node.valid()) return;
  if (NodeClaimState* c = claim_by_instance(c_.api.node(node).instance_id)) c->last_pod_event = c_.sim.now();
}

void Controller::on_node(k8s::NodeId id, k8s::NodeChange change) {
  if (in_node_update_) return;
  k8s::NodeRecord& rec = c_.api.node(id);
  NodeClaimState* c = claim_by_instance(rec.instance_id);
  if (change == k8s::NodeChange::Deleted) {
    if (c && c->phase != NodeClaimPhase::Deleted && c->phase != NodeClaimPhase::Deleting) delete_claim(*c, "", true);
    trigger();
    return;
  }
  // provisioner.trigger.node: a node with the disrupted taint has pods to provision for.
  if (has_taint(rec.node.taints, kTaintDisrupted)) trigger();
  if (!c || c->phase == NodeClaimPhase::Deleted) return;
  if (change == k8s::NodeChange::Ready && settings_.auto_mode) {
    // The node image's own device plugin (no DaemonSet); a no-op on a node without GPUs.
    std::string node = rec.node.meta.name;
    c_.sim.schedule(settings_.auto_mode_device_plugin_delay, [this, node] {
      if (auto n = c_.api.find_node(node)) k8s::advertise_gpus(c_.api, *n);
    });
  }
  if (!c->registered_at) {
    c->registered_at = c_.sim.now();
    c->node_name = rec.node.meta.name;
    if (c->phase == NodeClaimPhase::Launched) c->phase = NodeClaimPhase::Registered;
    rec.node.meta.labels[kLabelRegistered] = "true";
    in_node_update_ = true;
    c_.api.node_changed(id, k8s::NodeChange::Updated);
    in_node_update_ = false;
  }
  check_initialized(*c, rec);
}

void Controller::check_initialized(NodeClaimState& c, k8s::NodeRecord& rec) {
  if (c.phase != NodeClaimPhase::Registered || !rec.node.ready) return;
  for (const auto& t : c.startup_taints)
    if (has_taint(rec.node.taints, t.key)) {
      c.initialized_message = "StartupTaintsExist";
      return;
    }
  for (const auto& [r, v] : c.requests.items()) {
    if (v > 0 && rec.node.allocatable.get(r) == 0) {
      c.initialized_message = "Resource \"" + r + "\" was requested but not registered";
      return;
    }
  }
  c.initialized_message.clear();
  c.phase = NodeClaimPhase::Initialized;
  c.initialized_at = c_.sim.now();
  c.last_pod_event = std::max(c.last_pod_event, c_.sim.now());
  rec.node.meta.labels[kLabelInitialized] = "true";
  in_node_update_ = true;
  c_.api.node_changed(*c_.api.find_node(rec.node.meta.name), k8s::NodeChange::Updated);
  in_node_update_ = false;
}

void Controller::delete_claim(NodeClaimState& c, const std::string& reason, bool /*forceful*/) {
  if (c.phase == NodeClaimPhase::Deleting || c.phase == NodeClaimPhase::Deleted) return;
  c.phase = NodeClaimPhase::Deleting;
  if (!reason.empty()) c.disruption_reason = reason;
  auto node = c.node_name.empty() ? std::nullopt : c_.api.find_node(c.node_name);
  if (!node) {
    if (!c.instance_id.empty()) c_.ec2.terminate(c.instance_id);
    else c.phase = NodeClaimPhase::Deleted;
    return;
  }
  // Termination: taint karpenter.sh/disrupted:NoSchedule, evict what a drain moves, then
  // terminate the instance (its Node goes with it).
  set_disrupted_taint(c.node_name, true);
  k8s::NodeRecord& rec = c_.api.node(*node);
  std::vector<k8s::PodId> evict;
  for (k8s::PodId p : rec.pods)
    if (reschedulable(c_.api.pod(p))) evict.push_back(p);
  for (k8s::PodId p : evict) c_.kubelet->delete_pod(p);
  finish_drain(c.name);
}

void Controller::set_disrupted_taint(const std::string& node_name, bool on) {
  auto node = node_name.empty() ? std::nullopt : c_.api.find_node(node_name);
  if (!node) return;
  k8s::NodeRecord& rec = c_.api.node(*node);
  if (rec.deleted || has_taint(rec.node.taints, kTaintDisrupted) == on) return;
  if (on) rec.node.taints.push_back(k8s::Taint{kTaintDisrupted, "", k8s::kNoSchedule});
  else std::erase_if(rec.node.taints, [](const k8s::Taint& t) { return t.key == kTaintDisrupted; });
  in_node_update_ = true;
  c_.api.node_changed(*node, k8s::NodeChange::Updated);
  in_node_update_ = false;
  if (on) trigger();  // provisioner.trigger.node
}

void Controller::finish_drain(const std::string& name) {
  NodeClaimState* c = claim_by_name(name);
  if (!c || c->phase != NodeClaimPhase::Deleting) return;
  auto node = c->node_name.empty() ? std::nullopt : c_.api.find_node(c->node_name);
  if (node) {
    for (k8s::PodId p : c_.api.node(*node).pods) {
      const auto& r = c_.api.pod(p);
      if (!r.deleted && !k8s::is_daemonset_pod(r.pod) && r.pod.status.phase != k8s::PodPhase::Succeeded &&
          r.pod.status.phase != k8s::PodPhase::Failed) {
        c_.sim.schedule(Duration::seconds(1), [this, name] { finish_drain(name); });
        return;
      }
    }
  }
  aws::Instance* inst = c_.ec2.find(c->instance_id);
  if (inst && inst->state != aws::InstanceState::Terminated && inst->state != aws::InstanceState::ShuttingDown)
    c_.ec2.terminate(c->instance_id);
}

void Controller::spot_interruption(const std::string& instance_id) {
  NodeClaimState* c = claim_by_instance(instance_id);
  if (!c || c->phase == NodeClaimPhase::Deleted) return;
  const std::string msg = "Spot interruption warning was triggered";
  event(EventType::Warning, "SpotInterrupted", claim_ref(c->name), msg);
  if (!c->node_name.empty()) event(EventType::Warning, "SpotInterrupted", {"Node", "", c->node_name}, msg);
  event(EventType::Warning, "TerminatingOnInterruption", claim_ref(c->name), "Interruption triggered termination for the NodeClaim");
  if (!c->node_name.empty())
    event(EventType::Warning, "TerminatingOnInterruption", {"Node", "", c->node_name}, "Interruption triggered termination for the Node");
  if (c->capacity_type == "spot") ice_.mark(c->instance_type, c->zone, "spot", c_.sim.now());
  delete_claim(*c, "Interrupted", true);
  // EC2 reclaims the instance at the end of the notice whether or not the drain finished.
  std::string id = instance_id;
  c_.sim.schedule(kSpotNotice, [this, id] {
    aws::Instance* inst = c_.ec2.find(id);
    if (inst && inst->state != aws::InstanceState::Terminated && inst->state != aws::InstanceState::ShuttingDown)
      c_.ec2.terminate(id);
  });
  trigger();
}

void Controller::rebalance_recommendation(const std::string& instance_id) {
  NodeClaimState* c = claim_by_instance(instance_id);
  if (!c || c->phase == NodeClaimPhase::Deleted) return;
  // karpenter-provider-aws pkg/controllers/interruption/events.go, RebalanceRecommendation.
  const std::string msg = "Spot rebalance recommendation was triggered";
  event(EventType::Normal, "SpotRebalanceRecommendation", claim_ref(c->name), msg);
  if (!c->node_name.empty()) event(EventType::Normal, "SpotRebalanceRecommendation", {"Node", "", c->node_name}, msg);
}

// --- disruption ------------------------------------------------------------------------------

std::string Controller::pool_hash(const NodePool& p) const {
  std::string h;
  for (const auto& [k, v] : p.labels) h += k + "=" + v + ",";
  h += "|";
  for (const auto& [k, v] : p.annotations) h += k + "=" + v + ",";
  h += "|";
  for (const auto& t : p.taints) h += t.key + "=" + t.value + ":" + t.effect + ",";
  h += "|";
  for (const auto& t : p.startup_taints) h += t.key + "=" + t.value + ":" + t.effect + ",";
  h += "|" + p.node_class_group + "/" + p.node_class_kind + "/" + p.node_class_name;
  return h;
}

std::string Controller::class_hash(const NodeClass& c) const {
  std::string h = c.kind + "|" + c.role + "|" + c.ami_family + "|" + c.ami_alias + "|" + std::to_string(c.root_volume_gib) + "|";
  for (const auto& [k, v] : c.tags) h += k + "=" + v + ",";
  return h;
}

bool Controller::budget_active(const Budget& b) const {
  // Budget.IsActive: without a schedule always; else when a cron hit (UTC) falls in
  // (now - duration, now]. Simulated time 0 is settings_.start_unix_seconds.
  if (b.schedule.empty()) return true;
  auto cron = parse_cron(b.schedule);
  if (!cron || !b.duration) return false;
  const std::int64_t now = settings_.start_unix_seconds + c_.sim.now().us / 1000000;
  return cron_window_active(*cron, now, b.duration->us / 1000000);
}

int Controller::allowed_disruptions(const NodePool& p, const std::string& reason) const {
  std::int64_t nodes = 0, disrupting = 0;
  for (const auto& c : claims_) {
    if (c.node_pool != p.name || c.phase == NodeClaimPhase::Deleted) continue;
    ++nodes;
    if (c.phase == NodeClaimPhase::Deleting || !c.replacements.empty()) ++disrupting;
  }
  std::int64_t allowed = INT32_MAX;
  for (const auto& b : p.budgets) {
    if (!b.reasons.empty() && std::find(b.reasons.begin(), b.reasons.end(), reason) == b.reasons.end()) continue;
    if (!budget_active(b)) continue;
    std::int64_t v = 0;
    if (!b.nodes.empty() && b.nodes.back() == '%') {
      // intstr.GetScaledValueFromIntOrPercent(..., roundUp=true)
      std::int64_t pct = std::stoll(b.nodes.substr(0, b.nodes.size() - 1));
      v = (nodes * pct + 99) / 100;
    } else {
      v = std::stoll(b.nodes);
    }
    allowed = std::min(allowed, v);
  }
  return static_cast<int>(std::max<std::int64_t>(0, allowed - disrupting));
}

bool Controller::pods_block_disruption(const k8s::NodeRecord& rec) const {
  auto dnd = [](const k8s::Labels& a) {
    auto it = a.find(kAnnotationDoNotDisrupt);
    return it != a.end() && it->second == "true";
  };
  if (dnd(rec.node.meta.annotations)) return true;
  for (k8s::PodId p : rec.pods) {
    const auto& r = c_.api.pod(p);
    if (reschedulable(r) && dnd(r.pod.meta.annotations)) return true;
  }
  return false;
}

// --- multi-node consolidation ------------------------------------------------------------------

bool Controller::underutilized_candidate(const NodeClaimState& c, SimTime now) const {
  if (c.phase != NodeClaimPhase::Initialized || !c.replacements.empty()) return false;
  auto pool_it = pools_.find(c.node_pool);
  if (pool_it == pools_.end() || pool_it->second.consolidation_policy != "WhenEmptyOrUnderutilized") return false;
  const NodePool& pool = pool_it->second;
  if (!pool.consolidate_after || now - std::max(c.last_pod_event, c.initialized_at.value_or(now)) < *pool.consolidate_after)
    return false;
  if (pool.expire_after && now - c.created >= *pool.expire_after) return false;  // expiration goes first
  auto node = c_.api.find_node(c.node_name);
  if (!node) return false;
  const k8s::NodeRecord& rec = c_.api.node(*node);
  if (has_taint(rec.node.taints, kTaintDisrupted) || pods_block_disruption(rec)) return false;
  // Drifted nodes are replaced by drift, not consolidation.
  auto cls = classes_.find(c.node_class);
  if (c.pool_hash != pool_hash(pool) || cls == classes_.end() || c.class_hash != class_hash(cls->second)) return false;
  bool any_pod = false;
  for (k8s::PodId p : rec.pods)
    if (reschedulable(c_.api.pod(p))) any_pod = true;
  return any_pod;  // empty nodes are emptiness's
}

double Controller::disruption_cost(const NodeClaimState& c, SimTime now) const {
  // disruption/helpers.go: ReschedulingCost(pods) * LifetimeRemaining. Each evictable pod costs
  // EvictionCost = 1 (no pod-deletion-cost annotation or priority adjustment modelled); the
  // lifetime factor is the fraction of expireAfter left.
  double pods = 0;
  if (auto node = c_.api.find_node(c.node_name))
    for (k8s::PodId p : c_.api.node(*node).pods)
      if (reschedulable(c_.api.pod(p))) pods += 1;
  double lifetime = 1;
  auto pool_it = pools_.find(c.node_pool);
  if (pool_it != pools_.end() && pool_it->second.expire_after && pool_it->second.expire_after->us > 0)
    lifetime = std::clamp(1.0 - static_cast<double>((now - c.created).us) / static_cast<double>(pool_it->second.expire_after->us),
                          0.0, 1.0);
  return pods * lifetime;
}

std::optional<Controller::ConsolidationCommand> Controller::compute_consolidation(const std::vector<std::string>& names) {
  // computeConsolidation: simulate the candidates' pods without the candidates; all fit on the
  // rest -> delete; else at most one new NodeClaim, cheaper than the candidates together -> replace.
  auto& api = c_.api;
  ConsolidationCommand cmd;
  cmd.pods = std::make_unique<std::vector<k8s::Pod>>();
  std::set<std::string> nodes;
  double total_price = 0;
  bool any_spot = false;
  std::set<std::string> candidate_types;
  std::map<std::string, double> candidate_price;  // cheapest price of each candidate type
  for (const auto& n : names) {
    NodeClaimState* c = claim_by_name(n);
    if (!c) return std::nullopt;
    nodes.insert(c->node_name);
    total_price += c->price_per_hour;
    any_spot |= c->capacity_type == "spot";
    auto [it, inserted] = candidate_price.emplace(c->instance_type, c->price_per_hour);
    if (!inserted) it->second = std::min(it->second, c->price_per_hour);
    if (auto node = api.find_node(c->node_name))
      for (k8s::PodId p : api.node(*node).pods)
        if (reschedulable(api.pod(p))) cmd.pods->push_back(unbound(api.pod(p).pod));
  }
  std::vector<const k8s::Pod*> pods;
  for (const auto& p : *cmd.pods) pods.push_back(&p);
  std::vector<ExistingNode> others = existing_nodes();
  std::erase_if(others, [&](const ExistingNode& e) { return !e.node_name.empty() && nodes.count(e.node_name); });
  cmd.candidates = names;
  cmd.daemons = std::make_unique<std::vector<k8s::Pod>>(daemon_pods());
  cmd.templates = std::make_unique<std::vector<NodeClaimTemplate>>(templates(*cmd.daemons));
  SchedulingResults res = solve(pods, others, *cmd.templates, domain());
  if (!res.errors.empty() || res.new_claims.size() > 1 || relies_on_uninitialized(res, others)) return std::nullopt;
  if (res.new_claims.empty()) return cmd;  // delete
  // Spot candidates are only replaced with the SpotToSpotConsolidation feature gate.
  if (any_spot && !settings_.spot_to_spot_consolidation) return std::nullopt;
  PlannedNodeClaim planned = std::move(res.new_claims[0]);
  // Cheaper than the candidates together, and (filterOutSameType) cheaper than the cheapest
  // candidate whose type is among the options: otherwise deleting the others is the better move.
  double max_price = total_price;
  for (const auto* it : planned.options) {
    auto cp = candidate_price.find(it->name());
    if (cp != candidate_price.end()) max_price = std::min(max_price, cp->second);
  }
  std::erase_if(planned.options, [&](const InstanceTypeInfo* it) {
    double p = it->cheapest(planned.requirements);
    return p < 0 || p >= max_price;
  });
  if (planned.options.empty()) return std::nullopt;
  cmd.replacement.push_back(std::move(planned));
  return cmd;
}

bool Controller::multi_node_consolidation(SimTime now) {
  // MultiNodeConsolidation.ComputeCommand: candidates by disruption cost, pre-filtered by the
  // NodePools' budgets, then a binary search for the longest prefix [0, n] that one command
  // can disrupt (at least two nodes; single-node consolidation handles one).
  std::vector<std::pair<double, std::string>> ranked;
  for (const auto& c : claims_)
    if (underutilized_candidate(c, now)) ranked.emplace_back(disruption_cost(c, now), c.name);
  std::sort(ranked.begin(), ranked.end());
  std::map<std::string, int> budget;
  std::vector<std::string> candidates;
  bool constrained = false;
  for (const auto& [cost, name] : ranked) {
    const NodeClaimState* c = claim_by_name(name);
    auto b = budget.find(c->node_pool);
    if (b == budget.end()) b = budget.emplace(c->node_pool, allowed_disruptions(pools_.at(c->node_pool), "Underutilized")).first;
    if (b->second <= 0) {
      constrained = true;
      continue;
    }
    --b->second;
    candidates.push_back(name);
  }
  (void)constrained;
  std::optional<ConsolidationCommand> best;
  if (candidates.size() >= 2) {
    std::size_t lo = 1, hi = std::min<std::size_t>(candidates.size(), 100) - 1;
    while (lo <= hi) {
      std::size_t mid = (lo + hi) / 2;
      std::vector<std::string> prefix(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(mid + 1));
      auto cmd = compute_consolidation(prefix);
      if (cmd) {
        best = std::move(cmd);
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
  }
  if (!best) {
    pending_multi_.reset();
    return false;
  }
  // Validation: the same command must still hold consolidationTTL later.
  if (!pending_multi_ || pending_multi_->candidates != best->candidates || pending_multi_->replace != !best->replacement.empty()) {
    pending_multi_ = PendingMulti{best->candidates, !best->replacement.empty(), now + kValidationTtl};
    return true;
  }
  if (now < pending_multi_->validate_at) return true;
  pending_multi_.reset();
  const std::string reason = "Underutilized";
  if (best->replacement.empty()) {
    for (const auto& name : best->candidates) {
      NodeClaimState* c = claim_by_name(name);
      event(EventType::Normal, "DisruptionTerminating", {"Node", "", c->node_name}, "Disrupting Node: " + reason);
      event(EventType::Normal, "DisruptionTerminating", claim_ref(c->name), "Disrupting NodeClaim: " + reason);
      delete_claim(*c, reason, false);
    }
    return true;
  }
  // executeCommand: taint the candidates before launching their replacement.
  for (const auto& name : best->candidates)
    if (const NodeClaimState* c = claim_by_name(name)) set_disrupted_taint(c->node_name, true);
  int idx = launch(best->replacement[0], true);
  if (idx < 0) {
    for (const auto& name : best->candidates)
      if (const NodeClaimState* c = claim_by_name(name)) set_disrupted_taint(c->node_name, false);
    return true;
  }
  const std::string replacement = claims_[idx].name;
  event(EventType::Normal, "DisruptionLaunching", claim_ref(replacement), "Launching NodeClaim: " + reason);
  event(EventType::Normal, "DisruptionWaitingReadiness", claim_ref(replacement), "Waiting on readiness to continue disruption");
  for (const auto& name : best->candidates) {
    NodeClaimState* c = claim_by_name(name);
    c->disruption_reason = reason;
    c->replacements = {replacement};
    pending_commands_.erase(name);
  }
  return true;
}

void Controller::disrupt() {
  const SimTime now = c_.sim.now();
  auto& api = c_.api;
  // Pending pods retry on every poll (ICE cache expiry, limits freed, NodePools changed), and so
  // do nodes marked for deletion (provisioner.trigger.node requeues every 10 s).
  bool retry = false;
  for (std::size_t i = 0; i < api.pod_slots() && !retry; ++i)
    retry = provisionable(api.pod(k8s::PodId{static_cast<std::uint32_t>(i)}));
  if (!retry && !deleting_node_pods().empty()) retry = true;
  if (retry) trigger();
  // Replacements that have initialized let their originals go.
  for (auto& c : claims_) {
    if (c.replacements.empty() || c.phase == NodeClaimPhase::Deleting || c.phase == NodeClaimPhase::Deleted) continue;
    bool ready = true, failed = false;
    for (const auto& r : c.replacements) {
      NodeClaimState* rc = claim_by_name(r);
      if (!rc || rc->phase == NodeClaimPhase::Deleted || rc->phase == NodeClaimPhase::Deleting) failed = true;
      else if (rc->phase != NodeClaimPhase::Initialized) ready = false;
    }
    if (failed) {
      // The command failed: the candidate is schedulable again (RequireNoScheduleTaint false).
      c.replacements.clear();
      c.disruption_reason.clear();
      set_disrupted_taint(c.node_name, false);
      continue;
    }
    if (!ready) continue;
    c.replacements.clear();
    std::string reason = c.disruption_reason;
    event(EventType::Normal, "DisruptionTerminating", {"Node", "", c.node_name}, "Disrupting Node: " + title(reason));
    event(EventType::Normal, "DisruptionTerminating", claim_ref(c.name), "Disrupting NodeClaim: " + title(reason));
    delete_claim(c, reason, false);
  }

  // Multi-node consolidation comes before single-node; while it holds a command, single-node
  // consolidation waits.
  const bool multi = multi_node_consolidation(now);
  bool single_node_done = false;
  std::vector<std::string> names;
  for (const auto& c : claims_)
    if (c.phase == NodeClaimPhase::Initialized && c.replacements.empty()) names.push_back(c.name);
  for (const auto& name : names) {
    NodeClaimState* c = claim_by_name(name);
    if (!c || c->phase != NodeClaimPhase::Initialized) continue;
    auto pool_it = pools_.find(c->node_pool);
    auto node = api.find_node(c->node_name);
    if (pool_it == pools_.end() || !node) continue;
    const NodePool& pool = pool_it->second;
    const k8s::NodeRecord& rec = api.node(*node);
    // Expiration is forceful in v1: no budget, no do-not-disrupt.
    if (pool.expire_after && now - c->created >= *pool.expire_after) {
      event(EventType::Normal, "DisruptionTerminating", {"Node", "", c->node_name}, "Disrupting Node: Expired");
      event(EventType::Normal, "DisruptionTerminating", claim_ref(c->name), "Disrupting NodeClaim: Expired");
      delete_claim(*c, "Expired", true);
      continue;
    }
    if (pods_block_disruption(rec)) {
      pending_commands_.erase(name);
      continue;
    }
    std::vector<k8s::Pod> moved;
    for (k8s::PodId p : rec.pods)
      if (reschedulable(api.pod(p))) moved.push_back(unbound(api.pod(p).pod));
    std::vector<const k8s::Pod*> pods;
    for (const auto& p : moved) pods.push_back(&p);

    // Drift: the NodePool template or NodeClass changed, or the node no longer meets the
    // NodePool's requirements.
    std::string reason;
    auto cls = classes_.find(c->node_class);
    bool drifted = c->pool_hash != pool_hash(pool) || cls == classes_.end() || c->class_hash != class_hash(cls->second);
    for (const auto& r : pool.requirements) {
      auto lbl = rec.node.meta.labels.find(r.key);
      if (lbl != rec.node.meta.labels.end() && !Requirement(r.key, r.op, r.values).has(lbl->second)) drifted = true;
    }
    bool consolidatable = pool.consolidate_after &&
                          now - std::max(c->last_pod_event, c->initialized_at.value_or(now)) >= *pool.consolidate_after;
    if (drifted) reason = "Drifted";
    else if (consolidatable && pods.empty()) reason = "Empty";
    else if (consolidatable && pool.consolidation_policy == "WhenEmptyOrUnderutilized") reason = "Underutilized";
    if (reason.empty() || (multi && reason == "Underutilized")) {
      pending_commands_.erase(name);
      continue;
    }
    if (allowed_disruptions(pool, reason) <= 0) {
      event(EventType::Normal, "DisruptionBlocked", pool_ref(pool.name),
            "No allowed disruptions for disruption reason " + reason + " due to blocking budget", Duration::minutes(1));
      continue;
    }
    // Simulate the node's pods elsewhere: existing nodes first, new NodeClaims if needed.
    std::vector<PlannedNodeClaim> replacements;
    std::vector<k8s::Pod> daemons;
    std::vector<NodeClaimTemplate> tmpls;
    if (!pods.empty()) {
      // One simulation with the NodePools, as upstream's SimulateScheduling: no new NodeClaim
      // means the pods fit elsewhere (their topology domains still count the pools' zones).
      daemons = daemon_pods();
      tmpls = templates(daemons);
      std::vector<ExistingNode> others = existing_nodes(c->node_name);
      SchedulingResults sim = solve(pods, others, tmpls, domain());
      if (relies_on_uninitialized(sim, others)) {
        pending_commands_.erase(name);
        continue;
      }
      if (!sim.errors.empty() || !sim.new_claims.empty()) {
        if (reason == "Underutilized") {
          bool cheaper = sim.errors.empty() && sim.new_claims.size() == 1 &&
                         sim.new_claims[0].options.front()->cheapest(sim.new_claims[0].requirements) < c->price_per_hour;
          if (cheaper && c->capacity_type == "spot" && !settings_.spot_to_spot_consolidation) cheaper = false;
          if (!cheaper) {
            pending_commands_.erase(name);
            continue;
          }
        }
        replacements = std::move(sim.new_claims);
      }
    }
    if (reason != "Drifted") {
      // Consolidation waits kValidationTtl and re-validates before acting.
      auto it = pending_commands_.find(name);
      if (it == pending_commands_.end()) {
        pending_commands_[name] = now + kValidationTtl;
        continue;
      }
      if (now < it->second) continue;
      // SingleNodeConsolidation returns one command per pass; the others wait for the next.
      if (reason == "Underutilized" && single_node_done) continue;
      pending_commands_.erase(it);
      if (reason == "Underutilized") single_node_done = true;
    }
    c->disruption_reason = reason;
    // executeCommand: the candidate is tainted karpenter.sh/disrupted:NoSchedule before any
    // replacement is launched, so that nothing new schedules onto it meanwhile.
    set_disrupted_taint(c->node_name, true);
    if (replacements.empty()) {
      event(EventType::Normal, "DisruptionTerminating", {"Node", "", c->node_name}, "Disrupting Node: " + reason);
      event(EventType::Normal, "DisruptionTerminating", claim_ref(c->name), "Disrupting NodeClaim: " + reason);
      delete_claim(*c, reason, false);
      continue;
    }
    std::vector<std::string> launched;
    for (const auto& planned : replacements) {
      int idx = launch(planned, true);
      if (idx < 0) break;
      launched.push_back(claims_[idx].name);
      event(EventType::Normal, "DisruptionLaunching", claim_ref(claims_[idx].name), "Launching NodeClaim: " + reason);
      event(EventType::Normal, "DisruptionWaitingReadiness", claim_ref(claims_[idx].name),
            "Waiting on readiness to continue disruption");
    }
    c = claim_by_name(name);  // launch() may have grown claims_
    if (launched.size() != replacements.size()) {
      c->disruption_reason.clear();
      set_disrupted_taint(c->node_name, false);
      continue;
    }
    c->replacements = launched;
  }
}

}  // namespace eksim::autoscaling::karpenter
