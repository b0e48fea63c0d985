/**
 * The FIFO limiter that admits background runs (spec 04 "Runs"): at most `max` run at once, the
 * rest wait in arrival order. Foreground runs never pass through it.
 */

/** A queued job: `start` is called when admitted and must call the returned `release` exactly once. */
export interface Limiter {
	/** Queue `start`; it runs when a slot is free. Returns a cancel function (true if it was still queued). */
	enqueue(key: string, start: (release: () => void) => void): () => boolean;
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
		enqueue(key, start) {
			const job = { key, start };
			queue.push(job);
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
