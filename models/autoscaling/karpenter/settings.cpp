// Karpenter's settings from the controller's flags.
#include "models/autoscaling/karpenter/settings.hpp"

#include "sim/engine/numbers.hpp"

namespace eksim::autoscaling::karpenter {

Settings settings_from_flags(const std::map<std::string, std::string>& flags, bool auto_mode) {
  Settings s;
  s.auto_mode = auto_mode;
  if (auto it = flags.find("batch-idle-duration"); it != flags.end())
    if (auto d = engine::parse_duration(it->second)) s.batch_idle = *d;
  if (auto it = flags.find("batch-max-duration"); it != flags.end())
    if (auto d = engine::parse_duration(it->second)) s.batch_max = *d;
  if (auto it = flags.find("vm-memory-overhead-percent"); it != flags.end()) s.vm_memory_overhead_percent = engine::parse_real(it->second).value;
  if (auto it = flags.find("version"); it != flags.end()) s.version = it->second;
  if (auto it = flags.find("reserved-enis"); it != flags.end()) s.reserved_enis = engine::parse_integer<int>(it->second).value;
  if (auto it = flags.find("interruption-queue"); it != flags.end()) s.interruption_queue = it->second;
  if (auto it = flags.find("feature-gates"); it != flags.end())
    s.spot_to_spot_consolidation = it->second.find("SpotToSpotConsolidation=true") != std::string::npos;
  return s;
}

}  // namespace eksim::autoscaling::karpenter
