// The hand-written matchers that replaced std::regex (issue 17): the same accepted set as the
// Kubernetes and YAML 1.1 expressions, checked against std::regex on every short string over
// the characters that matter, and no stack overflow on 40,000-character values.
#include "sim/scenario/k8s_syntax.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <regex>
#include <string>

#include "sim/scenario/k8s_manifest.hpp"

namespace eksim::scenario {
namespace {

// Every string of length 0..max_len over alphabet.
void for_all_strings(const std::string& alphabet, std::size_t max_len, const std::function<void(const std::string&)>& fn) {
  std::string s;
  std::function<void()> rec = [&] {
    fn(s);
    if (s.size() == max_len) return;
    for (char c : alphabet) {
      s.push_back(c);
      rec();
      s.pop_back();
    }
  };
  rec();
}

void expect_same_as_regex(const char* pattern, const std::string& alphabet, std::size_t max_len,
                          bool (*matcher)(std::string_view)) {
  const std::regex re(pattern);
  for_all_strings(alphabet, max_len, [&](const std::string& s) {
    EXPECT_EQ(matcher(s), std::regex_match(s, re)) << pattern << " on \"" << s << "\"";
  });
}

TEST(K8sSyntax, NamesMatchTheKubernetesExpressions) {
  expect_same_as_regex("[a-z0-9]([-a-z0-9]*[a-z0-9])?", "a0-.A_", 5, syntax::dns1123_label);
  expect_same_as_regex("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*", "a0-.A", 5,
                       syntax::dns1123_subdomain);
  expect_same_as_regex("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]", "aA0-_./", 5, syntax::qualified_name_part);
  expect_same_as_regex("(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?", "aA0-_. ", 5, syntax::label_value);
}

TEST(K8sSyntax, YamlScalarsMatchTheYaml11Expressions) {
  expect_same_as_regex("[-+]?(0b[01_]+|0x[0-9a-fA-F_]+|[0-9][0-9_]*)", "01b_x+-f", 5, syntax::yaml_int);
  expect_same_as_regex("[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?|[-+]?\\.(inf|Inf|INF)|\\.(nan|NaN|NAN)",
                       "1.e-+", 5, syntax::yaml_float);
  for (const char* s : {".inf", "-.inf", "+.Inf", ".INF", ".nan", ".NaN", ".NAN"}) EXPECT_TRUE(syntax::yaml_float(s)) << s;
  for (const char* s : {"-.nan", "+.nan", ".Nan", "inf", "nan"}) EXPECT_FALSE(syntax::yaml_float(s)) << s;
}

TEST(K8sSyntax, QuantitySplitMatchesTheApiServerExpression) {
  const std::regex re("^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$");
  for_all_strings("1.-Mie", 5, [&](const std::string& s) {
    std::smatch m;
    std::string_view number;
    bool ours = syntax::quantity_parts(s, &number, nullptr);
    ASSERT_EQ(ours, std::regex_match(s, m, re)) << s;
    if (ours) {
      EXPECT_EQ(std::string(number), m[1].str()) << s;
    }
  });
}

TEST(K8sSyntax, HugeValuesGetTheKubernetesErrorsWithoutRecursion) {
  const std::string huge(40000, 'a');
  EXPECT_EQ(label_value_errors(huge), std::vector<std::string>{"must be no more than 63 characters"});
  EXPECT_EQ(dns1123_label_errors(huge), std::vector<std::string>{"must be no more than 63 characters"});
  EXPECT_EQ(dns1123_subdomain_errors(huge), std::vector<std::string>{"must be no more than 253 characters"});
  EXPECT_EQ(qualified_name_errors(huge), std::vector<std::string>{"name part must be no more than 63 characters"});
  EXPECT_TRUE(syntax::yaml_int(std::string(40000, '7')));
  EXPECT_TRUE(syntax::yaml_float(std::string(40000, '7') + ".5"));
  EXPECT_FALSE(syntax::dns1123_subdomain(huge + "-"));
}

}  // namespace
}  // namespace eksim::scenario
