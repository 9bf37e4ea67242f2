// FastXxh3: libxxhash's dispatching update (XXH3_64bits_update_dispatch) picks the widest vector
// unit at run time; the plain XXH3_64bits_update of the distribution library is built for the
// baseline (SSE2) and is ~25% slower per byte.
#include "fast_xxh3.h"

#include <xxh_x86dispatch.h>
#include <xxhash.h>

namespace ckpt::ops::internal {

FastXxh3::FastXxh3() : state_(XXH3_createState()) {
  XXH3_64bits_reset(static_cast<XXH3_state_t*>(state_));
}

FastXxh3::~FastXxh3() { XXH3_freeState(static_cast<XXH3_state_t*>(state_)); }

void FastXxh3::Update(std::string_view data) {
#if defined(__x86_64__) || defined(_M_X64)
  XXH3_64bits_update_dispatch(static_cast<XXH3_state_t*>(state_), data.data(), data.size());
#else
  XXH3_64bits_update(static_cast<XXH3_state_t*>(state_), data.data(), data.size());
#endif
}

uint64_t FastXxh3::Digest() const {
  return XXH3_64bits_digest(static_cast<const XXH3_state_t*>(state_));
}

}  // namespace ckpt::ops::internal
