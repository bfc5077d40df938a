// kubectl 1.32's protobuf bodies, built here field by field as its generated code writes them.
#include "sim/serve/protobuf_body.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace eksim::serve {
namespace {

using nlohmann::json;

std::string varint(std::uint64_t v) {
  std::string out;
  do {
    unsigned char b = v & 0x7f;
    v >>= 7;
    if (v) b |= 0x80;
    out += static_cast<char>(b);
  } while (v);
  return out;
}
std::string bytes_field(int number, const std::string& value) { return varint(static_cast<std::uint64_t>(number) << 3 | 2) + varint(value.size()) + value; }
std::string int_field(int number, std::int64_t value) { return varint(static_cast<std::uint64_t>(number) << 3) + varint(static_cast<std::uint64_t>(value)); }
std::string map_entry(int number, const std::string& k, const std::string& v) { return bytes_field(number, bytes_field(1, k) + bytes_field(2, v)); }

std::string envelope(const std::string& api_version, const std::string& kind, const std::string& raw) {
  const std::string type_meta = bytes_field(1, api_version) + bytes_field(2, kind);
  // runtime.Unknown: typeMeta, raw, contentEncoding, contentType (the last two empty, as kubectl leaves them).
  return std::string("k8s\0", 4) + bytes_field(1, type_meta) + bytes_field(2, raw) + bytes_field(3, "") + bytes_field(4, "");
}

TEST(ProtobufBody, NamespaceOfKubectlCreateNamespace) {
  // ObjectMeta name = 1; a creationTimestamp (8, a Time message) as the generated code writes an
  // empty one; spec and status empty.
  const std::string meta = bytes_field(1, "karpenter") + bytes_field(8, int_field(1, 0) + int_field(2, 0));
  auto o = decode_protobuf_object(envelope("v1", "Namespace", bytes_field(1, meta) + bytes_field(2, "") + bytes_field(3, "")));
  ASSERT_TRUE(o.has_value());
  EXPECT_EQ((*o)["apiVersion"], "v1");
  EXPECT_EQ((*o)["kind"], "Namespace");
  EXPECT_EQ((*o)["metadata"], json({{"name", "karpenter"}}));
}

TEST(ProtobufBody, ConfigMapDataIsAMapOfEntries) {
  const std::string raw = bytes_field(1, bytes_field(1, "settings") + bytes_field(3, "lab")) + map_entry(2, "b", "2") +
                          map_entry(2, "mode", "fast");
  auto o = decode_protobuf_object(envelope("v1", "ConfigMap", raw));
  ASSERT_TRUE(o.has_value());
  EXPECT_EQ((*o)["metadata"]["namespace"], "lab");
  EXPECT_EQ((*o)["data"], json({{"b", "2"}, {"mode", "fast"}}));
}

TEST(ProtobufBody, DeploymentOfKubectlCreateDeployment) {
  // kubectl create deployment web --image=nginx:1.27 --replicas=2 --port=80
  const std::string labels = map_entry(11, "app", "web");
  const std::string container = bytes_field(1, "nginx") + bytes_field(2, "nginx:1.27") + bytes_field(6, int_field(3, 80)) +
                                bytes_field(8, "");  // resources: {}
  const std::string pod_template = bytes_field(1, labels) + bytes_field(2, bytes_field(2, container));
  const std::string spec = int_field(1, 2) + bytes_field(2, map_entry(1, "app", "web")) + bytes_field(3, pod_template) +
                           bytes_field(4, "");  // strategy: {}
  auto o = decode_protobuf_object(envelope("apps/v1", "Deployment", bytes_field(1, bytes_field(1, "web") + labels) + bytes_field(2, spec)));
  ASSERT_TRUE(o.has_value());
  EXPECT_EQ((*o)["metadata"]["labels"]["app"], "web");
  EXPECT_EQ((*o)["spec"]["replicas"], 2);
  EXPECT_EQ((*o)["spec"]["selector"]["matchLabels"]["app"], "web");
  const json& c = (*o)["spec"]["template"]["spec"]["containers"][0];
  EXPECT_EQ(c["name"], "nginx");
  EXPECT_EQ(c["image"], "nginx:1.27");
  EXPECT_EQ(c["ports"][0]["containerPort"], 80);
}

TEST(ProtobufBody, JobCommandKeepsItsWords) {
  // kubectl create job once --image=busybox:1.36 -- sleep 30
  const std::string container = bytes_field(1, "once") + bytes_field(2, "busybox:1.36") + bytes_field(3, "sleep") + bytes_field(3, "30");
  const std::string pod_spec = bytes_field(2, container) + bytes_field(3, "Never");
  auto o = decode_protobuf_object(envelope("batch/v1", "Job", bytes_field(1, bytes_field(1, "once")) + bytes_field(2, bytes_field(6, bytes_field(2, pod_spec)))));
  ASSERT_TRUE(o.has_value());
  const json& spec = (*o)["spec"]["template"]["spec"];
  EXPECT_EQ(spec["restartPolicy"], "Never");
  EXPECT_EQ(spec["containers"][0]["command"], json::array({"sleep", "30"}));
}

TEST(ProtobufBody, OtherKindsAreNotDecodedAndBrokenBodiesThrow) {
  EXPECT_FALSE(decode_protobuf_object(envelope("autoscaling/v1", "HorizontalPodAutoscaler", "")).has_value());
  EXPECT_FALSE(decode_protobuf_object(envelope("v1", "Deployment", "")).has_value());  // wrong group
  EXPECT_THROW(decode_protobuf_object("{\"kind\":\"Namespace\"}"), std::runtime_error);  // no envelope
  std::string truncated = envelope("v1", "Namespace", bytes_field(1, bytes_field(1, "karpenter")));
  truncated.resize(truncated.size() - 12);
  EXPECT_THROW(decode_protobuf_object(truncated), std::runtime_error);
  EXPECT_THROW(decode_protobuf_object(std::string("k8s\0\xff\xff\xff", 7)), std::runtime_error);
  // Strings are UTF-8: a name of other bytes is refused; one of multi-byte characters is kept.
  EXPECT_THROW(decode_protobuf_object(envelope("v1", "Namespace", bytes_field(1, bytes_field(1, "bad\xc3(")))), std::runtime_error);
  EXPECT_THROW(decode_protobuf_object(envelope("v1", "Namespace", bytes_field(1, bytes_field(1, "\xed\xa0\x80")))), std::runtime_error);
  auto korean = decode_protobuf_object(envelope("v1", "ConfigMap", map_entry(2, "note", "\xeb\x85\xb8\xeb\x93\x9c")));
  ASSERT_TRUE(korean.has_value());
  EXPECT_EQ((*korean)["data"]["note"], "\xeb\x85\xb8\xeb\x93\x9c");
}

}  // namespace
}  // namespace eksim::serve
