// Status: the outcome of an operation that can fail, with a fixed code and a message that carries
// context (path, checkpoint id, operator). Immutable value type; safe to copy across threads.
#pragma once

#include <string>
#include <string_view>
#include <utility>

namespace ckpt::base {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,     // the caller passed something malformed (flag, spec, mapping)
  kNotFound,            // a path, operator or state that does not exist
  kAlreadyExists,       // refusing to overwrite something the user has
  kFailedPrecondition,  // the request is well-formed but the current state forbids it
  kCorruption,          // bytes from disk are not what the format says; message names the file
  kUnimplemented,       // a documented feature this build does not (yet) support
  kIOError,             // the operating system refused (errno converted in one place)
  kCancelled,           // the user or a CancelToken stopped the work
  kInternal,            // a bug: an invariant of our own code does not hold
};

// Returns "OK", "InvalidArgument", ... (stable, used in messages and tests).
std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status OK() { return Status(); }
  static Status InvalidArgument(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
  static Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
  static Status AlreadyExists(std::string m) { return {StatusCode::kAlreadyExists, std::move(m)}; }
  static Status FailedPrecondition(std::string m) {
    return {StatusCode::kFailedPrecondition, std::move(m)};
  }
  static Status Corruption(std::string m) { return {StatusCode::kCorruption, std::move(m)}; }
  static Status Unimplemented(std::string m) { return {StatusCode::kUnimplemented, std::move(m)}; }
  static Status IOError(std::string m) { return {StatusCode::kIOError, std::move(m)}; }
  static Status Cancelled(std::string m) { return {StatusCode::kCancelled, std::move(m)}; }
  static Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  bool IsNotFound() const { return code_ == StatusCode::kNotFound; }
  bool IsCorruption() const { return code_ == StatusCode::kCorruption; }

  // "Corruption: <message>" or "OK".
  std::string ToString() const;

  // Returns a copy whose message is "<context>: <message>"; OK stays OK.
  Status WithContext(std::string_view context) const;

  // Marks a status as deliberately ignored.
  void IgnoreError() const {}

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

}  // namespace ckpt::base

// Evaluates `expr` (a Status); returns it from the calling function if it is not OK.
#define CKPT_RETURN_IF_ERROR(expr)                     \
  do {                                                 \
    ::ckpt::base::Status _ckpt_st = (expr);            \
    if (!_ckpt_st.ok()) return _ckpt_st;               \
  } while (0)

// Like CKPT_RETURN_IF_ERROR, adding "<context>: " to the message on the way up.
#define CKPT_RETURN_IF_ERROR_CTX(expr, context)                    \
  do {                                                             \
    ::ckpt::base::Status _ckpt_st = (expr);                        \
    if (!_ckpt_st.ok()) return _ckpt_st.WithContext(context);      \
  } while (0)
