#include "sim/serve/selectors.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "models/k8s/scheduling/predicates.hpp"

namespace eksim::serve {

using nlohmann::json;

namespace {

std::string trim(const std::string& s) {
  auto b = s.find_first_not_of(' ');
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(' ') - b + 1);
}

// Splits on commas that are not inside parentheses (the value lists of in/notin).
std::vector<std::string> split_terms(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (char ch : text) {
    if (ch == '(') ++depth;
    if (ch == ')') --depth;
    if (ch == ',' && depth == 0) {
      out.push_back(trim(cur));
      cur.clear();
    } else {
      cur += ch;
    }
  }
  if (!trim(cur).empty() || !out.empty()) out.push_back(trim(cur));
  return out;
}

// metadata.labels of an object as the API returns it (string values; anything else is no label
// a selector can match, as it could not have been stored).
k8s::Labels labels_of(const json& object) {
  k8s::Labels out;
  if (!object.contains("metadata") || !object["metadata"].contains("labels")) return out;
  for (const auto& [k, v] : object["metadata"]["labels"].items())
    if (v.is_string()) out[k] = v.get<std::string>();
  return out;
}

}  // namespace

Selector parse_label_selector(const std::string& text) {
  Selector s;
  for (const std::string& term : split_terms(text)) {
    if (term.empty()) throw std::invalid_argument("unable to parse requirement: found '', expected: identifier");
    SelectorTerm t;
    std::size_t sp;
    if (term[0] == '!') {
      t.key = trim(term.substr(1));
      t.op = "!";
    } else if ((sp = term.find(" notin ")) != std::string::npos || (sp = term.find(" in ")) != std::string::npos) {
      bool notin = term.compare(sp, 7, " notin ") == 0;
      t.key = trim(term.substr(0, sp));
      t.op = notin ? "notin" : "in";
      std::string rest = trim(term.substr(sp + (notin ? 7 : 4)));
      if (rest.size() < 2 || rest.front() != '(' || rest.back() != ')')
        throw std::invalid_argument("unable to parse requirement: found '" + rest + "', expected: '('");
      for (const auto& v : split_terms(rest.substr(1, rest.size() - 2))) t.values.push_back(v);
    } else if ((sp = term.find("!=")) != std::string::npos) {
      t.key = trim(term.substr(0, sp));
      t.op = "!=";
      t.values = {trim(term.substr(sp + 2))};
    } else if ((sp = term.find("==")) != std::string::npos) {
      t.key = trim(term.substr(0, sp));
      t.op = "=";
      t.values = {trim(term.substr(sp + 2))};
    } else if ((sp = term.find('=')) != std::string::npos) {
      t.key = trim(term.substr(0, sp));
      t.op = "=";
      t.values = {trim(term.substr(sp + 1))};
    } else {
      t.key = term;
      t.op = "exists";
    }
    if (t.key.empty() || t.key.find(' ') != std::string::npos)
      throw std::invalid_argument("unable to parse requirement: invalid label key \"" + t.key + "\"");
    s.terms.push_back(std::move(t));
  }
  return s;
}

Selector parse_field_selector(const std::string& text) {
  Selector s;
  for (const std::string& term : split_terms(text)) {
    if (term.empty()) continue;
    SelectorTerm t;
    std::size_t sp;
    if ((sp = term.find("!=")) != std::string::npos) {
      t.op = "!=";
      t.key = term.substr(0, sp);
      t.values = {term.substr(sp + 2)};
    } else if ((sp = term.find("==")) != std::string::npos) {
      t.op = "=";
      t.key = term.substr(0, sp);
      t.values = {term.substr(sp + 2)};
    } else if ((sp = term.find('=')) != std::string::npos) {
      t.op = "=";
      t.key = term.substr(0, sp);
      t.values = {term.substr(sp + 1)};
    } else {
      throw std::invalid_argument("invalid selector: '" + text + "'; can't understand '" + term + "'");
    }
    s.terms.push_back(std::move(t));
  }
  return s;
}

k8s::LabelSelector as_label_selector(const Selector& s) {
  // labels.Parse's operators as the Requirements of a LabelSelector: "=" and "==" are In one
  // value, "!=" NotIn one value (an absent key matches), a bare key Exists, "!key" DoesNotExist.
  k8s::LabelSelector out;
  for (const auto& t : s.terms) {
    const std::string op = t.op == "=" || t.op == "in" ? "In" : t.op == "!=" || t.op == "notin" ? "NotIn"
                           : t.op == "exists"           ? "Exists"
                                                        : "DoesNotExist";
    out.match_expressions.push_back({t.key, op, op == "In" || op == "NotIn" ? t.values : std::vector<std::string>{}});
  }
  return out;
}

bool matches_labels(const Selector& s, const json& object) {
  if (s.empty()) return true;
  return k8s::label_selector_matches(as_label_selector(s), labels_of(object));
}

void check_field_selector(const Selector& s, const std::string& kind) {
  // The fields each type's registry strategy exposes (GetAttrs / AddFieldLabelConversionFunc).
  static const std::map<std::string, std::set<std::string>> supported{
      {"Pod",
       {"spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName", "spec.hostNetwork",
        "status.phase", "status.podIP", "status.nominatedNodeName"}},
      {"Event",
       {"involvedObject.kind", "involvedObject.namespace", "involvedObject.name", "involvedObject.uid",
        "involvedObject.apiVersion", "involvedObject.resourceVersion", "involvedObject.fieldPath", "reason",
        "reportingComponent", "source", "type", "regarding.kind", "regarding.name", "regarding.namespace",
        "regarding.uid", "reportingController", "note"}},
      {"Node", {"spec.unschedulable"}},
      {"Namespace", {"status.phase"}},
  };
  for (const auto& t : s.terms) {
    if (t.key == "metadata.name" || t.key == "metadata.namespace") continue;
    auto it = supported.find(kind);
    if (it == supported.end() || !it->second.count(t.key))
      throw std::invalid_argument("field label not supported: " + t.key);
  }
}

bool matches_fields(const Selector& s, const json& object) {
  for (const auto& t : s.terms) {
    const json* cur = &object;
    std::string path = t.key == "source" ? "source.component" : t.key;
    std::size_t pos = 0;
    while (cur && pos <= path.size()) {
      std::size_t dot = path.find('.', pos);
      std::string part = path.substr(pos, dot == std::string::npos ? std::string::npos : dot - pos);
      cur = cur->is_object() && cur->contains(part) ? &(*cur)[part] : nullptr;
      if (dot == std::string::npos) break;
      pos = dot + 1;
    }
    std::string v;
    if (cur) {
      if (cur->is_string()) v = cur->get<std::string>();
      else if (cur->is_boolean()) v = cur->get<bool>() ? "true" : "false";
      else if (!cur->is_null()) v = cur->dump();
    } else if (t.key == "spec.unschedulable" || t.key == "spec.hostNetwork") {
      v = "false";
    }
    bool eq = v == t.values[0];
    if (t.op == "=" && !eq) return false;
    if (t.op == "!=" && eq) return false;
  }
  return true;
}

}  // namespace eksim::serve
