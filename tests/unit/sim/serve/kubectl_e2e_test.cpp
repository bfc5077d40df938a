// The real kubectl against `eksim serve` on labs 000 and 001 (issue 14's Done-when): get with
// -o wide and -w, describe, apply -f of the lab's own manifest, logs with the nvidia-smi table,
// scale, delete and the clock; lab 004's crash-looping device plugin. Skipped where no kubectl
// is installed.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "sim/cli/app.hpp"
#include "sim/cli/serve_command.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/serve/http_client.hpp"
#include "sim/serve/http_server.hpp"
#include "sim/serve/kubeconfig.hpp"

namespace eksim::serve {
namespace {

namespace fs = std::filesystem;

struct Output {
  int rc = 0;
  std::string text;
};

Output shell(const std::string& cmd) {
  Output out;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return {-1, ""};
  std::array<char, 4096> buf;
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.text.append(buf.data(), n);
  int status = pclose(p);
  out.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

bool have_kubectl() { return shell("command -v kubectl").rc == 0; }

// A scenario served on a free loopback port by a server thread; kubectl runs with its own
// kubeconfig and discovery cache so nothing leaks between tests or from the user's ~/.kube.
class ServedLab {
 public:
  ServedLab(const std::string& scenario_file, const std::string& speed) {
    auto sc = std::make_unique<scenario::Scenario>(scenario::load_scenario(std::string(EKSIM_SOURCE_DIR) + "/" + scenario_file));
    session_ = std::make_unique<Session>(std::move(sc), std::nullopt, *parse_speed(speed, nullptr));
    ServerOptions o;
    o.port = 0;
    server_ = std::make_unique<HttpServer>(*session_, o);
    url_ = "http://127.0.0.1:" + std::to_string(server_->port());
    dir_ = fs::temp_directory_path() / ("eksim-serve-test-" + std::to_string(server_->port()));
    fs::create_directories(dir_);
    std::ofstream(dir_ / "kubeconfig") << kubeconfig_text(url_, "test");
    thread_ = std::thread([this] { server_->run(); });
  }
  ~ServedLab() {
    server_->stop();
    thread_.join();
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  Output kubectl(const std::string& args) {
    return shell("KUBECONFIG=" + (dir_ / "kubeconfig").string() + " kubectl --cache-dir=" + (dir_ / "cache").string() + " " + args);
  }
  nlohmann::json clock(const nlohmann::json& body) {
    auto r = http_call(url_, "POST", "/eksim/v1/clock", body.dump());
    EXPECT_EQ(r.status, 200) << r.body;
    return nlohmann::json::parse(r.body);
  }
  const std::string& url() const { return url_; }
  // Watches open on the server now (GET /eksim/v1/clock).
  long long open_watches() {
    auto r = http_call(url_, "GET", "/eksim/v1/clock");
    return nlohmann::json::parse(r.body).value("openWatches", 0LL);
  }
  // `eksim ctl ARGS...` against this server, in process.
  int ctl(std::vector<std::string> args) {
    cli::CtlArgs a;
    a.args = std::move(args);
    a.server = url_;
    return cli::ctl_command(a);
  }

 private:
  std::unique_ptr<Session> session_;
  std::unique_ptr<HttpServer> server_;
  std::thread thread_;
  std::string url_;
  fs::path dir_;
};

#define REQUIRE_KUBECTL() \
  if (!have_kubectl()) GTEST_SKIP() << "no kubectl on PATH: the kubectl-driven checks of eksim serve are skipped"

// describe's Tolerations block: the first on the "Tolerations:" line, the rest below it, in order
// (the column kubectl aligns them at depends on the longest label and on kubectl's version).
bool has_tolerations(const std::string& describe, const std::vector<std::string>& expected) {
  auto pos = describe.find("Tolerations:");
  if (pos == std::string::npos) return false;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    auto eol = describe.find('\n', pos);
    std::string line = describe.substr(pos, eol - pos);
    auto text = line.find_first_not_of(' ', i == 0 ? 12 : 0);
    if (text == std::string::npos || line.substr(text) != expected[i]) return false;
    pos = eol + 1;
  }
  return true;
}

std::string source(const std::string& rel) { return std::string(EKSIM_SOURCE_DIR) + "/" + rel; }

TEST(KubectlE2E, Lab000GpuNodeGroup) {
  REQUIRE_KUBECTL();
  ServedLab lab("scenarios/labs/000-gpu-pod-no-toleration.yaml", "paused");
  Output nodes = lab.kubectl("get nodes -o wide");
  ASSERT_EQ(nodes.rc, 0) << nodes.text;
  EXPECT_NE(nodes.text.find("INTERNAL-IP"), std::string::npos) << nodes.text;
  EXPECT_NE(nodes.text.find("ip-192-168-12-10.ap-northeast-2.compute.internal   Ready"), std::string::npos) << nodes.text;
  Output pods = lab.kubectl("get pods");
  EXPECT_NE(pods.text.find("gpu-pod   0/1     Pending"), std::string::npos) << pods.text;

  // eksim ctl, as the student types it.
  EXPECT_EQ(lab.ctl({"until", "pod/gpu-pod Running"}), 0);
  EXPECT_EQ(lab.clock({{"action", "pause"}})["now"], "4m3s");
  EXPECT_EQ(lab.ctl({"until", "pod/gpu-pod"}), 1);  // no state: the server says how to write it
  pods = lab.kubectl("get pods -o wide");
  EXPECT_NE(pods.text.find("1/1     Running"), std::string::npos) << pods.text;
  EXPECT_NE(pods.text.find("ip-192-168-12-11.ap-northeast-2.compute.internal"), std::string::npos) << pods.text;

  Output describe = lab.kubectl("describe pod gpu-pod");
  ASSERT_EQ(describe.rc, 0) << describe.text;
  EXPECT_TRUE(has_tolerations(describe.text, {"node.kubernetes.io/not-ready:NoExecute op=Exists for 300s",
                                              "node.kubernetes.io/unreachable:NoExecute op=Exists for 300s",
                                              "nvidia.com/gpu:NoSchedule op=Exists"}))
      << describe.text;
  EXPECT_NE(describe.text.find("Successfully assigned default/gpu-pod to ip-192-168-12-11"), std::string::npos) << describe.text;
  // The scheduler's events.k8s.io series keeps the note it was created with (the pod first failed
  // on the two CPU nodes) and counts the later attempts, whatever their messages.
  EXPECT_NE(describe.text.find("FailedScheduling  73s (x4 over 4m3s)  default-scheduler  0/2 nodes are available: 2 "
                               "node(s) didn't match Pod's node affinity/selector."),
            std::string::npos)
      << describe.text;
  EXPECT_EQ(describe.text.find("Insufficient nvidia.com/gpu"), std::string::npos) << describe.text;

  Output logs = lab.kubectl("logs gpu-pod");
  EXPECT_NE(logs.text.find("| NVIDIA-SMI 580.126.20             Driver Version: 580.126.20     CUDA Version: 13.0     |"),
            std::string::npos)
      << logs.text;
  EXPECT_NE(logs.text.find("NVIDIA A10G"), std::string::npos) << logs.text;
  EXPECT_NE(logs.text.find("22888MiB"), std::string::npos) << logs.text;

  Output events = lab.kubectl("get events");
  EXPECT_NE(events.text.find("LAST SEEN   TYPE      REASON"), std::string::npos) << events.text;
  EXPECT_NE(events.text.find("pod/gpu-pod"), std::string::npos) << events.text;

  Output exec = lab.kubectl("exec gpu-pod -- nvidia-smi");
  EXPECT_EQ(exec.rc, 0) << exec.text;
  EXPECT_NE(exec.text.find("|   0  NVIDIA A10G                    On  |"), std::string::npos) << exec.text;
  Output ls = lab.kubectl("exec gpu-pod -- ls /");
  EXPECT_EQ(ls.rc, 127) << ls.text;
  EXPECT_NE(ls.text.find("command terminated with exit code 127"), std::string::npos) << ls.text;

  Output node = lab.kubectl("describe node ip-192-168-12-11.ap-northeast-2.compute.internal");
  EXPECT_NE(node.text.find("nvidia.com/gpu:     1"), std::string::npos) << node.text;
  EXPECT_NE(node.text.find("default                     gpu-pod"), std::string::npos) << node.text;
  EXPECT_NE(node.text.find("HolderIdentity:  ip-192-168-12-11.ap-northeast-2.compute.internal"), std::string::npos) << node.text;

  // A watch prints the list, then the changes the clock brings. kubectl never ends a watch itself;
  // the server does, once simulated time passes the watch's timeout (kubectl sends no
  // timeoutSeconds, so 30 to 60 simulated minutes, as kube-apiserver's --min-request-timeout).
  // The clock stays paused until the watch is open, so the pod's changes reach it as events.
  Output watch;
  std::thread watcher([&] { watch = lab.kubectl("get pods -w"); });
  while (lab.open_watches() == 0) std::this_thread::yield();
  EXPECT_EQ(lab.ctl({"advance", "2h"}), 0);
  watcher.join();
  EXPECT_EQ(watch.rc, 0) << watch.text;
  EXPECT_NE(watch.text.find("gpu-pod   1/1     Running"), std::string::npos) << watch.text;
  EXPECT_NE(watch.text.find("Completed"), std::string::npos) << watch.text;

  Output del = lab.kubectl("delete pod gpu-pod");
  EXPECT_EQ(del.rc, 0) << del.text;
  EXPECT_NE(del.text.find("pod \"gpu-pod\" deleted"), std::string::npos) << del.text;
  Output gone = lab.kubectl("get pod gpu-pod");
  EXPECT_NE(gone.rc, 0);
  EXPECT_NE(gone.text.find("Error from server (NotFound): pods \"gpu-pod\" not found"), std::string::npos) << gone.text;
}

// Lab 004's static device plugin: the pods on the CPU nodes crash-loop, and `kubectl logs`,
// `logs --previous` and `describe` show why, as on a real mixed cluster.
TEST(KubectlE2E, Lab004DevicePluginCrashLoopReadsLikeARealOne) {
  REQUIRE_KUBECTL();
  ServedLab lab("scenarios/labs/004-static-device-plugin.yaml", "paused");
  EXPECT_EQ(lab.ctl({"advance", "9m"}), 0);
  Output pods = lab.kubectl("get pods -n kube-system --no-headers");
  std::string crashing, serving;
  std::istringstream rows(pods.text);
  for (std::string row; std::getline(rows, row);) {
    if (row.rfind("nvidia-device-plugin-daemonset-", 0) != 0) continue;
    (row.find("CrashLoopBackOff") != std::string::npos ? crashing : serving) = row.substr(0, row.find(' '));
  }
  ASSERT_FALSE(crashing.empty()) << pods.text;
  ASSERT_FALSE(serving.empty()) << pods.text;

  Output log = lab.kubectl("logs -n kube-system " + crashing);
  EXPECT_EQ(log.rc, 0) << log.text;
  EXPECT_NE(log.text.find("main.go:369] Retrieving plugins.\n"), std::string::npos) << log.text;
  EXPECT_NE(log.text.find("factory.go:113] Incompatible strategy detected auto\n"), std::string::npos) << log.text;
  EXPECT_NE(log.text.find("main.go:185] error starting plugins: error getting plugins: unable to create plugins: "
                          "failed to construct resource managers: invalid device discovery strategy\n"),
            std::string::npos)
      << log.text;
  Output previous = lab.kubectl("logs --previous -n kube-system " + crashing);
  EXPECT_EQ(previous.rc, 0) << previous.text;
  EXPECT_NE(previous.text.find("Incompatible strategy detected auto"), std::string::npos) << previous.text;
  Output describe = lab.kubectl("describe pod -n kube-system " + crashing);
  EXPECT_NE(describe.text.find("Last State:     Terminated\n      Reason:       Error\n      Exit Code:    1\n"),
            std::string::npos)
      << describe.text;

  Output registered = lab.kubectl("logs -n kube-system " + serving);
  EXPECT_NE(registered.text.find("server.go:148] Registered device plugin for 'nvidia.com/gpu' with Kubelet\n"),
            std::string::npos)
      << registered.text;
  Output none = lab.kubectl("logs --previous -n kube-system " + serving);
  EXPECT_NE(none.rc, 0);
  EXPECT_NE(none.text.find("Error from server (BadRequest): previous terminated container \"nvidia-device-plugin-ctr\" "
                           "in pod \"" + serving + "\" not found"),
            std::string::npos)
      << none.text;
}

// `logs -f` streams while the container runs and returns when it exits: with the clock paused
// the stream stays open (the server counts it among its open streams); advancing past the end of
// the pod's `sleep 600` ends it.
TEST(KubectlE2E, LogsFollowEndsWithTheContainer) {
  REQUIRE_KUBECTL();
  ServedLab lab("scenarios/labs/000-gpu-pod-no-toleration.yaml", "paused");
  EXPECT_EQ(lab.ctl({"until", "pod/gpu-pod Running"}), 0);
  Output logs;
  std::atomic<bool> returned{false};
  std::thread follower([&] {
    logs = lab.kubectl("logs -f gpu-pod");
    returned = true;
  });
  while (lab.open_watches() == 0) std::this_thread::yield();
  EXPECT_EQ(lab.ctl({"advance", "5m"}), 0);
  EXPECT_EQ(lab.open_watches(), 1);  // still sleeping: the stream is open
  EXPECT_FALSE(returned);
  EXPECT_EQ(lab.ctl({"advance", "10m"}), 0);
  follower.join();
  EXPECT_EQ(logs.rc, 0) << logs.text;
  EXPECT_NE(logs.text.find("NVIDIA A10G"), std::string::npos) << logs.text;
  EXPECT_NE(logs.text.find("No running processes found"), std::string::npos) << logs.text;
}

// `eksim ctl aws` in process against the served lab: the node group scales and the new GPU node
// registers; a refusal is the aws CLI's error text with exit 254.
TEST(KubectlE2E, CtlAwsScalesTheNodeGroup) {
  REQUIRE_KUBECTL();
  ServedLab lab("scenarios/labs/000-gpu-pod-no-toleration.yaml", "paused");
  EXPECT_EQ(lab.ctl({"aws", "eks", "update-nodegroup-config", "--cluster-name", "myeks5w", "--nodegroup-name", "gpu",
                     "--scaling-config", "desiredSize=3"}),
            254);
  // The command line as typed: the aws CLI's flags after "aws" are not eksim ctl's own.
  std::vector<std::string> argv_text{"eksim", "ctl", "--server", lab.url(), "aws", "eks", "update-nodegroup-config",
                                     "--cluster-name", "myeks5w", "--nodegroup-name", "primary",
                                     "--scaling-config", "minSize=2,maxSize=3,desiredSize=3", "--region", "ap-northeast-2"};
  std::vector<char*> argv;
  for (auto& a : argv_text) argv.push_back(a.data());
  EXPECT_EQ(cli::main(static_cast<int>(argv.size()), argv.data()), 0);
  EXPECT_EQ(lab.ctl({"advance", "5m"}), 0);
  Output nodes = lab.kubectl("get nodes -l eks.amazonaws.com/nodegroup=primary --no-headers");
  EXPECT_EQ(std::count(nodes.text.begin(), nodes.text.end(), '\n'), 3) << nodes.text;
}

TEST(KubectlE2E, Lab001AutoModeGpuPool) {
  REQUIRE_KUBECTL();
  ServedLab lab("scenarios/karpenter/lab001-auto-mode-gpu-pool.yaml", "paused");
  Output pools = lab.kubectl("get nodepools");
  ASSERT_EQ(pools.rc, 0) << pools.text;
  EXPECT_NE(pools.text.find("general-purpose   default     0       True"), std::string::npos) << pools.text;
  Output nodes = lab.kubectl("get nodes -o wide");
  EXPECT_NE(nodes.text.find("No resources found"), std::string::npos) << nodes.text;
  // The lab's `kubectl get crd -o wide`: its thirteen CRDs, Auto Mode's NodeClass among them.
  Output crds = lab.kubectl("get crd -o wide --no-headers");
  ASSERT_EQ(crds.rc, 0) << crds.text;
  EXPECT_EQ(std::count(crds.text.begin(), crds.text.end(), '\n'), 13) << crds.text;
  EXPECT_NE(crds.text.find("nodeclasses.eks.amazonaws.com"), std::string::npos) << crds.text;
  // kubectl 1.32's generator commands send protobuf.
  Output ns = lab.kubectl("create ns karpenter");
  EXPECT_NE(ns.text.find("namespace/karpenter created"), std::string::npos) << ns.text;
  Output cm = lab.kubectl("create configmap settings -n karpenter --from-literal=mode=fast");
  EXPECT_NE(cm.text.find("configmap/settings created"), std::string::npos) << cm.text;
  Output data = lab.kubectl("get configmap settings -n karpenter -o jsonpath={.data.mode}");
  EXPECT_EQ(data.text, "fast");
  // The lab's gpu-nodepool.yaml, unchanged, before the scenario's own apply at 5m.
  Output pool = lab.kubectl("apply -f " + source("tests/serve/lab001-gpu-nodepool.yaml"));
  EXPECT_NE(pool.text.find("nodepool.karpenter.sh/gpu-pool created"), std::string::npos) << pool.text;
  pool = lab.kubectl("apply -f " + source("tests/serve/lab001-gpu-nodepool.yaml"));
  EXPECT_NE(pool.text.find("nodepool.karpenter.sh/gpu-pool unchanged"), std::string::npos) << pool.text;

  auto state = lab.clock({{"action", "until"}, {"condition", "pod/gpu-pod CrashLoopBackOff"}, {"timeout", "15m"}});
  EXPECT_NE(state["now"], "0s");
  lab.clock({{"action", "advance"}, {"by", "3m"}});
  pools = lab.kubectl("get nodepools -o wide");
  EXPECT_NE(pools.text.find("gpu-pool"), std::string::npos) << pools.text;
  Output claims = lab.kubectl("get nodeclaims");
  EXPECT_NE(claims.text.find("on-demand"), std::string::npos) << claims.text;
  EXPECT_NE(claims.text.find("True"), std::string::npos) << claims.text;

  Output describe = lab.kubectl("describe pod gpu-pod");
  EXPECT_TRUE(has_tolerations(describe.text, {"gpu-workload:NoSchedule op=Exists",
                                              "node.kubernetes.io/not-ready:NoExecute op=Exists for 300s",
                                              "node.kubernetes.io/unreachable:NoExecute op=Exists for 300s",
                                              "nvidia.com/gpu:NoSchedule op=Exists"}))
      << describe.text;
  EXPECT_NE(describe.text.find("eks-auto-mode/compute  Pod should schedule on: nodeclaim/gpu-pool-"), std::string::npos)
      << describe.text;
  EXPECT_NE(describe.text.find("in 58.965s (58.965s including waiting). Image size: 1766399024 bytes."), std::string::npos)
      << describe.text;
  EXPECT_NE(describe.text.find("Back-off restarting failed container cuda-container in pod gpu-pod_default("),
            std::string::npos)
      << describe.text;

  Output logs = lab.kubectl("logs gpu-pod");
  EXPECT_NE(logs.text.find("| NVIDIA-SMI 570.195.03             Driver Version: 570.195.03     CUDA Version: 13.0     |"),
            std::string::npos)
      << logs.text;
  EXPECT_NE(logs.text.find("|   0  NVIDIA T4G                     On  |   00000000:00:1F.0 Off |                    0 |"),
            std::string::npos)
      << logs.text;

  // The lab's own manifest, unchanged: delete the scenario's pod, apply the file, apply again.
  lab.clock({{"action", "speed"}, {"speed", "600"}});
  Output del = lab.kubectl("delete pod gpu-pod");
  EXPECT_EQ(del.rc, 0) << del.text;
  Output apply = lab.kubectl("apply -f " + source("tests/serve/lab001-gpu-pod.yaml"));
  EXPECT_EQ(apply.rc, 0) << apply.text;
  EXPECT_NE(apply.text.find("pod/gpu-pod created"), std::string::npos) << apply.text;
  Output created = lab.kubectl("create -f " + source("tests/serve/lab001-gpu-pod.yaml"));
  EXPECT_NE(created.text.find("pods \"gpu-pod\" already exists"), std::string::npos) << created.text;

  Output deploy = lab.kubectl("apply -f " + source("tests/serve/cuda-deployment.yaml"));
  EXPECT_NE(deploy.text.find("deployment.apps/web created"), std::string::npos) << deploy.text;
  Output scale = lab.kubectl("scale deployment web --replicas=3");
  EXPECT_NE(scale.text.find("deployment.apps/web scaled"), std::string::npos) << scale.text;
  Output pods = lab.kubectl("get pods -l app=web -o name");
  EXPECT_EQ(std::count(pods.text.begin(), pods.text.end(), '\n'), 3) << pods.text;

  EXPECT_EQ(lab.ctl({"pause"}), 0);
  auto paused = lab.clock({{"action", "pause"}});
  EXPECT_EQ(paused["speed"], "paused");
  EXPECT_EQ(lab.ctl({"advance", "5m"}), 0);
  auto later = lab.clock({{"action", "resume"}});
  EXPECT_EQ(later["nowMicroseconds"].get<std::int64_t>() - paused["nowMicroseconds"].get<std::int64_t>(), 300'000'000);
  EXPECT_EQ(later["paused"], false);
}


// Lab 002 step 5 on a cluster declared without Karpenter (issue 39): before its CRDs kubectl
// finds no NodePool kind; `kubectl create -f` of the real v1.8.3 CRD files; then the NodePool
// is created and listed, and a chart's kinds are listed back, never with an eksim Warning.
TEST(KubectlE2E, KarpenterCrdsCreatedAsTheLabDoes) {
  REQUIRE_KUBECTL();
  ServedLab lab("scenarios/labs/000-gpu-pod-no-toleration.yaml", "paused");
  const std::string pool = (fs::temp_directory_path() / "eksim-e2e-nodepool.yaml").string();
  std::ofstream(pool) << "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: gpu}\nspec:\n  template:\n"
                         "    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n"
                         "      requirements: [{key: karpenter.k8s.aws/instance-family, operator: In, values: [g5]}]\n";
  Output before = lab.kubectl("apply -f " + pool);
  EXPECT_NE(before.rc, 0);
  EXPECT_NE(before.text.find("no matches for kind \"NodePool\" in version \"karpenter.sh/v1\""), std::string::npos) << before.text;
  EXPECT_NE(before.text.find("ensure CRDs are installed first"), std::string::npos) << before.text;
  Output get = lab.kubectl("get nodepools");
  EXPECT_NE(get.text.find("error: the server doesn't have a resource type \"nodepools\""), std::string::npos) << get.text;
  EXPECT_EQ(lab.kubectl("create ns karpenter").rc, 0);
  for (const char* f : {"karpenter.sh_nodepools.yaml", "karpenter.sh_nodeclaims.yaml", "karpenter.k8s.aws_ec2nodeclasses.yaml"}) {
    Output created = lab.kubectl("create -f " + source(std::string("scenarios/labs/manifests/002/crds/") + f));
    EXPECT_EQ(created.rc, 0) << created.text;
    EXPECT_NE(created.text.find("created"), std::string::npos) << created.text;
  }
  Output crds = lab.kubectl("get crd");
  EXPECT_NE(crds.text.find("nodepools.karpenter.sh"), std::string::npos) << crds.text;
  Output applied = lab.kubectl("apply -f " + pool);
  EXPECT_EQ(applied.rc, 0) << applied.text;
  EXPECT_EQ(applied.text, "nodepool.karpenter.sh/gpu created\n");
  Output pools = lab.kubectl("get nodepools -o name");
  EXPECT_EQ(pools.text, "nodepool.karpenter.sh/gpu\n");
  Output sa = lab.kubectl("create serviceaccount karpenter -n karpenter --dry-run=client -o yaml");
  const std::string sa_file = (fs::temp_directory_path() / "eksim-e2e-sa.yaml").string();
  std::ofstream(sa_file) << sa.text;
  Output sa_applied = lab.kubectl("apply -f " + sa_file);
  EXPECT_EQ(sa_applied.text, "serviceaccount/karpenter created\n");
  EXPECT_NE(lab.kubectl("get sa -A").text.find("karpenter"), std::string::npos);
  EXPECT_EQ(lab.kubectl("delete crd nodepools.karpenter.sh").rc, 0);
  EXPECT_NE(lab.kubectl("get nodepools").rc, 0);
  fs::remove(pool);
  fs::remove(sa_file);
}

}  // namespace
}  // namespace eksim::serve
