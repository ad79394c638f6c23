// store::VectorIndex: the items it names for a TOP k vector search always hold the exact k best
// (ties included) and every item whose distance is undefined, whatever the distance function and
// direction; it names few others; it follows removals and a scope filter.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "json/json.h"
#include "store/store.h"
#include "store/vector_index.h"

namespace cosmos::store {
namespace {

ItemPtr VectorItem(uint64_t seq, const std::string& pk, const std::string& v) {
  auto item = NewItem();
  item->set_id("i" + std::to_string(seq));
  item->set_pk(pk);
  item->seq = seq;
  item->lsn = seq;
  json::Parse("{\"id\":\"" + std::string(item->id()) + "\",\"v\":" + v + "}", item->Draft());
  item->Seal();
  return item;
}

std::string Array(const std::vector<double>& x) {
  std::string s = "[";
  char buf[32];
  for (size_t i = 0; i < x.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%.17g", x[i]);
    s += (i ? "," : "") + std::string(buf);
  }
  return s + "]";
}

// VectorDistance as the query function computes it; nullopt for undefined.
std::optional<double> Exact(const json::Value& v, const std::vector<double>& q, DistanceFunction fn) {
  if (!v.IsArray() || v.Size() != q.size()) return std::nullopt;
  double dot = 0, aa = 0, bb = 0, sq = 0;
  for (size_t i = 0; i < q.size(); ++i) {
    if (!v[static_cast<rapidjson::SizeType>(i)].IsNumber()) return std::nullopt;
    const double x = v[static_cast<rapidjson::SizeType>(i)].GetDouble(), y = q[i];
    dot += x * y;
    aa += x * x;
    bb += y * y;
    sq += (x - y) * (x - y);
  }
  switch (fn) {
    case DistanceFunction::kCosine:
      if (aa == 0 || bb == 0) return std::nullopt;
      return dot / std::sqrt(aa * bb);
    case DistanceFunction::kDotProduct: return dot;
    case DistanceFunction::kEuclidean: return std::sqrt(sq);
  }
  return std::nullopt;
}

struct Fixture {
  std::vector<ItemPtr> items;
  VectorIndex index{DocPath{{"v", -1}}};

  void Add(ItemPtr item) {
    index.Add(*item);
    items.push_back(std::move(item));
  }
  void Remove(uint64_t seq) {
    auto it = std::find_if(items.begin(), items.end(), [&](const ItemPtr& i) { return i->seq == seq; });
    index.Remove(**it);
    items.erase(it);
  }

  // Checks the candidates for one search against the exact order; returns how many there were.
  size_t Check(const std::vector<double>& q, DistanceFunction fn, bool descending, size_t k,
               const std::function<bool(const Item&)>& admit = nullptr) {
    VectorQuery vq{q, fn, descending};
    auto found = index.Candidates(vq, k, admit);
    if (!found) return SIZE_MAX;
    EXPECT_TRUE(std::is_sorted(found->begin(), found->end()));
    const std::set<uint64_t> got(found->begin(), found->end());
    struct Scored {
      double score;
      uint64_t seq;
    };
    std::vector<Scored> defined;
    for (const auto& item : items) {
      if (admit && !admit(*item)) continue;
      auto it = item->body.FindMember("v");
      auto score = it == item->body.MemberEnd() ? std::nullopt : Exact(it->value, q, fn);
      if (!score) {
        EXPECT_TRUE(got.count(item->seq)) << "undefined distance, item " << item->seq;
        continue;
      }
      defined.push_back({*score, item->seq});
    }
    std::sort(defined.begin(), defined.end(), [&](const Scored& a, const Scored& b) {
      if (a.score != b.score) return descending ? a.score > b.score : a.score < b.score;
      return a.seq < b.seq;
    });
    for (size_t i = 0; i < std::min(k, defined.size()); ++i) {
      EXPECT_TRUE(got.count(defined[i].seq)) << "rank " << i << " item " << defined[i].seq << " missing";
    }
    // Every item tied with the k-th may come before it in another order of reading: kept too.
    if (defined.size() > k) {
      for (const auto& s : defined) {
        if (s.score == defined[k - 1].score) {
          EXPECT_TRUE(got.count(s.seq)) << "tie " << s.seq;
        }
      }
    }
    return found->size();
  }
};

TEST(VectorIndex, NamesTheExactBestAndTheUndefinedForEveryFunctionAndDirection) {
  Fixture f;
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal(0, 1);
  const size_t dims = 48;
  uint64_t seq = 0;
  for (int i = 0; i < 3000; ++i) {
    std::vector<double> x(dims);
    const double magnitude = i % 3 == 0 ? 0.01 : i % 3 == 1 ? 1 : 250;
    for (auto& v : x) v = normal(rng) * magnitude;
    if (i % 97 == 0) for (auto& v : x) v = std::round(v);  // whole numbers (stored as integers)
    f.Add(VectorItem(++seq, "p" + std::to_string(i % 5), Array(x)));
  }
  // Items whose distance is undefined or whose vectors the index leaves to the exact path.
  f.Add(VectorItem(++seq, "p0", "\"text\""));
  f.Add(VectorItem(++seq, "p1", "[1,2,3]"));
  f.Add(VectorItem(++seq, "p2", Array(std::vector<double>(dims, 0))));
  f.Add(VectorItem(++seq, "p3", "[]"));
  {
    std::vector<double> x(dims, 1);
    std::string mixed = Array(x);
    mixed.replace(1, 1, "\"a\"");
    f.Add(VectorItem(++seq, "p4", mixed));
  }
  f.Add(VectorItem(++seq, "p0", Array(std::vector<double>(dims, 1e200))));
  std::vector<double> q(dims);
  for (auto& v : q) v = normal(rng);
  for (auto fn : {DistanceFunction::kCosine, DistanceFunction::kDotProduct, DistanceFunction::kEuclidean}) {
    for (bool descending : {true, false}) {
      for (size_t k : {1u, 10u, 100u}) {
        const size_t n = f.Check(q, fn, descending, k);
        ASSERT_NE(n, SIZE_MAX);
        // Few beyond the k asked for (and the undefined ones).
        EXPECT_LT(n, k + 150) << "function " << static_cast<int>(fn) << " descending " << descending << " k " << k;
      }
    }
  }
}

TEST(VectorIndex, TiesWithTheKthAreAllNamed) {
  Fixture f;
  for (uint64_t seq = 1; seq <= 200; ++seq) f.Add(VectorItem(seq, "p", seq % 2 ? "[0.5,0.25,1]" : "[0.1,0.2,0.3]"));
  EXPECT_EQ(f.Check({0.5, 0.25, 1}, DistanceFunction::kCosine, true, 10), 100u);
  EXPECT_EQ(f.Check({0.5, 0.25, 1}, DistanceFunction::kEuclidean, false, 10), 100u);
}

TEST(VectorIndex, FollowsRemovalsAndTheScope) {
  Fixture f;
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> uniform(-1, 1);
  for (uint64_t seq = 1; seq <= 2000; ++seq) {
    std::vector<double> x(16);
    for (auto& v : x) v = uniform(rng);
    f.Add(VectorItem(seq, seq % 2 ? "odd" : "even", Array(x)));
  }
  std::vector<double> q(16);
  for (auto& v : q) v = uniform(rng);
  // Remove the current best ten, twice over: the next best must then be named.
  for (int round = 0; round < 2; ++round) {
    auto found = f.index.Candidates({q, DistanceFunction::kCosine, true}, 10, nullptr);
    ASSERT_TRUE(found);
    std::vector<std::pair<double, uint64_t>> scored;
    for (uint64_t s : *found) {
      auto it = std::find_if(f.items.begin(), f.items.end(), [&](const ItemPtr& i) { return i->seq == s; });
      ASSERT_NE(it, f.items.end()) << "a removed item was named";
      scored.push_back({*Exact((*it)->body["v"], q, DistanceFunction::kCosine), s});
    }
    std::sort(scored.rbegin(), scored.rend());
    for (int i = 0; i < 10; ++i) f.Remove(scored[i].second);
    f.Check(q, DistanceFunction::kCosine, true, 10);
  }
  const auto odd = [](const Item& item) { return std::string(item.pk()) == "odd"; };
  const size_t n = f.Check(q, DistanceFunction::kDotProduct, true, 10, odd);
  EXPECT_LT(n, 100u);
  auto found = f.index.Candidates({q, DistanceFunction::kDotProduct, true}, 10, odd);
  for (uint64_t s : *found) EXPECT_EQ(s % 2, 1u);
}

TEST(VectorIndex, EveryKernelAddsUpWithinTheBound) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<float> uniform(-2, 2);
  std::uniform_int_distribution<int> code(-127, 127);
  for (uint32_t n : {1u, 7u, 8u, 15u, 16u, 31u, 33u, 100u, 1536u}) {
    std::vector<float> q(n);
    std::vector<int8_t> c(n);
    double exact = 0, magnitude = 0;
    for (uint32_t i = 0; i < n; ++i) {
      q[i] = uniform(rng);
      c[i] = static_cast<int8_t>(code(rng));
      exact += static_cast<double>(q[i]) * c[i];
      magnitude += std::fabs(static_cast<double>(q[i]) * c[i]);
    }
    for (const auto& [name, dot] : DotKernels()) {
      const double got = dot(q.data(), c.data(), n);
      EXPECT_LE(std::fabs(got - exact), (n + 2) * std::ldexp(1.0, -24) * magnitude) << name << " n=" << n;
      EXPECT_NEAR(got, exact, 1e-3 * (1 + magnitude)) << name << " n=" << n;
    }
  }
}

TEST(VectorIndex, DeclinesWhatItCannotNarrow) {
  Fixture f;
  for (uint64_t seq = 1; seq <= 20; ++seq) f.Add(VectorItem(seq, "p", "[1,2]"));
  // No vector of the query's length; k not below the count; a zero query vector under cosine.
  EXPECT_FALSE(f.index.Candidates({{1, 2, 3}, DistanceFunction::kCosine, true}, 5, nullptr));
  EXPECT_FALSE(f.index.Candidates({{1, 2}, DistanceFunction::kCosine, true}, 20, nullptr));
  EXPECT_FALSE(f.index.Candidates({{0, 0}, DistanceFunction::kCosine, true}, 5, nullptr));
  EXPECT_TRUE(f.index.Candidates({{0, 0}, DistanceFunction::kEuclidean, false}, 5, nullptr));
}

}  // namespace
}  // namespace cosmos::store
