// @ts-check
// The game's move list in the player's notation; a click on a move shows that position.

import { $, clear, make, show } from "./dom.js";
import { language, notationFor, t } from "./i18n.js";

/** @typedef {import("./protocol.js").MoveEntry} MoveEntry */

/**
 * The whole move list after a state message. A state may carry only the entries after the
 * first `moves_from` of the list (protocol 2): those are kept and the state's `moves` are
 * added; `moves_from` 0 or absent (protocol 1) means the state's list is the whole list, and
 * a state without `moves` leaves the list as it was. Null when we hold fewer than
 * `moves_from` entries: the list cannot be made, ask for the whole state.
 * @param {MoveEntry[]} known
 * @param {{moves?: MoveEntry[], moves_from?: number}} state
 * @returns {MoveEntry[] | null}
 */
export function mergeMoves(known, state) {
  if (!Array.isArray(state.moves)) return known;
  const from = state.moves_from;
  const kept = typeof from === "number" && Number.isInteger(from) && from > 0 ? from : 0;
  if (kept === 0) return state.moves;
  if (kept > known.length) return null;
  return known.slice(0, kept).concat(state.moves);
}

/** A move list entry as the player reads moves (their notation, the page's script).
 * @param {import("./protocol.js").MoveEntry} entry
 * @param {import("./protocol.js").Notation} notation @returns {string} */
export function moveText(entry, notation) {
  // Chinese notation in the page's script: simplified characters on the zh-Hans page.
  const simplified = notation === "chinese" && language() === "zh-Hans" && entry.chinese_simplified;
  return simplified || entry[notation] || entry.iccs;
}

/** Draw the game view's move list, the shown move marked.
 * @param {import("./game-view.js").LiveGameView} view */
export function renderMoves(view) {
  const state = view.state;
  const list = $("moves");
  clear(list);
  const notation = notationFor(view.settings.notation, state.variant);
  const shown = view.shownPly();
  let row = null;
  for (const entry of state.moves) {
    if (entry.side === "first" || !row) {
      row = make("li", "move-row");
      row.appendChild(make("span", "move-number", `${Math.floor((entry.ply - 1) / 2) + 1}.`));
      list.appendChild(row);
      if (entry.side === "second") row.appendChild(make("span", "move empty", "…"));
    }
    const cell = make("button", "move", moveText(entry, notation));
    cell.type = "button";
    cell.dataset.ply = String(entry.ply);
    if (entry.ply === shown) cell.classList.add("current");
    cell.addEventListener("click", () => view.viewAt(entry.ply));
    row.appendChild(cell);
    if (entry.side === "second") row = null;
  }
  const current = list.querySelector(".current");
  if (current && view.viewPly === null) {
    // Scroll the list itself, never the page: on a phone that would take the board away.
    const box = list.getBoundingClientRect();
    const item = current.getBoundingClientRect();
    if (item.top < box.top) list.scrollTop -= box.top - item.top;
    else if (item.bottom > box.bottom) list.scrollTop += item.bottom - box.bottom;
  }
  show($("viewing"), view.viewPly !== null);
  if (view.viewPly !== null) $("viewing-text").textContent = t("viewing", { n: view.viewPly });
}
