// The leaderboard and a player's rating chart, from the public API (GET /leaderboard,
// /players/{id}, /players/{id}/ratings). Text from the server goes through textContent; the
// chart is SVG built element by element (no innerHTML, nothing the CSP would refuse).
"use strict";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const W = 640, H = 260, PAD = 44;

async function getJson(path) {
  const response = await fetch(path, { headers: { Accept: "application/json" } });
  if (!response.ok) throw new Error(_("The server answered {status}.", { status: response.status }));
  return response.json();
}

function shown(value, provisional) {
  return `${Math.round(value)}${provisional ? "?" : ""}`;
}

async function showBoard() {
  const { players } = await getJson("/leaderboard?limit=100");
  $("board").hidden = false;
  $("board-empty").hidden = players.length > 0;
  $("board-rows").replaceChildren(...players.map((row) => {
    const link = Object.assign(document.createElement("a"), { href: `/ratings/${encodeURIComponent(row.id)}${location.search}`,
                                                             textContent: row.name, dir: "auto" });
    const figures = Object.assign(document.createElement("span"), {
      className: "figures",
      textContent: _("{rating} (±{rd}, {games} games)", { rating: Math.round(row.rating), rd: Math.round(row.rd),
                                                         games: row.games }),
    });
    const item = document.createElement("li");
    item.append(link, " ", figures);
    return item;
  }));
}

function svg(tag, attributes) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  return node;
}

// The rating after each rated match as a line, its RD as a band around it.
function drawChart(points) {
  const chart = $("chart");
  chart.replaceChildren();
  if (!points.length) return;
  const low = Math.min(...points.map((p) => p.value - p.rd)), high = Math.max(...points.map((p) => p.value + p.rd));
  const x = (i) => PAD + (points.length === 1 ? (W - 2 * PAD) / 2 : (i * (W - 2 * PAD)) / (points.length - 1));
  const y = (v) => H - PAD - ((v - low) * (H - 2 * PAD)) / Math.max(high - low, 1);
  const upper = points.map((p, i) => `${x(i)},${y(p.value + p.rd)}`);
  const lower = points.map((p, i) => `${x(i)},${y(p.value - p.rd)}`).reverse();
  chart.append(svg("polygon", { points: [...upper, ...lower].join(" "), class: "band" }));
  chart.append(svg("polyline", { points: points.map((p, i) => `${x(i)},${y(p.value)}`).join(" "), class: "line" }));
  for (const v of [low, (low + high) / 2, high]) {
    const label = svg("text", { x: PAD - 6, y: y(v) + 4, class: "axis", "text-anchor": "end" });
    label.textContent = String(Math.round(v));
    chart.append(label);
  }
  points.forEach((p, i) => chart.append(svg("circle", { cx: x(i), cy: y(p.value), r: 3, class: p.won ? "won" : "lost" })));
}

async function showPlayer(id) {
  const [player, history] = await Promise.all([getJson(`/players/${encodeURIComponent(id)}`),
                                              getJson(`/players/${encodeURIComponent(id)}/ratings?limit=500`)]);
  const rating = player.rating;
  $("player").hidden = false;
  $("player-name").textContent = player.name;
  $("player-rating").textContent = _("Rating {rating} (RD {rd})", { rating: shown(rating.value, rating.provisional),
                                                                     rd: Math.round(rating.rd) });
  $("player-record").textContent = _("Rated record: {wins} won, {losses} lost", rating);
  const points = history.ratings.map((entry) => ({ value: entry.after, rd: entry.rd, won: entry.won }));
  drawChart(points);
  const caption = points.length
    ? _("Rating after each of {count} rated matches, from {first} to {last}; the band is the RD.",
        { count: points.length, first: Math.round(points[0].value), last: Math.round(points[points.length - 1].value) })
    : _("No rated match yet.");
  $("chart-caption").textContent = caption;
  $("chart").setAttribute("aria-label", caption);
}

document.addEventListener("DOMContentLoaded", () => {
  watchLanguagePicker();
  const id = $("main").dataset.player;
  (id ? showPlayer(id) : showBoard()).catch((error) => { $("message").textContent = error.message; });
});
