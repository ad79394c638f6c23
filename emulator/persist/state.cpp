#include "persist/state.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <chrono>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "persist/records.h"
#include "query/container_settings.h"
#include "util/util.h"

namespace cosmos::persist {
namespace {

using records::GetBool;
using records::GetInt;
using records::GetStr;
using records::GetU64;
using records::JsonWriter;
using records::Member;
using records::Unreadable;

// ---- writing records ---------------------------------------------------------------------------

void Str(JsonWriter& w, const char* key, std::string_view v) {
  w.Key(key);
  w.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
}
void Int(JsonWriter& w, const char* key, int64_t v) {
  w.Key(key);
  w.Int64(v);
}
void U64(JsonWriter& w, const char* key, uint64_t v) {
  w.Key(key);
  w.Uint64(v);
}
void Bool(JsonWriter& w, const char* key, bool v) {
  w.Key(key);
  w.Bool(v);
}

// An item's own values besides its JSON (which follows the header, after a newline).
void ItemFields(JsonWriter& w, const store::Item& it) { records::WriteObject(w, it, records::ItemFields{}); }

const char* KindCode(store::ChangeKind k) {
  switch (k) {
    case store::ChangeKind::kCreate: return "c";
    case store::ChangeKind::kReplace: return "r";
    case store::ChangeKind::kDelete: break;
  }
  return "d";
}

// "i": one change of a partition, as the log keeps it.
void SplitFields(JsonWriter& w, const store::RangeSplit& sp) { records::SplitFields{}(sp, records::FieldWriter{w}); }

// "s": a range of container "c" split (in the log between the parent's last change and the
// children's first).
std::string SplitRecord(const std::string& coll, const store::RangeSplit& sp) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  Str(w, "t", "s");
  Str(w, "c", coll);
  SplitFields(w, sp);
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

// What a change did to which item: its kind, partition key and id, the id it had before (a
// replace that renamed it), its new image's fields.
void ChangeFields(JsonWriter& w, const store::Change& c) {
  const store::Item& subject = c.current ? *c.current : *c.previous;
  Str(w, "k", KindCode(c.kind));
  Str(w, "pk", subject.pk());
  Str(w, "id", subject.id());
  // A replace that renamed the item: the id it had, whose key recovery moves it from.
  if (c.current && c.previous && c.previous->id() != c.current->id()) Str(w, "was", c.previous->id());
  if (c.current) {
    w.Key("img");
    ItemFields(w, *c.current);
  }
}

// "i": one change of a partition; "g": the changes of one transaction (one LSN, one time), in
// order, so that recovery applies all of them or none. The new images' texts follow the header,
// one a line, in the order of the changes that have one.
std::string ItemRecord(const store::PhysicalPartition& p, std::span<const store::Change> changes) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  const store::Change& first = changes.front();
  w.StartObject();
  Str(w, "t", changes.size() == 1 ? "i" : "g");
  Str(w, "c", p.owner_rid());
  Str(w, "r", p.range_id());
  U64(w, "l", first.lsn);
  Int(w, "at", first.crts);
  if (changes.size() == 1) {
    if (first.ttl_expired) Bool(w, "x", true);
    ChangeFields(w, first);
  } else {
    w.Key("ops");
    w.StartArray();
    for (const auto& c : changes) {
      w.StartObject();
      ChangeFields(w, c);
      w.EndObject();
    }
    w.EndArray();
  }
  w.EndObject();
  std::string out(buf.GetString(), buf.GetSize());
  for (const auto& c : changes) {
    if (!c.current) continue;
    out.push_back('\n');
    c.current->AppendText(out);
  }
  return out;
}

void OfferJson(JsonWriter& w, const store::OfferPtr& o) {
  if (!o) {
    w.Null();
    return;
  }
  const records::OfferRecord r{o->id(), o->resource_self(), o->resource_rid(), o->Capture()};
  records::WriteObject(w, r, records::OfferFields{});
}

// "d": a database as it now is, with everything in it but the items.
std::string DatabaseRecord(const store::Account& account, const store::Database& db) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  Str(w, "t", "d");
  Str(w, "id", db.id());
  Str(w, "rid", db.rid());
  Int(w, "ts", db.ts());
  Str(w, "etag", db.etag());
  const auto counters = account.counters();
  w.Key("a");
  w.StartObject();
  U64(w, "d", counters.databases);
  U64(w, "o", counters.offers);
  U64(w, "e", counters.etags);
  w.EndObject();
  w.Key("n");
  w.StartObject();
  U64(w, "c", db.container_counter());
  U64(w, "u", db.users().user_counter());
  U64(w, "p", db.users().permission_counter());
  U64(w, "k", db.encryption_keys().counter());
  w.EndObject();
  w.Key("offer");
  OfferJson(w, db.offer());
  w.Key("users");
  w.StartArray();
  for (const auto& e : db.users().All()) {
    w.StartObject();
    records::UserFields{}(e.user, records::FieldWriter{w});
    w.Key("perms");
    w.StartArray();
    for (const auto& p : e.permissions) records::WriteObject(w, *p, records::PermissionFields{});
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.Key("keys");
  w.StartArray();
  for (const auto& k : db.encryption_keys().List()) records::WriteObject(w, k, records::EncryptionKeyFields{});
  w.EndArray();
  w.Key("colls");
  w.StartArray();
  for (const auto& c : db.Containers()) {
    w.StartObject();
    const std::string doc = c->ToJson();
    w.Key("doc");
    w.RawValue(doc.data(), doc.size(), rapidjson::kObjectType);
    Int(w, "cts", c->created_ts());
    U64(w, "n", c->scripts().counter());
    // The ranges it was created with, then every split since, in order, from one list of splits
    // (a split may run meanwhile): the first split's children take the first ids after the
    // container's own ranges, so that count is its left child's id.
    // (Splits only add: read after the count, an empty list means the count is the first one.)
    uint64_t created_with = c->partition_count();
    const auto splits = c->splits();
    if (!splits.empty()) created_with = util::ParseInteger<uint64_t>(splits.front().left).value_or(created_with);
    U64(w, "parts", created_with);
    w.Key("splits");
    w.StartArray();
    for (const auto& sp : splits) {
      w.StartObject();
      SplitFields(w, sp);
      w.EndObject();
    }
    w.EndArray();
    w.Key("offer");
    OfferJson(w, c->offer());
    w.Key("scripts");
    w.StartArray();
    for (int kind = 0; kind < 3; ++kind) {
      for (const auto& sc : c->scripts().List(static_cast<store::ScriptKind>(kind))) {
        w.StartObject();
        Int(w, "k", kind);
        records::ScriptFields{}(*sc, records::FieldWriter{w});
        w.EndObject();
      }
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

std::string DeletedDatabaseRecord(const std::string& id) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  Str(w, "t", "x");
  Str(w, "id", id);
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

// "a": the account's own settings as they now are: its data-plane roles (the document the gateway
// reads and writes, kept as text).
std::string AccountRecord(const store::Account& account) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  Str(w, "t", "a");
  Str(w, "roles", account.roles());
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

// Snapshot only: "p" a partition's counters, then "v" each live item and "h" each entry of its
// all-versions log.
std::string PartitionRecord(const std::string& coll, const std::string& range, const store::PhysicalPartition::State& st) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  Str(w, "t", "p");
  Str(w, "c", coll);
  Str(w, "r", range);
  U64(w, "l", st.lsn);
  U64(w, "n", st.next_seq);
  Bool(w, "log", st.logging);
  U64(w, "la", st.log_after_lsn);
  Int(w, "ls", st.log_since);
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

std::string LiveItemRecord(const store::Item& item) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  Str(w, "t", "v");
  w.Key("img");
  ItemFields(w, item);
  w.EndObject();
  std::string out(buf.GetString(), buf.GetSize());
  out.push_back('\n');
  item.AppendText(out);
  return out;
}

std::string HistoryRecord(const store::Change& c) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  Str(w, "t", "h");
  U64(w, "l", c.lsn);
  Str(w, "k", KindCode(c.kind));
  Int(w, "at", c.crts);
  if (c.ttl_expired) Bool(w, "x", true);
  if (c.current) {
    w.Key("cur");
    ItemFields(w, *c.current);
  }
  if (c.previous) {
    w.Key("prev");
    ItemFields(w, *c.previous);
  }
  w.EndObject();
  std::string out(buf.GetString(), buf.GetSize());
  for (const auto* item : {c.current.get(), c.previous.get()}) {
    if (!item) continue;
    out.push_back('\n');
    item->AppendText(out);
  }
  return out;
}

void Frame(std::string& out, const std::string& record) {
  const auto n = static_cast<uint32_t>(record.size());
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
  out += record;
}

// ---- reading records ---------------------------------------------------------------------------

store::RangeSplit ReadSplit(const json::Value& h) {
  store::RangeSplit sp;
  records::SplitFields{}(sp, records::FieldReader{h});
  return sp;
}

// The header (JSON) and the item texts that follow it, one per line.
struct Parts {
  json::Document header;
  std::vector<std::string_view> texts;
};
Parts Split(std::string_view record) {
  Parts p;
  size_t nl = record.find('\n');
  std::string_view head = record.substr(0, nl);
  p.header.Parse(head.data(), head.size());
  if (p.header.HasParseError() || !p.header.IsObject()) throw Unreadable("its header is not a JSON object");
  while (nl != std::string_view::npos) {
    const size_t start = nl + 1;
    nl = record.find('\n', start);
    p.texts.push_back(record.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start));
  }
  return p;
}

store::ItemPtr ReadItem(const json::Value& f, std::string_view text) {
  auto item = store::NewItem();
  if (json::Parse(text, item->Draft()) != json::ParseStatus::kOk || !item->Draft().IsObject())
    throw Unreadable("an item's JSON does not parse");
  records::ReadObject(f, *item, records::ItemFields{});
  item->Seal();  // after its texts: those the document holds are then read from it
  return item;
}

store::ChangeKind KindOf(const std::string& code) {
  if (code == "c") return store::ChangeKind::kCreate;
  if (code == "r") return store::ChangeKind::kReplace;
  if (code == "d") return store::ChangeKind::kDelete;
  throw Unreadable("unknown change kind \"" + code + "\"");
}

store::OfferPtr ReadOffer(const json::Value& v) {
  if (v.IsNull()) return nullptr;
  records::OfferRecord r;
  records::ReadObject(v, r, records::OfferFields{});
  auto o = std::make_shared<store::Offer>(r.id, r.self, r.resource_rid, r.state.throughput, r.state.ts, r.state.etag);
  o->Restore(r.state);
  return o;
}

struct Pending {
  uint64_t seq;
  std::string record;
};

thread_local struct {
  const void* owner = nullptr;
  uint64_t seq = 0;
} t_written;

}  // namespace

// What replaying needs between records.
struct Persistence::Recovery {
  Recovery(store::Account& a, Persistence& j) : account(a), journal(j) {}
  store::Account& account;
  Persistence& journal;
  std::unordered_map<std::string, store::ContainerPtr> containers;  // by rid
  bool stale = true;  // `containers` must be rebuilt
  // Item changes of a container not (yet) known: a request may write an item into a container
  // between its creation and the creation's record. Applied when it appears; dropped at the end
  // (the container was deleted).
  std::unordered_map<std::string, std::vector<Pending>> pending;
  // The snapshot's partition being restored.
  store::PhysicalPartition* part = nullptr;
  store::ContainerPtr part_container;
  store::PhysicalPartition::State state;

  store::ContainerPtr Find(const std::string& rid) {
    if (stale) {
      containers.clear();
      for (const auto& db : account.Databases()) {
        for (const auto& c : db->Containers()) containers.emplace(c->rid(), c);
      }
      stale = false;
    }
    auto it = containers.find(rid);
    return it == containers.end() ? nullptr : it->second;
  }

  void FlushPartition() {
    if (!part) return;
    part->RestoreState(std::move(state), part_container->settings()->items());
    state = {};
    part = nullptr;
    part_container = nullptr;
  }

  void Apply(std::string_view record, uint64_t seq);
  void ApplyDatabase(const json::Value& h, uint64_t seq);
  void ApplyItem(const Parts& p, std::string_view record, uint64_t seq);
};

void Persistence::Recovery::ApplyDatabase(const json::Value& h, uint64_t seq) {
  const std::string id = GetStr(h, "id"), rid = GetStr(h, "rid");
  const auto& a = Member(h, "a");
  account.NoteCounters({static_cast<uint32_t>(GetU64(a, "d")), static_cast<uint32_t>(GetU64(a, "o")), GetU64(a, "e")});
  store::DatabasePtr db = account.FindDatabaseByRid(rid);
  if (!db) {
    db = std::make_shared<store::Database>(id, rid, GetInt(h, "ts"), GetStr(h, "etag"));
    db->set_offer(ReadOffer(Member(h, "offer")));
    account.RestoreDatabase(db);  // replaces an older database of the same id
  } else if (auto o = ReadOffer(Member(h, "offer")); o && db->offer()) {
    db->offer()->Restore(o->Capture());
  }
  const auto& n = Member(h, "n");
  db->NoteContainerCounter(static_cast<uint32_t>(GetU64(n, "c")));

  std::vector<store::UserSet::UserEntry> users;
  for (const auto& u : Member(h, "users").GetArray()) {
    store::UserSet::UserEntry e;
    records::ReadObject(u, e.user, records::UserFields{});
    for (const auto& p : Member(u, "perms").GetArray()) {
      auto perm = std::make_shared<store::Permission>();
      records::ReadObject(p, *perm, records::PermissionFields{});
      e.permissions.push_back(std::move(perm));
    }
    users.push_back(std::move(e));
  }
  db->users().Restore(std::move(users), static_cast<uint32_t>(GetU64(n, "u")), GetU64(n, "p"));

  std::vector<store::ClientEncryptionKey> keys;
  for (const auto& k : Member(h, "keys").GetArray()) {
    records::ReadObject(k, keys.emplace_back(), records::EncryptionKeyFields{});
  }
  db->encryption_keys().Restore(std::move(keys), static_cast<uint32_t>(GetU64(n, "k")));

  std::vector<store::ContainerPtr> containers_now;
  std::vector<store::ContainerPtr> appeared;
  for (const auto& entry : Member(h, "colls").GetArray()) {
    const auto& doc = Member(entry, "doc");
    const std::string crid = GetStr(doc, "_rid");
    const int64_t ts = GetInt(doc, "_ts");
    const std::string etag = GetStr(doc, "_etag");
    store::ContainerPtr c = db->FindContainerByRid(crid);
    auto own_offer = ReadOffer(Member(entry, "offer"));
    if (c) {
      c->Replace(query::StoredContainerSettings(doc), ts, etag);
      if (own_offer && c->offer()) c->offer()->Restore(own_offer->Capture());
    } else {
      const int64_t cts = GetInt(entry, "cts");
      const auto parts = static_cast<int>(GetU64(entry, "parts"));
      store::OfferPtr shared = own_offer ? nullptr : db->offer();
      c = std::make_shared<store::Container>(GetStr(doc, "id"), crid, db->rid(),
                                             store::PartitionKeyDefinition::FromJson(Member(doc, "partitionKey")),
                                             query::StoredContainerSettings(doc), cts, etag, own_offer, shared,
                                             parts);
      if (ts != cts) c->Replace(query::StoredContainerSettings(doc), ts, etag);
      if (auto sp = entry.FindMember("splits"); sp != entry.MemberEnd() && sp->value.IsArray()) {
        for (const auto& one : sp->value.GetArray()) c->ReplaySplit(ReadSplit(one));
      }
      c->AttachJournal(&journal);
      appeared.push_back(c);
    }
    std::vector<store::ScriptPtr> lists[3];
    for (const auto& sc : Member(entry, "scripts").GetArray()) {
      const int64_t kind = GetInt(sc, "k");
      if (kind < 0 || kind > 2) throw Unreadable("unknown script kind");
      auto script = std::make_shared<store::ScriptResource>();
      records::ReadObject(sc, *script, records::ScriptFields{});
      lists[kind].push_back(std::move(script));
    }
    c->scripts().Restore(lists, static_cast<uint32_t>(GetU64(entry, "n")));
    containers_now.push_back(std::move(c));
  }
  db->RestoreContainers(std::move(containers_now));
  stale = true;
  for (const auto& c : appeared) {
    auto it = pending.find(c->rid());
    if (it == pending.end()) continue;
    auto waiting = std::move(it->second);
    pending.erase(it);
    for (const auto& w : waiting) Apply(w.record, w.seq);
  }
  (void)seq;
}

void Persistence::Recovery::ApplyItem(const Parts& p, std::string_view record, uint64_t seq) {
  const auto& h = p.header;
  const std::string crid = GetStr(h, "c");
  store::ContainerPtr c = Find(crid);
  if (!c) {
    pending[crid].push_back({seq, std::string(record)});
    return;
  }
  store::PhysicalPartition* part = c->PartitionById(GetStr(h, "r"));
  if (!part) throw Unreadable("partition key range " + GetStr(h, "r") + " of container " + crid + " does not exist");
  if (GetStr(h, "t") == "g") {  // one transaction's changes
    std::vector<store::PhysicalPartition::Replayed> changes;
    size_t next = 0;
    const auto& ops = Member(h, "ops");
    if (!ops.IsArray() || ops.Empty()) throw Unreadable("a transaction without its changes");
    for (const auto& op : ops.GetArray()) {
      store::PhysicalPartition::Replayed r;
      r.pk = GetStr(op, "pk");
      r.id = GetStr(op, "id");
      if (op.HasMember("was")) r.was = GetStr(op, "was");
      if (KindOf(GetStr(op, "k")) != store::ChangeKind::kDelete) {
        if (next >= p.texts.size()) throw Unreadable("a transaction's change without its item");
        r.image = ReadItem(Member(op, "img"), p.texts[next++]);
        account.NoteEtag(r.image->etag());
      }
      changes.push_back(std::move(r));
    }
    if (next != p.texts.size()) throw Unreadable("a transaction with more items than changes");
    part->ReplayGroup(GetU64(h, "l"), changes, GetInt(h, "at"), c->settings()->items());
    return;
  }
  const bool deleted = KindOf(GetStr(h, "k")) == store::ChangeKind::kDelete;
  store::ItemPtr image;
  if (!deleted) {
    if (p.texts.size() != 1) throw Unreadable("an item change without its item");
    image = ReadItem(Member(h, "img"), p.texts[0]);
    account.NoteEtag(image->etag());
  }
  part->Replay(GetU64(h, "l"), std::move(image), GetStr(h, "pk"), GetStr(h, "id"), GetInt(h, "at"),
               GetBool(h, "x", false), c->settings()->items(), h.HasMember("was") ? GetStr(h, "was") : "");
}

void Persistence::Recovery::Apply(std::string_view record, uint64_t seq) {
  Parts p = Split(record);
  const std::string type = GetStr(p.header, "t");
  if (type != "v" && type != "h") FlushPartition();
  if (type == "i" || type == "g") {
    ApplyItem(p, record, seq);
  } else if (type == "d") {
    ApplyDatabase(p.header, seq);
  } else if (type == "s") {
    const std::string crid = GetStr(p.header, "c");
    store::ContainerPtr c = Find(crid);
    if (!c) {
      pending[crid].push_back({seq, std::string(record)});
    } else {
      c->ReplaySplit(ReadSplit(p.header));  // false: the container's record already had it
    }
  } else if (type == "a") {
    account.set_roles(GetStr(p.header, "roles"));
  } else if (type == "x") {
    account.DeleteDatabase(GetStr(p.header, "id"));
    stale = true;
  } else if (type == "p") {
    const std::string crid = GetStr(p.header, "c");
    part_container = Find(crid);
    if (!part_container) throw Unreadable("a partition of container " + crid + ", which the snapshot does not hold");
    part = part_container->PartitionById(GetStr(p.header, "r"));
    if (!part) throw Unreadable("partition key range " + GetStr(p.header, "r") + " does not exist");
    state.lsn = GetU64(p.header, "l");
    state.next_seq = GetU64(p.header, "n");
    state.logging = GetBool(p.header, "log", false);
    state.log_after_lsn = GetU64(p.header, "la");
    state.log_since = GetInt(p.header, "ls");
  } else if (type == "v") {
    if (!part) throw Unreadable("an item outside a partition");
    if (p.texts.size() != 1) throw Unreadable("an item record without its item");
    auto item = ReadItem(Member(p.header, "img"), p.texts[0]);
    account.NoteEtag(item->etag());
    state.items.push_back(std::move(item));
  } else if (type == "h") {
    if (!part) throw Unreadable("a change outside a partition");
    store::Change c;
    c.lsn = GetU64(p.header, "l");
    c.kind = KindOf(GetStr(p.header, "k"));
    c.crts = GetInt(p.header, "at");
    c.ttl_expired = GetBool(p.header, "x", false);
    size_t next = 0;
    for (auto [key, slot] : {std::pair{"cur", &c.current}, std::pair{"prev", &c.previous}}) {
      if (!p.header.HasMember(key)) continue;
      if (next >= p.texts.size()) throw Unreadable("a change without its item");
      *slot = ReadItem(Member(p.header, key), p.texts[next++]);
    }
    state.log.push_back(std::move(c));
  } else {
    throw Unreadable("unknown record type \"" + type + "\"");
  }
}

Persistence::Persistence(store::Account& account, Options options, RecoveryReport& report)
    : account_(account), options_(std::move(options)), log_(options_.dir, options_.durability, recovered_, options_.recovery) {
  report = RecoveryReport{};
  report.discarded_bytes = recovered_.discarded_bytes;
  report.discarded_reason = recovered_.discarded_reason;
  report.salvaged = recovered_.salvaged;
  report.set_aside = recovered_.set_aside;
  Recovery r(account_, *this);
  uint64_t at = 0;
  try {
    if (recovered_.snapshot) {
      // The snapshot's payload: records framed by their length (u32, little-endian).
      const std::string& snap = *recovered_.snapshot;
      size_t pos = 0;
      while (pos < snap.size()) {
        if (snap.size() - pos < 4) throw Unreadable("the snapshot's last record is cut short");
        uint32_t n = 0;
        for (int i = 3; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(snap[pos + i]);
        pos += 4;
        if (snap.size() - pos < n) throw Unreadable("the snapshot's last record is cut short");
        ++report.snapshot_records;
        r.Apply(std::string_view(snap).substr(pos, n), 0);
        pos += n;
      }
      r.FlushPartition();
    }
    for (const auto& rec : recovered_.records) {
      at = rec.seq;
      r.Apply(rec.payload, rec.seq);
      ++report.log_records;
    }
    r.FlushPartition();
  } catch (const std::exception& e) {
    throw PersistError("cannot recover from " + options_.dir + ": " +
                       (at ? "log record " + std::to_string(at) : std::string("the snapshot")) + ": " + e.what() +
                       "; start-up stopped so that nothing is lost silently");
  }
  recovered_ = Recovered{};  // the bytes are in the account now
  for (const auto& db : account_.Databases()) {
    ++report.databases;
    for (const auto& c : db->Containers()) {
      ++report.containers;
      c->AttachJournal(this);
      for (const auto& p : c->partitions()) report.items += p->Count();
      c->PrepareIndexes(std::max(1u, std::thread::hardware_concurrency()));  // no first query waits for them
    }
  }
  account_.set_journal(this);
  report.milliseconds =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - created_).count();
  loop_ = std::thread([this] { CheckpointLoop(); });
  // Replayed records: fold them into a snapshot, so that the next start reads one file.
  if (report.log_records > 0) RequestCheckpoint();
}

uint64_t Persistence::Write(const std::string& payload) {
  const uint64_t seq = log_.Write(payload);
  t_written.owner = this;
  t_written.seq = seq;
  if (log_.log_bytes() > options_.checkpoint_bytes) RequestCheckpoint();
  return seq;
}

void Persistence::ItemsChanged(const store::PhysicalPartition& p, std::span<const store::Change> changes) {
  if (!changes.empty()) Write(ItemRecord(p, changes));
}

void Persistence::RangesSplit(const std::string& container_rid, const store::RangeSplit& split) {
  Write(SplitRecord(container_rid, split));
}

void Persistence::DatabaseChanged(const std::string& id) {
  store::JournalHold hold(this);
  std::lock_guard lock(meta_mu_);
  auto db = account_.FindDatabase(id);
  Write(db ? DatabaseRecord(account_, *db) : DeletedDatabaseRecord(id));
}

void Persistence::AccountChanged() {
  store::JournalHold hold(this);
  std::lock_guard lock(meta_mu_);
  Write(AccountRecord(account_));
}

void Persistence::AwaitDurable() {
  if (t_written.owner != this || t_written.seq == 0) return;
  const uint64_t seq = t_written.seq;
  t_written = {};
  log_.Sync(seq);
}

void Persistence::ForgetThread() { t_written = {}; }

void Persistence::RequestCheckpoint() {
  {
    std::lock_guard lock(loop_mu_);
    if (wanted_) return;
    wanted_ = true;
  }
  loop_cv_.notify_all();
}

void Persistence::CheckpointLoop() {
  std::unique_lock lock(loop_mu_);
  for (;;) {
    loop_cv_.wait(lock, [this] { return wanted_ || stopping_; });
    if (stopping_) return;
    lock.unlock();
    try {
      Checkpoint();
    } catch (const std::exception& e) {
      if (options_.warn) options_.warn(std::string("checkpoint failed: ") + e.what());
    }
    lock.lock();
    wanted_ = false;
  }
}

void Persistence::Checkpoint() {
  std::lock_guard one(checkpoint_mu_);
  struct Part {
    std::string coll;
    std::string range;
    store::PhysicalPartition::State state;
  };
  std::string account;  // "a", when the account has settings of its own
  std::vector<std::string> databases;
  std::vector<Part> parts;
  Log::Mark at;
  {
    // No change is being applied or recorded while the state is captured: the capture holds
    // exactly the records up to `at`. Items are immutable, so capturing them is copying pointers.
    std::lock_guard exclusive(gate());
    at = log_.Position();
    if (!account_.roles().empty()) account = AccountRecord(account_);
    for (const auto& db : account_.Databases()) {
      databases.push_back(DatabaseRecord(account_, *db));
      for (const auto& c : db->Containers()) {
        for (const auto& p : c->partitions()) parts.push_back({c->rid(), p->range_id(), p->Capture()});
      }
    }
  }
  std::string payload;
  if (!account.empty()) Frame(payload, account);
  for (const auto& d : databases) Frame(payload, d);
  for (const auto& part : parts) {
    Frame(payload, PartitionRecord(part.coll, part.range, part.state));
    for (const auto& item : part.state.items) Frame(payload, LiveItemRecord(*item));
    for (const auto& change : part.state.log) Frame(payload, HistoryRecord(change));
  }
  log_.Checkpoint(payload, at);
}

Persistence::~Persistence() {
  {
    std::lock_guard lock(loop_mu_);
    stopping_ = true;
  }
  loop_cv_.notify_all();
  if (loop_.joinable()) loop_.join();
  account_.set_journal(nullptr);
}

}  // namespace cosmos::persist
