// V2/V3 stored procedure, run in one post's partition by the worker that reads the `users` change
// feed: gives every item of that user in the partition (the post, comments, likes) the new username.
// Answers how many items it changed.
function updateUsernames(userId, username) {
  const collection = getContext().getCollection();
  const response = getContext().getResponse();
  let updated = 0;

  const query = `SELECT * FROM p WHERE p.userId = '${userId}'`;
  function nextPage(continuation) {
    const accepted = collection.queryDocuments(collection.getSelfLink(), query, { continuation }, function (err, items, options) {
      if (err) throw err;

      for (const item of items) {
        if (item.userUsername === username) continue;
        item.userUsername = username;
        collection.upsertDocument(collection.getSelfLink(), item, function (err) {
          if (err) throw err;
        });
        updated++;
      }
      if (options.continuation) nextPage(options.continuation);
      else response.setBody({ updated });
    });
    if (!accepted) throw new Error(`updateUsernames: the query for ${userId} was not accepted`);
  }
  nextPage(undefined);
}
