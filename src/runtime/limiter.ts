/**
 * The FIFO limiter that admits runs (spec 04 "Runs"): at most `max` run at once, the rest wait in
 * arrival order. One limiter serves a whole tree (issue 21, ADR 0173): the root session's
 * background runs and every nested run pass through it; the root's foreground runs never do. A
 * run that waits on its own children gives its slot back and asks again with priority `first`
 * (ahead of every queued job), so a tree never deadlocks, even with one slot.
 */

/** Where a job joins the queue: `last` (FIFO, the default) or `first` (a run resuming after a wait). */
export type LimiterPriority = "first" | "last";

/** A queued job: `start` is called when admitted and must call the returned `release` exactly once. */
export interface Limiter {
	/** Queue `start`; it runs when a slot is free. Returns a cancel function (true if it was still queued). */
	enqueue(key: string, start: (release: () => void) => void, priority?: LimiterPriority): () => boolean;
	/** How many admitted jobs hold a slot. */
	active(): number;
	/** Keys waiting, oldest first. */
	waiting(): string[];
	/** Change the slot count (settings are re-read at every spawn). */
	setMax(max: number): void;
}

/** A FIFO limiter with `max` slots (at least 1). */
export function createLimiter(max: number): Limiter {
	let slots = Math.max(1, Math.floor(max));
	let running = 0;
	const queue: { key: string; start: (release: () => void) => void }[] = [];

	const pump = () => {
		while (running < slots && queue.length > 0) {
			const job = queue.shift();
			if (!job) break;
			running++;
			let released = false;
			const release = () => {
				if (released) return;
				released = true;
				running--;
				queueMicrotask(pump);
			};
			try {
				job.start(release);
			} catch {
				release();
			}
		}
	};

	return {
		enqueue(key, start, priority = "last") {
			const job = { key, start };
			if (priority === "first") queue.unshift(job);
			else queue.push(job);
			pump();
			return () => {
				const index = queue.indexOf(job);
				if (index < 0) return false;
				queue.splice(index, 1);
				return true;
			};
		},
		active: () => running,
		waiting: () => queue.map((job) => job.key),
		setMax(next) {
			slots = Math.max(1, Math.floor(next));
			pump();
		},
	};
}
