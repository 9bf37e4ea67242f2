#include "models/byte_source.h"

#include "models/display.h"

namespace ckpt::inspector {

namespace {
constexpr size_t kMaxCachedBlocks = 256;  // 1 MiB
}

ByteSource::ByteSource(base::Fs& fs, const QString& path) : m_path(path) {
  auto f = fs.OpenRead(path.toStdString());
  if (f.ok()) {
    m_file = std::move(f).value();
  } else {
    m_error = qs(f.status().ToString());
  }
}

const QByteArray* ByteSource::block(uint64_t index) {
  auto it = m_cache.find(index);
  if (it != m_cache.end()) return &it->second;
  if (m_cache.size() >= kMaxCachedBlocks) m_cache.clear();
  QByteArray buf(static_cast<qsizetype>(kBlockBytes), '\0');
  auto n = m_file->ReadAt(index * kBlockBytes, kBlockBytes, buf.data());
  if (!n.ok()) {
    m_error = qs(n.status().ToString());
    return nullptr;
  }
  ++m_blocksRead;
  buf.truncate(static_cast<qsizetype>(*n));
  return &m_cache.emplace(index, std::move(buf)).first->second;
}

QByteArray ByteSource::read(uint64_t offset, size_t n) {
  QByteArray out;
  if (!m_file) return out;
  const uint64_t end = std::min<uint64_t>(size(), offset + n);
  while (offset < end) {
    const QByteArray* b = block(offset / kBlockBytes);
    if (b == nullptr) break;
    const uint64_t in_block = offset % kBlockBytes;
    if (in_block >= static_cast<uint64_t>(b->size())) break;
    const uint64_t take = std::min<uint64_t>(end - offset, static_cast<uint64_t>(b->size()) - in_block);
    out.append(b->constData() + in_block, static_cast<qsizetype>(take));
    offset += take;
  }
  return out;
}

}  // namespace ckpt::inspector
