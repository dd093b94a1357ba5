// @ts-check
// The entry point: the settings panel in the top bar, and the router. "/" is the home page
// (home.js); "/g/{id}" plays a game with the seat this browser keeps (a seat link,
// "/g/{id}?t={token}", keeps its seat here and leaves the address bar) and "/w/{id}" watches or replays one
// (game-view.js); "/p/{name}" is a player's page (account.js); "/puzzles" and
// "/puzzles/{id}" are the puzzles (puzzles.js); "/analysis" is the analysis board
// (analysis.js); "/t/{id}" is a tournament's page (tournaments.js).

import { AnalysisBoard } from "./analysis.js";
import { refreshAccountTexts, showLeaderboards, showPlayer, startAccount, watchGameRating } from "./account.js";
import { loadOptions } from "./api.js";
import { rememberArena } from "./berserk.js";
import { $, make, show, toast } from "./dom.js";
import { GameView } from "./game-view.js";
import { refreshHome, startHome } from "./home.js";
import { refreshLobbyTexts, startLobby } from "./lobby.js";
import { startPuzzles } from "./puzzles.js";
import { refreshTournamentTexts, showTournament, startTournaments } from "./tournaments.js";
import { refreshYourGamesTexts, showYourGames } from "./your-games.js";
import { LANGUAGES, detectLanguage, language, notationFor, setLanguage, t, translatePage } from "./i18n.js";
import { loadSettings, rememberGame, saveSettings, seatToken, syncThemeSettings, themeOf } from "./settings.js";
import { setSoundEnabled } from "./sound.js";
import { setNotify, startTurnSignals } from "./turn-signal.js";

const settings = loadSettings();
/** @type {GameView | AnalysisBoard | import("./puzzles.js").PuzzleView | null} the page's
 * controller, on a game, puzzle or analysis page */
let view = null;

function setUpSettings() {
  const select = $("set-language");
  for (const [code, name] of Object.entries(LANGUAGES)) {
    const option = make("option", null, name);
    option.value = code;
    select.appendChild(option);
  }
  select.value = language();
  select.addEventListener("change", () => {
    settings.language = select.value;
    saveSettings(settings);
    setLanguage(select.value);
    refreshTexts();
  });
  setUpThemes();
  const notation = $("set-notation");
  notation.addEventListener("change", () => {
    settings.notation = notation.value;
    saveSettings(settings);
    if (view) view.render();
  });
  const sound = $("set-sound");
  sound.checked = settings.sound;
  setSoundEnabled(settings.sound);
  sound.addEventListener("change", () => {
    settings.sound = sound.checked;
    setSoundEnabled(sound.checked);
    saveSettings(settings);
  });
  const notify = $("set-notify");
  notify.checked = settings.notify;
  setNotify(settings.notify).catch(() => {});
  notify.addEventListener("change", async () => {
    settings.notify = notify.checked;
    saveSettings(settings);
    let allowed = false;
    try {
      allowed = await setNotify(notify.checked);
    } catch {
      allowed = false;
    }
    if (notify.checked && !allowed) toast(t("notifyBlocked"));
  });
  startTurnSignals();
  const touchMove = $("set-touch-move");
  touchMove.checked = settings.touchMove;
  touchMove.addEventListener("change", () => {
    settings.touchMove = touchMove.checked;
    saveSettings(settings);
    if (view) view.render();
  });
  const animation = $("set-animation");
  animation.checked = settings.animation;
  animation.addEventListener("change", () => {
    settings.animation = animation.checked;
    saveSettings(settings);
    if (view) view.render();
  });
  document.addEventListener("click", (event) => {
    const panel = $("settings");
    if (panel.open && !panel.contains(event.target)) panel.open = false;
  });
}

// Each game keeps its own board and piece set. The two choices edit the game named in
// "Board and pieces for": on a game page that game (syncThemeSettings), else the one picked.
function setUpThemes() {
  const game = $("set-theme-game");
  const board = $("set-board");
  const pieces = $("set-pieces");
  const choose = (/** @type {"board" | "pieces"} */ key, /** @type {string} */ value) => {
    settings.themes[game.value] = { ...themeOf(settings, game.value), [key]: value };
    saveSettings(settings);
    if (view) view.render();
  };
  game.addEventListener("change", () => syncThemeSettings(settings, game.value));
  board.addEventListener("change", () => choose("board", board.value));
  pieces.addEventListener("change", () => choose("pieces", pieces.value));
  syncThemeSettings(settings, "xiangqi");
}

function refreshTexts() {
  translatePage();
  document.title = t("title");
  $("set-notation").value = notationFor(settings.notation, view ? view.game() : "xiangqi");
  if (view) view.render();
  else refreshHome();
  refreshAccountTexts();
  refreshLobbyTexts();
  refreshTournamentTexts();
  refreshYourGamesTexts();
}

function route() {
  const path = location.pathname;
  const playMatch = path.match(/^\/g\/([A-Za-z0-9_-]+)\/?$/);
  const watchMatch = path.match(/^\/w\/([A-Za-z0-9_-]+)\/?$/);
  const playerMatch = path.match(/^\/p\/([^/]+)\/?$/);
  const puzzleMatch = path.match(/^\/puzzles(?:\/([A-Za-z0-9_-]+))?\/?$/);
  const tournamentMatch = path.match(/^\/t\/([A-Za-z0-9_-]+)\/?$/);
  if (playMatch || watchMatch) {
    // The game page needs the options only for the invite links and the analysis button.
    loadOptions().then(() => {
      if (view) view.render();
    }).catch(() => {});
  }
  if (playMatch) {
    // A seat link's token is kept in this browser and taken out of the address bar, so the
    // address a player copies or shares is a spectator's; the page finds its seat again here.
    const query = new URLSearchParams(location.search);
    let token = query.get("t");
    const arena = query.get("arena");
    if (arena) rememberArena(playMatch[1], arena);
    if (token) {
      rememberGame({ game_id: playMatch[1], token });
      history.replaceState(null, "", `/g/${playMatch[1]}${location.hash}`);
    } else {
      token = seatToken(playMatch[1]);
    }
    show($("game"), true);
    view = new GameView(playMatch[1], token, !token, settings);
    watchGameRating(playMatch[1]);
  } else if (watchMatch) {
    show($("game"), true);
    view = new GameView(watchMatch[1], null, true, settings);
    watchGameRating(watchMatch[1]);
  } else if (puzzleMatch) {
    view = startPuzzles(puzzleMatch[1] || null, settings);
  } else if (tournamentMatch) {
    showTournament(tournamentMatch[1]);
  } else if (playerMatch) {
    showPlayer(decodeURIComponent(playerMatch[1]));
  } else if (/^\/games\/?$/.test(path)) {
    showYourGames();
  } else if (/^\/analysis\/?$/.test(path)) {
    show($("analysis-page"), true);
    view = new AnalysisBoard(settings);
  } else {
    startHome();
    startLobby();
    startTournaments();
    showLeaderboards();
  }
}

function start() {
  setLanguage(settings.language || detectLanguage(navigator.language));
  setUpSettings();
  startAccount();
  translatePage();
  document.title = t("title");
  $("set-notation").value = notationFor(settings.notation, "xiangqi");
  route();
  // For the browser tests' diagnostics:
  /** @type {Window & {chuhanApp?: {readonly view: typeof view}}} */ (window).chuhanApp = { get view() { return view; } };
}

start();
