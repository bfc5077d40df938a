#pragma once
// Reading the files a scenario names (the scenario itself, included files, manifests, CSV traces,
// price files, sweep plans and result files). Only regular files are read: a FIFO would block the
// run forever, /dev/zero or /dev/urandom would never end, and a directory holds no text.
#include <string>

#include "sim/scenario/input_error.hpp"

namespace eksim::scenario {

// What a file is read for. An Input is remembered (is_input_file), so that no output of the same
// process replaces it; an output read back to be extended (sweep --out with --resume) is not.
enum class InputRole { Input, OwnOutput };

// The whole text of the regular file at path. Anything else is an InputError at `at`: a missing
// file ("no such file"), a directory, a FIFO, a device or a socket ("is a FIFO, not a regular
// file"), or a file the process may not read (the system's reason).
std::string read_input_file(const std::string& path, const Location& at, InputRole role = InputRole::Input);

// Whether path names a file this process has read as an Input: by device and inode, so another
// spelling of the path, a symlink or a hard link to it is the same file.
bool is_input_file(const std::string& path);

}  // namespace eksim::scenario
