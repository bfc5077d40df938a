#pragma once
// The nodes CA is deleting (cluster-autoscaler/core/scaledown/deletiontracker): each with its
// node group, and of those the deletions still in progress, empty or with a drain. The actuator
// writes it; the cluster state, the planner and the scale-up read it.
#include <cstdint>
#include <map>
#include <set>
#include <string>

namespace eksim::autoscaling::cas {

struct NodeDeletionTracker {
  std::map<std::string, std::string> deleting;  // node name -> node group id
  std::set<std::string> empty, drain;           // deletions in progress

  bool is_deleting(const std::string& node) const { return deleting.count(node) > 0; }
  std::int64_t deleting_in(const std::string& group) const {
    std::int64_t n = 0;
    for (const auto& [node, gid] : deleting) n += gid == group;
    return n;
  }
  std::size_t in_progress() const { return empty.size() + drain.size(); }
  void end(const std::string& node) {
    empty.erase(node);
    drain.erase(node);
  }
  // Keeps only the nodes that still exist; a node that went away in the middle of its deletion
  // is no longer in progress.
  void keep_only(std::map<std::string, std::string> still_deleting) {
    deleting = std::move(still_deleting);
    for (auto* set : {&empty, &drain}) std::erase_if(*set, [&](const std::string& n) { return !deleting.count(n); });
  }
};

}  // namespace eksim::autoscaling::cas
