#include "dispatch/table.hpp"

#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "dispatch/builtin_tables.hpp"
#include "gemmlab/error.hpp"

namespace gemmlab::detail {

int class_key(DataType ab, DataType cd, bool tf32, bool grouped, bool a_k_major, bool b_k_major) {
  return int(ab) | int(cd) << 3 | int(tf32) << 6 | int(grouped) << 7 | int(a_k_major) << 8 | int(b_k_major) << 9;
}

int class_key(std::string_view types, std::string_view layout) {
  auto type = [](std::string_view s) -> int {
    if (s == "f32") return int(DataType::f32);
    if (s == "bf16") return int(DataType::bf16);
    if (s == "f16") return int(DataType::f16);
    return -1;
  };
  const bool grouped = types.size() > 8 && types.substr(types.size() - 8) == ".grouped";
  if (grouped) types.remove_suffix(8);
  const std::size_t dot = types.find('.');
  if (dot == std::string_view::npos || layout.size() != 2) return -1;
  std::string_view a = types.substr(0, dot), d = types.substr(dot + 1);
  const bool tf32 = a == "tf32";
  const int ab = tf32 ? int(DataType::f32) : type(a), cd = type(d);
  if (ab < 0 || cd < 0 || (layout[0] != 'N' && layout[0] != 'T') || (layout[1] != 'N' && layout[1] != 'T')) return -1;
  // Layout letters (problem.hpp, Problem::layout_name): A N = K-major; B N = N-major (not K-major).
  return class_key(DataType(ab), DataType(cd), tf32, grouped, layout[0] == 'N', layout[1] == 'T');
}

void Table::index() {
  by_class_.clear();
  for (std::size_t i = 0; i < entries.size(); ++i) {
    TableEntry& e = entries[i];
    e.key = class_key(e.types, e.layout);
    e.log_m = std::log(double(e.m)), e.log_n = std::log(double(e.n)), e.log_k = std::log(double(e.k));
    e.log_batch = std::log(double(e.batch));
    by_class_[e.key].push_back(i);
  }
}

const TableEntry* Table::nearest(int key, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch,
                                 double reach) const {
  const auto it = by_class_.find(key);
  if (it == by_class_.end()) return nullptr;
  const double lm = std::log(double(m)), ln = std::log(double(n)), lk = std::log(double(k));
  const double lb = std::log(double(batch)), limit = std::log(reach);
  const TableEntry* best = nullptr;
  double best_d = 0;
  for (std::size_t i : it->second) {
    const TableEntry& e = entries[i];
    const double dm = std::fabs(lm - e.log_m), dn = std::fabs(ln - e.log_n), dk = std::fabs(lk - e.log_k),
                 db = std::fabs(lb - e.log_batch);
    if (dm > limit || dn > limit || dk > limit || db > limit) continue;
    const double d = dm * dm + dn * dn + dk * dk + db * db;
    if (!best || d < best_d) best = &e, best_d = d;
  }
  return best;
}

namespace {

// Field `name` of entry e (or `fallback` where e has none and one is given): an integer in
// [lo, hi]. A float, a string or a value out of range is refused by name: converted, a float would
// be truncated (or, out of range, undefined) and a wide integer cut to its low bits.
std::int64_t integer(const nlohmann::json& e, const std::string& name, std::int64_t lo, std::int64_t hi,
                     std::optional<std::int64_t> fallback = std::nullopt) {
  if (fallback && !e.contains(name)) return *fallback;
  const nlohmann::json& v = e.at(name);
  if (!v.is_number_integer()) throw Error(fmt::format("an entry's {} is {}, not an integer", name, v.dump()));
  // (A non-negative literal is held unsigned: compared as such first, it cannot wrap.)
  const bool in_range = v.is_number_unsigned() ? v.get<std::uint64_t>() <= std::uint64_t(hi) && v.get<std::int64_t>() >= lo
                                               : v.get<std::int64_t>() >= lo && v.get<std::int64_t>() <= hi;
  if (!in_range) throw Error(fmt::format("an entry's {} is {}, outside [{}, {}]", name, v.dump(), lo, hi));
  return v.get<std::int64_t>();
}

}  // namespace

Table parse_table(const std::string& text, const std::string& where) {
  // Sizes as the API takes them (at most 2^31 - 1); configuration values are small non-negative
  // counts (tiles, stages, slices, flags).
  constexpr std::int64_t kMaxSize = std::numeric_limits<std::int32_t>::max(), kMaxConfig = 1 << 20;
  Table t;
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    t.device = j.at("device").get<std::string>();
    t.commit = j.value("commit", "");
    t.match = j.value("match", "");
    for (const auto& e : j.at("entries")) {
      TableEntry x;
      x.types = e.at("types").get<std::string>();
      x.layout = e.at("layout").get<std::string>();
      x.m = integer(e, "m", 1, kMaxSize);
      x.n = integer(e, "n", 1, kMaxSize);
      x.k = integer(e, "k", 1, kMaxSize);
      x.batch = integer(e, "batch", 1, kMaxSize, 1);
      x.kernel = e.at("kernel").get<std::string>();
      const nlohmann::json& config = e.at("config");
      if (!config.is_object()) throw Error(fmt::format("an entry's config is {}, not an object", config.dump()));
      for (const auto& [key, value] : config.items()) x.config[key] = int(integer(config, key, 0, kMaxConfig));
      x.ms = e.value("ms", 0.0);
      x.reference_ms = e.value("reference_ms", 0.0);
      if (class_key(x.types, x.layout) < 0)
        throw Error(fmt::format("an entry names an unknown class ({} {})", x.types, x.layout));
      t.entries.push_back(std::move(x));
    }
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{}: not a gemmlab dispatch table ({})", where, e.what()));
  } catch (const Error& e) {
    throw Error(fmt::format("{}: not a gemmlab dispatch table ({})", where, e.what()));
  }
  t.index();
  return t;
}

std::string table_to_json(const Table& t) {
  nlohmann::json j;
  j["device"] = t.device;
  j["match"] = t.match;
  j["commit"] = t.commit;
  nlohmann::json entries = nlohmann::json::array();
  for (const TableEntry& e : t.entries) {
    nlohmann::json x{{"types", e.types}, {"layout", e.layout}, {"m", e.m}, {"n", e.n}, {"k", e.k}, {"batch", e.batch},
                     {"kernel", e.kernel}, {"config", e.config}, {"ms", e.ms}, {"reference_ms", e.reference_ms}};
    entries.push_back(std::move(x));
  }
  j["entries"] = std::move(entries);
  return j.dump(1);
}

Table load_table_file(const std::string& path, std::string& source) {
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("dispatch table {}: cannot be read", path));
  std::stringstream ss;
  ss << in.rdbuf();
  source = path;
  return parse_table(ss.str(), path);
}

Table builtin_table(const std::string& device_name, std::string& source) {
  for (const BuiltinTable& b : builtin_tables()) {
    if (device_name.find(b.match) != std::string::npos) {
      source = fmt::format("built-in {}", b.name);
      return parse_table(b.json, fmt::format("built-in table {}", b.name));
    }
  }
  source = "none (model only)";
  return {};
}

}  // namespace gemmlab::detail
