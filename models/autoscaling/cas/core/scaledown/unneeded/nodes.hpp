#pragma once
// Unneeded nodes (cluster-autoscaler/core/scaledown/unneeded/nodes.go): each node the planner
// found unneeded, since the first pass that found it; a pass drops the nodes it did not find.
// RemovableAt: a ready node goes after scale-down-unneeded-time, an unready one after
// scale-down-unready-time (and only when scale-down-unready-enabled).
#include <cstdint>
#include <string>

#include "models/autoscaling/cas/config/autoscaling_options.hpp"
#include "sim/engine/string_map.hpp"

namespace eksim::autoscaling::cas {

class UnneededNodes {
 public:
  // A planning pass starts; end_pass() drops the nodes it did not mark (without sorting names).
  void begin_pass() { ++pass_; }
  // The node is unneeded in this pass; returns since when.
  engine::SimTime mark(const std::string& node, engine::SimTime now);
  void end_pass();

  bool contains(const std::string& node) const { return since_.count(node) > 0; }
  void erase(const std::string& node) { since_.erase(node); }
  void clear() { since_.clear(); }
  std::size_t size() const { return since_.size(); }
  template <class Fn>
  void for_each_name(Fn fn) const {
    for (const auto& [name, since] : since_) fn(name);
  }

  static bool removable(bool ready, engine::SimTime since, engine::SimTime now, const CasOptions& o);

 private:
  struct Since {
    engine::SimTime since;
    std::uint64_t pass = 0;
  };
  engine::StringMap<Since> since_;  // by node name
  std::uint64_t pass_ = 0;
};

}  // namespace eksim::autoscaling::cas
