// The two file syntaxes S3 configuration comes in: the AWS shared INI files and Flink's YAML
// configuration. Pure functions; thread-safe.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "ckpt/base/result.h"

namespace ckpt::s3 {

// Profile name -> key -> value. A nested block ("s3 =" followed by indented "key = value" lines)
// gives dotted keys ("s3.addressing_style").
using IniProfiles = std::map<std::string, std::map<std::string, std::string>>;

// Parses ~/.aws/credentials (`config_file` false: "[name]" sections) or ~/.aws/config (true:
// "[default]" and "[profile name]"; other section kinds such as "[sso-session x]" are skipped).
// '#' and ';' start comment lines. InvalidArgument naming `path` and the line for a line that is
// neither a section, a "key = value" nor a comment (the line's text is not quoted: it may hold a
// secret).
base::Result<IniProfiles> ParseAwsIni(std::string_view text, const std::string& path,
                                      bool config_file);

// Parses a Flink configuration file into dotted keys: flat "s3.endpoint: http://x" lines
// (flink-conf.yaml) and nested maps ("s3:" then indented "endpoint: http://x", Flink 2's
// config.yaml). Quotes around values are removed, '#' comments dropped. Lines it does not
// understand (lists, multi-line values) are skipped: the file configures far more than S3.
base::Result<std::map<std::string, std::string>> ParseFlinkConfig(std::string_view text,
                                                                  const std::string& path);

}  // namespace ckpt::s3
