#include "models/autoscaling/karpenter/logging.hpp"

#include <cstdio>
#include <map>

#include <nlohmann/json.hpp>

namespace eksim::autoscaling::karpenter {

std::string karpenter_commit(const std::string& version) {
  // git rev-parse --short=7 v<version>^{commit} in aws/karpenter-provider-aws; the pastes users
  // post agree (1.0.5 652e6aa, 1.2.0 93da438, 1.5.0 9458bb5, 1.6.2 4ff8cfe, 1.8.1 1ad0d78, 1.8.2 f913f41).
  static const std::map<std::string, std::string> kCommits{
      {"1.0.0", "5bdf9c3"},  {"1.0.1", "62a726c"},  {"1.0.2", "b897114"},  {"1.0.3", "688ea21"},
      {"1.0.4", "0f8788c"},  {"1.0.5", "652e6aa"},  {"1.0.6", "6174c75"},  {"1.0.7", "901a5dc"},
      {"1.0.8", "a2875e3"},  {"1.0.9", "7e06109"},  {"1.0.10", "6cca1dc"}, {"1.0.11", "a88b5ef"},
      {"1.0.12", "8bd9a3d"}, {"1.0.13", "5598b50"}, {"1.0.14", "093ba9d"}, {"1.1.0", "0a85efb"},
      {"1.1.1", "3298d91"},  {"1.1.2", "8f399a9"},  {"1.1.3", "1bfdc3d"},  {"1.1.4", "a03f2c5"},
      {"1.1.5", "4f41a6d"},  {"1.1.6", "d497314"},  {"1.1.7", "a4354cb"},  {"1.1.8", "09935d8"},
      {"1.1.9", "5db5fc8"},  {"1.1.10", "2fbbce5"}, {"1.2.0", "93da438"},  {"1.2.1", "058c665"},
      {"1.2.2", "477072f"},  {"1.2.3", "85616bc"},  {"1.2.4", "5a37f83"},  {"1.2.5", "95881e1"},
      {"1.2.6", "eac1f3c"},  {"1.2.7", "abb467b"},  {"1.2.8", "3a570db"},  {"1.3.0", "ff59416"},
      {"1.3.1", "22f7207"},  {"1.3.2", "1c39126"},  {"1.3.3", "ad71530"},  {"1.3.4", "23f9115"},
      {"1.3.5", "34dac0d"},  {"1.3.6", "7f8a83d"},  {"1.3.7", "00aaae1"},  {"1.3.8", "33b235c"},
      {"1.4.0", "0871602"},  {"1.4.1", "31eb355"},  {"1.4.2", "f23af71"},  {"1.4.3", "3307798"},
      {"1.4.4", "5bba96f"},  {"1.5.0", "9458bb5"},  {"1.5.1", "930b1f9"},  {"1.5.2", "207f1a7"},
      {"1.5.3", "66c0051"},  {"1.5.4", "7736841"},  {"1.5.5", "3cf01c2"},  {"1.5.6", "0f47193"},
      {"1.5.7", "c6ab9ff"},  {"1.5.8", "02cad97"},  {"1.6.0", "c8c45c1"},  {"1.6.1", "8adb23d"},
      {"1.6.2", "4ff8cfe"},  {"1.6.3", "13242ea"},  {"1.6.4", "664f076"},  {"1.6.5", "9e59a13"},
      {"1.6.6", "a316020"},  {"1.6.7", "867954d"},  {"1.6.8", "7a8109f"},  {"1.7.0", "54ada83"},
      {"1.7.1", "781485b"},  {"1.7.2", "afe3eba"},  {"1.7.3", "4abf673"},  {"1.7.4", "11330aa"},
      {"1.7.5", "e574368"},  {"1.7.6", "87b7ff2"},  {"1.8.0", "31fa2ea"},  {"1.8.1", "1ad0d78"},
      {"1.8.2", "f913f41"},  {"1.8.3", "c9c3a48"},  {"1.8.4", "f15a737"},  {"1.8.5", "51932b4"},
      {"1.8.6", "f29079c"},  {"1.8.7", "63f4a15"},  {"1.8.8", "5b5bf22"},  {"1.9.0", "e7e1327"},
      {"1.9.1", "68643c6"},  {"1.9.2", "310b356"},  {"1.10.0", "d80cb86"}, {"1.10.1", "f88820a"},
      {"1.10.2", "75bcc27"}, {"1.11.0", "537b01a"}, {"1.11.1", "77c1613"}, {"1.11.2", "746a3af"},
      {"1.11.3", "0c4e1cf"}, {"1.12.0", "7ff7943"}, {"1.12.1", "15781e3"}, {"1.12.2", "35e088b"},
      {"1.13.0", "2be9554"}, {"1.13.1", "245b48b"}, {"1.14.0", "85eeae8"}, {"1.14.1", "bde0065"}};
  std::string v = version;
  if (!v.empty() && v[0] == 'v') v.erase(0, 1);
  auto it = kCommits.find(v);
  return it == kCommits.end() ? "" : it->second;
}

std::string go_duration(std::int64_t ns) {
  if (ns == 0) return "0s";
  // Below a second: the largest unit that keeps the integer part non-zero, trailing zeros cut.
  auto fixed = [](std::int64_t value, std::int64_t unit, const char* suffix) {
    std::string out = std::to_string(value / unit);
    std::int64_t frac = value % unit;
    if (frac) {
      std::string digits = std::to_string(unit + frac).substr(1);
      while (!digits.empty() && digits.back() == '0') digits.pop_back();
      out += "." + digits;
    }
    return out + suffix;
  };
  if (ns < 1000) return std::to_string(ns) + "ns";
  if (ns < 1000000) return fixed(ns, 1000, "µs");
  if (ns < 1000000000) return fixed(ns, 1000000, "ms");
  if (ns < 60LL * 1000000000) return fixed(ns, 1000000000, "s");
  const std::int64_t minutes = ns / (60LL * 1000000000);
  return std::to_string(minutes) + "m" + fixed(ns % (60LL * 1000000000), 1000000000, "s");
}

std::string first_five(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 4) return out + " and " + std::to_string(items.size() - i) + " other(s)";
    if (i > 0) out += ", ";
    out += items[i];
  }
  return out;
}

std::string json_string(const std::string& s) { return nlohmann::json(s).dump(); }

std::string object_ref(const std::string& name, const std::string& ns) {
  std::string out = "{\"name\":" + json_string(name);
  if (!ns.empty()) out += ",\"namespace\":" + json_string(ns);
  return out + "}";
}

std::string canonical_quantity(const std::string& name, std::int64_t amount) {
  if (name != k8s::kMemory && name != k8s::kEphemeralStorage && name.rfind("hugepages-", 0) != 0)
    return k8s::format_amount(name, amount);
  // resource.Quantity.String() of a BinarySI amount: the largest suffix that divides it.
  static constexpr const char* kSuffixes[] = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  int suffix = -1;
  std::int64_t v = amount;
  while (v != 0 && v % 1024 == 0 && suffix < 5) {
    v /= 1024;
    ++suffix;
  }
  return std::to_string(v) + (suffix < 0 ? "" : kSuffixes[suffix]);
}

std::string resource_map(const k8s::ResourceList& r, bool canonical) {
  std::string out = "{";
  for (const auto& [name, amount] : r.items()) {
    if (amount == 0) continue;
    if (out.size() > 1) out += ",";
    out += json_string(name) + ":" +
           json_string(canonical ? canonical_quantity(name, amount) : k8s::format_amount(name, amount));
  }
  return out + "}";
}

namespace {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

std::string ControllerLog::uuid() {
  ++ids_;
  const std::uint64_t a = splitmix64(2 * ids_), b = splitmix64(2 * ids_ + 1);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08x-%04x-4%03x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xFFFF), static_cast<unsigned>(a & 0xFFF),
                static_cast<unsigned>(0x8000 | ((b >> 48) & 0x3FFF)),
                static_cast<unsigned long long>(b & 0xFFFFFFFFFFFFULL));
  return buf;
}

std::string ControllerLog::singleton(const char* controller) {
  return std::string("\"controller\":\"") + controller + "\",\"namespace\":\"\",\"name\":\"\",\"reconcileID\":\"" +
         uuid() + "\"";
}

std::string ControllerLog::nodeclaim_controller(const char* controller, const std::string& nodeclaim) {
  return std::string("\"controller\":\"") + controller +
         "\",\"controllerGroup\":\"karpenter.sh\",\"controllerKind\":\"NodeClaim\",\"NodeClaim\":" +
         object_ref(nodeclaim) + ",\"namespace\":\"\",\"name\":" + json_string(nodeclaim) + ",\"reconcileID\":\"" +
         uuid() + "\"";
}

std::string ControllerLog::node_controller(const char* controller, const std::string& node) {
  return std::string("\"controller\":\"") + controller + "\",\"controllerGroup\":\"\",\"controllerKind\":\"Node\",\"Node\":" +
         object_ref(node) + ",\"namespace\":\"\",\"name\":" + json_string(node) + ",\"reconcileID\":\"" + uuid() + "\"";
}

}  // namespace eksim::autoscaling::karpenter
