/**
 * Verdict sounds, synthesised with the Web Audio API (no audio files, so
 * nothing for the CSP's media-src to allow). Admit and refuse differ in
 * pitch, timbre AND rhythm, so they are told apart in a noisy entrance and by
 * people who cannot hear high tones: admit = two short rising sine notes;
 * refuse = three low, buzzy square pulses.
 */
interface Note {
  frequencyHz: number;
  startS: number;
  durationS: number;
  wave: OscillatorType;
}

export const ADMIT_NOTES: readonly Note[] = [
  { frequencyHz: 880, startS: 0, durationS: 0.12, wave: 'sine' },
  { frequencyHz: 1320, startS: 0.14, durationS: 0.2, wave: 'sine' },
];

export const REFUSE_NOTES: readonly Note[] = [
  { frequencyHz: 196, startS: 0, durationS: 0.16, wave: 'square' },
  { frequencyHz: 196, startS: 0.23, durationS: 0.16, wave: 'square' },
  { frequencyHz: 165, startS: 0.46, durationS: 0.3, wave: 'square' },
];

const VOLUME = 0.3;
/** Short fades stop the clicks a hard start or stop makes. */
const FADE_S = 0.01;

let context: AudioContext | null = null;

/**
 * Creates the audio context ahead of the first verdict. Creating one starts the audio output and
 * takes tens of milliseconds (about 100 ms in headless Chromium): done inside the first verdict it
 * held back that verdict's paint. Made before any user gesture, Chromium starts it suspended;
 * playVerdictSound resumes it.
 */
export function prepareVerdictSound(): void {
  try {
    context ??= new AudioContext();
  } catch {
    // No audio: playVerdictSound tries again and stays silent.
  }
}

export function playVerdictSound(kind: 'admit' | 'exit' | 'refuse'): void {
  try {
    context ??= new AudioContext();
    // Chromium starts a context suspended until the page had a user gesture; a scanner's keystrokes count.
    if (context.state === 'suspended') void context.resume();
    const now = context.currentTime;
    for (const note of kind === 'refuse' ? REFUSE_NOTES : ADMIT_NOTES) playNote(context, note, now);
  } catch {
    // No audio device, or audio blocked: the screen alone still tells the verdict.
  }
}

function playNote(ctx: AudioContext, note: Note, now: number): void {
  const oscillator = ctx.createOscillator();
  const gain = ctx.createGain();
  oscillator.type = note.wave;
  oscillator.frequency.value = note.frequencyHz;
  const start = now + note.startS;
  const end = start + note.durationS;
  // Square waves sound far louder than sines at the same gain.
  const peak = note.wave === 'square' ? VOLUME * 0.5 : VOLUME;
  gain.gain.setValueAtTime(0, start);
  gain.gain.linearRampToValueAtTime(peak, start + FADE_S);
  gain.gain.setValueAtTime(peak, end - FADE_S);
  gain.gain.linearRampToValueAtTime(0, end);
  oscillator.connect(gain).connect(ctx.destination);
  oscillator.start(start);
  oscillator.stop(end);
}
