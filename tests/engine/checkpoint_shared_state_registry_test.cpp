// SharedStateRegistry (engine/src/checkpoint/shared_state_registry.cpp): a shared file is handed
// back for deletion only when the last snapshot referencing it is released, and never one that a
// snapshot the engine does not own (restored in NO_CLAIM mode) referenced.
#include "ckpt/engine/checkpoint/shared_state_registry.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ckpt::engine {
namespace {

using Paths = std::vector<std::string>;

TEST(SharedStateRegistryTest, FileGoesWithItsLastReference) {
  SharedStateRegistry r;
  r.Register("chk-1", {"a", "b"}, true);
  r.Register("chk-2", {"b", "c", "c"}, true);
  EXPECT_EQ(r.ReferenceCount("b"), 2u);
  EXPECT_EQ(r.ReferenceCount("c"), 1u);  // duplicates within one snapshot count once
  EXPECT_EQ(r.Release("chk-1"), Paths{"a"});
  EXPECT_EQ(r.ReferenceCount("b"), 1u);
  EXPECT_EQ(r.Release("chk-2"), (Paths{"b", "c"}));
  EXPECT_TRUE(r.Files().empty());
  EXPECT_TRUE(r.Release("chk-3").empty());
}

TEST(SharedStateRegistryTest, FilesOfANotOwnedSnapshotAreNeverHandedBack) {
  SharedStateRegistry r;
  r.Register("restored", {"x", "y"}, false);  // NO_CLAIM restore
  r.Register("chk-5", {"y", "z"}, true);       // a later checkpoint re-references y
  EXPECT_TRUE(r.Release("restored").empty());
  EXPECT_EQ(r.Release("chk-5"), Paths{"z"});  // y stays protected
  r.Register("chk-6", {"y"}, true);
  EXPECT_TRUE(r.Release("chk-6").empty());
}

}  // namespace
}  // namespace ckpt::engine
