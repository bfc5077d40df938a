#include "sim/ops/workload_arrivals.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "sim/ops/actions.hpp"
#include "sim/scenario/input_error.hpp"
#include "sim/scenario/input_limits.hpp"

namespace eksim::ops {

using scenario::Manifest;
using scenario::WorkloadGenerator;

namespace {

const Manifest& template_for(const WorkloadGenerator& g, const std::string& kind) {
  for (const auto& m : g.templates)
    if (m.kind == kind) return m;
  return scenario::builtin_workload_template(kind);
}

void set_gpus(k8s::PodSpec& spec, std::int64_t gpus) {
  if (spec.containers.empty()) return;
  auto& c = spec.containers.mut()[0];
  c.limits.set(k8s::kNvidiaGpu, gpus);
  c.requests.set(k8s::kNvidiaGpu, gpus);
}

Manifest stamp(const WorkloadGenerator& g, const Arrival& a) {
  Manifest m = template_for(g, a.kind);
  if (auto* job = std::get_if<k8s::Job>(&m.object)) {
    job->meta.name = a.name;
    job->meta.ns = g.ns;
    set_gpus(job->tmpl->spec, a.gpus);
    job->tmpl->meta.annotations[k8s::kAnnotationDuration] = engine::format_duration(a.duration);
    job->tmpl->run.duration = a.duration;
  } else if (auto* d = std::get_if<k8s::Deployment>(&m.object)) {
    d->meta.name = a.name;
    d->meta.ns = g.ns;
    d->replicas = g.replicas;
    // Each arrival is its own Deployment: give it a selector no other one matches.
    d->selector.match_labels["app"] = a.name;
    d->tmpl.meta.labels["app"] = a.name;
    set_gpus(d->tmpl.spec, a.gpus);
  }
  return m;
}

}  // namespace

std::vector<Arrival> draw_arrivals(const WorkloadGenerator& g, Cluster& cluster, engine::SimTime end,
                                   std::size_t drawn_before) {
  std::vector<Arrival> out;
  auto check_room = [&] {
    if (drawn_before + out.size() < scenario::kMaxArrivals) return;
    throw scenario::InputError(
        g.where, drawn_before == 0
                     ? fmt::format("workload \"{}\" would make more than {} arrivals before the run ends; lower "
                                   "ratePerHour or set maxArrivals", g.name, scenario::kMaxArrivals)
                     : fmt::format("workload \"{}\" would take the arrivals of all workloads past {} before the run "
                                   "ends; lower ratePerHour or set maxArrivals", g.name, scenario::kMaxArrivals));
  };
  engine::SimTime stop = g.until ? std::min(end, engine::SimTime{} + *g.until) : end;
  engine::SimTime first = engine::SimTime{} + g.start;
  auto& durations = cluster.rng.get("workloads/" + g.name + "/durations");
  auto draw_duration = [&] {
    if (g.duration_sigma <= 0) return g.duration;
    // A wide sigma draws the odd astronomically long run; beyond the longest simulation it
    // changes nothing, and it must still fit the microsecond clock.
    double secs = std::min(durations.lognormal_median(g.duration.to_seconds(), g.duration_sigma), scenario::kMaxSimulatedTime.to_seconds());
    auto d = engine::Duration::from_seconds(secs);
    return d.us < 1000000 ? engine::Duration::seconds(1) : d;
  };
  auto full = [&] { return g.max_arrivals && static_cast<std::int64_t>(out.size()) >= *g.max_arrivals; };
  if (g.arrival == "trace") {
    for (const auto& row : g.trace) {
      engine::SimTime at = engine::SimTime{} + row.time;
      if (at < first || at >= stop || full()) continue;
      check_room();
      out.push_back(Arrival{at, row.kind, row.name, row.gpus, row.duration});
    }
    return out;
  }
  auto& rng = cluster.rng.get("workloads/" + g.name + "/arrivals");
  double peak = g.arrival == "diurnal" ? g.rate_per_hour * (1 + g.amplitude) : g.rate_per_hour;
  double mean_gap = 3600.0 / peak;
  const double kPi = 3.14159265358979323846;
  double t = first.to_seconds();
  int n = 0;
  while (!full()) {
    check_room();
    t += rng.exponential(mean_gap);
    if (t >= stop.to_seconds()) break;
    if (g.arrival == "diurnal") {
      // Thinning (Lewis and Shedler): keep a candidate with probability rate(t) / peak rate.
      double hour = std::fmod(static_cast<double>(cluster.start_epoch_seconds()) / 3600.0 + t / 3600.0, 24.0);
      double rate = g.rate_per_hour * (1 + g.amplitude * std::cos(2 * kPi * (hour - g.peak_hour) / 24.0));
      if (rng.uniform() * peak >= rate) continue;
    }
    ++n;
    out.push_back(Arrival{engine::SimTime{} + engine::Duration::from_seconds(t), g.kind, fmt::format("{}-{:04d}", g.name, n),
                          g.gpus, draw_duration()});
  }
  return out;
}

void schedule_workloads(Cluster& cluster, const std::vector<WorkloadGenerator>& generators, engine::SimTime end) {
  std::size_t drawn = 0;
  for (const auto& g : generators) {
    std::vector<Arrival> arrivals = draw_arrivals(g, cluster, end, drawn);
    drawn += arrivals.size();
    for (const auto& a : arrivals) {
      Cluster* c = &cluster;
      const WorkloadGenerator* gen = &g;
      cluster.sim.schedule_at(a.at, [c, gen, a] {
        apply_manifests(*c, {stamp(*gen, a)});
        if (a.kind == "Deployment") {
          std::string ns = gen->ns, name = a.name;
          c->sim.schedule(a.duration, [c, ns, name] { c->deployments->remove(ns, name); });
        }
      });
    }
  }
}

}  // namespace eksim::ops
