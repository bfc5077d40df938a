#include "models/net/rendezvous.hpp"

#include <cctype>
#include <cstdlib>
#include <map>

#include "models/aws/security_groups.hpp"

namespace eksim::net {

namespace {

using engine::Duration;

constexpr int kC10dDefaultPort = 29400;    // c10d_rendezvous_backend.py DEFAULT_PORT
constexpr int kMasterDefaultPort = 29500;  // torchrun --master-port
constexpr std::int64_t kC10dReadTimeoutS = 60;
constexpr std::int64_t kStaticTimeoutS = 600;

const std::string* env_value(const k8s::Container& c, std::string_view name) {
  for (const auto& e : c.env)
    if (e.name == name) return &e.value;
  return nullptr;
}

// $(VAR) as the kubelet expands command/args, ${VAR} and $VAR as the shell of `sh -c` would;
// unknown references stay as written.
std::string expand(const std::string& word, const k8s::Container& c) {
  std::string out;
  for (std::size_t i = 0; i < word.size();) {
    if (word[i] != '$' || i + 1 >= word.size()) {
      out += word[i++];
      continue;
    }
    std::size_t start = i + 1, end = 0;
    std::string name;
    if (word[start] == '(' || word[start] == '{') {
      const char close = word[start] == '(' ? ')' : '}';
      end = word.find(close, start);
      if (end == std::string::npos) {
        out += word[i++];
        continue;
      }
      name = word.substr(start + 1, end - start - 1);
      ++end;
    } else {
      end = start;
      while (end < word.size() && (std::isalnum(static_cast<unsigned char>(word[end])) || word[end] == '_')) ++end;
      name = word.substr(start, end - start);
    }
    const std::string* v = name.empty() ? nullptr : env_value(c, name);
    out += v ? *v : word.substr(i, end - i);
    i = end;
  }
  return out;
}

// The words a program sees; a `sh -c "..."` script is split on blanks (quotes dropped).
std::vector<std::string> words_of(const k8s::Container& c) {
  std::vector<std::string> words;
  auto add = [&](const std::string& raw) {
    const std::string w = expand(raw, c);
    std::string cur;
    for (char ch : w) {
      if (std::isspace(static_cast<unsigned char>(ch)) || ch == ';' || ch == '\\') {
        if (!cur.empty()) words.push_back(cur);
        cur.clear();
      } else if (ch != '"' && ch != '\'') {
        cur += ch;
      }
    }
    if (!cur.empty()) words.push_back(cur);
  };
  for (const auto& w : c.command) add(w);
  for (const auto& w : c.args) add(w);
  return words;
}

// "--rdzv_endpoint=x" / "--rdzv-endpoint x" -> {"rdzv-endpoint": "x"}; the first occurrence wins.
std::map<std::string, std::string> long_options(const std::vector<std::string>& words) {
  std::map<std::string, std::string> opts;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w.size() < 3 || w.compare(0, 2, "--") != 0) continue;
    std::string key, value;
    if (auto eq = w.find('='); eq != std::string::npos) {
      key = w.substr(2, eq - 2);
      value = w.substr(eq + 1);
    } else {
      key = w.substr(2);
      if (i + 1 < words.size() && words[i + 1].compare(0, 1, "-") != 0) value = words[i + 1];
    }
    for (char& ch : key)
      if (ch == '_') ch = '-';
    opts.emplace(key, value);
  }
  return opts;
}

bool runs_torchrun(const std::vector<std::string>& words) {
  for (const auto& w : words) {
    const std::string base = w.substr(w.rfind('/') == std::string::npos ? 0 : w.rfind('/') + 1);
    if (base == "torchrun" || w == "torch.distributed.run" || w == "torch.distributed.launch") return true;
  }
  return false;
}

std::optional<int> port_of(const std::string& text) {
  char* end = nullptr;
  long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v <= 0 || v > 65535) return std::nullopt;
  return static_cast<int>(v);
}

// "host:port", "host", "[v6]:port".
void split_endpoint(const std::string& text, int default_port, std::string* host, int* port) {
  *port = default_port;
  std::string h = text;
  std::string p;
  if (!h.empty() && h.front() == '[') {
    auto close = h.find(']');
    if (close != std::string::npos) {
      p = close + 1 < h.size() && h[close + 1] == ':' ? h.substr(close + 2) : "";
      h = h.substr(1, close - 1);
    }
  } else if (auto colon = h.rfind(':'); colon != std::string::npos && h.find(':') == colon) {
    p = h.substr(colon + 1);
    h = h.substr(0, colon);
  }
  if (auto v = port_of(p)) *port = *v;
  *host = h;
}

// "--rdzv-conf read_timeout=120,join_timeout=900" -> its value for key, in seconds.
std::optional<std::int64_t> conf_seconds(const std::map<std::string, std::string>& opts, const std::string& key) {
  auto it = opts.find("rdzv-conf");
  if (it == opts.end()) return std::nullopt;
  const std::string& conf = it->second;
  std::size_t pos = 0;
  while (pos <= conf.size()) {
    std::size_t comma = conf.find(',', pos);
    std::string kv = conf.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (auto eq = kv.find('='); eq != std::string::npos && kv.substr(0, eq) == key) {
      char* end = nullptr;
      long long v = std::strtoll(kv.c_str() + eq + 1, &end, 10);
      if (*end == '\0' && v > 0) return v;
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return std::nullopt;
}

std::string endpoint_text(const RendezvousEndpoint& e) { return "(" + e.host + ", " + std::to_string(e.port) + ")"; }

}  // namespace

std::optional<RendezvousEndpoint> rendezvous_endpoint(const k8s::Container& container) {
  const std::vector<std::string> words = words_of(container);
  const auto opts = long_options(words);
  RendezvousEndpoint e;
  if (runs_torchrun(words)) {
    auto backend = opts.find("rdzv-backend");
    const std::string b = backend == opts.end() ? "static" : backend->second;
    if (b != "c10d" && b != "static") return std::nullopt;  // etcd: another client, not modelled
    e.backend = b == "c10d" ? RendezvousBackend::C10d : RendezvousBackend::Static;
    const int default_port = e.backend == RendezvousBackend::C10d ? kC10dDefaultPort : kMasterDefaultPort;
    if (auto ep = opts.find("rdzv-endpoint"); ep != opts.end() && !ep->second.empty()) {
      split_endpoint(ep->second, default_port, &e.host, &e.port);
    } else if (auto ma = opts.find("master-addr"); e.backend == RendezvousBackend::Static && ma != opts.end()) {
      e.host = ma->second;
      auto mp = opts.find("master-port");
      e.port = mp == opts.end() ? kMasterDefaultPort : port_of(mp->second).value_or(kMasterDefaultPort);
    }
    if (e.backend == RendezvousBackend::C10d)
      e.store_timeout = Duration::seconds(conf_seconds(opts, "read_timeout").value_or(kC10dReadTimeoutS));
    else
      e.store_timeout = Duration::seconds(conf_seconds(opts, "timeout").value_or(kStaticTimeoutS));
  }
  if (e.host.empty()) {
    const std::string* addr = env_value(container, "MASTER_ADDR");
    if (!addr || addr->empty()) return std::nullopt;
    e.backend = RendezvousBackend::Env;
    e.host = expand(*addr, container);
    const std::string* port = env_value(container, "MASTER_PORT");
    e.port = port ? port_of(*port).value_or(kMasterDefaultPort) : kMasterDefaultPort;
    e.store_timeout = Duration::seconds(kStaticTimeoutS);
  }
  if (e.host.empty()) return std::nullopt;
  return e;
}

bool needs_dns(std::string_view host) {
  if (host.empty() || host == "localhost") return false;
  if (engine::parse_ipv4(host)) return false;
  return host.find(':') == std::string_view::npos;  // an IPv6 literal
}

ResolutionFailure resolution_failure(const RendezvousEndpoint& endpoint) {
  ResolutionFailure f;
  const std::string where = endpoint_text(endpoint);
  const std::string warning = "[c10d] The IPv6 network addresses of " + where +
                              " cannot be retrieved (gai error: -3 - Temporary failure in name resolution).";
  Duration t{};
  while (true) {
    t = t + kResolverGiveUp;
    f.attempts.push_back({t, warning});
    if (t < endpoint.store_timeout - kStoreConnectBackoff) t = t + kStoreConnectBackoff;
    else break;
  }
  f.fails_at = t;
  f.final_lines = store_timeout_lines(endpoint);
  f.failure_text = f.final_lines.back();
  return f;
}

std::vector<std::string> store_timeout_lines(const RendezvousEndpoint& endpoint) {
  std::vector<std::string> lines{"[c10d] The client socket has timed out after " +
                                 std::to_string(endpoint.store_timeout.us / 1000) +
                                 "ms while trying to connect to " + endpoint_text(endpoint) + "."};
  if (endpoint.backend == RendezvousBackend::C10d)
    lines.push_back(
        "torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to the C10d store has "
        "failed. See inner exception for details.");
  return lines;
}

int store_host_index(std::string_view host, std::string_view job_name) {
  const std::string_view label = host.substr(0, host.find('.'));
  if (label.size() <= job_name.size() + 1 || label.substr(0, job_name.size()) != job_name ||
      label[job_name.size()] != '-')
    return 0;
  int index = 0;
  for (char ch : label.substr(job_name.size() + 1)) {
    if (!std::isdigit(static_cast<unsigned char>(ch)) || index > 100000) return 0;
    index = index * 10 + (ch - '0');
  }
  return index;
}

}  // namespace eksim::net
