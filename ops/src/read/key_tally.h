// Private to ckpt::ops: the largest keys of a stream of keyed entries (stats --top-keys). Bytes
// are summed per key within the key groups that are open (a key lives in one key group, so a key
// group that is complete can be ranked and forgotten); each list keeps only its N largest keys in
// a min-heap. Memory: the open key groups' distinct keys plus N keys per list. One thread.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ckpt::ops::internal {

class KeyTally {
 public:
  // One ranked key: `key` is whatever the feeder passed (raw bytes or JSON); `state` is the
  // (first) state it was seen in, for decoding it.
  struct Ranked {
    std::string key;
    uint32_t state = 0;
    uint32_t key_group = 0;
    uint64_t bytes = 0;
    uint64_t entries = 0;
  };

  // `states`: the operator's declared states; `n`: keys kept per list (0: Add does nothing).
  KeyTally(size_t states, uint32_t n) : n_(n), per_state_(states) {}

  bool enabled() const { return n_ > 0; }

  // One entry of `key` in `state`, key group `key_group`, of `bytes` serialized bytes. A state
  // index beyond the declared states counts in the operator's list only.
  void Add(uint32_t state, uint32_t key_group, std::string_view key, uint64_t bytes);

  // Ranks and forgets every open key group (call when no entry of them can follow).
  void CloseAll();
  // Ranks and forgets the open key groups other than `key_group` (for streams in key-group order).
  void CloseAllBut(uint32_t key_group);

  // The ranked lists, largest first, ties by `key` ascending (after CloseAll).
  std::vector<Ranked> State(size_t state) const { return Sorted(per_state_[state]); }
  std::vector<Ranked> Operator() const { return Sorted(operator_); }

 private:
  struct Sum {
    uint64_t bytes = 0;
    uint64_t entries = 0;
  };
  // The distinct keys of one key group: an open-addressing table over a byte arena (no
  // allocation per key), and per key 1 + states sums (the operator's, then each state's).
  struct Open {
    struct Slot {
      uint64_t hash = 0;
      uint32_t offset = 0;
      uint32_t length = 0;
      uint32_t index = 0;  // key number + 1; 0: empty slot
    };
    std::string arena;
    std::vector<Slot> slots;
    std::vector<Sum> sums;
    std::vector<uint32_t> first_state;  // per key
    uint32_t keys = 0;
    void Clear();
  };
  using Heap = std::vector<Ranked>;

  uint32_t Find(Open& open, std::string_view key, uint32_t state);
  static void Grow(Open& open);
  void Close(uint32_t key_group, Open& open);
  void Offer(Heap& heap, std::string_view key, uint32_t state, uint32_t key_group,
             const Sum& sum) const;
  static std::vector<Ranked> Sorted(Heap heap);

  uint32_t n_;
  std::map<uint32_t, Open> open_;
  std::vector<Open> spare_;  // closed tables kept for their capacity
  std::vector<Heap> per_state_;
  Heap operator_;
};

}  // namespace ckpt::ops::internal
