#include "seed/loader.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <unordered_map>

#include "common/errors.h"
#include "handlers/common.h"
#include "handlers/items.h"
#include "json/json.h"

namespace cosmos::seed {
namespace {

// Items checked or written per claim of a worker.
constexpr size_t kChunk = 256;
// A parse of an item up to this size allocates nothing (each thread reuses a block of this size).
constexpr size_t kParseBuffer = 64 * 1024;

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

enum class State : uint8_t { kPending, kGood, kBad };

// One item of the input (or a problem found while splitting a source into items).
struct Record {
  uint32_t job = 0;
  uint32_t source = 0;  // index in the job's sources
  uint32_t line = 0;
  uint32_t item = 0;
  uint64_t offset = 0;
  uint32_t length = 0;
  const store::PhysicalPartition* partition = nullptr;  // where it goes (good items; Apply's order)
  State state = State::kPending;
  bool is_item = true;  // false: a problem of the source itself (an array not closed, ...)
  std::string text;  // good: "<canonical partition key>\x1f<id>" until Apply; bad: why
};

struct Job {
  store::ContainerPtr c;
  std::string label;
  std::vector<Source> sources;
};

// Splits JSON lines into items: one per line that holds more than whitespace.
template <typename Emit>
void SplitLines(std::string_view t, size_t pos, Emit emit) {
  uint32_t line = 1;
  while (pos <= t.size()) {
    size_t end = t.find('\n', pos);
    if (end == std::string_view::npos) end = t.size();
    size_t b = pos, e = end;
    while (b < e && IsSpace(t[b])) ++b;
    while (e > b && IsSpace(t[e - 1])) --e;
    if (b < e) emit(b, e - b, line, 0);
    if (end == t.size()) break;
    pos = end + 1;
    ++line;
  }
}

// Splits a JSON source: one value (an item), or an array whose elements are the items. Elements
// are found by a scan that follows strings and nesting, so each can be parsed (and reported) on
// its own; `fail` reports what breaks the array itself.
template <typename Emit, typename Fail>
void SplitJson(std::string_view t, size_t i, Emit emit, Fail fail) {
  const size_t n = t.size();
  uint32_t line = 1;
  auto skip_space = [&] {
    for (; i < n && IsSpace(t[i]); ++i) {
      if (t[i] == '\n') ++line;
    }
  };
  skip_space();
  if (i == n) return;  // no item
  if (t[i] != '[') {
    size_t e = n;
    while (e > i && IsSpace(t[e - 1])) --e;
    emit(i, e - i, line, 0);
    return;
  }
  ++i;
  skip_space();
  uint32_t item = 0;
  if (i < n && t[i] == ']') {
    ++i;
  } else {
    for (;;) {
      skip_space();
      ++item;
      const size_t start = i;
      const uint32_t start_line = line;
      int depth = 0;
      bool in_string = false;
      for (; i < n; ++i) {
        const char c = t[i];
        if (c == '\n') ++line;
        if (in_string) {
          if (c == '\\' && i + 1 < n) {
            ++i;
            if (t[i] == '\n') ++line;
          } else if (c == '"') {
            in_string = false;
          }
          continue;
        }
        if (c == '"') {
          in_string = true;
        } else if (c == '{' || c == '[') {
          ++depth;
        } else if (c == '}' || c == ']') {
          if (depth == 0 && c == ']') break;
          if (depth > 0) --depth;
        } else if (c == ',' && depth == 0) {
          break;
        }
      }
      size_t e = i;
      while (e > start && IsSpace(t[e - 1])) --e;
      if (i == n) {
        fail(start_line, item, "the array is not closed: the file ends inside this item");
        return;
      }
      if (e == start) {
        fail(start_line, item, t[i] == ',' ? "an empty item: two commas with nothing between them"
                                           : "an empty item: a comma before the closing ]");
      } else {
        emit(start, e - start, start_line, item);
      }
      if (t[i] == ']') {
        ++i;
        break;
      }
      ++i;  // the comma
    }
  }
  skip_space();
  if (i < n) fail(line, 0, "text after the closing ] of the array");
}

// Runs work(0) on the calling thread and work(1..threads-1) on threads of their own; rethrows the
// first exception any of them threw, once all have ended. Worker 0 is the one that reports
// progress (Ticker) and, in Apply, the one that writes.
void RunParallel(unsigned threads, const std::function<void(unsigned)>& work) {
  std::mutex mu;
  std::exception_ptr failure;
  auto run = [&](unsigned w) {
    try {
      work(w);
    } catch (...) {
      std::lock_guard lock(mu);
      if (!failure) failure = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(threads > 0 ? threads - 1 : 0);
  for (unsigned w = 1; w < threads; ++w) pool.emplace_back(run, w);
  run(0);
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

// Calls `report` at most once a second, from worker 0.
class Ticker {
 public:
  explicit Ticker(std::function<void(double seconds)> report) : report_(std::move(report)) {}
  void Maybe() {
    if (!report_) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ < std::chrono::seconds(1)) return;
    last_ = now;
    report_(std::chrono::duration<double>(now - started_).count());
  }

 private:
  std::function<void(double)> report_;
  const std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_ = started_;
};

}  // namespace

std::string ItemError::Where() const {
  std::string out = source.empty() ? "line " + std::to_string(line) : source + ":" + std::to_string(line);
  if (item > 0) out += " (item " + std::to_string(item) + ")";
  return out;
}

std::string PlainMessage(const std::string& message) {
  constexpr std::string_view kPrefix = "Message: ";
  if (message.rfind(kPrefix, 0) != 0) return message;
  json::Document d;
  if (json::Parse(std::string_view(message).substr(kPrefix.size()), d) != json::ParseStatus::kOk || !d.IsObject())
    return message;
  auto it = d.FindMember("Errors");
  if (it == d.MemberEnd() || !it->value.IsArray() || it->value.Empty() || !it->value[0].IsString()) return message;
  return it->value[0].GetString();
}

namespace {

// A good record made ready for writing, by any thread: placed, and its image built and sealed
// (handlers::PrepareItem); the write stamps it.
struct Prepared {
  store::Placement at;
  store::DraftPtr draft;
  std::string error;  // not empty: it could not be read again
};

}  // namespace

struct Loader::Impl {
  http::Services& s;
  Options options;
  std::vector<Job> jobs;
  std::vector<Record> records;
  bool checked = false;
  bool applied = false;

  Impl(http::Services& services, Options o) : s(services), options(std::move(o)) {
    if (options.threads == 0) options.threads = std::max(1u, std::thread::hardware_concurrency());
  }

  // Apply's steps, one record at a time (below).
  void Prepare(const Record& r, Prepared& p, json::Allocator& pool) const;
  bool Write(const Record& r, Prepared& p);
  void AddWriteFailures(std::vector<std::pair<uint32_t, std::string>> failures, Outcome& out) const;

  std::string_view TextOf(const Record& r) const {
    return jobs[r.job].sources[r.source].text.substr(r.offset, r.length);
  }

  ItemError ErrorOf(const Record& r) const {
    return ItemError{jobs[r.job].sources[r.source].name, r.line, r.item, r.text};
  }

  // The ticker of one step's progress (none without a progress callback): `at` gives the record
  // being worked on, `done` how many of `total` are done.
  Ticker ProgressTicker(const char* step, std::function<const Record&()> at, std::function<size_t()> done,
                        size_t total) {
    if (!options.progress) return Ticker(nullptr);
    return Ticker([this, step, at = std::move(at), done = std::move(done), total](double secs) {
      const Record& r = at();
      Progress p;
      p.step = step;
      p.container = jobs[r.job].label;
      p.source = jobs[r.job].sources[r.source].name;
      p.done = done();
      p.total = total;
      p.per_second = secs > 0 ? static_cast<double>(p.done) / secs : 0;
      options.progress(p);
    });
  }

  // Splits every source into records, in input order (sources in parallel).
  void Split() {
    std::vector<std::pair<uint32_t, uint32_t>> all;  // (job, source)
    for (uint32_t j = 0; j < jobs.size(); ++j) {
      for (uint32_t k = 0; k < jobs[j].sources.size(); ++k) all.emplace_back(j, k);
    }
    std::vector<std::vector<Record>> parts(all.size());
    std::atomic<size_t> next{0};
    RunParallel(
        std::min<unsigned>(options.threads, static_cast<unsigned>(std::max<size_t>(all.size(), 1))),
        [&](unsigned) {
          for (size_t i; (i = next.fetch_add(1)) < all.size();) {
            // (Plain variables: clang 14, which builds the fuzz targets, cannot capture structured
            // bindings in the lambdas below.)
            const uint32_t j = all[i].first;
            const uint32_t k = all[i].second;
            const Source& src = jobs[j].sources[k];
            std::vector<Record>& out = parts[i];
            size_t start = 0;
            if (src.text.substr(0, 3) == "\xEF\xBB\xBF") start = 3;  // a UTF-8 byte order mark
            auto emit = [&](size_t offset, size_t length, uint32_t line, uint32_t item) {
              Record r;
              r.job = j;
              r.source = k;
              r.line = line;
              r.item = item;
              r.offset = offset;
              if (length > UINT32_MAX) {
                r.state = State::kBad;
                r.text = "the item is " + std::to_string(length) + " bytes, more than an item may be (" +
                         std::to_string(s.config.max_item_bytes) + " bytes)";
              } else {
                r.length = static_cast<uint32_t>(length);
              }
              out.push_back(std::move(r));
            };
            if (src.format == Format::kLines) {
              SplitLines(src.text, start, emit);
            } else {
              SplitJson(src.text, start, emit, [&](uint32_t line, uint32_t item, const char* why) {
                Record r;
                r.job = j;
                r.source = k;
                r.line = line;
                r.item = item;
                r.state = State::kBad;
                r.is_item = item > 0;
                r.text = why;
                out.push_back(std::move(r));
              });
            }
          }
        });
    size_t total = 0;
    for (auto& p : parts) total += p.size();
    records.reserve(total);
    for (auto& p : parts) {
      std::move(p.begin(), p.end(), std::back_inserter(records));
      std::vector<Record>().swap(p);
    }
  }

  // Checks one item as a REST upsert would check it, without writing it.
  void CheckRecord(Record& r, json::Allocator& pool) {
    const Job& job = jobs[r.job];
    const size_t max = s.config.max_item_bytes;
    auto bad = [&r](std::string why) {
      r.state = State::kBad;
      r.text = std::move(why);
    };
    if (r.length > max) {
      bad("the item is " + std::to_string(r.length) + " bytes, more than an item may be (" + std::to_string(max) +
          " bytes)");
      return;
    }
    json::Document doc(&pool);
    switch (json::Parse(TextOf(r), doc)) {
      case json::ParseStatus::kTooDeep:
        bad("the item is nested deeper than " + std::to_string(json::kMaxDepth) + " levels");
        return;
      case json::ParseStatus::kMalformed:
        bad("not valid JSON");
        return;
      case json::ParseStatus::kOk:
        break;
    }
    if (!doc.IsObject()) {
      bad("not a JSON object (each item must be one)");
      return;
    }
    const auto& def = job.c->partition_key();
    handlers::CheckedItem item;
    try {
      item = handlers::CheckItemWrite(def, doc);  // as the item routes check it
    } catch (const CosmosError& e) {
      bad(PlainMessage(e.what()));
      return;
    }
    if (!def.system_key) {
      for (size_t k = 0; k < def.parts.size(); ++k) {
        const json::Value* v = store::FindKeyPath(doc, def.parts[k]);
        if (v == nullptr) {
          bad("the item has no value at the partition key path " + def.paths[k]);
          return;
        }
        if (!store::CanonicalComponent(*v)) {
          bad("the value at the partition key path " + def.paths[k] +
              " is an object or an array; a partition key value is a string, a number, true, false or null");
          return;
        }
      }
    }
    const store::PartitionKeyValue& key = item.key;
    const std::string& pk = item.pk;
    // With its system properties the stored item may outgrow the limit (numbers written out in
    // full can take up to about six times their text): those near it are built as a write would
    // build them, and thrown away.
    if (r.length > max / 8) {
      try {
        handlers::MakeItem(s, *job.c, doc, pk, job.c->Locate(key).epk, 0, 0, max);
      } catch (const CosmosError&) {
        bad("the item is more than " + std::to_string(max) + " bytes with its system properties");
        return;
      }
    }
    r.partition = job.c->Locate(key).partition;
    r.text = pk;
    r.text += '\x1f';
    r.text += item.id;
    r.state = State::kGood;
  }

  // Marks every repeat of an (id, partition key) already in the load. The keys are shared out
  // between the threads by their hash; each keeps the first of a key in input order.
  void FindDuplicates() {
    const unsigned threads = options.threads;
    std::vector<std::vector<std::pair<uint32_t, std::string>>> repeats(threads);  // (record, why)
    RunParallel(threads, [&](unsigned w) {
      std::vector<std::unordered_map<std::string_view, uint32_t>> seen(jobs.size());  // per container
      const std::hash<std::string_view> hash;
      for (uint32_t i = 0; i < records.size(); ++i) {
        const Record& r = records[i];
        if (r.state != State::kGood) continue;
        const std::string_view key(r.text);
        if (hash(key) % threads != w) continue;
        auto [it, inserted] = seen[r.job].emplace(key, i);
        if (inserted) continue;
        const size_t sep = key.find('\x1f');
        repeats[w].emplace_back(i, "the id " + json::Quote(key.substr(sep + 1)) + " with partition key " +
                                       std::string(key.substr(0, sep)) + " is already in this load, at " +
                                       ErrorOf(records[it->second]).Where());
      }
    });
    for (auto& list : repeats) {
      for (auto& [i, why] : list) {
        records[i].state = State::kBad;
        records[i].text = std::move(why);
      }
    }
  }
};

Loader::Loader(http::Services& services, Options options) : impl_(std::make_unique<Impl>(services, std::move(options))) {}

Loader::~Loader() = default;

void Loader::Add(store::ContainerPtr c, std::string label, std::vector<Source> sources) {
  if (impl_->checked) throw std::logic_error("Loader::Add after Check");
  Job job;
  job.c = std::move(c);
  job.label = std::move(label);
  job.sources = std::move(sources);
  impl_->jobs.push_back(std::move(job));
}

const Outcome& Loader::Check() {
  Impl& m = *impl_;
  if (m.checked) throw std::logic_error("Loader::Check called twice");
  m.checked = true;
  m.Split();
  auto& records = m.records;
  outcome_.items = 0;
  for (const auto& r : records) outcome_.items += r.is_item;

  std::atomic<size_t> next{0}, done{0};
  Ticker ticker = m.ProgressTicker(
      "checking", [&]() -> const Record& { return records[std::min(next.load(), records.size() - 1)]; },
      [&] { return done.load(); }, records.size());
  if (!records.empty()) {
    RunParallel(m.options.threads, [&](unsigned w) {
      std::vector<char> buffer(kParseBuffer);
      json::Allocator pool(buffer.data(), buffer.size());
      for (size_t from; (from = next.fetch_add(kChunk)) < records.size();) {
        const size_t to = std::min(records.size(), from + kChunk);
        for (size_t i = from; i < to; ++i) {
          if (records[i].state == State::kPending) m.CheckRecord(records[i], pool);
          pool.Clear();
        }
        done.fetch_add(to - from);
        if (w == 0) ticker.Maybe();
      }
    });
  }
  m.FindDuplicates();
  outcome_.error_count = 0;
  outcome_.errors.clear();
  for (const auto& r : records) {
    if (r.state != State::kBad) continue;
    ++outcome_.error_count;
    if (outcome_.errors.size() < m.options.max_errors_kept) outcome_.errors.push_back(m.ErrorOf(r));
  }
  return outcome_;
}

// Parses, places and drafts one good record (any thread).
void Loader::Impl::Prepare(const Record& r, Prepared& p, json::Allocator& pool) const {
  const Job& job = jobs[r.job];
  p.error.clear();
  try {
    json::Document doc(&pool);
    if (json::Parse(TextOf(r), doc) != json::ParseStatus::kOk || !doc.IsObject())
      throw std::runtime_error("not valid JSON any more (the file changed while it was read)");
    const store::PartitionKeyValue key = store::ExtractPartitionKey(job.c->partition_key(), doc);
    p.at = job.c->Locate(key);
    // Built and sealed here, on this thread; the write only stamps it (handlers::PrepareItem).
    p.draft = handlers::PrepareItem(s, *job.c, handlers::DraftItem(doc, key.Canonical(), p.at.epk));
  } catch (const std::exception& e) {
    p.error = e.what();
  }
  pool.Clear();
}

// Writes a prepared record as a REST upsert writes it (handlers::WriteItem: the same stored image
// and the same write); true when it created the item. Throws what the write throws.
bool Loader::Impl::Write(const Record& r, Prepared& p) {
  if (!p.error.empty()) throw std::runtime_error(p.error);
  store::DraftPtr draft = std::move(p.draft);
  handlers::Target t;
  t.c = jobs[r.job].c;
  t.pk = draft->pk();
  t.epk = draft->epk();
  t.settings = t.c->settings();
  t.partition = p.at.partition;
  const store::WriteResult w = handlers::Direct(s, t)(
      store::WriteKind::kUpsert, std::string(draft->id()), store::Preconditions{},
      [&](const store::ItemPtr&, uint64_t seq, uint64_t lsn) {
        return handlers::StampItem(s, *t.c, draft, seq, lsn, s.config.max_item_bytes);
      });
  return w.created;
}

// The records that could not be written, (record, why), added to the outcome in input order.
void Loader::Impl::AddWriteFailures(std::vector<std::pair<uint32_t, std::string>> failures, Outcome& out) const {
  if (failures.empty()) return;
  std::sort(failures.begin(), failures.end());
  std::vector<ItemError> more;
  for (auto& [i, why] : failures) {
    ItemError e = ErrorOf(records[i]);
    e.message = "could not be written: " + why;
    more.push_back(std::move(e));
  }
  out.error_count += more.size();
  for (auto& e : more) {
    if (out.errors.size() < options.max_errors_kept) out.errors.push_back(std::move(e));
  }
}

const Outcome& Loader::Apply() {
  Impl& m = *impl_;
  if (!m.checked || m.applied) throw std::logic_error("Loader::Apply needs one Check first");
  if (m.options.on_error == OnError::kFail && outcome_.error_count > 0)
    throw std::logic_error("Loader::Apply after a failed check");
  m.applied = true;
  outcome_.applied = true;
  auto& records = m.records;

  // The good items, in chunks of kChunk. Each chunk is prepared (parsed, placed and its images
  // built and sealed: handlers::PrepareItem) by whichever thread claims it first, into a ring of slots, and
  // written by worker 0 alone, in order: the partitions' writes are what must be serial, and
  // drafting is most of the rest. While the next chunk to write is still being prepared elsewhere,
  // worker 0 prepares a later one rather than wait.
  std::vector<uint32_t> order;
  for (uint32_t i = 0; i < records.size(); ++i) {
    if (records[i].state != State::kGood) continue;
    std::string().swap(records[i].text);  // the key was for the duplicate check
    order.push_back(i);
  }
  // Container by container, partition by partition, input order within each: what the drafts and
  // the writes allocate for one partition then lies together, in the order a scan of the
  // partition reads it (the partitions' writes are independent; each keeps its input order).
  // (A partition is ranked by its place in its container's list, so every run writes alike.)
  std::vector<std::unordered_map<const store::PhysicalPartition*, uint32_t>> place(m.jobs.size());
  for (size_t j = 0; j < m.jobs.size(); ++j) {
    const auto parts = m.jobs[j].c->partitions();
    for (size_t k = 0; k < parts.size(); ++k) place[j].emplace(parts[k], static_cast<uint32_t>(k));
  }
  std::vector<uint64_t> rank(records.size(), 0);  // (container, partition) of each good record
  for (const uint32_t i : order) {
    const auto& where = place[records[i].job];
    const auto found = where.find(records[i].partition);
    rank[i] = (uint64_t{records[i].job} << 32) | (found == where.end() ? UINT32_MAX : found->second);
  }
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return rank[a] < rank[b]; });
  const size_t chunks = (order.size() + kChunk - 1) / kChunk;
  const unsigned threads = std::max(1u, std::min<unsigned>(m.options.threads, static_cast<unsigned>(chunks)));

  struct Slot {
    std::vector<Prepared> items = std::vector<Prepared>(kChunk);
    bool ready = false;  // prepared, not yet written
  };
  const size_t ring = 4 * static_cast<size_t>(threads);
  std::vector<Slot> slots(std::min(ring, std::max<size_t>(chunks, 1)));

  std::mutex mu;
  std::condition_variable cv;
  size_t written_chunks = 0;  // chunks worker 0 is done with: their slots are free again
  size_t next_chunk = 0;      // the next chunk no thread has claimed
  bool stopping = false;

  // Claims the next chunk when its slot is free (mu held); SIZE_MAX when there is none to claim.
  auto claim = [&]() -> size_t {
    if (next_chunk >= chunks || next_chunk >= written_chunks + slots.size()) return SIZE_MAX;
    return next_chunk++;
  };
  auto prepare = [&](size_t k) {
    std::vector<char> buffer(kParseBuffer);
    json::Allocator pool(buffer.data(), buffer.size());
    Slot& slot = slots[k % slots.size()];
    const size_t from = k * kChunk, to = std::min(order.size(), from + kChunk);
    for (size_t n = from; n < to; ++n) {
      m.Prepare(records[order[n]], slot.items[n - from], pool);
    }
    {
      std::lock_guard lock(mu);
      slot.ready = true;
    }
    cv.notify_all();
  };

  std::atomic<size_t> written{0}, created{0};
  std::atomic<uint32_t> last{0};
  std::vector<std::pair<uint32_t, std::string>> failures;  // (record, why), worker 0 only
  Ticker ticker = m.ProgressTicker(
      "loading", [&]() -> const Record& { return records[last.load()]; }, [&] { return written.load(); },
      order.size());
  store::Journal* journal = m.s.account.journal();

  auto write = [&](size_t k) {
    Slot& slot = slots[k % slots.size()];
    const size_t from = k * kChunk, to = std::min(order.size(), from + kChunk);
    for (size_t n = from; n < to; ++n) {
      const uint32_t i = order[n];
      last.store(i, std::memory_order_relaxed);
      try {
        if (m.Write(records[i], slot.items[n - from])) created.fetch_add(1, std::memory_order_relaxed);
        written.fetch_add(1, std::memory_order_relaxed);
      } catch (const CosmosError& e) {
        failures.emplace_back(i, PlainMessage(e.what()));
      } catch (const std::exception& e) {
        failures.emplace_back(i, e.what());
      }
    }
  };

  if (chunks > 0) {
    if (journal) journal->ForgetThread();
    RunParallel(threads, [&](unsigned w) {
      if (w > 0) {
        for (;;) {
          size_t k = SIZE_MAX;
          {
            std::unique_lock lock(mu);
            cv.wait(lock, [&] { return stopping || next_chunk >= chunks || (k = claim()) != SIZE_MAX; });
            if (k == SIZE_MAX) return;  // stopping, or every chunk is claimed
          }
          prepare(k);
        }
      }
      try {
        for (size_t k = 0; k < chunks; ++k) {
          Slot& slot = slots[k % slots.size()];
          for (;;) {
            size_t mine = SIZE_MAX;
            {
              std::unique_lock lock(mu);
              if (slot.ready) break;
              mine = claim();  // chunk k itself when nobody has claimed it, else a later one
              if (mine == SIZE_MAX) cv.wait(lock, [&] { return slot.ready || next_chunk < std::min(chunks, written_chunks + slots.size()); });
            }
            if (mine != SIZE_MAX) prepare(mine);
          }
          write(k);
          {
            std::lock_guard lock(mu);
            slot.ready = false;
            written_chunks = k + 1;
          }
          cv.notify_all();
          ticker.Maybe();
        }
      } catch (...) {
        {
          std::lock_guard lock(mu);
          stopping = true;
        }
        cv.notify_all();
        throw;
      }
    });
    // Every record written is durable before the load reports it loaded.
    if (journal && written.load() > 0) {
      try {
        journal->AwaitDurable();
      } catch (const std::exception& e) {
        failures.emplace_back(*std::max_element(order.begin(), order.end()),
                              std::string("the data directory could not make the writes durable: ") + e.what());
      }
    }
  }
  outcome_.loaded = written.load();
  outcome_.created = created.load();
  outcome_.replaced = outcome_.loaded - outcome_.created;
  m.AddWriteFailures(std::move(failures), outcome_);
  return outcome_;
}

}  // namespace cosmos::seed
