// The JSON writer prints what nlohmann's dump(2) prints for the same document: the report's bytes
// did not change when it stopped building json values.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "sim/report/json_writer.hpp"

namespace eksim::report {
namespace {

using Json = nlohmann::ordered_json;

// Writes `doc` with JsonWriter, value by value.
void write(JsonWriter& w, const Json& doc) {
  switch (doc.type()) {
    case Json::value_t::object:
      w.begin_object();
      for (const auto& [k, v] : doc.items()) {
        w.key(k);
        write(w, v);
      }
      w.end_object();
      break;
    case Json::value_t::array:
      w.begin_array();
      for (const auto& v : doc) write(w, v);
      w.end_array();
      break;
    case Json::value_t::string: w.string(doc.get_ref<const std::string&>()); break;
    case Json::value_t::boolean: w.boolean(doc.get<bool>()); break;
    case Json::value_t::number_integer: w.integer(doc.get<std::int64_t>()); break;
    case Json::value_t::number_unsigned: w.unsigned_integer(doc.get<std::uint64_t>()); break;
    case Json::value_t::number_float: w.number(doc.get<double>()); break;
    default: w.null(); break;
  }
}

std::string written(const Json& doc) {
  std::string text;
  JsonWriter::Out out = [&text](std::string_view piece) { text += piece; };
  {
    JsonWriter w(out);
    write(w, doc);
    w.finish();
  }
  return text;
}

TEST(JsonWriter, PrintsWhatDumpTwoPrints) {
  Json doc = {
      {"schema", "eksim.report/v1"},
      {"seed", std::uint64_t{18446744073709551615u}},
      {"negative", -42},
      {"endTimeSeconds", 604800.0},
      {"times", {0.0, -0.0, 4.853856, 45006.232117, 1e21, 1.5e-7, 0.1, 123456789012345680.0, 1e-5}},
      {"escapes", "quote \" backslash \\ newline \n tab \t cr \r bell \x07 unit \x1f del \x7f"},
      {"utf8", "노드 그룹 ✓"},
      {"emptyObject", Json::object()},
      {"emptyArray", Json::array()},
      {"nested", {{"labels", {{"a", "1"}, {"b", "2"}}}, {"taints", Json::array({Json{{"key", "k"}}})}}},
      {"flags", {true, false, nullptr}},
  };
  EXPECT_EQ(written(doc), doc.dump(2) + "\n");
}

TEST(JsonWriter, NonFiniteNumbersPrintNullAsDumpDoes) {
  Json doc = {{"nan", std::nan("")}, {"inf", std::numeric_limits<double>::infinity()}};
  EXPECT_EQ(written(doc), doc.dump(2) + "\n");
  EXPECT_NE(written(doc).find("\"nan\": null"), std::string::npos);
}

TEST(JsonWriter, LongDocumentsReachTheOutputInPieces) {
  Json doc = Json::array();
  for (int i = 0; i < 20000; ++i) doc.push_back(Json{{"name", "pod-" + std::to_string(i)}, {"i", i}});
  std::string text;
  int pieces = 0;
  JsonWriter::Out out = [&](std::string_view piece) {
    text += piece;
    ++pieces;
  };
  {
    JsonWriter w(out);
    write(w, doc);
    w.finish();
  }
  EXPECT_EQ(text, doc.dump(2) + "\n");
  EXPECT_GT(pieces, 5);  // streamed, not one string at the end
}

}  // namespace
}  // namespace eksim::report
