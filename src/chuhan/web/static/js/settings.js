// @ts-check
// Settings and my games, kept in localStorage.

const SETTINGS_KEY = "chuhan.settings";
const GAMES_KEY = "chuhan.games";
const MAX_GAMES = 200; // the server lists at most 200 tokens

/** @typedef {import("./protocol.js").Notation} Notation */
/** @typedef {{board: string, pieces: string}} Theme a game's board and piece set */
/**
 * The player's settings, read live by the pages.
 * @typedef {object} Settings
 * @property {string | null} language null: follow navigator.language
 * @property {Notation | null} notation null: follow the language and the game
 * @property {boolean} sound
 * @property {boolean} notify a browser notification when it is my move in a hidden tab
 * @property {boolean} touchMove
 * @property {boolean} animation
 * @property {Record<string, Theme>} themes each game's own
 */
/**
 * A seat this browser keeps (the server lists its game by the token).
 * @typedef {object} SavedGame
 * @property {string} game_id
 * @property {string} token
 * @property {string | null} [seat] "first", "second" or "both"
 * @property {string | null} [kind]
 * @property {string} [variant]
 * @property {string | null} [invite_url]
 * @property {string} [watch_url]
 * @property {number} [saved_ms]
 */

/** @type {Settings} */
const DEFAULTS = {
  language: null, // null: follow navigator.language
  notation: null, // null: follow the language and the game
  sound: true,
  notify: false, // asks the browser's permission when turned on
  touchMove: false,
  animation: true, // slide the pieces (the system's "reduce motion" turns it off too)
  themes: {}, // each game's own: {xiangqi: {board, pieces}, janggi: {board, pieces}}
};
const GAMES = ["xiangqi", "janggi"];
const DEFAULT_THEME = { board: "wood", pieces: "chinese" };

/** What was kept under `key` (as it was written: nothing checks it), else `fallback`.
 * @param {string} key @param {unknown} fallback @returns {unknown} */
function read(key, fallback) {
  try {
    const raw = localStorage.getItem(key);
    return raw ? JSON.parse(raw) : fallback;
  } catch {
    return fallback;
  }
}

/** @param {string} key @param {unknown} value */
function write(key, value) {
  try {
    localStorage.setItem(key, JSON.stringify(value));
  } catch {
    // Private windows may refuse storage: settings then last for this page only.
  }
}

/** @returns {Settings} */
export function loadSettings() {
  const stored = read(SETTINGS_KEY, {});
  /** @type {Settings & {labels?: string}} (settings saved before the themes had `labels`) */
  const settings = { ...DEFAULTS, ...(stored && typeof stored === "object" ? stored : {}) };
  const themes = settings.themes && typeof settings.themes === "object" ? settings.themes : {};
  settings.themes = {};
  for (const game of GAMES) {
    /** @type {Partial<Theme>} */
    const theme = themes[game] && typeof themes[game] === "object" ? themes[game] : {};
    // Settings saved before the themes had one `labels` (chinese or letters) for both games.
    const pieces = theme.pieces || settings.labels || DEFAULT_THEME.pieces;
    settings.themes[game] = { ...DEFAULT_THEME, ...theme, pieces };
  }
  delete settings.labels;
  return settings;
}

/** The board and piece set chosen for `game` ("xiangqi" or "janggi").
 * @param {Settings} settings @param {string} game @returns {Theme} */
export function themeOf(settings, game) {
  return (settings.themes && settings.themes[game]) || { ...DEFAULT_THEME };
}

/** The settings panel's board and piece set choices show `game`'s (the game page calls
 * this for its game).
 * @param {Settings} settings @param {string} game */
export function syncThemeSettings(settings, game) {
  const chooser = /** @type {HTMLSelectElement | null} */ (document.getElementById("set-theme-game"));
  if (!chooser) return;
  const theme = themeOf(settings, game);
  chooser.value = game;
  // (the page has the three choices together)
  /** @type {HTMLSelectElement} */ (document.getElementById("set-board")).value = theme.board;
  /** @type {HTMLSelectElement} */ (document.getElementById("set-pieces")).value = theme.pieces;
}

/** @param {Settings} settings */
export function saveSettings(settings) {
  write(SETTINGS_KEY, settings);
}

/** My seats: [{game_id, token, seat, invite_url?, watch_url?, saved_ms}], newest first.
 * @returns {SavedGame[]} */
export function myGames() {
  const games = read(GAMES_KEY, []);
  return Array.isArray(games) ? games.filter((g) => g && g.game_id && g.token) : [];
}

/** Keep a seat (first in the list), over what was kept of it.
 * @param {SavedGame} entry */
export function rememberGame(entry) {
  const games = myGames().filter((g) => g.token !== entry.token);
  const previous = myGames().find((g) => g.token === entry.token) || {};
  games.unshift({ ...previous, ...entry, saved_ms: Date.now() });
  write(GAMES_KEY, games.slice(0, MAX_GAMES));
}

/** The seat this browser keeps in a game (the newest, if it keeps both).
 * @param {string} gameId @returns {string | null} */
export function seatToken(gameId) {
  const entry = myGames().find((g) => g.game_id === gameId);
  return entry ? entry.token : null;
}

/** @param {string} token @returns {SavedGame | null} */
export function gameEntry(token) {
  return myGames().find((g) => g.token === token) || null;
}
