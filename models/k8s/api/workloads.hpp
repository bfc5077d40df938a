#pragma once
// Pod owners: Deployment (with ReplicaSet behaviour), Job and DaemonSet, as specs plus the status
// their controllers keep.
#include <cstdint>
#include <optional>
#include <string>

#include "models/k8s/api/objects.hpp"
#include "sim/engine/indirect.hpp"

namespace eksim::k8s {

struct PodTemplate {
  ObjectMeta meta;  // labels and annotations of the template
  PodSpec spec;
  RunAnnotations run;  // meta's eksim.io annotations, decoded
};

struct Deployment {
  ObjectMeta meta;
  std::int32_t replicas = 1;
  LabelSelector selector;
  PodTemplate tmpl;
  std::string pod_template_hash;  // names pods <deploy>-<hash>-<suffix>
  bool deleted = false;
};

struct Job {
  ObjectMeta meta;
  std::int32_t completions = 1;
  std::int32_t parallelism = 1;
  std::int32_t backoff_limit = 6;  // Job default
  std::string completion_mode = "NonIndexed";  // | Indexed
  // On the heap: a week of a fleet keeps 100,000 Jobs, and a finished one's template may be
  // dropped (JobController::drop_finished_templates), after which it has no value.
  engine::Indirect<PodTemplate> tmpl;
  // status
  std::int32_t active = 0, succeeded = 0, failed = 0;
  std::string condition;  // "", Complete, Failed
  std::string condition_reason;  // BackoffLimitExceeded, ...
  std::optional<engine::SimTime> completed_at;
  bool deleted = false;
};

struct DaemonSet {
  ObjectMeta meta;
  LabelSelector selector;
  PodTemplate tmpl;
  bool deleted = false;
};

}  // namespace eksim::k8s
