#pragma once
// The EKS managed node group rolling update (UpdateNodegroupVersion, and terraform changes that
// give the group a new launch template version), in the four phases of the EKS user guide
// ("Understand each phase of node updates"):
//   setup      new launch template version, the group's status UPDATING (UpdateNodegroupConfig is
//              then refused with "Nodegroup cannot be updated as it is currently not in Active
//              State");
//   scale up   ASG max and desired += max(2 x number of AZs, maxUnavailable); every new node must
//              be Ready within 15 minutes, else NodeCreationFailure (a surge beyond the vCPU quota
//              ends here);
//   upgrade    up to maxUnavailable old nodes at a time: drain (evictions honour
//              PodDisruptionBudgets; 15 minutes, then PodEvictionFailure unless forced), cordon,
//              wait 60 s, terminate through the ASG decrementing desired; repeat;
//   scale down the ASG back to the sizes it had before the update.
// It lives in models/cluster because it needs both EKS/ASG state and Kubernetes drain.
//
// Every update, including UpdateNodegroupConfig, gets an EKS update record (DescribeUpdate: id,
// type, status, errors), kept here and mirrored as an Activity with service "eks" and the node
// group's name as resource. A failed update also writes a Warning event whose reason is the
// error code and whose message is EKS's error message.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/aws/aws_error.hpp"
#include "models/aws/nodegroup_spec.hpp"
#include "models/cluster/disruption_controller.hpp"
#include "models/k8s/api/objects.hpp"
#include "sim/engine/time.hpp"

namespace eksim {

class Cluster;

// DescribeUpdate ErrorDetail.
struct NodegroupUpdateError {
  std::string code;     // NodeCreationFailure, PodEvictionFailure
  std::string message;  // EKS's text
  std::vector<std::string> resource_ids;  // instance ids (NodeCreationFailure) or node names
};

// DescribeUpdate Update.
struct NodegroupUpdateRecord {
  std::string id;         // a UUID
  std::string nodegroup;
  std::string type;       // VersionUpdate | ConfigUpdate
  std::string status;     // InProgress | Successful | Failed
  std::vector<NodegroupUpdateError> errors;
  engine::SimTime created_at;
  std::size_t activity = 0;  // index of its Activity in the event log
};

// Knobs of the update, each from the EKS user guide "Understand each phase of node updates".
struct NodegroupUpdateOptions {
  engine::Duration node_ready_timeout = engine::Duration::minutes(15);  // new nodes Ready within 15 min
  engine::Duration drain_timeout = engine::Duration::minutes(15);       // pods leave within 15 min
  engine::Duration cordon_wait = engine::Duration::seconds(60);         // cordon, then wait 60 s
  // How often EKS re-checks new nodes and retries evictions (not published; kubectl drain and
  // eksctl retry refused evictions every 5 s).
  engine::Duration poll = engine::Duration::seconds(5);
};

// --- pure rules --------------------------------------------------------------------------

// Scale-up increment: the larger of twice the number of AZs and maxUnavailable.
std::int64_t surge_size(std::int64_t availability_zones, std::int64_t max_unavailable);
// updateConfig: maxUnavailable as given; maxUnavailablePercentage of the node count rounded down
// but at least 1; neither given: 1 (the EKS API default). The terraform module sets
// max_unavailable_percentage = 33 when the scenario gives no update_config (module default).
std::int64_t max_unavailable_nodes(const aws::NodeGroupSpec& spec, std::int64_t nodes);

// EKS texts.
// "Couldn't proceed with upgrade process as new nodes are not joining node group NG"
std::string node_creation_failure_message(const std::string& nodegroup);
// "Reached max retries while trying to evict pods from nodes in node group NG"
std::string pod_eviction_failure_message(const std::string& nodegroup);
// The eviction API's refusal (HTTP 429): "Cannot evict pod as it would violate the pod's
// disruption budget."
inline constexpr const char* kEvictionRefused = "Cannot evict pod as it would violate the pod's disruption budget.";
// "ResourceInUseException" "Nodegroup cannot be updated as it is currently not in Active State"
aws::AwsError not_active_error();
// DescribeUpdate errors as one line: "NodeCreationFailure: <message> (resourceIds: [i-1, i-2])".
std::string format_update_errors(const std::vector<NodegroupUpdateError>& errors);

// --- the controller ------------------------------------------------------------------------

class NodegroupUpdater {
 public:
  // Built with the cluster (cluster.controllers.nodegroup_update).
  explicit NodegroupUpdater(Cluster& cluster, NodegroupUpdateOptions options = {});
  ~NodegroupUpdater();

  // UpdateNodegroupVersion. next, when given, is the node group's configuration after the change
  // (terraform); its sizes are ignored. Returns EKS's error when the call is refused (then no
  // update record is made).
  std::optional<aws::AwsError> update_version(const std::string& nodegroup, const aws::NodeGroupSpec* next = nullptr,
                                              bool force = false);
  // Records a successful UpdateNodegroupConfig (its record completes at once: the ASG does the rest).
  void record_config_update(const std::string& nodegroup);

  const std::vector<NodegroupUpdateRecord>& updates() const { return updates_; }
  // Whether evicting the pod now is allowed by every budget selecting it (the disruption
  // controller's status).
  bool eviction_allowed(const k8s::Pod& pod) const;

  const NodegroupUpdateOptions& options() const { return options_; }

 private:
  struct Run;
  void scale_up(const std::shared_ptr<Run>& run);
  void wait_new_nodes(const std::shared_ptr<Run>& run);
  void upgrade_next_batch(const std::shared_ptr<Run>& run);
  void drain_step(const std::shared_ptr<Run>& run, std::string instance_id, engine::SimTime started);
  void after_drain(const std::shared_ptr<Run>& run, std::string instance_id);
  void scale_down(const std::shared_ptr<Run>& run);
  void fail(const std::shared_ptr<Run>& run, NodegroupUpdateError error);
  void finish(const std::shared_ptr<Run>& run, const std::string& status);
  NodegroupUpdateRecord& new_record(const std::string& nodegroup, const std::string& type, const std::string& what);
  std::vector<std::string> instances_with_version(const std::shared_ptr<Run>& run, bool current) const;

  Cluster& c_;
  NodegroupUpdateOptions options_;
  std::vector<NodegroupUpdateRecord> updates_;
};

}  // namespace eksim
