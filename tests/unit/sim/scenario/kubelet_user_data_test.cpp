// Kubelet settings from node group user data: bootstrap.sh arguments (AL2), NodeConfig (AL2023)
// and Bottlerocket's TOML, with the errors the kubelet or Bottlerocket would give.
#include "sim/scenario/kubelet_user_data.hpp"

#include <gtest/gtest.h>

#include "sim/scenario/toml_settings.hpp"

namespace eksim::scenario {
namespace {

Value scalar(const std::string& text) {
  YAML::Node n(text);
  return Value(n, std::make_shared<const std::string>("t.yaml"));
}

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(KubeletUserData, ShellWordsAsBashSplitsThem) {
  EXPECT_EQ(shell_words("--kubelet-extra-args '--max-pods=20 --node-labels=a=b' --use-max-pods false"),
            (std::vector<std::string>{"--kubelet-extra-args", "--max-pods=20 --node-labels=a=b", "--use-max-pods", "false"}));
  EXPECT_EQ(shell_words("a\\ b \"c \\\"d\\\"\"  \n e"), (std::vector<std::string>{"a b", "c \"d\"", "e"}));
  EXPECT_EQ(shell_words("''"), (std::vector<std::string>{""}));
}

TEST(KubeletUserData, Al2KubeletExtraArgs) {
  aws::NodeGroupSpec spec;
  spec.ami_type = "AL2_x86_64";
  spec.enable_bootstrap_user_data = true;
  read_bootstrap_extra_args(
      scalar("--kubelet-extra-args '--max-pods=20 --node-labels=something=hello,somethingelse=bye "
             "--register-with-taints=taint1=true:NoSchedule,dedicated:NoExecute' --use-max-pods false"),
      spec);
  EXPECT_EQ(spec.kubelet.max_pods, 20);
  EXPECT_EQ(spec.kubelet.node_labels, (std::map<std::string, std::string>{{"something", "hello"}, {"somethingelse", "bye"}}));
  ASSERT_EQ(spec.kubelet.taints.size(), 2u);
  EXPECT_EQ(spec.kubelet.taints[0], (aws::NodegroupTaint{"taint1", "true", "NoSchedule"}));
  EXPECT_EQ(spec.kubelet.taints[1], (aws::NodegroupTaint{"dedicated", "", "NoExecute"}));
}

TEST(KubeletUserData, Al2WithoutBootstrapUserDataAndAl2023IgnoreTheArguments) {
  // terraform-aws-modules/eks writes bootstrap.sh's call only with enable_bootstrap_user_data.
  aws::NodeGroupSpec al2;
  al2.ami_type = "AL2_x86_64";
  read_bootstrap_extra_args(scalar("--kubelet-extra-args '--max-pods=20'"), al2);
  EXPECT_FALSE(al2.kubelet.max_pods);
  aws::NodeGroupSpec al2023;
  al2023.ami_type = "AL2023_x86_64_STANDARD";
  al2023.enable_bootstrap_user_data = true;
  read_bootstrap_extra_args(scalar("--kubelet-extra-args '--max-pods=20'"), al2023);
  EXPECT_FALSE(al2023.kubelet.max_pods);
  // Each says why in an IgnoredUserData hint (the real apply is silent).
  ASSERT_EQ(al2.ignored_user_data.size(), 1u);
  EXPECT_NE(al2.ignored_user_data[0].find("only with enable_bootstrap_user_data = true"), std::string::npos);
  ASSERT_EQ(al2023.ignored_user_data.size(), 1u);
  EXPECT_NE(al2023.ignored_user_data[0].find("not used for AL2023 AMIs"), std::string::npos);
  // Read arguments and blank ones give no hint.
  aws::NodeGroupSpec read;
  read.ami_type = "AL2_x86_64";
  read.enable_bootstrap_user_data = true;
  read_bootstrap_extra_args(scalar("--kubelet-extra-args '--max-pods=20'"), read);
  EXPECT_TRUE(read.ignored_user_data.empty());
  aws::NodeGroupSpec blank;
  blank.ami_type = "AL2023_x86_64_STANDARD";
  read_bootstrap_extra_args(scalar("  "), blank);
  EXPECT_TRUE(blank.ignored_user_data.empty());
}

TEST(KubeletUserData, KubeletRefusesBadTaintsAndLabels) {
  aws::KubeletUserData out;
  // Lab 004's example taint has no effect: the kubelet's taint parser refuses it.
  EXPECT_NE(error_of([&] { read_kubelet_flags({"--register-with-taints=taint1=true"}, scalar("x"), out); })
                .find("invalid taint spec: taint1=true"),
            std::string::npos);
  EXPECT_NE(error_of([&] { read_kubelet_flags({"--register-with-taints=a=b:NoScheduled"}, scalar("x"), out); })
                .find("invalid taint effect: NoScheduled, unsupported taint effect"),
            std::string::npos);
  EXPECT_NE(error_of([&] { read_kubelet_flags({"--node-labels=node-role.kubernetes.io/worker=true"}, scalar("x"), out); })
                .find("unknown 'kubernetes.io' or 'k8s.io' labels specified with --node-labels: "
                      "[node-role.kubernetes.io/worker]"),
            std::string::npos);
  EXPECT_EQ(error_of([&] { read_kubelet_flags({"--node-labels=node.kubernetes.io/lifecycle=spot"}, scalar("x"), out); }),
            "no error");
  EXPECT_NE(error_of([&] { read_kubelet_flags({"--max-pods=-3"}, scalar("x"), out); }).find("max pods must be"),
            std::string::npos);
  // Flags eksim does not model pass, and "--flag value" works too.
  aws::KubeletUserData ok;
  read_kubelet_flags({"--v=2", "--max-pods", "35", "--image-gc-high-threshold=80"}, scalar("x"), ok);
  EXPECT_EQ(ok.max_pods, 35);
}

TEST(KubeletUserData, BottlerocketSettings) {
  aws::NodeGroupSpec spec;
  spec.ami_type = "BOTTLEROCKET_x86_64";
  read_bootstrap_extra_args(scalar(R"(settings.kubernetes.max-pods = 20
settings.kubernetes.node-labels.'eks.amazonaws.com/capacityType' = 'ON_DEMAND'  # comment
settings.host-containers.admin.enabled = true

[settings.kubernetes.node-taints]
"dedicated" = ["batch:NoSchedule", "batch:NoExecute"]
[settings.kubernetes]
node-labels."team" = "ml"
)"),
                           spec);
  EXPECT_EQ(spec.kubelet.max_pods, 20);
  EXPECT_EQ(spec.kubelet.node_labels,
            (std::map<std::string, std::string>{{"eks.amazonaws.com/capacityType", "ON_DEMAND"}, {"team", "ml"}}));
  ASSERT_EQ(spec.kubelet.taints.size(), 2u);
  EXPECT_EQ(spec.kubelet.taints[1], (aws::NodegroupTaint{"dedicated", "batch", "NoExecute"}));
}

TEST(KubeletUserData, BottlerocketRefusesUnknownKubernetesSettings) {
  aws::NodeGroupSpec spec;
  spec.ami_type = "BOTTLEROCKET_x86_64";
  std::string err = error_of([&] { read_bootstrap_extra_args(scalar("settings.kubernetes.max-pod = 20\n"), spec); });
  EXPECT_NE(err.find("line 1: unknown setting settings.kubernetes.max-pod; did you mean \"max-pods\"?"), std::string::npos)
      << err;
  err = error_of([&] { read_bootstrap_extra_args(scalar("settings.kubernetes.max-pods = \"20\"\n"), spec); });
  EXPECT_NE(err.find("max-pods must be an integer"), std::string::npos) << err;
  err = error_of([&] { read_bootstrap_extra_args(scalar("[settings.kubernetes\n"), spec); });
  EXPECT_NE(err.find("line 1: expected ']'"), std::string::npos) << err;
}

TEST(Toml, ParsesTheSubsetBottlerocketUses) {
  auto entries = parse_toml("a.'b.c'.d = 1_000\n[t]\nx = [\"p\", 'q']\ny = false\n");
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].path, (std::vector<std::string>{"a", "b.c", "d"}));
  EXPECT_EQ(entries[0].value.integer, 1000);
  EXPECT_EQ(toml_path_text(entries[0].path), "a.\"b.c\".d");
  EXPECT_EQ(entries[1].path, (std::vector<std::string>{"t", "x"}));
  ASSERT_EQ(entries[1].value.items.size(), 2u);
  EXPECT_EQ(entries[1].value.items[1].text, "q");
  EXPECT_EQ(entries[2].line, 4);
  EXPECT_THROW(parse_toml("a = 1\na = 2\n"), TomlError);
  EXPECT_THROW(parse_toml("a = {b = 1}\n"), TomlError);
  EXPECT_THROW(parse_toml("a = 'unterminated\n"), TomlError);
}

}  // namespace
}  // namespace eksim::scenario
