// Private to ckpt::ops: the largest keys of a stream of keyed entries (stats --top-keys). Bytes
// are summed per key within the key groups that are open (a key lives in one key group, so a key
// group that is complete can be ranked and forgotten); each list keeps only its N largest keys in
// a min-heap. Memory: the open key groups' distinct keys plus N keys per list. One thread.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
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
    uint32_t state = 0;
    uint64_t bytes = 0;
    uint64_t entries = 0;
  };
  struct Open {
    std::vector<std::unordered_map<std::string, Sum>> per_state;
    std::unordered_map<std::string, Sum> all;
  };
  using Heap = std::vector<Ranked>;

  void Close(uint32_t key_group, Open& open);
  void Offer(Heap& heap, const std::string& key, uint32_t key_group, const Sum& sum) const;
  static std::vector<Ranked> Sorted(Heap heap);

  uint32_t n_;
  std::map<uint32_t, Open> open_;
  std::vector<Heap> per_state_;
  Heap operator_;
};

}  // namespace ckpt::ops::internal
