#include "sim/scenario/sweep_plan.hpp"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "sim/scenario/input_file.hpp"
#include "sim/scenario/input_limits.hpp"
#include "sim/scenario/yaml_documents.hpp"
#include "sim/scenario/yaml_reader.hpp"

namespace eksim::scenario {

namespace {

std::string dump(const YAML::Node& n) {
  YAML::Emitter e;
  e.SetSeqFormat(YAML::Flow);
  e.SetMapFormat(YAML::Flow);
  e << n;
  return e.c_str();
}

bool parse_index(const std::string& s, std::size_t* out) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

std::vector<SweepAssignment> read_grid_parameter(const Value& v) {
  MapReader r(v, "grid parameter");
  Value path = r.require("path");
  std::string p = path.as_string();
  if (p.empty()) path.fail("path must not be empty");
  bool has_values = r.has("values"), has_range = r.has("range");
  if (has_values == has_range) v.fail("a grid parameter needs exactly one of \"values\" or \"range\"");
  std::vector<SweepAssignment> out;
  if (has_values) {
    Value values = *r.get("values");
    auto items = values.items();
    if (items.empty()) values.fail("values must not be empty");
    for (const auto& item : items) out.push_back(SweepAssignment{p, dump(item.node()), item.where()});
  } else {
    Value range_v = *r.get("range");
    MapReader range(range_v, "range");
    double from = range.require("from").as_double(), to = range.require("to").as_double();
    double step = 1;
    if (auto s = range.get("step")) {
      step = s->as_double();
      if (!(step > 0)) s->fail("step must be positive");
    }
    range.finish();
    if (to < from) range_v.fail("range: to must not be less than from");
    // Whole numbers print as integers while a double holds them exactly (and llround can).
    bool integral = from == std::floor(from) && step == std::floor(step) && std::abs(from) < 1e15 && std::abs(to) < 1e15;
    for (int i = 0;; ++i) {
      double x = from + step * i;
      if (x > to + 1e-9 * std::abs(step)) break;
      if (i >= 100000) range_v.fail("range gives more than 100000 values");
      std::ostringstream text;
      if (integral) text << static_cast<long long>(std::llround(x));
      else text << x;
      out.push_back(SweepAssignment{p, text.str(), range_v.where()});
    }
  }
  r.finish();
  return out;
}

}  // namespace

void assign_path(YAML::Node node, const std::string& path, const YAML::Node& value, const Location& where) {
  std::string rest = path, done;
  while (true) {
    if (node.IsSequence()) {
      auto dot = rest.find('.');
      std::string head = rest.substr(0, dot);
      std::size_t index = 0;
      if (!parse_index(head, &index))
        throw InputError(where, "\"" + done + "\" is a list: name an item by its index, e.g. \"" + done + ".0\"");
      if (index >= node.size())
        throw InputError(where, "\"" + done + "\" has " + std::to_string(node.size()) + " item(s), no index " + head);
      if (dot == std::string::npos) {
        node[index] = value;
        return;
      }
      YAML::Node child = node[index];
      node.reset(child);
      done += "." + head;
      rest = rest.substr(dot + 1);
      continue;
    }
    if (node.IsScalar()) throw InputError(where, "\"" + done + "\" is a value, not a mapping: cannot set \"" + path + "\"");
    if (!node.IsMap() && !node.IsNull()) throw InputError(where, "cannot set \"" + path + "\"");
    // The longest existing key that the rest of the path starts with, so keys with dots work.
    std::string best;
    bool found = false;
    if (node.IsMap()) {
      for (auto it = node.begin(); it != node.end(); ++it) {
        if (!it->first.IsScalar()) continue;
        const std::string& key = it->first.Scalar();
        if ((rest == key || rest.rfind(key + ".", 0) == 0) && (!found || key.size() > best.size())) {
          best = key;
          found = true;
        }
      }
    }
    if (!found) {
      // New keys: the last becomes the value, the ones before it mappings.
      auto dot = rest.find('.');
      best = rest.substr(0, dot);
      if (dot == std::string::npos) {
        node[best] = value;
        return;
      }
      node[best] = YAML::Node(YAML::NodeType::Map);
    }
    if (best == rest) {
      node[best] = value;
      return;
    }
    YAML::Node child = node[best];
    node.reset(child);
    done += (done.empty() ? "" : ".") + best;
    rest = rest.substr(best.size() + 1);
  }
}

namespace {

// seeds: a count (1..N), {from, count}, or a list of distinct seeds; 1 when absent.
std::vector<std::uint64_t> read_seeds(MapReader& r) {
  std::vector<std::uint64_t> seeds;
  if (auto s = r.get("seeds")) {
    if (s->is_scalar()) {
      std::int64_t n = s->as_int_in(1, static_cast<std::int64_t>(kMaxSweepRuns), "a number of seeds");
      for (std::int64_t i = 1; i <= n; ++i) seeds.push_back(static_cast<std::uint64_t>(i));
    } else if (s->is_map()) {
      MapReader m(*s, "seeds");
      auto from = static_cast<std::uint64_t>(m.require("from").as_non_negative());
      Value count_v = m.require("count");
      std::int64_t count = count_v.as_int_in(1, static_cast<std::int64_t>(kMaxSweepRuns), "a number of seeds");
      m.finish();
      for (std::int64_t i = 0; i < count; ++i) seeds.push_back(from + static_cast<std::uint64_t>(i));
    } else {
      std::set<std::uint64_t> seen;
      for (const auto& item : s->items()) {
        auto seed = static_cast<std::uint64_t>(item.as_non_negative("a seed"));
        // The same seed twice is the same run twice: its result lines would collide.
        if (!seen.insert(seed).second) item.fail(fmt::format("seed {} is listed twice", seed));
        seeds.push_back(seed);
      }
      if (seeds.empty()) s->fail("seeds must not be empty");
    }
  } else {
    seeds.push_back(1);
  }
  return seeds;
}

// points: each a mapping of PATH: value; one empty point when absent.
std::vector<SweepPoint> read_points(MapReader& r) {
  std::vector<SweepPoint> explicit_points;
  if (auto pts = r.get("points")) {
    for (const auto& item : pts->items()) {
      if (!item.is_map()) item.fail("a point is a mapping of PATH: value");
      SweepPoint p;
      for (const auto& [path, key, value] : item.entries("a path"))
        p.assignments.push_back(SweepAssignment{path, dump(value.node()), value.where()});
      explicit_points.push_back(std::move(p));
    }
    if (explicit_points.empty()) pts->fail("points must not be empty");
  }
  if (explicit_points.empty()) explicit_points.emplace_back();
  return explicit_points;
}

// Every explicit point crossed with every combination of the grid's values.
void expand_points(const std::vector<SweepPoint>& explicit_points, const std::vector<std::vector<SweepAssignment>>& grid,
                   SweepPlan& plan) {
  for (const auto& base_point : explicit_points) {
    std::vector<std::size_t> idx(grid.size(), 0);
    while (true) {
      SweepPoint p = base_point;
      for (std::size_t k = 0; k < grid.size(); ++k) p.assignments.push_back(grid[k][idx[k]]);
      plan.points.push_back(std::move(p));
      // Odometer: the last parameter varies fastest.
      bool carry = true;
      for (std::size_t k = grid.size(); carry && k > 0;) {
        --k;
        if (++idx[k] < grid[k].size()) carry = false;
        else idx[k] = 0;
      }
      if (carry) break;  // also ends at once for an empty grid
    }
  }
}

}  // namespace

SweepPlan load_sweep_plan(const std::string& path) {
  FileLoader files;
  SweepPlan plan;
  plan.file = std::filesystem::path(path).lexically_normal().string();
  auto docs = files.load_documents(plan.file, std::nullopt);
  if (docs.empty()) throw InputError(Location{plan.file, 1, 1}, "empty sweep plan");
  if (docs.size() > 1) docs[1].fail("a sweep plan file holds one document");
  const Value& root = docs[0];
  MapReader r(root, "sweep plan");
  Value api = r.require("apiVersion");
  if (api.as_string() != "eksim/v1") api.fail("apiVersion must be \"eksim/v1\", got \"" + api.as_string() + "\"");
  Value kind = r.require("kind");
  if (kind.as_string() != "SweepPlan") kind.fail("kind must be \"SweepPlan\", got \"" + kind.as_string() + "\"");
  if (auto meta = r.get("metadata")) {
    MapReader m(*meta, "metadata");
    plan.name = m.require("name").as_string();
    if (auto d = m.get("description")) plan.description = d->as_string();
    m.allow({"labels", "annotations"});
    m.finish();
  } else {
    plan.name = std::filesystem::path(path).stem().string();
  }
  Value scenario_v = r.require("scenario");
  plan.scenario_file = FileLoader::resolve(plan.file, scenario_v.as_string());
  auto base = files.load_documents(plan.scenario_file, scenario_v.where());  // located YAML errors
  if (base.size() != 1) scenario_v.fail("the base scenario must hold exactly one document");
  plan.scenario_text = read_input_file(plan.scenario_file, scenario_v.where());
  if (auto u = r.get("until")) {
    plan.until = u->as_duration();
    if (plan.until->us <= 0) u->fail("until must be positive");
  }
  plan.seeds = read_seeds(r);
  std::vector<SweepPoint> explicit_points = read_points(r);
  std::vector<std::vector<SweepAssignment>> grid;
  if (auto g = r.get("grid")) {
    for (const auto& item : g->items()) grid.push_back(read_grid_parameter(item));
    if (grid.empty()) g->fail("grid must not be empty");
  }
  r.finish();

  // Points x seeds before anything is expanded, so a grid of billions is refused, not allocated.
  std::uint64_t runs = explicit_points.size() * plan.seeds.size();
  for (const auto& values : grid) {
    runs *= values.size();
    if (runs > kMaxSweepRuns) break;  // stays far from overflow: each factor is a list in the file
  }
  if (runs > kMaxSweepRuns)
    root.fail(fmt::format("this sweep plan has more than {} runs (points x seeds); split it into several plans",
                          kMaxSweepRuns));

  expand_points(explicit_points, grid, plan);
  return plan;
}

SweepRun sweep_run(const SweepPlan& plan, std::size_t index) {
  SweepRun r;
  r.index = index;
  r.point = index / plan.seeds.size();
  r.seed = plan.seeds[index % plan.seeds.size()];
  return r;
}

YAML::Node point_tree(const SweepPlan& plan, std::size_t point) {
  YAML::Node root = parse_yaml_document(plan.scenario_text, plan.scenario_file);
  for (const auto& a : plan.points[point].assignments) assign_path(root, a.path, YAML::Load(a.value_yaml), a.where);
  return root;
}

Scenario load_point_scenario(const SweepPlan& plan, std::size_t point) {
  return load_scenario(point_tree(plan, point), plan.scenario_file);
}

std::optional<std::pair<std::size_t, std::size_t>> parse_shard(const std::string& text) {
  auto slash = text.find('/');
  if (slash == std::string::npos) return std::nullopt;
  std::size_t i = 0, n = 0;
  if (!parse_index(text.substr(0, slash), &i) || !parse_index(text.substr(slash + 1), &n)) return std::nullopt;
  if (n == 0 || i >= n) return std::nullopt;
  return std::make_pair(i, n);
}

std::vector<std::size_t> shard_runs(std::size_t run_count, std::size_t shard, std::size_t shards) {
  std::vector<std::size_t> out;
  for (std::size_t r = shard; r < run_count; r += shards) out.push_back(r);
  return out;
}

}  // namespace eksim::scenario
