#include "sim/serve/tables.hpp"

#include <algorithm>

#include "sim/engine/time.hpp"
#include "sim/serve/time_base.hpp"

namespace eksim::serve {

using nlohmann::json;

namespace {

const json& field(const json& o, std::initializer_list<const char*> path) {
  static const json null;
  const json* cur = &o;
  for (const char* p : path) {
    if (!cur->is_object() || !cur->contains(p)) return null;
    cur = &(*cur)[p];
  }
  return *cur;
}

std::string str(const json& v, const std::string& fallback = "") {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<long long>());
  return fallback;
}

std::string age(const json& o, std::int64_t now_us) { return age_since(field(o, {"metadata", "creationTimestamp"}), now_us); }

std::string join(const std::vector<std::string>& v, const char* sep = ",") {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

std::string condition_status(const json& o, const char* type) {
  for (const auto& c : field(o, {"status", "conditions"}))
    if (str(field(c, {"type"})) == type) return str(field(c, {"status"}));
  return "Unknown";
}

// printPod's STATUS, READY and RESTARTS.
json pod_cells(const json& o, std::int64_t now_us) {
  std::string reason = str(field(o, {"status", "phase"}));
  if (!str(field(o, {"status", "reason"})).empty()) reason = str(field(o, {"status", "reason"}));
  int total = static_cast<int>(field(o, {"spec", "containers"}).size()), ready = 0, restarts = 0;
  std::string last_restart;
  bool has_running = false;
  const json& statuses = field(o, {"status", "containerStatuses"});
  for (auto it = statuses.rbegin(); it != statuses.rend(); ++it) {
    const json& cs = *it;
    restarts += cs.value("restartCount", 0);
    const json& finished = field(cs, {"lastState", "terminated", "finishedAt"});
    if (finished.is_string()) last_restart = finished.get<std::string>();
    if (!str(field(cs, {"state", "waiting", "reason"})).empty()) {
      reason = str(field(cs, {"state", "waiting", "reason"}));
    } else if (field(cs, {"state", "terminated"}).is_object()) {
      reason = str(field(cs, {"state", "terminated", "reason"}));
      if (reason.empty()) reason = "ExitCode:" + str(field(cs, {"state", "terminated", "exitCode"}));
    } else if (field(cs, {"state", "running"}).is_object() && cs.value("ready", false)) {
      has_running = true;
      ++ready;
    }
  }
  if (reason == "Completed" && has_running) reason = condition_status(o, "Ready") == "True" ? "Running" : "NotReady";
  if (field(o, {"metadata", "deletionTimestamp"}).is_string()) reason = "Terminating";
  std::string restarts_cell = std::to_string(restarts);
  if (restarts > 0 && !last_restart.empty()) restarts_cell += " (" + age_since(last_restart, now_us) + " ago)";
  std::string nominated = str(field(o, {"status", "nominatedNodeName"}), "<none>");
  return json::array({str(field(o, {"metadata", "name"})), std::to_string(ready) + "/" + std::to_string(total), reason,
                      restarts_cell, age(o, now_us), str(field(o, {"status", "podIP"}), "<none>"),
                      str(field(o, {"spec", "nodeName"}), "<none>"), nominated, "<none>"});
}

json node_cells(const json& o, std::int64_t now_us) {
  std::string status = condition_status(o, "Ready") == "True" ? "Ready" : "NotReady";
  if (field(o, {"spec", "unschedulable"}).is_boolean() && field(o, {"spec", "unschedulable"}).get<bool>())
    status += ",SchedulingDisabled";
  std::vector<std::string> roles;
  for (const auto& [k, v] : field(o, {"metadata", "labels"}).items()) {
    (void)v;
    const std::string prefix = "node-role.kubernetes.io/";
    if (k.rfind(prefix, 0) == 0 && k.size() > prefix.size()) roles.push_back(k.substr(prefix.size()));
  }
  std::string internal_ip = "<none>", external_ip = "<none>";
  for (const auto& a : field(o, {"status", "addresses"})) {
    if (str(field(a, {"type"})) == "InternalIP") internal_ip = str(field(a, {"address"}));
    if (str(field(a, {"type"})) == "ExternalIP") external_ip = str(field(a, {"address"}));
  }
  const json& info = field(o, {"status", "nodeInfo"});
  return json::array({str(field(o, {"metadata", "name"})), status, roles.empty() ? "<none>" : join(roles), age(o, now_us),
                      str(field(info, {"kubeletVersion"})), internal_ip, external_ip, str(field(info, {"osImage"}), "<unknown>"),
                      str(field(info, {"kernelVersion"}), "<unknown>"), str(field(info, {"containerRuntimeVersion"}), "<unknown>")});
}

json event_cells(const json& o, std::int64_t now_us) {
  // core/v1 names, or the events.k8s.io/v1 ones (regarding, note, deprecated*) for that group.
  bool v1 = o.contains("involvedObject");
  const json& regarding = field(o, {v1 ? "involvedObject" : "regarding"});
  std::string object = str(field(regarding, {"kind"}));
  std::transform(object.begin(), object.end(), object.begin(), ::tolower);
  object += "/" + str(field(regarding, {"name"}));
  const json& last = field(o, {v1 ? "lastTimestamp" : "deprecatedLastTimestamp"});
  const json& first = field(o, {v1 ? "firstTimestamp" : "deprecatedFirstTimestamp"});
  const json& src = field(o, {v1 ? "source" : "deprecatedSource"});
  std::string source = str(field(src, {"component"}));
  if (!str(field(src, {"host"})).empty()) source += ", " + str(field(src, {"host"}));
  const json& count = field(o, {v1 ? "count" : "deprecatedCount"});
  return json::array({age_since(last, now_us), str(field(o, {"type"})), str(field(o, {"reason"})), object, "", source,
                      str(field(o, {v1 ? "message" : "note"})), age_since(first, now_us),
                      count.is_number() ? count : json(1), str(field(o, {"metadata", "name"}))});
}

json names_of(const json& containers, const char* key) {
  std::vector<std::string> v;
  for (const auto& c : containers) v.push_back(str(c[key]));
  return join(v);
}

// kubectl's printService: EXTERNAL-IP is <none> for a ClusterIP Service, <pending> for a
// LoadBalancer with no ingress yet; PORT(S) is port[:nodePort]/protocol joined by commas.
json service_cells(const json& o, std::int64_t now_us) {
  const json& spec = field(o, {"spec"});
  const std::string type = str(field(spec, {"type"}));
  std::string external = "<none>";
  if (type == "ExternalName") external = str(field(spec, {"externalName"}));
  else if (type == "LoadBalancer") external = "<pending>";
  std::vector<std::string> ports;
  for (const auto& p : field(spec, {"ports"})) {
    std::string text = std::to_string(p.value("port", 0));
    if (p.contains("nodePort")) text += ":" + std::to_string(p.value("nodePort", 0));
    ports.push_back(text + "/" + p.value("protocol", "TCP"));
  }
  std::vector<std::string> sel;
  for (const auto& [k, v] : field(spec, {"selector"}).items()) sel.push_back(k + "=" + str(v));
  const std::string ip = type == "ExternalName" ? "<none>" : str(field(spec, {"clusterIP"}));
  return json::array({str(field(o, {"metadata", "name"})), type, ip, external, ports.empty() ? "<none>" : join(ports),
                      age(o, now_us), sel.empty() ? "<none>" : join(sel)});
}

// RoleBinding and ClusterRoleBinding: ROLE is Kind/name; -o wide lists the subjects by kind.
json binding_cells(const json& o, std::int64_t now_us) {
  std::vector<std::string> users, groups, accounts;
  for (const auto& s : field(o, {"subjects"})) {
    std::string kind = str(field(s, {"kind"})), n = str(field(s, {"name"}));
    if (kind == "User") users.push_back(n);
    else if (kind == "Group") groups.push_back(n);
    else if (kind == "ServiceAccount") accounts.push_back(str(field(s, {"namespace"})) + "/" + n);
  }
  return json::array({str(field(o, {"metadata", "name"})),
                      str(field(o, {"roleRef", "kind"})) + "/" + str(field(o, {"roleRef", "name"})), age(o, now_us),
                      join(users, ", "), join(groups, ", "), join(accounts, ", ")});
}

std::string selector_text(const json& sel) {
  std::vector<std::string> v;
  for (const auto& [k, val] : field(sel, {"matchLabels"}).items()) v.push_back(k + "=" + str(val));
  return v.empty() ? "<none>" : join(v);
}

}  // namespace

std::string age_since(const json& timestamp, std::int64_t now_us) {
  std::int64_t t;
  if (!timestamp.is_string() || !parse_rfc3339(timestamp.get<std::string>(), t)) return "<unknown>";
  return engine::human_duration(engine::Duration{std::max<std::int64_t>(0, now_us - t)});
}

std::vector<TableColumn> table_columns(const std::string& kind) {
  auto c = [](const char* name, const char* type, int priority = 0, const char* format = "") {
    return TableColumn{name, type, format, "", priority};
  };
  if (kind == "Pod")
    return {c("Name", "string", 0, "name"), c("Ready", "string"), c("Status", "string"), c("Restarts", "string"),
            c("Age", "string"), c("IP", "string", 1), c("Node", "string", 1), c("Nominated Node", "string", 1),
            c("Readiness Gates", "string", 1)};
  if (kind == "Node")
    return {c("Name", "string", 0, "name"), c("Status", "string"), c("Roles", "string"), c("Age", "string"),
            c("Version", "string"), c("Internal-IP", "string", 1), c("External-IP", "string", 1),
            c("OS-Image", "string", 1), c("Kernel-Version", "string", 1), c("Container-Runtime", "string", 1)};
  if (kind == "Event")
    return {c("Last Seen", "string"), c("Type", "string"),         c("Reason", "string"),
            c("Object", "string"),    c("Subobject", "string", 1), c("Source", "string", 1),
            c("Message", "string"),   c("First Seen", "string", 1), c("Count", "string", 1),
            c("Name", "string", 1, "name")};
  if (kind == "Namespace") return {c("Name", "string", 0, "name"), c("Status", "string"), c("Age", "string")};
  if (kind == "ConfigMap") return {c("Name", "string", 0, "name"), c("Data", "integer"), c("Age", "string")};
  if (kind == "Service")
    return {c("Name", "string", 0, "name"), c("Type", "string"), c("Cluster-IP", "string"), c("External-IP", "string"),
            c("Port(s)", "string"), c("Age", "string"), c("Selector", "string", 1)};
  if (kind == "Deployment")
    return {c("Name", "string", 0, "name"), c("Ready", "string"), c("Up-to-date", "string"), c("Available", "string"),
            c("Age", "string"), c("Containers", "string", 1), c("Images", "string", 1), c("Selector", "string", 1)};
  if (kind == "ReplicaSet")
    return {c("Name", "string", 0, "name"), c("Desired", "integer"), c("Current", "integer"), c("Ready", "integer"),
            c("Age", "string"), c("Containers", "string", 1), c("Images", "string", 1), c("Selector", "string", 1)};
  if (kind == "DaemonSet")
    return {c("Name", "string", 0, "name"), c("Desired", "integer"), c("Current", "integer"), c("Ready", "integer"),
            c("Up-to-date", "integer"), c("Available", "integer"), c("Node Selector", "string"), c("Age", "string"),
            c("Containers", "string", 1), c("Images", "string", 1), c("Selector", "string", 1)};
  if (kind == "Job")
    return {c("Name", "string", 0, "name"), c("Status", "string"), c("Completions", "string"), c("Duration", "string"),
            c("Age", "string"), c("Containers", "string", 1), c("Images", "string", 1), c("Selector", "string", 1)};
  if (kind == "Lease") return {c("Name", "string", 0, "name"), c("Holder", "string"), c("Age", "string")};
  // The API server's default table (no printer columns): the creation time as written.
  if (kind == "CustomResourceDefinition" || kind == "ClusterRole" || kind == "Role" || kind == "APIService")
    return {c("Name", "string", 0, "name"), c("Created At", "date")};
  // Upstream's printers (pkg/printers/internalversion) for the kinds a chart renders.
  if (kind == "Secret") return {c("Name", "string", 0, "name"), c("Type", "string"), c("Data", "string"), c("Age", "string")};
  if (kind == "ServiceAccount") return {c("Name", "string", 0, "name"), c("Secrets", "string"), c("Age", "string")};
  if (kind == "RoleBinding" || kind == "ClusterRoleBinding")
    return {c("Name", "string", 0, "name"), c("Role", "string"), c("Age", "string"), c("Users", "string", 1),
            c("Groups", "string", 1), c("ServiceAccounts", "string", 1)};
  if (kind == "PriorityClass")
    return {c("Name", "string", 0, "name"), c("Value", "integer"), c("Global-Default", "boolean"), c("Age", "string"),
            c("Preemption Policy", "string")};
  if (kind == "MutatingWebhookConfiguration" || kind == "ValidatingWebhookConfiguration")
    return {c("Name", "string", 0, "name"), c("Webhooks", "integer"), c("Age", "string")};
  // Karpenter's and EKS Auto Mode's additionalPrinterColumns.
  if (kind == "NodePool")
    return {c("Name", "string", 0, "name"), c("NodeClass", "string"), c("Nodes", "string"), c("Ready", "string"),
            c("Age", "date"), c("Weight", "integer", 1), c("CPU", "string", 1), c("Memory", "string", 1)};
  if (kind == "NodeClaim")
    return {c("Name", "string", 0, "name"), c("Type", "string"), c("Capacity", "string"), c("Zone", "string"),
            c("Node", "string"), c("Ready", "string"), c("Age", "date"), c("ID", "string", 1),
            c("NodePool", "string", 1), c("NodeClass", "string", 1), c("Drifted", "string", 1)};
  if (kind == "EC2NodeClass") return {c("Name", "string", 0, "name"), c("Ready", "string"), c("Age", "date")};
  if (kind == "NodeClass")
    return {c("Name", "string", 0, "name"), c("Role", "string"), c("Ready", "string"), c("Age", "date")};
  return {c("Name", "string", 0, "name"), c("Age", "string")};
}

json table_cells(const std::string& kind, const json& o, std::int64_t now_us) {
  std::string name = str(field(o, {"metadata", "name"}));
  if (kind == "Pod") return pod_cells(o, now_us);
  if (kind == "Node") return node_cells(o, now_us);
  if (kind == "Event") return event_cells(o, now_us);
  if (kind == "Namespace") return json::array({name, str(field(o, {"status", "phase"})), age(o, now_us)});
  if (kind == "ConfigMap") return json::array({name, field(o, {"data"}).size(), age(o, now_us)});
  if (kind == "Service") return service_cells(o, now_us);
  const json& tmpl_containers = field(o, {"spec", "template", "spec", "containers"});
  if (kind == "Deployment") {
    int replicas = field(o, {"spec", "replicas"}).is_number() ? field(o, {"spec", "replicas"}).get<int>() : 1;
    int ready = field(o, {"status", "readyReplicas"}).is_number() ? field(o, {"status", "readyReplicas"}).get<int>() : 0;
    return json::array({name, std::to_string(ready) + "/" + std::to_string(replicas),
                        field(o, {"status", "updatedReplicas"}).is_number() ? field(o, {"status", "updatedReplicas"}) : json(0),
                        field(o, {"status", "availableReplicas"}).is_number() ? field(o, {"status", "availableReplicas"}) : json(0),
                        age(o, now_us), names_of(tmpl_containers, "name"), names_of(tmpl_containers, "image"),
                        selector_text(field(o, {"spec", "selector"}))});
  }
  if (kind == "ReplicaSet") {
    const json& s = field(o, {"status"});
    return json::array({name, field(o, {"spec", "replicas"}).is_number() ? field(o, {"spec", "replicas"}) : json(1),
                        s.value("replicas", 0), s.value("readyReplicas", 0), age(o, now_us), names_of(tmpl_containers, "name"),
                        names_of(tmpl_containers, "image"), selector_text(field(o, {"spec", "selector"}))});
  }
  if (kind == "DaemonSet") {
    const json& s = field(o, {"status"});
    std::vector<std::string> sel;
    for (const auto& [k, v] : field(o, {"spec", "template", "spec", "nodeSelector"}).items()) sel.push_back(k + "=" + str(v));
    return json::array({name, s.value("desiredNumberScheduled", 0), s.value("currentNumberScheduled", 0),
                        s.value("numberReady", 0), s.value("updatedNumberScheduled", 0), s.value("numberAvailable", 0),
                        sel.empty() ? "<none>" : join(sel), age(o, now_us), names_of(tmpl_containers, "name"),
                        names_of(tmpl_containers, "image"), selector_text(field(o, {"spec", "selector"}))});
  }
  if (kind == "Job") {
    const json& s = field(o, {"status"});
    std::string status = "Running";
    for (const auto& c : s.value("conditions", json::array()))
      if (str(field(c, {"status"})) == "True") status = str(field(c, {"type"}));
    std::string duration;
    std::int64_t start, end = now_us;
    if (s.contains("startTime") && parse_rfc3339(str(field(s, {"startTime"})), start)) {
      if (s.contains("completionTime")) parse_rfc3339(str(field(s, {"completionTime"})), end);
      duration = engine::human_duration(engine::Duration{end - start});
    }
    return json::array({name, status,
                        std::to_string(s.value("succeeded", 0)) + "/" + str(field(o, {"spec", "completions"}), "1"),
                        duration, age(o, now_us), names_of(tmpl_containers, "name"), names_of(tmpl_containers, "image"),
                        "<none>"});
  }
  if (kind == "Lease") return json::array({name, str(field(o, {"spec", "holderIdentity"}), "<none>"), age(o, now_us)});
  if (kind == "NodePool") {
    return json::array({name, str(field(o, {"spec", "template", "spec", "nodeClassRef", "name"})),
                        str(field(o, {"status", "resources", "nodes"}), "0"), condition_status(o, "Ready"),
                        age(o, now_us), field(o, {"spec", "weight"}).is_number() ? str(field(o, {"spec", "weight"})) : "",
                        str(field(o, {"status", "resources", "cpu"})), str(field(o, {"status", "resources", "memory"}))});
  }
  if (kind == "NodeClaim") {
    const json& labels = field(o, {"metadata", "labels"});
    return json::array({name, str(labels.value("node.kubernetes.io/instance-type", json())),
                        str(labels.value("karpenter.sh/capacity-type", json())),
                        str(labels.value("topology.kubernetes.io/zone", json())), str(field(o, {"status", "nodeName"})),
                        condition_status(o, "Ready"), age(o, now_us), str(field(o, {"status", "providerID"})),
                        str(labels.value("karpenter.sh/nodepool", json())),
                        str(field(o, {"spec", "nodeClassRef", "name"})), ""});
  }
  if (kind == "EC2NodeClass") return json::array({name, condition_status(o, "Ready"), age(o, now_us)});
  if (kind == "CustomResourceDefinition" || kind == "ClusterRole" || kind == "Role" || kind == "APIService")
    return json::array({name, field(o, {"metadata", "creationTimestamp"})});
  if (kind == "Secret")
    return json::array({name, str(field(o, {"type"}), "Opaque"), std::to_string(field(o, {"data"}).size()), age(o, now_us)});
  if (kind == "ServiceAccount") return json::array({name, std::to_string(field(o, {"secrets"}).size()), age(o, now_us)});
  if (kind == "RoleBinding" || kind == "ClusterRoleBinding") return binding_cells(o, now_us);
  if (kind == "PriorityClass")
    return json::array({name, field(o, {"value"}).is_number() ? field(o, {"value"}) : json(0),
                        field(o, {"globalDefault"}).is_boolean() ? field(o, {"globalDefault"}) : json(false), age(o, now_us),
                        str(field(o, {"preemptionPolicy"}), "PreemptLowerPriority")});
  if (kind == "MutatingWebhookConfiguration" || kind == "ValidatingWebhookConfiguration")
    return json::array({name, field(o, {"webhooks"}).size(), age(o, now_us)});
  if (kind == "NodeClass")
    return json::array({name, str(field(o, {"spec", "role"})), condition_status(o, "Ready"), age(o, now_us)});
  return json::array({name, age(o, now_us)});
}

json table_row(const std::string& kind, const json& o, std::int64_t now_us, const std::string& include_object) {
  json row = {{"cells", table_cells(kind, o, now_us)}};
  if (include_object == "Object") {
    row["object"] = o;
  } else if (include_object != "None") {
    json meta = o.value("metadata", json::object());
    row["object"] = {{"kind", "PartialObjectMetadata"}, {"apiVersion", "meta.k8s.io/v1"}, {"metadata", meta}};
  }
  return row;
}

json make_table(const std::string& kind, const std::vector<const json*>& objects, std::int64_t now_us,
                const std::string& include_object, const std::string& resource_version) {
  json cols = json::array();
  for (const auto& c : table_columns(kind)) {
    json cj = {{"name", c.name}, {"type", c.type}, {"format", c.format}, {"description", c.description},
               {"priority", c.priority}};
    cols.push_back(cj);
  }
  json rows = json::array();
  for (const json* o : objects) rows.push_back(table_row(kind, *o, now_us, include_object));
  return {{"kind", "Table"},
          {"apiVersion", "meta.k8s.io/v1"},
          {"metadata", {{"resourceVersion", resource_version}}},
          {"columnDefinitions", cols},
          {"rows", rows}};
}

}  // namespace eksim::serve
