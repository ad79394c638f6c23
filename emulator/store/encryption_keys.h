// The client encryption keys of a database: data encryption keys that clients with client-side
// encryption (Always Encrypted) created, wrapped by a key of their own key store. The service
// stores them as given and never sees them unwrapped; the SDKs do all the cryptography. Knows no
// HTTP.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

namespace cosmos::store {

struct ClientEncryptionKey {
  std::string id;
  std::string rid;
  std::string encryption_algorithm;  // "AEAD_AES_256_CBC_HMAC_SHA256"
  std::string wrapped_key;           // wrappedDataEncryptionKey, base64 as given
  std::string key_wrap_metadata;     // keyWrapMetadata, compact JSON object as given
  std::string etag;                  // quoted
  int64_t ts = 0;
};

// Thread-safe; results are copies. Keys are listed in creation order.
class ClientEncryptionKeySet {
 public:
  std::vector<ClientEncryptionKey> List() const;
  std::optional<ClientEncryptionKey> Find(const std::string& id) const;
  // Throws Conflict when the id exists.
  void Create(ClientEncryptionKey k);
  // Replaces key `k.id` (its rid stays). Throws NotFound, or PreconditionFailed when `if_match`
  // names another version.
  void Replace(ClientEncryptionKey k, const std::optional<std::string>& if_match);
  uint32_t NextNumber() { return ++counter_; }
  uint32_t counter() const { return counter_.load(); }
  // Replaces every key (persistence).
  void Restore(std::vector<ClientEncryptionKey> keys, uint32_t counter);

 private:
  mutable std::shared_mutex mu_;
  std::vector<ClientEncryptionKey> keys_;
  std::atomic<uint32_t> counter_{0};
};

// A key's resource id: its database's 4 bytes and 4 more, the last one marking the kind (user
// rids end with a zero byte, so the two never meet).
std::string ClientEncryptionKeyRid(const std::string& db_rid, uint32_t n);

}  // namespace cosmos::store
