// Hold model on ns-3.37 (default MapScheduler) via Simulator::Schedule, for bench/peers/run.
// Usage: hold_ns3 PENDING EVENTS. Prints events/s for EVENTS events fired after a warm-up of
// PENDING events. Built as C++17: ns-3.37's headers do not compile as C++20 (singleton.h).
#include <ns3/nstime.h>
#include <ns3/simulator.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "sim/engine/rng.hpp"

namespace {

eksim::engine::Rng rng{42};
std::uint64_t pending = 0;
std::uint64_t limit = 0;
std::uint64_t fired = 0;
std::clock_t t0 = 0;
std::clock_t t1 = 0;

// Whole microseconds, as eksim's Duration::from_seconds rounds them (time.hpp is C++20).
ns3::Time gap() { return ns3::MicroSeconds(std::llround(rng.exponential(1.0) * 1e6)); }

void hold() {
  ++fired;
  if (fired == pending) t0 = std::clock();
  if (fired == limit) {
    t1 = std::clock();
    ns3::Simulator::Stop();
    return;
  }
  ns3::Simulator::Schedule(gap(), &hold);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s PENDING EVENTS\n", argv[0]);
    return 2;
  }
  pending = std::strtoull(argv[1], nullptr, 10);
  const std::uint64_t events = std::strtoull(argv[2], nullptr, 10);
  limit = pending + events;
  for (std::uint64_t i = 0; i < pending; ++i) ns3::Simulator::Schedule(gap(), &hold);
  ns3::Simulator::Run();
  ns3::Simulator::Destroy();
  const double secs = static_cast<double>(t1 - t0) / CLOCKS_PER_SEC;
  std::printf("%.0f\n", static_cast<double>(events) / secs);
  return 0;
}
