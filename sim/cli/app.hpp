#pragma once

namespace eksim::cli {
// The eksim program: parses the command line, runs the subcommand, returns the exit code
// (0 ok, 1 an expectation failed, 2 invalid input).
int main(int argc, char** argv);
}  // namespace eksim::cli
