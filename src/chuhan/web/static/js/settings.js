// Settings and my games, kept in localStorage.

const SETTINGS_KEY = "chuhan.settings";
const GAMES_KEY = "chuhan.games";
const MAX_GAMES = 200; // the server lists at most 200 tokens

const DEFAULTS = {
  language: null, // null: follow navigator.language
  notation: null, // null: follow the language and the game
  sound: true,
  touchMove: false,
  animation: true, // slide the pieces (the system's "reduce motion" turns it off too)
  themes: {}, // each game's own: {xiangqi: {board, pieces}, janggi: {board, pieces}}
};
const GAMES = ["xiangqi", "janggi"];
const DEFAULT_THEME = { board: "wood", pieces: "chinese" };

function read(key, fallback) {
  try {
    const raw = localStorage.getItem(key);
    return raw ? JSON.parse(raw) : fallback;
  } catch {
    return fallback;
  }
}

function write(key, value) {
  try {
    localStorage.setItem(key, JSON.stringify(value));
  } catch {
    // Private windows may refuse storage: settings then last for this page only.
  }
}

export function loadSettings() {
  const stored = read(SETTINGS_KEY, {});
  const settings = { ...DEFAULTS, ...(stored && typeof stored === "object" ? stored : {}) };
  const themes = settings.themes && typeof settings.themes === "object" ? settings.themes : {};
  settings.themes = {};
  for (const game of GAMES) {
    const theme = themes[game] && typeof themes[game] === "object" ? themes[game] : {};
    // Settings saved before the themes had one `labels` (chinese or letters) for both games.
    const pieces = theme.pieces || settings.labels || DEFAULT_THEME.pieces;
    settings.themes[game] = { ...DEFAULT_THEME, ...theme, pieces };
  }
  delete settings.labels;
  return settings;
}

/** The board and piece set chosen for `game` ("xiangqi" or "janggi"). */
export function themeOf(settings, game) {
  return (settings.themes && settings.themes[game]) || { ...DEFAULT_THEME };
}

/** The settings panel's board and piece set choices show `game`'s (the game page calls
 * this for its game). */
export function syncThemeSettings(settings, game) {
  const chooser = document.getElementById("set-theme-game");
  if (!chooser) return;
  const theme = themeOf(settings, game);
  chooser.value = game;
  document.getElementById("set-board").value = theme.board;
  document.getElementById("set-pieces").value = theme.pieces;
}

export function saveSettings(settings) {
  write(SETTINGS_KEY, settings);
}

/** My seats: [{game_id, token, seat, invite_url?, watch_url?, saved_ms}], newest first. */
export function myGames() {
  const games = read(GAMES_KEY, []);
  return Array.isArray(games) ? games.filter((g) => g && g.game_id && g.token) : [];
}

export function rememberGame(entry) {
  const games = myGames().filter((g) => g.token !== entry.token);
  const previous = myGames().find((g) => g.token === entry.token) || {};
  games.unshift({ ...previous, ...entry, saved_ms: Date.now() });
  write(GAMES_KEY, games.slice(0, MAX_GAMES));
}

export function gameEntry(token) {
  return myGames().find((g) => g.token === token) || null;
}
