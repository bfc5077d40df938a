#include "sim/engine/event_spill.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace eksim::engine {

namespace {

// A record: index, time, last_time (8 bytes each), count (4), type (1), then reason, object kind,
// namespace, name, message and source, each as a 4-byte length and its bytes. Native byte order:
// the file lives only as long as the process that wrote it.
template <typename T>
void put(std::string& out, T v) {
  char bytes[sizeof v];
  std::memcpy(bytes, &v, sizeof v);
  out.append(bytes, sizeof v);
}
void put_string(std::string& out, const std::string& s) {
  put(out, static_cast<std::uint32_t>(s.size()));
  out += s;
}

void encode(std::string& out, std::size_t index, const Event& e) {
  put(out, static_cast<std::uint64_t>(index));
  put(out, e.time.us);
  put(out, e.last_time.us);
  put(out, static_cast<std::int32_t>(e.count));
  put(out, static_cast<std::uint8_t>(e.type));
  put_string(out, e.reason);
  put_string(out, e.object.kind);
  put_string(out, e.object.ns);
  put_string(out, e.object.name);
  put_string(out, e.message);
  put_string(out, e.source);
}

void write_all(std::FILE* f, const std::string& bytes) {
  if (std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size())
    throw std::runtime_error("cannot write the event spill file (is the temporary directory full?)");
}

// Reads records back from the start of a file, then leaves it positioned at its end.
class Reader {
 public:
  explicit Reader(std::FILE* f) : f_(f) {
    std::fflush(f_);
    std::rewind(f_);
  }
  ~Reader() { std::fseek(f_, 0, SEEK_END); }
  bool next(std::size_t& index, Event& e) {
    std::uint64_t i;
    if (!get(i)) return false;
    index = static_cast<std::size_t>(i);
    std::int32_t count;
    std::uint8_t type;
    if (!get(e.time.us) || !get(e.last_time.us) || !get(count) || !get(type) || !get_string(e.reason) ||
        !get_string(e.object.kind) || !get_string(e.object.ns) || !get_string(e.object.name) ||
        !get_string(e.message) || !get_string(e.source))
      throw std::runtime_error("the event spill file was cut short");
    e.count = count;
    e.type = static_cast<EventType>(type);
    return true;
  }

 private:
  template <typename T>
  bool get(T& v) {
    return std::fread(&v, sizeof v, 1, f_) == 1;
  }
  bool get_string(std::string& s) {
    std::uint32_t n;
    if (!get(n)) return false;
    s.resize(n);
    return n == 0 || std::fread(s.data(), 1, n, f_) == n;
  }
  std::FILE* f_;
};

// A file in $TMPDIR (else /tmp) that is gone from the directory as soon as it is open, so nothing
// is left behind however the process ends. (glibc's tmpfile() ignores TMPDIR.)
std::FILE* anonymous_temp_file() {
  const char* dir = std::getenv("TMPDIR");
  std::string path = std::string(dir && *dir ? dir : "/tmp") + "/eksim-events-XXXXXX";
  int fd = ::mkstemp(path.data());
  if (fd < 0) return nullptr;
  ::unlink(path.c_str());
  std::FILE* f = ::fdopen(fd, "w+b");
  if (!f) ::close(fd);
  return f;
}

}  // namespace

EventSpill::EventSpill() : in_order_(anonymous_temp_file()), late_(anonymous_temp_file()) {
  // Large stdio buffers: the files are written and read in long sequential runs.
  if (in_order_) std::setvbuf(in_order_, nullptr, _IOFBF, 1 << 20);
}

EventSpill::~EventSpill() {
  if (in_order_) std::fclose(in_order_);
  if (late_) std::fclose(late_);
}

void EventSpill::append(std::FILE* f, std::size_t index, const Event& e) {
  buffer_.clear();
  encode(buffer_, index, e);
  write_all(f, buffer_);
}

void EventSpill::write_in_order(std::size_t index, const Event& e) { append(in_order_, index, e); }

void EventSpill::write_late(std::size_t index, const Event& e) {
  append(late_, index, e);
  ++late_count_;
}

void EventSpill::for_each(const std::function<void(std::size_t, const Event&)>& fn) const {
  // The late ones are few (Events the correlator held on to past their spill): read them all,
  // sort them, and merge them into the in-order stream.
  std::vector<std::pair<std::size_t, Event>> late;
  late.reserve(late_count_);
  {
    Reader r(late_);
    std::size_t index;
    Event e;
    while (r.next(index, e)) late.emplace_back(index, std::move(e));
  }
  std::sort(late.begin(), late.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  auto next_late = late.begin();
  Reader r(in_order_);
  std::size_t index;
  Event e;
  while (r.next(index, e)) {
    for (; next_late != late.end() && next_late->first < index; ++next_late) fn(next_late->first, next_late->second);
    fn(index, e);
  }
  for (; next_late != late.end(); ++next_late) fn(next_late->first, next_late->second);
}

}  // namespace eksim::engine
