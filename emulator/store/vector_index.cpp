#include "store/vector_index.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "store/store.h"

namespace cosmos::store {

namespace {

// Vectors with a number this large (or non-zero and this small) are left to the exact path: their
// squares could leave the range of a double, and with them the bounds.
constexpr double kLargest = 1e150;
constexpr double kSmallest = 1e-150;

// The sum of q[i] * code[i] in single precision. On x86-64 with AVX-512 or AVX2 (asked of the CPU
// once), 16 or 8 products at a time in two running sums; elsewhere 16 running sums the compiler
// may vectorise. The error bound in Candidates holds for any order of the additions.
float DotPortable(const float* q, const int8_t* code, uint32_t n) {
  float acc[16] = {};
  uint32_t i = 0;
  for (; i + 16 <= n; i += 16) {
    for (uint32_t j = 0; j < 16; ++j) acc[j] += q[i + j] * static_cast<float>(code[i + j]);
  }
  float sum = 0;
  for (; i < n; ++i) sum += q[i] * static_cast<float>(code[i]);
  for (float a : acc) sum += a;
  return sum;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// (GCC 12 warns about its own intrinsics' placeholder values here.)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
__attribute__((target("avx512f"))) float DotAvx512(const float* q, const int8_t* code, uint32_t n) {
  __m512 acc0 = _mm512_setzero_ps(), acc1 = _mm512_setzero_ps();
  uint32_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512 c0 = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(code + i))));
    const __m512 c1 =
        _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(code + i + 16))));
    acc0 = _mm512_fmadd_ps(_mm512_loadu_ps(q + i), c0, acc0);
    acc1 = _mm512_fmadd_ps(_mm512_loadu_ps(q + i + 16), c1, acc1);
  }
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, _mm512_add_ps(acc0, acc1));
  float sum = 0;
  for (float l : lanes) sum += l;
  for (; i < n; ++i) sum += q[i] * static_cast<float>(code[i]);
  return sum;
}

__attribute__((target("avx2,fma"))) float DotAvx2(const float* q, const int8_t* code, uint32_t n) {
  __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
  uint32_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256 c0 = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(code + i))));
    const __m256 c1 =
        _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(code + i + 8))));
    acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(q + i), c0, acc0);
    acc1 = _mm256_fmadd_ps(_mm256_loadu_ps(q + i + 8), c1, acc1);
  }
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, _mm256_add_ps(acc0, acc1));
  float sum = 0;
  for (float l : lanes) sum += l;
  for (; i < n; ++i) sum += q[i] * static_cast<float>(code[i]);
  return sum;
}
#pragma GCC diagnostic pop
#endif

using DotFn = float (*)(const float*, const int8_t*, uint32_t);

}  // namespace

std::vector<std::pair<std::string, float (*)(const float*, const int8_t*, uint32_t)>> DotKernels() {
  std::vector<std::pair<std::string, DotFn>> out{{"portable", DotPortable}};
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) out.emplace_back("avx2", DotAvx2);
  if (__builtin_cpu_supports("avx512f")) out.emplace_back("avx512f", DotAvx512);
#endif
  return out;
}

namespace {
// The widest kernel the CPU runs (DotKernels lists them narrowest first).
const DotFn DotCodes = DotKernels().back().second;
}  // namespace

void VectorIndex::Reserve(size_t items) { expected_ = items; }

void VectorIndex::Add(const Item& item) {
  // The numbers of a vector (an array of numbers, all within range), its largest magnitude and its
  // sum of squares (added up in order, as VectorDistance does); anything else is left to the query.
  thread_local std::vector<double> x;
  const json::Value* v = Resolve(item.body, path_);
  bool vector = v != nullptr && v->IsArray() && !v->Empty() && v->Size() <= UINT32_MAX;
  double max_abs = 0, sum_squares = 0;
  if (vector) {
    x.resize(v->Size());
    size_t i = 0;
    for (const auto& e : v->GetArray()) {
      if (!e.IsNumber()) {
        vector = false;
        break;
      }
      const double d = e.GetDouble();
      const double a = std::fabs(d);
      if (!(a <= kLargest) || (a != 0 && a < kSmallest)) {
        vector = false;
        break;
      }
      x[i++] = d;
      max_abs = std::max(max_abs, a);
      sum_squares += d * d;
    }
  }
  if (!vector) {
    others_.insert(item.seq);
    return;
  }
  const auto dims = static_cast<uint32_t>(x.size());
  auto g = std::find_if(groups_.begin(), groups_.end(), [&](const Group& gr) { return gr.dims == dims; });
  if (g == groups_.end()) {
    groups_.push_back(Group{dims, {}, {}});
    g = std::prev(groups_.end());
    if (groups_.size() == 1 && expected_ > 0) {
      g->codes.reserve(expected_ * dims);
      g->rows.reserve(expected_);
    }
  }
  const double scale = max_abs / 127;
  const double inverse = scale == 0 ? 0 : 127 / max_abs;
  const size_t at = g->codes.size();
  g->codes.resize(at + dims);
  int8_t* code = g->codes.data() + at;
  // To the nearest whole number (|x - scale * code| <= scale / 2, up to the rounding of `inverse`),
  // without a branch: adding and taking away 1.5 * 2^52 rounds a double of magnitude below 2^51.
  constexpr double kRound = 6755399441055744.0;
  for (uint32_t i = 0; i < dims; ++i) {
    const double c = std::clamp(x[i] * inverse, -127.0, 127.0);
    code[i] = static_cast<int8_t>((c + kRound) - kRound);
  }
  where_[item.seq] = {static_cast<uint32_t>(g - groups_.begin()), static_cast<uint32_t>(g->rows.size())};
  g->rows.push_back(Row{&item, item.seq, sum_squares, scale});
}

void VectorIndex::Remove(const Item& item) {
  if (others_.erase(item.seq) != 0) return;
  auto it = where_.find(item.seq);
  if (it == where_.end()) return;
  auto [gi, ri] = it->second;
  where_.erase(it);
  Group& g = groups_[gi];
  const uint32_t last = static_cast<uint32_t>(g.rows.size() - 1);
  if (ri != last) {
    // The last row takes the removed one's place.
    g.rows[ri] = g.rows[last];
    std::copy_n(g.codes.begin() + static_cast<ptrdiff_t>(size_t{last} * g.dims), g.dims,
                g.codes.begin() + static_cast<ptrdiff_t>(size_t{ri} * g.dims));
    where_[g.rows[ri].seq] = {gi, ri};
  }
  g.rows.pop_back();
  g.codes.resize(g.codes.size() - g.dims);
  if (g.rows.empty()) {
    g.codes.shrink_to_fit();
    g.rows.shrink_to_fit();
  }
}

std::optional<std::vector<uint64_t>> VectorIndex::Candidates(const VectorQuery& q, size_t k,
                                                             const std::function<bool(const Item&)>& admit) const {
  const size_t n = q.vector.size();
  if (k == 0 || n == 0 || n > UINT32_MAX) return std::nullopt;
  const Group* group = nullptr;
  for (const auto& g : groups_) {
    if (g.dims == n) group = &g;
  }
  if (group == nullptr || group->rows.size() <= k) return std::nullopt;
  // The query vector: single-precision copy, its L1 norm and its sum of squares.
  std::vector<float> qf(n);
  double l1 = 0, q_squares = 0;
  for (size_t i = 0; i < n; ++i) {
    const double v = q.vector[i];
    const double a = std::fabs(v);
    if (!(a <= kLargest) || (a != 0 && a < kSmallest)) return std::nullopt;
    qf[i] = static_cast<float>(v);
    l1 += a;
    q_squares += v * v;
  }
  if (q.function == DistanceFunction::kCosine && q_squares == 0) return std::nullopt;  // every distance undefined

  // Bounds of each row's exact score. The dot product of the row's numbers x with q lies within
  // scale * A +- err, where A is the single-precision sum of q * code:
  //   |x_i - scale * code_i| <= scale / 2 contributes scale / 2 * |q|_1;
  //   rounding q to single precision, each product and the sum of n terms (in any order) is
  //   within (n + 2) * 2^-24 * sum |q_i * code_i| <= (n + 2) * 2^-24 * 127 * |q|_1 (doubled).
  // The distances VectorDistance computes in double precision differ from exact ones by far less
  // than the margin of 1e-9 * |x| * |q| added.
  const double per_scale = l1 * (0.5 + 127.0 * static_cast<double>(n + 2) * std::ldexp(1.0, -23)) * (1 + 1e-6);
  struct Scored {
    uint64_t seq;
    double lo, hi;
  };
  std::vector<Scored> scored;
  scored.reserve(group->rows.size());
  std::vector<uint64_t> out;
  const auto dims = static_cast<uint32_t>(n);
  for (size_t r = 0; r < group->rows.size(); ++r) {
    const Row& row = group->rows[r];
    if (admit && !admit(*row.item)) continue;
    if (q.function == DistanceFunction::kCosine && row.sum_squares == 0) {
      out.push_back(row.seq);  // undefined: the query orders it
      continue;
    }
    const double a = DotCodes(qf.data(), group->codes.data() + r * n, dims);
    const double magnitude = std::sqrt(row.sum_squares * q_squares);
    const double err = row.scale * per_scale + 1e-9 * magnitude + 1e-300;
    const double dot_lo = row.scale * a - err, dot_hi = row.scale * a + err;
    double lo = 0, hi = 0;
    switch (q.function) {
      case DistanceFunction::kDotProduct:
        lo = dot_lo;
        hi = dot_hi;
        break;
      case DistanceFunction::kCosine:
        lo = dot_lo / magnitude;
        hi = dot_hi / magnitude;
        break;
      case DistanceFunction::kEuclidean: {
        const double both = row.sum_squares + q_squares;
        const double margin = 1e-9 * both;
        lo = std::sqrt(std::max(0.0, both - 2 * dot_hi - margin));
        hi = std::sqrt(std::max(0.0, both - 2 * dot_lo + margin));
        break;
      }
    }
    scored.push_back({row.seq, lo, hi});
  }
  if (scored.size() > k) {
    // The k-th best of the worst cases: an item whose best case is worse cannot be among the k best.
    std::vector<double> worst(scored.size());
    for (size_t i = 0; i < scored.size(); ++i) worst[i] = q.descending ? scored[i].lo : scored[i].hi;
    auto kth = worst.begin() + static_cast<ptrdiff_t>(k - 1);
    double threshold = 0;
    if (q.descending) {
      std::nth_element(worst.begin(), kth, worst.end(), std::greater<double>());
    } else {
      std::nth_element(worst.begin(), kth, worst.end());
    }
    threshold = *kth;
    for (const auto& s : scored) {
      if (q.descending ? s.hi >= threshold : s.lo <= threshold) out.push_back(s.seq);
    }
  } else {
    for (const auto& s : scored) out.push_back(s.seq);
  }
  // Items without a vector of this length: their distance is undefined.
  for (const auto& g : groups_) {
    if (&g == group) continue;
    for (const auto& row : g.rows) {
      if (!admit || admit(*row.item)) out.push_back(row.seq);
    }
  }
  for (uint64_t seq : others_) out.push_back(seq);  // the reader checks the scope of these
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace cosmos::store
