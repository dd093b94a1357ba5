// @ts-check
// The home page: one-click starts (the computer at each level, a friend, both sides here)
// beside the daily puzzle's board, the full new-game form behind "Custom game", my games
// (the seats this browser keeps) and replaying a record file.

import { currentAccount, onAccountChange } from "./account.js";
import * as api from "./api.js";
import { BoardView, parsePlacement } from "./board.js";
import { $, clear, make, show, toast } from "./dom.js";
import { sideName, t } from "./i18n.js";
import { puzzleTask } from "./puzzles.js";
import { loadSettings, myGames, rememberGame, themeOf } from "./settings.js";

const QUICK_GAME_KEY = "chuhan.quickGame";
const LEVELS = [1, 2, 3, 4, 5, 6, 7, 8];
/** @type {BoardView | null} */
let dailyBoard = null;
/** @type {import("./protocol.js").Puzzle | null} the daily puzzle once it has arrived */
let daily = null;

/** @type {Promise<unknown>} settles when the home page has asked for them */
let optionsLoaded = Promise.resolve();

/** @typedef {import("./protocol.js").GameRequest} GameRequest */

/** The value of the form's radio button `name` that is checked, else null.
 * @param {HTMLFormElement} form @param {string} name @returns {string | null} */
function selectedValue(form, name) {
  const checked = /** @type {HTMLInputElement | null} */ (form.querySelector(`input[name="${name}"]:checked`));
  return checked ? checked.value : null;
}

/** @param {HTMLFormElement} form */
function fillRules(form) {
  const options = api.serverOptions();
  const variant = selectedValue(form, "variant");
  if (variant === null) return; // (the page checks one of the game's buttons at first)
  const rules = $("rules");
  // A rule set the player already chose for this game survives a refill (the options
  // arriving, the language changing); a change of game starts from that game's default.
  const kept = rules.dataset.variant === variant ? rules.value : null;
  clear(rules);
  const list = options ? options.variants[variant] : [variant === "janggi" ? "official" : "asian"];
  for (const name of list) {
    const option = make("option", null, t(`rules_${name}`));
    option.value = name;
    rules.appendChild(option);
  }
  if (kept && list.includes(kept)) rules.value = kept;
  else if (options) rules.value = options.default_rules[variant];
  rules.dataset.variant = variant;
  $("colour-first").textContent = sideName(variant, true);
  $("colour-second").textContent = sideName(variant, false);
}

/** @param {HTMLFormElement} form */
function updateFormVisibility(form) {
  const options = api.serverOptions();
  const tc = selectedValue(form, "tc");
  show($("tc-fischer"), tc === "fischer");
  show($("tc-byoyomi"), tc === "byoyomi");
  show($("tc-correspondence"), tc === "correspondence");
  const kind = selectedValue(form, "kind");
  show($("level-row"), kind === "computer");
  show($("colour-row"), kind !== "local");
  show($("rated-row"), kind === "friend" && Boolean(currentAccount()));
  show($("fen-row"), Boolean(options && options.custom_fen));
}

/** @param {HTMLFormElement} form @returns {string} */
function timeControlOf(form) {
  const tc = selectedValue(form, "tc");
  const field = (/** @type {string} */ name) => /** @type {HTMLInputElement} */ (form.elements.namedItem(name));
  const number = (/** @type {string} */ name) => Math.max(0, Math.round(Number(field(name).value) || 0));
  if (tc === "fischer") return `${number("fischer_minutes")}+${number("fischer_increment")}`;
  if (tc === "byoyomi") {
    return `${number("byo_minutes")} ${Math.max(1, number("byo_periods"))}x${number("byo_seconds")}`;
  }
  if (tc === "correspondence") return `${field("corr_days").value}d`;
  return "none";
}

/** @param {HTMLFormElement} form */
async function startGameFromForm(form) {
  const error = $("create-error");
  const button = $("create");
  if (button.disabled) return; // Enter in a field while the last request is on its way
  show(error, false);
  button.disabled = true;
  try {
    await optionsLoaded; // the custom-position field counts only where the server takes one
    const options = api.serverOptions();
    const kind = selectedValue(form, "kind");
    const variant = selectedValue(form, "variant");
    if (kind === null || variant === null) return; // (the page checks one of each at first)
    /** @type {GameRequest} */
    const request = {
      kind,
      variant,
      rules: $("rules").value,
      time_control: timeControlOf(form),
    };
    if (kind === "computer") request.level = Number($("level").value);
    if (kind !== "local") request.color = $("colour").value;
    if (kind === "friend" && currentAccount() && $("rated").checked) request.rated = true;
    const fen = $("fen").value.trim();
    if (fen && options && options.custom_fen) request.fen = fen;
    const created = await api.createGame(request);
    rememberGame({
      game_id: created.game_id, token: created.token, seat: created.seat, kind,
      variant: request.variant, invite_url: created.invite_url || null,
      watch_url: created.watch_url,
    });
    location.href = created.seat_url;
  } catch (err) {
    error.textContent = t("error", { message: /** @type {Error} */ (err).message });
    show(error, true);
  } finally {
    button.disabled = false;
  }
}

/** @returns {string} the game the quick buttons start */
function quickGame() {
  const checked = /** @type {HTMLInputElement | null} */ (document.querySelector('input[name="quick-game"]:checked'));
  return checked ? checked.value : "xiangqi";
}

/** One click, one game: the computer at `level`, a friend, or both sides here, with the
 * game chosen by the toggle, its default rules, no clock and a random side.
 * @param {"computer" | "friend" | "local"} kind @param {number} [level] */
async function quickStart(kind, level) {
  const error = $("quick-error");
  const buttons = $("home-start").querySelectorAll("button");
  show(error, false);
  for (const button of buttons) button.disabled = true;
  try {
    const variant = quickGame();
    /** @type {GameRequest} */
    const request = { kind, variant, time_control: "none" };
    if (kind === "computer") request.level = level;
    if (kind !== "local") request.color = kind === "computer" ? "random" : "first";
    const created = await api.createGame(request);
    rememberGame({
      game_id: created.game_id, token: created.token, seat: created.seat, kind, variant,
      invite_url: created.invite_url || null, watch_url: created.watch_url,
    });
    location.href = created.seat_url;
  } catch (err) {
    error.textContent = t("error", { message: /** @type {Error} */ (err).message });
    show(error, true);
    refreshQuick();
  }
}

function refreshQuick() {
  const options = api.serverOptions();
  const levels = $("quick-levels");
  clear(levels);
  const engine = !options || options.engine_available !== false;
  for (const level of (options && options.levels) || LEVELS) {
    const button = make("button", "level", String(level));
    button.type = "button";
    button.dataset.level = String(level);
    button.title = t("computerLevel", { n: level });
    button.disabled = !engine;
    button.addEventListener("click", () => quickStart("computer", level));
    levels.appendChild(button);
  }
  for (const id of ["quick-friend", "quick-local"]) $(id).disabled = false;
  refreshDaily();
}

function refreshDaily() {
  if (!daily || !dailyBoard) return; // (the board is made before the puzzle is asked for)
  const theme = themeOf(loadSettings(), daily.game);
  dailyBoard.update({
    game: daily.game, pieces: parsePlacement(daily.fen, daily.game), pieceSet: theme.pieces,
    boardTheme: theme.board, flipped: daily.turn === "second", interactive: false,
  });
  $("daily").href = `/puzzles/${encodeURIComponent(daily.id)}`;
  $("daily-text").textContent = `${daily.date} · ${puzzleTask(daily)}`;
}

async function loadDaily() {
  try {
    daily = await api.dailyPuzzle();
  } catch (err) {
    $("daily-text").textContent = t("error", { message: /** @type {Error} */ (err).message });
    return;
  }
  refreshDaily();
}

function startQuick() {
  let saved = null;
  try {
    saved = localStorage.getItem(QUICK_GAME_KEY);
  } catch {
    saved = null;
  }
  const toggle = /** @type {HTMLInputElement} */ (
    document.querySelector(`input[name="quick-game"][value="${saved === "janggi" ? "janggi" : "xiangqi"}"]`));
  toggle.checked = true;
  $("quick-game").addEventListener("change", () => {
    try {
      localStorage.setItem(QUICK_GAME_KEY, quickGame());
    } catch {
      // (private windows: the choice lasts for this page)
    }
  });
  $("quick-friend").addEventListener("click", () => quickStart("friend"));
  $("quick-local").addEventListener("click", () => quickStart("local"));
  dailyBoard = new BoardView($("daily-board"));
  refreshQuick();
  loadDaily();
}

/** One line of "My games": the game, the opponent (by name once known), the time control,
 * and whose move it is or how it ended for this seat.
 * @param {import("./protocol.js").ListedGame} game @returns {string} */
function describeListedGame(game) {
  const parts = [t(game.variant)];
  const opponent = game.seat === "both" ? "" : (game.names || {})[game.seat === "first" ? "second" : "first"];
  if (game.kind === "computer") parts.push(t("computerLevel", { n: game.level }));
  else if (opponent) parts.push(t("vsOpponent", { name: opponent }));
  else if (game.kind === "friend") parts.push(t("vsFriend"));
  else if (game.kind === "local") parts.push(t("vsHere"));
  if (game.time_control) parts.push(game.time_control);
  if (game.status === "over" && game.result) {
    const winner = game.result.winner;
    if (game.seat === "both") parts.push(game.result.result || "");
    else parts.push(winner === null ? t("drawn") : t(winner === game.seat ? "won" : "lost"));
  } else {
    parts.push(game.your_turn ? t("yourMove") : t("theirMove"));
  }
  return parts.filter(Boolean).join(" · ");
}

let myGamesAsked = 0; // the newest request for the list: only its answer draws it

async function refreshMyGames() {
  const asked = ++myGamesAsked;
  const saved = myGames();
  /** @type {import("./protocol.js").ListedGame[]} */
  let listed = [];
  if (saved.length) {
    try {
      listed = await api.myGames(saved.map((g) => g.token));
    } catch (err) {
      if (asked === myGamesAsked) toast(t("error", { message: /** @type {Error} */ (err).message }));
      return;
    }
  }
  if (asked !== myGamesAsked) return; // a later refresh (a language switch) draws it
  const playing = $("games-playing");
  const over = $("games-over");
  clear(playing);
  clear(over);
  show($("no-games"), listed.length === 0);
  show($("head-playing"), listed.some((g) => g.status !== "over"));
  show($("head-over"), listed.some((g) => g.status === "over"));
  for (const game of listed) {
    const item = make("li", game.your_turn && game.status !== "over" ? "your-turn" : null);
    const link = make("a", null, describeListedGame(game));
    link.href = game.seat_url;
    item.appendChild(link);
    (game.status === "over" ? over : playing).appendChild(item);
  }
}

/** @param {File} file */
async function openRecordFile(file) {
  const error = $("import-error");
  const list = $("imported");
  show(error, false);
  clear(list);
  try {
    const result = await api.importRecord(file);
    for (const game of result.games) {
      const item = make("li");
      const names = [game.red, game.black].filter(Boolean).join(" – ");
      const text = [t(game.variant), names, game.event, game.result].filter(Boolean).join(" · ");
      const link = make("a", null, text);
      link.href = game.watch_url;
      item.appendChild(link);
      list.appendChild(item);
    }
    if (result.errors && result.errors.length) {
      error.textContent = result.errors.join("\n");
      show(error, true);
    }
    if (result.games.length === 1 && !(result.errors && result.errors.length)) {
      location.href = result.games[0].watch_url;
    }
  } catch (err) {
    error.textContent = t("importError", { message: /** @type {Error} */ (err).message });
    show(error, true);
  }
}

/** Draw the form and the list again (the options arrived, the language changed). */
export function refreshHome() {
  refreshForm();
  refreshQuick();
  refreshMyGames();
}

function refreshForm() {
  const options = api.serverOptions();
  const form = $("new-game");
  fillRules(form);
  const level = $("level");
  const current = level.value || "1";
  clear(level);
  for (const n of (options && options.levels) || [1, 2, 3, 4, 5, 6, 7, 8]) {
    const option = make("option", null, String(n));
    option.value = String(n);
    level.appendChild(option);
  }
  level.value = current;
  updateFormVisibility(form);
}

export function startHome() {
  show($("home"), true);
  startQuick();
  const form = $("new-game");
  // The form works from the first moment: a click on Start before the options arrive must
  // not fall through to the browser's own form submission (a reload of the home page).
  form.addEventListener("change", (/** @type {Event} */ event) => {
    if (/** @type {HTMLInputElement | HTMLSelectElement} */ (event.target).name === "variant") fillRules(form);
    updateFormVisibility(form);
  });
  form.addEventListener("submit", (/** @type {SubmitEvent} */ event) => {
    event.preventDefault();
    startGameFromForm(form);
  });
  onAccountChange(() => updateFormVisibility(form));
  $("import-file").addEventListener("change", (/** @type {Event} */ event) => {
    const input = /** @type {HTMLInputElement} */ (event.target);
    const file = input.files && input.files[0]; // (a file input's list is never null)
    if (file) openRecordFile(file);
  });
  refreshHome();
  optionsLoaded = api.loadOptions().then((options) => {
    if (options.engine_available === false) {
      form.querySelector('input[name="kind"][value="computer"]').disabled = true;
      form.querySelector('input[name="kind"][value="friend"]').checked = true;
    }
    refreshForm();
    refreshQuick();
  }).catch((err) => {
    toast(t("error", { message: /** @type {Error} */ (err).message }));
  });
}
