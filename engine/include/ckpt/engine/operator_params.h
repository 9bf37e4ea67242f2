// OperatorParams: typed access to an operator's `params` (a google.protobuf.Struct from the job
// spec). Every error is InvalidArgument naming the operator and the field, e.g.
//   operator 'map-1' (kind failure-injector): params.fail_at: expected an integer, got "x"
// Immutable after construction; thread-safe for concurrent reads.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include <google/protobuf/struct.pb.h>

#include "ckpt/base/result.h"

namespace ckpt::engine {

class OperatorParams {
 public:
  OperatorParams() = default;
  // `operator_label` names the operator in messages, e.g. "operator 'sum' (kind keyed-sum)".
  OperatorParams(std::string operator_label, google::protobuf::Struct params);

  // True if `field` is present (and not JSON null).
  bool Has(std::string_view field) const;

  // The field's value, or `default_value` when absent. InvalidArgument if present with another
  // type (integers must be whole numbers within int64 range).
  base::Result<int64_t> GetInt(std::string_view field, int64_t default_value) const;
  base::Result<double> GetDouble(std::string_view field, double default_value) const;
  base::Result<bool> GetBool(std::string_view field, bool default_value) const;
  base::Result<std::string> GetString(std::string_view field, std::string default_value) const;
  // A list of strings; `{}` when absent.
  base::Result<std::vector<std::string>> GetStringList(std::string_view field) const;

  // As above but InvalidArgument ("params.<field> is required") when absent.
  base::Result<int64_t> RequireInt(std::string_view field) const;
  base::Result<std::string> RequireString(std::string_view field) const;

  // InvalidArgument naming the first field not in `known` (catches typos in job specs).
  base::Status CheckKnownFields(std::initializer_list<std::string_view> known) const;

  // InvalidArgument "<operator label>: params.<field>: <message>", for checks of values
  // (ranges, enums) done by the operator itself.
  base::Status Error(std::string_view field, std::string_view message) const;

  const std::string& operator_label() const { return label_; }
  const google::protobuf::Struct& raw() const { return params_; }

 private:
  const google::protobuf::Value* Find(std::string_view field) const;

  std::string label_;
  google::protobuf::Struct params_;
};

}  // namespace ckpt::engine
