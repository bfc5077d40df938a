#pragma once
// Rows as aligned text columns, two spaces apart, each line's trailing spaces trimmed: the
// tables eksim prints (eksim catalog, the sweep summary).
#include <string>
#include <vector>

namespace eksim::report {

// right_aligned[c]: column c is right-aligned (numbers); columns past its end are left-aligned.
// Every line ends with '\n'.
std::string aligned_rows(const std::vector<std::vector<std::string>>& rows, const std::vector<bool>& right_aligned = {});

}  // namespace eksim::report
