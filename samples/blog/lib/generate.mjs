// The dataset of the scenario, generated from a seed: N users, 5-50 posts each, up to 25 comments and
// up to 100 likes per post (uniform; each like by a different user). Posts and comments are 1-3 KB
// stored: the published charges imply comments of that size too (V1's comment create, 8.57 RU, and
// V2's 20-comment list, 7.72 RU, both give about 2.2 KB a comment); likes are about 0.35 KB. The same seed
// and N give the same data, byte for byte. Post dates are unique, so "the 100 newest" is well defined.
//
// The targets the requests are measured against are part of the data: the first user with 27
// posts (the scenario's "user with about 27 posts"), and that user's newest post, which gets exactly
// 20 comments and 50 likes (the scenario's measured post).
import { Random, text, title, username } from "./random.mjs";

const DAY = 86_400_000;
const START = Date.UTC(2025, 0, 1);
const TARGET_POSTS = 27;
export const TARGET_COMMENTS = 20;
export const TARGET_LIKES = 50;

export function generate({ users: userCount = 1000, seed = 1 } = {}) {
  if (userCount < TARGET_LIKES) throw new Error(`at least ${TARGET_LIKES} users are needed (the target post has ${TARGET_LIKES} likes, each by a different user)`);
  const rng = new Random(seed);
  const users = [];
  for (let i = 0; i < userCount; i++) users.push({ id: rng.uuid(), username: username(rng, i + 1) });

  const postCounts = users.map(() => rng.int(5, 50));
  let targetUser = postCounts.indexOf(TARGET_POSTS);
  if (targetUser < 0) {
    targetUser = 0;
    postCounts[0] = TARGET_POSTS;
  }

  const usedDates = new Set();
  const uniqueDate = (from, span) => {
    for (;;) {
      const t = from + rng.int(0, span - 1);
      if (!usedDates.has(t)) {
        usedDates.add(t);
        return t;
      }
    }
  };

  const posts = [];
  let target = null;
  users.forEach((user, u) => {
    const mine = [];
    for (let k = 0; k < postCounts[u]; k++) {
      const created = uniqueDate(START, 365 * DAY);
      mine.push({
        id: rng.uuid(),
        userId: user.id,
        title: title(rng),
        content: text(rng, rng.int(600, 2600)),
        created,
        nComments: rng.int(0, 25),
        nLikes: rng.int(0, Math.min(100, userCount)),
      });
    }
    if (u === targetUser) {
      target = mine.reduce((a, b) => (b.created > a.created ? b : a));
      target.nComments = TARGET_COMMENTS;
      target.nLikes = TARGET_LIKES;
    }
    posts.push(...mine);
  });

  for (const post of posts) post.seed = rng.u32();
  const usernames = new Map(users.map((u) => [u.id, u.username]));
  const counts = posts.reduce(
    (acc, p) => ({ comments: acc.comments + p.nComments, likes: acc.likes + p.nLikes }),
    { comments: 0, likes: 0 },
  );
  return {
    seed,
    users,
    posts,
    usernames,
    counts: { users: users.length, posts: posts.length, ...counts },
    target: { user: users[targetUser], post: target, userPosts: TARGET_POSTS },
    fresh: () => new Fresh(seed, users),
  };
}

/**
 * A post's comments and likes, generated on demand from the post's own seed (the full set would take
 * more than a gigabyte if kept): the same post always gives the same comments and likes.
 */
export function commentsOf(post, users) {
  const rng = new Random(post.seed);
  const out = [];
  for (let k = 0; k < post.nComments; k++) {
    out.push({
      id: rng.uuid(),
      userId: users[rng.int(0, users.length - 1)].id,
      content: text(rng, rng.int(800, 2800)),
      created: post.created + 1 + rng.int(0, 30 * DAY - 1),
    });
  }
  return out;
}

export function likesOf(post, users) {
  const rng = new Random(post.seed ^ 0x11ce);
  return rng.sample(users.length, post.nLikes).map((u) => ({
    id: rng.uuid(),
    userId: users[u].id,
    created: post.created + 1 + rng.int(0, 30 * DAY - 1),
  }));
}

export const iso = (t) => new Date(t).toISOString();

/** New items for the create requests (C1-C4), drawn from their own seeded stream. */
class Fresh {
  constructor(seed, users) {
    this.rng = new Random(seed ^ 0x5eed);
    this.users = users;
    this.n = 0;
    this.clock = START + 400 * DAY;
  }

  now() {
    this.clock += 1000 + this.rng.int(0, 999);
    return this.clock;
  }

  user() {
    this.n++;
    return { id: this.rng.uuid(), username: username(this.rng, 1_000_000 + this.n) };
  }

  post(userId) {
    return { id: this.rng.uuid(), userId, title: title(this.rng), content: text(this.rng, this.rng.int(600, 2600)), created: this.now() };
  }

  comment(userId) {
    return { id: this.rng.uuid(), userId, content: text(this.rng, this.rng.int(800, 2800)), created: this.now() };
  }

  like(userId) {
    return { id: this.rng.uuid(), userId, created: this.now() };
  }

  someUser() {
    return this.users[this.rng.int(0, this.users.length - 1)];
  }
}
