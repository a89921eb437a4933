// The lobby: open matches to join, the player's matches in play to resume and their finished
// ones to replay; and the new match's terms (time per move, points to win, the variants of
// RULES.md §10), sent as `rules` with POST /matches, and the bot's level for a match against it.
// Loaded after table.js, whose globals (app, api, attempt, el, isolate, showInvite, openMatch,
// botLevelLine) it calls. Every text from the server goes through textContent.
"use strict";

const LOBBY_PAGE = 20;

// The three lists: where each reads its pages (`after`: the last match of the page before),
// which of them it shows, and what choosing a match does.
const LOBBY_LISTS = {
  "open-matches": { path: "/matches?status=waiting", verb: () => _("Join"),
    shows: (match) => !seatedIn(match), choose: (match) => attempt(() => showInvite(match.id)) },
  "playing-matches": { path: "/players/me/matches?status=playing", verb: () => _("Resume"),
    shows: () => true, choose: (match) => openMatch(match.id) },
  "finished-matches": { path: "/players/me/matches?status=finished", verb: () => _("Replay"),
    shows: () => true, choose: (match) => openMatch(match.id) },
};

// Shown whenever the lobby is: asked again each time the player changes or a match ends.
function renderLobby() {
  if (!app.player) return;
  for (const id of Object.keys(LOBBY_LISTS)) showPage(id, null);
}

// One page of a list, after the match `after` (null: the first page, in place of what was shown);
// a full page ends with "Show more". The answer: the first line added, if any.
async function showPage(id, after) {
  const list = LOBBY_LISTS[id];
  const asked = app.player.token;
  const cursor = after ? `&after=${encodeURIComponent(after)}` : "";
  let page;
  try {
    page = (await api("GET", `${list.path}&limit=${LOBBY_PAGE}${cursor}`)).matches;
  } catch {
    return; // the account panel says what a refused token means
  }
  if (!app.player || app.player.token !== asked) return; // another player since
  const lines = page.filter(list.shows).map((match) => matchLine(match, list));
  if (!after && !lines.length && page.length < LOBBY_PAGE) lines.push(el("li", { className: "hint", textContent: _("None.") }));
  if (page.length === LOBBY_PAGE) lines.push(moreLine(id, page[page.length - 1].id));
  if (!after) $(id).replaceChildren(...lines);
  else $(id).querySelector(".more").replaceWith(...lines);
  return lines[0];
}

const seatedIn = (match) => Object.values(match.players || {}).some((seat) => seat && seat.id === app.player.id);

// A match's line: its players and score (names and numbers: no words), and what to do with it.
function matchLine(match, list) {
  const seats = Object.values(match.players || {}).filter(Boolean).map((seat) => isolate(seat.name));
  const line = el("li", { textContent: `${seats.join(" – ")}: ${match.scores.A}–${match.scores.B} ` });
  line.dataset.match = match.id;
  const terms = [termsOf(match.rules), botLevelLine(match.bot_level)].filter(Boolean).join(" · ");
  if (terms) line.append(el("span", { className: "hint", textContent: `${terms} ` }));
  const button = el("button", { type: "button", textContent: list.verb(), onclick: () => list.choose(match) });
  button.dataset.match = match.id;
  line.append(button);
  return line;
}

// The list's last line while a page came back full: the next page, from the API's cursor.
function moreLine(id, after) {
  const button = el("button", { type: "button", className: "quiet", textContent: _("Show more") });
  button.addEventListener("click", async () => {
    button.disabled = true;
    const first = await showPage(id, after);
    if (first) first.querySelector("button").focus(); // the keyboard goes on from where the list grew
    else button.disabled = false; // not read: it can be asked again
  });
  return el("li", { className: "more" }, button);
}

function termsOf(rules) {
  if (!rules) return "";
  return _("to {target}, {seconds} s a move", { target: rules.target, seconds: rules.turn_seconds });
}

// The level chosen in the form, sent with `"opponent": "bot"` only.
const chosenLevel = () => ({ bot_level: $("bot-level").value });

// The terms chosen in the form, as POST /matches takes them; only what differs from the defaults.
function chosenRules() {
  const rules = {};
  for (const field of document.querySelectorAll("#match-terms select:not([data-bot])")) {
    if (field.value === field.dataset.default) continue;
    rules[field.name] = /^\d+$/.test(field.value) ? Number(field.value) : field.value;
  }
  return Object.keys(rules).length ? { rules } : {};
}
