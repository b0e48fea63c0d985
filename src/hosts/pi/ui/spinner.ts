/**
 * The running rows' spinner (issue 24 "spinner for running rows"): a braille frame picked from the
 * clock, so every row that shows a running run turns at the same pace without state of its own.
 */
import { stateIcon } from "./run-view.ts";
import type { Style } from "./text.ts";

/** The frames, one every {@link SPINNER_MS}. */
export const SPINNER_FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"] as const;
/** How long one frame shows (ms); the widget redraws at this pace while a run is running. */
export const SPINNER_MS = 200;

/** The frame at `now`. */
export function spinnerFrame(now: number): string {
	return SPINNER_FRAMES[Math.floor(now / SPINNER_MS) % SPINNER_FRAMES.length] as string;
}

/** The state's icon, a turning spinner while running (when `now` is given). */
export function liveIcon(state: string, style: Style, now: number | null): string {
	return state === "running" && now !== null ? style.fg("accent", spinnerFrame(now)) : stateIcon(state, style);
}
