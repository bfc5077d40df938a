#include "sim/scenario/csv_file.hpp"

#include <algorithm>
#include <sstream>

#include "sim/scenario/input_file.hpp"

namespace eksim::scenario {

namespace {
std::string trim(std::string_view s) {
  auto b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return "";
  auto e = s.find_last_not_of(" \t\r");
  return std::string(s.substr(b, e - b + 1));
}
}  // namespace

Location CsvRow::at(std::size_t col) const { return Location{path, line, starts[std::min(col, starts.size() - 1)]}; }

void read_csv_file(const std::string& path, const Location& from, std::string_view header, std::string_view what,
                   const std::function<void(const CsvRow&)>& row) {
  std::istringstream in(read_input_file(path, from));
  const std::string header_error = std::string(what) + " starts with the header \"" + std::string(header) + "\"";
  std::string line;
  int line_no = 0;
  bool seen_header = false;
  CsvRow r;
  r.path = path;
  while (std::getline(in, line)) {
    ++line_no;
    const std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    r.line = line_no;
    r.cols.clear();
    r.starts.clear();
    std::size_t pos = 0;
    while (true) {
      auto comma = line.find(',', pos);
      r.cols.push_back(trim(std::string_view(line).substr(pos, comma == std::string::npos ? std::string::npos : comma - pos)));
      r.starts.push_back(static_cast<int>(pos) + 1);
      if (comma == std::string::npos) break;
      pos = comma + 1;
    }
    if (!seen_header) {
      if (t != header) throw InputError(r.at(0), header_error);
      seen_header = true;
      continue;
    }
    row(r);
  }
  if (!seen_header) throw InputError(Location{path, 1, 1}, header_error);
}

}  // namespace eksim::scenario
