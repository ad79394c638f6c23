#include "charge/charge.h"

#include <algorithm>
#include <cmath>

namespace cosmos::charge {
namespace {
// Coefficients of the model in docs/request-units.md.
constexpr double kReadBase = 1.0;
constexpr double kReadPerKb = 0.10;
constexpr double kWriteBase = 4.6;
constexpr double kWritePerKb = 0.60;
constexpr double kWritePerTerm = 0.38;
constexpr double kReplaceFactor = 1.85;
constexpr double kQueryBase = 2.7;
constexpr double kQueryPerDoc = 0.10;
constexpr double kQueryPerKb = 0.068;
constexpr double kQueryPerScannedDoc = 0.02;
constexpr double kQueryPerScannedKb = 0.0072;
constexpr double kQueryPerLookup = 0.02;
constexpr double kAggregatePerPartition = 0.45;
constexpr double kChangeFeedBase = 2.0;  // per change feed request, on top of a point read per item
constexpr double kQueryWithoutFrom = 2.25;  // recorded: SELECT 1 AS x (no FROM)
// Observed on the service: a rejected item write (409, 400 on the body, 412) costs 1.24 RU.
constexpr double kRejectedWrite = 1.24;
// Observed on the service: database create 1 RU, container read / 404 2 RU.
constexpr double kScriptOverhead = 5.2;     // StoredProc = 5.2 + 0.35 * sum of inner standalone charges
constexpr double kScriptInnerShare = 0.35;
constexpr double kMetadataRead = 2.0;
constexpr double kMetadataWrite = 1.0;
// Vector indexes: per vector written (and per dimension), and per search.
constexpr double kVectorWrite = 10.0;
constexpr double kVectorGraphWrite = 40.0;
constexpr double kVectorWritePerDim = 0.0063;
constexpr double kVectorSearchBase = 10.0;          // per partition, quantizedFlat and exhaustive
constexpr double kVectorGraphSearch = 30.0;         // per partition, diskANN
constexpr double kVectorQuantizedPerVector = 0.0003;  // per 1,536 dimensions compared
constexpr double kVectorExhaustivePerVector = 0.0006;
}  // namespace

double Round2(double ru) { return std::round(ru * 100.0) / 100.0; }

double PointRead(const ItemFacts& item, Consistency c) {
  double factor = c == Consistency::kStrong ? 2.0 : 1.0;
  return Round2(factor * std::max(1.0, kReadBase + kReadPerKb * (item.kb - 1.0)));
}

double PointReadNotFound() { return 1.0; }

double Create(const ItemFacts& item) {
  return Round2(kWriteBase + kWritePerKb * item.kb + kWritePerTerm * item.terms + item.vectors);
}

double Replace(const ItemFacts& new_image) {
  return Round2(kReplaceFactor *
                (kWriteBase + kWritePerKb * new_image.kb + kWritePerTerm * new_image.terms + new_image.vectors));
}

// The service's published estimates (docs/request-units.md): a 1,536-dimension float32 item costs
// about 35 RU to insert under quantizedFlat and 65 under diskANN, against about 15 for the item
// alone; a TOP 10 search about 45 RU per partition under diskANN and under 40 under quantizedFlat
// over 40,000-50,000 items.
double VectorIndexWrite(VectorSearchKind kind, int dims) {
  const double per_dim = kVectorWritePerDim * static_cast<double>(dims);
  return kind == VectorSearchKind::kGraph ? kVectorGraphWrite + per_dim : kVectorWrite + per_dim;
}

double VectorSearch(VectorSearchKind kind, size_t partitions, size_t vectors, size_t dims) {
  const double p = static_cast<double>(partitions);
  const double compared = static_cast<double>(vectors) * static_cast<double>(dims) / 1536.0;
  switch (kind) {
    case VectorSearchKind::kGraph: return kVectorGraphSearch * p;
    case VectorSearchKind::kQuantized: return kVectorSearchBase * p + kVectorQuantizedPerVector * compared;
    case VectorSearchKind::kExhaustive: return kVectorSearchBase * p + kVectorExhaustivePerVector * compared;
  }
  return 0;
}

double Delete(const ItemFacts& stored) { return Create(stored); }

double FeedPage(size_t docs, double kb, Consistency c) {
  double factor = c == Consistency::kStrong ? 2.0 : 1.0;
  return Round2(factor * (kQueryBase + kQueryPerDoc * static_cast<double>(docs) + kQueryPerKb * kb));
}

double ChangeFeed(const std::vector<double>& kbs, Consistency c) {
  double ru = kChangeFeedBase;
  for (double kb : kbs) ru += PointRead({kb, 0}, c);
  return Round2(ru);
}

double QueryPage(const QueryFacts& f, Consistency c) {
  double factor = c == Consistency::kStrong ? 2.0 : 1.0;
  const double p = static_cast<double>(f.partitions);
  double ru = p * kQueryBase + kQueryPerDoc * static_cast<double>(f.docs_loaded) + kQueryPerKb * f.kb_loaded +
              kQueryPerScannedDoc * static_cast<double>(f.docs_scanned) + kQueryPerScannedKb * f.kb_scanned +
              p * kQueryPerLookup * static_cast<double>(f.index_lookups > 0 ? f.index_lookups - 1 : 0);
  if (f.aggregate) ru += kAggregatePerPartition * p;
  ru += f.vector_search;
  return Round2(factor * ru);
}

double QueryWithoutFrom() { return kQueryWithoutFrom; }

double RejectedWrite() { return kRejectedWrite; }
double StoredProcedure(double inner) { return Round2(kScriptOverhead + kScriptInnerShare * inner); }

double MetadataRead() { return kMetadataRead; }
double MetadataWrite() { return kMetadataWrite; }
double MetadataNotFound() { return kMetadataRead; }

}  // namespace cosmos::charge
