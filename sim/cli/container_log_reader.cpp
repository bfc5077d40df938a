#include "sim/cli/container_log_reader.hpp"

#include "sim/serve/container_logs.hpp"

namespace eksim::cli {

report::ContainerLogReader container_log_reader() {
  // Simulated time 0 as 1970-01-01T00:00:00Z: only nvidia-smi's date line depends on it.
  return [](const Cluster& c, const k8s::PodRecord& pod, const k8s::Container& container, bool previous) {
    return serve::container_log(c, pod, container, 0, previous);
  };
}

}  // namespace eksim::cli
