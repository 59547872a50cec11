#include "sweep/output.hpp"

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "core/error.hpp"
#include "results/identity.hpp"
#include "results/record.hpp"

namespace gemmlab {

namespace {

bool has_content(const std::string& path) {
  std::error_code ec;
  return !path.empty() && std::filesystem::exists(path, ec) && std::filesystem::file_size(path, ec) > 0;
}

}  // namespace

SweepOutput::SweepOutput(std::string json_path, std::string csv_path, nlohmann::json context)
    : json_path_(std::move(json_path)), csv_path_(std::move(csv_path)), context_(std::move(context)) {
  if (json_path_.empty() && csv_path_.empty())
    throw Error("a sweep writes its results as it goes: give --json FILE and/or --csv FILE");
}

void SweepOutput::open(bool resume, bool overwrite) {
  records_.clear();
  resumed_ = 0;
  if (resume) {
    nlohmann::json old;
    const std::string& old_path = has_content(json_path_) ? json_path_ : csv_path_;
    if (has_content(old_path)) old = read_results_file(old_path);
    if (old.is_object()) {
      if (old.contains("context") && old["context"].is_object()) {
        const nlohmann::json& oc = old["context"];
        const std::string was = field_text(oc, "device"), now = field_text(context_, "device");
        if (!was.empty() && !now.empty() && was != now)
          throw Error(fmt::format("{} was measured on {}, this GPU is {}: resume it there, or start a new file",
                                  json_path_, was, now));
        // Keep the date the sweep began; this session's context says when it was resumed.
        const std::string started = field_text(oc, "sweep_started");
        context_["sweep_started"] = started.empty() ? field_text(oc, "date") : started;
      }
      for (const auto& r : old["results"]) {
        if (!r.is_object()) throw Error(fmt::format("{}: a record of its results is not an object: {}", old_path, r.dump()));
        if (field_text(r, "status") != "error") records_.push_back(r);
      }
      resumed_ = records_.size();
    }
  } else if (!overwrite) {
    for (const std::string& p : {json_path_, csv_path_})
      if (has_content(p))
        throw Error(fmt::format("{} exists: add --resume to continue that sweep, or --overwrite to start again", p));
  }
  rewrite_all();
}

void SweepOutput::rewrite_all() {
  if (!json_path_.empty()) write_json_file(json_path_, context_, records_);
  if (!csv_path_.empty()) write_csv_file(csv_path_, records_);
}

void SweepOutput::append(const nlohmann::json& record) {
  records_.push_back(record);
  // The whole JSON file again: simple and always valid; a sweep's files stay small (megabytes),
  // and a measurement takes far longer than the rewrite.
  if (!json_path_.empty()) write_json_file(json_path_, context_, records_);
  if (!csv_path_.empty()) append_csv_row(csv_path_, record);
}

}  // namespace gemmlab
