#include "sim/serve/clock.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include <fmt/format.h>

#include "sim/serve/tables.hpp"

namespace eksim::serve {

using nlohmann::json;

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char ch) { return std::tolower(ch); });
  return s;
}

bool condition_true(const json& o, const std::string& type) {
  for (const auto& c : o.value("status", json::object()).value("conditions", json::array()))
    if (lower(c.value("type", "")) == lower(type)) return c.value("status", "") == "True";
  return false;
}

}  // namespace

std::optional<ClockSpeed> parse_speed(const std::string& text, std::string* error) {
  ClockSpeed s;
  if (text == "paused") {
    s.paused = true;
    return s;
  }
  if (text == "max") {
    s.max = true;
    return s;
  }
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(v > 0) || v > 1e6) {
    if (error) *error = "--speed: expected a factor such as 1, 60 or 600, or max or paused, got \"" + text + "\"";
    return std::nullopt;
  }
  s.factor = v;
  return s;
}

std::string speed_text(const ClockSpeed& s) {
  if (s.paused) return "paused";
  if (s.max) return "max";
  return fmt::format("{:g}", s.factor);
}

std::optional<UntilCondition> parse_until(const std::string& text, std::string* error) {
  auto fail = [&](const std::string& m) -> std::optional<UntilCondition> {
    if (error) *error = m;
    return std::nullopt;
  };
  auto sp = text.find(' ');
  if (sp == std::string::npos)
    return fail("expected \"KIND/NAME STATE\" such as 'pod/gpu-pod Running' or 'node/NAME Ready', got \"" + text + "\"");
  std::string ref = text.substr(0, sp), state = text.substr(text.find_first_not_of(' ', sp));
  auto slash = ref.find('/');
  if (slash == std::string::npos || slash + 1 >= ref.size())
    return fail("expected KIND/NAME before the state, got \"" + ref + "\"");
  UntilCondition c;
  std::string kind = lower(ref.substr(0, slash)), rest = ref.substr(slash + 1);
  c.state = state;
  if (kind == "pod" || kind == "pods" || kind == "po") {
    c.type = "pods";
    c.kind = "Pod";
    auto s2 = rest.find('/');
    c.ns = s2 == std::string::npos ? "default" : rest.substr(0, s2);
    c.name = s2 == std::string::npos ? rest : rest.substr(s2 + 1);
  } else if (kind == "node" || kind == "nodes" || kind == "no") {
    c.type = "nodes";
    c.kind = "Node";
    c.name = rest;
  } else if (kind == "nodeclaim" || kind == "nodeclaims") {
    c.type = "karpenter.sh/nodeclaims";
    c.kind = "NodeClaim";
    c.name = rest;
  } else if (kind == "nodepool" || kind == "nodepools") {
    c.type = "karpenter.sh/nodepools";
    c.kind = "NodePool";
    c.name = rest;
  } else {
    return fail("eksim ctl until knows pod/, node/, nodeclaim/ and nodepool/, got \"" + kind + "/\"");
  }
  return c;
}

bool condition_met(const UntilCondition& c, const ObjectStore& store, std::int64_t now_us) {
  const StoredObject* o = nullptr;
  if (c.name.back() == '*') {  // "node/ip-192-168-12-* Ready": any object with the prefix
    std::string prefix = c.name.substr(0, c.name.size() - 1);
    for (const auto& [key, obj] : store.objects(c.type)) {
      const json& meta = obj.object["metadata"];
      if (meta.value("name", "").rfind(prefix, 0) == 0 && (c.ns.empty() || c.kind != "Pod" || meta.value("namespace", "") == c.ns)) {
        UntilCondition one = c;
        one.name = meta.value("name", "");
        if (condition_met(one, store, now_us)) return true;
      }
    }
    return false;
  }
  o = store.find(c.type, c.kind == "Pod" ? c.ns : "", c.name);
  std::string want = lower(c.state);
  if (want == "deleted" || want == "gone") return o == nullptr;
  if (!o) return false;
  if (want == "exists") return true;
  const json& obj = o->object;
  if (c.kind == "Pod") {
    json cells = table_cells("Pod", obj, now_us);
    std::string status = lower(cells[2].get<std::string>());
    std::string phase = lower(obj["status"].value("phase", ""));
    if (want == "ready") return condition_true(obj, "Ready");
    if (want == "scheduled") return obj["spec"].contains("nodeName");
    return status == want || phase == want;
  }
  if (c.kind == "Node" && want == "notready") return !condition_true(obj, "Ready");
  return condition_true(obj, c.state);
}

}  // namespace eksim::serve
