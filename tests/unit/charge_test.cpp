// charge/: every request-unit formula of docs/request-units.md with exact values.
#include "charge/charge.h"

#include <gtest/gtest.h>

namespace cosmos::charge {
namespace {

ItemFacts F(double kb, int terms = 0) { return ItemFacts{kb, terms}; }

TEST(Round2, RoundsToTwoDecimals) {
  EXPECT_DOUBLE_EQ(Round2(1.234), 1.23);
  EXPECT_DOUBLE_EQ(Round2(1.236), 1.24);
  EXPECT_DOUBLE_EQ(Round2(10.676), 10.68);
  EXPECT_DOUBLE_EQ(Round2(2.0), 2.0);
  EXPECT_DOUBLE_EQ(Round2(0.004), 0.0);
  EXPECT_DOUBLE_EQ(Round2(12.3025), 12.3);
  EXPECT_DOUBLE_EQ(Round2(4059.951), 4059.95);
}

// The service's published estimates for a 1,536-dimension float32 item: about 35 RU to insert
// under quantizedFlat and 65 under diskANN (an item of 15 KB alone costs about 15 here).
TEST(VectorIndexWrite, PerVectorByIndexKind) {
  EXPECT_NEAR(VectorIndexWrite(VectorSearchKind::kQuantized, 1536), 10 + 0.0063 * 1536, 1e-9);
  EXPECT_NEAR(VectorIndexWrite(VectorSearchKind::kGraph, 1536), 40 + 0.0063 * 1536, 1e-9);
  EXPECT_NEAR(Create(ItemFacts{15, 5, VectorIndexWrite(VectorSearchKind::kQuantized, 1536)}), 35.18, 0.005);
  EXPECT_NEAR(Create(ItemFacts{15, 5, VectorIndexWrite(VectorSearchKind::kGraph, 1536)}), 65.18, 0.005);
  EXPECT_DOUBLE_EQ(Replace(ItemFacts{1, 0, 20}), Round2(1.85 * (4.6 + 0.6 + 20)));
}

// About 45 RU for a TOP 10 diskANN search in one partition (whatever its size), under 40 for
// quantizedFlat over 40,000-50,000 items, an exhaustive search twice the quantized per vector.
TEST(VectorSearch, PerPartitionAndPerVectorCompared) {
  EXPECT_DOUBLE_EQ(VectorSearch(VectorSearchKind::kGraph, 1, 1000000, 1536), 30);
  EXPECT_DOUBLE_EQ(VectorSearch(VectorSearchKind::kGraph, 4, 10, 1536), 120);
  EXPECT_NEAR(VectorSearch(VectorSearchKind::kQuantized, 1, 45000, 1536), 10 + 13.5, 1e-9);
  EXPECT_NEAR(VectorSearch(VectorSearchKind::kExhaustive, 2, 45000, 768), 20 + 0.0006 * 22500, 1e-9);
  QueryFacts f;
  f.partitions = 1;
  f.docs_loaded = 10;
  f.kb_loaded = 150;
  f.vector_search = VectorSearch(VectorSearchKind::kGraph, 1, 100000, 1536);
  EXPECT_DOUBLE_EQ(QueryPage(f), Round2(2.7 + 0.1 * 10 + 0.068 * 150 + 30));
}

TEST(PointRead, SizeFormula) {
  EXPECT_DOUBLE_EQ(PointRead(F(1)), 1.0);
  EXPECT_DOUBLE_EQ(PointRead(F(100)), 10.9);
  EXPECT_DOUBLE_EQ(PointRead(F(0.2)), 1.0);  // never below 1
  EXPECT_DOUBLE_EQ(PointRead(F(0)), 1.0);
  EXPECT_DOUBLE_EQ(PointRead(F(2)), 1.1);
  EXPECT_DOUBLE_EQ(PointRead(F(10)), 1.9);
  EXPECT_DOUBLE_EQ(PointRead(F(1.5)), 1.05);
  EXPECT_DOUBLE_EQ(PointRead(F(1.55)), 1.06);  // 1.055 rounded
  EXPECT_DOUBLE_EQ(PointRead(F(2048)), 205.7);
  // Index terms do not matter for reads.
  EXPECT_DOUBLE_EQ(PointRead(F(1, 500)), 1.0);
}

TEST(PointRead, StrongDoubles) {
  EXPECT_DOUBLE_EQ(PointRead(F(1), Consistency::kStrong), 2.0);
  EXPECT_DOUBLE_EQ(PointRead(F(0.1), Consistency::kStrong), 2.0);
  EXPECT_DOUBLE_EQ(PointRead(F(100), Consistency::kStrong), 21.8);
  EXPECT_DOUBLE_EQ(PointRead(F(100), Consistency::kWeak), 10.9);
}

TEST(PointRead, NotFoundIsOne) { EXPECT_DOUBLE_EQ(PointReadNotFound(), 1.0); }

TEST(Create, SizeAndTermsFormula) {
  EXPECT_DOUBLE_EQ(Create(F(0)), 4.6);
  EXPECT_DOUBLE_EQ(Create(F(1)), 5.2);
  EXPECT_DOUBLE_EQ(Create(F(4)), 7.0);
  EXPECT_DOUBLE_EQ(Create(F(64)), 43.0);
  EXPECT_DOUBLE_EQ(Create(F(0.25, 5)), 6.65);
  EXPECT_DOUBLE_EQ(Create(F(1, 10)), 9.0);
  EXPECT_DOUBLE_EQ(Create(F(0, 1)), 4.98);
  EXPECT_DOUBLE_EQ(Create(F(0.5, 3)), 6.04);
  EXPECT_DOUBLE_EQ(Create(F(256.0 / 1024.0, 5)), 6.65);
  EXPECT_DOUBLE_EQ(Create(F(300.0 / 1024.0, 5)), 6.68);  // 6.67578...
}

TEST(Replace, Is185TimesCreate) {
  EXPECT_DOUBLE_EQ(Replace(F(1)), 9.62);
  EXPECT_DOUBLE_EQ(Replace(F(0.25, 5)), 12.3);  // 1.85 * 6.65 = 12.3025
  EXPECT_DOUBLE_EQ(Replace(F(0)), 8.51);        // 1.85 * 4.6
  EXPECT_DOUBLE_EQ(Replace(F(1, 10)), 16.65);   // 1.85 * 9.0
  EXPECT_DOUBLE_EQ(Replace(F(64)), 79.55);      // 1.85 * 43
  // Rounded once, on the product, not on Create first.
  EXPECT_DOUBLE_EQ(Replace(F(300.0 / 1024.0, 5)), 12.35);  // 1.85 * 6.67578 = 12.3502
}

TEST(Delete, IsCreateOfTheStoredImage) {
  EXPECT_DOUBLE_EQ(Delete(F(0.25, 5)), 6.65);
  EXPECT_DOUBLE_EQ(Delete(F(1)), 5.2);
  EXPECT_DOUBLE_EQ(Delete(F(300.0 / 1024.0, 5)), Create(F(300.0 / 1024.0, 5)));
}

TEST(FeedPage, QueryPageFormula) {
  EXPECT_DOUBLE_EQ(FeedPage(0, 0), 2.7);
  EXPECT_DOUBLE_EQ(FeedPage(1, 1.0), 2.87);  // 2.868
  EXPECT_DOUBLE_EQ(FeedPage(10, 5.0), 4.04);
  EXPECT_DOUBLE_EQ(FeedPage(100, 0), 12.7);
  EXPECT_DOUBLE_EQ(FeedPage(3, 0.75), 3.05);  // 2.7 + 0.3 + 0.051
}

TEST(FlatCharges, ObservedOnTheService) {
  EXPECT_DOUBLE_EQ(RejectedWrite(), 1.24);
  EXPECT_DOUBLE_EQ(MetadataRead(), 2.0);
  EXPECT_DOUBLE_EQ(MetadataWrite(), 1.0);
  EXPECT_DOUBLE_EQ(MetadataNotFound(), 2.0);
  EXPECT_DOUBLE_EQ(kRefused, 0.0);
  EXPECT_DOUBLE_EQ(kAccountRead, 0.0);
}

}  // namespace
}  // namespace cosmos::charge
