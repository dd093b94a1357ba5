// @ts-check
// The opening explorer's panel on the analysis board: the moves masters played from the
// board's position (GET /api/explorer), each with its games, Red wins / draws / Black wins
// as a bar and the average year; a click on a move plays it, a click on a game opens it at
// the ply where it reached the position (/analysis?master=ID&ply=N). While the server
// builds the masters' index the panel says how far it has gone and asks again. The source
// may be this server's own games instead (source=site; a janggi board starts there).
// The panel names the position's ECCO opening, and its search form finds master games by
// player, event, year, result, ECCO and this position (GET /api/explorer/search); a hit
// opens in the analysis board as a game of the list does.

import { $, make } from "./dom.js";
import { language } from "./i18n.js";

const DEBOUNCE_MS = 150; // stepping through moves asks once, at the end
const BUILDING_RETRY_MS = 2000;
const MOVES_SHOWN = 12;

/** @typedef {{code: string, name_zh: string, name_zh_hant: string, name_en: string}} EccoOpening */
/** @typedef {{id: number, red: string, black: string, event: string, date: string,
 *   year: number | null, result: string, ecco: string, opening: string, ply: number | null,
 *   origin: string, ecco_opening?: EccoOpening | null}} MasterGame */
/** @typedef {{iccs: string, wxf: string, chinese: string, games: number, red_wins: number,
 *   draws: number, black_wins: number, average_year: number | null, top_games: MasterGame[]}} ExplorerMove */
/** @typedef {{source: string, variant: string, credit: string, note?: string, unavailable?: string,
 *   opening?: EccoOpening | null,
 *   building?: {state: string, done: number, total: number},
 *   games?: number, red_wins?: number, draws?: number, black_wins?: number,
 *   moves?: ExplorerMove[], top_games?: MasterGame[], ended_here?: number}} ExplorerAnswer */

/** @type {Record<string, Record<string, string>>} */
const STRINGS = {
  en: {
    title: "Opening explorer", masters: "Masters", site: "This server",
    noSiteGames: "No game of this server reached this position.",
    games: "{n} games", move: "Move", gamesHead: "Games", yearHead: "Year",
    building: "Building the masters' index: {done} of {total} files…",
    buildingStart: "Building the masters' index…",
    noGames: "No master game reached this position.", topGames: "Master games",
    failed: "The explorer is unavailable: {reason}", asking: "Looking up the masters…",
    barTitle: "Red wins {red} · draws {draws} · Black wins {black}",
    search: "Search master games", player: "Player", event: "Event",
    year: "Year: 1985 or 1980-1989", anyResult: "Any result", ecco: "ECCO: C, C7, C70",
    here: "reached this position", go: "Search", found: "{n} games found",
    searching: "Searching…",
  },
  "zh-Hans": {
    title: "开局库", masters: "大师对局", site: "本站对局",
    noSiteGames: "本站没有对局走到这个局面。",
    games: "{n} 局", move: "着法", gamesHead: "局数", yearHead: "年份",
    building: "正在建立大师棋谱索引：{done} / {total} 个文件……",
    buildingStart: "正在建立大师棋谱索引……",
    noGames: "没有大师对局走到这个局面。", topGames: "大师对局",
    failed: "开局库不可用：{reason}", asking: "正在查询大师对局……",
    barTitle: "红胜 {red} · 和 {draws} · 黑胜 {black}",
    search: "搜索大师对局", player: "棋手", event: "赛事", year: "年份：1985 或 1980-1989",
    anyResult: "任何结果", ecco: "ECCO：C、C7、C70", here: "走到这个局面", go: "搜索",
    found: "找到 {n} 局", searching: "正在搜索……",
  },
  "zh-Hant": {
    title: "開局庫", masters: "大師對局", site: "本站對局",
    noSiteGames: "本站沒有對局走到這個局面。",
    games: "{n} 局", move: "著法", gamesHead: "局數", yearHead: "年份",
    building: "正在建立大師棋譜索引：{done} / {total} 個檔案……",
    buildingStart: "正在建立大師棋譜索引……",
    noGames: "沒有大師對局走到這個局面。", topGames: "大師對局",
    failed: "開局庫無法使用：{reason}", asking: "正在查詢大師對局……",
    barTitle: "紅勝 {red} · 和 {draws} · 黑勝 {black}",
    search: "搜尋大師對局", player: "棋手", event: "賽事", year: "年份：1985 或 1980-1989",
    anyResult: "任何結果", ecco: "ECCO：C、C7、C70", here: "走到這個局面", go: "搜尋",
    found: "找到 {n} 局", searching: "正在搜尋……",
  },
  ko: {
    title: "오프닝 탐색기", masters: "명인 대국", site: "이 서버의 대국",
    noSiteGames: "이 국면에 이른 이 서버의 대국이 없습니다.",
    games: "{n}국", move: "수", gamesHead: "대국 수", yearHead: "연도",
    building: "명인 기보 색인을 만드는 중: {done} / {total} 파일…",
    buildingStart: "명인 기보 색인을 만드는 중…",
    noGames: "이 국면에 이른 명인 대국이 없습니다.", topGames: "명인 대국",
    failed: "오프닝 탐색기를 쓸 수 없습니다: {reason}", asking: "명인 대국을 찾는 중…",
    barTitle: "홍 승 {red} · 무승부 {draws} · 흑 승 {black}",
    search: "명인 대국 검색", player: "기사", event: "대회", year: "연도: 1985 또는 1980-1989",
    anyResult: "모든 결과", ecco: "ECCO: C, C7, C70", here: "이 국면에 이른 대국", go: "검색",
    found: "{n}국 찾음", searching: "검색 중…",
  },
};

/** @param {string} key @param {Record<string, unknown>} [params] @returns {string} */
function say(key, params = {}) {
  const table = STRINGS[language()] || STRINGS.en;
  const text = table[key] ?? STRINGS.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => String(params[name] ?? ""));
}

/** An ECCO opening as the page's language names it: "C50 五六炮对屏风马", in zh-Hant
 * "C50 五六炮對屏風馬".
 * @param {EccoOpening | null | undefined} opening @returns {string} */
export function openingName(opening) {
  if (!opening) return "";
  const lang = language();
  const name =
    lang === "zh-Hant" ? opening.name_zh_hant : lang.startsWith("zh") ? opening.name_zh : opening.name_en;
  return `${opening.code} ${name}`;
}

/** @param {number} part @param {number} whole @returns {string} */
function percent(part, whole) {
  return whole ? `${Math.round((part / whole) * 100)}%` : "0%";
}

export class ExplorerPanel {
  /** @param {{onMove: (iccs: string) => void,
   *   onGame: (game: MasterGame, source: string) => void}} actions */
  constructor(actions) {
    this.actions = actions;
    /** @type {Map<string, ExplorerAnswer>} answers by "variant fen" */
    this.answers = new Map();
    this.wanted = "";
    /** @type {string | null} the source chosen, else masters (site for janggi) */
    this.chosen = null;
    this.source = "masters";
    this.variant = "xiangqi";
    this.notation = "chinese";
    /** @type {string} the position shown */
    this.fen = "";
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.timer = undefined;
    const menu = $("explorer-source");
    menu.addEventListener("change", () => this.choose(menu.value));
    const form = /** @type {HTMLFormElement} */ ($("explorer-search-form"));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.search(form);
    });
    this.labelSearch(form);
  }

  /** The search form's words in the page's language.
   * @param {HTMLFormElement} form */
  labelSearch(form) {
    $("explorer-search-title").textContent = say("search");
    $("explorer-search-here-label").textContent = say("here");
    $("explorer-search-go").textContent = say("go");
    for (const name of ["player", "event", "year", "ecco"]) {
      const field = /** @type {HTMLInputElement} */ (form.elements.namedItem(name));
      field.placeholder = say(name);
      field.setAttribute("aria-label", say(name));
    }
    const result = /** @type {HTMLSelectElement} */ (form.elements.namedItem("result"));
    result.options[0].textContent = say("anyResult");
  }

  /** Ask the server for the master games the form describes; list them, each opening
   * in the analysis board.
   * @param {HTMLFormElement} form */
  async search(form) {
    const data = new FormData(form);
    const query = new URLSearchParams();
    for (const name of ["player", "event", "year", "result", "ecco"]) {
      const value = String(data.get(name) || "").trim();
      if (value) query.set(name, value);
    }
    if (data.get("here") && this.fen) query.set("fen", this.fen);
    const status = $("explorer-search-status");
    const list = $("explorer-search-games");
    status.textContent = say("searching");
    list.replaceChildren();
    let answer;
    try {
      const response = await fetch(`/api/explorer/search?${query}`);
      answer = await response.json();
      if (!response.ok) throw new Error(answer.error ? answer.error.message : response.statusText);
    } catch (error) {
      status.textContent = say("failed", { reason: error instanceof Error ? error.message : String(error) });
      return;
    }
    status.textContent = say("found", { n: answer.total.toLocaleString() });
    for (const game of /** @type {MasterGame[]} */ (answer.games)) {
      list.appendChild(this.gameItem(game, "masters"));
    }
  }

  /** A game of a list, a button that opens it.
   * @param {MasterGame} game @param {string} source */
  gameItem(game, source) {
    const item = make("li");
    const link = make("button", "explorer-game");
    link.type = "button";
    link.dataset.id = String(game.id);
    link.appendChild(make("span", "explorer-players", `${game.red} – ${game.black}`));
    link.appendChild(make("span", "explorer-result", game.result));
    link.appendChild(make("span", "muted",
      [game.year, game.event, openingName(game.ecco_opening)].filter(Boolean).join(" · ")));
    link.addEventListener("click", () => this.actions.onGame(game, source));
    item.appendChild(link);
    return item;
  }

  /** Show the moves from the position `fen` (asked of the server once per position).
   * @param {string} variant @param {string} fen @param {string} notation */
  show(variant, fen, notation) {
    this.source = this.chosen || (variant === "janggi" ? "site" : "masters");
    const key = `${this.source} ${variant} ${fen}`;
    const changed = key !== this.wanted || notation !== this.notation;
    this.variant = variant;
    this.notation = notation;
    if (!changed) return;
    this.wanted = key;
    this.fen = fen;
    const known = this.answers.get(key);
    if (known) {
      this.render(known);
      return;
    }
    $("explorer-status").textContent = say("asking");
    clearTimeout(this.timer);
    const source = this.source;
    this.timer = setTimeout(() => this.ask(source, variant, fen), DEBOUNCE_MS);
  }

  /** The source chosen in the panel's menu: asked again at once.
   * @param {string} source */
  choose(source) {
    this.chosen = source;
    const fen = this.fen;
    this.wanted = "";
    if (fen) this.show(this.variant, fen, this.notation);
  }

  /** @param {string} source @param {string} variant @param {string} fen */
  async ask(source, variant, fen) {
    const key = `${source} ${variant} ${fen}`;
    /** @type {ExplorerAnswer} */
    let answer;
    try {
      const response = await fetch(`/api/explorer?${new URLSearchParams({ source, variant, fen })}`);
      const body = await response.json();
      if (!response.ok) {
        if (key === this.wanted) this.fail(body.error ? body.error.message : response.statusText);
        return;
      }
      answer = body;
    } catch (error) {
      if (key === this.wanted) this.fail(String(error));
      return;
    }
    if (answer.building) {
      // Not kept: asked again until the index is built, while the position is still shown.
      setTimeout(() => { if (key === this.wanted) this.ask(source, variant, fen); }, BUILDING_RETRY_MS);
    } else {
      this.answers.set(key, answer);
    }
    if (key === this.wanted) this.render(answer);
  }

  /** @param {string} reason */
  fail(reason) {
    $("explorer-status").textContent = say("failed", { reason });
    $("explorer-moves").replaceChildren();
    $("explorer-games").replaceChildren();
  }

  /** @param {ExplorerAnswer} answer */
  render(answer) {
    $("explorer-title").textContent = say("title");
    const menu = $("explorer-source");
    menu.value = this.source;
    for (const option of menu.options) option.textContent = say(option.value);
    const status = $("explorer-status");
    const table = $("explorer-moves");
    const list = $("explorer-games");
    table.replaceChildren();
    list.replaceChildren();
    list.setAttribute("aria-label", say("topGames"));
    $("explorer-total").textContent = "";
    $("explorer-credit").textContent = answer.credit || "";
    $("explorer-opening").textContent = openingName(answer.opening);
    if (answer.note) {
      status.textContent = answer.note;
      return;
    }
    if (answer.unavailable) {
      status.textContent = say("failed", { reason: answer.unavailable });
      return;
    }
    if (answer.building) {
      const { done, total } = answer.building;
      status.textContent = total ? say("building", { done: done.toLocaleString(), total: total.toLocaleString() })
        : say("buildingStart");
      return;
    }
    const moves = answer.moves || [];
    const games = answer.games || 0;
    status.textContent = games ? "" : say(this.source === "site" ? "noSiteGames" : "noGames");
    if (!games) return;
    $("explorer-total").textContent = say("games", { n: games.toLocaleString() });
    const head = make("tr");
    for (const text of [say("move"), say("gamesHead"), "", say("yearHead")]) head.appendChild(make("th", null, text));
    table.appendChild(head);
    for (const move of moves.slice(0, MOVES_SHOWN)) {
      const row = make("tr", "explorer-move");
      row.dataset.iccs = move.iccs;
      const cell = make("td");
      const button = make("button", "explorer-play", /** @type {Record<string, any>} */ (move)[this.notation] || move.chinese);
      button.type = "button";
      button.addEventListener("click", () => this.actions.onMove(move.iccs));
      cell.appendChild(button);
      row.appendChild(cell);
      row.appendChild(make("td", "explorer-count", move.games.toLocaleString()));
      const bar = make("td");
      bar.appendChild(this.bar(move.red_wins, move.draws, move.black_wins));
      row.appendChild(bar);
      row.appendChild(make("td", "explorer-year", move.average_year === null ? "" : Math.round(move.average_year)));
      table.appendChild(row);
    }
    for (const game of answer.top_games || []) list.appendChild(this.gameItem(game, this.source));
  }

  /** Red wins / draws / Black wins of a move's games, as one bar.
   * @param {number} red @param {number} draws @param {number} black */
  bar(red, draws, black) {
    const whole = red + draws + black;
    const bar = make("div", "explorer-bar");
    bar.title = say("barTitle", { red, draws, black });
    for (const [part, name] of /** @type {[number, string][]} */ ([[red, "red"], [draws, "draw"], [black, "black"]])) {
      const piece = make("span", `explorer-${name}`);
      piece.style.width = percent(part, whole);
      if (part / (whole || 1) >= 0.15) piece.textContent = percent(part, whole);
      bar.appendChild(piece);
    }
    return bar;
  }
}

