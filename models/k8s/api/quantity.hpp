#pragma once
// Kubernetes resource quantities ("500m", "1Gi", "15378852Ki", "1e3", "2").
// A quantity is held as an integer number of milli-units so that cpu (millicores), memory (bytes)
// and extended resources (counts) share one exact representation.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace eksim::k8s {

// Milli-units: parse_quantity("500m") == 500, parse_quantity("1Ki") == 1024000.
// Returns nullopt for text Kubernetes would reject (unknown suffix, empty, overflow).
std::optional<std::int64_t> parse_quantity(std::string_view text);

// Canonical text for a cpu amount in millicores: "3920m", or "4" when whole.
std::string format_cpu(std::int64_t millicores);
// Canonical text for bytes: "15378852Ki" when a multiple of 1Ki, else plain bytes.
std::string format_memory(std::int64_t bytes);
// Whole-number resources (pods, nvidia.com/gpu): "29".
std::string format_count(std::int64_t count);

}  // namespace eksim::k8s
