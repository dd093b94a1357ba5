// @ts-check
// The game view's panels around the board: the players' bars, the status line and the
// result banner, the invite, the janggi setup choice, standing offers, the buttons, and the
// engine's analysis. Each function draws from the view's current state.

import { isRatedGame, ratingInGame } from "./account.js";
import { serverOptions } from "./api.js";
import { canBerserk } from "./berserk.js";
import { $, clear, make, setText, show } from "./dom.js";
import { language, notationFor, sideName, t } from "./i18n.js";
import { gameEntry, themeOf } from "./settings.js";
import { arrangementWords, backRankPicture } from "./setup-picture.js";

/** @typedef {import("./protocol.js").Side} Side */
/** @typedef {import("./protocol.js").Result} Result */
/** @typedef {import("./protocol.js").GameState} GameState */
/** @typedef {import("./game-view.js").LiveGameView} LiveGameView */

/** @param {Side | null | undefined} side @returns {Side} */
export function otherSide(side) {
  return side === "first" ? "second" : "first";
}

/** @param {string} hostname */
function isLoopback(hostname) {
  return hostname === "localhost" || hostname.startsWith("127.") || hostname === "[::1]";
}

/** The origin for links to give a friend: the page's own, unless the page was opened on
 * this machine's loopback address and the server knows the address other machines use. */
function shareOrigin() {
  const options = serverOptions();
  if (isLoopback(location.hostname) && options && options.share_origin) return options.share_origin;
  return location.origin;
}

/** The bars above and below the board: each side's name, whether it is connected, whether
 * it is to move (the clocks are drawn by clocks.js).
 * @param {LiveGameView} view */
export function renderPlayers(view) {
  const state = view.state;
  const bottom = view.flipped() ? "second" : "first";
  for (const [barId, side] of /** @type {[string, Side][]} */ ([["bar-bottom", bottom], ["bar-top", otherSide(bottom)]])) {
    const bar = $(barId);
    const player = (state.players && state.players[side]) || {};
    const name = bar.querySelector(".player-name");
    const label = sideName(state.variant, side === "first");
    // The server names the computer in English; the page says it in its own language.
    const shown = player.kind === "computer" && state.level
      ? t("computerLevel", { n: state.level }) : player.name;
    const plain = !shown || shown === label
      || (state.side_names && shown.toLowerCase() === state.side_names[side]);
    const rating = ratingInGame(state.game_id, side);
    name.textContent = (plain ? label : `${label} · ${shown}`) + (rating ? ` (${rating})` : "");
    bar.classList.toggle("offline", player.connected === false);
    bar.classList.toggle("to-move", state.status === "playing" && state.turn === side);
    bar.classList.toggle(`side-${state.side_names ? state.side_names[side] : side}`, true);
    bar.dataset.side = side;
  }
}

/** The status line (whose move, check) and, at the end, the banner with the result.
 * @param {LiveGameView} view */
export function renderStatus(view) {
  const state = view.state;
  const status = $("status");
  let text;
  if (state.status === "over") text = t("result");
  else if (state.status === "setup") text = t("setupTitle");
  else if (state.thinking) text = t("thinking");
  else if (view.role === "first" || view.role === "second") {
    text = state.you && state.you.your_turn ? t("yourMove") : t("theirMove");
  } else {
    text = t("toMove", { side: sideName(state.variant, state.turn === "first") });
  }
  if (state.status === "playing" && state.check) text += ` — ${t("check")}`;
  if (state.status === "playing" && state.bikjang) text += ` — ${t("bikjang")}`;
  if (view.role === "watcher") text = `${t("spectating")} · ${text}`;
  status.textContent = text;

  const banner = $("banner");
  show(banner, state.status === "over" && Boolean(state.result));
  if (state.result) {
    const result = state.result;
    const said = verdict(state.variant, result);
    // "*": a record that gives no result (not a draw).
    const title = result.result === "*" ? t("noResult")
      : result.result ? `${said} · ${result.result}` : said;
    $("banner-title").textContent = title;
    // The referee's sentence is English; other languages show the kind of ending in
    // their own words, with the sentence on hover.
    const english = language() === "en" || !result.termination;
    let reason = english ? result.reason || "" : t(`term_${result.termination}`);
    if (result.points && !reason.includes(String(result.points.han))) {
      const { cho, han } = result.points;
      reason += ` (${t("score")}: ${t("cho")} ${cho}, ${t("han")} ${han})`;
    }
    $("banner-reason").textContent = reason;
    $("banner-reason").title = english ? "" : result.reason || "";
  }
}

/** Who won, or a draw, in the page's language.
 * @param {string} game @param {Result} result */
function verdict(game, result) {
  return result.winner ? t("wins", { side: sideName(game, result.winner === "first") }) : t("drawn");
}

/** The question to ask before a janggi pass, or null: when the pass would end the game at
 * once (the state's `pass_ends`), or would let the opponent win by passing back
 * (`pass_back_ends`): how it would end, who would win and the points.
 * @param {GameState} state @returns {string | null} */
export function passQuestion(state) {
  const back = state.pass_back_ends;
  const losing = back && back.winner && back.winner !== state.turn;
  const ending = state.pass_ends || (losing ? back : null);
  if (!ending) return null;
  const points = ending.points;
  const score = points ? `${t("cho")} ${points.cho} – ${t("han")} ${points.han}` : "";
  return t(state.pass_ends ? "passEndsConfirm" : "passBackConfirm", {
    how: t(`term_${ending.termination}`), verdict: verdict(state.variant, ending), score,
  });
}

/** How many watch, under the status line (nothing while nobody does).
 * @param {LiveGameView} view */
export function renderWatchers(view) {
  const watchers = view.state.watchers;
  const node = $("watchers");
  show(node, typeof watchers === "number" && watchers > 0);
  node.textContent = t("watchersCount", { n: watchers });
}

/** The invite: a friend game whose other seat has not come yet.
 * @param {LiveGameView} view */
export function renderInvite(view) {
  const state = view.state;
  const options = serverOptions();
  const entry = view.token ? gameEntry(view.token) : null;
  const otherSeat = view.role === "first" || view.role === "second" ? otherSide(view.role) : null;
  const other = otherSeat && state.players ? state.players[otherSeat] : undefined;
  const waiting = state.kind === "friend" && view.isPlayer() && otherSeat
    && state.status !== "over" && state.ply === 0
    && !(other && other.connected);
  show($("invite"), Boolean(waiting && entry && entry.invite_url));
  if (entry && entry.invite_url) {
    const origin = shareOrigin();
    $("invite-url").value = origin + entry.invite_url;
    $("watch-url").value = origin + (entry.watch_url || `/w/${view.gameId}`);
  }
  show($("invite-local"), Boolean(options && options.local_only));
}

/** The opponent left (a player's view of a friend game in play, once it has begun: before
 * the first move the invite box says the friend is awaited): in a timed game whose clocks
 * run, a countdown to when the game may be claimed, then the claims.
 * @param {LiveGameView} view */
export function renderAbsence(view) {
  const state = view.state;
  const seat = view.role === "first" || view.role === "second" ? otherSide(view.role) : null;
  const absence = seat ? view.absence[seat] : null;
  const opponent = seat && state.players ? state.players[seat] : null;
  const visible = Boolean(absence && opponent && opponent.connected === false
    && state.kind === "friend" && state.status === "playing" && state.ply > 0);
  show($("absent"), visible);
  if (!visible || !absence) return;
  setText($("absent-text"), t("opponentLeft"));
  let countdown = "";
  let claimable = false;
  if (!state.clock) {
    countdown = t("untimedWait");
  } else if (state.clock.control.days) {
    countdown = t("corrWait"); // (away is normal: the days per move decide)
  } else if (state.clock.running) {
    const wait = absence.claim_ms - (Date.now() - view.skewMs);
    claimable = wait <= 0;
    countdown = claimable ? t("claimNow") : t("claimIn", { n: Math.ceil(wait / 1000) });
  }
  setText($("absent-countdown"), countdown);
  show($("absent-countdown"), Boolean(countdown));
  show($("absent-claims"), claimable);
}

/** Before the game starts: the time the side to move has left for a first move (for
 * everyone), and for the opponent who has moved, once it is up, the abort.
 * @param {LiveGameView} view */
export function renderFirstMove(view) {
  const state = view.state;
  const deadline = state.first_move_deadline_ms;
  const visible = state.status === "playing" && typeof deadline === "number";
  show($("first-move"), visible);
  if (!visible || typeof deadline !== "number") return;
  const side = sideName(state.variant, state.turn === "first");
  const wait = deadline - (Date.now() - view.skewMs);
  const late = wait <= 0;
  setText($("first-move-text"), late
    ? t("firstMoveLate", { side })
    : t("firstMoveIn", { side, n: Math.ceil(wait / 1000) }));
  show($("claim-abort"), late && view.role === otherSide(state.turn));
}

/** The setup choice, a standing offer and the buttons the state allows.
 * @param {LiveGameView} view */
export function renderPanels(view) {
  const state = view.state;
  const options = serverOptions();
  const player = view.isPlayer();
  const over = state.status === "over";
  const live = !over;

  // The janggi setup choice.
  const setup = state.setup;
  show($("setup"), state.status === "setup" && Boolean(setup));
  if (state.status === "setup" && setup) {
    const choices = $("setup-choices");
    clear(choices);
    const mine = player && state.you && state.you.your_turn;
    const chooserFirst = setup.chooser === "first";
    for (const arrangement of setup.choices) {
      const button = make("button", "setup-choice");
      button.type = "button";
      button.dataset.arrangement = arrangement;
      // The chooser's back rank as they see it, from their left (the card says so).
      button.appendChild(
        backRankPicture(arrangement, chooserFirst, themeOf(view.settings, "janggi").pieces));
      button.setAttribute("aria-label", arrangementWords(arrangement));
      button.title = arrangementWords(arrangement);
      if (arrangement === setup.default) button.classList.add("default");
      button.disabled = !mine;
      button.addEventListener("click", () => view.connection.action("setup", { arrangement }));
      choices.appendChild(button);
    }
  }

  // Standing offers from the other side (or, on one screen, from either side).
  /** @type {Partial<NonNullable<GameState["offers"]>>} */
  const offers = state.offers || {};
  /** @param {string} what @param {Side | null | undefined} by @returns {string | false} */
  const showOffer = (what, by) => {
    if (!by || !player) return false;
    if (view.role !== "both" && by === view.role) return false;
    return what;
  };
  const pending = showOffer("takeback", offers.takeback) || showOffer("draw", offers.draw)
    || (!view.dismissedRematch && showOffer("rematch", offers.rematch));
  if (view.role === "both" && offers.takeback && view.pendingLocalTakeback === offers.takeback) {
    view.pendingLocalTakeback = null;
    view.connection.action("takeback_accept", { side: otherSide(offers.takeback) });
  }
  show($("offer"), Boolean(pending));
  if (pending) {
    $("offer-text").textContent = pending === "takeback" ? t("takebackRequested")
      : pending === "draw" ? t("drawOffered")
      : `${t(isRatedGame(state.game_id) ? "ratedRematch" : "rematch")}?`;
  }

  // Buttons.
  show($("controls"), true);
  const playing = state.status === "playing";
  // Before a player's first move the game is aborted, not resigned (as on lichess).
  const abortable = state.abortable || [];
  const canAbort = player && live
    && (view.role === "both" ? abortable.length > 0 : abortable.includes(/** @type {Side} */ (view.role)));
  show($("btn-abort"), canAbort);
  show($("btn-berserk"), canBerserk(state.game_id, canAbort && view.role !== "both"));
  $("btn-berserk").title = t("tBerserkTitle");
  show($("btn-resign"), player && live && !canAbort);
  for (const id of ["btn-draw", "btn-takeback"]) {
    show($(id), player && live);
  }
  $("btn-resign").disabled = !playing && state.status !== "setup";
  $("btn-draw").disabled = !playing;
  $("btn-takeback").disabled = !playing || state.ply === 0;
  show($("btn-pass"), player && state.variant === "janggi" && live);
  $("btn-pass").disabled = !(state.can_pass && state.you && state.you.your_turn && view.viewPly === null);
  show($("after-controls"), over);
  show($("btn-rematch"), over && player && state.kind !== "imported");
  show($("btn-analyse"), over && !(options && options.engine_available === false));
}

/** The engine's evaluation and best line of the analysed position, or why there is none
 * (a position the rules ended: the server names the ending).
 * @param {LiveGameView} view */
export function renderAnalysis(view) {
  // The analysis board, at the position shown: for a finished game only (never for its
  // players while it runs).
  const board = $("btn-analysis-board");
  const over = view.state.status === "over";
  show(board, over);
  if (over) board.href = `/analysis?game=${encodeURIComponent(view.gameId)}&ply=${view.shownPly()}`;
  const analysis = view.analysis;
  if (!analysis) {
    const waiting = $("analysis-score").textContent === t("analysing");
    if (!waiting) show($("analysis"), false);
    return;
  }
  show($("analysis"), true);
  const line = analysis.lines[0];
  show($("analysis-eval"), Boolean(line));
  show($("analysis-best"), Boolean(line));
  show($("analysis-none"), !line);
  if (!line) {
    const over = analysis.over;
    // The referee's sentence is English; other languages name the ending, the sentence on hover.
    const english = language() === "en";
    $("analysis-none").textContent = over
      ? t("nothingToAnalyse", { reason: english ? over.reason : t(`term_${over.termination}`) })
      : t("noAnalysisLines");
    $("analysis-none").title = over && !english ? over.reason : "";
    return;
  }
  const mover = sideName(view.game(), analysis.turn === "first");
  const cp = Number(line.score_cp); // (given when there is no mate)
  $("analysis-score").textContent = line.mate !== null && line.mate !== undefined
    ? `${mover}: ${t("mate", { n: Math.abs(line.mate) })}${line.mate < 0 ? " (−)" : ""}`
    : `${mover}: ${(cp >= 0 ? "+" : "") + (cp / 100).toFixed(2)}`;
  $("analysis-depth").textContent = t("depth", { n: line.depth });
  const notation = notationFor(view.settings.notation, view.game());
  const moves = (line.pv && (line.pv[notation] || line.pv.iccs)) || [];
  $("analysis-line").textContent = moves.join(" ");
}
