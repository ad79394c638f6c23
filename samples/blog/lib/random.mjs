// A seeded pseudo-random generator (sfc32, seeded through splitmix32): the same seed gives the same
// data on every machine and Node version, because it uses only 32-bit integer arithmetic.

function splitmix32(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

export class Random {
  constructor(seed) {
    const mix = splitmix32(seed);
    this.a = mix();
    this.b = mix();
    this.c = mix();
    this.d = mix();
    for (let i = 0; i < 12; i++) this.u32();
  }

  /** The next unsigned 32-bit integer. */
  u32() {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = ((this.c << 21) | (this.c >>> 11)) >>> 0;
    this.c = (this.c + t) >>> 0;
    return t;
  }

  /** A float in [0, 1). */
  next() {
    return this.u32() / 4294967296;
  }

  /** An integer in [lo, hi], both included. */
  int(lo, hi) {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  pick(array) {
    return array[Math.floor(this.next() * array.length)];
  }

  /** k distinct integers from [0, n), in random order (k <= n). */
  sample(n, k) {
    const chosen = new Set();
    const out = [];
    while (out.length < k) {
      const v = Math.floor(this.next() * n);
      if (!chosen.has(v)) {
        chosen.add(v);
        out.push(v);
      }
    }
    return out;
  }

  /** A version-4 UUID drawn from this generator (ids look like the ones applications use). */
  uuid() {
    const hex = (n) => n.toString(16).padStart(8, "0");
    const s = hex(this.u32()) + hex(this.u32()) + hex(this.u32()) + hex(this.u32());
    const variant = "89ab"[this.u32() & 3];
    return `${s.slice(0, 8)}-${s.slice(8, 12)}-4${s.slice(13, 16)}-${variant}${s.slice(17, 20)}-${s.slice(20, 32)}`;
  }
}

const WORDS = (
  "the a of to and in is it you that he was for on are with as his they be at one have this from or had by " +
  "word but what some we can out other were all there when up use your how said an each she which do their " +
  "time if will way about many then them write would like so these her long make thing see him two has look " +
  "more day could go come did number sound no most people my over know water than call first who may down side " +
  "been now find any new work part take get place made live where after back little only round man year came " +
  "show every good me give our under name very through just form sentence great think say help low line differ " +
  "turn cause much mean before move right boy old too same tell does set three want air well also play small end " +
  "put home read hand port large spell add even land here must big high such follow act why ask men change went " +
  "light kind off need house picture try us again animal point mother world near build self earth father head " +
  "stand own page should country found answer school grow study still learn plant cover food sun four between " +
  "state keep eye never last let thought city tree cross farm hard start might story saw far sea draw left late " +
  "run while press close night real life few north open seem together next white children begin got walk example " +
  "ease paper group always music those both mark often letter until mile river car feet care second book carry " +
  "took science eat room friend began idea fish mountain stop once base hear horse cut sure watch color face wood " +
  "main enough plain girl usual young ready above ever red list though feel talk bird soon body dog family direct"
).split(" ");

/** Text of about `chars` characters: sentences of common English words. */
export function text(rng, chars) {
  const parts = [];
  let length = 0;
  while (length < chars) {
    const n = rng.int(6, 16);
    const words = [];
    for (let i = 0; i < n; i++) words.push(rng.pick(WORDS));
    const sentence = words.join(" ");
    const s = sentence[0].toUpperCase() + sentence.slice(1) + ".";
    parts.push(s);
    length += s.length + 1;
  }
  return parts.join(" ").slice(0, chars).trimEnd();
}

export function title(rng) {
  const words = [];
  for (let i = rng.int(3, 8); i > 0; i--) words.push(rng.pick(WORDS));
  const s = words.join(" ");
  return s[0].toUpperCase() + s.slice(1);
}

const FIRST = ("ada alan anna ben carla chen dana david elena emma farid grace hana ivan jack jana kai "
  + "lara leo lina marco maria mei nadia noah olga omar paula pedro priya rosa sam sara tom uma vera yuki zoe").split(" ");
const LAST = ("smith garcia kim nguyen müller rossi tanaka silva novak dubois khan patel cohen jensen "
  + "kowalski ivanova santos lopez andersen okafor").split(" ");

export function username(rng, n) {
  return `${rng.pick(FIRST)}.${rng.pick(LAST)}${n}`;
}
