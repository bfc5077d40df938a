#include "models/k8s/api/cow_vector.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "models/k8s/api/admission.hpp"
#include "models/k8s/kubelet/node_lifecycle.hpp"

namespace eksim::k8s {
namespace {

TEST(CowVector, CopiesShareUntilOneChanges) {
  CowVector<std::string> a{"x", "y"};
  CowVector<std::string> b = a;
  EXPECT_TRUE(a.shares_with(b));
  b.push_back("z");
  EXPECT_FALSE(a.shares_with(b));
  EXPECT_EQ(a.get(), (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(b.get(), (std::vector<std::string>{"x", "y", "z"}));
  // A holder alone changes its storage in place.
  const std::string* first = &b.front();
  b.mut()[0] = "w";
  EXPECT_EQ(first, &b.front());
  EXPECT_EQ(b[0], "w");
  // Equal contents compare equal whether shared or not; empty is empty however it came.
  CowVector<std::string> c{"x", "y"};
  EXPECT_EQ(a, c);
  EXPECT_NE(a, b);
  b.clear();
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(b, CowVector<std::string>{});
}

Pod replica() {
  Pod p;
  Container c;
  c.name = "main";
  c.requests.set(kNvidiaGpu, 1);
  p.spec.containers.push_back(c);
  p.spec.tolerations.push_back(Toleration{"gpu-workload", "Exists", "", kNoSchedule, std::nullopt});
  return p;
}

// Replicas of one template get admit_pod's result, shared; a pod with other tolerations gets its
// own, and a replica changed after its copy is admitted on its own too.
TEST(Admission, ReplicasShareTheAdmittedTolerations) {
  const Pod tmpl = replica();
  PodSpec expected = tmpl.spec;
  admit_pod(expected);
  ASSERT_EQ(expected.tolerations.size(), 4u);  // own, not-ready, unreachable, nvidia.com/gpu

  Admission admission;
  PodSpec one = tmpl.spec, two = tmpl.spec;
  admission.admit(one);
  admission.admit(two);
  EXPECT_EQ(one.tolerations, expected.tolerations);
  EXPECT_TRUE(one.tolerations.shares_with(two.tolerations));
  EXPECT_TRUE(tmpl.spec.tolerations.size() == 1u);  // the template itself is untouched

  PodSpec other = tmpl.spec;
  other.tolerations.push_back(Toleration{kTaintNotReady, "Exists", "", kNoExecute, 60});
  admission.admit(other);
  EXPECT_FALSE(other.tolerations.shares_with(one.tolerations));
  EXPECT_EQ(other.tolerations.size(), 4u);  // its own not-ready kept: unreachable and gpu added

  PodSpec cpu_only = tmpl.spec;
  Container cpu;
  cpu.name = "main";
  cpu.requests.set(kCpu, 100);
  cpu_only.containers = {cpu};
  admission.admit(cpu_only);
  EXPECT_EQ(cpu_only.tolerations.size(), 3u);  // no extended resource: no nvidia.com/gpu toleration
}

}  // namespace
}  // namespace eksim::k8s
