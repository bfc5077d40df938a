#pragma once
// Records a long run will not change again, moved out of memory into anonymous temporary files
// while the run goes, so that a simulated week's memory follows the live state and not its
// history. A record is an index and the bytes its owner encoded (RecordWriter, RecordReader);
// the engine knows nothing of what they hold. Reading them back yields them in index order.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace eksim::engine {

class RecordSpill {
 public:
  RecordSpill();  // opens the temporary files; ok() says whether it could
  ~RecordSpill();
  RecordSpill(const RecordSpill&) = delete;
  RecordSpill& operator=(const RecordSpill&) = delete;
  bool ok() const { return in_order_ && late_; }

  // A record at `index`. write_in_order takes increasing indexes (the old end of a series as it
  // is let go); write_late any index below those already written in order (a record its owner
  // held on to and has now let go).
  void write_in_order(std::size_t index, std::string_view bytes);
  void write_late(std::size_t index, std::string_view bytes);

  // Every record in order of index. Reading leaves the files ready for further writes.
  void for_each(const std::function<void(std::size_t index, std::string_view bytes)>& fn) const;

 private:
  std::FILE* in_order_ = nullptr;
  std::FILE* late_ = nullptr;
  std::size_t late_count_ = 0;
};

// Native byte order: the files live only as long as the process that wrote them.
struct RecordWriter {
  std::string& out;
  template <typename T>
  void put(T v) {
    char bytes[sizeof v];
    std::memcpy(bytes, &v, sizeof v);
    out.append(bytes, sizeof v);
  }
  void put_string(std::string_view s) {
    put(static_cast<std::uint32_t>(s.size()));
    out.append(s);
  }
};

// Reads what a RecordWriter wrote; a read past the end throws (a record cut short is a bug).
struct RecordReader {
  std::string_view in;
  template <typename T>
  T get() {
    T v;
    take(&v, sizeof v);
    return v;
  }
  std::string get_string() {
    const auto n = get<std::uint32_t>();
    std::string s(n, '\0');
    take(s.data(), n);
    return s;
  }

 private:
  void take(void* to, std::size_t n);
};

}  // namespace eksim::engine
