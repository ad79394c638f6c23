#include "seed/seed.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <thread>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <vector>

#include "http/headers.h"
#include "common/errors.h"
#include "handlers/common.h"
#include "handlers/handlers.h"
#include "json/json.h"
#include "store/store.h"
#include "util/util.h"

namespace cosmos::seed {
namespace {

namespace fs = std::filesystem;

constexpr const char* kManifestName = "manifest.json";

// A data file mapped into memory, read only, for as long as the load needs its text.
class MappedFile {
 public:
  explicit MappedFile(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw SeedError("cannot read " + path + ": " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
      const int err = errno;
      ::close(fd);
      throw SeedError("cannot read " + path + ": " + std::strerror(err));
    }
    size_ = static_cast<size_t>(st.st_size);
    if (size_ > 0) {
      void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
      const int err = errno;
      ::close(fd);
      if (p == MAP_FAILED) throw SeedError("cannot read " + path + ": " + std::strerror(err));
      data_ = static_cast<const char*>(p);
    } else {
      ::close(fd);
    }
  }
  ~MappedFile() {
    if (data_) ::munmap(const_cast<char*>(data_), size_);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  std::string_view text() const { return data_ ? std::string_view(data_, size_) : std::string_view(); }

 private:
  const char* data_ = nullptr;
  size_t size_ = 0;
};

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SeedError("cannot read " + path + ": " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool SameThroughput(const store::Throughput& a, const store::Throughput& b) {
  return a.ru == b.ru && a.autoscale == b.autoscale;
}

std::string Describe(const store::Throughput& t) {
  return (t.autoscale ? "autoscale up to " : "manual ") + std::to_string(t.ru) + " RU/s";
}

std::string Describe(const store::PartitionKeyDefinition& d) {
  std::string paths;
  for (const auto& p : d.paths) paths += (paths.empty() ? "" : ", ") + p;
  return d.kind + " (" + paths + ") version " + std::to_string(d.version);
}

// Reads one manifest entry; `where` names it in messages.
class EntryReader {
 public:
  EntryReader(const json::Value& v, std::string where) : v_(v), where_(std::move(where)) {}

  [[noreturn]] void Fail(const std::string& why) const { throw SeedError(where_ + ": " + why); }

  const json::Value* Find(const char* name) const {
    auto it = v_.FindMember(name);
    return it == v_.MemberEnd() ? nullptr : &it->value;
  }

  // A database or container id, checked as the REST API checks it.
  std::string Id(const char* name) const {
    const json::Value* v = Find(name);
    if (!v) Fail(std::string("\"") + name + "\" is missing");
    if (!v->IsString()) Fail(std::string("\"") + name + "\" must be a string");
    json::Document d;
    d.SetObject();
    d.AddMember("id", json::Value(*v, d.GetAllocator()), d.GetAllocator());
    try {
      handlers::ValidateId(d);
    } catch (const CosmosError& e) {
      Fail(std::string("\"") + name + "\": " + PlainMessage(e.what()));
    }
    return v->GetString();
  }

  std::optional<store::Throughput> Throughput(const char* name) const {
    const json::Value* v = Find(name);
    if (!v) return std::nullopt;
    const char* usage = "must be {\"manual\": RU/s} or {\"autoscale\": maximum RU/s}";
    if (!v->IsObject() || v->MemberCount() != 1) Fail(std::string("\"") + name + "\" " + usage);
    const auto& m = *v->MemberBegin();
    const std::string kind = m.name.GetString();
    if ((kind != "manual" && kind != "autoscale") || !m.value.IsInt64()) Fail(std::string("\"") + name + "\" " + usage);
    try {
      return handlers::CheckedThroughput(m.value.GetInt64(), kind == "autoscale");
    } catch (const CosmosError& e) {
      Fail(std::string("\"") + name + "\": " + PlainMessage(e.what()));
    }
  }

 private:
  const json::Value& v_;
  std::string where_;
};

// The entries that name one container, merged: its settings and all their data.
struct Target {
  ContainerEntry entry;
  std::vector<std::string> data_names;  // as messages name them
  std::vector<std::string> data_paths;
  std::vector<Format> formats;
  store::DatabasePtr db;     // when it exists
  store::ContainerPtr c;     // when it exists (or once created)
};

// A REST handler called with a request made here (no HTTP, no authentication): databases and
// containers are created exactly as a client's request creates them.
http::Result CallCreate(http::Services& s, http::Result (*handler)(http::Services&, http::RequestContext&),
                        std::vector<std::string> segments, std::vector<std::pair<std::string, std::string>> params,
                        std::string body, const std::vector<std::pair<std::string, std::string>>& headers) {
  http::Request req{http::beast_http::verb::post, "/", 11};
  for (const auto& [name, value] : headers) req.set(name, value);
  req.body() = std::move(body);
  http::RequestContext ctx(req, std::move(segments));
  ctx.SetParams(std::move(params));
  return handler(s, ctx);
}

std::vector<std::pair<std::string, std::string>> ThroughputHeaders(const std::optional<store::Throughput>& t) {
  if (!t) return {};
  if (t->autoscale) return {{http::headers::kOfferAutopilotSettings, "{\"maxThroughput\":" + std::to_string(t->ru) + "}"}};
  return {{http::headers::kOfferThroughput, std::to_string(t->ru)}};
}

// What a seed created, so that a failed seed can take it away again.
class Created {
 public:
  explicit Created(http::Services& s) : s_(s) {}
  void Database(const std::string& id) { dbs_.push_back(id); }
  void Container(const std::string& db, const std::string& id) { containers_.emplace_back(db, id); }
  size_t databases() const { return dbs_.size(); }
  size_t containers() const { return containers_.size(); }
  // Deletes what was created (it holds no item yet) and records it as the pipeline would.
  void Undo() {
    store::Journal* journal = s_.account.journal();
    for (auto it = containers_.rbegin(); it != containers_.rend(); ++it) {
      if (std::find(dbs_.begin(), dbs_.end(), it->first) != dbs_.end()) continue;  // goes with its database
      if (auto db = s_.account.FindDatabase(it->first)) db->RemoveContainer(it->second);
      if (journal) journal->DatabaseChanged(it->first);
    }
    for (auto it = dbs_.rbegin(); it != dbs_.rend(); ++it) {
      s_.account.DeleteDatabase(*it);
      if (journal) journal->DatabaseChanged(*it);
    }
    if (journal) journal->AwaitDurable();
    dbs_.clear();
    containers_.clear();
  }

 private:
  http::Services& s_;
  std::vector<std::string> dbs_;
  std::vector<std::pair<std::string, std::string>> containers_;
};

// Checks an existing container against what the manifest says of it.
void CheckExisting(const Target& t) {
  const ContainerEntry& e = t.entry;
  const std::string name = e.database + "/" + e.container;
  const auto& have = t.c->partition_key();
  if (have.paths != e.partition_key.paths || have.kind != e.partition_key.kind ||
      (e.version_given && have.version != e.partition_key.version))
    throw SeedError("container " + name + " exists with partition key " + Describe(have) + "; the manifest says " +
                    Describe(e.partition_key));
  if (e.throughput) {
    if (!t.c->offer())
      throw SeedError("container " + name + " exists and shares its database's throughput; the manifest gives it " +
                      Describe(*e.throughput));
    if (!SameThroughput(t.c->offer()->throughput(), *e.throughput))
      throw SeedError("container " + name + " exists with " + Describe(t.c->offer()->throughput()) +
                      "; the manifest says " + Describe(*e.throughput));
  }
  if (e.indexing_policy_json) {
    const std::string have_policy = json::Write(t.c->settings()->indexing.raw);
    if (have_policy != *e.indexing_policy_json)
      throw SeedError("container " + name + " exists with the indexing policy " + have_policy +
                      "; the manifest says " + *e.indexing_policy_json);
  }
  if (e.partition_count && static_cast<size_t>(*e.partition_count) != t.c->partitions().size())
    throw SeedError("container " + name + " exists with " + std::to_string(t.c->partitions().size()) +
                    " physical partitions; the manifest says " + std::to_string(*e.partition_count));
}

void RefuseUniqueKeys(const store::Container& c, const std::string& name) {
  const auto uk = c.settings()->unique_keys;
  if (uk && !uk->empty())
    throw SeedError("container " + name +
                    " has unique keys: items are not loaded into such containers (a unique-key conflict would "
                    "stop a load half-way); create them with the REST API instead");
}

std::string ErrorsJson(const Outcome& o) {
  std::string out = "[";
  for (size_t i = 0; i < o.errors.size(); ++i) {
    const ItemError& e = o.errors[i];
    if (i) out += ',';
    out += "{\"line\":" + std::to_string(e.line);
    if (e.item) out += ",\"item\":" + std::to_string(e.item);
    out += ",\"message\":";
    json::WriteString(out, e.message);
    out += '}';
  }
  out += ']';
  return out;
}

}  // namespace

std::optional<Format> FormatOf(std::string_view file) {
  auto ends = [&](std::string_view suffix) {
    return file.size() >= suffix.size() && util::EqualsIgnoreCase(file.substr(file.size() - suffix.size()), suffix);
  };
  if (ends(".jsonl") || ends(".ndjson")) return Format::kLines;
  if (ends(".json")) return Format::kJson;
  return std::nullopt;
}

Manifest ParseManifest(std::string_view text, const std::string& file, const std::string& base_dir) {
  Manifest m;
  m.file = file;
  m.base_dir = base_dir;
  json::Document d;
  switch (json::Parse(text, d)) {
    case json::ParseStatus::kOk:
      break;
    case json::ParseStatus::kTooDeep:
      throw SeedError(file + ": nested too deep");
    case json::ParseStatus::kMalformed:
      throw SeedError(file + ": not valid JSON");
  }
  if (!d.IsObject()) throw SeedError(file + ": the manifest must be a JSON object {\"containers\": [...]}");
  for (const auto& member : d.GetObject()) {
    if (std::string_view(member.name.GetString()) != "containers")
      throw SeedError(file + ": unknown property \"" + std::string(member.name.GetString()) +
                      "\" (a manifest has only \"containers\")");
  }
  auto list = d.FindMember("containers");
  if (list == d.MemberEnd() || !list->value.IsArray() || list->value.Empty())
    throw SeedError(file + ": \"containers\" must be a non-empty array");
  size_t index = 0;
  for (const auto& v : list->value.GetArray()) {
    const std::string where = file + ": containers[" + std::to_string(index++) + "]";
    if (!v.IsObject()) throw SeedError(where + ": each entry must be an object");
    EntryReader r(v, where);
    static const char* const kKnown[] = {"database",           "container",      "partitionKey",   "throughput",
                                         "databaseThroughput", "partitionCount", "indexingPolicy", "data"};
    for (const auto& member : v.GetObject()) {
      const std::string name = member.name.GetString();
      if (std::find_if(std::begin(kKnown), std::end(kKnown), [&](const char* k) { return name == k; }) == std::end(kKnown))
        r.Fail("unknown property \"" + name +
               "\" (known: database, container, partitionKey, throughput, databaseThroughput, partitionCount, "
               "indexingPolicy, data)");
    }
    ContainerEntry e;
    e.database = r.Id("database");
    e.container = r.Id("container");
    const json::Value* pk = r.Find("partitionKey");
    if (!pk) r.Fail("\"partitionKey\" is missing (e.g. {\"paths\": [\"/pk\"], \"kind\": \"Hash\", \"version\": 2})");
    if (!pk->IsObject()) r.Fail("\"partitionKey\" must be an object {\"paths\": [...], \"kind\": ..., \"version\": ...}");
    for (const auto& member : pk->GetObject()) {
      const std::string name = member.name.GetString();
      if (name != "paths" && name != "kind" && name != "version")
        r.Fail("\"partitionKey\": unknown property \"" + name + "\" (known: paths, kind, version)");
    }
    try {
      e.partition_key = store::PartitionKeyDefinition::FromJson(*pk);
    } catch (const CosmosError& err) {
      r.Fail("\"partitionKey\": " + PlainMessage(err.what()));
    }
    e.version_given = pk->HasMember("version") && !(*pk)["version"].IsNull();
    e.partition_key_json = json::Write(*pk);
    e.throughput = r.Throughput("throughput");
    e.database_throughput = r.Throughput("databaseThroughput");
    if (const json::Value* n = r.Find("partitionCount")) {
      if (!n->IsInt() || n->GetInt() < 1 || n->GetInt() > handlers::kMaxPartitionCount)
        r.Fail("\"partitionCount\" must be a whole number from 1 to " + std::to_string(handlers::kMaxPartitionCount));
      e.partition_count = n->GetInt();
    }
    if (const json::Value* policy = r.Find("indexingPolicy")) {
      if (!policy->IsObject()) r.Fail("\"indexingPolicy\" must be an object, as in the body of a REST container create");
      try {
        e.indexing_policy_json = json::Write(store::IndexingPolicy::FromJson(policy).raw);
      } catch (const CosmosError& err) {
        r.Fail("\"indexingPolicy\": " + PlainMessage(err.what()));
      }
    }
    const json::Value* data = r.Find("data");
    if (!data) r.Fail("\"data\" is missing (a file or directory, or an array of them, relative to the manifest)");
    auto add_path = [&](const json::Value& p) {
      if (!p.IsString() || p.GetStringLength() == 0) r.Fail("\"data\" must name files or directories (non-empty strings)");
      e.data.emplace_back(p.GetString(), p.GetStringLength());
    };
    if (data->IsArray()) {
      if (data->Empty()) r.Fail("\"data\" is an empty array");
      for (const auto& p : data->GetArray()) add_path(p);
    } else {
      add_path(*data);
    }
    // Entries naming the same container or database must agree.
    for (const auto& other : m.containers) {
      if (other.database != e.database) continue;
      if (e.database_throughput && other.database_throughput &&
          !SameThroughput(*e.database_throughput, *other.database_throughput))
        r.Fail("database " + e.database + " is given two different \"databaseThroughput\" values");
      if (other.container != e.container) continue;
      const bool same = other.partition_key.paths == e.partition_key.paths && other.partition_key.kind == e.partition_key.kind &&
                        other.partition_key.version == e.partition_key.version &&
                        other.throughput.has_value() == e.throughput.has_value() &&
                        (!e.throughput || SameThroughput(*e.throughput, *other.throughput)) &&
                        other.partition_count == e.partition_count &&
                        other.indexing_policy_json == e.indexing_policy_json;
      if (!same)
        r.Fail("container " + e.database + "/" + e.container +
               " is named by an earlier entry with other settings (partitionKey, throughput, partitionCount, "
               "indexingPolicy)");
    }
    m.containers.push_back(std::move(e));
  }
  return m;
}

Manifest ReadManifest(const std::string& path) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) throw SeedError(path + " does not exist");
  std::string file = path;
  if (fs::is_directory(st)) {
    file = (fs::path(path) / kManifestName).string();
    if (!fs::exists(file, ec))
      throw SeedError(path + " holds no " + kManifestName +
                      " (the manifest naming each container and its data files; docs/seeding.md)");
  }
  std::string base = fs::path(file).parent_path().string();
  if (base.empty()) base = ".";
  return ParseManifest(ReadText(file), file, base);
}

std::vector<std::string> DataFiles(const std::string& base_dir, const std::string& path, const std::string& manifest,
                                   std::vector<std::string>* ignored) {
  const fs::path given(path);
  const fs::path full = given.is_absolute() ? given : fs::path(base_dir) / given;
  std::error_code ec;
  const fs::file_status st = fs::status(full, ec);
  if (ec || !fs::exists(st)) throw SeedError(manifest + ": the data path " + path + " does not exist (" + full.string() + ")");
  if (!fs::is_directory(st)) {
    if (!FormatOf(full.filename().string()))
      throw SeedError(manifest + ": the data file " + path +
                      " is neither .json (an item, or an array of items) nor .jsonl or .ndjson (an item per line)");
    return {full.string()};
  }
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(full, ec)) {
    if (!entry.is_regular_file()) continue;
    if (fs::equivalent(entry.path(), manifest, ec)) continue;  // the manifest is not data
    if (FormatOf(entry.path().filename().string())) {
      files.push_back(entry.path().string());
    } else if (ignored) {
      ignored->push_back(entry.path().string());
    }
  }
  if (ec) throw SeedError(manifest + ": cannot list " + full.string() + ": " + ec.message());
  std::sort(files.begin(), files.end());
  if (ignored) std::sort(ignored->begin(), ignored->end());
  if (files.empty()) throw SeedError(manifest + ": the directory " + path + " holds no .json, .jsonl or .ndjson file");
  return files;
}

SeedReport Seed(http::Services& s, const std::string& path, const SeedOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  SeedReport report;
  const Manifest manifest = ReadManifest(path);

  // One target per container; the data of every entry naming it, in manifest order.
  std::vector<Target> targets;
  for (const auto& e : manifest.containers) {
    auto it = std::find_if(targets.begin(), targets.end(), [&](const Target& t) {
      return t.entry.database == e.database && t.entry.container == e.container;
    });
    if (it == targets.end()) {
      targets.push_back(Target{e, {}, {}, {}, nullptr, nullptr});
      it = targets.end() - 1;
    }
    if (e.database_throughput) it->entry.database_throughput = e.database_throughput;
    for (const auto& p : e.data) {
      std::vector<std::string> ignored;
      for (auto& f : DataFiles(manifest.base_dir, p, manifest.file, &ignored)) {
        const fs::path given(p);
        // Named in messages as the manifest names it: the file, or the directory and the file.
        std::string name = fs::is_directory(given.is_absolute() ? given : fs::path(manifest.base_dir) / given)
                               ? (given / fs::path(f).filename()).string()
                               : p;
        it->formats.push_back(*FormatOf(f));
        it->data_paths.push_back(std::move(f));
        it->data_names.push_back(std::move(name));
      }
      if (options.notice) {
        for (const auto& f : ignored)
          options.notice("seed: ignored " + f + " (not .json, .jsonl or .ndjson)");
      }
    }
  }
  // Every database's shared throughput, from whichever entry gives it.
  for (auto& t : targets) {
    for (const auto& other : targets) {
      if (other.entry.database == t.entry.database && other.entry.database_throughput)
        t.entry.database_throughput = other.entry.database_throughput;
    }
  }

  // What exists must be what the manifest describes.
  for (auto& t : targets) {
    const std::string name = t.entry.database + "/" + t.entry.container;
    t.db = s.account.FindDatabase(t.entry.database);
    if (!t.db) continue;
    if (t.entry.database_throughput) {
      if (!t.db->offer())
        throw SeedError("database " + t.entry.database + " exists without shared throughput; the manifest gives it " +
                        Describe(*t.entry.database_throughput));
      if (!SameThroughput(t.db->offer()->throughput(), *t.entry.database_throughput))
        throw SeedError("database " + t.entry.database + " exists with shared " +
                        Describe(t.db->offer()->throughput()) + "; the manifest says " +
                        Describe(*t.entry.database_throughput));
    }
    t.c = t.db->FindContainer(t.entry.container);
    if (t.c) {
      CheckExisting(t);
      RefuseUniqueKeys(*t.c, name);
    }
  }

  std::vector<std::unique_ptr<MappedFile>> files;
  for (const auto& t : targets) {
    for (const auto& f : t.data_paths) {
      files.push_back(std::make_unique<MappedFile>(f));
      report.bytes += files.back()->text().size();
    }
  }
  report.files = files.size();
  report.containers = targets.size();

  // Create what is missing, as the REST API would; taken away again if the load fails.
  Created created(s);
  store::Journal* journal = s.account.journal();
  try {
    for (auto& t : targets) {
      if (t.c) continue;
      const ContainerEntry& e = t.entry;
      if (!t.db) t.db = s.account.FindDatabase(e.database);  // made for an earlier target
      if (!t.db) {
        CallCreate(s, handlers::CreateDatabase, {"dbs"}, {}, "{\"id\":" + json::Quote(e.database) + "}",
                   ThroughputHeaders(e.database_throughput));
        created.Database(e.database);
        t.db = s.account.FindDatabase(e.database);
      }
      auto headers = ThroughputHeaders(e.throughput);
      if (e.partition_count) headers.emplace_back(http::headers::kPartitionCount, std::to_string(*e.partition_count));
      CallCreate(s, handlers::CreateContainer, {"dbs", e.database, "colls"}, {{"db", e.database}},
                 "{\"id\":" + json::Quote(e.container) + ",\"partitionKey\":" + e.partition_key_json +
                     (e.indexing_policy_json ? ",\"indexingPolicy\":" + *e.indexing_policy_json : std::string()) + "}",
                 headers);
      created.Container(e.database, e.container);
      t.c = t.db->FindContainer(e.container);
      if (journal) journal->DatabaseChanged(e.database);
    }
  } catch (const CosmosError& err) {
    created.Undo();
    throw SeedError("cannot create what the manifest describes: " + PlainMessage(err.what()));
  }
  report.databases_created = created.databases();
  report.containers_created = created.containers();

  Loader::Options lo;
  lo.on_error = options.on_error;
  lo.threads = options.threads;
  lo.max_errors_kept = options.max_errors_kept;
  lo.progress = options.progress;
  Loader loader(s, lo);
  size_t file_index = 0;
  for (auto& t : targets) {
    std::vector<Source> sources;
    for (size_t i = 0; i < t.data_paths.size(); ++i)
      sources.push_back(Source{t.data_names[i], files[file_index++]->text(), t.formats[i]});
    loader.Add(t.c, t.entry.database + "/" + t.entry.container, std::move(sources));
  }
  try {
    const Outcome& checked = loader.Check();
    if (options.on_error == OnError::kFail && checked.error_count > 0) {
      created.Undo();
      report.databases_created = report.containers_created = 0;
    } else {
      std::vector<std::unique_ptr<store::Container::BulkLoad>> bulk;  // built in bulk below, not as they grow
      for (auto& t : targets) bulk.push_back(std::make_unique<store::Container::BulkLoad>(*t.c));
      loader.Apply();
      // The indexes queries will ask for, built now rather than by the first query.
      const unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
      for (auto& t : targets) t.c->PrepareIndexes(threads);
    }
  } catch (...) {
    created.Undo();
    throw;
  }
  if (journal) journal->AwaitDurable();  // the database records this thread wrote
  report.outcome = loader.outcome();
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return report;
}

ImportResult Import(http::Services& s, std::string_view target, std::string_view body) {
  std::string database, container;
  bool have_database = false, have_container = false;
  OnError on_error = OnError::kFail;
  const char* kUsage =
      "POST /_emulator/import?database=DB&container=COLL[&errors=fail|skip] with the items as JSON lines or a "
      "JSON array (docs/seeding.md).";
  auto q = target.find('?');
  if (q != std::string_view::npos) {
    for (std::string_view part : util::Split(target.substr(q + 1), '&')) {
      if (part.empty()) continue;
      const auto eq = part.find('=');
      const std::string_view name = part.substr(0, eq);
      auto value = util::PercentDecode(eq == std::string_view::npos ? std::string_view() : part.substr(eq + 1));
      if (!value) throw errors::BadRequest("The query parameter '" + std::string(name) + "' is not correctly URL-encoded.");
      if (name == "database") {
        database = *value;
        have_database = true;
      } else if (name == "container") {
        container = *value;
        have_container = true;
      } else if (name == "errors") {
        if (*value == "fail") {
          on_error = OnError::kFail;
        } else if (*value == "skip") {
          on_error = OnError::kSkip;
        } else {
          throw errors::BadRequest("The query parameter 'errors' must be fail or skip, not '" + *value + "'.");
        }
      } else {
        throw errors::BadRequest("Unknown query parameter '" + std::string(name) + "'. " + kUsage);
      }
    }
  }
  if (!have_database || database.empty() || !have_container || container.empty())
    throw errors::BadRequest(std::string("The query parameters 'database' and 'container' are required. ") + kUsage);
  auto db = s.account.FindDatabase(database);
  if (!db) throw CosmosError(404, 0, "NotFound", "The database '" + database + "' does not exist.");
  auto c = db->FindContainer(container);
  if (!c) throw CosmosError(404, 0, "NotFound", "The container '" + database + "/" + container + "' does not exist.");
  try {
    RefuseUniqueKeys(*c, database + "/" + container);
  } catch (const SeedError& e) {
    throw errors::BadRequest(std::string("The ") + e.what() + ".");
  }

  size_t start = body.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  while (start < body.size() && (body[start] == ' ' || body[start] == '\t' || body[start] == '\r' || body[start] == '\n'))
    ++start;
  const Format format = start < body.size() && body[start] == '[' ? Format::kJson : Format::kLines;

  Loader::Options lo;
  lo.on_error = on_error;
  lo.threads = 1;  // one request, one worker thread
  Loader loader(s, lo);
  loader.Add(c, database + "/" + container, {Source{"", body, format}});
  const Outcome& checked = loader.Check();
  if (checked.items == 0 && checked.error_count == 0)
    throw errors::BadRequest(std::string("The body holds no item. ") + kUsage);
  ImportResult r;
  if (on_error == OnError::kFail && checked.error_count > 0) {
    const ItemError& first = checked.errors.front();
    std::string message = std::to_string(checked.error_count) + (checked.error_count == 1 ? " item" : " items") +
                          " of the body cannot be loaded, so nothing was loaded (errors=skip loads the others). " +
                          first.Where() + ": " + first.message;
    r.status = 400;
    r.body = "{\"code\":\"BadRequest\",\"message\":";
    json::WriteString(r.body, message);
    r.body += ",\"database\":" + json::Quote(database) + ",\"container\":" + json::Quote(container) +
              ",\"items\":" + std::to_string(checked.items) + ",\"loaded\":0,\"errorCount\":" +
              std::to_string(checked.error_count) + ",\"errors\":" + ErrorsJson(checked) + "}";
    return r;
  }
  std::optional<store::Container::BulkLoad> bulk(std::in_place, *c);  // built in bulk below, not as it grows
  const Outcome& o = loader.Apply();
  bulk.reset();
  c->PrepareIndexes(1);  // (one request, one thread)
  r.body = "{\"database\":" + json::Quote(database) + ",\"container\":" + json::Quote(container) +
           ",\"items\":" + std::to_string(o.items) + ",\"loaded\":" + std::to_string(o.loaded) +
           ",\"created\":" + std::to_string(o.created) + ",\"replaced\":" + std::to_string(o.replaced) +
           ",\"skipped\":" + std::to_string(o.error_count) + ",\"errors\":" + ErrorsJson(o) + "}";
  return r;
}

}  // namespace cosmos::seed
