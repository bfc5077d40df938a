#include "sim/scenario/run_record.hpp"

#include <filesystem>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "sim/engine/numbers.hpp"
#include "sim/scenario/input_limits.hpp"
#include "sim/scenario/yaml_reader.hpp"

namespace eksim::scenario {

std::string record_text(const RunRecord& r) {
  nlohmann::json j = {{"apiVersion", "eksim/v1"},
                      {"kind", "RunRecord"},
                      {"scenarioFile", r.scenario_file},
                      // A string: a seed may exceed what JSON readers keep exact (2^53).
                      {"seed", std::to_string(r.seed)},
                      {"until", engine::format_duration(r.until)},
                      {"scenario", r.scenario_text}};
  return j.dump(2) + "\n";
}

RunRecord load_record(const std::string& path) {
  FileLoader files;
  auto docs = files.load_documents(std::filesystem::path(path).lexically_normal().string(), std::nullopt);
  if (docs.size() != 1) throw InputError(Location{path, 1, 1}, "a run record is one JSON object (eksim run --record)");
  MapReader r(docs[0], "run record");
  Value api = r.require("apiVersion");
  if (api.as_string() != "eksim/v1") api.fail("apiVersion must be \"eksim/v1\", got \"" + api.as_string() + "\"");
  Value kind = r.require("kind");
  if (kind.as_string() != "RunRecord")
    kind.fail("kind must be \"RunRecord\" (a file written by eksim run --record), got \"" + kind.as_string() + "\"");
  RunRecord rec;
  rec.scenario_file = r.require("scenarioFile").as_string();
  Value seed = r.require("seed");
  auto n = engine::parse_integer<std::uint64_t>(seed.as_string());
  if (!n.ok()) seed.fail("seed must be a whole number from 0 to 18446744073709551615, got \"" + seed.as_string() + "\"");
  rec.seed = n.value;
  Value until = r.require("until");
  rec.until = until.as_duration();
  if (rec.until.us < 0 || rec.until > kMaxSimulatedTime) until.fail("until must be between 0s and one year");
  rec.scenario_text = r.require("scenario").as_string();
  r.finish();
  return rec;
}

Scenario record_scenario(const RunRecord& r) {
  YAML::Node root;
  try {
    root = YAML::Load(r.scenario_text);
  } catch (const YAML::Exception& e) {
    throw InputError(Location{r.scenario_file, e.mark.line + 1, e.mark.column + 1}, "recorded scenario: " + e.msg);
  }
  return load_scenario(root, r.scenario_file);
}

}  // namespace eksim::scenario
