#pragma once
// Karpenter's controller log: the zap JSON lines `kubectl logs -n karpenter -l
// app.kubernetes.io/name=karpenter` shows (core pkg/operator/logging, controller-runtime's
// context keys). The model records each line's simulated time, level, message and the keys that
// follow "commit", in zap's order; eksim serve adds the time as its wall clock reads it.
//
// Recorded only once enabled (eksim serve does, before the run starts): a batch run has no
// reader, and a week of provisioning should not hold its log.
#include <string>
#include <vector>

#include "models/k8s/api/resources.hpp"
#include "sim/engine/time.hpp"

namespace eksim::autoscaling::karpenter {

struct LogLine {
  engine::SimTime at;
  bool error = false;  // "ERROR", else "INFO"
  std::string message;
  std::string fields;  // `"controller":"provisioner",...`: JSON members, no braces
};

// The short commit of an aws/karpenter-provider-aws release tag (what GetRevision prints as
// "commit"), or "" for a version eksim does not know.
std::string karpenter_commit(const std::string& version);

// Go's time.Duration.String() ("97.580831ms", "1.2s").
std::string go_duration(std::int64_t nanoseconds);
// pretty.Slice / instanceTypeList: the first five, then " and N other(s)".
std::string first_five(const std::vector<std::string>& items);

class ControllerLog {
 public:
  void enable() { enabled_ = true; }
  bool enabled() const { return enabled_; }
  const std::vector<LogLine>& lines() const { return lines_; }

  void info(engine::SimTime at, std::string message, std::string fields) {
    if (enabled_) lines_.push_back({at, false, std::move(message), std::move(fields)});
  }
  void error(engine::SimTime at, std::string message, std::string fields) {
    if (enabled_) lines_.push_back({at, true, std::move(message), std::move(fields)});
  }

  // controller-runtime's context keys. A singleton controller (provisioner, disruption,
  // interruption) reconciles no object; an object controller names its kind and object.
  std::string singleton(const char* controller);
  std::string nodeclaim_controller(const char* controller, const std::string& nodeclaim);
  std::string node_controller(const char* controller, const std::string& node);
  // A reconcileID or command-id: UUID-shaped, from a counter (no random draw, so logging
  // changes nothing else in the run).
  std::string uuid();

 private:
  bool enabled_ = false;
  std::vector<LogLine> lines_;
  std::uint64_t ids_ = 0;
};

// JSON pieces in zap's shapes.
std::string json_string(const std::string& s);
std::string object_ref(const std::string& name, const std::string& ns = "");  // {"name":..,"namespace":..}
// {"cpu":"465m","memory":"590Mi",...}, sorted by name. Canonical: as resource.Quantity prints a
// computed amount (the largest binary suffix that divides it); else as the kubelet reports it.
std::string resource_map(const k8s::ResourceList& r, bool canonical = true);
std::string canonical_quantity(const std::string& name, std::int64_t amount);

}  // namespace eksim::autoscaling::karpenter
