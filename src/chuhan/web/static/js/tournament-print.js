// @ts-check
// A tournament's printed pages (/t/{id}/print/pairings | scoresheets | standings, print.html):
// the pairing sheet of a round (board, players, clubs, ratings, scores, a result box), one
// score sheet a board (event, round, board, players, a grid of moves to write in) and the
// standings with the tie-break columns, in the page's language (?lang=, else the settings'
// or the browser's). Laid out by print.css for A4 and Letter; body[data-ready] is set once
// the page is drawn (the browser tests print it then).

import { detectLanguage, setLanguage, sideName, t } from "./i18n.js";
import { loadSettings } from "./settings.js";

/** Moves a score sheet has room for: two grids of MOVE_ROWS rows (a move each, both sides). */
const MOVE_ROWS = 30;

/**
 * A new element with its text, or its children.
 * @param {string} tag
 * @param {string | null} [className]
 * @param {...(Node | string | number | null | undefined)} children
 * @returns {HTMLElement}
 */
function el(tag, className, ...children) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(typeof child === "number" ? String(child) : child);
  }
  return node;
}

/** Points and tie-breaks as a score sheet writes them: halves as ½, other fractions (a
 * Sonneborn-Berger of quarters) to two decimals.
 * @param {number | null | undefined} value */
function points(value) {
  if (value === null || value === undefined) return "";
  if (!Number.isInteger(value * 2)) return value.toFixed(2);
  const whole = Math.floor(value);
  const half = value - whole >= 0.5;
  return half ? (whole ? `${whole}½` : "½") : String(whole);
}

/** @param {string} result a board's result as the API gives it */
function shownResult(result) {
  return { "1/2-1/2": "½-½", "+-": "+ −", "-+": "− +", "--": "− −" }[result] ?? result;
}

/** @param {any} tournament @param {number} round */
function heading(tournament, round) {
  const title = el("h1", null, tournament.name);
  const sub = el("h2", null, round ? t("tRound", { n: round }) : "");
  return [title, sub];
}

/** @param {any} tournament @param {number} round */
function pairingSheet(tournament, round) {
  const boards = tournament.paired[round - 1] || [];
  const game = tournament.variant;
  const head = el(
    "tr",
    null,
    el("th", "number", t("tBoard")),
    el("th", null, sideName(game, true)),
    el("th", "number rating", t("pRating")),
    el("th", "number", t("pScore")),
    el("th", "result-box", t("tResult")),
    el("th", "number", t("pScore")),
    el("th", null, sideName(game, false)),
    el("th", "number rating", t("pRating")),
  );
  const rows = boards.map((/** @type {any} */ board) => {
    const player = (/** @type {string} */ side) =>
      board[side] === null
        ? el("td", null, t("tBye"))
        : el("td", null, board[side], board[`${side}_club`] ? el("div", "small", board[`${side}_club`]) : null);
    return el(
      "tr",
      null,
      el("td", "number", board.board),
      player("red"),
      el("td", "number", board.red_rating || ""),
      el("td", "number", points(board.red_score)),
      el("td", "result-box", board.result ? shownResult(board.result) : ""),
      el("td", "number", board.black === null ? "" : points(board.black_score)),
      player("black"),
      el("td", "number", board.black === null ? "" : board.black_rating || ""),
    );
  });
  // (the players on a half-point bye they asked for: on no board)
  for (const name of (tournament.requested_byes || [])[round - 1] || []) {
    rows.push(el("tr", null, el("td", "number", ""), el("td", null, name), el("td", "number", ""),
      el("td", "number", ""), el("td", "result-box", "½"), el("td", "number", ""),
      el("td", null, t("tHalfBye")), el("td", "number", "")));
  }
  const table = el("table", "pairings", el("thead", null, head), el("tbody", null, ...rows));
  const section = el("section", "pairing-sheet", ...heading(tournament, round), el("p", "small", t("pPairings")), table);
  return [section];
}

/** @param {any} tournament @param {number} round */
function scoreSheets(tournament, round) {
  const boards = (tournament.paired[round - 1] || []).filter((/** @type {any} */ b) => b.black !== null);
  const game = tournament.variant;
  return boards.map((/** @type {any} */ board) => {
    const line = (/** @type {string} */ label, /** @type {string | Node} */ value) =>
      el("tr", null, el("th", null, label), el("td", null, value));
    const player = (/** @type {string} */ side) =>
      `${board[side]}${board[`${side}_club`] ? ` (${board[`${side}_club`]})` : ""}${board[`${side}_rating`] ? ` ${board[`${side}_rating`]}` : ""}`;
    const head = el(
      "table",
      "sheet-head",
      el(
        "tbody",
        null,
        line(t("pEvent"), tournament.name),
        line(t("tBoard"), `${board.board} · ${t("tRound", { n: round })}`),
        line(sideName(game, true), player("red")),
        line(sideName(game, false), player("black")),
        line(t("tResult"), ""),
        line(t("pDate"), ""),
      ),
    );
    const grid = (/** @type {number} */ first) => {
      const rows = [];
      for (let n = first; n < first + MOVE_ROWS; n++) {
        rows.push(el("tr", null, el("td", "number", n), el("td"), el("td")));
      }
      return el(
        "table",
        null,
        el("thead", null, el("tr", null, el("th", "number", t("pMove")), el("th", null, sideName(game, true)), el("th", null, sideName(game, false)))),
        el("tbody", null, ...rows),
      );
    };
    return el(
      "section",
      "score-sheet",
      el("h1", null, t("pScoreSheet")),
      head,
      el("div", "grids", grid(1), grid(MOVE_ROWS + 1)),
      el("div", "signatures", el("div", null, `${t("pSignatures")}: ${sideName(game, true)}`), el("div", null, sideName(game, false)), el("div", null, t("tResult"))),
    );
  });
}

/** @param {any} tournament */
function standingsSheet(tournament) {
  const round = tournament.paired.length;
  const clubs = new Map(tournament.entrants.map((/** @type {any} */ e) => [e.name, e]));
  const tiebreaks = /** @type {string[]} */ (tournament.tiebreaks);
  const head = el(
    "tr",
    null,
    el("th", "number", t("pRank")),
    el("th", null, t("pName")),
    el("th", null, t("pClub")),
    el("th", "number rating", t("pRating")),
    el("th", "number", t("tPoints")),
    ...tiebreaks.map((name) => el("th", "number tiebreak", t(`tb_${name}`))),
  );
  const rows = (tournament.standings || []).map((/** @type {any} */ line) => {
    const entrant = /** @type {any} */ (clubs.get(line.name)) || {};
    return el(
      "tr",
      null,
      el("td", "number", line.rank),
      el("td", null, line.name),
      el("td", null, entrant.club || ""),
      el("td", "number", entrant.rating || ""),
      el("td", "number", points(line.points)),
      ...tiebreaks.map((name) => el("td", "number", points(line.tiebreaks?.[name]))),
    );
  });
  const table = el("table", "standings", el("thead", null, head), el("tbody", null, ...rows));
  return [el("section", null, el("h1", null, tournament.name), el("h2", null, t("pStandingsAfter", { n: round })), table)];
}

async function start() {
  const query = new URLSearchParams(location.search);
  setLanguage(query.get("lang") || loadSettings().language || detectLanguage(navigator.language));
  const main = /** @type {HTMLElement} */ (document.getElementById("sheets"));
  const match = location.pathname.match(/^\/t\/([A-Za-z0-9_-]+)\/print\/(pairings|scoresheets|standings)\/?$/);
  if (!match) return;
  const response = await fetch(`/api/tournaments/${match[1]}`);
  const body = await response.json();
  if (!response.ok) {
    main.replaceChildren(el("p", null, body.error?.message || t("tNotFound")));
  } else {
    const tournament = body.tournament;
    document.title = `${tournament.name} · chuhan`;
    const paired = tournament.paired.length;
    const asked = Number(query.get("round") || paired);
    const round = Number.isInteger(asked) && asked >= 1 && asked <= paired ? asked : paired;
    if (match[2] !== "standings" && !round) {
      main.replaceChildren(el("h1", null, tournament.name), el("p", null, t("pNoRound")));
    } else if (match[2] === "pairings") {
      main.replaceChildren(...pairingSheet(tournament, round));
    } else if (match[2] === "scoresheets") {
      main.replaceChildren(...scoreSheets(tournament, round));
    } else {
      main.replaceChildren(...standingsSheet(tournament));
    }
  }
  main.removeAttribute("aria-busy");
  document.body.dataset.ready = "1";
}

start();
