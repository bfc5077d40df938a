#pragma once
// Simulated time under the user's control: the speed `eksim serve --speed` starts with, and the
// conditions `eksim ctl until` waits for ("pod/gpu-pod Running", "node/ip-... Ready",
// "nodeclaim/gpu-pool-x Initialized", "pod/gpu-pod deleted").
#include <optional>
#include <string>

#include "sim/serve/object_store.hpp"

namespace eksim::serve {

struct ClockSpeed {
  bool paused = false;
  bool max = false;      // as fast as the machine runs
  double factor = 60;    // simulated seconds per wall-clock second
};

// "60", "1", "0.5", "max", "paused"; nullopt with a message in *error.
std::optional<ClockSpeed> parse_speed(const std::string& text, std::string* error);
std::string speed_text(const ClockSpeed& s);

struct UntilCondition {
  std::string type;  // store key: "pods", "nodes", "karpenter.sh/nodeclaims", "karpenter.sh/nodepools"
  std::string kind;
  std::string ns;    // pods: "default" unless written pod/NS/NAME
  std::string name;
  std::string state; // Running, Completed, CrashLoopBackOff, Ready, Initialized, deleted, ...
};

// "KIND/NAME STATE" or "KIND/NAMESPACE/NAME STATE"; nullopt with a message in *error.
std::optional<UntilCondition> parse_until(const std::string& text, std::string* error);
// Whether the store (as of its last sync) shows the condition. now_us is the store clock.
bool condition_met(const UntilCondition& c, const ObjectStore& store, std::int64_t now_us);

}  // namespace eksim::serve
