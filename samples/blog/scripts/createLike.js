// V2/V3 stored procedure, run in the post's partition: reads the post, increments its likeCount,
// replaces it and creates the like, all or nothing.
function createLike(postId, like) {
  const collection = getContext().getCollection();
  const response = getContext().getResponse();

  collection.readDocument(`${collection.getAltLink()}/docs/${postId}`, function (err, post) {
    if (err) throw err;

    post.likeCount++;
    collection.replaceDocument(post._self, post, function (err) {
      if (err) throw err;

      like.postId = postId;
      collection.createDocument(collection.getSelfLink(), like, function (err, created) {
        if (err) throw err;
        response.setBody(created);
      });
    });
  });
}
