#pragma once
#include <functional>
#include <string>
#include <string_view>

namespace eksim::cli {
// Writes text to path; a file that cannot be written is an input error ("error: cannot write").
// The path is opened and truncated in place, so a FIFO or a device (/dev/null, /dev/stdout) is
// written as a stream and stays what it is.
void write_output_file(const std::string& path, const std::string& text);
// Streams: `produce` is given a sink and writes the file's text through it piece by piece.
void write_output_file(const std::string& path,
                       const std::function<void(const std::function<void(std::string_view)>&)>& produce);

// Whether path names something that can only be written as a stream: a FIFO or a character
// device such as /dev/null (followed through symlinks). Such a target is never replaced.
bool is_output_stream(const std::string& path);

// Replaces the file at path with text so that a reader never sees half of it: the text goes to
// PATH.tmp beside it, which is then renamed over it. Only regular files (or a path that does not
// exist yet) are replaced this way; a symlink to a regular file keeps pointing at the new file.
// A stream (is_output_stream) is written in place; a directory or socket is an error.
void replace_output_file(const std::string& path, const std::string& text);
}  // namespace eksim::cli
