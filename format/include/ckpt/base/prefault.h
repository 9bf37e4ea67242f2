// PrefaultForWrite: fault in the pages of a large fresh buffer with one system call. Writing to
// fresh memory traps once per 4 KiB page; in a virtual machine each trap costs microseconds, so a
// few megabytes filled page by page cost milliseconds. Thread-safe.
#pragma once

#include <cstddef>
#include <vector>

namespace ckpt::base {

// Asks the kernel to populate, writable, the whole pages inside [data, data + size)
// (Linux 5.14+ MADV_POPULATE_WRITE). A hint: does nothing for small ranges, on other systems, or
// when the kernel refuses; the memory's content is unchanged either way.
void PrefaultForWrite(void* data, size_t size);

// v->reserve(n) for a vector about to be filled with n elements, the pages of its new storage
// faulted in at once. `n` must be a count already known to be real (not read from untrusted
// bytes): the memory is committed, not just reserved.
template <typename T>
void ReservePrefaulted(std::vector<T>* v, size_t n) {
  if (n <= v->capacity()) return;
  v->reserve(n);
  PrefaultForWrite(v->data() + v->size(), (n - v->size()) * sizeof(T));
}

}  // namespace ckpt::base
