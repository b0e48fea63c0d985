/**
 * The sandbox policy for cadre's own file tools (read, write, edit, grep, find, ls), which run in
 * the parent's process (ADR 0150): every path is judged by its real path — symlinks resolved, `..`
 * gone, `/proc/self/cwd` followed — and a file hard-linked into the write roots (found when the
 * child starts) is neither read nor written. A refusal is recorded as a blocked attempt.
 */
import { lstatSync, readdirSync, realpathSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { isWithin, type SandboxPolicy } from "../resolve/sandbox-policy.ts";

/** The real path of `path`, for a path that may not exist yet: the real path of its nearest existing ancestor, then the rest. */
export function realPathOf(path: string): string {
	const absolute = resolve(path);
	try {
		return realpathSync(absolute);
	} catch {
		const parent = dirname(absolute);
		if (parent === absolute) return absolute;
		return join(realPathOf(parent), basename(absolute));
	}
}

/** Whether the real path `real` may be read under `policy`. */
export function readable(real: string, policy: SandboxPolicy): boolean {
	return policy.denyRead.every((denied) => !isWithin(real, denied) || policy.allowRead.some((allowed) => isWithin(real, allowed) && isWithin(allowed, denied)));
}

/** Whether the real path `real` may be written under `policy`. */
export function writable(real: string, policy: SandboxPolicy): boolean {
	return readable(real, policy) && policy.write.some((root) => isWithin(real, root));
}

/** At most this many entries are walked looking for hard links (a larger tree is walked this far). */
const MAX_WALK = 200_000;

/**
 * Regular files with more than one link below the write roots (`.git` skipped): writing through
 * one would change a file outside, reading one could read a denied file. Found once per child.
 */
export function hardLinkedFiles(roots: readonly string[]): string[] {
	const found: string[] = [];
	let walked = 0;
	const walk = (dir: string) => {
		let entries;
		try {
			entries = readdirSync(dir, { withFileTypes: true });
		} catch {
			return;
		}
		for (const entry of entries) {
			if (++walked > MAX_WALK) return;
			const path = join(dir, entry.name);
			if (entry.isDirectory()) {
				if (entry.name !== ".git") walk(path);
			} else if (entry.isFile()) {
				try {
					if (lstatSync(path).nlink > 1) found.push(path);
				} catch {
					// gone meanwhile
				}
			}
		}
	};
	for (const root of roots) walk(root);
	return found;
}

/** Judges the file tools' paths for one child and keeps what it refused. */
export interface PathGuard {
	/** Throws when `path` (absolute) may not be read; returns its real path. */
	read(path: string, tool: string): string;
	/** Throws when `path` may not be written. */
	write(path: string, tool: string): string;
	/** Throws when a search below `path` could reach a denied path. */
	search(path: string, tool: string): string;
	blocked(): string[];
}

export function pathGuard(policy: SandboxPolicy, hardLinks: readonly string[]): PathGuard {
	const blocked: string[] = [];
	const linked = new Set(hardLinks.map((path) => realPathOf(path)));
	const refuse = (tool: string, what: string, path: string, real: string): never => {
		const shown = real === resolve(path) ? path : `${path} (really ${real})`;
		blocked.push(`${tool}: ${what} ${shown}`);
		throw new Error(`cadre sandbox: ${tool} may not ${what} ${shown}: it is outside what this sub-agent may ${what === "write" ? "write (its worktree or project, and its temp dir)" : "read"}.`);
	};
	return {
		read(path, tool) {
			const real = realPathOf(path);
			if (!readable(real, policy) || linked.has(real)) refuse(tool, "read", path, real);
			return real;
		},
		write(path, tool) {
			const real = realPathOf(path);
			if (!writable(real, policy) || linked.has(real)) refuse(tool, "write", path, real);
			return real;
		},
		search(path, tool) {
			const real = realPathOf(path);
			const reaches = policy.denyRead.some((denied) => isWithin(denied, real) && !policy.allowRead.some((allowed) => isWithin(real, allowed) && isWithin(allowed, denied)));
			if (!readable(real, policy) || reaches) refuse(tool, "read", path, real);
			return real;
		},
		blocked: () => [...blocked],
	};
}
