// Settings and my games, kept in localStorage.

const SETTINGS_KEY = "chuhan.settings";
const GAMES_KEY = "chuhan.games";
const MAX_GAMES = 200; // the server lists at most 200 tokens

const DEFAULTS = {
  language: null, // null: follow navigator.language
  labels: "chinese",
  notation: null, // null: follow the language and the game
  sound: true,
  touchMove: false,
};

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
  return { ...DEFAULTS, ...read(SETTINGS_KEY, {}) };
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
