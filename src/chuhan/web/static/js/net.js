// The game's websocket: hello with the seat token, numbered messages, game actions stamped
// with the state version the player saw, and reconnection with backoff after a drop (the
// state the server sends after the new hello is authoritative).

// The seat link is wrong (4401) or the game does not exist (4404): trying again cannot help.
// Every other close reconnects, so that a player is never left out while their clock runs.
const PERMANENT_CLOSE_CODES = new Set([4401, 4404]);
const TOO_MANY_CONNECTIONS = 4429; // after an error saying why: wait longer, then try again
const TOO_MANY_RETRY_MS = 30000;
const BACKOFF_START_MS = 500;
const BACKOFF_MAX_MS = 8000;
const PING_EVERY_MS = 15000;
const SILENCE_LIMIT_MS = 40000; // no frame for this long: the connection is dead
const WELCOME_LIMIT_MS = 15000; // no welcome this long after connecting: try again

export class Connection {
  /**
   * @param {string} gameId
   * @param {string|null} token a seat token, or null to watch
   * @param {{onMessage: function(object), onStatus: function(string, object=)}} hooks
   *   onStatus gets "connecting", "open", "reconnecting" (with {delayMs, code}), "busy" (too
   *   many connections: {delayMs, error} with the server's error message, if it sent one) or
   *   "closed" (with {code, reason}) when the server refused us for good.
   */
  constructor(gameId, token, hooks) {
    this.gameId = gameId;
    this.token = token;
    this.hooks = hooks;
    this.socket = null;
    this.seq = 0;
    this.version = null; // the version of the state the player sees: the view sets it
    this.backoff = BACKOFF_START_MS;
    this.stopped = false;
    this.retryTimer = null;
    this.pingTimer = null;
    this.welcomeTimer = null;
    this.lastFrameAt = 0;
    this.helloName = null; // a spectator's name for its chat lines (players' names are set)
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    return `${scheme}//${location.host}/ws/${encodeURIComponent(this.gameId)}`;
  }

  connect() {
    this.stopped = false;
    this.hooks.onStatus("connecting");
    const socket = new WebSocket(this.url());
    this.socket = socket;
    let lastError = null; // the error a refusing server sends before it closes
    clearTimeout(this.welcomeTimer);
    this.welcomeTimer = setTimeout(() => {
      if (socket === this.socket) socket.close(); // the close handler reconnects
    }, WELCOME_LIMIT_MS);
    socket.addEventListener("open", () => {
      if (socket !== this.socket) return;
      this.seq = 0; // numbering starts again on every connection
      this.lastFrameAt = Date.now();
      // Protocol 2: move lists arrive as changes (moves_from), presence on its own.
      const name = this.helloName ? { name: this.helloName } : {};
      this.send("hello", { token: this.token, protocol: 2, ...name });
      this.startPinging();
    });
    socket.addEventListener("message", (event) => {
      if (socket !== this.socket) return;
      this.lastFrameAt = Date.now();
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (message.type === "welcome") {
        clearTimeout(this.welcomeTimer);
        this.backoff = BACKOFF_START_MS;
        this.hooks.onStatus("open");
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
      if (PERMANENT_CLOSE_CODES.has(event.code)) {
        this.hooks.onStatus("closed", { code: event.code, reason: event.reason });
      } else if (event.code === TOO_MANY_CONNECTIONS) {
        this.hooks.onStatus("busy", { delayMs: TOO_MANY_RETRY_MS, error: lastError });
        this.reconnectAfter(TOO_MANY_RETRY_MS);
      } else {
        this.scheduleReconnect(event.code);
      }
    });
  }

  scheduleReconnect(code) {
    const delayMs = this.backoff;
    this.backoff = Math.min(this.backoff * 2, BACKOFF_MAX_MS);
    this.hooks.onStatus("reconnecting", { delayMs, code });
    this.reconnectAfter(delayMs);
  }

  reconnectAfter(delayMs) {
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => {
      if (!this.stopped) this.connect();
    }, delayMs);
  }

  /** Drop this connection and make a new one: the state after the new hello is whole. */
  restart() {
    if (this.socket) this.socket.close(); // the close handler reconnects
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
    this.pingTimer = null;
  }

  /** Send a message; false when the socket is not open (the resync after reconnecting
   * shows the player the real state, so nothing is queued). */
  send(type, fields = {}) {
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN) return false;
    this.seq += 1;
    this.socket.send(JSON.stringify({ type, seq: this.seq, ...fields }));
    return true;
  }

  /** A game action, stamped with the version of the state the player was looking at. */
  action(type, fields = {}) {
    return this.send(type, { version: this.version, ...fields });
  }

  close() {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    clearTimeout(this.welcomeTimer);
    this.stopPinging();
    if (this.socket) this.socket.close(1000);
    this.socket = null;
  }
}
