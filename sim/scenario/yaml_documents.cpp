#include "sim/scenario/yaml_documents.hpp"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <sstream>
#include <string_view>

#include "sim/scenario/input_error.hpp"
#include "sim/scenario/input_limits.hpp"

namespace eksim::scenario {

namespace {

bool is_json_file(const std::string& file) {
  return file.size() >= 5 && file.compare(file.size() - 5, 5, ".json") == 0;
}

std::string malformed(const std::string& file) { return is_json_file(file) ? "malformed JSON: " : "malformed YAML: "; }

std::string too_deep() {
  return "nesting deeper than " + std::to_string(kMaxNestingDepth) + " levels (counting through aliases)";
}

Location location_of(const YAML::Exception& e, const std::string& file) {
  return Location{file, e.mark.line + 1, e.mark.column + 1};
}

// yaml-cpp's exceptions as located errors; its messages repeat the position, keep the reason.
[[noreturn]] void rethrow_located(const YAML::Exception& e, const std::string& file) {
  throw InputError(location_of(e, file), malformed(file) + e.msg);
}
// yaml-cpp 0.7's depth guard says "bad file"; say what the limit is.
[[noreturn]] void rethrow_too_deep(const YAML::DeepRecursion& e, const std::string& file) {
  throw InputError(location_of(e, file), too_deep());
}

// The token that starts at pos, for messages: up to the next blank, at most 20 characters.
// One UTF-8 sequence at text[i]: its length, or 0 with the reader's complaint in *why (libyaml's
// and go-yaml's texts; the API server and kubectl decode YAML with go-yaml, which reads UTF-8 only).
std::size_t utf8_sequence(const std::string& text, std::size_t i, const char** why) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char c = byte(i);
  const std::size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
  if (len == 0) return (*why = "invalid leading UTF-8 octet"), 0;
  if (i + len > text.size()) return (*why = "incomplete UTF-8 octet sequence"), 0;
  std::uint32_t value = len == 1 ? c : len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
  for (std::size_t k = 1; k < len; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return (*why = "invalid trailing UTF-8 octet"), 0;
    value = (value << 6) | (byte(i + k) & 0x3F);
  }
  const bool overlong = (len == 2 && value < 0x80) || (len == 3 && value < 0x800) || (len == 4 && value < 0x10000);
  if (overlong) return (*why = "invalid length of a UTF-8 sequence"), 0;
  if ((value >= 0xD800 && value <= 0xDFFF) || value > 0x10FFFF) return (*why = "invalid Unicode character"), 0;
  return len;
}

std::string token_at(const std::string& text, int pos) {
  if (pos < 0 || static_cast<std::size_t>(pos) >= text.size()) return "";
  std::size_t end = static_cast<std::size_t>(pos) + 1;
  while (end < text.size() && end - pos < 20 && text[end] != ' ' && text[end] != '\n' && text[end] != '\r' &&
         text[end] != '\t' && text[end] != ',' && text[end] != ']' && text[end] != '}')
    ++end;
  return text.substr(static_cast<std::size_t>(pos), end - static_cast<std::size_t>(pos));
}

// Walks the parser's events keeping, for every open collection, its size and height with aliases
// expanded, so that the checks cost one pass and no tree.
class StructureCheck : public YAML::EventHandler {
 public:
  StructureCheck(const std::string& text, const std::string& file) : text_(text), file_(file) {}

  void OnDocumentStart(const YAML::Mark& mark) override {
    // A document that starts where the previous one did consumed nothing: the stray token that
    // sends yaml-cpp's LoadAll into an endless loop.
    if (last_doc_start_ && *last_doc_start_ == mark.pos)
      fail(mark, malformed(file_) + "unexpected \"" + token_at(text_, mark.pos) + "\" outside any mapping or sequence");
    last_doc_start_ = mark.pos;
    anchors_.clear();
    alias_nodes_ = 0;
    stack_.clear();
  }
  void OnDocumentEnd() override {}

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { leaf(mark, anchor, std::nullopt); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, const std::string& value) override {
    check_quote_closed(mark);
    check_escapes_decoded(mark, value);
    leaf(mark, anchor, value);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    if (anchor == 0 || anchor > anchors_.size()) return;  // yaml-cpp reports unknown anchors itself
    const Anchor& a = anchors_[anchor - 1];
    if (a.open) fail(mark, "alias " + token_at(text_, mark.pos) + " refers to a node that contains it (a cycle)");
    alias_nodes_ += a.nodes;
    if (alias_nodes_ > kMaxAliasExpandedNodes)
      fail(mark, "aliases expand this document to more than " + std::to_string(kMaxAliasExpandedNodes) +
                     " nodes (an alias bomb?)");
    complete(mark, a.nodes, a.height, a.scalar);
  }

  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    open(mark, anchor, false);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    open(mark, anchor, true);
  }
  void OnMapEnd() override { close(); }

 private:
  struct Anchor {
    bool open = true;
    std::uint64_t nodes = 1;
    int height = 1;
    std::optional<std::string> scalar;  // for an alias used as a key
  };
  struct Frame {
    YAML::Mark mark;
    YAML::anchor_t anchor = 0;
    bool is_map = false;
    bool expecting_key = true;
    std::uint64_t nodes = 1;
    int height = 1;
    std::map<std::string, int> keys;  // scalar key -> 1-based line of its first occurrence
  };

  // yaml-cpp 0.7 accepts a quoted scalar that the file ends inside (`name: "a` and nothing closes
  // it) and silently takes the rest of the file as its value; libyaml and libfyaml refuse it. The
  // closing quote is looked for once per quoted scalar, so the pass stays linear.
  void check_quote_closed(const YAML::Mark& mark) const {
    if (mark.pos < 0 || static_cast<std::size_t>(mark.pos) >= text_.size()) return;
    const char quote = text_[static_cast<std::size_t>(mark.pos)];
    if (quote != '"' && quote != '\'') return;
    for (std::size_t i = static_cast<std::size_t>(mark.pos) + 1; i < text_.size(); ++i) {
      if (quote == '"' && text_[i] == '\\') ++i;  // an escape, e.g. \"
      else if (text_[i] == quote && quote == '\'' && i + 1 < text_.size() && text_[i + 1] == '\'') ++i;  // '' is a quote
      else if (text_[i] == quote) return;
    }
    fail(mark, malformed(file_) + "illegal EOF in scalar: the quoted string that starts here is never closed");
  }

  // The text is UTF-8, so a scalar that is not came from an escape: yaml-cpp 0.7 decodes \N and \_
  // to the single bytes 0x85 and 0xA0 (not U+0085 and U+00A0), and \uD800-\uDFFF to surrogates,
  // which go-yaml refuses. Neither could be written back as JSON.
  void check_escapes_decoded(const YAML::Mark& mark, const std::string& value) const {
    for (std::size_t i = 0; i < value.size();) {
      const char* why = nullptr;
      const std::size_t len = utf8_sequence(value, i, &why);
      if (len == 0 && std::string_view(why) == "invalid Unicode character")
        fail(mark, malformed(file_) + "found invalid Unicode character escape code");
      if (len == 0) fail(mark, malformed(file_) + "the escapes \\N and \\_ are not supported here: write the character itself");
      i += len;
    }
  }

  [[noreturn]] void fail(const YAML::Mark& mark, const std::string& message) const {
    throw InputError(Location{file_, mark.line + 1, mark.column + 1}, message);
  }

  Anchor& anchor_slot(YAML::anchor_t anchor) {
    if (anchors_.size() < anchor) anchors_.resize(anchor);
    return anchors_[anchor - 1];
  }

  void leaf(const YAML::Mark& mark, YAML::anchor_t anchor, const std::optional<std::string>& scalar) {
    if (anchor) anchor_slot(anchor) = Anchor{false, 1, 1, scalar};
    complete(mark, 1, 1, scalar);
  }

  void open(const YAML::Mark& mark, YAML::anchor_t anchor, bool is_map) {
    if (anchor) anchor_slot(anchor) = Anchor{};
    Frame f;
    f.mark = mark;
    f.anchor = anchor;
    f.is_map = is_map;
    stack_.push_back(std::move(f));
  }

  void close() {
    Frame f = std::move(stack_.back());
    stack_.pop_back();
    if (f.anchor) anchor_slot(f.anchor) = Anchor{false, f.nodes, f.height, std::nullopt};
    complete(f.mark, f.nodes, f.height, std::nullopt);
  }

  // A node (leaf, alias or closed collection) of the given expanded size and height is done;
  // it belongs to the innermost open collection.
  void complete(const YAML::Mark& mark, std::uint64_t nodes, int height, const std::optional<std::string>& scalar) {
    if (height > kMaxNestingDepth)
      fail(mark, too_deep());
    if (stack_.empty()) return;
    Frame& parent = stack_.back();
    parent.nodes += nodes;
    parent.height = std::max(parent.height, height + 1);
    if (!parent.is_map) return;
    if (parent.expecting_key && scalar) {
      auto [it, inserted] = parent.keys.emplace(*scalar, mark.line + 1);
      if (!inserted)
        fail(mark, "mapping key \"" + *scalar + "\" already defined at line " + std::to_string(it->second));
    }
    parent.expecting_key = !parent.expecting_key;
  }

  const std::string& text_;
  const std::string& file_;
  std::optional<int> last_doc_start_;
  std::vector<Anchor> anchors_;
  std::uint64_t alias_nodes_ = 0;
  std::vector<Frame> stack_;
};

// Text that is not UTF-8 is refused where the reader would stop, before yaml-cpp (which passes
// bytes through) hands strings on that the JSON written for kubectl could not hold.
void check_utf8(const std::string& text, const std::string& file) {
  int line = 1, column = 1;
  for (std::size_t i = 0; i < text.size();) {
    const char* why = nullptr;
    const std::size_t len = utf8_sequence(text, i, &why);
    if (len == 0) throw InputError(Location{file, line, column}, malformed(file) + why);
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
    i += len;
  }
}

void check_structure(const std::string& text, const std::string& file, bool first_only) {
  check_utf8(text, file);
  std::istringstream in(text);
  YAML::Parser parser(in);
  StructureCheck check(text, file);
  while (parser.HandleNextDocument(check))
    if (first_only) break;
}

}  // namespace

std::vector<YAML::Node> parse_yaml_documents(const std::string& text, const std::string& file) {
  try {
    check_structure(text, file, false);
    return YAML::LoadAll(text);
  } catch (const YAML::DeepRecursion& e) {
    rethrow_too_deep(e, file);
  } catch (const YAML::Exception& e) {
    rethrow_located(e, file);
  }
}

YAML::Node parse_yaml_document(const std::string& text, const std::string& file) {
  try {
    check_structure(text, file, true);
    return YAML::Load(text);
  } catch (const YAML::DeepRecursion& e) {
    rethrow_too_deep(e, file);
  } catch (const YAML::Exception& e) {
    rethrow_located(e, file);
  }
}

}  // namespace eksim::scenario
