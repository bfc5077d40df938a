#include "sim/serve/kubeconfig.hpp"

#include <sys/stat.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>

#include "sim/scenario/input_file.hpp"
#include "sim/scenario/yaml_documents.hpp"

namespace eksim::serve {

std::string kubeconfig_text(const std::string& server, const std::string& cluster_name) {
  std::string name = "eksim-" + cluster_name;
  return "apiVersion: v1\n"
         "kind: Config\n"
         "clusters:\n"
         "- name: " + name + "\n"
         "  cluster:\n"
         "    server: " + server + "\n"
         "contexts:\n"
         "- name: " + name + "\n"
         "  context:\n"
         "    cluster: " + name + "\n"
         "    user: eksim\n"
         "    namespace: default\n"
         "current-context: " + name + "\n"
         "users:\n"
         "- name: eksim\n"
         "  user: {}\n";
}

std::string default_kubeconfig_path(std::uint16_t port) {
  std::string dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) dir = xdg;
  else if (const char* home = std::getenv("HOME"); home && *home) dir = std::string(home) + "/.cache";
  else dir = "/tmp";
  return dir + "/eksim/kubeconfig-" + std::to_string(port);
}

std::string server_from_kubeconfig(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "";  // as kubectl, a missing file is no kubeconfig
  // Read as every file a user names is: a FIFO or a device is refused (an InputError, exit 2)
  // instead of waiting for ever on a writer, and the YAML goes through the same pre-pass.
  const std::string text = scenario::read_input_file(path, scenario::Location{});
  try {
    YAML::Node doc = scenario::parse_yaml_document(text, path);
    std::string context = doc["current-context"] ? doc["current-context"].as<std::string>() : "";
    std::string cluster;
    for (const auto& c : doc["contexts"])
      if (c["name"].as<std::string>() == context) cluster = c["context"]["cluster"].as<std::string>();
    for (const auto& c : doc["clusters"])
      if (c["name"].as<std::string>() == cluster) return c["cluster"]["server"].as<std::string>();
  } catch (const std::exception&) {
  }
  return "";
}

}  // namespace eksim::serve
