#include "sim/serve/merge_patch.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

namespace eksim::serve {

using nlohmann::json;

json json_merge_patch(json target, const json& patch) {
  target.merge_patch(patch);
  return target;
}

namespace {

// patchMergeKey of the list fields the served types have (k8s.io/api struct tags).
const char* merge_key(const std::string& field) {
  static const std::map<std::string, const char*> keys{
      {"containers", "name"},     {"initContainers", "name"},      {"ephemeralContainers", "name"},
      {"env", "name"},            {"volumes", "name"},             {"imagePullSecrets", "name"},
      {"volumeMounts", "mountPath"}, {"volumeDevices", "devicePath"}, {"ports", "containerPort"},
      {"conditions", "type"},     {"taints", "key"},               {"hostAliases", "ip"},
      {"ownerReferences", "uid"}, {"topologySpreadConstraints", "topologyKey"},
      {"resourceClaims", "name"}, {"finalizers", ""},              {"addresses", "type"},
  };
  auto it = keys.find(field);
  return it == keys.end() ? nullptr : it->second;
}

json merge_list(const std::string& field, json target, const json& patch, const json* order);

json merge_object(json target, const json& patch) {
  if (!patch.is_object()) return patch;
  if (!target.is_object()) target = json::object();
  if (patch.contains("$patch")) {
    std::string p = patch["$patch"].get<std::string>();
    if (p == "replace") {
      json out = patch;
      out.erase("$patch");
      return out;
    }
    if (p == "delete") return json();
    throw std::invalid_argument("Unknown patch type: " + p);
  }
  if (patch.contains("$retainKeys")) {
    json kept = json::object();
    for (const auto& k : patch["$retainKeys"])
      if (target.contains(k.get<std::string>())) kept[k.get<std::string>()] = target[k.get<std::string>()];
    target = kept;
  }
  for (const auto& [key, value] : patch.items()) {
    if (key == "$retainKeys" || key.rfind("$setElementOrder/", 0) == 0) continue;
    if (key.rfind("$deleteFromPrimitiveList/", 0) == 0) {
      std::string f = key.substr(25);
      if (target.contains(f) && target[f].is_array()) {
        json kept = json::array();
        for (const auto& x : target[f])
          if (std::find(value.begin(), value.end(), x) == value.end()) kept.push_back(x);
        target[f] = kept;
      }
      continue;
    }
    if (value.is_null()) {
      target.erase(key);
    } else if (value.is_object()) {
      json merged = merge_object(target.contains(key) ? target[key] : json::object(), value);
      if (merged.is_null()) target.erase(key);
      else target[key] = merged;
    } else if (value.is_array()) {
      std::string order_key = "$setElementOrder/" + key;
      const json* order = patch.contains(order_key) ? &patch[order_key] : nullptr;
      target[key] = merge_list(key, target.contains(key) ? target[key] : json::array(), value, order);
    } else {
      target[key] = value;
    }
  }
  return target;
}

json merge_list(const std::string& field, json target, const json& patch, const json* order) {
  const char* mk = merge_key(field);
  // Two types name a list "ports": a container's merge by containerPort, a Service's
  // (ServiceSpec.Ports) by port. The items say which: every ServicePort has a port, no
  // ContainerPort does.
  if (field == "ports") {
    auto has_port = [](const json& list) {
      return list.is_array() && std::any_of(list.begin(), list.end(), [](const json& x) {
               return x.is_object() && x.contains("port") && !x.contains("containerPort");
             });
    };
    if (has_port(patch) || has_port(target)) mk = "port";
  }
  if (!mk || !*mk || !target.is_array()) {
    // Atomic list (or a primitive list without a merge strategy): the patch replaces it.
    if (mk && !*mk && target.is_array()) {  // "merge" primitive lists (finalizers): union
      for (const auto& x : patch)
        if (std::find(target.begin(), target.end(), x) == target.end()) target.push_back(x);
      return target;
    }
    return patch;
  }
  for (const auto& item : patch) {
    if (!item.is_object() || !item.contains(mk)) {
      if (item.is_object() && item.contains("$patch") && item["$patch"] == "replace") {
        json out = json::array();
        for (const auto& x : patch)
          if (!(x.is_object() && x.contains("$patch"))) out.push_back(x);
        return out;
      }
      throw std::invalid_argument("map: " + item.dump() + " does not contain declared merge key: " + mk);
    }
    auto it = std::find_if(target.begin(), target.end(),
                           [&](const json& t) { return t.is_object() && t.contains(mk) && t[mk] == item[mk]; });
    bool del = item.contains("$patch") && item["$patch"] == "delete";
    if (it == target.end()) {
      if (!del) target.push_back(merge_object(json::object(), item));
    } else if (del) {
      target.erase(it);
    } else {
      *it = merge_object(*it, item);
    }
  }
  if (order && order->is_array()) {
    json sorted = json::array();
    for (const auto& o : *order) {
      auto it = std::find_if(target.begin(), target.end(),
                             [&](const json& t) { return t.is_object() && o.is_object() && t.contains(mk) && t[mk] == o[mk]; });
      if (it != target.end()) sorted.push_back(*it);
    }
    for (const auto& t : target)
      if (std::find(sorted.begin(), sorted.end(), t) == sorted.end()) sorted.push_back(t);
    target = sorted;
  }
  return target;
}

}  // namespace

json strategic_merge_patch(json target, const json& patch) {
  if (!patch.is_object()) throw std::invalid_argument("patch body must be a JSON object");
  return merge_object(std::move(target), patch);
}

}  // namespace eksim::serve
