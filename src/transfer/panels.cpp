#include "transfer/panels.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"

namespace gemmlab::transfer {

std::vector<Span> split_panels(std::int64_t extent, int panels, std::int64_t granule, bool lead_half) {
  if (extent < 1) throw Error(fmt::format("cannot split an extent of {} into panels", extent));
  if (panels < 1) throw Error(fmt::format("the number of panels must be at least 1 (got {})", panels));
  const int p = int(std::min<std::int64_t>(panels, extent));
  // Align to the granule only when every panel keeps at least one granule after rounding.
  const std::int64_t g = (granule > 1 && extent >= 2 * std::int64_t(p) * granule) ? granule : 1;
  const double lead = (lead_half && p > 1) ? 0.5 : 1.0;
  const double weight = lead + double(p - 1);
  std::vector<std::int64_t> bound(std::size_t(p) + 1);
  bound[0] = 0;
  bound[std::size_t(p)] = extent;
  for (int k = 1; k < p; ++k) {
    const double at = double(extent) * (lead + double(k - 1)) / weight;
    bound[std::size_t(k)] = std::int64_t(std::llround(at / double(g))) * g;
  }
  // Rounding may squeeze a panel to nothing on tiny extents: keep every panel at least 1 wide.
  for (int k = 1; k < p; ++k) bound[std::size_t(k)] = std::max(bound[std::size_t(k)], bound[std::size_t(k) - 1] + 1);
  for (int k = p - 1; k >= 1; --k)
    bound[std::size_t(k)] = std::min(bound[std::size_t(k)], bound[std::size_t(k) + 1] - 1);
  std::vector<Span> out;
  for (int k = 0; k < p; ++k) out.push_back({bound[std::size_t(k)], bound[std::size_t(k) + 1] - bound[std::size_t(k)]});
  return out;
}

PanelPlan plan_panels(const Shape& s, int panels) {
  PanelPlan plan;
  plan.k = s.k;
  plan.rows = split_panels(s.m, panels, 128, true);
  plan.cols = split_panels(s.n, panels, 128, false);
  for (std::size_t i = 0; i < plan.rows.size(); ++i) {
    const Span r = plan.rows[i];
    std::int64_t offset = r.begin * s.n;  // row panel i of C occupies rows_i * N elements, tile after tile
    for (std::size_t j = 0; j < plan.cols.size(); ++j) {
      const Span c = plan.cols[j];
      plan.tiles.push_back({int(i), int(j), r, c, offset});
      offset += r.size * c.size;
    }
  }
  plan.uploads.push_back({Upload::Operand::a, 0});
  for (std::size_t j = 0; j < plan.cols.size(); ++j) plan.uploads.push_back({Upload::Operand::b, int(j)});
  for (std::size_t i = 1; i < plan.rows.size(); ++i) plan.uploads.push_back({Upload::Operand::a, int(i)});
  return plan;
}

std::vector<Shape> PanelPlan::distinct_tile_shapes() const {
  std::vector<Shape> out;
  for (const Tile& t : tiles) {
    const Shape sh{t.rows.size, t.cols.size, k};
    bool seen = false;
    for (const Shape& o : out) seen = seen || (o.m == sh.m && o.n == sh.n);
    if (!seen) out.push_back(sh);
  }
  return out;
}

int auto_panels(const Shape& s) {
  const double edge = double(std::max(s.m, s.n));
  return int(std::clamp<std::int64_t>(std::llround(edge / 4096.0), 2, 8));
}

}  // namespace gemmlab::transfer
