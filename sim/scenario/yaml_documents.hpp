#pragma once
// Turns YAML (or JSON) text into yaml-cpp documents, refusing first what yaml-cpp 0.7 accepts
// but eksim cannot safely use. A pass over the parser's events, before any tree is built, checks:
//
// - stray tokens between documents (`a: 1\n,`): yaml-cpp's LoadAll makes no progress on them and
//   appends empty documents until memory runs out (jbeder/yaml-cpp#1040);
// - duplicate mapping keys, which kubectl apply rejects and yaml-cpp silently keeps;
// - an alias inside the node it names (`&x {a: *x}`), which makes a cyclic tree that every
//   recursive reader would follow forever;
// - alias bombs ("billion laughs"): a few lines whose aliases expand to billions of nodes, and
//   chains of aliases that nest deeper than any recursive reader's stack.
//
// Every problem is an InputError located in the text (file is the name used in messages).
#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

namespace eksim::scenario {

// All documents of a multi-document text; empty documents are kept as null nodes.
std::vector<YAML::Node> parse_yaml_documents(const std::string& text, const std::string& file);

// The first document only (as YAML::Load), with the same checks.
YAML::Node parse_yaml_document(const std::string& text, const std::string& file);

}  // namespace eksim::scenario
