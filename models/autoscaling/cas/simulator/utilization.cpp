#include "models/autoscaling/cas/simulator/utilization.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "models/k8s/api/resources.hpp"

namespace eksim::autoscaling::cas {

namespace {
double ratio(std::int64_t used, std::int64_t total) {
  return total > 0 ? static_cast<double>(used) / static_cast<double>(total) : 0.0;
}
}  // namespace

Utilization node_utilization(const k8s::NodeInfo& info, bool gpu_expected) {
  Utilization u;
  // NodeInfo.requested already leaves out terminal pods. DaemonSet pods count
  // (--ignore-daemonsets-utilization defaults to false).
  u.cpu = ratio(info.requested.get(k8s::kCpu), info.node.allocatable.get(k8s::kCpu));
  u.memory = ratio(info.requested.get(k8s::kMemory), info.node.allocatable.get(k8s::kMemory));
  std::int64_t gpus = info.node.allocatable.get(k8s::kNvidiaGpu);
  u.gpu_node = gpus > 0 || gpu_expected;
  u.gpu = ratio(info.requested.get(k8s::kNvidiaGpu), gpus);
  u.value = u.gpu_node ? u.gpu : std::max(u.cpu, u.memory);
  return u;
}

std::string go_float(double v) {
  if (v == 0) return "0";
  double a = std::fabs(v);
  char buf[64];
  // strconv.FormatFloat(v, 'g', -1, 64): %e when the exponent is < -4 or >= 21.
  int exp10 = static_cast<int>(std::floor(std::log10(a)));
  bool sci = exp10 < -4 || exp10 >= 21;
  auto res = std::to_chars(buf, buf + sizeof buf - 1, v, sci ? std::chars_format::scientific : std::chars_format::fixed);
  char* end = res.ptr;
  if (sci) {
    // C++ writes e-05 / e+21 like Go already; make sure of a two-digit exponent ("e+5" -> "e+05").
    char* e = std::find(buf, end, 'e');
    if (e != end && end - e == 3) {
      e[3] = e[2];
      e[2] = '0';
      ++end;
    }
  }
  return std::string(buf, end);
}

std::string utilization_info_string(const Utilization& u) {
  // simulator/utilization Calculate: GPU nodes report the GPU resource; otherwise the larger of
  // cpu and memory, ties going to memory.
  std::string resource = u.gpu_node ? std::string(k8s::kNvidiaGpu) : (u.cpu > u.memory ? "cpu" : "memory");
  std::string out = "{";
  for (const std::string& part : {go_float(u.cpu), go_float(u.memory), go_float(u.gpu), resource}) out.append(part).append(" ");
  return out.append(go_float(u.value)).append("}");
}

}  // namespace eksim::autoscaling::cas
