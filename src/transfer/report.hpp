// Transfer results for people and files: seed 001's tables (phases x Min/Max/Avg/Median/StdDV),
// its relative-gain tables, the overlap summary and the link table; flat JSON records and CSV.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "transfer/link.hpp"
#include "transfer/pipeline.hpp"

namespace gemmlab::transfer {

std::string format_ms(double ms);          // 4 significant digits, no exponent for ordinary values
std::string format_percent(std::optional<double> ratio);  // 0.1923 -> "19.23%", nullopt -> "-"

// Bandwidth of a mode's copies (median times) and their share of the link's peak in that direction.
struct CopyRates {
  double ab_gbs = 0, c_gbs = 0;
  double ab_share = 0, c_share = 0;  // of the pinned peak; 0 when the peak is unknown
};
CopyRates copy_rates(const ModeResult& r, const LinkPeak& peak);

// One mode: the heading, seed 001's table with the clock of every phase and the copies' bandwidth,
// the window rows, the check. A skipped result prints its reason.
void print_mode(std::ostream& os, const ModeResult& r, const LinkPeak& peak);
// (base - other) / base for every row and statistic, as seed 001 tabulated it.
void print_gains(std::ostream& os, const ModeResult& base, const ModeResult& other);
// The overlapped pipeline against the same kernel's separately measured copies and kernel (pinned mode).
void print_overlap(std::ostream& os, const ModeResult& pinned, const ModeResult& overlapped);
void print_link(std::ostream& os, const LinkResult& r);

// Flat records (one per mode). `pinned`, when given for an overlapped result, adds the overlap
// summary; `base`, when given (the pageable result), adds seed 001's gains as "gain_vs_pageable".
nlohmann::json to_json(const ModeResult& r, const LinkPeak& peak, const ModeResult* pinned = nullptr,
                       const ModeResult* base = nullptr);
nlohmann::json to_json(const LinkResult& r);  // {"points": [...], "peak": {...}, "skipped": [...]}

const std::vector<std::string>& transfer_csv_columns();
void write_transfer_csv(const std::string& path, const std::vector<nlohmann::json>& records);

}  // namespace gemmlab::transfer
