// A container's clientEncryptionPolicy (client-side encryption, docs/resources.md).
#pragma once

#include <optional>
#include <string>

#include "json/json.h"
#include "store/store.h"

namespace cosmos::handlers {

// The clientEncryptionPolicy of a container create or replace body, checked as the service checks
// it (an object with includedPaths of {path, clientEncryptionKeyId, encryptionType,
// encryptionAlgorithm}, no path twice, policyFormatVersion 1 or 2, every key id a client
// encryption key of `db`; 400 otherwise) and returned as compact JSON with policyFormatVersion
// filled in (1 when absent). nullopt when the body has none (absent or null). The rules on which
// paths may be encrypted how are the SDKs' (they check them before sending).
std::optional<std::string> ClientEncryptionPolicyFromBody(const json::Value& body, const store::Database& db);

}  // namespace cosmos::handlers
