#pragma once
// Named random streams. Every component draws from its own stream, seeded from
// hash(scenario seed, stream name), so adding a component or a draw in one place never changes
// the numbers another component sees. Generators and distributions are written here (xoshiro256**
// seeded by splitmix64) because std:: distributions differ between standard libraries.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

namespace eksim::engine {

// 64-bit FNV-1a; stable across platforms, used to turn stream names into seeds.
std::uint64_t fnv1a64(std::string_view text, std::uint64_t basis = 0xcbf29ce484222325ULL);

class Rng {
 public:
  explicit Rng(std::uint64_t seed);

  std::uint64_t next_u64();
  // Uniform in [0, 1) with 53 random bits.
  double uniform();
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  // Uniform integer in [0, n) without modulo bias (Lemire's method). n must be > 0.
  std::uint64_t below(std::uint64_t n);
  bool bernoulli(double p) { return uniform() < p; }
  double exponential(double mean);
  // Standard normal by the Box-Muller transform (no cached second value: draws stay independent
  // of call history parity).
  double normal(double mean, double stddev);
  // Log-normal parametrised by its median and the sigma of the underlying normal; used for
  // latencies, which are skewed to the right.
  double lognormal_median(double median, double sigma);

 private:
  std::uint64_t s_[4];
};

// Owns the streams of one simulation run.
class RngStreams {
 public:
  explicit RngStreams(std::uint64_t seed) : seed_(seed) {}
  std::uint64_t seed() const { return seed_; }
  // The stream called name; created on first use from hash(seed, name).
  Rng& get(std::string_view name);

 private:
  std::uint64_t seed_;
  std::map<std::string, std::unique_ptr<Rng>, std::less<>> streams_;
};

}  // namespace eksim::engine
