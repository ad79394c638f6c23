// V2/V3 stored procedure, run in the post's partition: reads the post, increments its commentCount,
// replaces it and creates the comment, all or nothing.
function createComment(postId, comment) {
  const collection = getContext().getCollection();
  const response = getContext().getResponse();

  collection.readDocument(`${collection.getAltLink()}/docs/${postId}`, function (err, post) {
    if (err) throw err;

    post.commentCount++;
    collection.replaceDocument(post._self, post, function (err) {
      if (err) throw err;

      comment.postId = postId;
      collection.createDocument(collection.getSelfLink(), comment, function (err, created) {
        if (err) throw err;
        response.setBody(created);
      });
    });
  });
}
