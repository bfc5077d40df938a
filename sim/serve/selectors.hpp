#pragma once
// Label selectors (labels.Parse: =, ==, !=, in, notin, key, !key) and field selectors
// (fields.ParseSelector: =, ==, != over the fields each type supports) as list and watch
// requests carry them. Parse errors carry the apiserver's message for a 400 BadRequest.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/k8s/api/objects.hpp"

namespace eksim::serve {

struct SelectorTerm {
  std::string key;
  std::string op;  // "=", "!=", "in", "notin", "exists", "!"
  std::vector<std::string> values;
};

struct Selector {
  std::vector<SelectorTerm> terms;
  bool empty() const { return terms.empty(); }
};

// Throws std::invalid_argument with the apiserver's message on a malformed selector.
Selector parse_label_selector(const std::string& text);
Selector parse_field_selector(const std::string& text);

// A parsed label selector as the one the model matches with (k8s::label_selector_matches, which
// has labels.Selector's semantics), so that list, watch and the controllers agree.
k8s::LabelSelector as_label_selector(const Selector& s);
bool matches_labels(const Selector& s, const nlohmann::json& object);
// kind selects the fields the apiserver supports for it ("Pod", "Event", ...); an unsupported
// field throws std::invalid_argument("field label not supported: X").
void check_field_selector(const Selector& s, const std::string& kind);
bool matches_fields(const Selector& s, const nlohmann::json& object);

}  // namespace eksim::serve
