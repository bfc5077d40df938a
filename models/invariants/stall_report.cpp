#include "models/invariants/stall_report.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

#include "models/invariants/invariant_checker.hpp"

namespace eksim::invariants {

namespace {

struct Writer {
  std::uint64_t occurrences = 0;
  std::vector<std::string> objects;  // the first few, in log order
};

constexpr std::size_t kObjectsShown = 3;
constexpr std::size_t kWritersShown = 8;

}  // namespace

std::string stall_report(const Cluster& cluster, std::uint64_t events_at_instant) {
  const engine::SimTime now = cluster.sim.now();
  // (source, reason, kind) -> what was written at this instant.
  std::map<std::tuple<std::string, std::string, std::string>, Writer> writers;
  cluster.log.for_each_series([&](const k8s::Event& e, std::size_t) {
    if (e.time != now && e.last_time != now) return;
    Writer& w = writers[{e.source, e.reason, e.object.kind}];
    w.occurrences += static_cast<std::uint64_t>(std::max(e.count, 1));
    if (w.objects.size() < kObjectsShown) w.objects.push_back(e.object.str());
  });
  std::vector<std::pair<const std::tuple<std::string, std::string, std::string>*, const Writer*>> busiest;
  for (const auto& [key, w] : writers) busiest.emplace_back(&key, &w);
  std::stable_sort(busiest.begin(), busiest.end(),
                   [](const auto& a, const auto& b) { return a.second->occurrences > b.second->occurrences; });
  std::string out = std::to_string(events_at_instant) +
                    " events fired without simulated time advancing (a zero-delay loop between components)";
  if (busiest.empty()) return out + "; no component recorded an event at this instant";
  out += "; written at this instant:";
  for (std::size_t i = 0; i < busiest.size() && i < kWritersShown; ++i) {
    const auto& [source, reason, kind] = *busiest[i].first;
    const Writer& w = *busiest[i].second;
    out += "\n  " + source + " " + reason + " on " + kind + " x" + std::to_string(w.occurrences) + " (";
    for (std::size_t j = 0; j < w.objects.size(); ++j) out += (j ? ", " : "") + w.objects[j];
    out += w.occurrences > w.objects.size() ? ", ...)" : ")";
  }
  return out;
}

void install_stall_guard(Cluster& cluster, std::uint64_t max_events) {
  if (max_events == 0) return;
  cluster.sim.set_stall_guard(max_events, [&cluster] {
    throw Violation(cluster.sim.now(), stall_report(cluster, cluster.sim.fired_at_this_instant()));
  });
}

}  // namespace eksim::invariants
