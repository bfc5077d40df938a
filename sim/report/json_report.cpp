#include "sim/report/json_report.hpp"

#include <set>
#include <tuple>
#include <utility>

#include <nlohmann/json.hpp>

#include "models/aws/pricing.hpp"
#include "models/aws/subnet_addresses.hpp"
#include "sim/report/run_facts.hpp"

namespace eksim::report {

namespace {

using Json = nlohmann::ordered_json;

Json seconds(engine::SimTime t) { return t.to_seconds(); }
Json opt_seconds(const std::optional<engine::SimTime>& t) { return t ? Json(t->to_seconds()) : Json(nullptr); }
Json opt_string(const std::string& s) { return s.empty() ? Json(nullptr) : Json(s); }

Json resources(const k8s::ResourceList& list) {
  Json out = Json::object();
  for (const auto& [name, amount] : list.items()) out[name] = k8s::format_amount(name, amount);
  return out;
}

// Writes one JSON object as nlohmann's dump(2) would print it, one member at a time; an array
// member can be given item by item.
class StreamedObject {
 public:
  using Out = std::function<void(std::string_view)>;
  explicit StreamedObject(const Out& out) : out_(out) { out_("{"); }
  void member(std::string_view key, const Json& value) {
    begin(key);
    write_indented(value, 2);
  }
  void begin_array(std::string_view key) {
    begin(key);
    items_ = 0;
  }
  void item(const Json& value) {
    out_(items_++ ? ",\n    " : "[\n    ");
    write_indented(value, 4);
  }
  void end_array() { out_(items_ ? "\n  ]" : "[]"); }
  void finish() { out_(members_ ? "\n}\n" : "{}\n"); }

 private:
  void begin(std::string_view key) {
    out_(members_++ ? ",\n  " : "\n  ");
    out_(Json(std::string(key)).dump());
    out_(": ");
  }
  void write_indented(const Json& value, int depth) {
    std::string text = value.dump(2);
    std::string pad(static_cast<std::size_t>(depth) + 1, ' ');
    pad[0] = '\n';
    std::size_t from = 0;
    for (std::size_t nl = text.find('\n'); nl != std::string::npos; nl = text.find('\n', from)) {
      out_(std::string_view(text).substr(from, nl - from));
      out_(pad);
      from = nl + 1;
    }
    out_(std::string_view(text).substr(from));
  }
  const Out& out_;
  int members_ = 0;
  int items_ = 0;
};

}  // namespace

std::string json_report(const scenario::RunResult& run, const std::vector<ExpectationResult>& results) {
  std::string text;
  write_json_report(run, results, [&text](std::string_view piece) { text += piece; });
  return text;
}

void write_json_report(const scenario::RunResult& run, const std::vector<ExpectationResult>& results,
                       const std::function<void(std::string_view)>& out) {
  const Cluster& c = *run.cluster;
  StreamedObject j(out);
  j.member("schema", "eksim.report/v1");
  j.member("scenario", run.scenario->name);
  j.member("seed", run.seed);
  j.member("endTimeSeconds", seconds(run.end));

  j.begin_array("pods");
  for (std::size_t i = 0; i < c.api.pod_slots(); ++i) {
    const k8s::PodRecord& rec = c.api.pod(k8s::PodId{static_cast<std::uint32_t>(i)});
    const k8s::Pod& p = rec.pod;
    j.item(Json{{"namespace", p.meta.ns},
                        {"name", p.meta.name},
                        {"phase", k8s::to_string(p.status.phase)},
                        {"node", opt_string(p.spec.node_name)},
                        {"createdAt", seconds(p.meta.creation_timestamp)},
                        {"scheduledAt", opt_seconds(p.status.scheduled_at)},
                        {"startedAt", opt_seconds(p.status.started_at)},
                        {"finishedAt", opt_seconds(p.status.finished_at)},
                        {"restarts", p.status.restart_count},
                        {"reason", p.status.reason},
                        {"deleted", rec.deleted}});
  }
  j.end_array();

  const aws::BillingLedger billing = c.billing();
  Json nodes = Json::array();
  for (std::size_t i = 0; i < c.api.node_slots(); ++i) {
    const k8s::NodeRecord& rec = c.api.node(k8s::NodeId{static_cast<std::uint32_t>(i)});
    const k8s::Node& n = rec.node;
    auto label = [&](const char* k) {
      auto it = n.meta.labels.find(k);
      return it == n.meta.labels.end() ? std::string() : it->second;
    };
    std::optional<engine::SimTime> launched;
    if (const aws::Instance* inst = c.ec2.find(rec.instance_id)) launched = inst->launched_at;
    auto cost_it = billing.by_instance().find(rec.instance_id);
    Json taints = Json::array();
    for (const auto& t : n.taints) taints.push_back(Json{{"key", t.key}, {"value", t.value}, {"effect", t.effect}});
    Json labels = Json::object();
    for (const auto& [k, v] : n.meta.labels) labels[k] = v;
    nodes.push_back(Json{{"name", n.meta.name},
                         {"instanceType", label(k8s::kLabelInstanceType)},
                         {"zone", label(k8s::kLabelZone)},
                         {"capacityType", rec.capacity_type},
                         {"nodeGroup", opt_string(rec.node_group)},
                         {"nodePool", opt_string(rec.node_pool)},
                         {"instanceId", rec.instance_id},
                         {"ready", n.ready && !rec.deleted},
                         {"launchedAt", opt_seconds(launched)},
                         {"registeredAt", opt_seconds(rec.registered_at)},
                         {"readyAt", opt_seconds(rec.ready_at)},
                         {"readyReason", n.ready_reason},
                         {"readyMessage", n.ready_message},
                         {"terminatedAt", opt_seconds(rec.deleted_at)},
                         {"costUSD", cost_it == billing.by_instance().end() ? 0.0 : cost_it->second},
                         {"labels", labels},
                         {"taints", taints},
                         {"capacity", resources(n.capacity)},
                         {"allocatable", resources(n.allocatable)}});
  }
  j.member("nodes", nodes);

  j.begin_array("events");
  for (const auto& e : c.log.series()) {
    Json ev{{"time", seconds(e.time)},
            {"type", engine::to_string(e.type)},
            {"reason", e.reason},
            {"object", e.object.str()},
            {"message", e.message},
            {"source", e.source},
            {"count", e.count}};
    if (e.count > 1) {
      ev["firstTime"] = seconds(e.time);
      ev["lastTime"] = seconds(e.last_time);
    }
    j.item(ev);
  }
  j.end_array();

  Json groups = Json::array();
  for (const auto& ng : c.eks.nodegroups()) {
    aws::GroupSizes sizes = c.eks.sizes(ng.spec.name);
    Json activities = Json::array();
    // The ASG's scaling activities and the node group's EKS update records (DescribeUpdate),
    // in the order they began; `service` tells them apart.
    for (const auto& a : c.log.activities()) {
      bool asg = a.resource == ng.asg_name;
      bool eks_update = a.service == "eks" && a.resource == ng.spec.name;
      if (!asg && !eks_update) continue;
      activities.push_back(Json{{"time", seconds(a.start)},
                                {"endTime", seconds(a.end)},
                                {"status", a.status},
                                {"description", a.description},
                                {"cause", a.cause},
                                {"statusMessage", a.status_message},
                                {"service", a.service}});
    }
    groups.push_back(Json{{"name", ng.spec.name},
                          {"autoScalingGroup", ng.asg_name},
                          {"desired", sizes.desired},
                          {"min", sizes.min_size},
                          {"max", sizes.max_size},
                          {"activities", activities}});
  }
  j.member("nodeGroups", groups);

  // DescribeSubnets as of the end of the run: AvailableIpAddressCount and what holds the rest.
  Json subnets = Json::array();
  for (const auto& sn : c.ec2.subnets())
    subnets.push_back(Json{{"id", sn.id},
                           {"zone", sn.az},
                           {"cidr", sn.cidr},
                           {"usableAddresses", aws::usable_subnet_addresses(sn.cidr)},
                           {"usedAddresses", sn.used_addresses},
                           {"availableIpAddressCount", c.ec2.available_addresses(sn.id)}});
  j.member("subnets", subnets);

  Json jobs = Json::array();
  for (const auto& f : job_facts(run)) {
    Json job{{"namespace", f.ns},
             {"name", f.name},
             {"status", f.status},
             {"reason", f.reason},
             {"finishedAt", opt_seconds(f.finished_at)},
             {"algbwGBps", f.algbw_gbps},
             {"busbwGBps", f.busbw_gbps}};
    if (!f.training_phase.empty()) {
      job["training"] = Json{{"phase", f.training_phase},
                             {"attempts", f.training_attempts},
                             {"stepsDone", f.steps_done},
                             {"stepTimeSeconds", f.step_time_s ? Json(*f.step_time_s) : Json()},
                             {"stepsPerSecond", f.steps_per_second},
                             {"commShare", f.comm_share}};
    }
    jobs.push_back(job);
  }
  j.member("jobs", jobs);

  auto totals = [](const aws::BillingLedger::Totals& t) {
    Json out = Json::object();
    for (const auto& [key, usd] : t) out[key] = usd;
    return out;
  };
  // Every price the bill used and where it came from (catalog, price file, or assumed from the
  // catalog's spot factor), one entry per instance type, capacity type and zone, sorted.
  std::set<std::tuple<std::string, bool, std::string>> billed;
  for (const auto& inst : c.ec2.instances())
    if (inst.running_at) billed.insert({inst.type->name, inst.spot, inst.az});
  Json prices = Json::array();
  for (const auto& [name, spot, zone] : billed) {
    const aws::InstanceType& t = *c.catalog().find(name);
    auto p = c.prices().price(t, spot, zone);
    prices.push_back(Json{{"instanceType", name},
                          {"capacityType", spot ? "spot" : "on-demand"},
                          {"zone", zone},
                          {"usdPerHour", p ? Json(p->usd_per_hour) : Json()},
                          {"source", p ? aws::describe(*p, t, c.spec().pricing) : "no price"},
                          {"assumed", p && p->source == aws::PriceSource::SpotFactor}});
  }
  // byNodeGroup is CONTRACT's; the instance, zone and capacity-type splits are additions (instance
  // charges only: cross-AZ transfer is its own line).
  j.member("cost", Json{{"totalUSD", billing.total_usd() + c.cross_az_transfer_usd},
                   {"byNodeGroup", totals(billing.by_owner())},
                   {"byInstance", totals(billing.by_instance())},
                   {"byZone", totals(billing.by_zone())},
                   {"byCapacityType", totals(billing.by_capacity_type())},
                   {"crossAzTransferUSD", billing.cross_az_transfer_usd() + c.cross_az_transfer_usd},
                   {"prices", prices}});

  Json exps = Json::array();
  for (const auto& r : results)
    exps.push_back(Json{{"description", r.description}, {"passed", r.passed}, {"detail", r.detail}, {"where", r.where.str()}});
  j.member("expectations", exps);
  // eksim's own remarks (CONTRACT: hints), never among the events.
  j.begin_array("hints");
  for (const auto& h : c.log.hints())
    j.item(Json{{"time", seconds(h.time)}, {"kind", h.kind}, {"object", h.object.str()}, {"message", h.message}});
  j.end_array();
  j.finish();
}

}  // namespace eksim::report
