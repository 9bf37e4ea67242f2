// Loading S3Config from the environment, a Flink configuration file and the AWS shared files:
// see s3_config.h.
#include "ckpt/s3/s3_config.h"

#include <cctype>
#include <cstdlib>
#include <map>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/s3/config_files.h"

namespace ckpt::s3 {
namespace {

using KeyValues = std::map<std::string, std::string>;

std::optional<std::string> ConfigFirst(const KeyValues& kv,
                                       std::initializer_list<std::string_view> names) {
  for (const std::string_view n : names) {
    auto it = kv.find(std::string(n));
    if (it != kv.end() && !it->second.empty()) return it->second;
  }
  return std::nullopt;
}

std::optional<std::string> ConfigEnv(const EnvLookup& env, std::string_view name) {
  std::optional<std::string> v = env(name);
  if (v && v->empty()) return std::nullopt;
  return v;
}

// Reads `path` when it exists: nullopt when absent, IOError when unreadable.
base::Result<std::optional<std::string>> ConfigReadIfPresent(const std::string& path) {
  base::Result<std::string> bytes = base::ReadUserFileToString(base::Fs::Default(), path, 1 << 20);
  if (bytes.ok()) return std::optional<std::string>(std::move(bytes).value());
  if (bytes.status().IsNotFound()) return std::optional<std::string>();
  return bytes.status();
}

base::Result<bool> ConfigParseBool(std::string_view value, const std::string& where) {
  std::string v(value);
  for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (v == "true" || v == "1" || v == "yes") return true;
  if (v == "false" || v == "0" || v == "no") return false;
  return base::Status::InvalidArgument(where + ": '" + std::string(value) +
                                       "' is not true or false");
}

std::string ConfigNormalizeEndpoint(std::string endpoint) {
  if (endpoint.find("://") == std::string::npos) endpoint = "https://" + endpoint;
  while (!endpoint.empty() && endpoint.back() == '/') endpoint.pop_back();
  return endpoint;
}

bool ConfigIsLocalHost(std::string_view endpoint) {
  std::string_view host = endpoint.substr(endpoint.find("://") + 3);
  if (!host.empty() && host.front() == '[') return true;  // IPv6 literal
  host = host.substr(0, host.find_first_of(":/"));
  if (host == "localhost") return true;
  if (host.empty()) return false;
  for (const char c : host) {
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.') return false;
  }
  return true;
}

}  // namespace

std::string S3Config::Describe() const {
  std::string out = "region " + region + ", endpoint " + endpoint +
                    (path_style ? " (path-style)" : " (virtual-hosted)");
  if (!credentials.access_key_id.empty()) {
    out += ", key " + RedactedKeyId(credentials.access_key_id) + " from " + credentials_source;
    if (!credentials.session_token.empty()) out += " with a session token";
  }
  return out;
}

EnvLookup ProcessEnvironment() {
  return [](std::string_view name) -> std::optional<std::string> {
    const char* v = std::getenv(std::string(name).c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
}

base::Result<S3Config> LoadS3Config(const EnvLookup& env, std::string_view flink_config_path) {
  S3Config config;
  std::vector<std::string> looked;

  // The Flink configuration file, when one is named or FLINK_CONF_DIR has one.
  KeyValues flink;
  std::string flink_path(flink_config_path);
  if (flink_path.empty()) {
    if (std::optional<std::string> dir = ConfigEnv(env, "FLINK_CONF_DIR")) {
      for (const char* name : {"config.yaml", "flink-conf.yaml"}) {
        const std::string candidate = base::JoinPath(*dir, name);
        CKPT_ASSIGN_OR_RETURN(std::optional<std::string> bytes, ConfigReadIfPresent(candidate));
        if (bytes) {
          flink_path = candidate;
          CKPT_ASSIGN_OR_RETURN(flink, ParseFlinkConfig(*bytes, flink_path));
          break;
        }
      }
    }
  } else {
    CKPT_ASSIGN_OR_RETURN(const std::string bytes,
                          base::ReadUserFileToString(base::Fs::Default(), flink_path, 1 << 20));
    CKPT_ASSIGN_OR_RETURN(flink, ParseFlinkConfig(bytes, flink_path));
  }

  // The AWS shared files of the selected profile.
  const std::string profile = ConfigEnv(env, "AWS_PROFILE").value_or("default");
  const bool profile_named = ConfigEnv(env, "AWS_PROFILE").has_value();
  const std::string home = ConfigEnv(env, "HOME").value_or("");
  const std::string credentials_path = ConfigEnv(env, "AWS_SHARED_CREDENTIALS_FILE")
                                           .value_or(home.empty() ? "" : home + "/.aws/credentials");
  const std::string config_path =
      ConfigEnv(env, "AWS_CONFIG_FILE").value_or(home.empty() ? "" : home + "/.aws/config");
  KeyValues profile_credentials;
  KeyValues profile_config;
  bool profile_found = false;
  if (!credentials_path.empty()) {
    CKPT_ASSIGN_OR_RETURN(std::optional<std::string> bytes, ConfigReadIfPresent(credentials_path));
    if (bytes) {
      CKPT_ASSIGN_OR_RETURN(IniProfiles profiles, ParseAwsIni(*bytes, credentials_path, false));
      if (auto it = profiles.find(profile); it != profiles.end()) {
        profile_credentials = it->second;
        profile_found = true;
      }
    }
  }
  if (!config_path.empty()) {
    CKPT_ASSIGN_OR_RETURN(std::optional<std::string> bytes, ConfigReadIfPresent(config_path));
    if (bytes) {
      CKPT_ASSIGN_OR_RETURN(IniProfiles profiles, ParseAwsIni(*bytes, config_path, true));
      if (auto it = profiles.find(profile); it != profiles.end()) {
        profile_config = it->second;
        profile_found = true;
      }
    }
  }
  if (profile_named && !profile_found) {
    return base::Status::InvalidArgument("AWS_PROFILE '" + profile + "' is in neither " +
                                         credentials_path + " nor " + config_path);
  }

  // Credentials: a whole pair from the first source that has any part of one.
  struct Source {
    std::string name;
    std::optional<std::string> id, secret, token;
  };
  std::vector<Source> sources;
  sources.push_back({"environment (AWS_ACCESS_KEY_ID)", ConfigEnv(env, "AWS_ACCESS_KEY_ID"),
                     ConfigEnv(env, "AWS_SECRET_ACCESS_KEY"), ConfigEnv(env, "AWS_SESSION_TOKEN")});
  if (!flink_path.empty()) {
    sources.push_back({flink_path,
                       ConfigFirst(flink, {"s3.access-key", "s3.access.key", "fs.s3a.access.key"}),
                       ConfigFirst(flink, {"s3.secret-key", "s3.secret.key", "fs.s3a.secret.key"}),
                       ConfigFirst(flink, {"s3.session-token", "s3.session.token",
                                           "fs.s3a.session.token"})});
  }
  sources.push_back({"profile '" + profile + "' in " + credentials_path,
                     ConfigFirst(profile_credentials, {"aws_access_key_id"}),
                     ConfigFirst(profile_credentials, {"aws_secret_access_key"}),
                     ConfigFirst(profile_credentials, {"aws_session_token"})});
  sources.push_back({"profile '" + profile + "' in " + config_path,
                     ConfigFirst(profile_config, {"aws_access_key_id"}),
                     ConfigFirst(profile_config, {"aws_secret_access_key"}),
                     ConfigFirst(profile_config, {"aws_session_token"})});
  for (const Source& s : sources) {
    if (!s.id && !s.secret) {
      looked.push_back(s.name);
      continue;
    }
    if (!s.id || !s.secret) {
      return base::Status::InvalidArgument(s.name + " gives " +
                                           (s.id ? "an access key id" : "a secret key") +
                                           " without " + (s.id ? "its secret key" : "its key id"));
    }
    config.credentials = {*s.id, *s.secret, s.token.value_or("")};
    config.credentials_source = s.name;
    break;
  }
  if (config.credentials.access_key_id.empty()) {
    std::string where;
    for (const std::string& w : looked) where += (where.empty() ? "" : "; ") + w;
    return base::Status::InvalidArgument(
        "no S3 credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, s3.access-key and "
        "s3.secret-key in the Flink configuration, or a profile in ~/.aws/credentials (looked "
        "in: " + where + ")");
  }

  // Region, endpoint and addressing.
  if (auto r = ConfigEnv(env, "AWS_REGION")) config.region = *r;
  else if (auto r2 = ConfigEnv(env, "AWS_DEFAULT_REGION")) config.region = *r2;
  else if (auto r3 = ConfigFirst(flink, {"s3.region", "fs.s3a.endpoint.region", "fs.s3a.region"}))
    config.region = *r3;
  else if (auto r4 = ConfigFirst(profile_config, {"region"})) config.region = *r4;

  std::optional<std::string> endpoint = ConfigEnv(env, "AWS_ENDPOINT_URL_S3");
  if (!endpoint) endpoint = ConfigEnv(env, "AWS_ENDPOINT_URL");
  if (!endpoint) endpoint = ConfigFirst(flink, {"s3.endpoint", "fs.s3a.endpoint"});
  if (!endpoint) endpoint = ConfigFirst(profile_config, {"s3.endpoint_url", "endpoint_url"});
  config.endpoint = endpoint ? ConfigNormalizeEndpoint(*endpoint)
                             : "https://s3." + config.region + ".amazonaws.com";
  config.path_style = ConfigIsLocalHost(config.endpoint);
  if (auto p = ConfigFirst(flink, {"s3.path.style.access", "s3.path-style-access",
                                   "fs.s3a.path.style.access"})) {
    CKPT_ASSIGN_OR_RETURN(config.path_style, ConfigParseBool(*p, flink_path + ": s3.path.style.access"));
  } else if (auto a = ConfigFirst(profile_config, {"s3.addressing_style"})) {
    if (*a == "path") config.path_style = true;
    else if (*a == "virtual") config.path_style = false;
    else if (*a != "auto") {
      return base::Status::InvalidArgument(config_path + ": s3 addressing_style '" + *a +
                                           "' is not path, virtual or auto");
    }
  }
  if (auto ca = ConfigEnv(env, "AWS_CA_BUNDLE")) config.ca_bundle = *ca;
  else if (auto ca2 = ConfigFirst(profile_config, {"ca_bundle"})) config.ca_bundle = *ca2;
  return config;
}

}  // namespace ckpt::s3
