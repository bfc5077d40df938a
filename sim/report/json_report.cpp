#include "sim/report/json_report.hpp"

#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include "models/aws/pricing.hpp"
#include "models/aws/subnet_addresses.hpp"
#include "sim/report/json_writer.hpp"
#include "sim/report/karpenter_status.hpp"
#include "sim/report/run_facts.hpp"

namespace eksim::report {

namespace {

std::optional<double> seconds(const std::optional<engine::SimTime>& t) {
  return t ? std::optional<double>(t->to_seconds()) : std::nullopt;
}

void write_resources(JsonWriter& w, const k8s::ResourceList& list) {
  w.begin_object();
  for (const auto& [name, amount] : list.items()) w.key(name).string(k8s::format_amount(name, amount));
  w.end_object();
}

void write_totals(JsonWriter& w, const aws::BillingLedger::Totals& totals) {
  w.begin_object();
  for (const auto& [key, usd] : totals) w.key(key).number(usd);
  w.end_object();
}

void write_pods(JsonWriter& w, const Cluster& c) {
  w.key("pods").begin_array();
  for (std::size_t i = 0; i < c.api.pod_slots(); ++i) {
    const k8s::PodRecord& rec = c.api.pod(k8s::PodId{static_cast<std::uint32_t>(i)});
    const k8s::Pod& p = rec.pod;
    w.begin_object();
    w.key("namespace").string(p.meta.ns);
    w.key("name").string(p.meta.name);
    w.key("phase").string(k8s::to_string(p.status.phase));
    w.key("node").string_or_null(p.spec.node_name);
    w.key("createdAt").number(p.meta.creation_timestamp.to_seconds());
    w.key("scheduledAt").number_or_null(seconds(p.status.scheduled_at));
    w.key("startedAt").number_or_null(seconds(p.status.started_at));
    w.key("finishedAt").number_or_null(seconds(p.status.finished_at));
    w.key("restarts").integer(p.status.restart_count);
    w.key("reason").string(p.status.reason);
    // status.podIP: the VPC CNI's address (the node's for hostNetwork pods); null without one.
    const std::string* ip = c.pod_networking->pod_ip(k8s::PodId{static_cast<std::uint32_t>(i)});
    std::string host_ip;
    if (p.spec.host_network && rec.node.valid())
      if (const aws::Instance* inst = c.ec2.find(c.api.node(rec.node).instance_id)) host_ip = inst->private_ip;
    w.key("podIP").string_or_null(p.spec.host_network ? host_ip : ip ? *ip : std::string());
    w.key("deleted").boolean(rec.deleted);
    w.end_object();
  }
  w.end_array();
}

void write_nodes(JsonWriter& w, const Cluster& c, const aws::BillingLedger& billing) {
  w.key("nodes").begin_array();
  for (std::size_t i = 0; i < c.api.node_slots(); ++i) {
    const k8s::NodeRecord& rec = c.api.node(k8s::NodeId{static_cast<std::uint32_t>(i)});
    const k8s::Node& n = rec.node;
    auto label = [&](const char* k) {
      auto it = n.meta.labels.find(k);
      return it == n.meta.labels.end() ? std::string_view() : std::string_view(it->second);
    };
    std::optional<engine::SimTime> launched;
    if (const aws::Instance* inst = c.ec2.find(rec.instance_id)) launched = inst->launched_at;
    auto cost_it = billing.by_instance().find(rec.instance_id);
    w.begin_object();
    w.key("name").string(n.meta.name);
    w.key("instanceType").string(label(k8s::kLabelInstanceType));
    w.key("zone").string(label(k8s::kLabelZone));
    w.key("capacityType").string(rec.capacity_type);
    w.key("nodeGroup").string_or_null(rec.node_group);
    w.key("nodePool").string_or_null(rec.node_pool);
    w.key("instanceId").string(rec.instance_id);
    w.key("ready").boolean(n.ready && !rec.deleted);
    w.key("launchedAt").number_or_null(seconds(launched));
    w.key("registeredAt").number_or_null(seconds(rec.registered_at));
    w.key("readyAt").number_or_null(seconds(rec.ready_at));
    w.key("readyReason").string(n.ready_reason);
    w.key("readyMessage").string(n.ready_message);
    w.key("terminatedAt").number_or_null(seconds(rec.deleted_at));
    w.key("costUSD").number(cost_it == billing.by_instance().end() ? 0.0 : cost_it->second);
    w.key("labels").begin_object();
    for (const auto& [k, v] : n.meta.labels) w.key(k).string(v);
    w.end_object();
    w.key("taints").begin_array();
    for (const auto& t : n.taints) {
      w.begin_object();
      w.key("key").string(t.key);
      w.key("value").string(t.value);
      w.key("effect").string(t.effect);
      w.end_object();
    }
    w.end_array();
    w.key("capacity");
    write_resources(w, n.capacity);
    w.key("allocatable");
    write_resources(w, n.allocatable);
    w.end_object();
  }
  w.end_array();
}

// The Event objects as the API server holds them after correlation (EventLog::series).
void write_events(JsonWriter& w, const Cluster& c) {
  w.key("events").begin_array();
  std::string object;
  c.log.for_each_series([&](const k8s::Event& e, std::size_t) {
    object.assign(e.object.kind);
    object += '/';
    if (!e.object.ns.empty()) object.append(e.object.ns).append("/");
    object += e.object.name;
    w.begin_object();
    w.key("time").number(e.time.to_seconds());
    w.key("type").string(k8s::to_string(e.type));
    w.key("reason").string(e.reason);
    w.key("object").string(object);
    w.key("message").string(e.message);
    w.key("source").string(e.source);
    w.key("count").integer(e.count);
    if (e.count > 1) {
      w.key("firstTime").number(e.time.to_seconds());
      w.key("lastTime").number(e.last_time.to_seconds());
    }
    w.end_object();
  });
  w.end_array();
}

void write_node_groups(JsonWriter& w, const Cluster& c) {
  w.key("nodeGroups").begin_array();
  for (const auto& ng : c.eks.nodegroups()) {
    aws::GroupSizes sizes = c.eks.sizes(ng.spec.name);
    w.begin_object();
    w.key("name").string(ng.spec.name);
    w.key("autoScalingGroup").string(ng.asg_name);
    w.key("desired").integer(sizes.desired);
    w.key("min").integer(sizes.min_size);
    w.key("max").integer(sizes.max_size);
    // DescribeNodegroup's status and health at the end of the run.
    w.key("status").string(ng.status);
    w.key("health").begin_object();
    w.key("issues").begin_array();
    for (const auto& issue : ng.health_issues) {
      w.begin_object();
      w.key("code").string(issue.code);
      w.key("message").string(issue.message);
      w.key("resourceIds").begin_array();
      for (const auto& id : issue.resource_ids) w.string(id);
      w.end_array();
      w.key("since").number(issue.since.to_seconds());
      w.end_object();
    }
    w.end_array();
    w.end_object();
    // The ASG's scaling activities and the node group's EKS update records (DescribeUpdate),
    // in the order they began; `service` tells them apart.
    w.key("activities").begin_array();
    for (const auto& a : c.activities) {
      bool asg = a.resource == ng.asg_name;
      bool eks_update = a.service == "eks" && a.resource == ng.spec.name;
      if (!asg && !eks_update) continue;
      w.begin_object();
      w.key("time").number(a.start.to_seconds());
      w.key("endTime").number(a.end.to_seconds());
      w.key("status").string(a.status);
      w.key("description").string(a.description);
      w.key("cause").string(a.cause);
      w.key("statusMessage").string(a.status_message);
      w.key("service").string(a.service);
      w.end_object();
    }
    w.end_array();
    w.end_object();
  }
  w.end_array();
}

// DescribeSubnets as of the end of the run: AvailableIpAddressCount and what holds the rest.
void write_subnets(JsonWriter& w, const Cluster& c) {
  w.key("subnets").begin_array();
  for (const auto& sn : c.ec2.subnets()) {
    w.begin_object();
    w.key("id").string(sn.id);
    w.key("zone").string(sn.az);
    w.key("cidr").string(sn.cidr);
    w.key("usableAddresses").integer(aws::usable_subnet_addresses(sn.cidr));
    w.key("usedAddresses").integer(sn.used_addresses);
    w.key("availableIpAddressCount").integer(c.ec2.available_addresses(sn.id));
    w.end_object();
  }
  w.end_array();
}

void write_jobs(JsonWriter& w, const ops::RunResult& run) {
  w.key("jobs").begin_array();
  for_each_job_facts(run, [&](const JobFacts& f) {
    w.begin_object();
    w.key("namespace").string(f.ns);
    w.key("name").string(f.name);
    w.key("status").string(f.status);
    w.key("reason").string(f.reason);
    w.key("finishedAt").number_or_null(seconds(f.finished_at));
    w.key("algbwGBps").number(f.algbw_gbps);
    w.key("busbwGBps").number(f.busbw_gbps);
    if (!f.training_phase.empty()) {
      w.key("training").begin_object();
      w.key("phase").string(f.training_phase);
      w.key("attempts").integer(f.training_attempts);
      w.key("stepsDone").number(f.steps_done);
      w.key("stepTimeSeconds").number_or_null(f.step_time_s);
      w.key("stepsPerSecond").number(f.steps_per_second);
      w.key("commShare").number(f.comm_share);
      w.end_object();
    }
    w.end_object();
  });
  w.end_array();
}

// byNodeGroup is CONTRACT's; the instance, zone and capacity-type splits are additions (instance
// charges only: cross-AZ transfer is its own line).
void write_cost(JsonWriter& w, const Cluster& c, const aws::BillingLedger& billing) {
  w.key("cost").begin_object();
  w.key("totalUSD").number(billing.total_usd() + c.cross_az_transfer_usd);
  w.key("byNodeGroup");
  write_totals(w, billing.by_owner());
  w.key("byInstance");
  write_totals(w, billing.by_instance());
  w.key("byZone");
  write_totals(w, billing.by_zone());
  w.key("byCapacityType");
  write_totals(w, billing.by_capacity_type());
  w.key("crossAzTransferUSD").number(billing.cross_az_transfer_usd() + c.cross_az_transfer_usd);
  // Every price the bill used and where it came from (catalog, price file, or assumed from the
  // catalog's spot factor), one entry per instance type, capacity type and zone, sorted.
  std::set<std::tuple<std::string, bool, std::string>> billed;
  for (const auto& inst : c.ec2.instances())
    if (inst.running_at) billed.insert({inst.type->name, inst.spot, inst.az});
  w.key("prices").begin_array();
  for (const auto& [name, spot, zone] : billed) {
    const aws::InstanceType& t = *c.catalog().find(name);
    auto p = c.prices().price(t, spot, zone);
    w.begin_object();
    w.key("instanceType").string(name);
    w.key("capacityType").string(spot ? "spot" : "on-demand");
    w.key("zone").string(zone);
    w.key("usdPerHour").number_or_null(p ? std::optional<double>(p->usd_per_hour) : std::nullopt);
    w.key("source").string(p ? aws::describe(*p, t, c.spec().pricing) : "no price");
    w.key("assumed").boolean(p && p->source == aws::PriceSource::SpotFactor);
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

}  // namespace

std::string json_report(const ops::RunResult& run, const std::vector<ExpectationResult>& results) {
  std::string text;
  write_json_report(run, results, [&text](std::string_view piece) { text += piece; });
  return text;
}

void write_json_report(const ops::RunResult& run, const std::vector<ExpectationResult>& results,
                       const std::function<void(std::string_view)>& out) {
  const Cluster& c = *run.cluster;
  JsonWriter w(out);
  w.begin_object();
  w.key("schema").string("eksim.report/v1");
  w.key("scenario").string(run.scenario->name);
  w.key("seed").unsigned_integer(run.seed);
  w.key("endTimeSeconds").number(run.end.to_seconds());
  write_pods(w, c);
  const aws::BillingLedger billing = c.billing();
  write_nodes(w, c, billing);
  write_events(w, c);
  write_node_groups(w, c);
  write_subnets(w, c);
  write_karpenter_status(w, c);
  write_jobs(w, run);
  write_cost(w, c, billing);
  w.key("expectations").begin_array();
  for (const auto& r : results) {
    w.begin_object();
    w.key("description").string(r.description);
    w.key("passed").boolean(r.passed);
    w.key("detail").string(r.detail);
    w.key("where").string(r.where.str());
    w.end_object();
  }
  w.end_array();
  // eksim's own remarks (CONTRACT: hints), never among the events.
  w.key("hints").begin_array();
  for (const auto& h : c.log.hints()) {
    w.begin_object();
    w.key("time").number(h.time.to_seconds());
    w.key("kind").string(h.kind);
    w.key("object").string(h.object.str());
    w.key("message").string(h.message);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  w.finish();
}

}  // namespace eksim::report
