#include "models/net/training_spec.hpp"

#include <algorithm>
#include <cstdlib>

#include "models/k8s/api/quantity.hpp"

namespace eksim::net {

namespace {

constexpr const char* kEfaResource = "vpc.amazonaws.com/efa";

}  // namespace

std::optional<TrainingSpec> training_spec(const k8s::PodTemplate& tmpl, std::string* error) {
  const auto& ann = tmpl.meta.annotations;
  auto it = ann.find(kAnnotationTraining);
  if (it == ann.end()) return std::nullopt;
  TrainingSpec s;
  auto fail = [&](const std::string& msg) -> std::optional<TrainingSpec> {
    if (error) *error = msg;
    return std::nullopt;
  };
  if (it->second != "allreduce")
    return fail(std::string(kAnnotationTraining) + ": \"" + it->second + "\" is not a supported collective (allreduce)");
  auto g = ann.find(kAnnotationGradientBytes);
  if (g == ann.end()) return fail(std::string(kAnnotationGradientBytes) + " is required");
  auto milli = k8s::parse_quantity(g->second);
  if (!milli || *milli <= 0)
    return fail(std::string(kAnnotationGradientBytes) + ": \"" + g->second + "\" is not a positive quantity");
  s.gradient_bytes = static_cast<double>(*milli) / 1000.0;
  if (auto c = ann.find(kAnnotationStepCompute); c != ann.end()) {
    auto d = engine::parse_duration(c->second);
    if (!d || d->us < 0) return fail(std::string(kAnnotationStepCompute) + ": \"" + c->second + "\" is not a duration");
    s.step_compute = *d;
  }
  auto st = ann.find(kAnnotationSteps);
  if (st == ann.end()) return fail(std::string(kAnnotationSteps) + " is required");
  char* end = nullptr;
  long long steps = std::strtoll(st->second.c_str(), &end, 10);
  if (end == st->second.c_str() || *end != '\0' || steps <= 0)
    return fail(std::string(kAnnotationSteps) + ": \"" + st->second + "\" is not a positive integer");
  s.steps = steps;
  if (auto w = ann.find(kAnnotationWatchdogTimeout); w != ann.end()) {
    auto d = engine::parse_duration(w->second);
    if (!d || d->us <= 0)
      return fail(std::string(kAnnotationWatchdogTimeout) + ": \"" + w->second + "\" is not a positive duration");
    s.watchdog_timeout = *d;
  }
  if (!tmpl.spec.containers.empty()) {
    const k8s::Container& c = tmpl.spec.containers.front();
    std::int64_t gpus = std::max(c.limits.get("nvidia.com/gpu"), c.requests.get("nvidia.com/gpu"));
    s.gpus_per_pod = static_cast<int>(std::max<std::int64_t>(1, gpus));
    s.efa = c.limits.get(kEfaResource) > 0 || c.requests.get(kEfaResource) > 0;
  }
  return s;
}

}  // namespace eksim::net
