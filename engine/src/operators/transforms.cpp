// map, filter and flat-map with built-in functions chosen by name (a job spec cannot carry
// code): parse "key,value", extract or set the key, stringify, split lines into words, and
// simple predicates. Stateless; chainable.
#include "ckpt/engine/operator.h"
#include "ckpt/engine/operator_context.h"
#include "ckpt/engine/operators/text_functions.h"
#include "ckpt/engine/output.h"
#include "operators/builtin_kinds.h"
#include "operators/operator_util.h"

namespace ckpt::engine::operators {
namespace {

enum class MapFn { kIdentity, kParseKeyValue, kExtractKey, kKeyByValue, kKeyByMod, kDropKey,
                   kToString };
enum class FilterFn { kEven, kOdd, kNonEmpty, kContains, kModEquals };

class MapOperator final : public Operator {
 public:
  MapOperator(MapFn fn, int64_t modulus, bool skip_errors)
      : fn_(fn), modulus_(modulus), skip_errors_(skip_errors) {}

  base::Status Open(OperatorContext& ctx) override {
    ctx_ = &ctx;
    label_ = SubtaskLabel(ctx);
    return base::Status::OK();
  }

  base::Status ProcessElement(Record& record) override {
    base::Status st = Apply(record);
    if (!st.ok()) {
      if (skip_errors_) return base::Status::OK();  // on_error = skip: drop the record
      return st.WithContext(label_);
    }
    return ctx_->output().Collect(record);
  }

 private:
  base::Status Apply(Record& record) {
    switch (fn_) {
      case MapFn::kIdentity:
        return base::Status::OK();
      case MapFn::kParseKeyValue: {
        CKPT_ASSIGN_OR_RETURN(const std::string* text, ExpectString(record.value, "parse-key-value"));
        CKPT_ASSIGN_OR_RETURN(KeyValue kv, ParseKeyValue(*text));
        record.key = format::Value(std::move(kv.key));
        record.value = format::Value(kv.value);
        return base::Status::OK();
      }
      case MapFn::kExtractKey: {
        CKPT_ASSIGN_OR_RETURN(const std::string* text, ExpectString(record.value, "extract-key"));
        const size_t comma = text->find(',');
        record.key = format::Value(std::string(Trim(std::string_view(*text).substr(0, comma))));
        return base::Status::OK();
      }
      case MapFn::kKeyByValue:
        record.key = record.value;
        return base::Status::OK();
      case MapFn::kKeyByMod: {
        CKPT_ASSIGN_OR_RETURN(int64_t v, ExpectInt64(record.value, "key-by-mod"));
        record.key = format::Value(v % modulus_);
        return base::Status::OK();
      }
      case MapFn::kDropKey:
        record.key = format::Value();
        return base::Status::OK();
      case MapFn::kToString: {
        std::string line;
        AppendRecordLine(record, false, &line);
        record.key = format::Value();
        record.value = format::Value(std::move(line));
        return base::Status::OK();
      }
    }
    return base::Status::Internal("unknown map function");
  }

  const MapFn fn_;
  const int64_t modulus_;
  const bool skip_errors_;
  OperatorContext* ctx_ = nullptr;
  std::string label_;
};

class FilterOperator final : public Operator {
 public:
  FilterOperator(FilterFn fn, int64_t modulus, int64_t remainder, std::string needle)
      : fn_(fn), modulus_(modulus), remainder_(remainder), needle_(std::move(needle)) {}

  base::Status Open(OperatorContext& ctx) override {
    ctx_ = &ctx;
    label_ = SubtaskLabel(ctx);
    return base::Status::OK();
  }

  base::Status ProcessElement(Record& record) override {
    CKPT_ASSIGN_OR_RETURN(bool keep, Test(record.value));
    return keep ? ctx_->output().Collect(record) : base::Status::OK();
  }

 private:
  base::Result<bool> Test(const format::Value& value) const {
    switch (fn_) {
      case FilterFn::kEven:
      case FilterFn::kOdd: {
        CKPT_ASSIGN_OR_RETURN(int64_t v, ExpectInt64(value, label_));
        return (v % 2 == 0) == (fn_ == FilterFn::kEven);
      }
      case FilterFn::kModEquals: {
        CKPT_ASSIGN_OR_RETURN(int64_t v, ExpectInt64(value, label_));
        return ((v % modulus_) + modulus_) % modulus_ == remainder_;
      }
      case FilterFn::kNonEmpty: {
        CKPT_ASSIGN_OR_RETURN(const std::string* s, ExpectString(value, label_));
        return !Trim(*s).empty();
      }
      case FilterFn::kContains: {
        CKPT_ASSIGN_OR_RETURN(const std::string* s, ExpectString(value, label_));
        return s->find(needle_) != std::string::npos;
      }
    }
    return base::Status::Internal("unknown filter predicate");
  }

  const FilterFn fn_;
  const int64_t modulus_;
  const int64_t remainder_;
  const std::string needle_;
  OperatorContext* ctx_ = nullptr;
  std::string label_;
};

// flat-map "split-words": a line becomes one (word, 1) record per word (word count).
class SplitWordsOperator final : public Operator {
 public:
  base::Status Open(OperatorContext& ctx) override {
    ctx_ = &ctx;
    label_ = SubtaskLabel(ctx);
    return base::Status::OK();
  }

  base::Status ProcessElement(Record& record) override {
    CKPT_ASSIGN_OR_RETURN(const std::string* line, ExpectString(record.value, label_));
    words_.clear();
    SplitWords(*line, &words_);
    for (std::string& w : words_) {
      Record out(format::Value(std::move(w)), format::Value(int64_t{1}), record.timestamp);
      CKPT_RETURN_IF_ERROR(ctx_->output().Collect(out));
    }
    return base::Status::OK();
  }

 private:
  OperatorContext* ctx_ = nullptr;
  std::string label_;
  std::vector<std::string> words_;
};

base::Result<std::unique_ptr<Operator>> CreateMap(const OperatorParams& params) {
  CKPT_RETURN_IF_ERROR(params.CheckKnownFields({"function", "modulus", "on_error"}));
  static const std::vector<std::string> kNames = {"identity",     "parse-key-value",
                                                  "extract-key",  "key-by-value",
                                                  "key-by-mod",   "drop-key",
                                                  "to-string"};
  if (!params.Has("function")) return params.Error("function", "is required");
  CKPT_ASSIGN_OR_RETURN(size_t index, GetEnumParam(params, "function", "", kNames));
  const auto fn = static_cast<MapFn>(index);
  int64_t modulus = 1;
  if (fn == MapFn::kKeyByMod) {
    CKPT_ASSIGN_OR_RETURN(modulus, params.RequireInt("modulus"));
    if (modulus <= 0) return params.Error("modulus", "must be > 0");
  } else if (params.Has("modulus")) {
    return params.Error("modulus", "only applies to function key-by-mod");
  }
  CKPT_ASSIGN_OR_RETURN(size_t on_error,
                        GetEnumParam(params, "on_error", "fail", {"fail", "skip"}));
  return std::unique_ptr<Operator>(std::make_unique<MapOperator>(fn, modulus, on_error == 1));
}

base::Result<std::unique_ptr<Operator>> CreateFilter(const OperatorParams& params) {
  CKPT_RETURN_IF_ERROR(params.CheckKnownFields({"predicate", "modulus", "remainder", "needle"}));
  static const std::vector<std::string> kNames = {"even", "odd", "non-empty", "contains",
                                                  "mod-equals"};
  if (!params.Has("predicate")) return params.Error("predicate", "is required");
  CKPT_ASSIGN_OR_RETURN(size_t index, GetEnumParam(params, "predicate", "", kNames));
  const auto fn = static_cast<FilterFn>(index);
  int64_t modulus = 1, remainder = 0;
  std::string needle;
  if (fn == FilterFn::kModEquals) {
    CKPT_ASSIGN_OR_RETURN(modulus, params.RequireInt("modulus"));
    if (modulus <= 0) return params.Error("modulus", "must be > 0");
    CKPT_ASSIGN_OR_RETURN(remainder, GetIntInRange(params, "remainder", 0, 0, modulus - 1));
  }
  if (fn == FilterFn::kContains) {
    CKPT_ASSIGN_OR_RETURN(needle, params.RequireString("needle"));
  }
  return std::unique_ptr<Operator>(
      std::make_unique<FilterOperator>(fn, modulus, remainder, std::move(needle)));
}

base::Result<std::unique_ptr<Operator>> CreateFlatMap(const OperatorParams& params) {
  CKPT_RETURN_IF_ERROR(params.CheckKnownFields({"function"}));
  if (!params.Has("function")) return params.Error("function", "is required");
  CKPT_RETURN_IF_ERROR(GetEnumParam(params, "function", "", {"split-words"}).status());
  return std::unique_ptr<Operator>(std::make_unique<SplitWordsOperator>());
}

}  // namespace

base::Status RegisterTransforms(OperatorRegistry& registry) {
  CKPT_RETURN_IF_ERROR(registry.Register(
      {"map",
       "built-in function: identity, parse-key-value, extract-key, key-by-value, key-by-mod, "
       "drop-key, to-string",
       CreateMap, nullptr}));
  CKPT_RETURN_IF_ERROR(registry.Register(
      {"filter", "built-in predicate: even, odd, non-empty, contains, mod-equals", CreateFilter,
       nullptr}));
  return registry.Register(
      {"flat-map", "built-in function: split-words (line -> (word, 1) records)", CreateFlatMap,
       nullptr});
}

}  // namespace ckpt::engine::operators
