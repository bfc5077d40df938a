// The pass over yaml-cpp's events that runs before any tree is built (issue 17): stray tokens,
// duplicate keys, alias cycles and alias bombs are located errors; ordinary YAML is untouched.
#include "sim/scenario/yaml_documents.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

#include "sim/scenario/input_error.hpp"
#include "sim/scenario/yaml_reader.hpp"

namespace eksim::scenario {
namespace {

std::string error_of(const std::string& text, const std::string& file = "f.yaml") {
  try {
    parse_yaml_documents(text, file);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(YamlDocuments, OrdinaryYamlLoadsAsLoadAllDoes) {
  auto docs = parse_yaml_documents("a: &x {b: 1}\nc: *x\n---\n---\n- [1, 2]\n", "f.yaml");
  ASSERT_EQ(docs.size(), 3u);
  EXPECT_EQ(docs[0]["c"]["b"].as<int>(), 1);
  EXPECT_TRUE(docs[1].IsNull());
  EXPECT_EQ(docs[2][0][1].as<int>(), 2);
  // The same key in different mappings, and anchors redefined in a later document, are fine.
  EXPECT_EQ(error_of("a: {k: 1}\nb: {k: 2}\n---\nx: &a 1\n---\ny: &a 2\n"), "no error");
}

// Bytes that are not UTF-8 stop the reader where go-yaml would, with its texts (a CRD holding one
// made the JSON kept for kubectl throw when it was written: fuzz_manifest).
TEST(YamlDocuments, TextThatIsNotUtf8IsLocatedAtTheBadByte) {
  EXPECT_EQ(error_of("a: b\nc: \xff\n"), "f.yaml:2:4: error: malformed YAML: invalid leading UTF-8 octet");
  EXPECT_EQ(error_of("a: \xc3"), "f.yaml:1:4: error: malformed YAML: incomplete UTF-8 octet sequence");
  EXPECT_EQ(error_of("a: \xc3("), "f.yaml:1:4: error: malformed YAML: invalid trailing UTF-8 octet");
  EXPECT_EQ(error_of("a: \xc0\xaf"), "f.yaml:1:4: error: malformed YAML: invalid length of a UTF-8 sequence");
  EXPECT_EQ(error_of("a: \xed\xa0\x80"), "f.yaml:1:4: error: malformed YAML: invalid Unicode character");
  EXPECT_EQ(error_of("{\"a\": \"\xfe\"}", "f.json"), "f.json:1:8: error: malformed JSON: invalid leading UTF-8 octet");
  // Multi-byte characters count as one column; valid text of every length passes.
  EXPECT_EQ(error_of("a: \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 \xff"), "f.yaml:1:8: error: malformed YAML: invalid leading UTF-8 octet");
  EXPECT_EQ(error_of("name: caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\n"), "no error");
  EXPECT_THROW(parse_yaml_document("a: \xff\n", "f.yaml"), InputError);
}

// yaml-cpp decodes \N and \_ to lone bytes; a scalar holding one is refused where it starts.
// Escapes that decode to UTF-8 (\x85 is U+0085) load.
TEST(YamlDocuments, EscapesYamlCppDecodesToBytesAreLocated) {
  EXPECT_EQ(error_of("a: 1\nb: \"x\\Ny\"\n"),
            "f.yaml:2:4: error: malformed YAML: the escapes \\N and \\_ are not supported here: write the character itself");
  EXPECT_EQ(error_of("b: \"\\_\"\n"),
            "f.yaml:1:4: error: malformed YAML: the escapes \\N and \\_ are not supported here: write the character itself");
  const auto docs = parse_yaml_documents("a: \"\\x85\\u00e9\"\n", "f.yaml");
  EXPECT_EQ(docs[0]["a"].as<std::string>(), "\xc2\x85\xc3\xa9");
  EXPECT_NE(error_of("a: \"\\ud800\"\n"), "no error");
}

TEST(YamlDocuments, StrayTokenThatMakesLoadAllLoopIsLocated) {
  EXPECT_EQ(error_of("{x: 1},\n"), "f.yaml:1:7: error: malformed YAML: unexpected \",\" outside any mapping or sequence");
  EXPECT_EQ(error_of("a: 1\n---\n[1],\n"), "f.yaml:3:4: error: malformed YAML: unexpected \",\" outside any mapping or sequence");
  EXPECT_EQ(error_of("{\"a\": 1},", "f.json"), "f.json:1:9: error: malformed JSON: unexpected \",\" outside any mapping or sequence");
  EXPECT_EQ(parse_yaml_document("{x: 1},\n", "f.yaml")["x"].as<int>(), 1);  // Load reads one document: no loop
}

// yaml-cpp 0.7 takes the rest of the file as the value of a quote nothing closes (bench/yaml/run
// found it); libyaml and libfyaml refuse it, and so does eksim, at the opening quote.
TEST(YamlDocuments, QuoteTheFileEndsInsideIsLocatedAtItsStart) {
  EXPECT_EQ(error_of("cluster:\n  name: \"a\n  region: b\n"),
            "f.yaml:2:9: error: malformed YAML: illegal EOF in scalar: the quoted string that starts here is never closed");
  EXPECT_EQ(error_of("a: 'it''s\n"),
            "f.yaml:1:4: error: malformed YAML: illegal EOF in scalar: the quoted string that starts here is never closed");
  // Closed quotes, escaped quotes and quoted keys are untouched.
  EXPECT_EQ(error_of("\"k\\\"\": \"a \\\" b\"\nb: 'it''s'\nc: [\"x\", 'y']\n"), "no error");
  EXPECT_EQ(parse_yaml_document("a: \"x\\\"y\"\n", "f.yaml")["a"].as<std::string>(), "x\"y");
}

TEST(YamlDocuments, DuplicateKeysAreLocatedAtTheSecond) {
  EXPECT_EQ(error_of("a: 1\nb:\n  c: 1\n  c: 2\n"), "f.yaml:4:3: error: mapping key \"c\" already defined at line 3");
  EXPECT_EQ(error_of("{\"a\": 1,\n \"a\": 2}", "f.json"), "f.json:2:2: error: mapping key \"a\" already defined at line 1");
  // A key written through an alias is the anchored scalar.
  EXPECT_EQ(error_of("&n name: 1\n*n : 2\n"), "f.yaml:2:1: error: mapping key \"name\" already defined at line 1");
  EXPECT_EQ(error_of("x: 1\n---\nx: 2\n"), "no error");
}

TEST(YamlDocuments, AliasCyclesAndBombsAreLocated) {
  EXPECT_EQ(error_of("values: &x {a: *x}\n"), "f.yaml:1:16: error: alias *x refers to a node that contains it (a cycle)");
  EXPECT_EQ(error_of("- &s [1, [2, *s]]\n"), "f.yaml:1:14: error: alias *s refers to a node that contains it (a cycle)");
  // Six levels of ten aliases each: a million nodes from six lines.
  std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  const std::string names = "abcdef";
  for (std::size_t level = 1; level < names.size(); ++level) {
    std::string alias = std::string("*") + names[level - 1];
    std::string line = names.substr(level, 1) + ": &" + names.substr(level, 1) + " [" + alias;
    for (int i = 1; i < 10; ++i) line += ", " + alias;
    bomb += line + "]\n";
  }
  EXPECT_EQ(error_of(bomb), "f.yaml:5:36: error: aliases expand this document to more than 100000 nodes (an alias bomb?)");
  // A chain of aliases nests deeper than its text: each anchor wraps the one before.
  std::string chain = "a0: &a0 [x]\n";
  for (int i = 1; i <= 400; ++i) chain += fmt::format("a{0}: &a{0} [*a{1}]\n", i, i - 1);
  EXPECT_EQ(error_of(chain), "f.yaml:400:7: error: nesting deeper than 400 levels (counting through aliases)");
  // Literal nesting: this check below yaml-cpp's own guard, and that guard, give the same error.
  EXPECT_EQ(error_of(std::string(450, '[') + std::string(450, ']')), "f.yaml:1:50: error: nesting deeper than 400 levels (counting through aliases)");
  EXPECT_EQ(error_of(std::string(3000, '[') + std::string(3000, ']')), "f.yaml:1:1: error: nesting deeper than 400 levels (counting through aliases)");
}

TEST(YamlDocuments, KeysThatAreNotNamesAreLocatedErrors) {
  auto file = std::make_shared<const std::string>("f.yaml");
  Value v(parse_yaml_document("a: 1\n? [x, y]\n: 2\n", "f.yaml"), file);
  try {
    v.entries("a node group name");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "f.yaml:2:3: error: expected a node group name as key, got a sequence");
  }
  Value n(parse_yaml_document("~: 1\n", "f.yaml"), file);
  try {
    MapReader r(n, "cluster");
    r.finish();
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "f.yaml:1:1: error: expected a name as key, got null");
  }
}

}  // namespace
}  // namespace eksim::scenario
