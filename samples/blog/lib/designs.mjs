// The three designs of the scenario (V1, V2, V3): their containers, partition keys and item shapes,
// how the dataset is loaded into them, and the requests C1-C4 and Q1-Q6 as an application on each
// design would send them. Every request records its calls' charges in the meter it is given.
import { TriggerOperation, TriggerType } from "@azure/cosmos";
import { commentsOf, iso, likesOf } from "./generate.mjs";
import {
  ChangeFeedWorker,
  Meter,
  bulkCreate,
  createContainer,
  freshDatabase,
  physicalPartitions,
  queryAll,
  script,
  settle,
} from "./cosmos.mjs";

/** Characters of content kept in the short form of a post (lists of posts, V3's copies). */
export const SUMMARY_CHARS = 100;

const postsOfUser = "SELECT * FROM p WHERE p.userId = @userId AND p.type = 'post'";
const newestPosts = "SELECT TOP 100 * FROM p WHERE p.type = 'post' ORDER BY p.creationDate DESC";
const countOf = (type) => `SELECT VALUE COUNT(1) FROM p WHERE p.postId = @postId AND p.type = '${type}'`;
const listOf = (type) => `SELECT * FROM p WHERE p.postId = @postId AND p.type = '${type}'`;

/** The short form of a post shown in lists: its content truncated. */
export function short(post) {
  const { id, postId, userId, userUsername, title, content, commentCount, likeCount, creationDate } = post;
  return { id, type: "post", postId, userId, userUsername, title, content: content.slice(0, SUMMARY_CHARS), commentCount, likeCount, creationDate };
}

// ---------------------------------------------------------------------------------------------
// V1: related data referenced, not embedded.

export class V1 {
  static label = "V1";
  static usersKey = "/id";

  constructor(client, { databasePrefix = "blog", postsThroughput, quiet = false }) {
    this.client = client;
    this.databaseId = `${databasePrefix}-${this.constructor.label.toLowerCase()}`;
    this.postsThroughput = postsThroughput;
    this.quiet = quiet;
    this.load = new Meter();
    this.workers = [];
  }

  async setup() {
    this.database = await freshDatabase(this.client, this.databaseId);
    this.users = await createContainer(this.database, "users", this.constructor.usersKey);
    this.posts = await createContainer(this.database, "posts", "/postId", this.postsThroughput);
    this.partitions = await physicalPartitions(this.posts);
  }

  async drop() {
    await this.database.delete();
  }

  // item shapes
  userItem(u) {
    return { id: u.id, username: u.username };
  }

  postItem(p) {
    return { id: p.id, type: "post", postId: p.id, userId: p.userId, title: p.title, content: p.content, creationDate: iso(p.created) };
  }

  commentItem(post, c) {
    return { id: c.id, type: "comment", postId: post.id, userId: c.userId, content: c.content, creationDate: iso(c.created) };
  }

  likeItem(post, l) {
    return { id: l.id, type: "like", postId: post.id, userId: l.userId, creationDate: iso(l.created) };
  }

  async loadUsers(data) {
    await bulkCreate(this.users, "users", data.users.length, data.users.map((u) => [u.id, this.userItem(u)]), this.load, { quiet: this.quiet });
  }

  async loadData(data) {
    await this.loadUsers(data);
    const total = data.counts.posts + data.counts.comments + data.counts.likes;
    await bulkCreate(this.posts, "posts, comments and likes", total, this.postsWithReactions(data), this.load, { quiet: this.quiet });
  }

  *postsWithReactions(data, { posts = true, reactions = true } = {}) {
    for (const p of data.posts) {
      if (posts) yield [p.id, this.postItem(p, data)];
      if (!reactions) continue;
      for (const c of commentsOf(p, data.users)) yield [p.id, this.commentItem(p, c, data)];
      for (const l of likesOf(p, data.users)) yield [p.id, this.likeItem(p, l, data)];
    }
  }

  // C1 create a user
  async C1(m, user) {
    return m.add(await this.users.items.create(this.userItem(user))).resource;
  }

  // Q1 retrieve a user
  async Q1(m, userId) {
    return m.add(await this.users.item(userId, userId).read()).resource;
  }

  // C2 create a post (the author is the signed-in user: the application knows the username)
  async C2(m, post) {
    return m.add(await this.posts.items.create(this.postItem(post))).resource;
  }

  // The extra calls V1 needs to show a post: the author's username, the comment and like counts.
  async withAuthorAndCounts(m, post) {
    const author = await this.Q1(m, post.userId);
    const [commentCount] = await queryAll(this.posts, m, countOf("comment"), [{ name: "@postId", value: post.postId }], { partitionKey: post.postId });
    const [likeCount] = await queryAll(this.posts, m, countOf("like"), [{ name: "@postId", value: post.postId }], { partitionKey: post.postId });
    return { ...post, userUsername: author.username, commentCount, likeCount };
  }

  async usernameOf(m, item) {
    const author = await this.Q1(m, item.userId);
    return { ...item, userUsername: author.username };
  }

  // Q2 retrieve a post with its author's username and its comment and like counts
  async Q2(m, postId) {
    const post = m.add(await this.posts.item(postId, postId).read()).resource;
    return this.withAuthorAndCounts(m, post);
  }

  // Q3 list a user's posts in short form (cross-partition: posts is partitioned by postId)
  async Q3(m, userId) {
    const posts = await queryAll(this.posts, m, postsOfUser, [{ name: "@userId", value: userId }]);
    const out = [];
    for (const p of posts) out.push(short(await this.withAuthorAndCounts(m, p)));
    return out;
  }

  // C3 create a comment
  async C3(m, post, comment) {
    return m.add(await this.posts.items.create(this.commentItem(post, comment))).resource;
  }

  // Q4 list a post's comments with their authors' usernames
  async Q4(m, postId) {
    return this.listWithUsernames(m, postId, "comment");
  }

  // C4 like a post
  async C4(m, post, like) {
    return m.add(await this.posts.items.create(this.likeItem(post, like))).resource;
  }

  // Q5 list a post's likes with their authors' usernames
  async Q5(m, postId) {
    return this.listWithUsernames(m, postId, "like");
  }

  // A post's comments or likes: one query in the post's partition.
  async list(m, postId, type) {
    return queryAll(this.posts, m, listOf(type), [{ name: "@postId", value: postId }], { partitionKey: postId });
  }

  // V1's lists of comments and likes: the list, then each author's username.
  async listWithUsernames(m, postId, type) {
    const items = await this.list(m, postId, type);
    const out = [];
    for (const i of items) out.push(await this.usernameOf(m, i));
    return out;
  }

  // Q6 the 100 most recent posts in short form (cross-partition)
  async Q6(m) {
    const posts = await queryAll(this.posts, m, newestPosts);
    const out = [];
    for (const p of posts) out.push(short(await this.withAuthorAndCounts(m, p)));
    return out;
  }

  // C1 (edit): change a username. V1 stores it once.
  async rename(m, userId, username) {
    const user = await this.Q1(m, userId);
    return m.add(await this.users.item(userId, userId).replace({ ...user, username })).resource;
  }

  /** Runs the change-feed workers until every copy is up to date. */
  async settle() {
    await settle(this.workers);
  }

  /** Checks every denormalised copy against its source; V1 keeps none. */
  async verify() {
    return [];
  }
}

// ---------------------------------------------------------------------------------------------
// V2: denormalised usernames and counts, kept up to date by stored procedures and the users feed.

export class V2 extends V1 {
  static label = "V2";

  async setup() {
    await super.setup();
    for (const id of ["createComment", "createLike", "updateUsernames"]) {
      await this.posts.scripts.storedProcedures.create({ id, body: script(id) });
    }
  }

  async loadData(data) {
    await super.loadData(data);
    await this.startWorkers();
  }

  async startWorkers() {
    this.usersWorker = new ChangeFeedWorker("users -> usernames in posts", this.users, (items, m) => this.propagateUsernames(items, m));
    await this.usersWorker.startFromNow();
    this.workers = [this.usersWorker];
  }

  /** The users change-feed worker: each changed user's username goes to all their items in posts. */
  async propagateUsernames(users, m) {
    for (const user of users) {
      if (!this.isUser(user)) continue;
      const userId = this.userIdOf(user);
      const postIds = await queryAll(
        this.posts,
        m,
        "SELECT DISTINCT VALUE p.postId FROM p WHERE p.userId = @userId AND p.userUsername != @username",
        [{ name: "@userId", value: userId }, { name: "@username", value: user.username }],
      );
      for (const postId of postIds) {
        m.add(await this.posts.scripts.storedProcedure("updateUsernames").execute(postId, [userId, user.username]));
      }
    }
  }

  isUser() {
    return true;
  }

  userIdOf(user) {
    return user.id;
  }

  postItem(p, data) {
    return {
      id: p.id,
      type: "post",
      postId: p.id,
      userId: p.userId,
      userUsername: p.username ?? data.usernames.get(p.userId),
      title: p.title,
      content: p.content,
      commentCount: p.nComments ?? 0,
      likeCount: p.nLikes ?? 0,
      creationDate: iso(p.created),
    };
  }

  commentItem(post, c, data) {
    return { id: c.id, type: "comment", postId: post.id, userId: c.userId, userUsername: c.username ?? data.usernames.get(c.userId), content: c.content, creationDate: iso(c.created) };
  }

  likeItem(post, l, data) {
    return { id: l.id, type: "like", postId: post.id, userId: l.userId, userUsername: l.username ?? data.usernames.get(l.userId), creationDate: iso(l.created) };
  }

  async Q2(m, postId) {
    return m.add(await this.posts.item(postId, postId).read()).resource;
  }

  async Q3(m, userId) {
    return (await queryAll(this.posts, m, postsOfUser, [{ name: "@userId", value: userId }])).map(short);
  }

  // C3: the createComment stored procedure in the post's partition
  async C3(m, post, comment) {
    const item = this.commentItem(post, comment);
    return m.add(await this.posts.scripts.storedProcedure("createComment").execute(post.id, [post.id, item])).resource;
  }

  async Q4(m, postId) {
    return this.list(m, postId, "comment");
  }

  // C4: the createLike stored procedure in the post's partition
  async C4(m, post, like) {
    const item = this.likeItem(post, like);
    return m.add(await this.posts.scripts.storedProcedure("createLike").execute(post.id, [post.id, item])).resource;
  }

  async Q5(m, postId) {
    return this.list(m, postId, "like");
  }

  async Q6(m) {
    return (await queryAll(this.posts, m, newestPosts)).map(short);
  }

  async allUsers() {
    const m = new Meter();
    return new Map((await queryAll(this.users, m, "SELECT * FROM u")).filter((u) => this.isUser(u)).map((u) => [this.userIdOf(u), u.username]));
  }

  // One pass over every item of posts (a projection, page by page): each item's username against
  // the users container, and each post's counts against its comments and likes.
  async verify() {
    const usernames = await this.allUsers();
    const stale = [];
    const actual = new Map();
    const posts = [];
    let items = 0;
    const scan = this.posts.items.query("SELECT * FROM p", { maxItemCount: 10_000 });
    for await (const page of scan.getAsyncIterator()) {
      for (const i of page.resources) {
        items++;
        if (usernames.get(i.userId) !== i.userUsername) stale.push(i);
        if (i.type === "post") posts.push(i);
        else actual.set(`${i.postId}/${i.type}`, (actual.get(`${i.postId}/${i.type}`) ?? 0) + 1);
      }
    }
    const wrong = posts.filter(
      (p) => p.commentCount !== (actual.get(`${p.id}/comment`) ?? 0) || p.likeCount !== (actual.get(`${p.id}/like`) ?? 0),
    );
    this.verifiedPosts = posts;
    return [
      {
        check: "posts, comments and likes carry their author's current username",
        ok: stale.length === 0,
        detail: stale.length ? `${stale.length} of ${items} items with a stale username, e.g. ${stale[0].id}` : `${items} items`,
      },
      {
        check: "every post's commentCount and likeCount equal its comments and likes",
        ok: wrong.length === 0,
        detail: wrong.length ? `${wrong.length} posts wrong, e.g. ${wrong[0].id}` : `${posts.length} posts`,
      },
    ];
  }
}

// ---------------------------------------------------------------------------------------------
// V3: every query single-partition: users by /userId with copies of their posts, and a feed.

export class V3 extends V2 {
  static label = "V3";
  static usersKey = "/userId";

  async setup() {
    await super.setup();
    this.feed = await createContainer(this.database, "feed", "/type");
    await this.feed.scripts.triggers.create({
      id: "truncateFeed",
      body: script("truncateFeed"),
      triggerType: TriggerType.Post,
      triggerOperation: TriggerOperation.All,
    });
  }

  userItem(u) {
    return { id: u.id, type: "user", userId: u.id, username: u.username };
  }

  isUser(item) {
    return item.type === "user";
  }

  userIdOf(user) {
    return user.userId;
  }

  // The posts are loaded after the workers start, so that the posts worker copies every one of them
  // into users and feed, as it would for posts written by the application.
  async loadData(data) {
    await this.loadUsers(data);
    const reactions = data.counts.comments + data.counts.likes;
    await bulkCreate(this.posts, "comments and likes", reactions, this.postsWithReactions(data, { posts: false }), this.load, { quiet: this.quiet });
    await this.startWorkers();
    await bulkCreate(this.posts, "posts", data.counts.posts, this.postsWithReactions(data, { reactions: false }), this.load, { quiet: this.quiet });
    await this.settle();
  }

  async startWorkers() {
    await super.startWorkers();
    this.postsWorker = new ChangeFeedWorker("posts -> users and feed", this.posts, (items, m) => this.copyPosts(items, m));
    await this.postsWorker.startFromNow();
    this.workers = [this.usersWorker, this.postsWorker];
  }

  /** The posts change-feed worker: each changed post, in short form, into users and into feed. */
  async copyPosts(items, m) {
    const posts = items.filter((i) => i.type === "post").map(short);
    if (!posts.length) return;
    // to users: concurrently (each copy goes to its author's partition)
    await inParallel(posts, 16, async (p) => m.add(await this.users.items.upsert(p)));
    // one at a time: each write's trigger counts the feed and deletes the oldest beyond 100
    for (const p of posts) m.add(await this.feed.items.upsert(p, { postTriggerInclude: ["truncateFeed"] }));
  }

  // Q3: a single-partition query on users
  async Q3(m, userId) {
    return queryAll(this.users, m, "SELECT * FROM u WHERE u.userId = @userId AND u.type = 'post'", [{ name: "@userId", value: userId }], { partitionKey: userId });
  }

  // Q6: a single-partition query on feed
  async Q6(m) {
    return queryAll(this.feed, m, "SELECT TOP 100 * FROM f WHERE f.type = 'post' ORDER BY f.creationDate DESC", [], { partitionKey: "post" });
  }

  async verify() {
    const checks = await super.verify();
    const m = new Meter();
    const expected = new Map(this.verifiedPosts.map((p) => [p.id, JSON.stringify(short(p))]));
    const strip = (i) => JSON.stringify(short(i));

    const copies = await queryAll(this.users, m, "SELECT * FROM u WHERE u.type = 'post'");
    const seen = new Set();
    const bad = copies.filter((c) => {
      seen.add(c.id);
      return expected.get(c.id) !== strip(c);
    });
    const missing = [...expected.keys()].filter((id) => !seen.has(id));
    checks.push({
      check: "users holds one up-to-date short copy of every post, in its author's partition",
      ok: bad.length === 0 && missing.length === 0 && copies.length === expected.size,
      detail: `${copies.length} copies for ${expected.size} posts, ${bad.length} stale, ${missing.length} missing`,
    });

    const feed = await queryAll(this.feed, m, "SELECT * FROM f", [], { partitionKey: "post" });
    const newest = [...this.verifiedPosts].sort((a, b) => (a.creationDate < b.creationDate ? 1 : -1)).slice(0, 100);
    const feedIds = new Set(feed.map((f) => f.id));
    const absent = newest.filter((p) => !feedIds.has(p.id));
    const staleFeed = feed.filter((f) => expected.get(f.id) !== strip(f));
    checks.push({
      check: "feed holds exactly the 100 newest posts, up to date",
      ok: feed.length === Math.min(100, newest.length) && absent.length === 0 && staleFeed.length === 0,
      detail: `${feed.length} items, ${absent.length} of the 100 newest absent, ${staleFeed.length} stale`,
    });
    return checks;
  }
}

/** Runs fn over items, at most `width` at a time. */
async function inParallel(items, width, fn) {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, lane));
}

export const DESIGNS = { V1, V2, V3 };
