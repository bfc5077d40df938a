#pragma once
// The lines Karpenter's leader logs as it provisions, launches, registers, initializes, disrupts
// and terminates (controller_log.cpp), each called where upstream logs it; nothing while the
// log is off.
#include <string>
#include <vector>

#include "models/autoscaling/karpenter/logging.hpp"
#include "models/autoscaling/karpenter/settings.hpp"
#include "models/autoscaling/karpenter/state/cluster.hpp"

namespace eksim::autoscaling::karpenter {

class Logger {
 public:
  Logger(eksim::Cluster& world, const Settings& settings, state::Cluster& state)
      : world_(world), settings_(settings), state_(state) {}
  ControllerLog& log() { return log_; }
  const ControllerLog& log() const { return log_; }

  void provisioning(const OrderedPods& pods, const SchedulingResults& res);
  void created(const NodeClaimState& c, const PlannedNodeClaim& planned, bool replacement);
  void launched(const NodeClaimState& c);
  void registered(const NodeClaimState& c);
  void initialized(const NodeClaimState& c, const k8s::NodeRecord& rec);
  void disrupting(const std::vector<std::size_t>& candidates, const std::string& reason,
                  const std::vector<PlannedNodeClaim>& replacements);
  void interruption(const NodeClaimState& c);
  void tainted(const NodeClaimState& c);
  void deleted(const NodeClaimState& c);

 private:
  eksim::Cluster& world_;
  const Settings& settings_;
  state::Cluster& state_;
  ControllerLog log_;
  std::string provisioner_context_;  // this pass's reconcile, for its "created nodeclaim" lines
};

}  // namespace eksim::autoscaling::karpenter
