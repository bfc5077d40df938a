#pragma once
// Reading the files a scenario names (the scenario itself, included files, manifests, CSV traces,
// price files, sweep plans and result files). Only regular files are read: a FIFO would block the
// run forever, /dev/zero or /dev/urandom would never end, and a directory holds no text.
#include <string>

#include "sim/scenario/input_error.hpp"

namespace eksim::scenario {

// The whole text of the regular file at path. Anything else is an InputError at `at`: a missing
// file ("no such file"), a directory, a FIFO, a device or a socket ("is a FIFO, not a regular
// file"), or a file the process may not read (the system's reason).
std::string read_input_file(const std::string& path, const Location& at);

}  // namespace eksim::scenario
