#include "ckpt/format/channel_stream.h"

#include "ckpt/format/stream_element.h"

namespace ckpt::format {

base::Status ForEachStreamFrame(std::string_view stream, size_t begin, size_t end,
                                const std::function<base::Status(const StreamFrameAt&)>& visit,
                                size_t* failed_at) {
  std::string_view rest = stream;
  while (!rest.empty()) {
    const size_t at = stream.size() - rest.size();
    if (at >= end) break;
    std::string_view element;
    base::Result<bool> more = NextStreamFrame(&rest, &element);
    if (!more.ok()) {
      if (failed_at != nullptr) *failed_at = at;
      return more.status();
    }
    if (at >= begin) CKPT_RETURN_IF_ERROR(visit(StreamFrameAt{at, element}));
  }
  return base::Status::OK();
}

}  // namespace ckpt::format
