// Hold model on SimGrid 3.32 S4U, for bench/peers/run: PENDING actors, each sleeping an exponential
// gap in a loop, so PENDING timers are always pending. Usage: hold_simgrid PENDING EVENTS [--cfg=...]
// Events are counted after a warm-up of PENDING wake-ups (which covers actor start-up).
#include <simgrid/s4u.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "sim/engine/rng.hpp"

namespace {

eksim::engine::Rng rng{42};
std::uint64_t pending = 0;
std::uint64_t limit = 0;  // warm-up + measured events
std::uint64_t fired = 0;
std::clock_t t0 = 0;
std::clock_t t1 = 0;

void holder() {
  for (;;) {
    simgrid::s4u::this_actor::sleep_for(rng.exponential(1.0));
    ++fired;
    if (fired == pending) t0 = std::clock();
    if (fired == limit) {
      t1 = std::clock();
      simgrid::s4u::Actor::kill_all();  // rather than draining PENDING more wake-ups
      return;
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  simgrid::s4u::Engine engine(&argc, argv);
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s PENDING EVENTS [--cfg=...]\n", argv[0]);
    return 2;
  }
  pending = std::strtoull(argv[1], nullptr, 10);
  const std::uint64_t events = std::strtoull(argv[2], nullptr, 10);
  limit = pending + events;
  // One host is enough: the actors only sleep, so no platform file is needed.
  auto* zone = simgrid::s4u::create_full_zone("zone");
  auto* host = zone->create_host("host", 1e9)->seal();
  zone->seal();
  for (std::uint64_t i = 0; i < pending; ++i) simgrid::s4u::Actor::create("holder", host, holder);
  engine.run();
  const double secs = static_cast<double>(t1 - t0) / CLOCKS_PER_SEC;
  std::printf("%.0f\n", static_cast<double>(events) / secs);
  return 0;
}
