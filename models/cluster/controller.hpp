#pragma once
// A control loop living in the simulated cluster (autoscaler, training-job runner, ...). It
// subscribes to the state it watches in its constructor; the Cluster only owns it.
namespace eksim {

class Controller {
 public:
  virtual ~Controller() = default;
  // The component name used as the source of its events ("cluster-autoscaler", "karpenter").
  virtual const char* name() const = 0;
};

}  // namespace eksim
