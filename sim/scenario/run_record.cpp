#include "sim/scenario/run_record.hpp"

#include "sim/scenario/yaml_documents.hpp"

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
  if (!r.requests.empty()) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& q : r.requests)
      list.push_back({{"atMicroseconds", q.at.us}, {"method", q.method}, {"path", q.path}, {"query", q.query},
                      {"contentType", q.content_type}, {"body", q.body}});
    j["requests"] = std::move(list);
  }
  // A body that is not UTF-8 (no request kubectl sends as JSON or YAML) must not make the whole
  // record unwritable.
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
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
  if (auto list = r.get("requests")) {
    engine::Duration last;
    for (const auto& item : list->items()) {
      MapReader q(item, "recorded request");
      RecordedRequest req;
      Value at = q.require("atMicroseconds");
      req.at = engine::Duration{at.as_int_in(0, kMaxSimulatedTime.us, "simulated microseconds")};
      if (req.at < last) at.fail("recorded requests are in the order they were made; this one is earlier than the one before");
      last = req.at;
      req.method = q.require("method").as_string();
      req.path = q.require("path").as_string();
      if (auto query = q.get("query")) {
        (void)MapReader(*query, "query");  // a mapping, or a located error
        for (const auto& [key, key_v, value] : query->entries("a query parameter")) {
          (void)key_v;
          req.query[key] = value.as_string();
        }
      }
      if (auto ct = q.get("contentType")) req.content_type = ct->as_string();
      if (auto body = q.get("body")) req.body = body->as_string();
      q.finish();
      rec.requests.push_back(std::move(req));
    }
  }
  r.finish();
  return rec;
}

Scenario record_scenario(const RunRecord& r) {
  // The same pre-pass as a scenario file (duplicate keys, alias cycles and bombs): the recorded
  // text is as untrusted as the file it was copied from.
  return load_scenario(parse_yaml_document(r.scenario_text, r.scenario_file), r.scenario_file);
}

}  // namespace eksim::scenario
