// V3 post-trigger on `feed` (one logical partition, type = "post"): after each write, keeps only the
// 100 newest posts by deleting the oldest ones.
function truncateFeed() {
  const collection = getContext().getCollection();
  const keep = 100;

  collection.queryDocuments(collection.getSelfLink(), "SELECT VALUE COUNT(1) FROM f", function (err, counts) {
    if (err) throw err;

    const excess = counts[0] - keep;
    if (excess <= 0) return;
    collection.queryDocuments(
      collection.getSelfLink(),
      `SELECT TOP ${excess} * FROM f ORDER BY f.creationDate`,
      function (err, oldest) {
        if (err) throw err;

        for (const post of oldest) {
          collection.deleteDocument(post._self, function (err) {
            if (err) throw err;
          });
        }
      });
  });
}
