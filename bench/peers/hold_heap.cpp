// Hold model on a bare std::priority_queue of (time, sequence) keys, for bench/peers/run: the
// floor for any future-event list with FIFO ties. Usage: hold_heap PENDING EVENTS
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

#include "sim/engine/rng.hpp"
#include "sim/engine/time.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s PENDING EVENTS\n", argv[0]);
    return 2;
  }
  const std::uint64_t pending = std::strtoull(argv[1], nullptr, 10);
  const std::uint64_t events = std::strtoull(argv[2], nullptr, 10);
  using eksim::engine::Duration;
  using Key = std::pair<std::int64_t, std::uint64_t>;
  std::priority_queue<Key, std::vector<Key>, std::greater<Key>> heap;
  eksim::engine::Rng rng{42};
  std::uint64_t seq = 0;
  auto hold = [&] {
    std::int64_t now = heap.top().first;
    heap.pop();
    heap.push({now + Duration::from_seconds(rng.exponential(1.0)).us, seq++});
  };
  for (std::uint64_t i = 0; i < pending; ++i) heap.push({Duration::from_seconds(rng.exponential(1.0)).us, seq++});
  for (std::uint64_t i = 0; i < pending; ++i) hold();
  const std::clock_t t0 = std::clock();
  for (std::uint64_t i = 0; i < events; ++i) hold();
  const double secs = static_cast<double>(std::clock() - t0) / CLOCKS_PER_SEC;
  if (heap.size() != pending) return 1;
  std::printf("%.0f\n", static_cast<double>(events) / secs);
  return 0;
}
