#pragma once
#include <functional>
#include <string>
#include <string_view>

namespace eksim::cli {
// Every output file of the program goes through here. A write that fails, at any write or at the
// close, is an input error with the system's reason ("error: cannot write \"/dev/full\": No space
// left on device", exit 2), never a silent exit 0; and a file this process read as an input (the
// scenario, a manifest, a sweep plan; scenario::is_input_file) is never replaced by an output.

// An input error if path is one of this run's inputs: called before a run, so that `run S --json
// S` fails before simulating anything, and again by every writer.
void refuse_input_as_output(const std::string& path);

// Writes text to path. The path is opened and truncated in place, so a FIFO or a device
// (/dev/null, /dev/stdout) is written as a stream and stays what it is.
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
