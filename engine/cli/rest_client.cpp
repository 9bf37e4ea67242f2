// RestClient over httplib::Client.
#include "rest_client.h"

#include <chrono>
#include <thread>

#include <httplib.h>

namespace ckpt::engine::cli {

struct RestClient::Impl {
  explicit Impl(const std::string& host_port) : client(host_port) {
    client.set_connection_timeout(5, 0);
    client.set_read_timeout(30, 0);
    client.set_write_timeout(30, 0);
  }
  httplib::Client client;
};

base::Result<std::unique_ptr<RestClient>> RestClient::Create(const std::string& address) {
  std::string a = address;
  if (a.rfind("http://", 0) != 0) a = "http://" + a;
  const std::string rest = a.substr(7);
  const auto colon = rest.rfind(':');
  if (rest.empty() || colon == std::string::npos || colon + 1 >= rest.size() ||
      rest.find('/') != std::string::npos) {
    return base::Status::InvalidArgument("address '" + address +
                                         "' is not http://HOST:PORT (e.g. "
                                         "http://127.0.0.1:8081)");
  }
  auto impl = std::make_unique<Impl>(a);
  return std::unique_ptr<RestClient>(new RestClient(a, std::move(impl)));
}

RestClient::RestClient(std::string address, std::unique_ptr<Impl> impl)
    : address_(std::move(address)), impl_(std::move(impl)) {}
RestClient::~RestClient() = default;

namespace {

base::Result<nlohmann::json> Parse(const httplib::Result& r, const std::string& what,
                                   const std::string& address) {
  if (!r) {
    return base::Status::IOError("cannot reach " + address + " (" + what +
                                 "): " + httplib::to_string(r.error()));
  }
  nlohmann::json j = nlohmann::json::parse(r->body, nullptr, false);
  if (r->status >= 400) {
    std::string msg;
    if (!j.is_discarded() && j.contains("errors") && j["errors"].is_array()) {
      for (const auto& e : j["errors"]) {
        if (!msg.empty()) msg += "; ";
        msg += e.is_string() ? e.get<std::string>() : e.dump();
      }
    }
    if (msg.empty()) msg = r->body;
    msg = what + ": HTTP " + std::to_string(r->status) + ": " + msg;
    switch (r->status) {
      case 400: return base::Status::InvalidArgument(msg);
      case 404: return base::Status::NotFound(msg);
      case 409: return base::Status::FailedPrecondition(msg);
      default: return base::Status::Internal(msg);
    }
  }
  if (j.is_discarded()) {
    return base::Status::Corruption(what + ": the answer is not JSON: " + r->body.substr(0, 200));
  }
  return j;
}

}  // namespace

base::Result<nlohmann::json> RestClient::Get(const std::string& path) {
  return Parse(impl_->client.Get(path.c_str()), "GET " + path, address_);
}

base::Result<nlohmann::json> RestClient::Post(const std::string& path, const nlohmann::json& body) {
  return Parse(impl_->client.Post(path.c_str(), body.dump(), "application/json"),
               "POST " + path, address_);
}

base::Result<nlohmann::json> RestClient::Patch(const std::string& path) {
  return Parse(impl_->client.Patch(path.c_str(), "", "application/json"), "PATCH " + path,
               address_);
}

base::Result<nlohmann::json> RestClient::AwaitOperation(const std::string& status_path,
                                                        int timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  for (;;) {
    CKPT_ASSIGN_OR_RETURN(nlohmann::json j, Get(status_path));
    std::string id;
    if (j.is_object() && j.contains("status") && j["status"].is_object()) {
      id = j["status"].value("id", "");
    }
    if (id == "COMPLETED") {
      nlohmann::json op = j.value("operation", nlohmann::json::object());
      if (op.is_object() && op.contains("failure-cause") && !op["failure-cause"].is_null()) {
        const nlohmann::json& f = op["failure-cause"];
        std::string msg = f.value("stack-trace", f.dump());
        return base::Status::Internal(msg);
      }
      return op;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      return base::Status::IOError("the operation did not complete within " +
                                   std::to_string(timeout_s) + " s (" + status_path + ")");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

}  // namespace ckpt::engine::cli
