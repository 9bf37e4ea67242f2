// A small bounded XML reader for S3's answers (ListObjectsV2, errors, multipart, DeleteObjects).
// Elements, attributes (skipped), text, the five named entities, numeric character references,
// CDATA, comments and processing instructions; a DOCTYPE is refused (no entity expansion). Every
// limit is checked, so hostile input yields Corruption, never a crash or unbounded memory.
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ckpt/base/result.h"

namespace ckpt::s3 {

struct XmlElement {
  std::string name;  // local name: a namespace prefix ("s3:Key") is dropped
  std::string text;  // the concatenated character data directly inside this element
  std::vector<XmlElement> children;

  // The first child named `child_name`, or nullptr.
  const XmlElement* Child(std::string_view child_name) const;
  // The text of the first child named `child_name`, or "" when there is none.
  std::string ChildText(std::string_view child_name) const;
};

struct XmlLimits {
  size_t max_input_bytes = size_t{64} << 20;  // Default: 64 MiB
  size_t max_depth = 32;                      // Default: 32 nested elements
  size_t max_elements = 1'000'000;            // Default: one million elements
};

// Parses one document with a single root element. Corruption (naming `what`, e.g. "ListObjectsV2
// answer for s3://b/p", and the byte offset) on malformed input, a DOCTYPE, mismatched tags, an
// unknown entity, trailing content, or when a limit is exceeded.
base::Result<XmlElement> ParseXml(std::string_view xml, std::string_view what,
                                  const XmlLimits& limits = {});

}  // namespace ckpt::s3
