#include "sim/serve/protobuf_body.hpp"

#include <cstdint>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace eksim::serve {

using nlohmann::json;

namespace {

// --- the wire format --------------------------------------------------------------------------

struct Reader {
  std::string_view in;
  std::size_t pos = 0;

  bool done() const { return pos >= in.size(); }
  std::uint64_t varint() {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos >= in.size()) throw std::runtime_error("truncated varint");
      const auto b = static_cast<unsigned char>(in[pos++]);
      v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    throw std::runtime_error("varint longer than 10 bytes");
  }
  std::string_view bytes() {
    const std::uint64_t n = varint();
    if (n > in.size() - pos) throw std::runtime_error("truncated length-delimited field");
    std::string_view out = in.substr(pos, static_cast<std::size_t>(n));
    pos += static_cast<std::size_t>(n);
    return out;
  }
  void skip(int wire_type) {
    switch (wire_type) {
      case 0: varint(); return;
      case 1: advance(8); return;
      case 2: bytes(); return;
      case 5: advance(4); return;
      default: throw std::runtime_error("unsupported wire type " + std::to_string(wire_type));
    }
  }
  void advance(std::size_t n) {
    if (n > in.size() - pos) throw std::runtime_error("truncated fixed-width field");
    pos += n;
  }
};

// proto3 strings are UTF-8 (the API server rejects others); JSON holds only UTF-8.
std::string utf8(std::string_view s) {
  auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = byte(i);
    const std::size_t extra = c < 0x80 ? 0 : c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : 4;
    bool ok = extra < 4 && s.size() - i > extra;
    for (std::size_t k = 1; ok && k <= extra; ++k) ok = (byte(i + k) & 0xc0) == 0x80;
    // No overlong forms, surrogates or code points above U+10FFFF.
    if (ok && extra >= 2) {
      const unsigned char n = byte(i + 1);
      ok = !(c == 0xe0 && n < 0xa0) && !(c == 0xed && n >= 0xa0) && !(c == 0xf0 && n < 0x90) && !(c == 0xf4 && n >= 0x90);
    }
    if (!ok) throw std::runtime_error("a string field is not UTF-8");
    i += extra + 1;
  }
  return std::string(s);
}

// --- the messages kubectl's generators fill ---------------------------------------------------

enum class Kind { String, Int, Bool, Message, StringMap, RepeatedString, RepeatedMessage };
struct Message;
struct Field {
  int number;
  const char* name;  // the JSON field name
  Kind kind;
  const Message* message = nullptr;
};
struct Message {
  std::vector<Field> fields;
};

// Defined in dependency order; each names only messages above it.
const Message kTypeMeta{{{1, "apiVersion", Kind::String}, {2, "kind", Kind::String}}};
const Message kObjectMeta{{{1, "name", Kind::String},
                           {2, "generateName", Kind::String},
                           {3, "namespace", Kind::String},
                           {11, "labels", Kind::StringMap},
                           {12, "annotations", Kind::StringMap},
                           {14, "finalizers", Kind::RepeatedString}}};
const Message kRequirement{{{1, "key", Kind::String}, {2, "operator", Kind::String}, {3, "values", Kind::RepeatedString}}};
const Message kLabelSelector{{{1, "matchLabels", Kind::StringMap}, {2, "matchExpressions", Kind::RepeatedMessage, &kRequirement}}};
const Message kContainerPort{{{1, "name", Kind::String},
                              {2, "hostPort", Kind::Int},
                              {3, "containerPort", Kind::Int},
                              {4, "protocol", Kind::String},
                              {5, "hostIP", Kind::String}}};
const Message kEnvVar{{{1, "name", Kind::String}, {2, "value", Kind::String}}};
const Message kContainer{{{1, "name", Kind::String},
                          {2, "image", Kind::String},
                          {3, "command", Kind::RepeatedString},
                          {4, "args", Kind::RepeatedString},
                          {5, "workingDir", Kind::String},
                          {6, "ports", Kind::RepeatedMessage, &kContainerPort},
                          {7, "env", Kind::RepeatedMessage, &kEnvVar}}};
const Message kPodSpec{{{2, "containers", Kind::RepeatedMessage, &kContainer},
                        {3, "restartPolicy", Kind::String},
                        {7, "nodeSelector", Kind::StringMap},
                        {8, "serviceAccountName", Kind::String},
                        {20, "initContainers", Kind::RepeatedMessage, &kContainer}}};
const Message kPodTemplateSpec{{{1, "metadata", Kind::Message, &kObjectMeta}, {2, "spec", Kind::Message, &kPodSpec}}};
const Message kNamespaceSpec{{{1, "finalizers", Kind::RepeatedString}}};
const Message kNamespace{{{1, "metadata", Kind::Message, &kObjectMeta}, {2, "spec", Kind::Message, &kNamespaceSpec}}};
const Message kConfigMap{{{1, "metadata", Kind::Message, &kObjectMeta}, {2, "data", Kind::StringMap}, {4, "immutable", Kind::Bool}}};
const Message kDeploymentSpec{{{1, "replicas", Kind::Int},
                               {2, "selector", Kind::Message, &kLabelSelector},
                               {3, "template", Kind::Message, &kPodTemplateSpec},
                               {5, "minReadySeconds", Kind::Int}}};
const Message kDeployment{{{1, "metadata", Kind::Message, &kObjectMeta}, {2, "spec", Kind::Message, &kDeploymentSpec}}};
const Message kJobSpec{{{1, "parallelism", Kind::Int},
                        {2, "completions", Kind::Int},
                        {3, "activeDeadlineSeconds", Kind::Int},
                        {6, "template", Kind::Message, &kPodTemplateSpec},
                        {7, "backoffLimit", Kind::Int},
                        {9, "completionMode", Kind::String}}};
const Message kJob{{{1, "metadata", Kind::Message, &kObjectMeta}, {2, "spec", Kind::Message, &kJobSpec}}};
// runtime.Unknown's raw is bytes (the encoded object), not text: marked by this message.
const Message kRawBytes{};
const Message kUnknown{{{1, "typeMeta", Kind::Message, &kTypeMeta}, {2, "raw", Kind::String, &kRawBytes}}};

// A map entry {key = 1, value = 2}.
std::pair<std::string, std::string> map_entry(std::string_view bytes) {
  Reader r{bytes};
  std::pair<std::string, std::string> kv;
  while (!r.done()) {
    const std::uint64_t tag = r.varint();
    const int number = static_cast<int>(tag >> 3), wire = static_cast<int>(tag & 7);
    if (wire == 2 && (number == 1 || number == 2)) (number == 1 ? kv.first : kv.second) = utf8(r.bytes());
    else r.skip(wire);
  }
  return kv;
}

json decode(std::string_view bytes, const Message& m, int depth = 0) {
  if (depth > 16) throw std::runtime_error("messages nested too deep");
  json out = json::object();
  Reader r{bytes};
  while (!r.done()) {
    const std::uint64_t tag = r.varint();
    const int number = static_cast<int>(tag >> 3), wire = static_cast<int>(tag & 7);
    const Field* f = nullptr;
    for (const Field& candidate : m.fields)
      if (candidate.number == number) f = &candidate;
    const bool varint_kind = f && (f->kind == Kind::Int || f->kind == Kind::Bool);
    if (!f || wire != (varint_kind ? 0 : 2)) {
      r.skip(wire);
      continue;
    }
    switch (f->kind) {
      case Kind::String: out[f->name] = f->message == &kRawBytes ? std::string(r.bytes()) : utf8(r.bytes()); break;
      case Kind::Int: out[f->name] = static_cast<std::int64_t>(r.varint()); break;
      case Kind::Bool: out[f->name] = r.varint() != 0; break;
      case Kind::Message: out[f->name] = decode(r.bytes(), *f->message, depth + 1); break;
      case Kind::StringMap: {
        auto [k, v] = map_entry(r.bytes());
        out[f->name][k] = v;
        break;
      }
      case Kind::RepeatedString: out[f->name].push_back(utf8(r.bytes())); break;
      case Kind::RepeatedMessage: out[f->name].push_back(decode(r.bytes(), *f->message, depth + 1)); break;
    }
  }
  return out;
}

}  // namespace

std::optional<json> decode_protobuf_object(const std::string& body) {
  static constexpr std::string_view kMagic{"k8s\0", 4};
  if (body.size() < kMagic.size() || std::string_view(body).substr(0, 4) != kMagic)
    throw std::runtime_error("no k8s protobuf envelope");
  const json unknown = decode(std::string_view(body).substr(4), kUnknown);
  const json type_meta = unknown.value("typeMeta", json::object());
  const std::string api_version = type_meta.value("apiVersion", "");
  const std::string kind = type_meta.value("kind", "");
  const std::string raw = unknown.value("raw", "");
  const Message* m = kind == "Namespace" && api_version == "v1"       ? &kNamespace
                     : kind == "ConfigMap" && api_version == "v1"     ? &kConfigMap
                     : kind == "Deployment" && api_version == "apps/v1" ? &kDeployment
                     : kind == "Job" && api_version == "batch/v1"     ? &kJob
                                                                      : nullptr;
  if (!m) return std::nullopt;
  json object = decode(raw, *m);
  object["apiVersion"] = api_version;
  object["kind"] = kind;
  return object;
}

}  // namespace eksim::serve
