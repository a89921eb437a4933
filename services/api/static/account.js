// The player's account at the table: logging in and out, a password, the devices logged in
// (each revocable), and the matches in play (to play on from another device).
// Loaded before table.js, whose globals (app, api, attempt, setPlayer, openMatch, say) it
// calls only once the page has started. Every text from the server goes through textContent.
"use strict";

const MY_MATCHES_PAGE = 20;

async function logIn(event) {
  event.preventDefault();
  await attempt(async () => {
    const body = await api("POST", "/sessions", { name: $("login-name").value.trim(), password: $("login-password").value });
    $("login-password").value = "";
    setPlayer({ ...body.player, token: body.token, password: true });
    await signedIn();
  });
}

// Logging out ends this device's session on the server, so the token is no key anywhere.
// A player without a password would be gone for good: the page asks first.
async function logOut() {
  if (!app.player) return;
  if (!app.player.password
      && !window.confirm(_("This player has no password: once you log out, nobody can play as {name} again. Log out anyway?",
        { name: isolate(app.player.name) }))) return;
  try {
    const own = (await api("GET", "/players/me/sessions")).sessions.find((session) => session.current);
    if (own) await api("DELETE", `/players/me/sessions/${encodeURIComponent(own.id)}`);
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 401)) throw error; // revoked already: out all the same
  }
  setPlayer(null);
  if (app.matchId) openMatch(app.matchId); // go on watching, as a spectator
  $("login-name").focus();
}

async function setPassword(event) {
  event.preventDefault();
  await attempt(async () => {
    const body = { password: $("set-password").value };
    if (app.player.password) body.current = $("current-password").value;
    await api("PUT", "/players/me/password", body);
    $("set-password").value = "";
    $("current-password").value = "";
    setPlayer({ ...app.player, password: true });
    say(_("Password saved: you can log in on other devices now."));
  });
}

// What the account panel shows: asked again whenever the player changes.
function renderAccount() {
  // Like the lobby, out of the way while a match is played: a phone's screen is the table's.
  $("account").hidden = !app.player || (app.view !== null && !isOver(app.view));
  if (!app.player) return;
  const asked = app.player.token;
  Promise.all([api("GET", "/players/me/sessions"), api("GET", `/players/me/matches?status=playing&limit=${MY_MATCHES_PAGE}`)])
    .then(([sessions, matches]) => {
      if (!app.player || app.player.token !== asked) return; // another player since
      if (app.player.password !== sessions.password) setPlayer({ ...app.player, password: sessions.password });
      renderPassword(sessions.password);
      renderDevices(sessions.sessions);
      renderMyMatches(matches.matches);
    }, (error) => {
      if (error instanceof ApiError && error.status === 401 && app.player && app.player.token === asked) {
        loggedOutElsewhere();
      }
    });
}

// This device's token was refused: its session was ended from another device (or the token rotated).
function loggedOutElsewhere() {
  setPlayer(null);
  say(_("This device was logged out: log in again."), "error");
  if (app.matchId) openMatch(app.matchId); // go on watching, as a spectator
}

function renderPassword(isSet) {
  $("password-state").textContent = isSet
    ? _("You have a password: change it here.")
    : _("No password yet: set one to log in on other devices.");
  $("current-password").hidden = !isSet;
  $("current-password-label").hidden = !isSet;
  $("current-password").required = isSet;
}

const when = (iso) => (iso ? new Date(iso).toLocaleString(I18N.lang) : _("not yet"));

function renderDevices(sessions) {
  $("devices").replaceChildren(...sessions.map((session) => {
    const text = _("Since {since}, last seen {seen}", { since: when(session.created_at), seen: when(session.last_seen_at) });
    const line = el("li", { className: "device", textContent: text });
    line.dataset.session = session.id;
    if (session.current) {
      line.append(" ", el("strong", { textContent: _("(this device)") }));
      return line;
    }
    const revoke = el("button", { type: "button", className: "quiet", textContent: _("Log that device out") });
    revoke.addEventListener("click", () => attempt(async () => {
      await api("DELETE", `/players/me/sessions/${encodeURIComponent(session.id)}`);
      say(_("That device is logged out."));
      renderAccount();
    }));
    line.append(" ", revoke);
    return line;
  }));
}

function renderMyMatches(matches) {
  const lines = matches.map((match) => {
    const seats = Object.values(match.players || {}).filter(Boolean).map((seat) => isolate(seat.name));
    const text = `${seats.join(" – ")}: ${match.scores.A}–${match.scores.B}`; // names and numbers: no words
    const line = el("li", { textContent: text });
    const resume = el("button", { type: "button", textContent: _("Play on") });
    resume.dataset.match = match.id;
    resume.addEventListener("click", () => openMatch(match.id));
    line.append(" ", resume);
    return line;
  });
  $("my-matches").replaceChildren(...(lines.length ? lines : [el("li", { className: "hint", textContent: _("None.") })]));
}
