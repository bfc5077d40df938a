#include "models/k8s/events/event.hpp"

namespace eksim::k8s {

const char* to_string(EventType t) { return t == EventType::Warning ? "Warning" : "Normal"; }

std::string ObjectRef::str() const {
  if (ns.empty()) return kind + "/" + name;
  return kind + "/" + ns + "/" + name;
}

}  // namespace eksim::k8s
