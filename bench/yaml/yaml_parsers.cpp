// Which YAML parser should eksim read scenarios with? Issue 17 asked to either keep yaml-cpp 0.7
// (Debian 12) off its broken paths or move to libfyaml 0.7.12 or libyaml 0.2.5, measuring load
// time and error locations on the shipped scenarios. This program measures both:
//
//   yaml_parsers FILE...      (bench/yaml/run passes every shipped scenario and fleet file)
//
// 1. Load time: every file parsed into a tree by each parser (min of 7 rounds over all files):
//    yaml-cpp's LoadAll, eksim's parse_yaml_documents (its event pre-pass, then LoadAll),
//    libfyaml's document loader and libyaml's document loader.
// 2. Error locations: the malformed inputs users write (and the fuzz campaign's), with the
//    line:column and message each parser reports, or "accepted".
#include <libfyaml.h>
#include <yaml.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "sim/scenario/input_error.hpp"
#include "sim/scenario/yaml_documents.hpp"

namespace {

struct Outcome {
  bool ok = true;
  std::string where_what;  // "L:C: message" on error
};

Outcome yaml_cpp(const std::string& text) {
  try {
    auto docs = YAML::LoadAll(text);
    return {true, std::to_string(docs.size()) + " document(s)"};
  } catch (const YAML::Exception& e) {
    return {false, std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) + ": " + e.msg};
  }
}

Outcome eksim_reader(const std::string& text) {
  try {
    auto docs = eksim::scenario::parse_yaml_documents(text, "f.yaml");
    return {true, std::to_string(docs.size()) + " document(s)"};
  } catch (const eksim::scenario::InputError& e) {
    std::string m = e.what();
    return {false, m.rfind("f.yaml:", 0) == 0 ? m.substr(7) : m};
  }
}

Outcome libfyaml(const std::string& text) {
  fy_diag_cfg dcfg;
  fy_diag_cfg_default(&dcfg);
  dcfg.fp = nullptr;
  dcfg.output_fn = [](fy_diag*, void*, const char*, size_t) {};
  fy_diag* diag = fy_diag_create(&dcfg);
  fy_diag_set_collect_errors(diag, true);
  fy_parse_cfg cfg{};
  cfg.flags = static_cast<fy_parse_cfg_flags>(FYPCF_QUIET | FYPCF_COLLECT_DIAG);
  cfg.diag = diag;
  fy_parser* p = fy_parser_create(&cfg);
  fy_parser_set_string(p, text.data(), text.size());
  int docs = 0;
  while (fy_document* d = fy_parse_load_document(p)) {
    ++docs;
    fy_parse_document_destroy(p, d);
  }
  Outcome o{true, std::to_string(docs) + " document(s)"};
  void* it = nullptr;
  if (fy_parser_get_stream_error(p) || fy_diag_got_error(diag)) {
    o.ok = false;
    o.where_what = "error (no location collected)";
    if (const fy_diag_error* e = fy_diag_errors_iterate(diag, &it))
      o.where_what = std::to_string(e->line + 1) + ":" + std::to_string(e->column + 1) + ": " + e->msg;
  }
  fy_parser_destroy(p);
  fy_diag_destroy(diag);
  return o;
}

Outcome libyaml(const std::string& text) {
  yaml_parser_t p;
  yaml_parser_initialize(&p);
  yaml_parser_set_input_string(&p, reinterpret_cast<const unsigned char*>(text.data()), text.size());
  Outcome o{true, ""};
  int docs = 0;
  while (true) {
    yaml_document_t d;
    if (!yaml_parser_load(&p, &d)) {
      o.ok = false;
      o.where_what = std::to_string(p.problem_mark.line + 1) + ":" + std::to_string(p.problem_mark.column + 1) + ": " +
                     (p.problem ? p.problem : "?") + (p.context ? std::string(" ") + p.context : "");
      break;
    }
    bool end = yaml_document_get_root_node(&d) == nullptr;
    yaml_document_delete(&d);
    if (end) break;
    ++docs;
  }
  if (o.ok) o.where_what = std::to_string(docs) + " document(s)";
  yaml_parser_delete(&p);
  return o;
}

struct Parser {
  const char* name;
  std::function<Outcome(const std::string&)> parse;
};

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<Parser> parsers{{"yaml-cpp 0.7 LoadAll", yaml_cpp},
                                    {"eksim (pre-pass + yaml-cpp)", eksim_reader},
                                    {"libfyaml 0.7.12", libfyaml},
                                    {"libyaml 0.2.5", libyaml}};
  std::vector<std::string> texts;
  std::size_t bytes = 0;
  for (int i = 1; i < argc; ++i) {
    texts.push_back(read(argv[i]));
    bytes += texts.back().size();
  }
  std::printf("## Load time: %zu files, %zu bytes, min of 7 rounds\n\n", texts.size(), bytes);
  std::printf("| parser | ms for all files | MB/s | vs yaml-cpp | files refused |\n|---|---|---|---|---|\n");
  double base = 0;
  for (const auto& parser : parsers) {
    double best = 1e300;
    int refused = 0;
    for (int round = 0; round < 7; ++round) {
      refused = 0;
      auto t0 = std::chrono::steady_clock::now();
      for (const auto& t : texts) refused += !parser.parse(t).ok;
      best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    if (base == 0) base = best;
    std::printf("| %s | %.2f | %.1f | %.2f | %d |\n", parser.name, best, static_cast<double>(bytes) / 1e3 / best,
                best / base, refused);
  }

  struct Case {
    const char* what;
    std::string text;
    bool hangs_yaml_cpp = false;
  };
  std::string deep;
  for (int i = 0; i < 600; ++i) deep += "[";
  std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'j'; ++c)
    bomb += std::string(1, c) + ": &" + c + " [*" + char(c - 1) + ", *" + char(c - 1) + ", *" + char(c - 1) + ", *" +
            char(c - 1) + ", *" + char(c - 1) + ", *" + char(c - 1) + ", *" + char(c - 1) + ", *" + char(c - 1) + ", *" +
            char(c - 1) + ", *" + char(c - 1) + "]\n";
  const std::vector<Case> cases{
      {"bad indentation", "cluster:\n  name: a\n   region: b\n"},
      {"unclosed quote", "cluster:\n  name: \"a\n  region: b\n"},
      {"tab indentation", "cluster:\n\tname: a\n"},
      {"unclosed flow map", "nodeGroups: {gpu: {min: 1}\nworkloads: []\n"},
      {"stray comma after a document (yaml-cpp #1040)", "a: 1\n,\n", true},
      {"stray '{...},' in JSON (yaml-cpp #1040)", "{\"a\": 1},\n", true},
      {"duplicate key", "nodeGroups:\n  gpu: {min: 1}\n  gpu: {min: 2}\n"},
      {"undefined alias", "a: *nope\n"},
      {"alias inside its own anchor", "values: &x {a: *x}\n"},
      {"alias bomb (10^10 nodes)", bomb},
      {"600 nested lists", deep},
  };
  std::printf("\n## Error locations\n\n| input | %s | %s | %s | %s |\n|---|---|---|---|---|\n", parsers[0].name,
              parsers[1].name, parsers[2].name, parsers[3].name);
  for (const auto& c : cases) {
    std::printf("| %s |", c.what);
    for (std::size_t k = 0; k < parsers.size(); ++k) {
      std::string cell;
      if (c.hangs_yaml_cpp && k == 0) cell = "not run: allocates without end";
      else {
        Outcome o = parsers[k].parse(c.text);
        cell = o.ok ? "accepted (" + o.where_what + ")" : o.where_what;
      }
      for (auto& ch : cell)
        if (ch == '|' || ch == '\n') ch = ' ';
      std::printf(" %s |", cell.c_str());
    }
    std::printf("\n");
  }
  return 0;
}
