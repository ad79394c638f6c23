// The values persistence keeps, each kind described once: a field list (its key in the record's
// JSON and the member that holds it) that both writes a value into a record (FieldWriter) and reads
// it back (FieldReader). state.cpp builds the log's and the snapshot's records from them.
// Changing a key or adding a field is one line here; records written before keep reading as long as
// a key is never reused for another meaning.
#pragma once

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

#include "json/json.h"
#include "store/store.h"

namespace cosmos::persist::records {

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

// A record that passed its checksum but cannot be understood: the files are not this emulator's
// (or a newer one's), and recovery stops rather than guess.
struct Unreadable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// ---- the field lists: f(key, member) for each field, in the order they are written; each list is
// a type whose call takes the value (const to write it, not to read it) and the field visitor ----

// One of an item's identity texts (store::Item keeps them packed, behind get and set).
template <class Item>
struct ItemText {
  Item& item;
  typename std::remove_const_t<Item>::Field field;
};

// An item's own values besides its JSON (which follows the record's header, after a newline).
struct ItemFields {
  template <class Item, class F>
  void operator()(Item& it, F&& f) const {
    using Field = typename std::remove_const_t<Item>::Field;
    f("id", ItemText<Item>{it, Field::kId});
    f("pk", ItemText<Item>{it, Field::kPk});
    f("e", ItemText<Item>{it, Field::kEpk});
    f("s", it.seq);
    f("l", it.lsn);
    f("ts", it.ts);
    f("ms", it.ts_ms);  // the write's milliseconds into that second; absent when 0 (and in older files)
    f("et", ItemText<Item>{it, Field::kEtag});
    f("rid", ItemText<Item>{it, Field::kRid});
    f("ttl", it.ttl);  // absent when the item has none
    f("ux", it.unindexed);  // left out of the index (x-ms-indexing-directive)
  }
};

struct SplitFields {
  template <class Split, class F>
  void operator()(Split& sp, F&& f) const {
    f("p", sp.parent);
    f("at", sp.at);
    f("l", sp.left);
    f("r", sp.right);
    f("ts", sp.ts);
    f("e", sp.etag);
  }
};

// An offer: who it belongs to, then its state (store::Offer::State).
struct OfferRecord {
  std::string id, self, resource_rid;
  store::Offer::State state;
};
struct OfferFields {
  template <class Offer, class F>
  void operator()(Offer& o, F&& f) const {
    f("id", o.id);
    f("self", o.self);
    f("rrid", o.resource_rid);
    f("ru", o.state.throughput.ru);
    f("auto", o.state.throughput.autoscale);
    f("max", o.state.max_ever);
    f("ts", o.state.ts);
    f("etag", o.state.etag);
    f("lr", o.state.last_replace);
  }
};

struct UserFields {
  template <class User, class F>
  void operator()(User& u, F&& f) const {
    f("id", u.id);
    f("rid", u.rid);
    f("etag", u.etag);
    f("ts", u.ts);
  }
};

struct PermissionFields {
  template <class Permission, class F>
  void operator()(Permission& p, F&& f) const {
    f("id", p.id);
    f("rid", p.rid);
    f("mode", p.mode);
    f("res", p.resource);
    f("rpk", p.resource_pk_json);
    f("db", p.scope.db_rid);
    f("coll", p.scope.coll_rid);
    f("kind", p.scope.kind);
    f("child", p.scope.child_id);
    f("pk", p.scope.pk);
    f("etag", p.etag);
    f("ts", p.ts);
  }
};

struct EncryptionKeyFields {
  template <class Key, class F>
  void operator()(Key& k, F&& f) const {
    f("id", k.id);
    f("rid", k.rid);
    f("alg", k.encryption_algorithm);
    f("wk", k.wrapped_key);
    f("meta", k.key_wrap_metadata);
    f("etag", k.etag);
    f("ts", k.ts);
  }
};

// A stored procedure, trigger or user-defined function (its kind is written beside it, "k").
struct ScriptFields {
  template <class Script, class F>
  void operator()(Script& s, F&& f) const {
    f("id", s.id);
    f("body", s.body);
    f("tt", s.trigger_type);
    f("to", s.trigger_operation);
    f("rid", s.rid);
    f("etag", s.etag);
    f("ts", s.ts);
  }
};

// ---- writing and reading a field ---------------------------------------------------------------

// Writes each field it is given into the open JSON object of `w`.
struct FieldWriter {
  JsonWriter& w;
  void operator()(const char* key, const std::string& v) const {
    w.Key(key);
    w.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
  }
  void operator()(const char* key, int64_t v) const {
    w.Key(key);
    w.Int64(v);
  }
  template <class Item>
  void operator()(const char* key, const ItemText<Item>& t) const {
    const std::string_view v = t.item.get(t.field);
    w.Key(key);
    w.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
  }
  void operator()(const char* key, int v) const { (*this)(key, static_cast<int64_t>(v)); }
  void operator()(const char* key, uint64_t v) const {
    w.Key(key);
    w.Uint64(v);
  }
  void operator()(const char* key, bool v) const {
    w.Key(key);
    w.Bool(v);
  }
  // A small count that reads 0 when absent: left out when it is 0.
  void operator()(const char* key, uint16_t v) const {
    if (v != 0) (*this)(key, static_cast<uint64_t>(v));
  }
  void operator()(const char* key, const std::optional<int64_t>& v) const {
    if (v) (*this)(key, *v);
  }
};

const json::Value& Member(const json::Value& v, const char* key);
std::string GetStr(const json::Value& v, const char* key);
int64_t GetInt(const json::Value& v, const char* key);
uint64_t GetU64(const json::Value& v, const char* key);
bool GetBool(const json::Value& v, const char* key, bool otherwise);

// Reads each field it is given from the JSON object `v`; Unreadable when a field is missing or of
// another type (a boolean left out reads false, a small count left out 0, an optional number left
// out stays empty).
struct FieldReader {
  const json::Value& v;
  void operator()(const char* key, std::string& out) const { out = GetStr(v, key); }
  template <class Item>
  void operator()(const char* key, const ItemText<Item>& t) const { t.item.set(t.field, GetStr(v, key)); }
  void operator()(const char* key, int64_t& out) const { out = GetInt(v, key); }
  void operator()(const char* key, int& out) const { out = static_cast<int>(GetInt(v, key)); }
  void operator()(const char* key, uint64_t& out) const { out = GetU64(v, key); }
  void operator()(const char* key, bool& out) const { out = GetBool(v, key, false); }
  void operator()(const char* key, uint16_t& out) const {
    out = 0;
    if (!v.HasMember(key)) return;
    const uint64_t n = GetU64(v, key);
    if (n > 0xffff) throw Unreadable(std::string("\"") + key + "\" is out of range");
    out = static_cast<uint16_t>(n);
  }
  void operator()(const char* key, std::optional<int64_t>& out) const {
    if (v.HasMember(key)) out = GetInt(v, key);
  }
};

// Writes `value` as a JSON object of its fields (`fields`: one of the lists above, ItemFields{}, ...).
template <class T, class Fields>
void WriteObject(JsonWriter& w, const T& value, Fields fields) {
  w.StartObject();
  fields(value, FieldWriter{w});
  w.EndObject();
}

// Reads the fields of `value` from the JSON object `v`.
template <class T, class Fields>
void ReadObject(const json::Value& v, T& value, Fields fields) {
  fields(value, FieldReader{v});  // (Member names a value that is not an object)
}

}  // namespace cosmos::persist::records
