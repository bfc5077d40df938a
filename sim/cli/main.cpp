#include "sim/cli/app.hpp"

int main(int argc, char** argv) { return eksim::cli::main(argc, argv); }
