#include "sim/serve/cluster_autoscaler_status.hpp"

#include <nlohmann/json.hpp>

#include "sim/serve/time_base.hpp"

namespace eksim::serve {

namespace api = autoscaling::cas::api;

namespace {

// metav1.Time through yaml.v2: time.Time's MarshalText (RFC 3339 with the fraction Go prints:
// no trailing zeros, none at all for whole seconds), quoted because it would read back as a
// YAML timestamp.
std::string rfc3339_nano(std::int64_t unix_us) {
  std::string s = rfc3339(unix_us, true);  // 2026-01-01T00:00:10.250000Z
  s.pop_back();
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s + "Z";
}

// The YAML emitter of gopkg.in/yaml.v2 (libyaml's), for the values this document holds.
class Emitter {
 public:
  explicit Emitter(std::int64_t sim0_unix_us) : sim0_(sim0_unix_us) {}
  void key(int indent, const char* k) { out_ += std::string(static_cast<std::size_t>(indent), ' ') + k + ":\n"; }
  void number(int indent, const char* k, int v) {
    out_ += std::string(static_cast<std::size_t>(indent), ' ') + k + ": " + std::to_string(v) + "\n";
  }
  // A plain scalar; libyaml breaks it at a space once the line is past column 80, continuing
  // two columns right of the key.
  void plain(int indent, const char* k, const std::string& v) {
    std::string line = std::string(static_cast<std::size_t>(indent), ' ') + k + ": ";
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (v[i] == ' ' && line.size() > 80 && i + 1 < v.size() && v[i + 1] != ' ') {
        out_ += line + "\n";
        line = std::string(static_cast<std::size_t>(indent + 2), ' ');
        continue;
      }
      line += v[i];
    }
    out_ += line + "\n";
  }
  void time(int indent, const char* k, const api::Time& t) {
    if (!t) return;  // Go's zero time: omitempty
    out_ += std::string(static_cast<std::size_t>(indent), ' ') + k + ": \"" + rfc3339_nano(sim0_ + t->us) + "\"\n";
  }
  void text(const std::string& s) { out_ += s; }
  std::string take() { return std::move(out_); }

 private:
  std::int64_t sim0_;
  std::string out_;
};

bool zero(const api::RegisteredNodeCount& r) {
  return r.total == 0 && r.ready == 0 && r.not_started == 0 && r.being_deleted == 0 && r.unready.total == 0 &&
         r.unready.resource_unready == 0;
}

void node_counts(Emitter& e, int indent, const api::NodeCount& n) {
  if (zero(n.registered) && n.long_unregistered == 0 && n.unregistered == 0) return;
  e.key(indent, "nodeCounts");
  const api::RegisteredNodeCount& r = n.registered;
  if (!zero(r)) {
    e.key(indent + 2, "registered");
    e.number(indent + 4, "total", r.total);
    e.number(indent + 4, "ready", r.ready);
    e.number(indent + 4, "notStarted", r.not_started);
    if (r.being_deleted != 0) e.number(indent + 4, "beingDeleted", r.being_deleted);
    if (r.unready.total != 0 || r.unready.resource_unready != 0) {
      e.key(indent + 4, "unready");
      e.number(indent + 6, "total", r.unready.total);
      e.number(indent + 6, "resourceUnready", r.unready.resource_unready);
    }
  }
  e.number(indent + 2, "longUnregistered", n.long_unregistered);
  e.number(indent + 2, "unregistered", n.unregistered);
}

void scale_down(Emitter& e, int indent, const api::ScaleDownCondition& s) {
  e.key(indent, "scaleDown");
  if (!s.status.empty()) e.plain(indent + 2, "status", s.status);
  if (s.candidates != 0) e.number(indent + 2, "candidates", s.candidates);
  e.time(indent + 2, "lastProbeTime", s.last_probe_time);
  e.time(indent + 2, "lastTransitionTime", s.last_transition_time);
}

}  // namespace

std::string go_status_time(std::int64_t unix_us) {
  std::string s = rfc3339_nano(unix_us);  // the same digits in Go's default layout
  s.pop_back();
  s[10] = ' ';
  return s + " +0000 UTC";
}

std::string cluster_autoscaler_status_yaml(const api::ClusterAutoscalerStatus& s, std::int64_t sim0_unix_us) {
  Emitter e(sim0_unix_us);
  e.plain(0, "time", go_status_time(sim0_unix_us + s.time.us));
  e.plain(0, "autoscalerStatus", s.autoscaler_status);
  if (!s.message.empty()) e.plain(0, "message", s.message);
  // The conditions always have a status, so no part of clusterWide is ever all zero.
  e.key(0, "clusterWide");
  const api::ClusterWideStatus& cw = s.cluster_wide;
  e.key(2, "health");
  e.plain(4, "status", cw.health.status);
  node_counts(e, 4, cw.health.node_counts);
  e.time(4, "lastProbeTime", cw.health.last_probe_time);
  e.time(4, "lastTransitionTime", cw.health.last_transition_time);
  e.key(2, "scaleUp");
  e.plain(4, "status", cw.scale_up.status);
  e.time(4, "lastProbeTime", cw.scale_up.last_probe_time);
  e.time(4, "lastTransitionTime", cw.scale_up.last_transition_time);
  scale_down(e, 2, cw.scale_down);
  if (s.node_groups.empty()) return e.take();
  e.key(0, "nodeGroups");
  for (const api::NodeGroupStatus& g : s.node_groups) {
    // yaml.v2 puts a sequence in a mapping at the key's column: "- name: ...".
    e.text("- ");
    e.plain(0, "name", g.name);
    e.key(2, "health");
    e.plain(4, "status", g.health.status);
    node_counts(e, 4, g.health.node_counts);
    e.number(4, "cloudProviderTarget", g.health.cloud_provider_target);
    e.number(4, "minSize", g.health.min_size);
    e.number(4, "maxSize", g.health.max_size);
    e.time(4, "lastProbeTime", g.health.last_probe_time);
    e.time(4, "lastTransitionTime", g.health.last_transition_time);
    e.key(2, "scaleUp");
    e.plain(4, "status", g.scale_up.status);
    const api::BackoffInfo& b = g.scale_up.backoff_info;
    if (!b.error_code.empty() || !b.error_message.empty()) {
      e.key(4, "backoffInfo");
      if (!b.error_code.empty()) e.plain(6, "errorCode", b.error_code);
      if (!b.error_message.empty()) e.plain(6, "errorMessage", b.error_message);
    }
    e.time(4, "lastProbeTime", g.scale_up.last_probe_time);
    e.time(4, "lastTransitionTime", g.scale_up.last_transition_time);
    scale_down(e, 2, g.scale_down);
  }
  return e.take();
}

namespace {

// "2026-11-27 10:00:10.5 +0000 UTC" back to Unix microseconds.
bool parse_go_status_time(const std::string& s, std::int64_t& unix_us) {
  const std::string suffix = " +0000 UTC";
  if (s.size() < 19 + suffix.size() || s.compare(s.size() - suffix.size(), suffix.size(), suffix) != 0) return false;
  std::string iso = s.substr(0, s.size() - suffix.size());
  if (iso.size() < 19 || iso[10] != ' ') return false;
  iso[10] = 'T';
  return parse_rfc3339(iso + "Z", unix_us);
}

std::string rebase_text(const std::string& text, std::int64_t delta_us) {
  std::string out;
  out.reserve(text.size());
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    std::int64_t us;
    if (line.rfind("time: ", 0) == 0 && parse_go_status_time(line.substr(6), us)) {
      line = "time: " + go_status_time(us + delta_us);
    } else if (line.size() > 2 && line.back() == '"') {
      const std::size_t open = line.find(": \"");
      if (open != std::string::npos && parse_rfc3339(line.substr(open + 3, line.size() - open - 4), us))
        line = line.substr(0, open + 3) + rfc3339_nano(us + delta_us) + "\"";
    }
    out += line;
    if (end < text.size()) out += '\n';
    pos = end + 1;
  }
  return out;
}

}  // namespace

void rebase_cluster_autoscaler_status(nlohmann::json& object, std::int64_t delta_us) {
  if (delta_us == 0) return;
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return;
  auto annotations = meta->find("annotations");
  if (annotations == meta->end() || !annotations->is_object()) return;
  auto updated = annotations->find(kCasLastUpdatedAnnotation);
  if (updated == annotations->end() || !updated->is_string()) return;
  std::int64_t us;
  if (parse_go_status_time(updated->get<std::string>(), us)) *updated = go_status_time(us + delta_us);
  auto data = object.find("data");
  if (data == object.end() || !data->is_object()) return;
  auto status = data->find("status");
  if (status != data->end() && status->is_string()) *status = rebase_text(status->get<std::string>(), delta_us);
}

}  // namespace eksim::serve
