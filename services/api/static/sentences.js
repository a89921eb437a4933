// The table's longer sentences: how a round and a match ended, and the round log's lines
// (the match's events). Each is one whole sentence in the catalogue, for the player's own
// seat ("You …") and for another player ("{name} …"); nothing is glued from pieces.
"use strict";

// How the match ended (the view's ended_by): who won and why, or why it was cancelled.
function endingLine(view) {
  if (view.ended_by === "cancelled") return _("The match was cancelled by its creator.");
  if (view.ended_by === "expired") return _("The match expired: nobody joined in time.");
  if (!view.winner) return _("The match is over.");
  if (view.ended_by === "aborted") return _("The match was aborted before round 1 was over: it does not count.");
  const loser = other(view.winner);
  const values = { winner: who(view.winner), loser: who(loser), a: view.scores.A, b: view.scores.B };
  const mine = view.winner === view.you;
  const lost = loser === view.you;
  if (view.ended_by === "resigned") {
    if (mine) return _("You win the match {a}–{b}: {loser} resigned.", values);
    return lost ? _("{winner} wins the match {a}–{b}: you resigned.", values)
      : _("{winner} wins the match {a}–{b}: {loser} resigned.", values);
  }
  if (view.ended_by === "abandoned") {
    if (mine) return _("You win the match {a}–{b}: {loser} ran out of time twice in a row.", values);
    return lost ? _("{winner} wins the match {a}–{b}: you ran out of time twice in a row.", values)
      : _("{winner} wins the match {a}–{b}: {loser} ran out of time twice in a row.", values);
  }
  if (view.ended_by === "round_cap") return roundCapLine(mine, values);
  return mine ? _("You win the match {a}–{b} on score!", values) : _("{winner} wins the match {a}–{b} on score!", values);
}

// R33: the match reached its round limit; the higher score (or the last non-dealer) won it.
function roundCapLine(mine, values) {
  return mine ? _("You win the match {a}–{b}: the round limit was reached.", values)
    : _("{winner} wins the match {a}–{b}: the round limit was reached.", values);
}

function lastRoundLine(last) {
  if (!last) return "";
  if (!last.winner) return _("Round {number} ended void: three spoiled tricks.", { number: last.number });
  const why = {
    tricks: _("on tricks"), raise_rejected: _("a raise was refused"),
    remainder_rejected: _("the remainder was refused"), fold: _("a fold"),
  };
  return _("Round {number} ended: {name} +{points} ({why}).",
    { number: last.number, name: label(last.winner), points: last.points, why: why[last.reason] || last.reason });
}

function describe(event) {
  const d = event.data;
  const s = d.seat;
  const v = { ...d, name: s ? who(s) : "", card: d.card ? cardText(d.card) : "" };
  const texts = {
    match_created: () => _("{name} created the match.", { name: named(d.creator_id) }),
    player_joined: () => _("{name} sat down.", { name: who(s) }),
    round_dealt: () => by(d.dealer, _("Round {round}: you deal.", d),
      _("Round {round}: {name} deals.", { ...d, name: who(d.dealer) })),
    redeal_proposed: () => by(s, _("You propose a redeal."), _("{name} proposes a redeal.", v)),
    redeal_accepted: () => by(s, _("You accept the redeal: new hands."), _("{name} accepts the redeal: new hands.", v)),
    redeal_rejected: () => by(s, _("You refuse the redeal."), _("{name} refuses the redeal.", v)),
    card_played: () => by(s, _("You play {card}.", v), _("{name} plays {card}.", v)),
    trick_won: () => by(s, _("You win trick {trick}.", v), _("{name} wins trick {trick}.", v)),
    trick_spoiled: () => _("Trick {trick} is spoiled (equal ranks).", v),
    raise_proposed: () => by(s, _("You: “2 more?” (for {value})", v), _("{name}: “2 more?” (for {value})", v)),
    raise_accepted: () => by(s, _("You accept: the round is worth {value}.", v),
      _("{name} accepts: the round is worth {value}.", v)),
    raise_rejected: () => by(s, _("You refuse the raise."), _("{name} refuses the raise.", v)),
    remainder_declared: () => by(s, _("You: “my remainder!”"), _("{name}: “my remainder!”", v)),
    remainder_accepted: () => by(s, _("You accept the remainder: this round decides the match."),
      _("{name} accepts the remainder: this round decides the match.", v)),
    remainder_rejected: () => by(s, _("You refuse the remainder."), _("{name} refuses the remainder.", v)),
    folded: () => by(s, _("You fold."), _("{name} folds.", v)),
    round_won: () => by(s, _("You win round {round}: +{points}. Score {a}–{b}.", { ...v, a: d.scores.A, b: d.scores.B }),
      _("{name} wins round {round}: +{points}. Score {a}–{b}.", { ...v, a: d.scores.A, b: d.scores.B })),
    round_void: () => _("Round {round} is void.", v),
    match_won: () => wonLine(d),
    turn_timed_out: () => by(s, _("Your time ran out."), _("{name}’s time ran out.", v)),
    match_cancelled: () => (d.reason === "expired" ? _("The match expired: nobody joined in time.")
      : _("The creator cancelled the match.")),
  };
  return (texts[event.type] || (() => event.type))();
}

// The log's line for match_won: the loser's part first when someone resigned or ran out of time.
function wonLine(d) {
  const loser = other(d.seat);
  const v = { winner: who(d.seat), loser: who(loser), a: d.scores.A, b: d.scores.B };
  const mine = d.seat === app.view.you;
  const lost = loser === app.view.you;
  if (d.reason === "resigned") {
    if (mine) return _("{loser} resigns: you win the match {a}–{b}.", v);
    return lost ? _("You resign: {winner} wins the match {a}–{b}.", v) : _("{loser} resigns: {winner} wins the match {a}–{b}.", v);
  }
  if (d.reason === "abandoned") {
    if (mine) return _("{loser} runs out of time twice in a row: you win the match {a}–{b}.", v);
    return lost ? _("You run out of time twice in a row: {winner} wins the match {a}–{b}.", v)
      : _("{loser} runs out of time twice in a row: {winner} wins the match {a}–{b}.", v);
  }
  if (d.reason === "round_cap") return roundCapLine(mine, v);
  return mine ? _("You win the match {a}–{b}!", v) : _("{winner} wins the match {a}–{b}!", v);
}
