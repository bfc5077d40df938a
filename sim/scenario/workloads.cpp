#include "sim/scenario/workloads.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cmath>

#include "models/cluster/cluster.hpp"
#include "sim/engine/numbers.hpp"
#include "sim/scenario/csv_file.hpp"
#include "sim/scenario/input_limits.hpp"

namespace eksim::scenario {

namespace {

// What a generator stamps out when the scenario gives no template of that kind: a one-GPU
// training pod that tolerates the GPU taint EKS GPU node groups commonly carry, and a one-GPU
// inference server. Images are NVIDIA NGC's public ones.
constexpr const char* kDefaultJob = R"(apiVersion: batch/v1
kind: Job
metadata: {name: training}
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
      containers:
        - name: train
          image: nvcr.io/nvidia/pytorch:24.09-py3
          command: ["python", "train.py"]
          resources: {limits: {nvidia.com/gpu: 1}}
)";

constexpr const char* kDefaultDeployment = R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: inference}
spec:
  replicas: 1
  selector: {matchLabels: {app: inference}}
  template:
    metadata: {labels: {app: inference}}
    spec:
      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
      containers:
        - name: server
          image: nvcr.io/nvidia/tritonserver:24.09-py3
          resources: {limits: {nvidia.com/gpu: 1}}
)";


void check_kind(const std::string& kind, const Value& at) {
  if (kind != "Job" && kind != "Deployment") at.fail("workload kind must be Job or Deployment, got \"" + kind + "\"");
}

// A CSV time: a duration string (90s, 1h30m) or plain seconds, within the longest run (beyond
// it, seconds would not fit the microsecond clock).
std::optional<engine::Duration> parse_time(const std::string& text) {
  std::optional<engine::Duration> d = engine::parse_duration(text);
  if (!d) {
    auto secs = engine::parse_real(text);
    if (secs.ok() && secs.value <= kMaxSimulatedTime.to_seconds()) d = engine::Duration::from_seconds(secs.value);
  }
  if (d && (d->us < 0 || *d > kMaxSimulatedTime)) return std::nullopt;
  return d;
}


WorkloadGenerator read_generator(const std::string& name, const Value& v, FileLoader& files) {
  MapReader r(v, "workload \"" + name + "\"");
  WorkloadGenerator g;
  g.name = name;
  g.where = v.where();
  Value arrival = r.require("arrival");
  g.arrival = arrival.as_string();
  static const std::vector<std::string> arrivals{"poisson", "diurnal", "trace"};
  if (std::find(arrivals.begin(), arrivals.end(), g.arrival) == arrivals.end()) {
    std::string hint = did_you_mean(g.arrival, arrivals);
    arrival.fail("unknown arrival \"" + g.arrival + "\" (poisson, diurnal, trace)" +
                 (hint.empty() ? "" : "; did you mean \"" + hint + "\"?"));
  }
  if (g.arrival == "trace") {
    Value file = r.require("file");
    g.trace = read_trace(FileLoader::resolve(file.file(), file.as_string()), file.where());
  } else {
    Value rate = r.require("ratePerHour");
    g.rate_per_hour = rate.as_double();
    if (!(g.rate_per_hour > 0)) rate.fail("ratePerHour must be positive");
    if (auto k = r.get("kind")) {
      g.kind = k->as_string();
      check_kind(g.kind, *k);
    }
  }
  if (g.arrival == "diurnal") {
    if (auto x = r.get("peakHour")) {
      g.peak_hour = x->as_double();
      if (g.peak_hour < 0 || g.peak_hour >= 24) x->fail("peakHour must be in [0, 24)");
    }
    if (auto x = r.get("amplitude")) {
      g.amplitude = x->as_double();
      if (g.amplitude < 0 || g.amplitude > 1) x->fail("amplitude must be between 0 and 1");
    }
  }
  if (auto x = r.get("start")) g.start = x->as_duration();
  if (auto x = r.get("until")) g.until = x->as_duration();
  if (auto x = r.get("maxArrivals")) g.max_arrivals = x->as_non_negative();
  if (auto x = r.get("gpus")) g.gpus = x->as_int_in(0, INT32_MAX, "a GPU count");
  if (auto x = r.get("duration")) {
    if (x->is_map()) {
      MapReader d(*x, "duration");
      g.duration = d.require("median").as_duration();
      Value sigma = d.require("sigma");
      g.duration_sigma = sigma.as_double();
      if (g.duration_sigma < 0) sigma.fail("sigma must be non-negative");
      d.finish();
    } else {
      g.duration = x->as_duration();
    }
    if (g.duration.us <= 0) x->fail("duration must be positive");
  }
  if (auto x = r.get("replicas")) g.replicas = static_cast<std::int32_t>(x->as_int_in(0, kMaxPods, "a replica count"));
  if (auto x = r.get("namespace")) g.ns = x->as_string();
  if (auto x = r.get("templates")) {
    for (auto& m : parse_manifests(*x, files)) {
      if (m.kind != "Job" && m.kind != "Deployment")
        throw InputError(m.where, "a workload template is a Job or a Deployment, got " + m.kind);
      for (const auto& other : g.templates)
        if (other.kind == m.kind) throw InputError(m.where, "a second " + m.kind + " template in workload \"" + name + "\"");
      g.templates.push_back(std::move(m));
    }
  }
  r.finish();
  return g;
}

}  // namespace

std::vector<TraceArrival> read_trace(const std::string& path, const Location& from) {
  std::vector<TraceArrival> out;
  read_csv_file(path, from, "time,kind,name,gpus,duration", "a workload trace", [&](const CsvRow& row) {
    const auto& cols = row.cols;
    auto at = [&](std::size_t col) { return row.at(col); };
    if (cols.size() != 5)
      throw InputError(at(0), fmt::format("expected 5 columns (time,kind,name,gpus,duration), got {}", cols.size()));
    TraceArrival a;
    a.where = at(0);
    auto time = parse_time(cols[0]);
    if (!time)
      throw InputError(at(0), "time: expected seconds or a duration such as 90s or 1h30m, at most " +
                                  engine::format_duration(kMaxSimulatedTime) + ", got \"" + cols[0] + "\"");
    a.time = *time;
    a.kind = cols[1];
    if (a.kind != "Job" && a.kind != "Deployment")
      throw InputError(at(1), "kind must be Job or Deployment, got \"" + a.kind + "\"");
    a.name = cols[2];
    auto errs = dns1123_subdomain_errors(a.name);
    if (!errs.empty()) throw InputError(at(2), "name \"" + a.name + "\": " + errs[0]);
    auto g = engine::parse_integer<std::int32_t>(cols[3]);
    if (!g.ok() || g.value < 0) throw InputError(at(3), "gpus: expected a non-negative integer, got \"" + cols[3] + "\"");
    a.gpus = g.value;
    auto d = engine::parse_duration(cols[4]);
    if (!d || d->us <= 0 || *d > kMaxSimulatedTime)
      throw InputError(at(4), "duration: expected a positive duration such as 30m, at most " +
                                  engine::format_duration(kMaxSimulatedTime) + ", got \"" + cols[4] + "\"");
    a.duration = *d;
    out.push_back(a);
  });
  std::stable_sort(out.begin(), out.end(), [](const TraceArrival& a, const TraceArrival& b) { return a.time < b.time; });
  return out;
}

std::vector<WorkloadGenerator> read_workloads(const Value& v, FileLoader& files) {
  if (!v.is_map()) v.fail("workloads: expected a mapping of generator names, got a " + v.kind_name());
  std::vector<WorkloadGenerator> out;
  for (const auto& [name, key, body] : v.entries("a workload name")) {
    auto errs = dns1123_label_errors(name);
    if (!errs.empty()) key.fail("workload name \"" + name + "\": " + errs[0]);
    out.push_back(read_generator(name, body, files));
  }
  return out;
}

const Manifest& builtin_workload_template(const std::string& kind) {
  static const Manifest job = parse_manifest_object(
      Value(YAML::Load(kDefaultJob), std::make_shared<const std::string>("<built-in Job template>")))[0];
  static const Manifest deployment = parse_manifest_object(
      Value(YAML::Load(kDefaultDeployment), std::make_shared<const std::string>("<built-in Deployment template>")))[0];
  return kind == "Deployment" ? deployment : job;
}

}  // namespace eksim::scenario
