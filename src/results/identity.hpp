// Which measurement a result record is: the fields that make two records measure the same thing.
// A sweep's --resume skips configurations whose key is already in its file; compare matches the
// records of two files by it.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace gemmlab {

// kernel, params, precision, output, m, n, k, l2 mode and init, joined by '|'. Numbers are
// written as integers when they are whole, so a record read back from CSV has the same key.
std::string config_key(const nlohmann::json& record);

// A field of a record as text, whatever its JSON type (a CSV cell comes back as a number when it
// reads as one: a kernel parameter "8", a status "1"); "" when the field is absent or the record
// is not an object. For reading records of files a user hands in, where get<std::string>() would
// throw a JSON type error instead of a message.
std::string field_text(const nlohmann::json& record, const char* field);

}  // namespace gemmlab
