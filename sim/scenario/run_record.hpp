#pragma once
// A recorded run (`eksim run --record FILE`, replayed by `eksim serve --replay FILE`). Runs are
// deterministic, so a record is what makes the run again, not its output: the scenario's text,
// the path it was read from (the base of its relative `file:` paths), the seed and how long it
// ran. Replaying re-simulates from the start to whatever moment the user asks for.
#include <cstdint>
#include <memory>
#include <string>

#include "sim/engine/time.hpp"
#include "sim/scenario/scenario.hpp"

namespace eksim::scenario {

struct RunRecord {
  std::string scenario_file;  // as given to `eksim run`, made absolute
  std::string scenario_text;
  std::uint64_t seed = 1;
  engine::Duration until;     // the simulated time the run stopped at
};

// The record as JSON text ({"apiVersion": "eksim/v1", "kind": "RunRecord", ...}).
std::string record_text(const RunRecord& record);
// Reads a record file; InputError (FILE:LINE:COL) when it is not one.
RunRecord load_record(const std::string& path);
// The recorded scenario, loaded as `eksim run` loaded it.
Scenario record_scenario(const RunRecord& record);

}  // namespace eksim::scenario
