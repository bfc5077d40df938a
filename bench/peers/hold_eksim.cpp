// Hold model on eksim's Simulator, for bench/peers/run. Usage: hold_eksim PENDING EVENTS
// Prints "<events/s>" for EVENTS events fired after a warm-up of PENDING events.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "sim/engine/rng.hpp"
#include "sim/engine/simulator.hpp"

namespace {

using eksim::engine::Duration;

struct State {
  eksim::engine::Simulator sim;
  eksim::engine::Rng rng{42};
};

// A real callback through the engine (type-erased, stored out of line), not an inlined loop.
struct Hold {
  State* st;
  void operator()() const { st->sim.schedule(Duration::from_seconds(st->rng.exponential(1.0)), Hold{st}); }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s PENDING EVENTS\n", argv[0]);
    return 2;
  }
  const std::uint64_t pending = std::strtoull(argv[1], nullptr, 10);
  const std::uint64_t events = std::strtoull(argv[2], nullptr, 10);
  State st;
  for (std::uint64_t i = 0; i < pending; ++i)
    st.sim.schedule(Duration::from_seconds(st.rng.exponential(1.0)), Hold{&st});
  for (std::uint64_t i = 0; i < pending; ++i) st.sim.step();
  const std::clock_t t0 = std::clock();
  for (std::uint64_t i = 0; i < events; ++i) st.sim.step();
  const double secs = static_cast<double>(std::clock() - t0) / CLOCKS_PER_SEC;
  if (st.sim.pending_count() != pending) return 1;
  std::printf("%.0f\n", static_cast<double>(events) / secs);
  return 0;
}
