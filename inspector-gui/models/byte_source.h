// ByteSource: random access to the raw bytes of one snapshot file for the hex view, read through
// ckpt::base::Fs a block at a time with a small cache (the view asks only for visible rows).
// Not thread-safe: owned and used by the GUI thread.
#pragma once

#include <QByteArray>
#include <QString>
#include <cstdint>
#include <map>
#include <memory>

#include "ckpt/base/fs.h"

namespace ckpt::inspector {

class ByteSource {
 public:
  // Opens `path` on `fs`; the error (naming the file) is in error() when it fails.
  ByteSource(base::Fs& fs, const QString& path);
  bool ok() const { return m_file != nullptr; }
  QString error() const { return m_error; }
  QString path() const { return m_path; }
  uint64_t size() const { return m_file ? m_file->Size() : 0; }
  // Up to `n` bytes at `offset` (fewer at the end of the file or after a read error).
  QByteArray read(uint64_t offset, size_t n);
  // Blocks read from disk so far (to check that only visible rows are read).
  uint64_t blocksRead() const { return m_blocksRead; }

  static constexpr size_t kBlockBytes = 4096;

 private:
  const QByteArray* block(uint64_t index);

  QString m_path;
  QString m_error;
  std::unique_ptr<base::RandomAccessFile> m_file;
  std::map<uint64_t, QByteArray> m_cache;
  uint64_t m_blocksRead = 0;
};

}  // namespace ckpt::inspector
