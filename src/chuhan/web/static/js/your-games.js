// @ts-check
// "/games": the signed-in player's games in progress (GET /api/account/games), those where it
// is the player's move first with the time left (a correspondence game's days and the date the
// move is due), then the games waiting for the opponent. Each opens the player's seat.

import { currentAccount, onAccountChange } from "./account.js";
import * as api from "./api.js";
import { formatDeadline, formatTimeLeft } from "./clocks.js";
import { $, clear, make } from "./dom.js";
import { t } from "./i18n.js";

/** How often the list is read again while the page is shown. */
const REFRESH_MS = 30000;

/** @type {HTMLElement | null} */
let section = null;
/** @type {import("./protocol.js").YourGame[] | null} the last answer */
let games = null;
/** @type {string | null} the last error's sentence */
let failed = null;

/** One game's line: the game, the opponent, the time control, whose move and the time left.
 * @param {import("./protocol.js").YourGame} game @returns {HTMLElement} */
function gameLine(game) {
  const item = make("li", game.your_move ? "your-game your-move" : "your-game");
  item.dataset.gameId = game.game_id;
  const parts = [t(game.variant)];
  if (game.opponent) parts.push(t("vsOpponent", { name: game.opponent }));
  if (game.days) parts.push(game.days === 1 ? t("corrOptionOne") : t("corrOption", { n: game.days }));
  else if (game.time_control) parts.push(game.time_control);
  if (game.rated) parts.push(t("rated"));
  parts.push(game.your_move ? t("yourMove") : t("theirMove"));
  const link = make("a", null, parts.join(" · "));
  link.href = game.url;
  item.appendChild(link);
  if (game.your_move && game.left_ms !== null && game.deadline_ms !== null) {
    const left = game.days
      ? t("corrDue", { left: formatTimeLeft(game.left_ms), date: formatDeadline(game.deadline_ms) })
      : t("timeLeft", { left: formatTimeLeft(game.left_ms) });
    item.appendChild(make("span", "muted your-game-left", ` — ${left}`));
  }
  return item;
}

function draw() {
  if (!section) return;
  clear(section);
  const card = make("div", "card");
  section.appendChild(card);
  card.appendChild(make("h2", null, t("yourGames")));
  if (!currentAccount()) {
    card.appendChild(make("p", "muted", t("yourGamesSignIn")));
    return;
  }
  if (failed) {
    card.appendChild(make("p", "form-error", t("error", { message: failed })));
    return;
  }
  if (!games) return;
  if (!games.length) {
    card.appendChild(make("p", "muted", t("yourGamesNone")));
    return;
  }
  const list = make("ul", "game-list your-games");
  list.id = "your-games";
  for (const game of games) list.appendChild(gameLine(game));
  card.appendChild(list);
}

async function load() {
  if (!currentAccount()) {
    games = null;
    draw();
    return;
  }
  try {
    games = (await api.yourGames()).games;
    failed = null;
  } catch (err) {
    failed = /** @type {Error} */ (err).message;
  }
  draw();
}

/** Show "/games" in place of the home page. */
export function showYourGames() {
  const page = make("section", "player-page your-games-page");
  page.id = "your-games-page";
  $("home").before(page);
  section = page;
  onAccountChange(() => void load());
  draw();
  void load();
  setInterval(() => {
    if (!document.hidden) void load();
  }, REFRESH_MS);
}

/** Redraw in the language just chosen. */
export function refreshYourGamesTexts() {
  draw();
}
