// @ts-check
// Accounts and ratings in the page: the account menu in the top bar (sign up, sign in and
// out, a new password, deleting the account), the rating of a rated game on its page, a
// player's page ("/p/{name}") and the leaderboards on the home page. The session is an
// HttpOnly cookie the server sets: this code never sees it, it asks GET /api/account.

import * as api from "./api.js";
import { $, clear, make, show, toast } from "./dom.js";
import { language, t } from "./i18n.js";

/** @typedef {import("./protocol.js").Account} Account */

/** @type {Account | null} {name, ratings} once known, null when signed out */
let account = null;
/** @type {Promise<void> | null} the promise of the first answer */
let accountKnown = null;
/** @type {((account: Account | null) => void)[]} called when the account changes (the
 * new-game form) */
const listeners = [];
/** @type {(() => void)[]} what to draw again when the language changes */
const redraws = [];

/** The signed-in account ({name, ratings}) or null.
 * @returns {Account | null} */
export function currentAccount() {
  return account;
}

/** Call `listener(account)` whenever someone signs in or out.
 * @param {(account: Account | null) => void} listener */
export function onAccountChange(listener) {
  listeners.push(listener);
}

/** @param {Account | null} found @param {{closeMenu?: boolean}} how */
function setAccount(found, { closeMenu = true } = {}) {
  account = found;
  const menu = $("account");
  if (menu && closeMenu) menu.open = false;
  // (the first answer leaves a menu drawn for the same state alone: what is typed stays)
  if (closeMenu || drawnAs !== (account ? account.name : "")) drawMenu();
  for (const listener of listeners) listener(account);
}

// The tabs of one browser share its session cookie: when one signs in or out, it tells the
// others, which ask the server who is signed in now (a tab never takes another's word for
// it). A sign-out elsewhere (another browser, a new password, the account deleted) ends
// the session on the server, which closes its sockets: a page whose socket's welcome names
// another player than the menu asks the same way (checkAccount).
const CHANNEL = "chuhan.account";
/** @type {BroadcastChannel | null} */
const tabs = typeof BroadcastChannel === "function" ? new BroadcastChannel(CHANNEL) : null;
if (tabs) tabs.onmessage = () => { checkAccount(); };

/** Someone signed in, up or out in this tab: the page follows, and the other tabs are told.
 * @param {Account | null} found */
function changeAccount(found) {
  setAccount(found);
  if (tabs) tabs.postMessage(found ? found.name : "");
}

/** Ask the server again who is signed in, and follow its answer if it names someone else
 * than the page shows (another tab or browser signed in or out). A failed question changes
 * nothing: the next socket welcome asks again.
 * @returns {Promise<void>} */
export async function checkAccount() {
  let found;
  try {
    found = await api.currentAccount();
  } catch {
    return;
  }
  if ((found ? found.name : "") !== (account ? account.name : "")) {
    setAccount(found, { closeMenu: false });
  }
}

/** A labelled input of the account's forms.
 * @param {string} id @param {string} type @param {string} labelKey @param {string} autocomplete
 * @returns {HTMLLabelElement} */
function field(id, type, labelKey, autocomplete) {
  const label = make("label");
  label.appendChild(make("span", null, t(labelKey)));
  const input = make("input");
  input.id = id;
  input.type = type;
  input.autocomplete = autocomplete;
  input.spellcheck = false;
  label.appendChild(input);
  return label;
}

/** @param {string} id @returns {HTMLParagraphElement} */
function errorLine(id) {
  const line = make("p", "form-error");
  line.id = id;
  line.hidden = true;
  return line;
}

/** @param {string} id @param {unknown} err what the request threw (api.js: an Error) */
function showError(id, err) {
  const line = $(id);
  line.textContent = t("error", { message: /** @type {Error} */ (err).message });
  show(line, true);
}

/** Do `work` with `button` disabled meanwhile; an error is shown in the line `errorId`.
 * @param {HTMLButtonElement} button @param {string} errorId @param {() => Promise<void>} work */
async function run(button, errorId, work) {
  if (button.disabled) return;
  button.disabled = true;
  show($(errorId), false);
  try {
    await work();
  } catch (err) {
    showError(errorId, err);
  } finally {
    button.disabled = false;
  }
}

/** @param {HTMLElement} body */
function signedOutBody(body) {
  const form = make("form", "account-form");
  form.id = "account-form";
  form.append(
    field("account-name", "text", "accountName", "username"),
    field("account-password", "password", "accountPassword", "current-password"),
  );
  const buttons = make("div", "account-buttons");
  const signIn = make("button", "primary", t("signIn"));
  signIn.id = "account-signin";
  signIn.type = "submit";
  const signUp = make("button", null, t("signUp"));
  signUp.id = "account-signup";
  signUp.type = "button";
  buttons.append(signIn, signUp);
  form.append(buttons, errorLine("account-error"));
  const credentials = () => ({ name: $("account-name").value.trim(), password: $("account-password").value });
  form.addEventListener("submit", (/** @type {SubmitEvent} */ event) => {
    event.preventDefault();
    run(signIn, "account-error", async () => changeAccount((await api.signIn(credentials())).account));
  });
  signUp.addEventListener("click", () => {
    run(signUp, "account-error", async () => changeAccount((await api.signUp(credentials())).account));
  });
  body.appendChild(form);
}

/** @param {HTMLElement} body */
function signedInBody(body) {
  if (!account) return; // (drawMenu draws this for an account only)
  const name = account.name;
  const profile = make("a", null, t("myProfile"));
  profile.id = "account-profile";
  profile.href = `/p/${encodeURIComponent(name)}`;
  const signOut = make("button", null, t("signOut"));
  signOut.id = "account-signout";
  signOut.type = "button";
  signOut.addEventListener("click", () => {
    run(signOut, "account-error", async () => {
      await api.signOut();
      changeAccount(null);
    });
  });
  const yours = make("a", null, t("yourGames"));
  yours.id = "account-your-games";
  yours.href = "/games";
  body.append(profile, yours, signOut, errorLine("account-error"));

  const password = make("details", "account-more");
  password.appendChild(make("summary", null, t("changePassword")));
  const current = field("password-current", "password", "currentPassword", "current-password");
  const next = field("password-new", "password", "newPassword", "new-password");
  const change = make("button", null, t("changePassword"));
  change.id = "password-change";
  change.type = "button";
  change.addEventListener("click", () => {
    run(change, "password-error", async () => {
      await api.changePassword($("password-current").value, $("password-new").value);
      toast(t("passwordChanged"));
      password.open = false;
    });
  });
  password.append(current, next, change, errorLine("password-error"));

  const remove = make("details", "account-more");
  remove.appendChild(make("summary", null, t("deleteAccount")));
  const check = field("delete-password", "password", "currentPassword", "current-password");
  const confirmButton = make("button", "danger", t("deleteAccount"));
  confirmButton.id = "account-delete";
  confirmButton.type = "button";
  confirmButton.addEventListener("click", () => {
    if (!confirm(t("deleteConfirm", { name }))) return;
    run(confirmButton, "delete-error", async () => {
      await api.deleteAccount($("delete-password").value);
      toast(t("accountDeleted"));
      changeAccount(null);
    });
  });
  remove.append(check, confirmButton, errorLine("delete-error"));
  body.append(password, noticesForm(), remove);
}

/** The e-mail notices: an address and the digest, read when the section is opened.
 * @returns {HTMLDetailsElement} */
function noticesForm() {
  const notices = /** @type {HTMLDetailsElement} */ (make("details", "account-more"));
  notices.id = "account-notices";
  notices.appendChild(make("summary", null, t("mailNotices")));
  const address = field("notice-email", "email", "mailAddress", "email");
  const digestLabel = make("label", "checkbox-line");
  const digest = make("input");
  digest.id = "notice-digest";
  digest.type = "checkbox";
  digestLabel.append(digest, make("span", null, t("mailDigest")));
  const save = make("button", null, t("saveNotices"));
  save.id = "notice-save";
  save.type = "button";
  save.addEventListener("click", () => {
    run(save, "notice-error", async () => {
      const email = $("notice-email").value.trim();
      const digest = $("notice-digest").checked;
      showNotices(await api.saveNoticeSettings(email || null, digest, language()));
      toast(t("noticesSaved"));
    });
  });
  notices.addEventListener("toggle", () => {
    if (!notices.open || save.disabled) return;
    // The fields wait for the saved settings: what is typed before they arrive would be
    // overwritten by them (and the save would then send the old address).
    const inputs = [$("notice-email"), $("notice-digest")];
    for (const input of inputs) input.disabled = true;
    run(save, "notice-error", async () => {
      try {
        showNotices(await api.noticeSettings());
      } finally {
        for (const input of inputs) input.disabled = false;
      }
    });
  });
  const unconfirmed = make("p", null, t("mailUnconfirmed"));
  unconfirmed.id = "notice-unconfirmed";
  unconfirmed.hidden = true;
  notices.append(address, digestLabel, unconfirmed, save, errorLine("notice-error"));
  notices.append(...pushSettings());
  registerWorker();
  return notices;
}

/** The push setting: whether the account is pushed its turns (to how many browsers), and
 * the buttons that subscribe this browser through the Push API or stop the pushes.
 * @returns {HTMLElement[]} */
function pushSettings() {
  const state = make("p", null, t("pushOff"));
  state.id = "notice-push-state";
  const on = make("button", null, t("pushOn"));
  on.id = "notice-push-on";
  on.type = "button";
  on.addEventListener("click", () => {
    run(on, "notice-push-error", async () => {
      showNotices(await subscribePush());
      toast(t("noticesSaved"));
    });
  });
  const off = make("button", null, t("pushStop"));
  off.id = "notice-push-off";
  off.type = "button";
  off.addEventListener("click", () => {
    run(off, "notice-push-error", async () => {
      const registration = await workerRegistration();
      const subscription = registration ? await registration.pushManager.getSubscription() : null;
      if (subscription) await subscription.unsubscribe();
      showNotices(await api.removePush(subscription ? subscription.endpoint : null));
    });
  });
  return [make("h4", null, t("pushNotices")), state, on, off, errorLine("notice-push-error")];
}

/** @type {Promise<ServiceWorkerRegistration | null> | null} the worker's registration */
let registering = null;

/** Register the service worker (/sw.js: it shows the pushes' notifications) once a page.
 * @returns {Promise<ServiceWorkerRegistration | null>} null where the browser has none */
function registerWorker() {
  if (!registering) {
    registering =
      "serviceWorker" in navigator
        ? navigator.serviceWorker.register("/sw.js").catch(() => null)
        : Promise.resolve(null);
  }
  return registering;
}

/** @returns {Promise<ServiceWorkerRegistration | null>} */
async function workerRegistration() {
  return registerWorker();
}

/** Subscribe this browser to the server's pushes; an Error saying why it could not.
 * @returns {Promise<import("./api.js").NoticeSettings>} */
async function subscribePush() {
  const registration = await registerWorker();
  if (!registration || !("PushManager" in window) || !("Notification" in window)) {
    throw new Error(t("pushUnsupported"));
  }
  const permission = await Notification.requestPermission();
  if (permission !== "granted") throw new Error(t("pushDenied"));
  const { key } = await api.pushKey();
  /** @type {PushSubscription} */
  let subscription;
  try {
    await navigator.serviceWorker.ready;
    subscription = await registration.pushManager.subscribe({
      userVisibleOnly: true,
      applicationServerKey: base64UrlBytes(key),
    });
  } catch (err) {
    throw new Error(t("pushFailed", { reason: /** @type {Error} */ (err).message || String(err) }));
  }
  return api.savePush(subscription.toJSON(), language());
}

/** @param {string} text base64url @returns {Uint8Array} */
function base64UrlBytes(text) {
  const plain = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4));
  return Uint8Array.from(plain, (c) => c.charCodeAt(0));
}

/** @param {import("./api.js").NoticeSettings} found */
function showNotices(found) {
  $("notice-email").value = found.email || "";
  $("notice-digest").checked = found.digest;
  show($("notice-unconfirmed"), Boolean(found.email) && !found.confirmed);
  $("notice-push-state").textContent = found.push
    ? t("pushIsOn", { count: found.devices })
    : t("pushOff");
}

/** @type {string | null} the account name ("" signed out) the menu was drawn for */
let drawnAs = null;

function drawMenu() {
  const menu = $("account");
  if (!menu) return;
  drawnAs = account ? account.name : "";
  const summary = menu.querySelector("summary");
  summary.textContent = account ? account.name : t("signIn");
  summary.classList.toggle("signed-in", Boolean(account));
  const body = menu.querySelector(".account-body");
  clear(body);
  if (account) signedInBody(body);
  else signedOutBody(body);
}

/** Put the account menu in the top bar and ask who is signed in.
 * @returns {Promise<void>} */
export function startAccount() {
  const menu = make("details", "account");
  menu.id = "account";
  menu.appendChild(make("summary"));
  menu.appendChild(make("div", "account-body"));
  $("settings").before(menu);
  document.addEventListener("click", (event) => {
    if (menu.open && !menu.contains(/** @type {Node | null} */ (event.target))) menu.open = false;
  });
  drawMenu();
  redraws.push(drawMenu);
  // (the answer may come while the menu is open: it is left open)
  accountKnown = api.currentAccount()
    .then((found) => setAccount(found, { closeMenu: false }))
    .catch(() => setAccount(null, { closeMenu: false }));
  return accountKnown;
}

/** Draw the account's parts again in the language just chosen. */
export function refreshAccountTexts() {
  for (const redraw of redraws) redraw();
}

// ---------------------------------------------------------------- a rated game's page

/** @param {number} change @returns {string} "+12", "-3" or "0" */
function signed(change) {
  return change > 0 ? `+${change}` : String(change);
}

/** @param {import("./protocol.js").RatingChange} change @returns {string} */
function ratingLine(change) {
  const mark = change.provisional ? "?" : "";
  return t("ratingChange", {
    name: change.name,
    before: change.before,
    after: `${change.after}${mark}`,
    change: signed(change.change),
  });
}

/** @type {import("./protocol.js").GameRating | null} what the game's page was told of
 * its rating (watchGameRating) */
let ratingShown = null;
/** @type {(() => void)[]} called when it changes (the players' bars) */
const ratingListeners = [];

/** Whether the game's page found the game rated (its rematch is rated too).
 * @param {string} gameId @returns {boolean} */
export function isRatedGame(gameId) {
  return Boolean(ratingShown && ratingShown.game_id === gameId && ratingShown.rated);
}

/** A player's rating in a rated game, as its bar shows it ("1662", "1500?"), or "".
 * @param {string} gameId @param {import("./protocol.js").Side} side @returns {string} */
export function ratingInGame(gameId, side) {
  if (!ratingShown || ratingShown.game_id !== gameId || !ratingShown.ratings) return "";
  const found = ratingShown.ratings[side];
  return found ? `${found.rating}${found.provisional ? "?" : ""}` : "";
}

/** Call `listener()` whenever the game's rating is known anew.
 * @param {() => void} listener */
export function onGameRating(listener) {
  ratingListeners.push(listener);
}

/** On a game's page: a card saying whether the game is rated and, once it is settled,
 * each player's rating change (asked every few seconds until then).
 * @param {string} gameId */
export function watchGameRating(gameId) {
  const card = make("div", "card rating-card");
  card.id = "rating-card";
  card.hidden = true;
  const banner = $("banner");
  banner.after(card);
  /** @type {import("./protocol.js").GameRating | null} */
  let found = null;
  let stopped = false;
  const draw = () => {
    clear(card);
    if (!found || !found.rated) {
      show(card, false);
      return;
    }
    show(card, true);
    card.appendChild(make("strong", null, t("rated")));
    const settled = found.settlement;
    if (!settled) {
      const names = Object.values(found.players);
      if (names.length) card.appendChild(make("p", "muted", names.join(" – ")));
      card.appendChild(make("p", "muted", t("ratingWaiting")));
      if (!account && Object.keys(found.players).length < 2) {
        card.appendChild(make("p", "rating-sign-in", t("ratedSignIn")));
      }
      return;
    }
    // Which rule held the game back (for both players, or for one: new_opponents).
    const because = /** @type {Record<string, string>} */ ({
      too_short: "notCountedShort", same_network: "notCountedNetwork",
      same_pair: "notCountedPair", new_opponents: "notCountedNew", not_two_accounts: "notRated",
    })[settled.code || ""] || (Object.keys(settled.changes).length ? "notCountedPair" : "notRated");
    if (!settled.counted || settled.reason) {
      const note = make("p", null, t(because));
      note.title = settled.reason || "";
      card.appendChild(note);
    }
    for (const seat of /** @type {import("./protocol.js").Side[]} */ (["first", "second"])) {
      const change = settled.changes[seat];
      if (!change) continue;
      const line = make("p", `rating-change ${change.change >= 0 ? "up" : "down"}`, ratingLine(change));
      line.dataset.seat = seat;
      line.dataset.change = String(change.change);
      card.appendChild(line);
    }
  };
  redraws.push(draw);
  let failures = 0;
  const ask = async () => {
    if (stopped) return;
    try {
      found = await api.gameRating(gameId);
    } catch {
      // A server restarting or a failover: the card stays as it was and asks again, less
      // often the longer it fails (it used to vanish until a reload).
      failures += 1;
      setTimeout(ask, Math.min(2000 * failures, 15000));
      return;
    }
    failures = 0;
    ratingShown = found;
    for (const listener of ratingListeners) listener();
    draw();
    if (found.rated && !found.settlement) setTimeout(ask, 2000);
    else stopped = true;
  };
  ask();
}

// ---------------------------------------------------------------- a player's page

/** @param {import("./protocol.js").ProfileGame} game @returns {string} */
function describeGame(game) {
  const parts = [t(game.variant)];
  if (game.rated) parts.push(t("rated"));
  parts.push(game.opponent ? t("vsOpponent", { name: game.opponent }) : t(game.kind === "computer" ? "vsComputer" : "anonymous"));
  if (game.status === "over" && game.result) {
    const winner = game.result.winner;
    parts.push(winner === null ? t("drawn") : winner === game.seat ? t("won") : t("lost"));
  } else {
    parts.push(t("inProgress"));
  }
  return parts.join(" · ");
}

/** A player's ratings in one game as a small line.
 * @param {{rating: number}[]} points @returns {SVGSVGElement} */
function historyGraph(points) {
  const svgNs = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(svgNs, "svg");
  svg.setAttribute("class", "rating-graph");
  svg.setAttribute("viewBox", "0 0 300 80");
  if (points.length < 2) return svg;
  const ratings = points.map((p) => p.rating);
  const low = Math.min(...ratings) - 10;
  const high = Math.max(...ratings) + 10;
  const line = points.map((p, i) => {
    const x = (i / (points.length - 1)) * 296 + 2;
    const y = 78 - ((p.rating - low) / (high - low)) * 76;
    return `${x.toFixed(1)},${y.toFixed(1)}`;
  });
  const polyline = document.createElementNS(svgNs, "polyline");
  polyline.setAttribute("points", line.join(" "));
  svg.appendChild(polyline);
  return svg;
}

/** "/p/{name}": a player's ratings, results, rating graph and recent games.
 * @param {string} name */
export function showPlayer(name) {
  const section = make("section", "player-page");
  section.id = "player";
  $("home").before(section);
  /** @type {import("./protocol.js").Profile | null} */
  let profile = null;
  /** @type {unknown} */
  let failed = null;
  const draw = () => {
    clear(section);
    const card = make("div", "card");
    section.appendChild(card);
    if (failed) {
      card.appendChild(make("p", "form-error", t("playerNotFound")));
      return;
    }
    if (!profile) return;
    card.appendChild(make("h2", null, profile.name));
    const since = new Date(profile.created_ms).toLocaleDateString();
    card.appendChild(make("p", "muted", t("memberSince", { date: since })));
    const me = currentAccount();
    if (me && me.name !== profile.name) { // (a challenge waits for them if they are away)
      const link = make("a", "button", t("challengePlayer", { name: profile.name }));
      link.id = "player-challenge";
      link.href = `/?challenge=${encodeURIComponent(profile.name)}`;
      card.appendChild(link);
    }
    const record = profile.record;
    card.appendChild(make("p", null, t("record", { w: record.wins, l: record.losses, d: record.draws })));
    card.appendChild(make("h3", null, t("ratingsTitle")));
    const games = Object.keys(profile.ratings);
    if (!games.length) card.appendChild(make("p", "muted", t("noRatedGames")));
    for (const game of games) {
      const rating = profile.ratings[game];
      const line = make("p", "player-rating");
      line.dataset.game = game;
      const mark = rating.provisional ? `? (${t("provisional")})` : "";
      line.textContent = `${t(game)}: ${rating.rating}${mark} · ${t("record", { w: rating.wins, l: rating.losses, d: rating.draws })}`;
      card.appendChild(line);
      card.appendChild(historyGraph(profile.history[game] || []));
    }
    card.appendChild(make("h3", null, t("recentGames")));
    const list = make("ul", "game-list");
    for (const game of profile.games) {
      const item = make("li");
      const link = make("a", null, describeGame(game));
      link.href = game.watch_url;
      item.appendChild(link);
      list.appendChild(item);
    }
    card.appendChild(list);
  };
  redraws.push(draw);
  onAccountChange(() => draw()); // (the challenge link: signed in, or not)
  api.playerProfile(name).then((found) => {
    profile = found;
    draw();
  }).catch((err) => {
    failed = err;
    draw();
  });
}

// ---------------------------------------------------------------- leaderboards

/** @param {HTMLElement} list @param {{name: string, rating: number}} player @param {string} mark */
function leaderboardLine(list, player, mark) {
  const item = make("li");
  const link = make("a", null, `${player.name} ${player.rating}${mark}`);
  link.href = `/p/${encodeURIComponent(player.name)}`;
  item.appendChild(link);
  list.appendChild(item);
}

/** The rating categories with a leaderboard: each game, then its correspondence games. */
const LEADERBOARDS = ["xiangqi", "janggi", "xiangqi-correspondence", "janggi-correspondence"];

/** The home page's card of the best established ratings per game, and below them the
 * best provisional ones ("?"), so that a new server's board is not empty. */
export function showLeaderboards() {
  const card = make("div", "card leaderboard");
  card.id = "leaderboard";
  $("home").appendChild(card);
  /** @type {Record<string, import("./protocol.js").Leaderboard>} */
  const boards = {};
  const draw = () => {
    clear(card);
    card.appendChild(make("h2", null, t("leaderboard")));
    for (const game of LEADERBOARDS) {
      const found = boards[game];
      // (a correspondence board is shown once someone is on it)
      if (game.endsWith("-correspondence") && !(found && (found.players.length || (found.newcomers || []).length))) continue;
      const heading = make("h3", null, t(game));
      card.appendChild(heading);
      const players = boards[game] ? boards[game].players.slice(0, 10) : [];
      const newcomers = boards[game] ? (boards[game].newcomers || []).slice(0, 10 - players.length) : [];
      if (players.length) {
        const list = make("ol", "leaderboard-list");
        list.dataset.game = game;
        for (const player of players) leaderboardLine(list, player, "");
        card.appendChild(list);
      } else {
        card.appendChild(make("p", "muted", t("noPlayersYet")));
      }
      if (newcomers.length) {
        card.appendChild(make("p", "muted", t("newcomers")));
        const list = make("ul", "leaderboard-list newcomers");
        list.dataset.game = game;
        for (const player of newcomers) leaderboardLine(list, player, "?");
        card.appendChild(list);
      }
    }
  };
  redraws.push(draw);
  draw();
  for (const game of LEADERBOARDS) {
    api.leaderboard(game).then((found) => {
      boards[game] = found;
      draw();
    }).catch(() => {});
  }
}
