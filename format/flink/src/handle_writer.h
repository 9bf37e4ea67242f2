// Private to ckpt::flink: encoding of state handles (stream, keyed, operator, channel) into a
// `_metadata` DataOutput, version-aware; the inverse of HandleReader. Errors name `where` (the
// operator and subtask being written) and the field.
#pragma once

#include <string>

#include "ckpt/flink/data_output.h"
#include "ckpt/flink/metadata.h"

namespace ckpt::flink::internal {

class HandleWriter {
 public:
  HandleWriter(DataOutput& out, uint32_t version) : out_(out), version_(version) {}

  DataOutput& out() { return out_; }
  uint32_t version() const { return version_; }
  // Context for error messages, e.g. "operator 0a1b... subtask 3".
  void set_where(std::string where) { where_ = std::move(where); }
  const std::string& where() const { return where_; }

  base::Status WriteStreamHandle(const StreamHandle& h);
  base::Status WriteKeyedHandle(const KeyedHandle& h);
  base::Status WriteOperatorHandle(const OperatorHandle& h);
  base::Status WriteChannelHandle(const ChannelHandle& c);

  base::Status Utf(std::string_view s, const char* field);
  base::Status Invalid(const std::string& what) const;

 private:
  base::Status WriteKeyGroupsBody(const KeyGroupsHandle& kg, bool with_id);
  base::Status WriteLocalPathList(const std::vector<LocalPathHandle>& list);
  base::Status WriteChannelV1Body(const ChannelHandle& c);

  DataOutput& out_;
  uint32_t version_;
  std::string where_;
  int depth_ = 0;
};

}  // namespace ckpt::flink::internal
