#pragma once
// A machine becoming a Kubernetes node, and leaving again: OS boot -> bootstrap (AL2
// bootstrap.sh, AL2023 nodeadm, Bottlerocket) -> kubelet start, TLS bootstrap and registration
// (only when the node IAM role is mapped in aws-auth or an access entry) -> CNI (aws-node) ready
// -> Ready. Plus cordon, drain and node removal.
//
// This layer knows nothing of EC2: the caller (EC2/ASG/Karpenter) hands a MachineSpec over when
// its instance is running and cancels the join if the instance goes away first.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/k8s/api/api_server.hpp"

namespace eksim::k8s {

class Kubelet;

enum class BootstrapFlavor { Al2BootstrapSh, Al2023Nodeadm, Bottlerocket };

inline constexpr const char* kTaintNotReady = "node.kubernetes.io/not-ready";
inline constexpr const char* kTaintUnreachable = "node.kubernetes.io/unreachable";
inline constexpr const char* kTaintUnschedulable = "node.kubernetes.io/unschedulable";
// The kubelet's Ready condition (pkg/kubelet/nodestatus ReadyCondition): reason KubeletNotReady
// with the runtime's status error until the CNI is initialised (containerd's text, as
// `kubectl describe node` shows it on a joining node), then KubeletReady.
inline constexpr const char* kReasonKubeletNotReady = "KubeletNotReady";
inline constexpr const char* kReasonKubeletReady = "KubeletReady";
inline constexpr const char* kMessageKubeletReady = "kubelet is posting ready status";
inline constexpr const char* kNetworkNotReadyMessage =
    "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady "
    "message:Network plugin returns error: cni plugin not initialized";
// Number of GPUs the device plugin will find on the node (not a real annotation: the simulated
// hardware, read by the device-plugin add-on when its pod runs there).
inline constexpr const char* kAnnotationGpuCount = "eksim.io/gpu-count";
// The same for the EFA interfaces attached to the instance and its Neuron devices and cores.
inline constexpr const char* kAnnotationEfaCount = "eksim.io/efa-count";
inline constexpr const char* kAnnotationNeuronDeviceCount = "eksim.io/neuron-device-count";
inline constexpr const char* kAnnotationNeuronCoreCount = "eksim.io/neuron-core-count";

// Phase lengths, drawn per node as log-normal around these medians from the stream
// "k8s/node-join/<node name>". Sources (FACTS.md "Kubelet, node join"): RunInstances ~1.5 s and
// pending -> running ~16 s happen before this starts (models/aws); the kubelet registers ~40 s
// after launch, i.e. ~24 s after running = boot 12 + bootstrap 5 + TLS/registration 7; Ready
// ~70 s after launch with managed node groups = ~30 s of aws-node (VPC CNI) start after
// registration. AL2 bootstrap.sh does more work in shell than nodeadm; Bottlerocket boots a
// smaller image; NVIDIA AMIs load the driver's kernel modules, "noticeably slower".
struct NodeJoinTimings {
  double os_boot_s = 12.0;
  double os_boot_bottlerocket_s = 8.0;
  double nvidia_extra_boot_s = 20.0;
  double bootstrap_nodeadm_s = 5.0;
  double bootstrap_sh_s = 8.0;
  double bootstrap_bottlerocket_s = 3.0;
  double kubelet_start_s = 2.0;      // kubelet process start -> "Starting kubelet."
  double tls_register_s = 5.0;       // CSR signed by the EKS signer, Node object created
  double cni_ready_s = 30.0;         // aws-node ready -> NodeReady
  // EKS Auto Mode's AWS-managed, Bottlerocket-based node image (MachineSpec::eks_auto_mode_image;
  // boot and bootstrap use the Bottlerocket medians above). Its VPC CNI runs as a service of the
  // image (no aws-node pod to start, pull or pass a readiness probe) and its NVIDIA driver ships
  // in the image, so Ready follows registration closely. AWS publishes no join timings for Auto
  // Mode; these two are fitted to lab 001 (seeds/001: `kubectl describe pod gpu-pod` on a g5g
  // Auto Mode node shows Nominated 5m12s ago, Scheduled 4m25s ago, i.e. 47 s from NodeClaim to
  // bound pod, which leaves ~7 s for driver load + CNI after the EC2 pending -> running 16 s,
  // Bottlerocket boot 8 + 3, kubelet 2 + 5 and the built-in device plugin's 5 s).
  double nvidia_extra_boot_auto_mode_s = 3.0;
  double cni_ready_auto_mode_s = 4.0;
  double sigma = 0.15;               // log-normal sigma of every phase
};

struct MachineSpec {
  std::string node_name;    // ip-192-168-12-34.ap-northeast-2.compute.internal, or i-... (Auto Mode)
  std::string provider_id;  // aws:///ap-northeast-2a/i-0123...
  std::string instance_id;
  Labels labels;            // well-known (instance-type, zone, arch, os, hostname) + node group/pool
  std::vector<Taint> register_with_taints;
  ResourceList capacity;    // without nvidia.com/gpu: the device plugin adds it
  ResourceList allocatable;
  int gpu_count = 0;        // what the NVIDIA device plugin will advertise
  int efa_count = 0;        // ... the EFA device plugin (EFA interfaces attached at launch)
  int neuron_devices = 0;   // ... the Neuron device plugin (aws.amazon.com/neuron)
  int neuron_cores = 0;     // (aws.amazon.com/neuroncore)
  BootstrapFlavor bootstrap = BootstrapFlavor::Al2023Nodeadm;
  bool nvidia_ami = false;
  // EKS Auto Mode node image: VPC CNI and NVIDIA driver in the image (NodeJoinTimings *_auto_mode_s).
  bool eks_auto_mode_image = false;
  bool role_mapped = true;  // node IAM role in aws-auth mapRoles / access entries
  // The node's security groups let it open TCP 443 to the cluster endpoint. Without it the
  // kubelet's TLS bootstrap and registration never reach the API server: as with an unmapped
  // role, no Node object and no event ever appear.
  bool api_server_reachable = true;
  // False when aws-node cannot get EC2 permissions (node role without AmazonEKS_CNI_Policy and
  // no IRSA / Pod Identity role for the VPC CNI): ipamd never assigns addresses, the CNI config
  // is never written, and the registered node stays NotReady with kNetworkNotReadyMessage.
  bool cni_initializes = true;
  std::string node_group;
  std::string node_pool;
  std::string capacity_type;  // on-demand | spot
  // Overrides of the drawn phase lengths (scenario knobs).
  std::optional<engine::Duration> boot_time;        // running -> bootstrap done (boot + bootstrap)
  std::optional<engine::Duration> register_time;    // bootstrap done -> Node registered
  std::optional<engine::Duration> ready_time;       // registered -> Ready
};

// Lets the caller abandon a join (instance terminated before it registered).
struct NodeJoinHandle {
  std::shared_ptr<bool> cancelled = std::make_shared<bool>(false);
  void cancel() const { *cancelled = true; }
};

// Call when the instance is running. Events: kubelet `Starting` "Starting kubelet.", the
// kubelet's condition events, node-controller `RegisteredNode` "Node N event: Registered Node N
// in Controller", kubelet `NodeReady` "Node N status is now: NodeReady". The Node carries
// node.kubernetes.io/not-ready:NoSchedule until Ready (node lifecycle controller,
// TaintNodesByCondition). An unmapped role never registers and nothing is recorded. Without
// `cni_initializes` the node registers and stays NotReady (no NodeReady event: the kubelet
// records NodeNotReady only on a Ready -> NotReady transition).
NodeJoinHandle start_node_join(ApiServer& api, MachineSpec spec, const NodeJoinTimings& timings = {});
// A node that joined before the simulation began (a scenario's initial node groups): registered
// and Ready now (NotReady when its CNI cannot initialise), with no join events, as `kubectl get
// events` on a settled cluster shows none. nullopt when its role is not mapped (it never joined).
std::optional<NodeId> adopt_joined_node(ApiServer& api, const MachineSpec& spec);

// kubectl cordon: spec.unschedulable + node.kubernetes.io/unschedulable:NoSchedule, kubelet
// event `NodeNotSchedulable` "Node N status is now: NodeNotSchedulable".
void cordon_node(ApiServer& api, NodeId node);
void uncordon_node(ApiServer& api, NodeId node);

// Cordon, then evict every pod except DaemonSet pods with graceful termination (each pod's
// terminationGracePeriodSeconds). `done` runs once no evictable pod is left (checked every second,
// as kubectl drain polls).
bool is_daemonset_pod(const Pod& pod);
void drain_node(ApiServer& api, Kubelet& kubelet, NodeId node, std::function<void()> done = {});

// The Node object is deleted (instance terminated): pods bound to it are removed (pod GC of
// orphaned pods), then the node. Owners recreate their pods.
void remove_node_and_pods(ApiServer& api, NodeId node);

}  // namespace eksim::k8s
