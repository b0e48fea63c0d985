/**
 * The throttle between the registry and the screen (issue 11 item 1): a change never renders
 * synchronously, a burst costs one update, and there are never more than 10 updates a second
 * however many changes arrive.
 */
import { describe, expect, it } from "vitest";
import { createLiveFeed, type FeedClock } from "../../src/hosts/pi/ui/live-feed.ts";

/** A clock the test moves by hand. */
function manualClock() {
	let now = 0;
	const timers: { at: number; callback: () => void }[] = [];
	const clock: FeedClock = {
		now: () => now,
		setTimeout: (callback, ms) => {
			const timer = { at: now + ms, callback };
			timers.push(timer);
			return timer;
		},
		clearTimeout: (handle) => {
			timers.splice(timers.indexOf(handle as (typeof timers)[number]), 1);
		},
	};
	const advance = (ms: number) => {
		const until = now + ms;
		for (;;) {
			timers.sort((a, b) => a.at - b.at);
			const next = timers[0];
			if (!next || next.at > until) break;
			timers.shift();
			now = next.at;
			next.callback();
		}
		now = until;
	};
	return { clock, advance };
}

describe("live feed", () => {
	it("never runs a listener inside changed(); one change after a quiet time updates at once", () => {
		const { clock, advance } = manualClock();
		const feed = createLiveFeed({ clock });
		let calls = 0;
		feed.subscribe(() => calls++);
		feed.changed();
		expect(calls).toBe(0);
		advance(0);
		expect(calls).toBe(1);
	});

	it("at most 10 updates a second under a flood of changes, and the last change is always shown", () => {
		const { clock, advance } = manualClock();
		const feed = createLiveFeed({ clock });
		const at: number[] = [];
		feed.subscribe(() => at.push(clock.now()));
		// 20 000 changes over one second (0 … 999 ms).
		for (let ms = 0; ms < 1000; ms++) {
			for (let i = 0; i < 20; i++) feed.changed();
			if (ms < 999) advance(1);
		}
		expect(at.length).toBeLessThanOrEqual(10);
		expect(at.length).toBeGreaterThanOrEqual(9);
		expect(Math.min(...at.slice(1).map((time, index) => time - (at[index] ?? 0)))).toBeGreaterThanOrEqual(100);
		// The change at 999 ms is not lost: it is shown at the next slot.
		advance(100);
		expect(at.at(-1)).toBeGreaterThanOrEqual(999);
		expect(feed.updates).toBe(at.length);
	});

	it("a failing listener does not stop the others; after dispose nothing runs", () => {
		const { clock, advance } = manualClock();
		const feed = createLiveFeed({ clock });
		let calls = 0;
		feed.subscribe(() => {
			throw new Error("bug");
		});
		feed.subscribe(() => calls++);
		feed.changed();
		advance(0);
		expect(calls).toBe(1);
		feed.changed();
		feed.dispose();
		advance(1000);
		expect(calls).toBe(1);
	});
});
