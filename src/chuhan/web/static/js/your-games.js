// @ts-check
// "/games": the signed-in player's games in progress (GET /api/account/games), those where it
// is the player's move first with the time left (a correspondence game's days and the date the
// move is due), then the games waiting for the opponent. Each opens the player's seat. Below
// them, the player's vacation (GET/POST/DELETE /api/account/vacation): the days left this year,
// and a vacation taken or ended; an opponent on vacation is shown on the game's line.

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
/** @type {import("./protocol.js").Vacation | null} the account's vacation days */
let vacation = null;
/** @type {string} the server's answer to the last vacation asked for or ended */
let vacationError = "";

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
  if (game.opponent_vacation_ms) {
    const date = new Date(game.opponent_vacation_ms).toLocaleString();
    const away = t("opponentVacation", { name: game.opponent || "", date });
    item.appendChild(make("span", "muted your-game-vacation", ` — ${away}`));
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
  } else {
    const list = make("ul", "game-list your-games");
    list.id = "your-games";
    for (const game of games) list.appendChild(gameLine(game));
    card.appendChild(list);
  }
  if (vacation) section.appendChild(vacationCard(vacation));
}

/** The vacation's card: the days left, and a vacation to take or end.
 * @param {import("./protocol.js").Vacation} held @returns {HTMLElement} */
function vacationCard(held) {
  const card = make("div", "card vacation");
  card.id = "vacation";
  card.appendChild(make("h2", null, t("vacationTitle")));
  const left = make("p", "muted", t("vacationLeft", { left: held.left, allowance: held.allowance, year: held.year }));
  left.id = "vacation-left";
  card.appendChild(left);
  if (held.until_ms) {
    const until = make("p", null, t("vacationUntil", { date: new Date(held.until_ms).toLocaleString() }));
    until.id = "vacation-until";
    card.appendChild(until);
    const end = make("button", null, t("vacationEnd"));
    end.id = "vacation-end";
    end.type = "button";
    end.addEventListener("click", () => void changeVacation(() => api.endVacation()));
    card.appendChild(end);
  } else {
    const row = make("label", "row");
    row.appendChild(make("span", null, t("vacationDays")));
    const days = make("input");
    days.id = "vacation-days";
    days.type = "number";
    days.min = "1";
    days.max = String(Math.max(1, held.left));
    days.value = String(Math.min(7, Math.max(1, held.left)));
    row.appendChild(days);
    card.appendChild(row);
    const take = make("button", "primary", t("vacationTake"));
    take.id = "vacation-take";
    take.type = "button";
    take.addEventListener("click", () => void changeVacation(() => api.takeVacation(Math.round(Number(days.value)))));
    card.appendChild(take);
  }
  const error = make("p", "form-error", vacationError ? t("error", { message: vacationError }) : "");
  error.id = "vacation-error";
  error.hidden = !vacationError;
  card.appendChild(error);
  return card;
}

/** Take or end a vacation, then read the games again (their clocks have it).
 * @param {() => Promise<import("./protocol.js").Vacation>} ask */
async function changeVacation(ask) {
  try {
    vacation = await ask();
    vacationError = "";
  } catch (err) {
    vacationError = /** @type {Error} */ (err).message;
  }
  await load();
}

async function load() {
  if (!currentAccount()) {
    games = null;
    draw();
    return;
  }
  try {
    [games, vacation] = await Promise.all([api.yourGames().then((found) => found.games), api.vacation()]);
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
