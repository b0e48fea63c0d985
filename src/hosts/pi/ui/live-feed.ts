/**
 * The throttle between the run registry and everything live on screen (issue 11, ADR 0081): the
 * registry reports each change with {@link LiveFeed.changed}, which only marks the feed dirty and,
 * at most, arms one timer; listeners run at most once per `minIntervalMs` (100 ms: ≤ 10 updates a
 * second), after the changes, on the event loop — so a spawn or a child event never waits for a
 * render, and a burst of child events costs one render.
 */

/** Timers, injectable so tests and the bench control time. */
export interface FeedClock {
	now(): number;
	setTimeout(callback: () => void, ms: number): unknown;
	clearTimeout(handle: unknown): void;
}

const systemClock: FeedClock = {
	now: () => Date.now(),
	setTimeout: (callback, ms) => {
		const timer = setTimeout(callback, ms);
		timer.unref?.();
		return timer;
	},
	clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** Options for {@link createLiveFeed}. */
export interface LiveFeedOptions {
	/** The shortest time between two updates (default 100 ms). */
	minIntervalMs?: number;
	clock?: FeedClock;
}

/** A throttled change feed. */
export interface LiveFeed {
	/** Something changed: listeners run soon (never synchronously). O(1). */
	changed(): void;
	/** Run `listener` on every update; returns the unsubscribe function. */
	subscribe(listener: () => void): () => void;
	/** How many updates ran (for tests and the bench). */
	readonly updates: number;
	/** No more updates. */
	dispose(): void;
}

/** Create a feed. */
export function createLiveFeed(options: LiveFeedOptions = {}): LiveFeed {
	const interval = options.minIntervalMs ?? 100;
	const clock = options.clock ?? systemClock;
	const listeners = new Set<() => void>();
	let timer: unknown = null;
	let last = Number.NEGATIVE_INFINITY;
	let updates = 0;
	let disposed = false;

	const fire = () => {
		timer = null;
		if (disposed) return;
		last = clock.now();
		updates++;
		for (const listener of [...listeners]) {
			try {
				listener();
			} catch {
				// a display that fails must not stop the others
			}
		}
	};

	return {
		changed() {
			if (disposed || timer !== null) return;
			timer = clock.setTimeout(fire, Math.max(0, last + interval - clock.now()));
		},
		subscribe(listener) {
			listeners.add(listener);
			return () => listeners.delete(listener);
		},
		get updates() {
			return updates;
		},
		dispose() {
			disposed = true;
			listeners.clear();
			if (timer !== null) clock.clearTimeout(timer);
			timer = null;
		},
	};
}
