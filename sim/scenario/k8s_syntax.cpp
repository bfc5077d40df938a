#include "sim/scenario/k8s_syntax.hpp"

namespace eksim::scenario::syntax {

namespace {

bool lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool alnum(char c) { return lower_alnum(c) || (c >= 'A' && c <= 'Z'); }
bool digit(char c) { return c >= '0' && c <= '9'; }
bool hex(char c) { return digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

template <class Pred>
bool all_of(std::string_view s, Pred p) {
  for (char c : s)
    if (!p(c)) return false;
  return true;
}

std::string_view drop_sign(std::string_view s) {
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  return s;
}

}  // namespace

bool dns1123_label(std::string_view s) {
  return !s.empty() && lower_alnum(s.front()) && lower_alnum(s.back()) &&
         all_of(s, [](char c) { return lower_alnum(c) || c == '-'; });
}

bool dns1123_subdomain(std::string_view s) {
  // Labels separated by single dots; each label as above.
  for (;;) {
    auto dot = s.find('.');
    if (!dns1123_label(s.substr(0, dot))) return false;
    if (dot == std::string_view::npos) return true;
    s.remove_prefix(dot + 1);
  }
}

bool qualified_name_part(std::string_view s) {
  return !s.empty() && alnum(s.front()) && alnum(s.back()) &&
         all_of(s, [](char c) { return alnum(c) || c == '-' || c == '_' || c == '.'; });
}

bool label_value(std::string_view s) { return s.empty() || qualified_name_part(s); }

bool yaml_int(std::string_view s) {
  s = drop_sign(s);
  if (s.size() > 2 && s[0] == '0' && s[1] == 'b')
    return all_of(s.substr(2), [](char c) { return c == '0' || c == '1' || c == '_'; });
  if (s.size() > 2 && s[0] == '0' && s[1] == 'x') return all_of(s.substr(2), [](char c) { return hex(c) || c == '_'; });
  return !s.empty() && digit(s[0]) && all_of(s, [](char c) { return digit(c) || c == '_'; });
}

bool yaml_float(std::string_view s) {
  if (s == ".nan" || s == ".NaN" || s == ".NAN") return true;
  s = drop_sign(s);
  if (s == ".inf" || s == ".Inf" || s == ".INF") return true;
  std::size_t i = 0, n = s.size();
  auto digits = [&] {
    std::size_t start = i;
    while (i < n && digit(s[i])) ++i;
    return i - start;
  };
  if (i < n && s[i] == '.') {  // \.[0-9]+
    ++i;
    if (digits() == 0) return false;
  } else {  // [0-9]+(\.[0-9]*)?
    if (digits() == 0) return false;
    if (i < n && s[i] == '.') {
      ++i;
      digits();
    }
  }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {  // ([eE][-+]?[0-9]+)?
    ++i;
    if (i < n && (s[i] == '-' || s[i] == '+')) ++i;
    if (digits() == 0) return false;
  }
  return i == n;
}

bool signed_decimal(std::string_view s) {
  s = drop_sign(s);
  return !s.empty() && all_of(s, digit);
}

bool quantity_parts(std::string_view s, std::string_view* number, std::string_view* suffix) {
  std::size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  std::size_t start = i;
  while (i < s.size() && (digit(s[i]) || s[i] == '.')) ++i;
  if (i == start) return false;  // [0-9.]+ needs one character
  std::size_t split = i;
  // [eEinumkKMGTP]*[-+]?[0-9]*
  auto suffix_letter = [](char c) { return std::string_view("eEinumkKMGTP").find(c) != std::string_view::npos; };
  while (i < s.size() && suffix_letter(s[i])) ++i;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  while (i < s.size() && digit(s[i])) ++i;
  if (i != s.size()) return false;
  if (number) *number = s.substr(0, split);
  if (suffix) *suffix = s.substr(split);
  return true;
}

}  // namespace eksim::scenario::syntax
