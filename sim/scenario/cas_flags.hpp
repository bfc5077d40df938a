#pragma once
// Cluster Autoscaler's flags (config/flags/flags.go) as one table: each flag's name and the
// decoder that checks its value with the flag's range and format and writes its typed field of
// CasOptions. Both ways a scenario passes CA's flags use it: the `autoscaler: {clusterAutoscaler:
// {...}}` shorthand and the command of CA's Deployment (autoscaler_config.cpp).
#include <set>
#include <string>
#include <vector>

#include "models/autoscaling/cas/config/autoscaling_options.hpp"
#include "sim/scenario/yaml_reader.hpp"

namespace eksim::scenario {

struct CasFlag {
  const char* name;  // as the program spells it: scan-interval
  // Fails at the value for what the flag would refuse; a repeatable flag (--nodes) adds to its list.
  void (*decode)(const Value& value, autoscaling::CasOptions& options);
};

const std::vector<CasFlag>& cas_flags();
const CasFlag* find_cas_flag(const std::string& name);
std::vector<std::string> cas_flag_names();

// Flags decoded one by one over CA's defaults; finish() then settles what flags.go settles once
// all are parsed (the deprecated --max-empty-bulk-delete).
struct CasFlagDecoder {
  autoscaling::CasOptions options;
  std::set<std::string> given;

  void decode(const CasFlag& flag, const Value& value);
  autoscaling::CasOptions finish() const;
};

}  // namespace eksim::scenario
