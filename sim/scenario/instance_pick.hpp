#pragma once
// Which instance a timeline action means when it names one by position rather than by id: the
// form checked when the scenario is read (choosing one is sim/ops/instance_pick.hpp).
#include <string>

#include "sim/scenario/yaml_reader.hpp"

namespace eksim::scenario {

// The loader's check of `which` (at v): "newest", "oldest" or N (0 = the first launched), an
// index that fits an int32.
void check_instance_pick(const Value& v, const std::string& which);

}  // namespace eksim::scenario
