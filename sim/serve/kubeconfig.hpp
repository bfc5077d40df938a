#pragma once
// The kubeconfig `eksim serve` writes so that kubectl talks to it: plain http on the served
// address, no credentials (kubectl accepts an http:// server; research/kubectl-api.md section 2).
#include <cstdint>
#include <string>

namespace eksim::serve {

std::string kubeconfig_text(const std::string& server, const std::string& cluster_name);
// $XDG_CACHE_HOME/eksim/kubeconfig-PORT, or ~/.cache/eksim/kubeconfig-PORT.
std::string default_kubeconfig_path(std::uint16_t port);
// The server of the current context of a kubeconfig file ("" if there is no such file or no
// server in it). A path that is not a regular file (a FIFO, a device) is an InputError.
std::string server_from_kubeconfig(const std::string& path);

}  // namespace eksim::serve
