#pragma once
// The small CSV files a scenario names (workload traces, price files): comma-separated columns
// without quoting, one header line, blank lines and '#' comments skipped. Each data row comes with
// where its columns start, so that an error points at the column.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/scenario/input_error.hpp"

namespace eksim::scenario {

struct CsvRow {
  std::vector<std::string> cols;  // trimmed
  Location at(std::size_t col) const;

  std::string path;
  int line = 0;
  std::vector<int> starts;  // 1-based column of each field
};

// Reads `path` (opened relative to nothing: callers resolve it), checks that the first row is
// `header` (else "<what> starts with the header "..."" at that row, or at 1:1 for a file without
// rows) and calls `row` for every row after it. `from` locates a file that cannot be opened.
void read_csv_file(const std::string& path, const Location& from, std::string_view header, std::string_view what,
                   const std::function<void(const CsvRow&)>& row);

}  // namespace eksim::scenario
