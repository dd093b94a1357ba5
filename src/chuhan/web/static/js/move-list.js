// The game's move list in the player's notation; a click on a move shows that position.

import { $, clear, make, show } from "./dom.js";
import { notationFor, t } from "./i18n.js";

/** Draw the game view's move list, the shown move marked. */
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
    const text = entry[notation] || entry.iccs;
    const cell = make("button", "move", text);
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
