// @ts-check
// Short sounds made with the Web Audio API (no audio files): a wooden click for a move, a
// heavier knock for a capture, and two rising tones for check.

/** @type {AudioContext | null} */
let context = null;
let enabled = true;

/** @param {unknown} on */
export function setSoundEnabled(on) {
  enabled = Boolean(on);
}

/** The page's audio context, made at the first sound (null when off or missing).
 * @returns {AudioContext | null} */
function audio() {
  if (!enabled) return null;
  // (older Safari has only the prefixed one)
  const prefixed = /** @type {Window & {webkitAudioContext?: typeof AudioContext}} */ (window);
  const Context = window.AudioContext || prefixed.webkitAudioContext;
  if (!Context) return null;
  if (!context) context = new Context();
  if (context.state === "suspended") context.resume().catch(() => {});
  return context;
}

/** Make (or resume) the audio context from a user's gesture, so that later sounds play
 * even in a background tab. */
export function unlockSound() {
  audio();
}

/** A burst of filtered noise: the knock of a piece on wood.
 * @param {AudioContext} ctx @param {number} when
 * @param {{frequency: number, duration: number, gain: number}} sound */
function knock(ctx, when, { frequency, duration, gain }) {
  const length = Math.ceil(ctx.sampleRate * duration);
  const buffer = ctx.createBuffer(1, length, ctx.sampleRate);
  const data = buffer.getChannelData(0);
  for (let i = 0; i < length; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / length) ** 3;
  const source = ctx.createBufferSource();
  source.buffer = buffer;
  const filter = ctx.createBiquadFilter();
  filter.type = "bandpass";
  filter.frequency.value = frequency;
  filter.Q.value = 3;
  const volume = ctx.createGain();
  volume.gain.value = gain;
  source.connect(filter).connect(volume).connect(ctx.destination);
  source.start(when);
}

/** @param {AudioContext} ctx @param {number} when @param {number} frequency @param {number} duration */
function tone(ctx, when, frequency, duration) {
  const osc = ctx.createOscillator();
  osc.type = "triangle";
  osc.frequency.value = frequency;
  const volume = ctx.createGain();
  volume.gain.setValueAtTime(0.0001, when);
  volume.gain.exponentialRampToValueAtTime(0.25, when + 0.01);
  volume.gain.exponentialRampToValueAtTime(0.0001, when + duration);
  osc.connect(volume).connect(ctx.destination);
  osc.start(when);
  osc.stop(when + duration + 0.02);
}

/** Play the sound for a move: "move", "capture" or "check".
 * @param {"move" | "capture" | "check"} kind */
export function playSound(kind) {
  const ctx = audio();
  if (!ctx) return;
  const now = ctx.currentTime;
  if (kind === "capture") {
    knock(ctx, now, { frequency: 900, duration: 0.09, gain: 1.6 });
    knock(ctx, now + 0.05, { frequency: 500, duration: 0.12, gain: 1.2 });
  } else if (kind === "check") {
    knock(ctx, now, { frequency: 1400, duration: 0.07, gain: 1.2 });
    tone(ctx, now + 0.05, 660, 0.12);
    tone(ctx, now + 0.17, 880, 0.18);
  } else {
    knock(ctx, now, { frequency: 1400, duration: 0.07, gain: 1.2 });
  }
}
