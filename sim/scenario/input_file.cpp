#include "sim/scenario/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>

namespace eksim::scenario {

namespace {

// What a path is, in the words `ls -l` and `stat` use, for a file that is not a regular one.
std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

[[noreturn]] void cannot_open(const std::string& path, const Location& at, const std::string& why) {
  throw InputError(at, "cannot open \"" + path + "\": " + why);
}

// Closes the descriptor however the read ends.
struct FdGuard {
  int fd;
  ~FdGuard() { ::close(fd); }
};

// The inputs read so far: (device, inode) -> the path it was read by. `eksim check --jobs` reads
// from several threads.
struct InputFiles {
  std::mutex mu;
  std::map<std::pair<dev_t, ino_t>, std::string> ids;
};

InputFiles& input_files() {
  static InputFiles files;
  return files;
}

}  // namespace

bool is_input_file(const std::string& path) {
  struct stat st {};
  if (path.empty() || ::stat(path.c_str(), &st) != 0) return false;
  std::string read_as;
  {
    InputFiles& files = input_files();
    std::lock_guard lock(files.mu);
    auto it = files.ids.find({st.st_dev, st.st_ino});
    if (it == files.ids.end()) return false;
    read_as = it->second;
  }
  // Still the same file by the path it was read by: an input deleted since (a test's temporary
  // file) may have left its inode number to a new, unrelated file.
  struct stat then {};
  return ::stat(read_as.c_str(), &then) == 0 && then.st_dev == st.st_dev && then.st_ino == st.st_ino;
}

std::string read_input_file(const std::string& path, const Location& at, InputRole role) {
  if (path.empty()) cannot_open(path, at, "no such file");
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer before fstat could
  // tell what it is. The type is checked on the open descriptor, so a path swapped between a
  // check and the open cannot slip through.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) cannot_open(path, at, errno == ENOENT || errno == ENOTDIR ? "no such file" : std::strerror(errno));
  FdGuard guard{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) cannot_open(path, at, std::strerror(errno));
  if (S_ISDIR(st.st_mode)) cannot_open(path, at, "is a directory");
  if (!S_ISREG(st.st_mode)) {
    std::string kind = kind_of(st.st_mode);
    cannot_open(path, at, kind == "not a regular file" ? "is not a regular file" : "is " + kind + ", not a regular file");
  }
  if (role == InputRole::Input) {
    InputFiles& files = input_files();
    std::lock_guard lock(files.mu);
    files.ids[{st.st_dev, st.st_ino}] = path;
  }
  // A regular file never blocks; clear O_NONBLOCK anyway so that read() has its plain meaning.
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  std::string text;
  if (st.st_size > 0) text.reserve(static_cast<std::size_t>(st.st_size));
  char buf[1 << 16];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      cannot_open(path, at, std::strerror(errno));
    }
    text.append(buf, static_cast<std::size_t>(n));
  }
  return text;
}

}  // namespace eksim::scenario
