#include "store/encryption_keys.h"

#include <algorithm>
#include <mutex>

#include "common/errors.h"
#include "util/util.h"

namespace cosmos::store {

std::string ClientEncryptionKeyRid(const std::string& db_rid, uint32_t n) {
  std::string text = db_rid;
  std::replace(text.begin(), text.end(), '-', '/');
  std::string bytes = util::Base64Decode(text).value_or(std::string());
  bytes.push_back(static_cast<char>((n >> 16) & 0x7F));
  bytes.push_back(static_cast<char>((n >> 8) & 0xFF));
  bytes.push_back(static_cast<char>(n & 0xFF));
  bytes.push_back('\x0C');
  std::string out = util::Base64Encode(bytes);
  std::replace(out.begin(), out.end(), '/', '-');
  return out;
}

std::vector<ClientEncryptionKey> ClientEncryptionKeySet::List() const {
  std::shared_lock lock(mu_);
  return keys_;
}

std::optional<ClientEncryptionKey> ClientEncryptionKeySet::Find(const std::string& id) const {
  std::shared_lock lock(mu_);
  for (const auto& k : keys_) {
    if (k.id == id) return k;
  }
  return std::nullopt;
}

void ClientEncryptionKeySet::Create(ClientEncryptionKey k) {
  std::unique_lock lock(mu_);
  for (const auto& existing : keys_) {
    if (existing.id == k.id) throw errors::Conflict();
  }
  keys_.push_back(std::move(k));
}

void ClientEncryptionKeySet::Replace(ClientEncryptionKey k, const std::optional<std::string>& if_match) {
  std::unique_lock lock(mu_);
  for (auto& existing : keys_) {
    if (existing.id != k.id) continue;
    if (if_match && *if_match != "*" && *if_match != existing.etag) throw errors::PreconditionFailed();
    k.rid = existing.rid;
    existing = std::move(k);
    return;
  }
  throw errors::NotFound();
}

void ClientEncryptionKeySet::Restore(std::vector<ClientEncryptionKey> keys, uint32_t counter) {
  std::unique_lock lock(mu_);
  keys_ = std::move(keys);
  counter_ = std::max(counter_.load(), counter);
}

}  // namespace cosmos::store
