// The published figures of the scenario (Microsoft's "How to model and partition data on Azure
// Cosmos DB using a real-world example",
// https://learn.microsoft.com/azure/cosmos-db/nosql/model-partition-example): RU and latency of each
// request on each design, measured on the cloud service with 100,000 users.
export const REQUESTS = [
  ["C1", "create / edit a user"],
  ["Q1", "retrieve a user"],
  ["C2", "create / edit a post"],
  ["Q2", "retrieve a post (with author username, comment count, like count)"],
  ["Q3", "list a user's posts in short form"],
  ["C3", "create a comment"],
  ["Q4", "list a post's comments (with usernames)"],
  ["C4", "like a post"],
  ["Q5", "list a post's likes (with usernames)"],
  ["Q6", "list the 100 most recent posts in short form (the feed)"],
];

export const DESIGN_NAMES = ["V1", "V2", "V3"];

// request -> [V1, V2, V3] as [latency ms, RU]
export const PUBLISHED = {
  C1: [[7, 5.71], [7, 5.71], [7, 5.71]],
  Q1: [[2, 1], [2, 1], [2, 1]],
  C2: [[9, 8.76], [9, 8.76], [9, 8.76]],
  Q2: [[9, 19.54], [2, 1], [2, 1]],
  Q3: [[130, 619.41], [28, 201.54], [4, 6.46]],
  C3: [[7, 8.57], [7, 15.27], [7, 15.27]],
  Q4: [[23, 27.72], [4, 7.72], [4, 7.72]],
  C4: [[6, 7.05], [7, 14.67], [7, 14.67]],
  Q5: [[59, 58.92], [4, 8.92], [4, 8.92]],
  Q6: [[306, 2063.54], [83, 532.33], [9, 16.97]],
};
