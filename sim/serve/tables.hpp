#pragma once
// Server-side Tables (meta.k8s.io/v1 Table) for `kubectl get`: the columns and cells of the
// apiserver's printers (pkg/printers/internalversion) and of the CRDs' additionalPrinterColumns,
// computed from the served objects with simulated ages.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace eksim::serve {

struct TableColumn {
  std::string name, type, format, description;
  int priority = 0;  // 1 = only with -o wide
};

// The columns for a kind ("Pod", "Node", ...); a kind without a printer gets NAME and AGE (the
// apiserver's default table for types without one: Name, Created At).
std::vector<TableColumn> table_columns(const std::string& kind);
// The cells of one row. now_us is "now" on the same clock as the object's timestamps.
nlohmann::json table_cells(const std::string& kind, const nlohmann::json& object, std::int64_t now_us);

// includeObject: "Metadata" (default, a PartialObjectMetadata), "Object" or "None".
nlohmann::json table_row(const std::string& kind, const nlohmann::json& object, std::int64_t now_us,
                         const std::string& include_object);
nlohmann::json make_table(const std::string& kind, const std::vector<const nlohmann::json*>& objects, std::int64_t now_us,
                          const std::string& include_object, const std::string& resource_version);

// kubectl's age of a timestamp (duration.HumanDuration of now - t); "<unknown>" without one.
std::string age_since(const nlohmann::json& timestamp, std::int64_t now_us);

}  // namespace eksim::serve
