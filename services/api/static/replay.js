// A finished match, afterwards: a move-by-move replay, a check of its deals against the seed it
// revealed, and its export (the file `truc export` writes).
// The replay reads GET /matches/{id}/replay?version=N, the match right after event N (both hands
// show once it is finished); the log (/events) says what each move was.
// Loaded after table.js, whose globals (app, api, attempt, el, cardFace, cardText, describe, who,
// label, other) it calls. Every text from the server goes through textContent.
"use strict";

const EXPORT_FORMAT = "truc-match/1"; // as services/cli/exports.py writes it

const replay = {
  matchId: null, // the finished match the panel shows
  events: [], // its whole log
  at: 0, // the version shown
  asked: 0, // the version last asked for: a slower answer for another is dropped
};

// Called with every view of the open match: the panel shows once the match is finished.
function renderReplay(view) {
  const finished = view.status === "finished";
  $("replay").hidden = !finished;
  if (!finished || replay.matchId === view.id) return;
  Object.assign(replay, { matchId: view.id, events: [], at: 0, asked: 0 });
  renderLobby(); // lobby.js: the finished list has one more
  $("verify-result").textContent = "";
  $("verify-result").className = "verdict";
  attempt(async () => {
    const events = await wholeLog(view.id);
    if (replay.matchId !== view.id) return;
    replay.events = events;
    fillRounds(events);
    await showVersion(events.length);
  });
}

async function wholeLog(id) {
  const events = [];
  for (;;) {
    const page = await api("GET", `/matches/${encodeURIComponent(id)}/events?after=${events.length}&limit=${LOG_PAGE}`);
    events.push(...page.events);
    if (page.events.length < LOG_PAGE) return events;
  }
}

// The round picker: each round starts at its deal.
function fillRounds(events) {
  const dealt = events.filter((event) => event.type === "round_dealt");
  $("replay-round").replaceChildren(...dealt.map((event) => {
    const option = el("option", { value: String(event.version), textContent: _("Round {number}", { number: event.data.round }) });
    return option;
  }));
}

// ---- stepping -----------------------------------------------------------------------

async function showVersion(version) {
  const total = replay.events.length;
  const wanted = Math.min(Math.max(version, 1), total);
  if (!total) return;
  replay.asked = wanted;
  const id = replay.matchId;
  const then = await api("GET", `/matches/${encodeURIComponent(id)}/replay?version=${wanted}`);
  if (replay.matchId !== id || replay.asked !== wanted) return;
  replay.at = wanted;
  drawReplay(then, replay.events[wanted - 1], total);
}

const stepReplay = (by) => attempt(() => showVersion(replay.at + by));

// The first event of the round before (or of this one, when shown past its deal) or after.
function roundStart(direction) {
  const deals = replay.events.filter((event) => event.type === "round_dealt").map((event) => event.version);
  if (direction < 0) return [...deals].reverse().find((version) => version < replay.at) || 1;
  return deals.find((version) => version > replay.at) || replay.events.length;
}

function drawReplay(then, event, total) {
  $("replay").dataset.version = String(replay.at);
  $("replay-position").textContent = _("Move {number} of {count}", { number: replay.at, count: total });
  $("replay-event").textContent = describe(event);
  const me = app.view.you || "A";
  // names and numbers: no words to translate
  $("replay-scores").textContent = `${label(me)} ${then.scores[me]} – ${then.scores[other(me)]} ${label(other(me))}`;
  const round = then.round;
  const current = [...replay.events.slice(0, replay.at)].reverse().find((e) => e.type === "round_dealt");
  if (current) $("replay-round").value = String(current.version);
  $("replay-hands").replaceChildren(...(round && round.hands ? [me, other(me)].map((seat) => el("div", { className: "seat" },
    el("h4", { className: "seat-name" }, el("bdi", { textContent: label(seat) })), // aligned as the page, beside its cards
    el("div", { className: "cards" }, ...round.hands[seat].map((card) => cardFace(card))))) : []));
  $("replay-tricks").replaceChildren(...(round ? round.tricks : []).map((trick, i) => el("li", {
    textContent: _("Trick {number}: {first} – {second}", { number: i + 1,
      first: trick.cards[me] ? cardText(trick.cards[me]) : "…", second: trick.cards[other(me)] ? cardText(trick.cards[other(me)]) : "…" }),
  })));
  $("replay-previous").disabled = replay.at <= 1;
  $("replay-next").disabled = replay.at >= total;
}

// Keys while the replay has the focus: arrows step (mirrored right to left), Home and End go
// to the ends, Page Up and Page Down to the round before and after.
function onReplayKey(event) {
  if (event.target instanceof HTMLSelectElement || event.altKey || event.ctrlKey || event.metaKey) return;
  const forward = document.documentElement.dir === "rtl" ? "ArrowLeft" : "ArrowRight";
  const backward = forward === "ArrowLeft" ? "ArrowRight" : "ArrowLeft";
  const targets = { [forward]: replay.at + 1, [backward]: replay.at - 1, Home: 1, End: replay.events.length,
    PageUp: roundStart(-1), PageDown: roundStart(1) };
  if (!(event.key in targets)) return;
  event.preventDefault();
  attempt(() => showVersion(targets[event.key]));
}

// ---- the deals, recomputed from the seed (shared/rules/chance.py, step by step) --------

const DEAL_DECK = ["S", "H", "D", "C"].flatMap((suit) => ["9", "10", "J", "Q", "K", "A", "8", "7"].map((rank) => rank + suit));
const SPAN = 2n ** 64n;

const bytesOf = (text) => new TextEncoder().encode(text);
const hexBytes = (hex) => Uint8Array.from(hex.match(/../g), (pair) => parseInt(pair, 16));
const hexOf = (bytes) => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
const bigEndian32 = (n) => Uint8Array.of(n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255);
const joined = (...parts) => {
  const all = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  parts.reduce((at, part) => { all.set(part, at); return at + part.length; }, 0);
  return all;
};
const sha256 = async (bytes) => new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));

// Round n's deck, top first: a SHA-256 counter stream of 64-bit draws drives a Fisher-Yates shuffle.
async function seededDeck(seed, roundNumber) {
  const prefix = joined(hexBytes(seed), bytesOf("truc-deal"), bigEndian32(roundNumber));
  const pool = [];
  let block = 0;
  const draw = async () => {
    if (!pool.length) {
      const digest = new DataView((await sha256(joined(prefix, bigEndian32(block++)))).buffer);
      for (let offset = 0; offset < 32; offset += 8) pool.push(digest.getBigUint64(offset));
    }
    return pool.shift();
  };
  const cards = DEAL_DECK.slice();
  for (let i = cards.length - 1; i > 0; i--) {
    const bound = BigInt(i + 1);
    let x = await draw();
    while (x >= SPAN - (SPAN % bound)) x = await draw();
    const j = Number(x % bound);
    [cards[i], cards[j]] = [cards[j], cards[i]];
  }
  return cards;
}

// What a deal should have been (R6): three cards each, one at a time, non-dealer first.
function dealtFrom(deck, dealer) {
  const hands = { [other(dealer)]: [deck[0], deck[2], deck[4]], [dealer]: [deck[1], deck[3], deck[5]] };
  return JSON.stringify({ A: hands.A, B: hands.B, stock: deck.slice(6) });
}

// The verdict on a log: {ok, text}. The seed is the one match_won revealed (or an export's own).
async function verdictOn(events, headerSeed = null) {
  const created = events.find((event) => event.type === "match_created");
  const won = events.find((event) => event.type === "match_won");
  const seed = (won && won.data.seed) || headerSeed;
  if (!created || !created.data.seed_commitment) return { ok: false, text: _("No seed was committed: these deals cannot be verified.") };
  if (!seed) return { ok: false, text: _("The seed is revealed when the match is won: nothing to verify yet.") };
  if (!crypto.subtle) return { ok: false, text: _("This browser can compute SHA-256 only on a secure (https) page.") };
  const wellFormed = /^[0-9a-f]{64}$/.test(seed);
  if (!wellFormed || hexOf(await sha256(hexBytes(seed))) !== created.data.seed_commitment) {
    return { ok: false, text: _("Fail: the revealed seed does not match the commitment made at creation.") };
  }
  const given = (created.data.decks || []).length; // rounds the creator dealt from chosen decks
  const deals = events.filter((event) => event.type === "round_dealt" && event.data.round > given);
  for (const deal of deals) {
    const recorded = JSON.stringify({ A: deal.data.hands.A, B: deal.data.hands.B, stock: deal.data.stock });
    if (dealtFrom(await seededDeck(seed, deal.data.round), deal.data.dealer) !== recorded) {
      return { ok: false, text: _("Fail: round {number} was not dealt from the committed seed.", { number: deal.data.round }) };
    }
  }
  return { ok: true, text: ngettext("Pass: the seed matches its commitment and the {count} deal was dealt from it.",
    "Pass: the seed matches its commitment and all {count} deals were dealt from it.", deals.length) };
}

function showVerdict(verdict) {
  const box = $("verify-result");
  box.textContent = verdict.text;
  box.className = `verdict ${verdict.ok ? "pass" : "fail"}`;
  box.dataset.verdict = verdict.ok ? "pass" : "fail";
}

const verifyThisMatch = () => attempt(async () => showVerdict(await verdictOn(replay.events)));

// An export file chosen by the player: its header, then one event a line.
async function verifyFile() {
  const file = $("verify-file").files[0];
  if (!file) return;
  await attempt(async () => {
    const lines = (await file.text()).split("\n").filter((line) => line.trim());
    let header;
    let events;
    try {
      [header, ...events] = lines.map((line) => JSON.parse(line));
    } catch {
      header = null;
    }
    if (!header || header.format !== EXPORT_FORMAT || !Array.isArray(events) || header.events !== events.length) {
      showVerdict({ ok: false, text: _("This file is not a match export.") });
      return;
    }
    showVerdict(await verdictOn(events, typeof header.seed === "string" ? header.seed : null));
  });
}

// ---- the export, built here from the log: the same lines `truc export` writes ----------

function exportText(view, events) {
  const players = {};
  for (const seat of ["A", "B"]) if (view.players[seat]) players[view.players[seat].id] = view.players[seat].name;
  const header = { format: EXPORT_FORMAT, match_id: view.id, events: events.length, seed: null, players };
  return [header, ...events].map((line) => `${JSON.stringify(line)}\n`).join("");
}

function downloadExport() {
  if (!replay.events.length || !app.view) return;
  const blob = new Blob([exportText(app.view, replay.events)], { type: "application/x-ndjson" });
  const link = el("a", { href: URL.createObjectURL(blob), download: `truc-${app.view.id}.jsonl` });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}

function startReplay() {
  $("replay-previous").addEventListener("click", () => stepReplay(-1));
  $("replay-next").addEventListener("click", () => stepReplay(1));
  $("replay-round").addEventListener("change", () => attempt(() => showVersion(Number($("replay-round").value))));
  $("replay-steps").addEventListener("keydown", onReplayKey);
  $("verify").addEventListener("click", verifyThisMatch);
  $("verify-file").addEventListener("change", verifyFile);
  $("download-export").addEventListener("click", downloadExport);
}

startReplay();
