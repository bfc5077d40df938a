#pragma once
// Scale-up (cluster-autoscaler/core/scaleup/orchestrator): ScaleUp in named steps, as upstream.
//
// 1. pod list processing (core/podlistprocessor): unschedulable pods minus DaemonSet,
//    expendable, nominated and too new pods; then filterOutSchedulable, the pods that fit on an
//    existing or upcoming node (they are left to the scheduler);
// 2. expansion options (expansion_options.cpp): each node group's template tested once per pod
//    equivalence group, skipped groups (back-off, max size) and the binpacking estimator up to
//    the group's headroom (resource/ limits, --max-nodes-per-scaleup);
// 3. the expander's choice (expander/, with the priority ConfigMap's warnings);
// 4. balancing across similar node groups (processors/nodegroupset);
// 5. execution (executor.cpp, executor.go executeScaleUp) and the pod events.
//
// A pass that scaled nothing up remembers what it read; a pass that reads the same finds the
// same and only sends its events again.
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/autoscaling/cas/clusterstate/clusterstate.hpp"
#include "models/autoscaling/cas/context/autoscaling_context.hpp"
#include "models/autoscaling/cas/core/scaledown/deletiontracker/node_deletion_tracker.hpp"
#include "models/autoscaling/cas/core/scaleup/equivalence/groups.hpp"
#include "models/autoscaling/cas/expander/expander.hpp"
#include "models/autoscaling/cas/processors/nodegroupset/balancing_processor.hpp"
#include "models/autoscaling/cas/processors/nodeinfosprovider/template_node_info_provider.hpp"

namespace eksim::autoscaling::cas {

// The parts of a template node a pod's fit depends on (its name and hostname change per build).
struct TemplateKey {
  bool present = false;
  std::vector<std::pair<std::string, std::string>> labels;  // without the hostname
  std::vector<k8s::Taint> taints;
  std::vector<std::pair<k8s::ResourceId, std::int64_t>> allocatable;
  bool unschedulable = false;
  bool operator==(const TemplateKey&) const = default;
};

// What a scale-up pass reads besides the pods and the informers' cache: which nodes are usable;
// per node group its target, max, registered and deleting nodes, back-off and template.
struct ScaleUpInputs {
  struct Group {
    std::string id;
    std::int64_t target = 0;  // -1: the group is gone
    std::int64_t max = 0;
    std::int64_t registered = 0;
    std::int64_t deleting = 0;
    bool backed_off = false;
    TemplateKey template_key;
    bool operator==(const Group&) const = default;
  };
  std::vector<std::pair<std::uint32_t, bool>> nodes;  // NodeId, usable
  std::vector<Group> groups;
  bool operator==(const ScaleUpInputs&) const = default;
};

// One scale-up pass's working state, filled step by step.
struct ScaleUpPass {
  ScaleUpPass(engine::SimTime now, const std::vector<LiveNode>& nodes, k8s::SchedulerOptions sched)
      : now(now), nodes(nodes), sched(std::move(sched)) {}
  engine::SimTime now;
  const std::vector<LiveNode>& nodes;
  k8s::SchedulerOptions sched;
  std::map<std::string, std::optional<k8s::Node>> templates;  // by node group id
  // filterOutSchedulable's snapshot: usable nodes, plus every group's upcoming nodes as copies
  // of one template node each (shared until written).
  SnapshotFork snap;
  std::deque<k8s::NodeInfo> upcoming_protos;
  std::int64_t total_nodes = 0;
  std::vector<k8s::PodId> remaining;  // pods no existing or upcoming node takes
  // Equivalence groups of the remaining pods; each pod's group; per group, the reasons node
  // groups gave (reason -> node groups).
  std::vector<PodEquivalenceGroup> equivalence;
  std::vector<std::size_t> group_of;
  std::vector<std::map<std::string, int>> reasons;
  std::map<std::string, std::int64_t> current;                // node group -> target size
  std::map<std::string, std::vector<bool>> fitting_by_group;  // node group -> equivalence groups it fits
  std::vector<ExpansionOption> options;
  std::vector<std::vector<bool>> option_groups;  // per option, the equivalence groups it takes
};

class Orchestrator {
 public:
  Orchestrator(AutoscalingContext& ctx, ClusterStateRegistry& cluster_state, const NodeDeletionTracker& deletions,
               TemplateNodeInfoProvider& templates)
      : ctx_(ctx), cluster_state_(cluster_state), deletions_(deletions), templates_(templates) {}

  // Where unschedulable pods come from (the scheduler's list when it is wired); by default every
  // pending, unbound, non-DaemonSet pod of the default scheduler older than one second.
  // `version` moves whenever the list changes, so that a pass can tell without listing.
  void set_unschedulable_source(std::function<std::vector<k8s::PodId>()> source, std::function<std::uint64_t()> version) {
    unschedulable_source_ = std::move(source);
    unschedulable_version_ = std::move(version);
  }
  // The ConfigMap cluster-autoscaler-priority-expander as last applied.
  void set_priority_config_map(std::optional<PriorityConfig> config, std::string error) {
    priority_config_map_ = PriorityConfigMap{true, std::move(config), std::move(error)};
  }

  // ScaleUp: true when a node group was scaled up.
  bool scale_up(const std::vector<LiveNode>& nodes);
  std::optional<engine::SimTime> last_scale_up() const { return last_scale_up_; }

 private:
  // What a pass read, and what it found when it scaled nothing up.
  struct Memo {
    bool valid = false;
    std::uint64_t version = 0;                // the informers' version
    std::uint64_t unschedulable_version = 0;  // with a versioned source; else the list itself
    std::vector<k8s::PodId> unschedulable;
    ScaleUpInputs inputs;
    std::vector<k8s::PodId> remaining;
    std::vector<std::size_t> group_of;
    std::vector<std::string> messages;  // by equivalence group
  };

  // Builds each group's template once per pass, into pass.templates.
  ScaleUpInputs read_inputs(ScaleUpPass& pass);
  std::vector<k8s::PodId> list_unschedulable() const;
  std::vector<k8s::PodId> default_unschedulable() const;
  void remember(Memo key, std::vector<k8s::PodId> remaining, std::vector<std::size_t> group_of,
                std::vector<std::string> messages);

  // Step 1 (core/podlistprocessor): delayed is set when a pod was too new to count.
  std::vector<k8s::PodId> pending_pods(const std::vector<k8s::PodId>& unschedulable, bool& delayed) const;
  void add_upcoming_nodes(ScaleUpPass& pass);
  void filter_out_schedulable(ScaleUpPass& pass, const std::vector<k8s::PodId>& pending);
  // Step 2 (expansion_options.cpp).
  void compute_expansion_options(ScaleUpPass& pass);
  const char* skipped_reason(const NodeGroup& group, std::int64_t target, engine::SimTime now) const;
  std::vector<bool> fitting_equivalence_groups(ScaleUpPass& pass, const k8s::Node& tmpl);
  void estimate(ScaleUpPass& pass, const NodeGroup& group, const k8s::Node& tmpl, std::int64_t target,
                const std::vector<std::size_t>& fitting);
  // Step 3: the index of the chosen option.
  std::size_t choose_best_option(const ScaleUpPass& pass);
  void emit_priority_warnings(const ScaleUpPass& pass, const std::vector<std::string>& unmatched, bool have_rules);
  // Step 4: the chosen group and the similar groups that take its pods.
  std::vector<GroupSize> similar_node_groups(ScaleUpPass& pass, std::size_t pick);
  // Step 5 (executor.cpp).
  bool execute(ScaleUpPass& pass, const ExpansionOption& best, const std::vector<ScaleUpInfo>& plan);
  // NotTriggerScaleUp to each pod (message by its equivalence group) until the broadcaster's
  // queue refuses one.
  void emit_not_triggered(const std::vector<k8s::PodId>& pods, const std::vector<std::size_t>& group_of,
                          const std::vector<std::string>& messages);

  AutoscalingContext& ctx_;
  ClusterStateRegistry& cluster_state_;
  const NodeDeletionTracker& deletions_;
  TemplateNodeInfoProvider& templates_;
  std::function<std::vector<k8s::PodId>()> unschedulable_source_;
  std::function<std::uint64_t()> unschedulable_version_;
  PriorityConfigMap priority_config_map_;
  Memo memo_;
  std::optional<engine::SimTime> last_scale_up_;
};

}  // namespace eksim::autoscaling::cas
