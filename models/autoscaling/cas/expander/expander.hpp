#pragma once
// Cluster Autoscaler expanders (cluster-autoscaler/expander/*): given the scale-up options that
// would help some pending pods, pick one. `--expander` takes a comma-separated list applied as a
// chain of filters; whatever ties remain at the end is decided by `random`, as upstream's
// expander factory does.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/k8s/api/api_server.hpp"
#include "models/k8s/api/objects.hpp"
#include "sim/engine/rng.hpp"

namespace eksim::autoscaling::cas {

// The names --expander takes (expander/expander.go). least-nodes is accepted and, not being
// modelled, filters nothing.
enum class Expander { Random, MostPods, LeastWaste, Price, Priority, LeastNodes };

struct ExpansionOption {
  std::string group_id;             // node group id (the ASG name)
  std::int64_t node_count = 0;      // nodes to add
  std::vector<const k8s::Pod*> pods;  // pods the new nodes would take
  std::vector<k8s::PodId> pod_ids;    // the same pods' ids (for their events)
  k8s::Node template_node;          // capacity used by least-waste
  double node_price_per_hour = 0;   // on-demand (or spot) $/h of one node, for `price`
};

// priority expander config (ConfigMap cluster-autoscaler-priority-expander, key `priorities`):
// priority -> regexps matched against node group ids; highest priority wins.
using PriorityConfig = std::map<int, std::vector<std::string>>;

inline constexpr const char* kPriorityConfigMapName = "cluster-autoscaler-priority-expander";

// That ConfigMap as last applied: its parsed rules, or nullopt and upstream's error text when
// `priorities` is invalid (each scale-up then records PriorityConfigMapInvalid and the priority
// expander filters nothing).
struct PriorityConfigMap {
  bool applied = false;
  std::optional<PriorityConfig> config;
  std::string error;
  bool valid() const { return !applied || config.has_value(); }
  // The rules in force: the ConfigMap's once one was applied, else those of the options.
  const PriorityConfig& effective(const PriorityConfig& from_options) const {
    static const PriorityConfig kNone;
    if (!applied) return from_options;
    return config ? *config : kNone;
  }
};

// expander/priority parsePrioritiesYAMLString, second half: every rule must compile. Returns
// upstream's error ("Can't compile regexp rule for priority 10 and rule [a: error parsing regexp:
// missing closing ]: `[a`"), nullopt when all compile. Regexps are RE2, the library Go's regexp
// package follows (syntax, leftmost-first matching, linear time), with Go's error texts. The YAML
// half (map[int][]string) is read where the ConfigMap is (sim/scenario/cas_config_map).
std::optional<std::string> check_priority_regexps(const PriorityConfig& config);
// Whether any regexp matches somewhere in the id (regexp.FindStringIndex != nil).
bool priority_group_matches(const std::string& group_id, const std::vector<std::string>& patterns);

// Each filter returns the best options (ties kept), never an empty list for non-empty input.
std::vector<ExpansionOption> filter_least_waste(const std::vector<ExpansionOption>& options);
std::vector<ExpansionOption> filter_most_pods(const std::vector<ExpansionOption>& options);
std::vector<ExpansionOption> filter_price(const std::vector<ExpansionOption>& options);
std::vector<ExpansionOption> filter_priority(const std::vector<ExpansionOption>& options, const PriorityConfig& priorities);

// least-waste score of one option: wasted CPU fraction + wasted memory fraction of the new nodes'
// capacity, with pod requests summed over containers (expander/waste/waste.go).
double waste_score(const ExpansionOption& option);

// Applies the chain the flag names ("least-waste", "priority,least-waste", ...), then random.
// Returns the index into options, or -1 when options is empty.
// expander/factory chain: each named filter in turn, stopping as soon as one option is left.
// priority_unmatched, when given, receives the groups the priority filter saw that no regexp
// matched (upstream's PriorityConfigMapNotMatchedGroup warnings), in option order.
int choose_option(const std::vector<ExpansionOption>& options, const std::vector<Expander>& chain,
                  const PriorityConfig& priorities, engine::Rng& rng,
                  std::vector<std::string>* priority_unmatched = nullptr);

}  // namespace eksim::autoscaling::cas
