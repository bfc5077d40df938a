// ApiServer::intern_template: pods a controller creates alike share a template id, which the
// autoscalers compare instead of labels and specs.
#include <gtest/gtest.h>

#include "tests/unit/models/k8s/k8s_test_util.hpp"

namespace eksim::k8s {
namespace {

using testing::K8sWorld;

Pod owned(const std::string& name, const std::string& owner, const std::string& image) {
  Pod p = testing::make_pod(name, image);
  p.meta.labels["app"] = owner;
  p.meta.owner_references.push_back(OwnerReference{"ReplicaSet", owner, true});
  return p;
}

TEST(PodTemplateId, PodsOfOneControllerWithEqualLabelsAndSpecsShareIt) {
  K8sWorld w;
  PodId a = w.api.create_pod(owned("web-1", "web", "nginx"));
  PodId b = w.api.create_pod(owned("web-2", "web", "nginx"));
  PodId other_image = w.api.create_pod(owned("web-3", "web", "nginx:1.27"));
  Pod relabelled = owned("web-4", "web", "nginx");
  relabelled.meta.labels["tier"] = "front";
  PodId c = w.api.create_pod(relabelled);
  PodId other_owner = w.api.create_pod(owned("api-1", "api", "nginx"));
  PodId bare1 = w.api.create_pod(testing::make_pod("bare-1", "nginx"));
  PodId bare2 = w.api.create_pod(testing::make_pod("bare-2", "nginx"));
  const auto id = [&](PodId p) { return w.api.pod(p).template_id; };
  EXPECT_NE(id(a), 0u);
  EXPECT_EQ(id(a), id(b));
  EXPECT_NE(id(a), id(other_image));
  EXPECT_NE(id(a), id(c));
  EXPECT_NE(id(a), id(other_owner));  // the same template under another controller
  EXPECT_NE(id(bare1), id(bare2));    // pods without a controller are never grouped
  // The template of before the change is still recognised.
  EXPECT_EQ(id(w.api.create_pod(owned("web-5", "web", "nginx"))), id(a));
  // A relabelled pod is no longer like its siblings.
  w.api.pod(b).pod.meta.labels["canary"] = "true";
  w.api.pod_updated(b);
  EXPECT_NE(id(a), id(b));
  EXPECT_NE(id(b), id(c));
}

}  // namespace
}  // namespace eksim::k8s
