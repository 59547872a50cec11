#include "dispatch/table.hpp"

#include <cmath>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "dispatch/builtin_tables.hpp"
#include "gemmlab/error.hpp"

namespace gemmlab::detail {

const TableEntry* Table::nearest(const std::string& types, const std::string& layout, std::int64_t m, std::int64_t n,
                                 std::int64_t k, std::int64_t batch, double reach) const {
  const TableEntry* best = nullptr;
  double best_d = 0;
  const double limit = std::log(reach);
  for (const TableEntry& e : entries) {
    if (e.types != types || e.layout != layout) continue;
    const double dm = std::fabs(std::log(double(m) / double(e.m))), dn = std::fabs(std::log(double(n) / double(e.n)));
    const double dk = std::fabs(std::log(double(k) / double(e.k))),
                 db = std::fabs(std::log(double(batch) / double(e.batch)));
    if (dm > limit || dn > limit || dk > limit || db > limit) continue;
    const double d = dm * dm + dn * dn + dk * dk + db * db;
    if (!best || d < best_d) best = &e, best_d = d;
  }
  return best;
}

Table parse_table(const std::string& text, const std::string& where) {
  Table t;
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    t.device = j.at("device").get<std::string>();
    t.commit = j.value("commit", "");
    for (const auto& e : j.at("entries")) {
      TableEntry x;
      x.types = e.at("types").get<std::string>();
      x.layout = e.at("layout").get<std::string>();
      x.m = e.at("m").get<std::int64_t>();
      x.n = e.at("n").get<std::int64_t>();
      x.k = e.at("k").get<std::int64_t>();
      x.batch = e.value("batch", std::int64_t(1));
      if (x.m < 1 || x.n < 1 || x.k < 1 || x.batch < 1) throw Error("an entry has a size below 1");
      x.kernel = e.at("kernel").get<std::string>();
      for (const auto& [key, value] : e.at("config").items()) x.config[key] = value.get<int>();
      x.ms = e.value("ms", 0.0);
      x.reference_ms = e.value("reference_ms", 0.0);
      t.entries.push_back(std::move(x));
    }
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{}: not a gemmlab dispatch table ({})", where, e.what()));
  } catch (const Error& e) {
    throw Error(fmt::format("{}: not a gemmlab dispatch table ({})", where, e.what()));
  }
  return t;
}

std::string table_to_json(const Table& t) {
  nlohmann::json j;
  j["device"] = t.device;
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
