// The provably fair shuffle, algorithm version 1 (PROTOCOL.md section 13),
// recomputed in the browser to check a round after the fact.
//
// Before the deal the server publishes `commitment` = hex SHA-256(server_seed)
// and the nonce (the round id). At showdown it reveals `server_seed` and the
// `client_seeds` it used. The deck is a Fisher-Yates shuffle of the ordered
// deck driven by HMAC-SHA256(server_seed, "<client_seeds>:<nonce>:<counter>"),
// each MAC cut into 32-bit big-endian words, with rejection sampling. The cards
// go one at a time to each seat that anted, in seat order, then the dealer,
// five times.
//
// Pure functions, no DOM: the page and `node --test` (test/fairness.test.mjs)
// run the same code. SHA-256 and HMAC come from @noble/hashes (pure JS, so the
// check also works on plain-http pages where WebCrypto's `subtle` is missing).

import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";

export const ALGORITHM = "hmac-sha256-fisher-yates-v1";
export const MAX_CLIENT_SEED = 64;
/** What the server accepts as a client seed (the `seed` message). */
export const CLIENT_SEED_PATTERN = /^[A-Za-z0-9_.-]{0,64}$/;

/** The deck before shuffling: ranks 2..A, each in suits c d h s ("2c", "2d", ... "As"). */
export const ORDERED_DECK = Object.freeze(
  [..."23456789TJQKA"].flatMap((rank) => [..."cdhs"].map((suit) => rank + suit)),
);

const TWO_32 = 2 ** 32;
const CARDS_PER_HAND = 5;
const encoder = new TextEncoder();

/** Lowercase hex of bytes. */
export function toHex(bytes) {
  let out = "";
  for (const b of bytes) out += b.toString(16).padStart(2, "0");
  return out;
}

/** Bytes of a hex string (either case), or `null` when it is not hex. */
export function fromHex(text) {
  if (typeof text !== "string" || text.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(text)) return null;
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** hex SHA-256 of the server seed: the commitment published before the deal. */
export function commitmentOf(serverSeed) {
  return toHex(sha256(serverSeed));
}

/** The random stream: 32-bit big-endian words of successive MACs, and `randbelow`. */
export class Stream {
  constructor(serverSeed, clientSeeds, nonce) {
    this.key = serverSeed;
    this.prefix = `${clientSeeds}:${nonce}:`;
    this.counter = 0;
    this.words = [];
    this.at = 0;
  }

  /** The next word of the stream, 0 .. 2^32 - 1. */
  nextWord() {
    if (this.at === this.words.length) {
      const mac = hmac(sha256, this.key, encoder.encode(this.prefix + String(this.counter)));
      this.counter += 1;
      const view = new DataView(mac.buffer, mac.byteOffset, mac.byteLength);
      this.words = [];
      for (let i = 0; i < 32; i += 4) this.words.push(view.getUint32(i, false));
      this.at = 0;
    }
    return this.words[this.at++];
  }

  /** A uniform integer in 0 .. n-1: words at or above the last multiple of n are redrawn. */
  randbelow(n) {
    if (!Number.isInteger(n) || n < 1 || n > TWO_32) throw new RangeError(`randbelow needs 1 <= n <= 2^32, got ${n}`);
    const limit = TWO_32 - (TWO_32 % n);
    for (;;) {
      const word = this.nextWord();
      if (word < limit) return word % n;
    }
  }
}

/** The deck a round with these seeds deals, top card first (serverSeed: bytes). */
export function fairOrder(serverSeed, clientSeeds, nonce) {
  const stream = new Stream(serverSeed, clientSeeds, nonce);
  const deck = [...ORDERED_DECK];
  for (let i = 51; i >= 1; i--) {
    const j = stream.randbelow(i + 1);
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck;
}

/** Deal `hands` hands (the anted seats in seat order, then the dealer), one card at a time, five times. */
export function dealtHands(deck, hands) {
  const out = Array.from({ length: hands }, () => []);
  let top = 0;
  for (let k = 0; k < CARDS_PER_HAND; k++) {
    for (const hand of out) hand.push(deck[top++]);
  }
  return out;
}

const short = (hex) => (typeof hex === "string" && hex.length > 16 ? `${hex.slice(0, 8)}…${hex.slice(-6)}` : String(hex));
const cardsText = (cards) => (Array.isArray(cards) && cards.length ? cards.map((c) => c ?? "??").join(" ") : "no cards");
const quoted = (seed) => (seed ? `“${seed}”` : "none (empty)");
const seatName = (s) => `Seat ${s.seat + 1}${s.name ? ` (${s.name})` : ""}`;

/**
 * Check a round's revealed proof against the cards that were shown.
 *
 * @param {object} round
 *   roundId: the round's id (the proof's nonce must be it);
 *   proof: `{commitment, server_seed, client_seeds, nonce}` from the showdown snapshot or history;
 *   promised: the commitment this client saw before the deal (or null if it saw none);
 *   promisedBeforeDeal: false when that commitment was first seen after the cards were out;
 *   seats: `[{seat, name, cards}]`, every hand dealt (any order: sorted by seat here);
 *   dealer: the dealer's five cards;
 *   mySeeds: `{seatIndex: seed}`, the client seed this client had set for its seats (optional);
 *   changedTo: a different commitment seen later in the same round before showdown (optional).
 * @returns {{ok: boolean, problems: string[], notes: string[], deck: string[] | null}}
 */
export function verifyRound({
  roundId, proof, promised = null, promisedBeforeDeal = true, changedTo = null, seats, dealer, mySeeds = {},
}) {
  const problems = [];
  const notes = [];
  if (!proof || typeof proof !== "object") {
    return { ok: false, problems: ["This round has no fairness proof: its deal was not made by the provably fair shuffler."], notes, deck: null };
  }
  for (const key of ["commitment", "server_seed", "client_seeds", "nonce"]) {
    if (typeof proof[key] !== "string") problems.push(`The proof has no ${key.replace("_", " ")}.`);
  }
  if (problems.length) return { ok: false, problems, notes, deck: null };

  const seed = fromHex(proof.server_seed);
  if (seed === null) {
    return { ok: false, problems: ["The server seed is not hex."], notes, deck: null };
  }
  if (roundId && proof.nonce !== roundId) {
    problems.push(`The nonce “${proof.nonce}” is not this round's id “${roundId}”.`);
  }
  const hash = commitmentOf(seed);
  const published = proof.commitment.toLowerCase();
  if (promised) {
    if (promised.toLowerCase() !== published) {
      problems.push(`The commitment published before the deal (${short(promised)}) is not the one in the proof (${short(published)}).`);
    }
    if (hash !== promised.toLowerCase()) {
      problems.push(`SHA-256 of the server seed is ${short(hash)}, not the commitment published before the deal (${short(promised)}).`);
    }
    if (changedTo && changedTo.toLowerCase() !== promised.toLowerCase()) {
      problems.push(`The commitment changed during the round, from ${short(promised)} to ${short(changedTo)}.`);
    }
    if (!promisedBeforeDeal) notes.push("This page first saw the commitment after the cards were dealt.");
  } else {
    if (hash !== published) {
      problems.push(`SHA-256 of the server seed is ${short(hash)}, not the commitment in the proof (${short(published)}).`);
    }
    notes.push("This page did not see the commitment before the deal: the seed was checked against the proof's own commitment.");
  }

  const hands = [...(seats ?? [])].sort((a, b) => a.seat - b.seat);
  const fields = proof.client_seeds.split(",");
  if (fields.length !== hands.length) {
    problems.push(`The client seeds “${proof.client_seeds}” name ${fields.length} seat${fields.length === 1 ? "" : "s"}, but ${hands.length} hand${hands.length === 1 ? " was" : "s were"} dealt.`);
  } else {
    hands.forEach((s, i) => {
      const mine = mySeeds?.[s.seat];
      if (mine !== undefined && mine !== null && fields[i] !== mine) {
        problems.push(`${seatName(s)} should have been dealt with your client seed ${quoted(mine)}, but the proof used ${quoted(fields[i])}.`);
      }
    });
  }

  const deck = fairOrder(seed, proof.client_seeds, proof.nonce);
  const expected = dealtHands(deck, hands.length + 1);
  hands.forEach((s, i) => {
    const got = Array.isArray(s.cards) ? s.cards : [];
    if (got.length !== expected[i].length || got.some((c, k) => c !== expected[i][k])) {
      problems.push(`${seatName(s)} should hold ${cardsText(expected[i])}, not ${cardsText(got)}.`);
    }
  });
  const wantDealer = expected[hands.length];
  const gotDealer = Array.isArray(dealer) ? dealer : [];
  if (gotDealer.length !== wantDealer.length || gotDealer.some((c, k) => c !== wantDealer[k])) {
    problems.push(`The dealer should hold ${cardsText(wantDealer)}, not ${cardsText(gotDealer)}.`);
  }
  return { ok: problems.length === 0, problems, notes, deck };
}
