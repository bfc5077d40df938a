#include "models/autoscaling/cas/expander/expander.hpp"

#include <re2/re2.h>

#include <algorithm>

#include "models/k8s/api/resources.hpp"
#include "sim/engine/saturating.hpp"

namespace eksim::autoscaling::cas {

namespace {

// resourcesForPods in waste.go: container requests summed (init containers are not counted).
std::pair<std::int64_t, std::int64_t> requested_cpu_memory(const std::vector<const k8s::Pod*>& pods) {
  std::int64_t cpu = 0, mem = 0;
  for (const k8s::Pod* p : pods)
    for (const auto& c : p->spec.containers) {
      cpu = engine::sat_add(cpu, c.requests.get(k8s::kCpu));
      mem = engine::sat_add(mem, c.requests.get(k8s::kMemory));
    }
  return {cpu, mem};
}

template <typename Score>
std::vector<ExpansionOption> keep_best(const std::vector<ExpansionOption>& options, Score score, bool lowest) {
  std::vector<ExpansionOption> best;
  double best_score = 0;
  for (const auto& o : options) {
    double s = score(o);
    if (best.empty() || (lowest ? s < best_score : s > best_score)) {
      best.clear();
      best_score = s;
    }
    if (s == best_score) best.push_back(o);
  }
  return best;
}

}  // namespace

double waste_score(const ExpansionOption& option) {
  auto [cpu, mem] = requested_cpu_memory(option.pods);
  double avail_cpu = static_cast<double>(option.template_node.capacity.get(k8s::kCpu) * option.node_count);
  double avail_mem = static_cast<double>(option.template_node.capacity.get(k8s::kMemory) * option.node_count);
  double wasted_cpu = avail_cpu > 0 ? (avail_cpu - static_cast<double>(cpu)) / avail_cpu : 0;
  double wasted_mem = avail_mem > 0 ? (avail_mem - static_cast<double>(mem)) / avail_mem : 0;
  return wasted_cpu + wasted_mem;
}

std::vector<ExpansionOption> filter_least_waste(const std::vector<ExpansionOption>& options) {
  return keep_best(options, waste_score, /*lowest=*/true);
}

std::vector<ExpansionOption> filter_most_pods(const std::vector<ExpansionOption>& options) {
  return keep_best(options, [](const ExpansionOption& o) { return static_cast<double>(o.pods.size()); }, false);
}

// Simplified price expander: the cost per hour of the added nodes per pod helped, lowest wins.
// Upstream (expander/price) also weighs a "preferred node" size and pod-price estimates; the
// cheapest-per-pod option is what it picks in the common cases.
std::vector<ExpansionOption> filter_price(const std::vector<ExpansionOption>& options) {
  return keep_best(
      options,
      [](const ExpansionOption& o) {
        double pods = o.pods.empty() ? 1.0 : static_cast<double>(o.pods.size());
        return o.node_price_per_hour * static_cast<double>(o.node_count) / pods;
      },
      /*lowest=*/true);
}

namespace {

// Go's regexp/syntax refuses nesting beyond 1000 ("expression nests too deeply"), which RE2
// does not check; eksim also bounds a rule's length, which Go does not need to.
constexpr int kMaxRegexpNesting = 1000;       // regexp/syntax maxHeight
constexpr std::size_t kMaxRegexpLength = 10000;  // eksim's own bound

std::optional<std::string> regexp_limit_error(const std::string& re) {
  if (re.size() > kMaxRegexpLength)
    return "rule longer than " + std::to_string(kMaxRegexpLength) + " characters (eksim's limit)";
  int depth = 0;
  bool escaped = false;
  for (char c : re) {
    if (escaped) {
      escaped = false;
    } else if (c == '\\') {
      escaped = true;
    } else if (c == '(') {
      if (++depth > kMaxRegexpNesting) return "error parsing regexp: expression nests too deeply: `" + re + "`";
    } else if (c == ')') {
      --depth;
    }
  }
  return std::nullopt;
}

// A rule as Go's regexp.Compile reads it: RE2 is the same design (Perl syntax, UTF-8, leftmost-
// first, linear-time matching), so `(.*)*x$` matches or fails in one pass over the id instead of
// backtracking for ever as std::regex did.
RE2::Options go_options() {
  RE2::Options o;
  o.set_log_errors(false);
  o.set_max_mem(8 << 20);  // RE2's default; a larger program is "expression too large"
  return o;
}

// Go regexp/syntax ErrorCode texts; `arg` is the offending fragment, as Go's Error.Expr.
std::string go_regexp_error(RE2::ErrorCode code, const std::string& arg) {
  std::string what = "invalid syntax";
  switch (code) {
    case RE2::ErrorBadEscape: what = "invalid escape sequence"; break;
    case RE2::ErrorBadCharClass: what = "invalid character class"; break;
    case RE2::ErrorBadCharRange: what = "invalid character class range"; break;
    case RE2::ErrorMissingBracket: what = "missing closing ]"; break;
    case RE2::ErrorMissingParen: what = "missing closing )"; break;
    case RE2::ErrorUnexpectedParen: what = "unexpected )"; break;
    case RE2::ErrorTrailingBackslash: what = "trailing backslash at end of expression"; break;
    case RE2::ErrorRepeatArgument: what = "missing argument to repetition operator"; break;
    case RE2::ErrorRepeatSize: what = "invalid repeat count"; break;
    case RE2::ErrorRepeatOp: what = "invalid nested repetition operator"; break;
    case RE2::ErrorBadPerlOp: what = "invalid or unsupported Perl syntax"; break;
    case RE2::ErrorBadUTF8: what = "invalid UTF-8"; break;
    case RE2::ErrorBadNamedCapture: what = "invalid named capture"; break;
    case RE2::ErrorPatternTooLarge: what = "expression too large"; break;
    default: break;
  }
  return "error parsing regexp: " + what + ": `" + arg + "`";
}

}  // namespace

bool priority_group_matches(const std::string& group_id, const std::vector<std::string>& patterns) {
  for (const auto& pattern : patterns) {
    if (regexp_limit_error(pattern)) continue;  // refused by check_priority_regexps as well
    // A rule that does not compile (parse_priority_config rejects such configs; a hand-built
    // config) matches nothing.
    RE2 re(pattern, go_options());
    if (re.ok() && RE2::PartialMatch(group_id, re)) return true;
  }
  return false;
}

std::optional<std::string> check_priority_regexps(const PriorityConfig& config) {
  // Go ranges over the map in random order; std::map's order reports the lowest priority first.
  for (const auto& [prio, patterns] : config)
    for (const auto& re : patterns) {
      if (auto limit = regexp_limit_error(re))
        return "Can't compile regexp rule for priority " + std::to_string(prio) + " and rule " + re + ": " + *limit;
      RE2 compiled(re, go_options());
      if (!compiled.ok())
        return "Can't compile regexp rule for priority " + std::to_string(prio) + " and rule " + re + ": " +
               go_regexp_error(compiled.error_code(), compiled.error_arg());
    }
  return std::nullopt;
}

std::vector<ExpansionOption> filter_priority(const std::vector<ExpansionOption>& options, const PriorityConfig& priorities) {
  // expander/priority BestOptions: the options matched by the highest priority any option
  // matches; nothing matched at all -> no options filtered.
  for (auto it = priorities.rbegin(); it != priorities.rend(); ++it) {
    std::vector<ExpansionOption> matched;
    for (const auto& o : options)
      if (priority_group_matches(o.group_id, it->second)) matched.push_back(o);
    if (!matched.empty()) return matched;
  }
  return options;
}

int choose_option(const std::vector<ExpansionOption>& options, const std::vector<Expander>& chain,
                  const PriorityConfig& priorities, engine::Rng& rng, std::vector<std::string>* priority_unmatched) {
  if (options.empty()) return -1;
  std::vector<ExpansionOption> remaining = options;
  for (Expander name : chain) {
    if (name == Expander::LeastWaste) remaining = filter_least_waste(remaining);
    else if (name == Expander::MostPods) remaining = filter_most_pods(remaining);
    else if (name == Expander::Price) remaining = filter_price(remaining);
    else if (name == Expander::Priority) {
      if (priority_unmatched)
        for (const auto& o : remaining) {
          bool found = std::any_of(priorities.begin(), priorities.end(),
                                   [&](const auto& kv) { return priority_group_matches(o.group_id, kv.second); });
          if (!found) priority_unmatched->push_back(o.group_id);
        }
      remaining = filter_priority(remaining, priorities);
    }
    // "random" filters nothing: the final step below is random anyway.
    if (remaining.size() <= 1) break;
  }
  std::size_t pick = 0;
  if (remaining.size() > 1) pick = static_cast<std::size_t>(rng.below(remaining.size()));
  const std::string& id = remaining[pick].group_id;
  for (std::size_t i = 0; i < options.size(); ++i)
    if (options[i].group_id == id) return static_cast<int>(i);
  return 0;
}

}  // namespace eksim::autoscaling::cas
