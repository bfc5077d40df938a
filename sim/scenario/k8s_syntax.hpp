#pragma once
// The regular expressions that Kubernetes validation and YAML 1.1 scalar resolution use, as
// hand-written matchers. std::regex_match recurses once per character, so a 30,000-character
// label value overflowed the stack; these loop, and accept exactly the same strings as the
// expressions quoted beside them.
#include <string_view>

namespace eksim::scenario::syntax {

// '[a-z0-9]([-a-z0-9]*[a-z0-9])?' (DNS-1123 label; the length is checked separately)
bool dns1123_label(std::string_view s);
// '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'
bool dns1123_subdomain(std::string_view s);
// '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]' (qualified name part)
bool qualified_name_part(std::string_view s);
// '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?' (label value)
bool label_value(std::string_view s);

// YAML 1.1 int as go-yaml v2 resolves it: '[-+]?(0b[01_]+|0x[0-9a-fA-F_]+|[0-9][0-9_]*)'
bool yaml_int(std::string_view s);
// YAML 1.1 float: '[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN)'
bool yaml_float(std::string_view s);
// '[-+]?[0-9]{1,18}'... without the length cap: a signed run of decimal digits.
bool signed_decimal(std::string_view s);

// The quantity split '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$': on a match, number and
// suffix receive the two groups.
bool quantity_parts(std::string_view s, std::string_view* number, std::string_view* suffix);

}  // namespace eksim::scenario::syntax
