#include "sim/scenario/karpenter_manifest.hpp"

#include <algorithm>
#include <climits>

#include "models/autoscaling/karpenter/controller.hpp"
#include "models/autoscaling/karpenter/cron.hpp"
#include "models/k8s/api/quantity.hpp"
#include "sim/engine/numbers.hpp"
#include "sim/scenario/cluster_loader.hpp"
#include "sim/scenario/manifest_decoding.hpp"

namespace eksim::scenario {

namespace {

namespace kp = autoscaling::karpenter;

std::string invalid(const ObjectRef& obj, const std::string& path, const std::string& bad, const std::string& detail) {
  return "The " + obj.kind + " \"" + obj.name + "\" is invalid: " + path + ": Invalid value: \"" + bad + "\": " + detail;
}

ObjectRef object_ref(const Value& v, const std::string& kind) {
  ObjectRef r;
  r.kind = kind;
  r.version = "v1";
  r.name = raw_name(v);  // a bad metadata is reported by read_metadata, located
  return r;
}

// A mapping inside a Karpenter object, read strictly and reported in the API server's voice for
// custom resources: a field the CRD does not declare is a strict decoding error naming its full
// path (as for Pods), a missing required one a Required value, a value of the wrong type the
// schema's "in body must be of type object".
class CrdFields {
 public:
  CrdFields(const ObjectRef& obj, const Value& v, std::string path) : obj_(obj), path_(std::move(path)), r_(mapping(obj, v, path_)) {}
  const Value& self() const { return r_.self(); }
  std::optional<Value> get(const std::string& key) {
    known_.push_back(key);
    return r_.get(key);
  }
  Value require(const std::string& key) {
    if (!r_.has(key)) r_.self().fail("The " + obj_.kind + " " + manifest::quote(obj_.name) + " is invalid: " + field(key) + ": Required value");
    return *get(key);
  }
  void allow(std::initializer_list<const char*> keys) {
    r_.allow(keys);
    known_.insert(known_.end(), keys.begin(), keys.end());
  }
  void finish() const {
    auto unread = r_.unread_keys();
    if (unread.empty()) return;
    const auto& [key, where] = unread.front();
    std::string hint = did_you_mean(key, known_);
    throw InputError(where, obj_.kind + " in version " + manifest::quote(obj_.version) + " cannot be handled as a " + obj_.kind +
                                ": strict decoding error: unknown field " + manifest::quote(field(key)) +
                                (hint.empty() ? "" : "; did you mean " + manifest::quote(hint) + "?"));
  }

 private:
  static MapReader mapping(const ObjectRef& obj, const Value& v, const std::string& path) {
    if (!v.is_map()) {
      const std::string type = v.is_seq() ? "array" : v.is_null() ? "null" : "string";
      v.fail("The " + obj.kind + " " + manifest::quote(obj.name) + " is invalid: " + path + ": Invalid value: \"" + type +
             "\": " + path + " in body must be of type object: \"" + type + "\"");
    }
    return MapReader(v, path);
  }
  std::string field(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

  const ObjectRef& obj_;
  std::string path_;
  MapReader r_;
  std::vector<std::string> known_;  // for the did-you-mean
};

// metadata of a cluster-scoped object: the API server drops a namespace given for one.
void read_metadata(CrdFields& top, const ObjectRef& obj, k8s::Labels* labels = nullptr) {
  auto md = top.get("metadata");
  if (!md) top.self().fail("The " + obj.kind + " \"\" is invalid: metadata.name: Required value: name or generateName is required");
  MapReader m(*md, "metadata");
  std::string name = m.require("name").as_string();
  auto errs = dns1123_subdomain_errors(name);
  if (!errs.empty()) md->fail(invalid(obj, "metadata.name", name, errs.front()));
  if (auto l = m.get("labels")) {
    auto parsed = parse_labels(*l, obj, "metadata.labels", "ObjectMeta");
    if (labels) *labels = parsed;
  }
  if (auto a = m.get("annotations")) a->as_string_map();
  m.allow({"namespace", "uid", "resourceVersion", "generation", "creationTimestamp", "finalizers", "ownerReferences",
           "managedFields", "generateName"});
  m.finish();
}

std::vector<k8s::Taint> read_taints(const Value& v, const ObjectRef& obj, const std::string& path) {
  std::vector<k8s::Taint> out;
  auto items = v.items();
  for (std::size_t i = 0; i < items.size(); ++i) {
    std::string p = path + "[" + std::to_string(i) + "]";
    CrdFields r(obj, items[i], p);
    k8s::Taint t;
    t.key = r.require("key").as_string();
    if (auto val = r.get("value")) t.value = val->as_string();
    Value eff = r.require("effect");
    t.effect = eff.as_string();
    if (t.effect != "NoSchedule" && t.effect != "PreferNoSchedule" && t.effect != "NoExecute")
      eff.fail("The " + obj.kind + " \"" + obj.name + "\" is invalid: " + p + ".effect: Unsupported value: \"" + t.effect +
               "\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"");
    auto errs = qualified_name_errors(t.key);
    if (!errs.empty()) items[i].fail(invalid(obj, p + ".key", t.key, errs.front()));
    r.allow({"timeAdded"});
    r.finish();
    out.push_back(t);
  }
  return out;
}

std::optional<engine::Duration> duration_or_never(const Value& v) {
  if (v.is_scalar() && v.as_string() == "Never") return std::nullopt;
  return v.as_duration();
}

// One spec.disruption.budgets entry (index: its place, for messages).
kp::Budget read_budget(const ObjectRef& obj, const Value& item, std::size_t index) {
  CrdFields br(obj, item, "spec.disruption.budgets[" + std::to_string(index) + "]");
  kp::Budget bg;
  if (auto n = br.get("nodes")) {
    bg.nodes = n->as_string();
    const bool percent = !bg.nodes.empty() && bg.nodes.back() == '%';
    std::string digits = percent ? bg.nodes.substr(0, bg.nodes.size() - 1) : bg.nodes;
    bool all_digits = !digits.empty() && std::all_of(digits.begin(), digits.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
    // The CRD's pattern: a percentage is 0-100 with at most three digits.
    if (!all_digits || (percent && (digits.size() > 3 || (digits.size() == 3 && digits != "100"))))
      n->fail(invalid(obj, "spec.disruption.budgets.nodes", bg.nodes,
                      "spec.disruption.budgets.nodes in body should match '^((100|[0-9]{1,2})%|[0-9]+)$'"));
    // The pattern lets any count through; Karpenter reads it with strconv.Atoi into an int.
    if (!engine::parse_integer<std::int32_t>(digits).ok())
      n->fail(invalid(obj, "spec.disruption.budgets.nodes", bg.nodes,
                      "a node count must be at most " + std::to_string(INT32_MAX)));
  }
  if (auto rs = br.get("reasons")) {
    bg.reasons = rs->as_string_list();
    for (const auto& r : bg.reasons)
      if (r != "Underutilized" && r != "Empty" && r != "Drifted")
        rs->fail("The NodePool \"" + obj.name + "\" is invalid: spec.disruption.budgets.reasons: Unsupported value: \"" + r +
                 "\": supported values: \"Underutilized\", \"Empty\", \"Drifted\"");
  }
  auto sc = br.get("schedule");
  auto du = br.get("duration");
  if (sc) {
    bg.schedule = sc->as_string();
    std::string why;
    if (!kp::parse_cron(bg.schedule, &why))
      sc->fail(invalid(obj, "spec.disruption.budgets.schedule", bg.schedule, "invalid cron schedule: " + why));
  }
  if (du) bg.duration = du->as_duration();
  // The CRD's rule on budgets: a schedule needs a duration and a duration a schedule.
  if (static_cast<bool>(sc) != static_cast<bool>(du))
    item.fail("The NodePool \"" + obj.name + "\" is invalid: spec.disruption.budgets[" + std::to_string(index) +
              "]: Invalid value: \"object\": 'schedule' must be set with 'duration'");
  br.finish();
  return bg;
}

// spec.disruption: consolidation policy and delay, budgets (the CRD's patterns and rules).
void read_disruption(const ObjectRef& obj, const Value& d, kp::NodePool& p) {
  CrdFields dr(obj, d, "spec.disruption");
  if (auto cp = dr.get("consolidationPolicy")) {
    p.consolidation_policy = cp->as_string();
    if (p.consolidation_policy != "WhenEmpty" && p.consolidation_policy != "WhenEmptyOrUnderutilized")
      cp->fail("The NodePool \"" + obj.name + "\" is invalid: spec.disruption.consolidationPolicy: Unsupported value: \"" +
               p.consolidation_policy + "\": supported values: \"WhenEmpty\", \"WhenEmptyOrUnderutilized\"");
  }
  if (auto ca = dr.get("consolidateAfter")) p.consolidate_after = duration_or_never(*ca);
  if (auto b = dr.get("budgets")) {
    p.budgets.clear();
    for (const auto& item : b->items()) p.budgets.push_back(read_budget(obj, item, p.budgets.size()));
  }
  dr.finish();
}

// spec.template.spec.requirements: node selector requirements with Karpenter's minValues and
// the CRD's rules (Gt/Lt bounds, restricted labels).
void read_requirements(const ObjectRef& obj, const Value& r, kp::NodePool& p) {
  const kp::LabelDomain dom = kp::LabelDomain::Oss;  // and AutoMode below: the mode is not known at load time
  // minValues (NodeSelectorRequirementWithMinValues) is Karpenter's own: read it here, then
  // strip it before the shared node-selector parser sees the entry.
  auto items = r.items();
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (items[i].is_map()) {
      // NodeSelectorRequirementWithMinValues' fields: an unknown one is named with its full path
      // (and minValues is among the suggestions, which the shared parser does not know).
      CrdFields fields(obj, items[i], "spec.template.spec.requirements[" + std::to_string(i) + "]");
      fields.allow({"key", "operator", "values", "minValues"});
      fields.finish();
    }
    if (!items[i].is_map() || !items[i].node()["minValues"]) continue;
    Value mv(items[i].node()["minValues"], r.file_ptr());
    std::int64_t n = mv.as_int();
    std::string path = "spec.template.spec.requirements[" + std::to_string(i) + "].minValues";
    if (n < 1) mv.fail(invalid(obj, path, mv.as_string(), path + " in body should be greater than or equal to 1"));
    if (n > 50) mv.fail(invalid(obj, path, mv.as_string(), path + " in body should be less than or equal to 50"));
    std::string key = items[i].node()["key"] && items[i].node()["key"].IsScalar() ? items[i].node()["key"].Scalar() : "";
    p.min_values[key] = std::max(p.min_values[key], n);
  }
  YAML::Node copy = YAML::Clone(r.node());
  for (auto item : copy)
    if (item.IsMap()) item.remove("minValues");
  Value stripped(copy, r.file_ptr());
  p.requirements = parse_node_selector_requirements(stripped, obj, "spec.template.spec.requirements");
  for (std::size_t i = 0; i < p.requirements.size(); ++i) {
    const auto& req = p.requirements[i];
    // The CRD's CEL rule reads the bound with int(): a non-negative int64, nothing else.
    if ((req.op == "Gt" || req.op == "Lt") &&
        (req.values.size() != 1 || !engine::parse_integer<std::int64_t>(req.values[0]).ok() ||
         engine::parse_integer<std::int64_t>(req.values[0]).value < 0))
      (items[i].node()["values"] ? Value(items[i].node()["values"], r.file_ptr()) : items[i])
          .fail(invalid(obj, "spec.template.spec.requirements", "array",
                        "requirements operator 'Gt' or 'Lt' must have a single positive integer value"));
    if (req.key == kp::kLabelNodePool || req.key == k8s::kLabelHostname)
      items[i].fail(invalid(obj, "spec.template.spec.requirements[" + std::to_string(i) + "].key", req.key, "label is restricted"));
    if (kp::restricted_label(dom, req.key) && kp::restricted_label(kp::LabelDomain::AutoMode, req.key)) {
      std::string domain = req.key.substr(0, req.key.find('/'));
      items[i].fail(invalid(obj, "spec.template.spec.requirements[" + std::to_string(i) + "].key", req.key,
                            "label domain \"" + domain + "\" is restricted"));
    }
  }
}

kp::NodePool read_node_pool(const Value& v) {
  ObjectRef obj = object_ref(v, "NodePool");
  kp::NodePool p;
  CrdFields top(obj, v, "");
  top.require("apiVersion");
  top.require("kind");
  read_metadata(top, obj);
  p.name = obj.name;
  top.allow({"status"});
  Value spec = top.require("spec");
  top.finish();
  CrdFields s(obj, spec, "spec");
  if (auto w = s.get("weight")) {
    std::int64_t wt = w->as_int();
    if (wt < 1 || wt > 100) w->fail(invalid(obj, "spec.weight", w->as_string(), "should be less than or equal to 100 and at least 1"));
    p.weight = static_cast<std::int32_t>(wt);
  }
  if (auto l = s.get("limits")) {
    auto rl = parse_resource_list(*l, obj, "spec.limits");
    for (const auto& [name, amount] : rl.items()) p.limits[name] = amount;
  }
  if (auto d = s.get("disruption")) read_disruption(obj, *d, p);
  Value tmpl = s.require("template");
  s.finish();
  CrdFields t(obj, tmpl, "spec.template");
  if (auto md = t.get("metadata")) {
    CrdFields m(obj, *md, "spec.template.metadata");
    if (auto l = m.get("labels")) p.labels = parse_labels(*l, obj, "spec.template.metadata.labels", "ObjectMeta");
    if (auto a = m.get("annotations")) p.annotations = a->as_string_map();
    m.finish();
  }
  Value ts = t.require("spec");
  t.finish();
  CrdFields ss(obj, ts, "spec.template.spec");
  if (auto r = ss.get("requirements")) read_requirements(obj, *r, p);
  if (auto tt = ss.get("taints")) p.taints = read_taints(*tt, obj, "spec.template.spec.taints");
  if (auto st = ss.get("startupTaints")) p.startup_taints = read_taints(*st, obj, "spec.template.spec.startupTaints");
  Value ref = ss.require("nodeClassRef");
  {
    CrdFields nr(obj, ref, "spec.template.spec.nodeClassRef");
    p.node_class_group = nr.require("group").as_string();
    p.node_class_kind = nr.require("kind").as_string();
    p.node_class_name = nr.require("name").as_string();
    nr.finish();
  }
  if (auto ea = ss.get("expireAfter")) p.expire_after = duration_or_never(*ea);
  if (auto tg = ss.get("terminationGracePeriod")) p.termination_grace_period = tg->as_duration();
  ss.finish();
  return p;
}

std::int64_t volume_gib(const Value& v) {
  std::int64_t milli = v.as_quantity();
  std::int64_t bytes = milli / 1000;
  return std::max<std::int64_t>(1, bytes / (1024LL * 1024 * 1024));
}

// subnetSelectorTerms / securityGroupSelectorTerms with the CRD's validation rules
// (pkg/apis/v1/ec2nodeclass.go XValidation, checked as written: the exclusivity rules use
// self.all, so they only refuse a list where every term combines the fields).
std::vector<kp::SelectorTerm> read_selector_terms(const Value& v, const ObjectRef& obj, const std::string& field,
                                                  bool by_name) {
  const std::string path = "spec." + field;
  const std::string term_kind = by_name ? "security group" : "subnet";
  auto items = v.items();
  if (items.empty()) v.fail(invalid(obj, path, "array", field + " cannot be empty"));
  if (items.size() > 30)
    v.fail("The " + obj.kind + " \"" + obj.name + "\" is invalid: " + path + ": Too many: " + std::to_string(items.size()) +
           ": must have at most 30 items");
  std::vector<kp::SelectorTerm> terms;
  bool all_id_combined = true, all_name_combined = true;
  for (std::size_t i = 0; i < items.size(); ++i) {
    CrdFields r(obj, items[i], path + "[" + std::to_string(i) + "]");
    kp::SelectorTerm t;
    if (auto id = r.get("id")) t.id = id->as_string();
    if (by_name)
      if (auto n = r.get("name")) t.name = n->as_string();
    if (auto tags = r.get("tags")) {
      t.tags = tags->as_string_map();
      for (const auto& [k, val] : t.tags)
        if (k.empty() || val.empty())
          tags->fail(invalid(obj, path + "[" + std::to_string(i) + "].tags", "object", "empty tag keys or values aren't supported"));
    }
    r.finish();
    const bool has_tags = items[i].node()["tags"].IsDefined();
    if (!has_tags && t.id.empty() && t.name.empty())
      v.fail(invalid(obj, path, "array",
                     std::string("expected at least one, got none, ") + (by_name ? "['tags', 'id', 'name']" : "['tags', 'id']")));
    all_id_combined &= !t.id.empty() && (has_tags || !t.name.empty());
    all_name_combined &= !t.name.empty() && (has_tags || !t.id.empty());
    terms.push_back(std::move(t));
  }
  if (all_id_combined)
    v.fail(invalid(obj, path, "array", "'id' is mutually exclusive, cannot be set with a combination of other fields in a " +
                                           term_kind + " selector term"));
  if (by_name && all_name_combined)
    v.fail(invalid(obj, path, "array", "'name' is mutually exclusive, cannot be set with a combination of other fields in a " +
                                           term_kind + " selector term"));
  return terms;
}

// The envelope both NodeClass kinds share: apiVersion, kind, metadata (the name) and status
// around a required spec.
struct NodeClassEnvelope {
  ObjectRef obj;
  kp::NodeClass nc;
  Value spec;
};

NodeClassEnvelope read_node_class_envelope(const Value& v, const std::string& kind) {
  ObjectRef obj = object_ref(v, kind);
  kp::NodeClass nc;
  nc.kind = kind;
  CrdFields top(obj, v, "");
  top.require("apiVersion");
  top.require("kind");
  read_metadata(top, obj);
  nc.name = obj.name;
  top.allow({"status"});
  Value spec = top.require("spec");
  top.finish();
  return {std::move(obj), std::move(nc), std::move(spec)};
}

// spec.blockDeviceMappings: the root volume's size is what eksim models.
void read_block_device_mappings(const ObjectRef& obj, const Value& bdm_v, kp::NodeClass& nc) {
  auto mappings = bdm_v.items();
  for (std::size_t i = 0; i < mappings.size(); ++i) {
    const std::string at = "spec.blockDeviceMappings[" + std::to_string(i) + "]";
    CrdFields r(obj, mappings[i], at);
    std::string dev = r.get("deviceName") ? r.get("deviceName")->as_string() : "";
    bool root = false;
    if (auto rv = r.get("rootVolume")) root = rv->as_bool();
    if (auto ebs = r.get("ebs")) {
      CrdFields e(obj, *ebs, at + ".ebs");
      if (auto vs = e.get("volumeSize"))
        if (root || dev == "/dev/xvda" || dev == "/dev/xvdb") nc.root_volume_gib = volume_gib(*vs);
      e.allow({"volumeType", "iops", "throughput", "encrypted", "deleteOnTermination", "kmsKeyID", "snapshotID",
               "volumeInitializationRate"});
      e.finish();
    }
    r.finish();
  }
}

// spec.kubelet: pods, reserved resources and hard eviction thresholds.
void read_ec2_kubelet(const ObjectRef& obj, const Value& k_v, kp::NodeClass& nc) {
  CrdFields kr(obj, k_v, "spec.kubelet");
  if (auto mp = kr.get("maxPods")) nc.max_pods = static_cast<int>(mp->as_int_in(0, INT32_MAX, "a pod count"));
  if (auto ppc = kr.get("podsPerCore")) nc.kubelet.pods_per_core = static_cast<int>(ppc->as_int_in(0, INT32_MAX, "a pod count"));
  // The EC2NodeClass CRD's rules: reserved keys are cpu, memory, ephemeral-storage and pid.
  auto reserved = [](const Value& v, const char* field, k8s::ResourceList& out) {
    for (const auto& [key, at, value] : v.entries("a resource name")) {
      check_one_of(at, key, {"cpu", "memory", "ephemeral-storage", "pid"}, std::string(field) + " key");
      std::int64_t milli = value.as_quantity();
      if (milli < 0) value.fail(std::string(field) + "." + key + " must not be negative");
      if (key != "pid") out.set(key, k8s::amount_from_milli(key, milli));
    }
  };
  if (auto x = kr.get("kubeReserved")) reserved(*x, "kubeReserved", nc.kubelet.kube_reserved);
  if (auto x = kr.get("systemReserved")) reserved(*x, "systemReserved", nc.kubelet.system_reserved);
  if (auto x = kr.get("evictionHard")) {
    for (const auto& [signal, at, value] : x->entries("an eviction signal")) {
      check_one_of(at, signal, {"memory.available", "nodefs.available", "nodefs.inodesFree", "imagefs.available",
                                "imagefs.inodesFree", "pid.available"}, "evictionHard signal");
      std::string text = value.as_string();
      if (signal != "memory.available" && signal != "nodefs.available") continue;  // not modelled
      if (!text.empty() && text.back() == '%') {
        auto parsed = engine::parse_real(text.substr(0, text.size() - 1));
        const double* pct = parsed.ok() ? &parsed.value : nullptr;
        if (!pct || *pct < 0 || *pct > 100) value.fail("evictionHard." + signal + " percentage must be 0% to 100%");
        if (signal == "memory.available") value.fail("eksim models evictionHard.memory.available as a quantity (100Mi), not a percentage");
        nc.kubelet.eviction_nodefs_available_percent = *pct;
      } else {
        std::int64_t milli = value.as_quantity();
        std::int64_t bytes = milli / 1000;
        if (signal == "memory.available") nc.kubelet.eviction_memory_available_bytes = bytes;
        else nc.kubelet.eviction_nodefs_available_bytes = bytes;
      }
    }
  }
  kr.allow({"evictionSoft", "evictionSoftGracePeriod",
            "evictionMaxPodGracePeriod", "imageGCHighThresholdPercent", "imageGCLowThresholdPercent", "cpuCFSQuota",
            "clusterDNS"});
  kr.finish();
}

kp::NodeClass read_ec2_node_class(const Value& v) {
  auto [obj, nc, spec] = read_node_class_envelope(v, "EC2NodeClass");
  CrdFields s(obj, spec, "spec");
  if (auto r = s.get("role")) nc.role = r->as_string();
  if (auto ip = s.get("instanceProfile")) {
    if (!nc.role.empty()) ip->fail(invalid(obj, "spec", "", "must specify exactly one of ['role', 'instanceProfile']"));
    nc.role = ip->as_string();
  }
  if (nc.role.empty()) spec.fail(invalid(obj, "spec", "", "must specify exactly one of ['role', 'instanceProfile']"));
  if (auto af = s.get("amiFamily")) nc.ami_family = af->as_string();
  Value ami = s.require("amiSelectorTerms");
  auto ami_terms = ami.items();
  for (std::size_t i = 0; i < ami_terms.size(); ++i) {
    CrdFields r(obj, ami_terms[i], "spec.amiSelectorTerms[" + std::to_string(i) + "]");
    if (auto a = r.get("alias")) {
      nc.ami_alias = a->as_string();
      if (nc.ami_family.empty()) nc.ami_family = nc.ami_alias.substr(0, nc.ami_alias.find('@'));
    }
    r.allow({"id", "name", "owner", "ssmParameter"});
    if (auto tags = r.get("tags")) tags->as_string_map();
    r.finish();
  }
  nc.subnet_terms = read_selector_terms(s.require("subnetSelectorTerms"), obj, "subnetSelectorTerms", false);
  nc.security_group_terms =
      read_selector_terms(s.require("securityGroupSelectorTerms"), obj, "securityGroupSelectorTerms", true);
  if (auto bdm = s.get("blockDeviceMappings")) read_block_device_mappings(obj, *bdm, nc);
  if (auto k = s.get("kubelet")) read_ec2_kubelet(obj, *k, nc);
  if (auto tags = s.get("tags")) nc.tags = tags->as_string_map();
  s.allow({"userData", "metadataOptions", "associatePublicIPAddress", "detailedMonitoring", "instanceStorePolicy", "context",
           "capacityReservationSelectorTerms", "ipPrefixCount"});
  s.finish();
  return nc;
}

kp::NodeClass read_auto_node_class(const Value& v) {
  auto [obj, nc, spec] = read_node_class_envelope(v, "NodeClass");
  CrdFields s(obj, spec, "spec");
  if (auto r = s.get("role")) nc.role = r->as_string();
  // Auto Mode's NodeClass: both optional (default: the cluster's subnets and security group).
  if (auto sub = s.get("subnetSelectorTerms")) nc.subnet_terms = read_selector_terms(*sub, obj, "subnetSelectorTerms", false);
  if (auto sg = s.get("securityGroupSelectorTerms"))
    nc.security_group_terms = read_selector_terms(*sg, obj, "securityGroupSelectorTerms", true);
  if (auto es = s.get("ephemeralStorage")) {
    CrdFields e(obj, *es, "spec.ephemeralStorage");
    if (auto size = e.get("size")) nc.root_volume_gib = volume_gib(*size);
    e.allow({"iops", "throughput", "kmsKeyID"});
    e.finish();
  }
  if (auto tags = s.get("tags")) nc.tags = tags->as_string_map();
  s.allow({"networkPolicy", "networkPolicyEventLogs", "snatPolicy", "podSubnetSelectorTerms",
           "podSecurityGroupSelectorTerms", "advancedNetworking", "certificateBundles", "advancedSecurity"});
  s.finish();
  return nc;
}

}  // namespace

kp::NodePool decode_node_pool(const Value& v) { return read_node_pool(v); }
kp::NodeClass decode_ec2_node_class(const Value& v) { return read_ec2_node_class(v); }
kp::NodeClass decode_auto_node_class(const Value& v) { return read_auto_node_class(v); }

bool apply_karpenter_manifest(Cluster& cluster, const Manifest& manifest) {
  const auto* pool = std::get_if<kp::NodePool>(&manifest.object);
  const auto* node_class = std::get_if<kp::NodeClass>(&manifest.object);
  if (!pool && !node_class) return false;
  kp::Controller* k = cluster.controllers.karpenter.get();
  if (!k) return false;  // no Karpenter: its CRDs are not installed
  if (pool) {
    k->apply_node_pool(*pool);
    return true;
  }
  // Karpenter serves EC2NodeClass, Auto Mode its own NodeClass; not the other's.
  if (k->settings().auto_mode != (node_class->kind == "NodeClass")) return false;
  k->apply_node_class(*node_class);
  return true;
}

}  // namespace eksim::scenario
