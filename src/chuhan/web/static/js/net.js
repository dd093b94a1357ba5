// @ts-check
// The one websocket client of every page (the game, the lobby, the analysis board): hello
// first on every connection, numbered messages, a ping that finds a dead connection, and
// reconnection with backoff and jitter after a drop, by the same close codes everywhere
// (docs/web-protocol.md, "Close codes"). What a page holds is made whole again after each
// reconnection by the page's own answer to `welcome`: the game's state after the new hello
// is authoritative (its version replaces the one the player saw), the lobby's seek list comes
// again, the analysis board asks for its position again.

/** The seat link is wrong (4401) or the game does not exist (4404): trying again cannot
 * help. Every other close reconnects, so that a player is never left out while their clock
 * runs. */
export const FINAL_CLOSE_CODES = new Set([4401, 4404]);
/** Too many connections, after an error saying why: wait longer, then try again. */
export const TOO_MANY_CONNECTIONS = 4429;
const TOO_MANY_RETRY_MS = 30000; // (a random part of the last fifth taken off)
const BACKOFF_START_MS = 500;
const BACKOFF_MAX_MS = 8000;
const PING_EVERY_MS = 15000;
const SILENCE_LIMIT_MS = 40000; // no frame for this long: the connection is dead
const WELCOME_LIMIT_MS = 15000; // no welcome this long after connecting: try again

/**
 * A message from the server: its `type` and whatever fields that type has.
 * @typedef {{type: string, seq?: number, [field: string]: any}} ServerMessage
 */

/**
 * "connecting"; "open" (the server's welcome came); "reconnecting" (with `delayMs`, `code`);
 * "busy" (too many connections: `delayMs`, and the server's `error` message if it sent one);
 * "closed" (`code`, `reason`: the server refused us for good).
 * @typedef {"connecting" | "open" | "reconnecting" | "busy" | "closed"} SocketStatus
 */

/**
 * @typedef {object} StatusDetail
 * @property {number} [delayMs] how long until the next try
 * @property {number} [code] the close code
 * @property {string} [reason] the close reason
 * @property {ServerMessage | null} [error] the error the server sent before closing
 */

/**
 * @typedef {object} SocketHooks
 * @property {() => Record<string, unknown>} [hello] the hello's fields, asked anew for each
 *   connection
 * @property {(message: ServerMessage) => void} onMessage every message, `welcome` included
 * @property {(status: SocketStatus, detail?: StatusDetail) => void} [onStatus]
 */

/**
 * The wait before the next try: a random part of the backoff (half to all of it), so that
 * the clients of a restarted server do not all come back at the same moment.
 * @param {number} backoffMs
 * @param {() => number} [random] a number in [0, 1)
 * @returns {number}
 */
export function jittered(backoffMs, random = Math.random) {
  return Math.round(backoffMs * (0.5 + random() / 2));
}

/** The websocket address of `path` on this page's server.
 * @param {string} path
 * @returns {string} */
export function socketUrl(path) {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}${path}`;
}

export class Socket {
  /**
   * @param {string} path the socket's path, e.g. "/ws/lobby"
   * @param {SocketHooks} hooks
   */
  constructor(path, hooks) {
    this.path = path;
    this.hooks = hooks;
    /** @type {WebSocket | null} */
    this.socket = null;
    this.seq = 0;
    this.backoff = BACKOFF_START_MS;
    this.stopped = false;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.retryTimer = undefined;
    /** @type {ReturnType<typeof setInterval> | undefined} */
    this.pingTimer = undefined;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.welcomeTimer = undefined;
    this.lastFrameAt = 0;
  }

  /** @param {SocketStatus} status @param {StatusDetail} [detail] */
  status(status, detail) {
    if (this.hooks.onStatus) this.hooks.onStatus(status, detail);
  }

  connect() {
    this.stopped = false;
    clearTimeout(this.retryTimer);
    this.status("connecting");
    const socket = new WebSocket(socketUrl(this.path));
    this.socket = socket;
    /** @type {ServerMessage | null} */
    let lastError = null; // the error a refusing server sends before it closes
    clearTimeout(this.welcomeTimer);
    this.welcomeTimer = setTimeout(() => {
      if (socket === this.socket) socket.close(); // the close handler reconnects
    }, WELCOME_LIMIT_MS);
    socket.addEventListener("open", () => {
      if (socket !== this.socket) return;
      this.seq = 0; // numbering starts again on every connection
      this.lastFrameAt = Date.now();
      this.send("hello", this.hooks.hello ? this.hooks.hello() : {});
      this.startPinging();
    });
    socket.addEventListener("message", (event) => {
      if (socket !== this.socket) return;
      this.lastFrameAt = Date.now();
      /** @type {ServerMessage} */
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (!message || typeof message.type !== "string") return;
      if (message.type === "welcome") {
        clearTimeout(this.welcomeTimer);
        this.backoff = BACKOFF_START_MS;
        this.status("open");
      }
      if (message.type === "error") lastError = message;
      this.hooks.onMessage(message);
    });
    socket.addEventListener("close", (event) => {
      if (socket !== this.socket) return;
      clearTimeout(this.welcomeTimer);
      this.stopPinging();
      this.socket = null;
      if (this.stopped) return;
      if (FINAL_CLOSE_CODES.has(event.code)) {
        this.status("closed", { code: event.code, reason: event.reason });
      } else if (event.code === TOO_MANY_CONNECTIONS) {
        const delayMs = Math.round(TOO_MANY_RETRY_MS * (0.8 + Math.random() * 0.2));
        this.status("busy", { delayMs, error: lastError });
        this.reconnectAfter(delayMs);
      } else {
        this.scheduleReconnect(event.code);
      }
    });
  }

  /** @param {number} code the close code that ended the last connection */
  scheduleReconnect(code) {
    const delayMs = jittered(this.backoff);
    this.backoff = Math.min(this.backoff * 2, BACKOFF_MAX_MS);
    this.status("reconnecting", { delayMs, code });
    this.reconnectAfter(delayMs);
  }

  /** @param {number} delayMs */
  reconnectAfter(delayMs) {
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => {
      if (!this.stopped) this.connect();
    }, delayMs);
  }

  /** Drop this connection and make a new one after the usual backoff, as after any drop:
   * what the page gets after the new hello is whole. */
  restart() {
    if (this.socket) this.socket.close(); // the close handler reconnects
  }

  /** Drop this connection and make a new one at once (the player is someone else now: a
   * new hello must say so). */
  reopen() {
    const old = this.socket;
    this.socket = null; // its close event is no longer ours
    clearTimeout(this.welcomeTimer);
    this.stopPinging();
    if (old) old.close(1000);
    this.connect();
  }

  startPinging() {
    this.stopPinging();
    this.pingTimer = setInterval(() => {
      if (Date.now() - this.lastFrameAt > SILENCE_LIMIT_MS && this.socket) {
        this.socket.close(); // the close handler reconnects
        return;
      }
      this.send("ping");
    }, PING_EVERY_MS);
  }

  stopPinging() {
    clearInterval(this.pingTimer);
    this.pingTimer = undefined;
  }

  /** Whether the socket is open now (a message sent would go). */
  isOpen() {
    return this.socket !== null && this.socket.readyState === WebSocket.OPEN;
  }

  /**
   * Send a message; its seq, or 0 when the socket is not open (the resync after
   * reconnecting shows the player the real state, so nothing is queued).
   * @param {string} type
   * @param {Record<string, unknown>} [fields]
   * @returns {number}
   */
  send(type, fields = {}) {
    if (!this.socket || !this.isOpen()) return 0;
    this.seq += 1;
    this.socket.send(JSON.stringify({ type, seq: this.seq, ...fields }));
    return this.seq;
  }

  /** Close for good: no reconnection. */
  close() {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    clearTimeout(this.welcomeTimer);
    this.stopPinging();
    if (this.socket) this.socket.close(1000);
    this.socket = null;
  }
}

/** A game's socket: the hello carries the seat token, and game actions are stamped with the
 * state version the player saw. */
export class Connection extends Socket {
  /**
   * @param {string} gameId
   * @param {string | null} token a seat token, or null to watch
   * @param {{onMessage: (message: ServerMessage) => void,
   *   onStatus: (status: SocketStatus, detail?: StatusDetail) => void}} hooks
   */
  constructor(gameId, token, hooks) {
    super(`/ws/${encodeURIComponent(gameId)}`, { ...hooks });
    // Protocol 2: move lists arrive as changes (moves_from), presence on its own.
    this.hooks.hello = () => ({
      token: this.token, protocol: 2, ...(this.helloName ? { name: this.helloName } : {}),
    });
    this.gameId = gameId;
    this.token = token;
    /** @type {number | null} the version of the state the player sees: the view sets it */
    this.version = null;
    /** @type {string | null} a spectator's name for its chat lines (players' names are set) */
    this.helloName = null;
  }

  /**
   * A game action, stamped with the version of the state the player was looking at.
   * @param {string} type
   * @param {Record<string, unknown>} [fields]
   * @returns {number} its seq, or 0 when the socket is not open
   */
  action(type, fields = {}) {
    return this.send(type, { version: this.version, ...fields });
  }
}
