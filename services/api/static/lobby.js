// The lobby: open matches to join, the player's matches in play to resume and their finished
// ones to replay; and the new match's terms (time per move, points to win, the variants of
// RULES.md §10), sent as `rules` with POST /matches, and the bot's level for a match against it.
// Loaded after table.js, whose globals (app, api, attempt, el, isolate, showInvite, openMatch,
// botLevelLine) it calls. Every text from the server goes through textContent.
"use strict";

const LOBBY_PAGE = 20;

// Shown whenever the lobby is: asked again each time the player changes or a match ends.
function renderLobby() {
  if (!app.player) return;
  const asked = app.player.token;
  Promise.all([
    api("GET", `/matches?status=waiting&limit=${LOBBY_PAGE}`),
    api("GET", `/players/me/matches?status=playing&limit=${LOBBY_PAGE}`),
    api("GET", `/players/me/matches?status=finished&limit=${LOBBY_PAGE}`),
  ]).then(([open, playing, finished]) => {
    if (!app.player || app.player.token !== asked) return; // another player since
    const others = open.matches.filter((match) => !seatedIn(match));
    fillList("open-matches", others, _("Join"), (match) => attempt(() => showInvite(match.id)));
    fillList("playing-matches", playing.matches, _("Resume"), (match) => openMatch(match.id));
    fillList("finished-matches", finished.matches, _("Replay"), (match) => openMatch(match.id));
  }, () => {}); // the account panel says what a refused token means
}

const seatedIn = (match) => Object.values(match.players || {}).some((seat) => seat && seat.id === app.player.id);

// A match's line: its players and score (names and numbers: no words), and what to do with it.
function fillList(id, matches, verb, onChoose) {
  const lines = matches.map((match) => {
    const seats = Object.values(match.players || {}).filter(Boolean).map((seat) => isolate(seat.name));
    const line = el("li", { textContent: `${seats.join(" – ")}: ${match.scores.A}–${match.scores.B} ` });
    line.dataset.match = match.id;
    const terms = [termsOf(match.rules), botLevelLine(match.bot_level)].filter(Boolean).join(" · ");
    if (terms) line.append(el("span", { className: "hint", textContent: `${terms} ` }));
    const button = el("button", { type: "button", textContent: verb, onclick: () => onChoose(match) });
    button.dataset.match = match.id;
    line.append(button);
    return line;
  });
  $(id).replaceChildren(...(lines.length ? lines : [el("li", { className: "hint", textContent: _("None.") })]));
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
