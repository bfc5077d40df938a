#pragma once
// Sweep plans (`eksim sweep PLAN`): a base scenario, the scenario fields to vary, and seeds.
//
//   apiVersion: eksim/v1
//   kind: SweepPlan
//   metadata: {name: lab000-sweep}
//   scenario: base.yaml               # relative to the plan
//   until: 4h                         # optional: overrides the scenario's duration
//   seeds: 20                         # 1..20; or {from: 100, count: 20}; or [1, 7, 9]
//   points:                           # optional explicit points, each {PATH: value, ...}
//     - {cluster.nodeGroups.gpu.instance_types: [g5.xlarge]}
//   grid:                             # optional: the cartesian product, first parameter slowest
//     - {path: cluster.nodeGroups.gpu.max_size, values: [2, 4, 8]}
//     - {path: cluster.quotas.onDemand.G, range: {from: 8, to: 32, step: 8}}
//
// A PATH names a field of the scenario's YAML tree by its keys joined with dots; a key that
// itself holds dots (a label such as nvidia.com/gpu) is matched whole, list items by index. A
// missing last key is added, missing intermediate mappings are created: the scenario loader then
// checks the result as strictly as a hand-written file. Runs are numbered point-major:
// run = point * seeds + seed index.
#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/engine/time.hpp"
#include "sim/scenario/input_error.hpp"
#include "sim/scenario/scenario.hpp"

namespace eksim::scenario {

struct SweepAssignment {
  std::string path;
  std::string value_yaml;  // the value as YAML text (re-read per run: yaml-cpp nodes are not shared across threads)
  Location where;          // of the value in the plan
};

struct SweepPoint {
  std::vector<SweepAssignment> assignments;  // explicit point's first, then the grid's, in plan order
};

struct SweepPlan {
  std::string file;
  std::string name;
  std::string description;
  std::string scenario_file;  // resolved relative to the plan
  std::string scenario_text;  // the base scenario as read once
  std::optional<engine::Duration> until;
  std::vector<std::uint64_t> seeds;
  std::vector<SweepPoint> points;

  std::size_t run_count() const { return points.size() * seeds.size(); }
};

struct SweepRun {
  std::size_t index = 0, point = 0;
  std::uint64_t seed = 1;
};

// Reads and checks a plan; throws InputError (unknown keys with did-you-mean, kind, empty lists).
SweepPlan load_sweep_plan(const std::string& path);

SweepRun sweep_run(const SweepPlan& plan, std::size_t index);

// The base scenario's tree with point's assignments applied (throws InputError at the plan's
// value when a path runs into a scalar or a list without an index).
YAML::Node point_tree(const SweepPlan& plan, std::size_t point);
// point_tree through the scenario loader.
Scenario load_point_scenario(const SweepPlan& plan, std::size_t point);

// Sets path in root to value (see the header comment); exposed for tests.
void assign_path(YAML::Node root, const std::string& path, const YAML::Node& value, const Location& where);

// --shard i/N: runs whose index is congruent to i modulo N, so every shard gets a share of every
// point. Parses "i/N" (0 <= i < N); nullopt on malformed text.
std::optional<std::pair<std::size_t, std::size_t>> parse_shard(const std::string& text);
std::vector<std::size_t> shard_runs(std::size_t run_count, std::size_t shard, std::size_t shards);

}  // namespace eksim::scenario
