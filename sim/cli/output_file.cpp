#include "sim/cli/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "sim/scenario/input_error.hpp"
#include "sim/scenario/input_file.hpp"

namespace eksim::cli {

namespace {
[[noreturn]] void cannot_write(const std::string& path, const std::string& why) {
  throw scenario::InputError(scenario::Location{}, "cannot write \"" + path + "\"" + (why.empty() ? "" : ": " + why));
}

[[noreturn]] void cannot_write(const std::string& path) {
  // errno still holds the reason the stream failed (ENOENT for a missing directory, ...).
  cannot_write(path, errno ? std::strerror(errno) : std::string());
}

// Writes all of text to fd, or says why not.
void write_all(int fd, const std::string& text, const std::string& path) {
  std::size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      cannot_write(path);
    }
    done += static_cast<std::size_t>(n);
  }
}

// Creates PATH.tmp for writing. A stale regular PATH.tmp (an interrupted earlier run) is
// removed first; anything else by that name (a FIFO, a directory, a symlink) is left alone and
// refused, since O_EXCL never opens or follows an existing entry.
int create_temporary(const std::string& tmp) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) return fd;
    struct stat st {};
    if (errno != EEXIST || ::lstat(tmp.c_str(), &st) != 0) cannot_write(tmp);
    if (!S_ISREG(st.st_mode)) cannot_write(tmp, "exists and is not a regular file");
    if (::unlink(tmp.c_str()) != 0) cannot_write(tmp);
  }
  cannot_write(tmp, "exists");
}
}  // namespace

void refuse_input_as_output(const std::string& path) {
  if (scenario::is_input_file(path)) cannot_write(path, "it is an input of this run; write the output elsewhere");
}

void write_output_file(const std::string& path, const std::string& text) {
  write_output_file(path, [&text](const std::function<void(std::string_view)>& out) { out(text); });
}

void write_output_file(const std::string& path,
                       const std::function<void(const std::function<void(std::string_view)>&)>& produce) {
  // Plain descriptors, not a std::ofstream: a stream's failure shows only once its buffer is
  // flushed at the close, after the text has been "written" (/dev/full, a full disk, a quota), and
  // then without the reason. Every write and the close are checked here, with errno's reason.
  refuse_input_as_output(path);
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0666);
  if (fd < 0) cannot_write(path);
  std::string buffer;
  constexpr std::size_t kChunk = 1 << 16;
  try {
    produce([&](std::string_view piece) {
      buffer.append(piece);
      if (buffer.size() >= kChunk) {
        write_all(fd, buffer, path);
        buffer.clear();
      }
    });
    write_all(fd, buffer, path);
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::close(fd) != 0) cannot_write(path);
}

bool is_output_stream(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode));
}

void replace_output_file(const std::string& path, const std::string& text) {
  if (path.empty()) cannot_write(path, "no such file");
  refuse_input_as_output(path);
  struct stat st {};
  bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) cannot_write(path, "is a directory");
  if (exists && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))) return write_output_file(path, text);
  if (exists && !S_ISREG(st.st_mode)) cannot_write(path, "is not a regular file, a FIFO or a character device");
  // Rename over the file a symlink points at, not over the symlink: the link is the user's.
  std::error_code ec;
  std::string target = exists ? std::filesystem::canonical(path, ec).string() : path;
  if (ec) cannot_write(path, ec.message());
  std::string tmp = target + ".tmp";
  int fd = create_temporary(tmp);
  auto give_up = [&] {
    int why = errno;
    ::unlink(tmp.c_str());
    errno = why;
    cannot_write(path);
  };
  try {
    write_all(fd, text, tmp);
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  if (exists) ::fchmod(fd, st.st_mode & 07777);  // keep the replaced file's permissions
  if (::close(fd) != 0) give_up();
  if (::rename(tmp.c_str(), target.c_str()) != 0) give_up();
}

}  // namespace eksim::cli
