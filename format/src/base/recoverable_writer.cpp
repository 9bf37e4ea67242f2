#include "ckpt/base/recoverable_writer.h"

#include <map>
#include <mutex>

#include "ckpt/base/fs_resolver.h"

namespace ckpt::base {
namespace {

struct RecoverableWriterRegistry {
  std::mutex mu;
  std::map<std::string, RecoverableWriterResolver> by_scheme;
};

RecoverableWriterRegistry& Registry() {
  static RecoverableWriterRegistry* registry = new RecoverableWriterRegistry();
  return *registry;
}

RecoverableWriterResolver ResolverOf(std::string_view location) {
  const std::string scheme = SchemeOf(location);
  RecoverableWriterRegistry& r = Registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.by_scheme.find(scheme);
  return it == r.by_scheme.end() ? RecoverableWriterResolver() : it->second;
}

}  // namespace

void RegisterRecoverableWriterScheme(const std::string& scheme,
                                     RecoverableWriterResolver resolver) {
  RecoverableWriterRegistry& r = Registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.by_scheme[scheme] = std::move(resolver);
}

bool HasRecoverableWriter(std::string_view location) {
  return static_cast<bool>(ResolverOf(location));
}

Result<RecoverableWriter*> RecoverableWriterFor(std::string_view location) {
  RecoverableWriterResolver resolver = ResolverOf(location);
  if (!resolver) {
    const std::string scheme = SchemeOf(location);
    return Status::Unimplemented("no recoverable writer for " +
                                 (scheme.empty() ? std::string("local paths")
                                                 : "scheme \"" + scheme + "\"") +
                                 " (location " + std::string(location) + ")");
  }
  return resolver(location);
}

}  // namespace ckpt::base
