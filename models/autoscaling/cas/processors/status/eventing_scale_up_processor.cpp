#include "models/autoscaling/cas/processors/status/eventing_scale_up_processor.hpp"

#include <algorithm>

namespace eksim::autoscaling {

std::string scale_up_info(const std::string& group, std::int64_t from, std::int64_t to, std::int64_t max) {
  // ScaleUpInfo.String(): "{%v %d->%d (max: %d)}"
  return "{" + group + " " + std::to_string(from) + "->" + std::to_string(to) + " (max: " + std::to_string(max) + ")}";
}

std::string triggered_scale_up_message(const std::vector<std::string>& infos) {
  std::string out = "pod triggered scale-up: [";
  for (std::size_t i = 0; i < infos.size(); ++i) out += (i ? " " : "") + infos[i];
  return out + "]";
}

std::string not_trigger_scale_up_message(const std::map<std::string, int>& reasons) {
  std::vector<std::string> parts;
  for (const auto& [reason, count] : reasons) parts.push_back(std::to_string(count) + " " + reason);
  std::sort(parts.begin(), parts.end());
  std::string out = "pod didn't trigger scale-up: ";
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  return out;
}

}  // namespace eksim::autoscaling
