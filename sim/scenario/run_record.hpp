#pragma once
// A recorded run (`eksim run --record FILE`, replayed by `eksim serve --replay FILE`). Runs are
// deterministic, so a record is what makes the run again, not its output: the scenario's text,
// the path it was read from (the base of its relative `file:` paths), the seed and how long it
// ran, and (from `eksim serve --record`) the API requests that changed it, at their simulated
// instants. Replaying re-simulates from the start to whatever moment the user asks for.
#include <cstdint>
#include <memory>
#include <map>
#include <string>
#include <vector>

#include "sim/engine/time.hpp"
#include "sim/scenario/scenario.hpp"

namespace eksim::scenario {

// A change a user made to a served run (`eksim serve --record`): the API request as it arrived
// and the simulated instant it entered the simulation. Replaying sends it again at that instant.
struct RecordedRequest {
  engine::Duration at;
  std::string method, path;
  std::map<std::string, std::string> query;
  std::string content_type, body;
};

struct RunRecord {
  std::string scenario_file;  // as given to `eksim run`, made absolute
  std::string scenario_text;
  std::uint64_t seed = 1;
  engine::Duration until;     // the simulated time the run stopped at
  std::vector<RecordedRequest> requests;  // in the order they were made
};

// The record as JSON text ({"apiVersion": "eksim/v1", "kind": "RunRecord", ...}).
std::string record_text(const RunRecord& record);
// Reads a record file; InputError (FILE:LINE:COL) when it is not one.
RunRecord load_record(const std::string& path);
// The recorded scenario, loaded as `eksim run` loaded it.
Scenario record_scenario(const RunRecord& record);

}  // namespace eksim::scenario
