#pragma once
// Which instance a timeline action means when it names one by position rather than by id.
#include <string>
#include <vector>

#include "models/aws/ec2.hpp"

namespace eksim::ops {

// "newest", "oldest" or N (0 = the first launched) among the candidates in launch order (ties by
// instance id, so the choice is deterministic); nullptr when there is no such instance. The
// loader has already checked that `which` is one of those forms.
const aws::Instance* pick_by_launch_order(std::vector<const aws::Instance*> candidates, const std::string& which);

}  // namespace eksim::ops
