#include "sim/scenario/instance_pick.hpp"

#include <climits>

#include "sim/engine/numbers.hpp"

namespace eksim::scenario {

void check_instance_pick(const Value& v, const std::string& which) {
  if (which == "newest" || which == "oldest") return;
  bool digits = !which.empty() && which.find_first_not_of("0123456789") == std::string::npos;
  if (!digits) v.fail("instance is \"newest\", \"oldest\" or an index by launch order (0 = first), got \"" + which + "\"");
  // An index beyond int32 could never name an instance; refuse it rather than overflow.
  if (!engine::parse_integer<std::int32_t>(which).ok())
    v.fail("instance index " + which + " is out of range (at most " + std::to_string(INT32_MAX) + ")");
}

}  // namespace eksim::scenario
