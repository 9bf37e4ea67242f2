// CheckCountFromFile: see bounds.h.
#include "ckpt/base/bounds.h"

#include <string>

namespace ckpt::base {

Status CheckCountFromFile(uint64_t count, uint64_t limit, std::string_view what,
                          std::string_view where) {
  if (count <= limit) return Status::OK();
  return Status::Corruption(std::string(where) + ": " + std::string(what) + " " +
                            std::to_string(count) + " exceeds the bound of " +
                            std::to_string(limit));
}

}  // namespace ckpt::base
