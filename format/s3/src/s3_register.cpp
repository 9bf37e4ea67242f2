// RegisterS3Schemes: the s3:, s3a: and s3p: schemes of base::ResolveFs (see s3_fs.h).
#include <mutex>

#include "ckpt/base/fs_resolver.h"
#include "ckpt/s3/s3_fs.h"

namespace ckpt::s3 {
namespace {

// The process-wide S3Fs, or why there is none.
struct S3ProcessFs {
  std::once_flag once;
  S3Fs* fs = nullptr;  // never destroyed: files may be used until exit
  base::Status error;
};

S3ProcessFs& ProcessS3Fs() {
  static S3ProcessFs* state = new S3ProcessFs();
  return *state;
}

base::Result<base::ResolvedLocation> ResolveS3Location(std::string_view location) {
  CKPT_RETURN_IF_ERROR(ParseS3Location(location).status());
  S3ProcessFs& state = ProcessS3Fs();
  std::call_once(state.once, [&state] {
    base::Result<S3Config> config = LoadS3Config(ProcessEnvironment());
    if (!config.ok()) {
      state.error = config.status();
      return;
    }
    base::Result<std::unique_ptr<S3Client>> client = S3Client::Create(std::move(config).value());
    if (!client.ok()) {
      state.error = client.status();
      return;
    }
    state.fs = new S3Fs(std::move(client).value());
  });
  if (state.fs == nullptr) return state.error.WithContext(std::string(location));
  return base::ResolvedLocation{state.fs, std::string(location)};
}

}  // namespace

void RegisterS3Schemes() {
  for (const std::string_view scheme : kS3Schemes) {
    base::RegisterFsScheme(std::string(scheme), ResolveS3Location);
  }
  RegisterS3RecoverableWriters();
}

}  // namespace ckpt::s3
