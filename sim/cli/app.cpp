#include "sim/cli/app.hpp"

namespace eksim::cli {
int main(int, char**) { return 0; }
}  // namespace eksim::cli
