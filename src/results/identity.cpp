#include "results/identity.hpp"

#include <cmath>
#include <cstdint>
#include <vector>

#include <fmt/format.h>

namespace gemmlab {

std::string field_text(const nlohmann::json& record, const char* field) {
  if (!record.is_object() || !record.contains(field)) return "";
  const nlohmann::json& v = record[field];
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer() || v.is_number_unsigned()) return v.dump();
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::floor(d) == d && std::fabs(d) < 1e15) return fmt::format("{}", std::int64_t(d));
    return fmt::format("{}", d);
  }
  return v.dump();
}

std::string config_key(const nlohmann::json& record) {
  std::vector<std::string> parts;
  for (const char* f : {"kernel", "params", "precision", "output", "m", "n", "k", "l2", "init"})
    parts.push_back(field_text(record, f));
  return fmt::format("{}", fmt::join(parts, "|"));
}

}  // namespace gemmlab
