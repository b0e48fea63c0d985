/**
 * One `git worktree add` at a time per repository in this process. git's own bookkeeping races
 * when two worktrees are added to one repository at once (one reads a sibling's half-written
 * `.git/worktrees/<name>/commondir` and fails), which refused sibling spawns that isolate at the
 * same moment. The adds are short; the rest of a worktree's preparation still runs in parallel.
 */
const tails = new Map<string, Promise<unknown>>();

/** Runs `fn` after every earlier call for `repo` has settled. */
export function oneAtATime<T>(repo: string, fn: () => Promise<T>): Promise<T> {
	const previous = tails.get(repo) ?? Promise.resolve();
	const run = previous.then(fn, fn);
	const tail = run.catch(() => undefined);
	tails.set(repo, tail);
	void tail.then(() => {
		if (tails.get(repo) === tail) tails.delete(repo);
	});
	return run;
}
