#pragma once
// Shared fixture for the k8s controller tests: a real engine::Simulator + ApiServer.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "models/k8s/api/api_server.hpp"

namespace eksim::k8s::testing {

struct K8sWorld {
  engine::Simulator sim;
  k8s::EventLog log;
  engine::RngStreams rng{1};
  ApiServer api{sim, log, rng};

  void run_until_s(double s) { sim.run_until(engine::SimTime{static_cast<std::int64_t>(s * 1e6)}); }

  std::vector<k8s::Event> events(const std::string& reason, const std::string& object = {}) const {
    std::vector<k8s::Event> out;
    for (const auto& e : log.events())
      if (e.reason == reason && (object.empty() || e.object.str() == object)) out.push_back(e);
    return out;
  }

  NodeId add_ready_node(const std::string& name, ResourceList alloc, Labels labels = {},
                        std::vector<Taint> taints = {}) {
    NodeRecord rec;
    rec.node.meta.name = name;
    rec.node.meta.labels = std::move(labels);
    rec.node.meta.labels[kLabelHostname] = name;
    rec.node.taints = std::move(taints);
    rec.node.capacity = alloc;
    rec.node.allocatable = alloc;
    rec.node.ready = true;
    return api.register_node(std::move(rec));
  }
};

inline Pod make_pod(const std::string& name, const std::string& image, std::vector<std::string> command = {},
                    std::vector<std::string> args = {}, std::string restart = "Always") {
  Pod p;
  p.meta.name = name;
  p.meta.ns = "default";
  Container c;
  c.name = "main";
  c.image = image;
  c.command = std::move(command);
  c.args = std::move(args);
  p.spec.containers.push_back(c);
  p.spec.restart_policy = std::move(restart);
  return p;
}

inline double secs(engine::SimTime t) { return t.to_seconds(); }

}  // namespace eksim::k8s::testing
