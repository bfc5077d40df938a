#include "sim/engine/record_spill.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

namespace eksim::engine {

namespace {

// On disk a record is its index (8 bytes), its length (4) and its bytes.
void write_record(std::FILE* f, std::size_t index, std::string_view bytes) {
  const auto i = static_cast<std::uint64_t>(index);
  const auto n = static_cast<std::uint32_t>(bytes.size());
  if (std::fwrite(&i, sizeof i, 1, f) != 1 || std::fwrite(&n, sizeof n, 1, f) != 1 ||
      std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size())
    throw std::runtime_error("cannot write the spill file (is the temporary directory full?)");
}

// Reads records back from the start of a file, then leaves it positioned at its end.
class FileReader {
 public:
  explicit FileReader(std::FILE* f) : f_(f) {
    std::fflush(f_);
    std::rewind(f_);
  }
  ~FileReader() { std::fseek(f_, 0, SEEK_END); }
  bool next(std::size_t& index, std::string& bytes) {
    std::uint64_t i;
    if (std::fread(&i, sizeof i, 1, f_) != 1) return false;
    std::uint32_t n;
    if (std::fread(&n, sizeof n, 1, f_) != 1) throw std::runtime_error("the spill file was cut short");
    bytes.resize(n);
    if (n != 0 && std::fread(bytes.data(), 1, n, f_) != n) throw std::runtime_error("the spill file was cut short");
    index = static_cast<std::size_t>(i);
    return true;
  }

 private:
  std::FILE* f_;
};

// A file in $TMPDIR (else /tmp) that is gone from the directory as soon as it is open, so nothing
// is left behind however the process ends. (glibc's tmpfile() ignores TMPDIR.)
std::FILE* anonymous_temp_file() {
  const char* dir = std::getenv("TMPDIR");
  std::string path = std::string(dir && *dir ? dir : "/tmp") + "/eksim-spill-XXXXXX";
  int fd = ::mkstemp(path.data());
  if (fd < 0) return nullptr;
  ::unlink(path.c_str());
  std::FILE* f = ::fdopen(fd, "w+b");
  if (!f) ::close(fd);
  return f;
}

}  // namespace

void RecordReader::take(void* to, std::size_t n) {
  if (in.size() < n) throw std::runtime_error("a spilled record was cut short");
  std::memcpy(to, in.data(), n);
  in.remove_prefix(n);
}

RecordSpill::RecordSpill() : in_order_(anonymous_temp_file()), late_(anonymous_temp_file()) {
  // Large stdio buffers: the files are written and read in long sequential runs.
  if (in_order_) std::setvbuf(in_order_, nullptr, _IOFBF, 1 << 20);
}

RecordSpill::~RecordSpill() {
  if (in_order_) std::fclose(in_order_);
  if (late_) std::fclose(late_);
}

void RecordSpill::write_in_order(std::size_t index, std::string_view bytes) { write_record(in_order_, index, bytes); }

void RecordSpill::write_late(std::size_t index, std::string_view bytes) {
  write_record(late_, index, bytes);
  ++late_count_;
}

void RecordSpill::for_each(const std::function<void(std::size_t, std::string_view)>& fn) const {
  // The late ones are few (records held on to past their spill): read them all, sort them, and
  // merge them into the in-order stream.
  std::vector<std::pair<std::size_t, std::string>> late;
  late.reserve(late_count_);
  {
    FileReader r(late_);
    std::size_t index;
    std::string bytes;
    while (r.next(index, bytes)) late.emplace_back(index, std::move(bytes));
  }
  std::sort(late.begin(), late.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  auto next_late = late.begin();
  FileReader r(in_order_);
  std::size_t index;
  std::string bytes;
  while (r.next(index, bytes)) {
    for (; next_late != late.end() && next_late->first < index; ++next_late) fn(next_late->first, next_late->second);
    fn(index, bytes);
  }
  for (; next_late != late.end(); ++next_late) fn(next_late->first, next_late->second);
}

}  // namespace eksim::engine
