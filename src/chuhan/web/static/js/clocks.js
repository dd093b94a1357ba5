// @ts-check
// The clocks and the janggi setup countdown, counted down in the page from the last state
// (the server's times are authoritative: each state sets them again).

import { $, setText, setTitle } from "./dom.js";
import { sideName, t } from "./i18n.js";

/** A clock's time as it is shown: "4:05", "1:02:03", or tenths under ten seconds.
 * @param {number} ms @returns {string} */
export function formatClock(ms) {
  const clamped = Math.max(0, ms);
  if (clamped < 10000) return (clamped / 1000).toFixed(1);
  const total = Math.ceil(clamped / 1000);
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, "0");
  return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${seconds}` : `${minutes}:${seconds}`;
}

/** A correspondence clock's time left: "2 d 5 h", "3 h 20 min", or the clock's form
 * under an hour.
 * @param {number} ms @returns {string} */
export function formatTimeLeft(ms) {
  const clamped = Math.max(0, ms);
  const hours = Math.floor(clamped / 3600000);
  if (hours >= 24) return t("daysHoursLeft", { d: Math.floor(hours / 24), h: hours % 24 });
  if (hours >= 1) return t("hoursMinutesLeft", { h: hours, m: Math.floor((clamped % 3600000) / 60000) });
  return formatClock(clamped);
}

/** When a correspondence move is due, as the reader's calendar writes it.
 * @param {number} deadlineMs @returns {string} */
export function formatDeadline(deadlineMs) {
  return new Date(deadlineMs).toLocaleString(undefined, {
    weekday: "short", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit",
  });
}

/** Draw the game view's clocks and setup countdown for now; a player whose opponent's time
 * has run out nudges the server with a flag claim.
 * @param {import("./game-view.js").GameView} view */
export function tickClocks(view) {
  const state = view.state;
  if (!state) return;
  const elapsed = performance.now() - view.receivedAt;
  const clock = state.clock;
  for (const barId of ["bar-top", "bar-bottom"]) {
    const bar = $(barId);
    const node = bar.querySelector(".player-clock");
    if (!clock) {
      setText(node, "");
      continue;
    }
    /** @type {import("./protocol.js").Side} the bar's side (renderPlayers sets it) */
    const side = bar.dataset.side;
    const running = clock.running === side && state.status === "playing";
    const control = clock.control;
    let main = clock[side].remaining_ms - (running ? elapsed : 0);
    let periods = clock[side].periods;
    let text;
    let low;
    if (control.days) {
      // Correspondence: the days left and the date the move is due, not a ticking clock.
      const due = Date.now() + main;
      // (the bar has room for the time left and the day; the hour is in its title)
      text = running
        ? `${formatTimeLeft(main)} · ${new Date(due).toLocaleDateString(undefined, { month: "short", day: "numeric" })}`
        : t("corrDays", { n: control.days });
      setTitle(node, running ? t("corrDue", { left: formatTimeLeft(main), date: formatDeadline(due) }) : "");
      low = running && main < 3600000;
      if (running && main <= -500 && !view.flagSent && view.isPlayer()) {
        view.flagSent = true;
        view.connection.action("flag");
      }
    } else if (main > 0 || !control.periods) {
      text = formatClock(main);
      low = main < Math.min(20000, control.base_ms * 0.1 + 10000);
      if (running && main <= -500 && !view.flagSent && view.isPlayer()) {
        view.flagSent = true;
        view.connection.action("flag");
      }
    } else if (periods <= 0) {
      // Main time and every period used up: the side lost on time.
      text = formatClock(0);
      low = true;
    } else {
      // Byo-yomi: each period of period_ms starts again after a move.
      let overrun = -main;
      while (overrun >= control.period_ms && periods > 1) {
        overrun -= control.period_ms;
        periods -= 1;
      }
      const left = control.period_ms - overrun;
      text = `${formatClock(left)} (${periods}×${Math.round(control.period_ms / 1000)})`;
      low = left < 10000;
    }
    if (!control.days) setTitle(node, "");
    setText(node, text);
    bar.classList.toggle("low-time", Boolean(low && state.status === "playing"));
    bar.classList.toggle("clock-running", running);
  }
  if (state.status === "setup" && state.setup) {
    // The chooser's time starts once the chooser is here: until then no countdown.
    const deadline = state.setup.deadline_ms;
    const left = typeof deadline === "number" ? Math.max(0, deadline - (Date.now() - view.skewMs)) : null;
    const chooser = sideName(state.variant, state.setup.chooser === "first");
    const mine = state.you && state.you.your_turn && view.isPlayer();
    const waitKey = state.setup.chooser === "second" ? "setupWaitHan" : "setupWaitCho";
    let who = mine ? t("yourSide", { side: chooser }) : t(waitKey);
    if (view.role === "both") who = t("toMove", { side: chooser });
    setText($("setup-status"), left === null
      ? who : `${who} — ${t("secondsLeft", { n: Math.ceil(left / 1000) })}`);
  }
}
