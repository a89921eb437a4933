// The browser table: register, start or join a match, and play it live.
// Views arrive over server-sent events (/matches/{id}/stream); nothing here polls. The
// player's own stream (/players/{id}/stream) says when another of their matches awaits them.
// Every text from the server goes through textContent, never innerHTML.
// Every player name is isolated (any script, either direction): a name inside a sentence goes
// between FSI and PDI (isolate(), in i18n.js); a name on its own is a <bdi> in a block that
// keeps the page's direction (a block of dir="auto" would align a Latin name to the far side).
"use strict";

const $ = (id) => document.getElementById(id);
const SUITS = { S: ["♠", "spades", false], H: ["♥", "hearts", true], D: ["♦", "diamonds", true], C: ["♣", "clubs", false] };
const ACTION_ORDER = ["accept", "remainder", "reject", "raise", "propose_redeal", "fold", "resign", "cancel"];
const OVER = ["finished", "cancelled"]; // a match in either status changes no more
const WARN_SECONDS = 10; // the player whose clock runs hears once when this little is left
const STORAGE_KEY = "truc.player";
const LOG_PAGE = 1000; // events per fetch of the log

const app = {
  player: loadPlayer(), // {id, name, token} or null
  invites: new Map(), // match id -> the invite of a private match of ours ("" while it is asked for)
  matchId: null,
  view: null,
  source: null, // the EventSource of the open match
  feed: null, // the EventSource of the player's own stream
  feedRetryMs: 0, // how long to wait before opening a refused player stream again
  feedWaiters: [], // what waits for the player's stream to open (a seek, whose end only it tells)
  elsewhere: new Map(), // match id -> version: the player's other matches that await their move
  busy: false, // an action is on its way
  awaiting: 0, // the version our last action produced: its buttons stay off until the view reaches it
  logged: 0, // the last event version shown in the log
  logging: null, // the log fetch in flight
  logAgain: false,
  defaulting: null, // the seat whose timeout the log just showed: its next decision was the default
  confirming: false, // "Resign this match?" is asked: the actions are its two answers
  warned: 0, // the version whose clock warning was announced
  seekId: null, // the rated seek this page opened, while it waits to be paired
};

const isOver = (view) => OVER.includes(view.status);

// ---- the API -------------------------------------------------------------------------

class ApiError extends Error {
  constructor(status, body, retryAfter) {
    const fields = body && body.fields ? Object.values(body.fields).flat().join(" ") : "";
    super(fields || (body && body.message) || _("The server answered {status}.", { status }));
    this.status = status;
    this.code = body && body.error;
    this.retryAfter = retryAfter; // seconds the server asked us to wait (429, 503), or 0
  }
}

async function api(method, path, body, headers = {}) {
  const sent = { ...headers };
  if (app.player) sent.Authorization = `Bearer ${app.player.token}`;
  sent["Accept-Language"] = I18N.lang; // the server's own sentences in the page's language
  if (body !== undefined) sent["Content-Type"] = "application/json";
  const response = await fetch(path, { method, headers: sent, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!response.ok) throw await failure(response);
  return isJson(response) ? response.json() : null;
}

const isJson = (response) => (response.headers.get("Content-Type") || "").includes("json");

// A refusal as an ApiError: the server's sentence and code, and how long it asked us to wait.
async function failure(response) {
  const body = isJson(response) ? await response.json() : null;
  return new ApiError(response.status, body, Number(response.headers.get("Retry-After")) || 0);
}

function say(text, kind = "info") {
  const box = $("message");
  box.textContent = text;
  box.className = `message ${text ? kind : ""}`;
}

async function attempt(work) {
  try {
    say("");
    await work();
  } catch (error) {
    say(error instanceof ApiError ? error.message : _("The server cannot be reached; try again."), "error");
  }
}

// ---- who you are ---------------------------------------------------------------------

function loadPlayer() {
  try {
    return JSON.parse(localStorage.getItem(STORAGE_KEY));
  } catch {
    return null;
  }
}

function setPlayer(player) {
  app.player = player;
  if (player) localStorage.setItem(STORAGE_KEY, JSON.stringify(player));
  else localStorage.removeItem(STORAGE_KEY);
  $("whoami").hidden = !player;
  $("whoami-name").textContent = player ? player.name : "";
  $("register").hidden = Boolean(player);
  $("lobby").hidden = !player || (app.view !== null && !isOver(app.view));
  watchFeed();
  renderAccount(); // account.js: the player's matches, devices and password
  renderLobby(); // lobby.js: matches to join, resume and replay
}

async function register(event) {
  event.preventDefault();
  await attempt(async () => {
    const password = $("new-password").value;
    const body = { name: $("name").value.trim(), ...(password ? { password } : {}) };
    setPlayer({ ...(await api("POST", "/players", body)), password: Boolean(password) });
    $("new-password").value = "";
    await signedIn();
  });
}

// After registering or logging in: on to the invitation or match the page was opened for.
async function signedIn() {
  const join = new URLSearchParams(location.search).get("join");
  if (join) await showInvite(join, invitation());
  else if (app.matchId) openMatch(app.matchId); // watching a match: now as ourselves
  else $("play-bot").focus();
}

// ---- matches -------------------------------------------------------------------------

// Quick pairing: a rated seek; the player's stream says "paired" with the match, already dealt,
// or "seek" if it ended unpaired: expired, or dropped (the player sat down in too many matches since).
async function seekRated() {
  await attempt(async () => {
    await feedOpen(FEED_WAIT_MS); // a seek paired or dropped before the stream opened would go unsaid
    const seek = await api("POST", "/seeks", { rated: true });
    app.seekId = seek.id;
    say(_("Looking for an opponent of your rating…"));
  });
}

function onPaired(paired) {
  if (paired.seek_id === app.seekId) app.seekId = null;
  say(_("Opponent found."));
  openMatch(paired.match_id);
}

// Only this page's seek: the feed also carries the ends of older seeks, and of other devices' ones.
function onSeekEnded(notice) {
  if (!app.seekId || notice.seek_id !== app.seekId) return;
  app.seekId = null;
  if (notice.status === "dropped" && notice.error === "TOO_MANY_MATCHES") {
    say(_("Your seek was dropped: you sit in as many unfinished matches as a player may. Finish one, then play again."),
      "error");
  } else {
    say(_("No opponent of your rating was found in time: your seek has expired. Play again to seek once more."));
  }
}

// A rematch of the finished match: the first to ask offers it, the other's ask makes it.
async function askRematch() {
  if (!app.view) return;
  await attempt(async () => {
    const answer = await api("POST", `/matches/${encodeURIComponent(app.view.id)}/rematch`, {});
    if (answer.offer) say(_("Rematch offered: it starts when your opponent asks too."));
    else openMatch(answer.id);
  });
}

function onRematch(notice) {
  if (notice.previous) openMatch(notice.match_id); // made: both players go to the new match
  else if (notice.match_id === app.matchId) say(_("Your opponent offers a rematch."));
}

async function createMatch(options) {
  await attempt(async () => {
    const view = await api("POST", "/matches", options);
    if (view.invite) app.invites.set(view.id, view.invite);
    openMatch(view.id);
  });
}

// A friend's match is private: its link carries the invite in the fragment (#invite=…), which
// no request sends, so it reaches no server log; the page passes it on itself.
const invitation = () => new URLSearchParams(location.hash.slice(1)).get("invite") || "";

// The creator's link: the invite comes with the creator's view (asked again after a reload).
function shareLink(view) {
  const code = app.invites.get(view.id);
  if (code === undefined && view.you === "A") {
    app.invites.set(view.id, "");
    api("GET", `/matches/${encodeURIComponent(view.id)}`).then((own) => {
      app.invites.set(view.id, own.invite || "");
      if (app.view && app.view.id === view.id) render(app.view);
    }, () => app.invites.delete(view.id));
  }
  return `${location.origin}/?join=${encodeURIComponent(view.id)}${code ? `#invite=${encodeURIComponent(code)}` : ""}`;
}

// A link never joins by itself: the invitation says who waits, to what target and on what
// clock, and asks first. A match whose creator chose the decks or the starting scores is
// joined only once its terms, in the server's own words, are accepted.
async function showInvite(id, code = "") {
  const view = await api("GET", `/matches/${encodeURIComponent(id)}`, undefined, code ? { Invite: code } : {});
  const creator = view.players && view.players.A ? view.players.A.name : null;
  $("invite-text").textContent = creator
    ? _("{name} invites you to a match to {target}.", { name: isolate(creator), target: view.rules.target })
    : _("Someone invites you to a match to {target}.", { target: view.rules.target });
  $("invite-clock").textContent = _("Each turn has {seconds} s.", { seconds: view.rules.turn_seconds });
  $("invite").dataset.code = code;
  $("invite-terms").textContent = "";
  $("invite-terms").hidden = true;
  $("invite").dataset.match = id;
  $("invite").dataset.accept = "";
  $("invite-join").textContent = _("Join the match");
  $("invite-watch").hidden = Boolean(code); // a private match that waits shows nothing to watchers
  $("invite").hidden = false;
  $("lobby").hidden = true;
  $("invite-join").focus();
}

async function acceptInvite() {
  const invite = $("invite");
  const id = invite.dataset.match;
  const body = { ...(invite.dataset.accept ? { accept_custom: true } : {}),
    ...(invite.dataset.code ? { invite: invite.dataset.code } : {}) };
  try {
    await api("POST", `/matches/${encodeURIComponent(id)}/join`, body);
  } catch (error) {
    if (error.code === "CUSTOM_TERMS") {
      $("invite-terms").textContent = error.message;
      $("invite-terms").hidden = false;
      invite.dataset.accept = "1";
      $("invite-join").textContent = _("Accept these terms and join");
      $("invite-join").focus();
      return;
    }
    if (error.code === "MATCH_FULL") say(_("That match is full: you are watching it."));
    else if (error.code !== "ALREADY_SEATED") throw error;
  }
  invite.hidden = true;
  openMatch(id);
}

function declineInvite() {
  $("invite").hidden = true;
  openMatch($("invite").dataset.match); // watch it instead
}

const STREAM_RETRY_MS = 2000; // as the server advises (its `retry:` and Retry-After)

// A stream's URL: as the player, with a ticket of its own (single use, so one per connection);
// an EventSource cannot send the Authorization header, and the token never goes in a URL.
async function streamUrl(path) {
  if (!app.player) return path;
  return `${path}?ticket=${encodeURIComponent((await api("POST", "/stream-tickets")).ticket)}`;
}

async function openMatch(id) {
  if (app.source) app.source.close();
  app.source = null;
  Object.assign(app, { matchId: id, view: null, awaiting: 0, logged: 0, logAgain: false, defaulting: null,
    confirming: false, warned: 0 });
  app.elsewhere.delete(id);
  renderElsewhere();
  history.replaceState(null, "", `/?match=${encodeURIComponent(id)}`);
  $("log").replaceChildren();
  $("log").setAttribute("aria-live", "off"); // the backlog is not read out; new lines are
  const url = await streamUrl(`/matches/${encodeURIComponent(id)}/stream`).catch((error) => error);
  if (app.matchId !== id || app.source) return; // another match, or this one again, was opened meanwhile
  if (url instanceof Error) {
    $("live").textContent = _("Not connected.");
    if (url.status === 401) setPlayer(null); // a token this server does not know
    setTimeout(() => app.matchId === id && !app.source && openMatch(id), STREAM_RETRY_MS);
    return;
  }
  const source = new EventSource(url);
  source.addEventListener("view", (message) => onView(JSON.parse(message.data)));
  source.onopen = () => {
    $("live").textContent = _("● Live");
    forget("match");
  };
  source.onerror = () => onStreamError(source);
  app.source = source;
}

async function onStreamError(source) {
  const dropped = source.readyState !== EventSource.CLOSED; // the browser reconnects by itself
  if (dropped && !app.player) {
    $("live").textContent = _("Reconnecting…");
    return;
  }
  source.close(); // a player's: its ticket is spent, so the browser's own reconnection would be refused
  if (app.view && isOver(app.view)) return; // the stream ends with the match
  $("live").textContent = dropped ? _("Reconnecting…") : _("Not connected.");
  const limited = await limitOf(source, "match");
  if (app.source !== source) return; // another match was opened meanwhile
  await sleep(limited ? limited.retryAfter * 1000 : STREAM_RETRY_MS);
  if (app.source !== source) return;
  if (limited) {
    openMatch(app.matchId); // as the server asked: try the stream again
    return;
  }
  await attempt(async () => {
    try {
      await api("GET", `/matches/${encodeURIComponent(app.matchId)}`);
    } catch (error) {
      if (error.status === 401) setPlayer(null); // a token this server does not know
      throw error;
    }
    openMatch(app.matchId); // readable after all: try the stream again
  });
}

// ---- a stream the server refused -------------------------------------------------------

const STREAM_LIMITS = ["RATE_LIMITED", "STREAMS_BUSY"]; // 429: this address holds enough; 503: the server does
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const refusals = new Map(); // "match" or "feed" -> the sentence shown for its stream's refusal

// An EventSource refused (429, 503) says neither why nor for how long: the same URL is asked
// once more with a plain fetch, whose status and Retry-After are read (and the small error
// body for its sentence) before the request is let go. A limit is said as a sentence, as an
// action's limit is; the answer is the ApiError of a limit (retryAfter at least 1 s), else null.
async function limitOf(source, stream) {
  const asking = new AbortController();
  try {
    const url = await streamUrl(new URL(source.url).pathname); // a new ticket: the refused stream's is spent
    const response = await fetch(url, { cache: "no-store", signal: asking.signal,
      headers: { Accept: "text/event-stream", "Accept-Language": I18N.lang } }); // its sentence in the page's language
    if (response.ok) return null; // opened after all
    const error = await failure(response);
    if (!STREAM_LIMITS.includes(error.code)) return null; // refused for another reason
    error.retryAfter = Math.max(1, error.retryAfter || STREAM_RETRY_MS / 1000);
    say(error.message, "error");
    refusals.set(stream, error.message);
    return error;
  } catch {
    return null; // unreachable: the usual retry
  } finally {
    asking.abort(); // the body is never read: a stream that did open is let go at once
  }
}

// A refused stream that opens again takes its sentence away (unless something else was said since).
function forget(stream) {
  if (refusals.has(stream) && $("message").textContent === refusals.get(stream)) say("");
  refusals.delete(stream);
}

// ---- the player's other matches ------------------------------------------------------

async function watchFeed() {
  if (app.feed) app.feed.close();
  app.feed = null;
  app.elsewhere.clear();
  renderElsewhere();
  const player = app.player;
  if (!player) return;
  const url = await streamUrl(`/players/${encodeURIComponent(player.id)}/stream`).catch((error) => error);
  if (app.feed || app.player !== player) return; // watched meanwhile, or another player now
  if (url instanceof ApiError && url.status === 401) {
    loggedOutElsewhere(); // account.js: this device's session was ended (its stream ended with it)
    return;
  }
  if (url instanceof Error) {
    setTimeout(() => !app.feed && app.player === player && watchFeed(), STREAM_RETRY_MS);
    return;
  }
  const feed = new EventSource(url);
  feed.addEventListener("turn", (message) => onTurn(JSON.parse(message.data)));
  feed.addEventListener("match", (message) => onMatchStatus(JSON.parse(message.data)));
  feed.addEventListener("paired", (message) => onPaired(JSON.parse(message.data)));
  feed.addEventListener("seek", (message) => onSeekEnded(JSON.parse(message.data)));
  feed.addEventListener("rematch", (message) => onRematch(JSON.parse(message.data)));
  feed.onopen = () => {
    app.feedRetryMs = 0;
    forget("feed");
    app.feedWaiters.splice(0).forEach((resolve) => resolve());
  };
  feed.onerror = () => onFeedError(feed);
  app.feed = feed;
}

// Once the player's stream is open (the server has taken its position: whatever is told after
// comes to us), or after `ms` at most: a stream refused for long holds nothing up for ever.
const FEED_WAIT_MS = 5000;
function feedOpen(ms) {
  if (app.feed && app.feed.readyState === EventSource.OPEN) return Promise.resolve();
  return new Promise((resolve) => {
    app.feedWaiters.push(resolve);
    setTimeout(resolve, ms);
  });
}

async function onFeedError(feed) {
  feed.close(); // its ticket is spent: the browser's own reconnection would be refused; we ask a new one
  app.feedRetryMs = Math.min(Math.max(2 * app.feedRetryMs, STREAM_RETRY_MS), 60000); // refused: back off
  const limited = await limitOf(feed, "feed");
  if (app.feed !== feed) return;
  await sleep(limited ? limited.retryAfter * 1000 : app.feedRetryMs); // a limit: as long as the server asked
  if (app.feed === feed) watchFeed(); // still the same player: try again
}

function onTurn(turn) {
  if (turn.match_id === app.matchId) return; // the open match shows its own moves
  app.elsewhere.delete(turn.match_id); // the latest to ask comes last
  app.elsewhere.set(turn.match_id, turn.version);
  renderElsewhere();
}

function onMatchStatus(change) {
  if (change.status !== "playing" && app.elsewhere.delete(change.match_id)) renderElsewhere();
}

function renderElsewhere() {
  const box = $("elsewhere");
  const ids = [...app.elsewhere.keys()];
  box.hidden = ids.length === 0;
  if (!ids.length) {
    box.replaceChildren();
    return;
  }
  const id = ids[ids.length - 1];
  const link = el("a", { href: `/?match=${encodeURIComponent(id)}`, textContent: _("Your move in another match") });
  link.addEventListener("click", (event) => {
    event.preventDefault(); // no reload: the player stays registered and the table opens it at once
    openMatch(id);
  });
  const more = ngettext("(and {count} more)", "(and {count} more)", ids.length - 1);
  box.replaceChildren(link, ids.length > 1 ? ` ${more}` : "");
}

function onView(view) {
  if (app.view && view.version < app.view.version) return;
  app.view = view;
  if (isOver(view) && app.source) {
    app.source.close(); // nothing more will come
    $("live").textContent = "";
  }
  render(view);
  refreshLog();
}

async function act(action) {
  if (app.busy) return;
  app.busy = true;
  render(app.view);
  await attempt(async () => {
    const headers = { "If-Match": `"${app.view.version}"` }; // never act on a view that moved on
    try {
      app.awaiting = (await api("POST", `/matches/${encodeURIComponent(app.matchId)}/actions`, action, headers)).version;
    } catch (error) {
      if (error.code === "VERSION_CONFLICT") error.message = _("The match moved on before your move arrived: look again.");
      if (error.code === "RATE_LIMITED") pauseFor(error.retryAfter); // the sentence says why; we wait as told
      throw error;
    }
  });
  app.busy = false;
  render(app.view);
}

// A limit answered: the buttons stay off for as long as the server asked, then come back.
function pauseFor(seconds) {
  app.pausedUntil = Date.now() + Math.max(1, seconds) * 1000;
  setTimeout(() => { if (app.view) render(app.view); }, Math.max(1, seconds) * 1000 + 50);
}

// ---- drawing -------------------------------------------------------------------------

function el(tag, props = {}, ...children) {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}

// A card as text (rank and suit sign), kept left to right inside any sentence.
function cardText(card) {
  return `\u2066${card.slice(0, -1)}${SUITS[card.slice(-1)][0]}\u2069`;
}

function cardName(card) {
  const rank = card.slice(0, -1);
  const ranks = { J: _("jack"), Q: _("queen"), K: _("king"), A: _("ace") };
  const suits = { S: _("spades"), H: _("hearts"), D: _("diamonds"), C: _("clubs") };
  return _("{rank} of {suit}", { rank: ranks[rank] || rank, suit: suits[card.slice(-1)] });
}

function cardFace(card, tag = "span", props = {}) {
  const red = SUITS[card.slice(-1)][2];
  const face = el(tag, { className: `card ${red ? "red" : "black"}`, ...props },
    el("span", { className: "rank", textContent: card.slice(0, -1) }),
    el("span", { className: "suit", textContent: SUITS[card.slice(-1)][0] }));
  if (tag === "span") face.setAttribute("role", "img");
  face.setAttribute("aria-label", props.ariaLabel || cardName(card));
  return face;
}

const other = (seat) => (seat === "A" ? "B" : "A");
// A seat's player's name, isolated for use inside a sentence.
const who = (seat) => isolate((app.view.players[seat] || {}).name || _("(empty seat)"));
// A seated player's name by id, as events record them (names are the directory's, never an event's).
const named = (id) => who(["A", "B"].find((seat) => (app.view.players[seat] || {}).id === id));
// A seat as a label of its own: "You" for the player's own.
const label = (seat) => (seat === app.view.you ? _("You") : who(seat));
// The sentence for the player's own seat, or the one about another player.
const by = (seat, yours, theirs) => (seat === app.view.you ? yours : theirs);

function render(view) {
  if (!view) return;
  const me = view.you || "A";
  const focused = document.activeElement && document.activeElement.dataset.key;
  $("match").hidden = false;
  $("match").dataset.version = view.version;
  $("match").dataset.status = view.status;
  $("lobby").hidden = !app.player || !isOver(view);
  $("account").hidden = !app.player || !isOver(view); // account.js: the same, out of the way while played
  $("rematch").hidden = !(view.status === "finished" && view.you);
  $("share").hidden = !(view.status === "waiting" && view.you === "A");
  $("share-link").value = $("share").hidden ? "" : shareLink(view);
  $("scores").textContent = _("{me} {mine} – {theirs} {them} · first to {target}", {
    me: label(me), mine: view.scores[me], theirs: view.scores[other(me)], them: label(other(me)), target: view.rules.target,
  });
  $("status").textContent = statusLine(view);
  $("status").classList.toggle("result", isOver(view));
  renderClock();
  renderQuestion(view);
  renderSeats(view, me);
  renderTricks(view, me);
  renderActions(view);
  renderReplay(view); // replay.js: a finished match, afterwards
  const again = focused && document.querySelector(`[data-key="${CSS.escape(focused)}"]`);
  if (again) again.focus();
  else if (focused) (document.querySelector("#hand button:enabled, #actions button:enabled") || $("log")).focus();
}

function statusLine(view) {
  if (view.status === "waiting") return _("Waiting for an opponent to sit down…");
  if (isOver(view)) return endingLine(view);
  const r = view.round;
  const parts = [
    _("Round {number}", { number: r.number }),
    by(r.dealer, _("you deal"), _("{name} deals", { name: who(r.dealer) })),
    ngettext("worth {count} point", "worth {count} points", r.value),
    r.remainder_round ? _("remainder round: it decides the match") : null,
    whoseDecision(r),
  ];
  return parts.filter(Boolean).join(" · ");
}

// The seat the match waits for, said as the question and the clock say it: a question asked
// waits for its answer (from the seat that did not ask), otherwise the seat on turn plays.
function whoseDecision(round) {
  if (!round.pending) return by(round.turn, _("your turn to play"), _("{name} to play", { name: who(round.turn) }));
  const answerer = other(round.pending.by);
  return by(answerer, _("your turn to answer"), _("{name} to answer", { name: who(answerer) }));
}

// ---- the clock: whose decision the match waits for, and the seconds left --------------

function secondsLeft(clock) {
  const due = clock ? Date.parse(clock.deadline) : NaN;
  return Number.isFinite(due) ? Math.max(0, Math.ceil((due - Date.now()) / 1000)) : null;
}

function clockLine(mine, name, left) {
  if (left === null) return mine ? _("Your clock is running.") : _("{name}’s clock is running.", { name });
  if (left === 0) return mine ? _("Your clock: time is up.") : _("{name}’s clock: time is up.", { name });
  return mine ? ngettext("Your clock: {count} s left", "Your clock: {count} s left", left)
    : ngettext("{name}’s clock: {count} s left", "{name}’s clock: {count} s left", left, { name });
}

// Drawn with every view and once a second. The timer itself is silent (role="timer"); the
// alert region speaks once a move, when the player's own clock is nearly out.
function renderClock() {
  const view = app.view;
  const clock = view && !isOver(view) ? view.clock : null;
  const box = $("clock");
  box.hidden = !clock;
  if (!clock) return;
  const left = secondsLeft(clock);
  const mine = clock.seat === view.you;
  const low = mine && left !== null && left <= WARN_SECONDS;
  box.textContent = clockLine(mine, who(clock.seat), left);
  box.classList.toggle("mine", mine);
  box.classList.toggle("low", low);
  if (app.warned !== view.version && low) {
    app.warned = view.version;
    $("clock-alert").textContent = left
      ? ngettext("{count} second left to decide.", "{count} seconds left to decide.", left) : _("Your time is up.");
  } else if (app.warned !== view.version) {
    $("clock-alert").textContent = "";
  }
}

function renderQuestion(view) {
  const pending = view.round && view.round.pending;
  const box = $("question");
  box.hidden = !pending;
  if (!pending) return;
  const answerer = other(pending.by);
  const values = { name: who(pending.by), value: pending.value, current: view.round.value };
  const wins = view.rules.remainder_reject === "match";
  const texts = {
    raise: () => by(pending.by,
      _("You asked “2 more?”: the round would be worth {value}; refused, you score {current}.", values),
      _("{name} asked “2 more?”: the round would be worth {value}; refused, {name} scores {current}.", values)),
    remainder: () => (wins ? by(pending.by,
      _("You declared “my remainder”: accepted, this round decides the match; refused, you win the match.", values),
      _("{name} declared “my remainder”: accepted, this round decides the match; refused, {name} wins the match.", values))
      : by(pending.by,
        _("You declared “my remainder”: accepted, this round decides the match; refused, you score {current}.", values),
        _("{name} declared “my remainder”: accepted, this round decides the match; refused, {name} scores {current}.", values))),
    redeal: () => by(pending.by, _("You proposed a redeal: accepted, both hands are dealt anew.", values),
      _("{name} proposed a redeal: accepted, both hands are dealt anew.", values)),
  };
  const answer = by(answerer, _("Your answer?"), _("{name} is to answer.", { name: who(answerer) }));
  box.textContent = `${texts[pending.type]()} ${answer}`;
}

// A bot match's level, in words (the view and the lobby line carry `bot_level` for those only).
const BOT_LEVELS = { easy: () => _("easy"), medium: () => _("medium"), hard: () => _("hard"), expert: () => _("expert") };

function botLevelLine(level) {
  const name = BOT_LEVELS[level];
  return name ? _("Bot level: {level}", { level: name() }) : "";
}

function renderSeats(view, me) {
  const round = view.round;
  $("opponent-name").closest(".seat").hidden = !round;
  $("opponent-name").textContent = label(other(me));
  $("opponent-level").textContent = botLevelLine(view.bot_level);
  $("opponent-level").hidden = !view.bot_level;
  const backs = round ? round.cards_left[other(me)] : 0;
  const holder = $("opponent-cards");
  holder.replaceChildren(...Array.from({ length: backs }, () => el("span", { className: "card back" })));
  holder.setAttribute("aria-label", ngettext("{name}: {count} card in hand", "{name}: {count} cards in hand", backs,
    { name: label(other(me)) }));
  holder.setAttribute("role", "img");
  $("my-seat").hidden = !view.you || !round;
  const playable = new Set(view.legal_actions.filter((a) => a.type === "play").map((a) => a.card));
  const hand = (round && round.hand) || [];
  $("hand").replaceChildren(...hand.map((card, i) => cardFace(card, "button", {
    type: "button",
    disabled: !playable.has(card) || locked(),
    ariaLabel: onTouch() ? _("Play {card}", { card: cardName(card) })
      : _("Play {card} (key {key})", { card: cardName(card), key: i + 1 }),
    onclick: () => act({ type: "play", card }),
  })));
  $("hand").querySelectorAll("button").forEach((b, i) => {
    b.dataset.key = `play:${hand[i]}`;
    b.dataset.action = "play";
  });
}

function trickCaption(trick, number) {
  if (trick.spoiled) return _("Trick {number}: spoiled", { number });
  if (!trick.winner) return _("Trick {number}: in play", { number });
  return by(trick.winner, _("Trick {number}: you win it", { number }),
    _("Trick {number}: {name} wins it", { number, name: who(trick.winner) }));
}

// "You" has a sentence of its own: its verb agrees with the polite "you" (Bengali আপনি … খেলেছেন).
const ledBy = (seat) => by(seat, _("You (led)"), _("{name} (led)", { name: who(seat) }));

function renderTricks(view, me) {
  const current = view.round ? view.round.tricks : [];
  // Before the first card of a round (and at the end) the last round stays in sight: how it ended.
  const previous = !current.length && view.last_round;
  const tricks = previous ? view.last_round.tricks : current;
  $("tricks-title").textContent = previous ? lastRoundLine(view.last_round) : "";
  $("last-round").textContent = previous ? "" : lastRoundLine(view.last_round);
  $("tricks").replaceChildren(...tricks.map((trick, i) => {
    const slot = (seat) => el("div", { className: "slot" },
      el("span", { className: "who", textContent: trick.leader === seat ? ledBy(seat) : label(seat) }),
      trick.cards[seat] ? cardFace(trick.cards[seat]) : el("span", { className: "card empty", textContent: "…" }));
    return el("figure", { className: "trick" },
      el("figcaption", { textContent: trickCaption(trick, i + 1) }), slot(other(me)), slot(me));
  }));
  if (!current.length && view.round) {
    const values = { name: who(view.round.turn), number: view.round.number };
    $("tricks").append(el("p", { className: "lead", textContent: by(view.round.turn,
      _("You lead the first trick of round {number}.", values), _("{name} leads the first trick of round {number}.", values)) }));
  }
}

const ACTION_LABELS = {
  raise: _("2 more?"), remainder: _("My remainder!"), accept: _("Accept"), reject: _("Refuse"),
  fold: _("Fold"), propose_redeal: _("Propose a redeal"), resign: _("Resign"), cancel: _("Cancel the match"),
};
const DANGER = new Set(["fold", "resign", "cancel"]);

function renderActions(view) {
  const actions = view.legal_actions.filter((a) => a.type !== "play" && ACTION_LABELS[a.type])
    .sort((a, b) => ACTION_ORDER.indexOf(a.type) - ACTION_ORDER.indexOf(b.type));
  const resign = actions.find((a) => a.type === "resign");
  const warning = renderWarning(view);
  app.confirming &&= Boolean(resign); // a match that ended meanwhile asks nothing
  if (app.confirming) {
    $("actions").replaceChildren(...resignQuestion(resign));
    return;
  }
  $("actions").replaceChildren(...actions.map((action) => {
    const text = action.type === "remainder" && view.round.pending ? _("My remainder! (accept)") : ACTION_LABELS[action.type];
    const button = el("button", {
      type: "button", textContent: text, disabled: locked(), className: DANGER.has(action.type) ? "danger" : "",
      onclick: () => (action.type === "resign" ? askToResign(true) : act(action)),
    });
    button.dataset.key = button.dataset.action = action.type;
    if (warning && ["reject", "fold"].includes(action.type)) button.setAttribute("aria-describedby", "warning");
    return button;
  }));
}

// ---- choices that end the match: said before they are made ---------------------------

// Whether the opponent would win the match at once if we refused (or folded) now: refusing
// "my remainder" (when its rule gives the declarer the match), or any answer or fold that
// would give the opponent the round's points when they reach the target.
function matchLostBy(view) {
  const round = view.round;
  if (!round || !view.you) return null;
  const them = other(view.you);
  const pending = round.pending;
  const reaches = view.scores[them] + round.value >= view.rules.target;
  if (pending && pending.by === them) {
    const refusalLoses = pending.type === "remainder" ? view.rules.remainder_reject === "match" || reaches
      : pending.type === "raise" && reaches;
    if (refusalLoses) return "refuse";
    return pending.type === "redeal" && reaches ? "fold" : null;
  }
  return round.remainder_round || reaches ? "fold" : null;
}

// The sentence under the actions (and described by the buttons it concerns); "" when none.
function renderWarning(view) {
  const loses = view.legal_actions.some((a) => a.type === "fold") ? matchLostBy(view) : null;
  const name = loses ? who(other(view.you)) : "";
  const text = { refuse: _("If you refuse or fold, {name} wins the match.", { name }),
    fold: _("If you fold, {name} wins the match.", { name }) }[loses] || "";
  $("warning").textContent = text;
  $("warning").hidden = !text;
  return text;
}

// ---- touch screens: no key hints, and a decision bar that stays in sight --------------

const onTouch = () => navigator.maxTouchPoints > 0 || matchMedia("(hover: none)").matches;

// The fixed decision bar of a phone covers the page's end: the page makes room for it.
function watchDecisionBar() {
  const bar = $("decision");
  const room = () => {
    const fixed = getComputedStyle(bar).position === "fixed" && !$("match").hidden;
    document.body.style.paddingBottom = fixed ? `${bar.offsetHeight + 16}px` : "";
  };
  new ResizeObserver(room).observe(bar);
  addEventListener("resize", room);
}

// Resigning loses the match at once: the button asks first, in the page, and the answer is
// a button too (Escape says no). Focus goes to "No" so that a stray Enter changes nothing.
function resignQuestion(resign) {
  const question = el("p", { id: "resign-question", className: "confirm",
    textContent: _("Resign this match? Your opponent wins it at once.") });
  const yes = el("button", { type: "button", className: "danger", textContent: _("Yes, resign"), disabled: locked(),
    onclick: () => { app.confirming = false; act(resign); } });
  const no = el("button", { type: "button", className: "quiet", textContent: _("No, play on"), onclick: () => askToResign(false) });
  for (const [button, key] of [[yes, "resign-yes"], [no, "resign-no"]]) {
    button.dataset.key = key;
    button.setAttribute("aria-describedby", "resign-question");
  }
  return [question, yes, no];
}

function askToResign(asking) {
  app.confirming = asking;
  render(app.view);
  const focus = asking ? '[data-key="resign-no"]' : '[data-key="resign"]';
  ($("actions").querySelector(focus) || $("log")).focus();
}

function locked() {
  return app.busy || (app.view !== null && app.view.version < app.awaiting) || Date.now() < (app.pausedUntil || 0);
}

// ---- the round log (the match's events, redacted for us) ------------------------------

async function refreshLog() {
  if (app.logging) {
    app.logAgain = true; // one more fetch once this one is done
    return;
  }
  const matchId = app.matchId;
  app.logging = api("GET", `/matches/${encodeURIComponent(matchId)}/events?after=${app.logged}&limit=${LOG_PAGE}`)
    .then((body) => {
      if (matchId !== app.matchId) return;
      const log = $("log");
      app.logAgain ||= body.events.length === LOG_PAGE; // a long match: fetch the next page too
      for (const event of body.events) {
        const byDefault = app.defaulting && event.data.seat === app.defaulting && event.type !== "turn_timed_out";
        const note = _("(The time ran out: the default decision.)");
        const text = byDefault ? `${describe(event)} ${note}` : describe(event);
        log.append(el("li", { className: event.type === "round_dealt" ? "round" : "", textContent: text }));
        app.defaulting = event.type === "turn_timed_out" ? event.data.seat : null;
        app.logged = event.version;
      }
      log.scrollTop = log.scrollHeight;
      log.setAttribute("aria-live", "polite");
    })
    .catch(() => {}) // the next view tries again
    .finally(() => {
      app.logging = null;
      if (app.logAgain) {
        app.logAgain = false;
        refreshLog();
      }
    });
}

// ---- wiring --------------------------------------------------------------------------

function onKey(event) {
  if (event.key === "Escape" && app.confirming) {
    askToResign(false);
    return;
  }
  const typing = event.target instanceof HTMLInputElement;
  if (typing || event.altKey || event.ctrlKey || event.metaKey || !/^[1-3]$/.test(event.key)) return;
  const button = $("hand").querySelectorAll("button")[Number(event.key) - 1];
  if (button && !button.disabled) button.click();
}

function start() {
  document.documentElement.classList.toggle("touch", onTouch());
  watchDecisionBar();
  $("register-form").addEventListener("submit", register);
  $("sign-out").addEventListener("click", () => attempt(logOut)); // account.js
  $("login-form").addEventListener("submit", logIn);
  $("password-form").addEventListener("submit", setPassword);
  $("play-bot").addEventListener("click", () => createMatch({ opponent: "bot", ...chosenLevel(), ...chosenRules() }));
  $("play-friend").addEventListener("click", () => createMatch({ private: true, ...chosenRules() }));
  $("play-rated").addEventListener("click", seekRated);
  $("rematch").addEventListener("click", askRematch);
  $("copy-link").addEventListener("click", async () => {
    await navigator.clipboard.writeText($("share-link").value).then(() => say(_("Link copied.")), () => $("share-link").select());
  });
  document.addEventListener("keydown", onKey);
  watchLanguagePicker();
  setInterval(renderClock, 1000);
  setPlayer(app.player);
  const params = new URLSearchParams(location.search);
  $("invite-join").addEventListener("click", () => attempt(acceptInvite));
  $("invite-watch").addEventListener("click", declineInvite);
  if (params.get("join") && app.player) attempt(() => showInvite(params.get("join"), invitation()));
  else if (params.get("join")) say(_("Choose a name to join your friend's match."));
  else if (params.get("match")) openMatch(params.get("match"));
}

// Once every deferred script has run: a view answered sooner would find replay.js or lobby.js
// not yet there, and a finished match would show no replay.
document.addEventListener("DOMContentLoaded", start);
